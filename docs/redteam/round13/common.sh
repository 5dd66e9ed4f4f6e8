# Round 13 helpers (sourced): round 12's (lib.sh, rawtree, lsentries,
# notes_commit, land_high, ...) plus:
export RT13=${RT13:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT12=$RT13/../round12
source "$RT12/common.sh"
TASKS='{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}'
# base_with LABEL: approve the live tree (agent + alice), commit, push;
# fails the script if it does not land.
base_with() {
  echo "    $1 base start: $(risk_of_live)"
  local L Y out; L=$(approve_live); sign agent "$L"; sign alice "$L"; Y=$(commit_all "$1")
  out=$(push_past main); [ "$(smain main)" = "$Y" ] || { echo "base $1 refused"; echo "$out" | tail -4; exit 1; }
}
# agent_step LABEL: rate the live tree, approve it, sign as the agent
# alone, commit, push past the client's gates; prints the verdict.
agent_step() {
  echo "    $1 start: $(risk_of_live)"
  local L Y out; L=$(approve_live); sign agent "$L"; Y=$(commit_all "$1")
  out=$(push_past main); verdict "$1 (agent alone)" main "$Y" "$out"
}
# folder_open_in DIR: does a checkout of $S's main, through DIR/tasks.json
# (as the kernel resolves links), hold a folder-open task?
checkout_sees() {
  local CL=$W/co-$RANDOM; git clone -q "$S" "$CL" 2>/dev/null
  echo "    fresh checkout: $1 -> $(cat "$CL/$1" 2>/dev/null | grep -c folderOpen) folderOpen task(s)"
}
