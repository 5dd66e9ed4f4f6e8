# Round 17 helpers (sourced): round 16's (lib.sh, base_with, agent_step,
# variant16, push_past, fresh, approve_sign_commit, ...) plus:
export RT17=${RT17:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT16=$RT17/../round16
source "$RT16/common.sh"
# variant17 LABEL BODY...: BODY against its own fresh team setup.
variant17() { local label=$1; shift; ( source "$RT17/common.sh"; setup_team >/dev/null; eval "$*" ); }
# task_json CMD [CWD]: a .vscode/tasks.json whose folder-open task runs CMD.
task_json() {
  mkdir -p "$R/.vscode"
  if [ -n "${2:-}" ]; then
    jq -nc --arg c "$1" --arg d "$2" '{version:"2.0.0",tasks:[{label:"b",type:"shell",command:$c,options:{cwd:$d},runOptions:{runOn:"folderOpen"}}]}' > "$R/.vscode/tasks.json"
  else
    jq -nc --arg c "$1" '{version:"2.0.0",tasks:[{label:"b",type:"shell",command:$c,runOptions:{runOn:"folderOpen"}}]}' > "$R/.vscode/tasks.json"
  fi
}
# runs_in_checkout CMD MARKER: clone $S's main, run CMD there with bash
# (as VS Code's shell task would), report whether MARKER was written.
runs_in_checkout() {
  local CL=$W/run-$RANDOM; git clone -q "$S" "$CL" 2>/dev/null
  ( cd "$CL" && timeout 20 bash -c "$1" >/dev/null 2>&1 )
  if [ -e "$2" ]; then echo "    executed: the landed payload ran from a fresh checkout ($1)"; else echo "    not executed here ($1)"; fi
  rm -f "$2"
}
