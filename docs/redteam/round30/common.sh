# Round 30 helpers (sourced): round 29's (28's ... 21's setup_team, setup,
# hit, hook, runs_in_checkout, precommit, task_json, ...), plus:
export RT30=${RT30:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT30/../round29/common.sh"
# variant30 LABEL BODY...: BODY against its own fresh team setup.
variant30() { local label=$1; shift; ( source "$RT30/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r30-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
