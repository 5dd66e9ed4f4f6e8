# Round 15 helpers (sourced): round 14's (lib.sh, rawtree, base_with,
# agent_step, checkout_sees, variant, ...) plus:
export RT15=${RT15:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT14=$RT15/../round14
source "$RT14/common.sh"
# variant15 LABEL BODY...: round 14's variant, sourcing this file.
variant15() { local label=$1; shift; ( source "$RT15/common.sh"; setup_team >/dev/null; eval "$*" ); }
# pad S: S padded with a space to an even length (UTF-16LE decodable).
pad() { local s=$1; [ $(( ${#s} % 2 )) -eq 1 ] && s="$s "; printf '%s' "$s"; }
fresh() { g reset -q --hard "$(smain main)"; g clean -qfdx; }
