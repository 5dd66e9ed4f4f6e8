# Round 22 helpers (sourced): round 21's (round 20's setup_team, setup,
# hit, hook, runs_in_checkout, push_past, ...; precommit, pyc, DIRENV), plus:
export RT22=${RT22:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT22/../round21/common.sh"
# variant22 LABEL BODY...: BODY against its own fresh team setup.
variant22() { local label=$1; shift; ( source "$RT22/common.sh"; setup_team >/dev/null; eval "$*" ); }
# direnv's PATH_add, for DIRENV (no direnv here).
PATHADD='PATH_add(){ PATH=$PWD/$1:$PATH; }'
PWN=/tmp/r22-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
