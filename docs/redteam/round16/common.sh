# Round 16 helpers (sourced): round 15's (lib.sh, base_with, agent_step,
# variant15, push_past, fresh, ...) plus:
export RT16=${RT16:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT15=$RT16/../round15
source "$RT15/common.sh"
trap 'rm -rf "$W"' EXIT
# variant16 LABEL BODY...: BODY against its own fresh team setup.
variant16() { local label=$1; shift; ( source "$RT16/common.sh"; setup_team >/dev/null; eval "$*" ); }
# approve_sign_commit KEYS... : approve live tree, sign with each key, commit (no push); prints commit
approve_sign_commit() { local msg=$1; shift; local L k; L=$(approve_live); for k in "$@"; do sign "$k" "$L"; done; commit_all "$msg"; }
