# Round 20 helpers (sourced): round 19's (lib.sh, setup_team, base_with,
# agent_step, task_json, task_raw, setup, hit, runs_in_checkout, push_past,
# ...) plus:
export RT20=${RT20:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT20/../round19/common.sh"
# variant20 LABEL BODY...: BODY against its own fresh team setup.
variant20() { local label=$1; shift; ( source "$RT20/common.sh"; setup_team >/dev/null; eval "$*" ); }
# hook FILE LINE: an executable /bin/sh script FILE running LINE.
hook() { mkdir -p "$(dirname "$1")"; printf '#!/bin/sh\n%s\n' "$2" > "$1"; chmod +x "$1"; }
# timed_start LABEL: time one `probity start` of the live tree (ms) and its rating.
timed_start() {
  local t0 t1 out; t0=$(date +%s%N); out=$(pj start); t1=$(date +%s%N)
  echo "    $1 start took $(( (t1 - t0) / 1000000 )) ms: $(jq -c '{risk_level,risk_reasons}' <<<"$out")"
}
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r20-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
