# Round 34 helpers (sourced): round 33's (32's ... 21's setup_team, setup,
# hit, runs_in_checkout, task_json, task_env, setup_cwd, setup_env, pyc,
# cext, ...), plus:
export RT34=${RT34:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT34/../round33/common.sh"
# variant34 LABEL BODY...: BODY against its own fresh team setup.
variant34() { local label=$1; shift; ( source "$RT34/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r34-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
