# Round 32 helpers (sourced): round 31's (30's ... 21's setup_team, setup,
# hit, runs_in_checkout, task_json, task_env, setup_cwd, setup_env, ...), plus:
export RT32=${RT32:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT32/../round31/common.sh"
# variant32 LABEL BODY...: BODY against its own fresh team setup.
variant32() { local label=$1; shift; ( source "$RT32/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r32-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
