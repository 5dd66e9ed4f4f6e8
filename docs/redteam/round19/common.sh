# Round 19 helpers (sourced): round 18's (lib.sh, setup_team, base_with,
# agent_step, task_json, task_env, runs_in_checkout, push_past, ...) plus:
export RT19=${RT19:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT19/../round18/common.sh"
# variant19 LABEL BODY...: BODY against its own fresh team setup.
variant19() { local label=$1; shift; ( source "$RT19/common.sh"; setup_team >/dev/null; eval "$*" ); }
# task_raw TEXT: a .vscode/tasks.json written byte for byte.
task_raw() { mkdir -p "$R/.vscode"; printf '%s\n' "$1" > "$R/.vscode/tasks.json"; }
# setup PREP CMD: PREP, a folder-open task running CMD, landed by agent + alice.
setup() { eval "$1"; [ -n "$2" ] && task_json "$2"; base_with "base (task: ${2:-raw})" >/dev/null; }
# hit LABEL EDIT RUNCMD|nocheck: the agent alone lands EDIT; then (unless
# nocheck) run RUNCMD in a fresh clone of the server's main.
hit() { eval "$2"; agent_step "$1"; [ "${3:-nocheck}" = nocheck ] || runs_in_checkout "$3" $PWN; }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r19-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
