# Round 14 helpers (sourced): round 13's (lib.sh, rawtree, base_with,
# agent_step, checkout_sees, ...).
export RT14=${RT14:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT13=$RT14/../round13
source "$RT13/common.sh"
# variant LABEL BODY...: run BODY (a shell string) in a subshell against a
# fresh team setup (own clone, server and lineages), so no earlier
# approved candidate is the next step's base.
variant() {
  local label=$1; shift
  ( source "$RT14/common.sh"; setup_team >/dev/null; eval "$*" )
}
