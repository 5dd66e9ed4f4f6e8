# Round 25 helpers (sourced): round 24's (round 23's, 22's and 21's setup,
# hit, hook, runs_in_checkout, precommit, timed_start, task_env, DIRENV, ...), plus:
export RT25=${RT25:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT25/../round24/common.sh"
# variant25 LABEL BODY...: BODY against its own fresh team setup.
variant25() { local label=$1; shift; ( source "$RT25/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r25-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
