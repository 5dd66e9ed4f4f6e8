# Round 29 helpers (sourced): round 28's (round 27's ... 21's setup_team,
# setup, hit, hook, runs_in_checkout, precommit, task_json, DIRENV, ...), plus:
export RT29=${RT29:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT29/../round28/common.sh"
# variant29 LABEL BODY...: BODY against its own fresh team setup.
variant29() { local label=$1; shift; ( source "$RT29/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r29-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
