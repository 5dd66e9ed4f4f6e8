# Round 27 helpers (sourced): round 26's (round 25's, 24's, 23's, 22's and
# 21's setup_team, setup, hit, hook, runs_in_checkout, precommit,
# timed_start, task_env, DIRENV, ...), plus:
export RT27=${RT27:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT27/../round26/common.sh"
# variant27 LABEL BODY...: BODY against its own fresh team setup.
variant27() { local label=$1; shift; ( source "$RT27/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r27-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
