# Round 36 helpers (sourced): round 35's (34's ... 21's, and lib.sh's
# setup_team, approve_live, approve_commit, sign, commit_all, push_past,
# verdict, smain, base_with, agent_step, ...), plus:
export RT36=${RT36:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT36/../round35/common.sh"
# variant36 LABEL BODY...: BODY against its own fresh team setup.
variant36() { local label=$1; shift; ( source "$RT36/common.sh"; setup_team >/dev/null; eval "$*" ); }
# team_step LABEL KEYS...: approve the live tree, sign with each key,
# commit, push to main past the client's gates; prints the verdict.
team_step() {
  local label=$1; shift; local L Y out k; L=$(approve_live)
  for k in "$@"; do sign "$k" "$L"; done; Y=$(commit_all "$label")
  out=$(push_past main); verdict "$label ($*)" main "$Y" "$out"
}
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r36-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
