#!/usr/bin/env bash
# D-R171 (risk_raised_by_rebase) variants. Base: tools/build.py (agent
# alone, medium); then ci + alice land a folder-open task running it. The
# agent edits tools/build.py on the base from before the task (medium
# there), approves alone, and delivers onto the new base by: a) cherry-pick,
# b) a squash of two reviewed commits (composition proof), c) a recovery
# (scope_changed) after the rebase, d) the CI forms (pre-receive --range,
# pre-pr --authority notes) in a clone with no store, e) the pre-push gate.
RT17=${RT17:-$(cd "$(dirname "$0")" && pwd)}
source "$RT17/common.sh"
TASKJ='{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py","runOptions":{"runOn":"folderOpen"}}]}'
prep() { # leaves $OLD (pre-task main), task landed on main, $R on branch work at OLD
  mkdir -p "$R/tools"; printf 'print("build")\n' > "$R/tools/build.py"; agent_step "base: tools/build.py" >/dev/null
  OLD=$(smain main)
  mkdir -p "$R/.vscode"; printf %s "$TASKJ" > "$R/.vscode/tasks.json"; base_with "task (agent + alice)" >/dev/null
  g checkout -q -B work "$OLD"
}
edit_alone() { printf "print(\"build $1\")\n" > "$R/tools/build.py"; echo "    agent edit on the OLD base: $(risk_of_live)"
  local L; L=$(approve_live); sign agent "$L"; commit_all "agent edit $1" >/dev/null; echo "$L" > $IN/lin; }
push_head() { "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
  g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1; }
