# Round 35 helpers (sourced): round 34's (33's ... 21's setup_team, setup,
# hit, runs_in_checkout, task_json, task_env, setup_cwd, setup_env, pyc,
# cext, ...), plus:
export RT35=${RT35:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT35/../round34/common.sh"
# variant35 LABEL BODY...: BODY against its own fresh team setup.
variant35() { local label=$1; shift; ( source "$RT35/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r35-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
