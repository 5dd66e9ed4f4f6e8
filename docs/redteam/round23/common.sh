# Round 23 helpers (sourced): round 22's (round 21's setup_team, setup,
# hit, hook, runs_in_checkout, push_past, precommit, DIRENV, PATHADD, ...), plus:
export RT23=${RT23:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT23/../round22/common.sh"
# variant23 LABEL BODY...: BODY against its own fresh team setup.
variant23() { local label=$1; shift; ( source "$RT23/common.sh"; setup_team >/dev/null; eval "$*" ); }
PWN=/tmp/r23-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
