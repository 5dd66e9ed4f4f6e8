#!/usr/bin/env bash
# Seam: the rebase proof (D-R68) x context-dependent risk. The agent's
# approval of an edit, rated medium on its own base, is carried by
# `git pull --rebase` onto a base where the same edit is high (a
# maintainer has since landed a folder-open task that runs the edited
# script; or a policy that makes the path high). Does the server re-rate
# the delivered trees, or take the stale medium approval?
RT16=${RT16:-$(cd "$(dirname "$0")" && pwd)}
source "$RT16/common.sh"
TASKJ='{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}'
# teammate_lands LABEL BODY: in a second clone, run BODY, approve, sign
# ci + alice, commit, push.
teammate_lands() {
  local T=$W/team$RANDOM; git clone -q "$S" "$T"
  ( R=$T; cd "$T"; eval "$2"; echo "    teammate $1 start: $(risk_of_live)"
    L=$(approve_live); sign ci "$L"; sign alice "$L"; Y=$(commit_all "$1"); out=$(push_past main)
    verdict "    teammate $1 (ci + alice)" main "$Y" "$out" )
}
stale_then_rebase() { # LABEL EDIT-BODY CONTEXT-BODY
  echo "== $1"
  eval "$2"; echo "    agent edit start (old base): $(risk_of_live)"
  local L Y out; L=$(approve_live); sign agent "$L"; commit_all "agent edit" >/dev/null
  "$P" --cwd "$R" publish >/dev/null 2>&1
  teammate_lands "context" "$3"
  g pull -q --rebase origin main 2>&1 | tail -2; Y=$(g rev-parse HEAD)
  echo "    local pre-push gate: $("$P" --cwd "$R" validate --gate pre-push --remote origin 2>&1 | head -3 | tr "\n" " ")"
  out=$(push_past main); verdict "$1: stale medium approval rebased (agent alone)" main "$Y" "$out"
  echo "$out" | grep -E "ALLOW|DENY|proof|rebased" | head -4
  echo "    same edit, control, fresh review (after the push) on the new base: $(pj start --commit HEAD | jq -c '{risk_level,risk_reasons}')"
}
variant16 a '
mkdir -p "$R/tools"; printf "print(\"build\")\n" > "$R/tools/build.py"; agent_step "02a-0 base: tools/build.py"
stale_then_rebase "02a folder-open task lands under a stale approved edit of its script" \
  "printf \"print(\\\"build 2\\\")\n\" > \"\$R/tools/build.py\"" \
  "mkdir -p .vscode; printf %s \"\$TASKJ\" > .vscode/tasks.json"
checkout_sees .vscode/tasks.json
'
variant16 b '
mkdir -p "$R/vendor"; printf "pub fn v() {}\n" > "$R/vendor/v.rs"; agent_step "02b-0 base: vendor/v.rs"
stale_then_rebase "02b policy adds vendor/** as high under a stale approved edit of vendor/v.rs" \
  "printf \"pub fn v() { let _ = 1; }\n\" > \"\$R/vendor/v.rs\"" \
  "jq -c \".high_risk.paths += [\\\"vendor/**\\\"]\" .probity/policy.json > /tmp/r16p.json && mv /tmp/r16p.json .probity/policy.json"
'
# 02c: no race needed. The task is already on main (landed by ci + alice).
# The agent checks out main from BEFORE the task, makes the edit there
# (medium on that base), approves it alone, then rebases onto main.
variant16 c '
mkdir -p "$R/tools"; printf "print(\"build\")\n" > "$R/tools/build.py"; agent_step "02c-0 base: tools/build.py"
OLD=$(smain main)
teammate_lands "task" "mkdir -p .vscode; printf %s \"\$TASKJ\" > .vscode/tasks.json"
g fetch -q origin; g checkout -q -B work "$OLD"
printf "print(\"build 3\")\n" > "$R/tools/build.py"; echo "    agent edit on the OLD base: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; commit_all "agent edit" >/dev/null
g rebase -q origin/main 2>&1 | tail -2; Y=$(g rev-parse HEAD)
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1)
verdict "02c edit of a folder-open task script approved on a pre-task base, rebased (agent alone)" main "$Y" "$out"
echo "$out" | grep -E "ALLOW|DENY" | head -2
checkout_sees .vscode/tasks.json
echo "    control, fresh review of the landed commit: $(pj start --commit "$Y" | jq -c "{risk_level,risk_reasons}")"
'
