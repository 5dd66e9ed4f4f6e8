# Round 18 helpers (sourced): round 17's (lib.sh, setup_team, base_with,
# agent_step, variant17, task_json, runs_in_checkout, push_past, ...) plus:
export RT18=${RT18:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT18/../round17/common.sh"
# variant18 LABEL BODY...: BODY against its own fresh team setup.
variant18() { local label=$1; shift; ( source "$RT18/common.sh"; setup_team >/dev/null; eval "$*" ); }
# task_env CMD ENVJSON: a folder-open task running CMD with options.env.
task_env() {
  mkdir -p "$R/.vscode"
  jq -nc --arg c "$1" --argjson e "$2" '{version:"2.0.0",tasks:[{label:"b",type:"shell",command:$c,options:{env:$e},runOptions:{runOn:"folderOpen"}}]}' > "$R/.vscode/tasks.json"
}
PWN=/tmp/r18-pwned
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
