# Round 39 helpers (sourced): round 38's (37's ... lib.sh's setup_team,
# approve_live, approve_commit, sign, commit_all, push_past, verdict,
# team_step, check_policy, ci_check, ...), plus:
export RT39=${RT39:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT39/../round38/common.sh"
# variant39 LABEL BODY...: BODY against its own fresh team setup.
variant39() { local label=$1; shift; ( source "$RT39/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r39-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
# A check program that finds the repository root itself (so it works
# from any cwd, e.g. after `cd scripts`): refuses a src/a.rs with panic.
CHECKPY39='import os, subprocess, sys\nr = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()\np = os.path.join(r, "src/a.rs")\nsys.exit(1 if os.path.exists(p) and "panic" in open(p).read() else 0)\n'
