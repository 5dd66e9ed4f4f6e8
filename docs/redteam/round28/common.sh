# Round 28 helpers (sourced): round 27's (round 26's, 25's, 24's, 23's,
# 22's and 21's setup_team, setup, hit, hook, runs_in_checkout, precommit,
# timed_start, task_env, DIRENV, ...), plus:
export RT28=${RT28:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT28/../round27/common.sh"
# variant28 LABEL BODY...: BODY against its own fresh team setup.
variant28() { local label=$1; shift; ( source "$RT28/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r28-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
