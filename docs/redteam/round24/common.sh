# Round 24 helpers (sourced): round 23's (round 22's and 21's setup_team,
# setup, hit, hook, runs_in_checkout, push_past, precommit, timed_start,
# task_env, DIRENV, ...), plus:
export RT24=${RT24:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT24/../round23/common.sh"
# variant24 LABEL BODY...: BODY against its own fresh team setup.
variant24() { local label=$1; shift; ( source "$RT24/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r24-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