va() { prep; edit_alone 1; C=$(g rev-parse HEAD)
  g checkout -q -B pick origin/main; g cherry-pick -x "$C" >/dev/null 2>&1 || g cherry-pick "$C" >/dev/null; Y=$(g rev-parse HEAD)
  out=$(push_head); verdict "03a cherry-pick (-x, new message) of the stale medium edit onto the task" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
vb() { prep; edit_alone 1; edit_alone 2
  g rebase -q origin/main 2>&1 | tail -1; g reset -q --soft origin/main; Y=$(commit_all "squashed"); 
  echo "    local pre-push: $("$P" --cwd "$R" validate --gate pre-push --remote origin 2>&1 | head -1)"
  out=$(push_head); verdict "03b squash of two stale medium edits onto the task (composition)" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
vb2() { prep; edit_alone 1; A=$(g rev-parse HEAD)
  # second commit reviewed on top, then both squashed onto the new base with rebase -i style (reset --soft after rebase)
  printf 'print("other")\n' > "$R/tools/other.py"; L=$(approve_live); sign agent "$L"; commit_all "second" >/dev/null
  g rebase -q origin/main 2>&1 | tail -1; g reset -q --soft origin/main; Y=$(commit_all "squashed two")
  out=$(push_head); verdict "03b2 squash (edit of build.py + a new file) onto the task" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
vc() { prep; edit_alone 1; L=$(cat $IN/lin)
  g rebase -q origin/main 2>&1 | tail -1
  printf 'print("build 1b")\n' > "$R/tools/build.py"
  REV=$(pj status --lineage "$L" | jq -r '.store_revision // .lineage.store_revision // empty')
  rec=$(pj recover --predecessor-lineage "$L" --expected-predecessor-revision "$REV" --disposition scope_changed --reason "rebased and touched" --actor agent 2>&1)
  echo "    recover: $(jq -c '{lineage_id,risk_level,state}' <<<"$rec" 2>/dev/null || echo "$rec" | head -3)"
  S2=$(jq -r .lineage_id <<<"$rec" 2>/dev/null)
  if [ -n "$S2" ] && [ "$S2" != null ]; then
    st=$(pj status --lineage "$S2"); echo "    successor risk: $(jq -c '[.risk_level // .snapshot.risk_level // empty]' <<<"$st")"
    printf '{"findings":[],"evidence":["read"]}\n' > $IN/r.json; printf 'ok\n' > $IN/ev.txt; args=()
    for lens in $(jq -r '.selected_lenses[]? // empty' <<<"$rec"); do args+=(--result "$lens=$IN/r.json"); done
    fin=$(pj finalize --lineage "$S2" "${args[@]}" --evidence $IN/ev.txt 2>&1); echo "    finalize: $(jq -c '{state}' <<<"$fin" 2>/dev/null || echo "$fin" | head -2)"
    sign agent "$S2"; Y=$(commit_all "recovered"); out=$(push_head); verdict "03c recovered successor, agent alone" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2
  fi; }
vd() { prep; edit_alone 1; g rebase -q origin/main 2>&1 | tail -1; Y=$(g rev-parse HEAD); B=$(smain main)
  "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
  g push -q --no-verify origin HEAD:refs/for/main refs/notes/probity 2>&1 | tail -1
  CI=$W/ci; git clone -q "$S" "$CI"; git -C "$CI" fetch -q origin refs/notes/probity:refs/notes/probity refs/for/main:refs/remotes/origin/pr
  echo "    CI pre-receive --range: $("$P" --cwd "$CI" validate --gate pre-receive --range "$B..$Y" --ref refs/heads/main --policy-base refs/remotes/origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"
  git -C "$CI" checkout -q "$Y"
  echo "    CI pre-pr --authority notes: $("$P" --cwd "$CI" validate --gate pre-pr --authority notes --base refs/remotes/origin/main --policy-base refs/remotes/origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"
  echo "    agent pre-push: $("$P" --cwd "$R" validate --gate pre-push --remote origin --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"
  echo "    agent pre-pr (store): $("$P" --cwd "$R" validate --gate pre-pr --base origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"; }
# The client's publish writes no note for a commit whose proof is
# risk_raised_by_rebase (a/b/d above answer receipt_missing at the
# server for that reason). To test the server's own check, publish the
# note of the reviewed commit C and copy it onto the delivered commit.
copy_push() { # LABEL SRC-COMMITS...  (HEAD is delivered)
  local label=$1; shift; local Y; Y=$(g rev-parse HEAD)
  for c in "$@"; do "$P" --cwd "$R" publish --range "$c~1..$c" >/dev/null 2>&1; g notes --ref=probity copy -f "$c" "$Y" 2>/dev/null; done
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
  out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1)
  verdict "$label" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
ve() { prep; edit_alone 1; C=$(g rev-parse HEAD)
  g checkout -q -B pick origin/main; g cherry-pick "$C" >/dev/null
  copy_push "03e cherry-pick, C's note copied onto the delivered commit" "$C"; }
vf() { prep; edit_alone 1; C1=$(g rev-parse HEAD); edit_alone 2; C2=$(g rev-parse HEAD)
  g rebase -q origin/main; g reset -q --soft origin/main; commit_all squashed >/dev/null
  copy_push "03f squash of two stale edits, their notes on the delivered commit" "$C1" "$C2"; }
vg() { prep; edit_alone 1; C=$(g rev-parse HEAD); g rebase -q origin/main; Y=$(g rev-parse HEAD); B=$(smain main)
  "$P" --cwd "$R" publish --range "$OLD..$C" >/dev/null 2>&1; g notes --ref=probity copy -f "$C" "$Y"
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
  g push --no-verify origin HEAD:refs/for/main refs/notes/probity 2>&1 | grep -E "DENY|rejected|->" | head -3
  CI=$W/ci; git clone -q "$S" "$CI"; git -C "$CI" fetch -q origin refs/notes/probity:refs/notes/probity refs/for/main:refs/remotes/origin/pr
  echo "    CI pre-receive --range: $("$P" --cwd "$CI" validate --gate pre-receive --range "$B..$Y" --ref refs/heads/main --policy-base refs/remotes/origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"
  git -C "$CI" checkout -q "$Y"
  echo "    CI pre-pr --authority notes: $("$P" --cwd "$CI" validate --gate pre-pr --authority notes --base refs/remotes/origin/main --policy-base refs/remotes/origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -2)"
  out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1); verdict "03g server, same commit" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
vh() { prep; edit_alone 1; C1=$(g rev-parse HEAD); edit_alone 2; C2=$(g rev-parse HEAD)
  g reset -q --soft "$OLD"; SQ=$(commit_all "squash on the old base")
  echo "    publish of the squash on the old base: $("$P" --cwd "$R" publish --range "$OLD..$SQ" 2>&1 | head -1)"
  echo "    its note: $(g notes --ref=probity show "$SQ" 2>/dev/null | wc -c) bytes"
  g rebase -q origin/main; Y=$(g rev-parse HEAD)
  copy_push "03h squash (composition) on the old base, then rebased onto the task; its note copied" "$SQ"; }
vi() { prep; edit_alone 1; C1=$(g rev-parse HEAD); edit_alone 2; C2=$(g rev-parse HEAD)
  g rebase -q origin/main; g reset -q --soft origin/main; Y=$(commit_all squashed)
  for c in $C1 $C2; do "$P" --cwd "$R" publish --range "$c~1..$c" >/dev/null 2>&1; done
  { g notes --ref=probity show $C1; g notes --ref=probity show $C2; } > $IN/both; g notes --ref=probity add -f -F $IN/both "$Y"
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
  out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1)
  verdict "03i squash of two stale edits onto the task, both notes concatenated on it" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
for v in ${ONLY:-va vb vb2 vc vd ve vf vg vh vi}; do variant17 "$v" "$v"; done
