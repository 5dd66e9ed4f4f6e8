# Round 26 helpers (sourced): round 25's (round 24's, 23's, 22's and 21's
# setup_team, setup, hit, hook, runs_in_checkout, precommit, timed_start,
# task_env, DIRENV, ...), plus:
export RT26=${RT26:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT26/../round25/common.sh"
# variant26 LABEL BODY...: BODY against its own fresh team setup.
variant26() { local label=$1; shift; ( source "$RT26/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r26-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
