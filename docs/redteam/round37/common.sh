# Round 37 helpers (sourced): round 36's (35's ... lib.sh's setup_team,
# approve_started, approve_live, approve_commit, sign, commit_all,
# push_past, verdict, smain, team_step, ...), plus:
export RT37=${RT37:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT37/../round36/common.sh"
# variant37 LABEL BODY...: BODY against its own fresh team setup.
variant37() { local label=$1; shift; ( source "$RT37/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r37-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
