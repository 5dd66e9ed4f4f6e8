#!/usr/bin/env bash
# Round 36, 02: legitimate flows around the same seams; each should land.
source "$(dirname "$0")/common.sh"

echo "== L1 stack of two medium commits, reviewed with start --range, pushed at once"
variant36 l1 '
  mkdir -p $R/tools; printf "print(1)\n" > $R/tools/a.py; g add -A; g commit -qm s1
  printf "print(2)\n" > $R/tools/b.py; g add -A; g commit -qm s2
  st=$(pj start --range origin/main..HEAD)
  for L in $(jq -r ".. | objects | select(has(\"lineage_id\")) | .lineage_id" <<<"$st" | sort -u); do
    lst=$(jq -c --arg l "$L" "[.. | objects | select(.lineage_id==\$l)][0]" <<<"$st"); approve_started "$lst" >/dev/null; sign agent "$L"; done
  Y=$(g rev-parse HEAD); out=$(push_past main); verdict "L1 stack" main $Y "$out"
'
echo "== L2 rebase after approval onto a teammate commit, then a fresh review of the rebased commit"
variant36 l2 '
  printf "fn a() {}\n" > $R/src/a.rs; L=$(approve_live); sign agent $L; commit_all a >/dev/null
  T=$W/team; git clone -q $S $T; printf "fn t() {}\n" > $T/src/t.rs
  ( R=$T; L=$(approve_live); sign ci $L; commit_all teammate >/dev/null; push_past main >/dev/null )
  g pull -q --rebase origin main 2>&1 | tail -1; Y=$(g rev-parse HEAD)
  L=$(approve_commit $Y); sign agent $L
  out=$(push_past main); verdict "L2 rebased + re-reviewed" main $Y "$out"
'
echo "== L3 content amend after approval, re-reviewed"
variant36 l3 '
  printf "fn a() {}\n" > $R/src/a.rs; L=$(approve_live); sign agent $L; commit_all a >/dev/null
  printf "fn a() { /* fixed */ }\n" > $R/src/a.rs; g add -A; g commit -q --amend --no-verify -m "a (amended)"; Y=$(g rev-parse HEAD)
  L=$(approve_commit $Y); sign agent $L
  out=$(push_past main); verdict "L3 amend + re-review" main $Y "$out"
'
echo "== L4 squash of two reviewed commits, the squash re-reviewed"
variant36 l4 '
  printf "fn a() {}\n" > $R/src/a.rs; L=$(approve_live); sign agent $L; commit_all a >/dev/null
  printf "fn b() {}\n" > $R/src/b.rs; L=$(approve_live); sign agent $L; commit_all b >/dev/null
  g reset -q --soft origin/main; g commit -q --no-verify -m "a+b squashed"; Y=$(g rev-parse HEAD)
  out=$(push_past main); verdict "L4a squash with only the components reviewed (composition proof)" main $Y "$out"
'
variant36 l4b '
  printf "fn a() {}\n" > $R/src/a.rs; g add -A; g commit -qm a; printf "fn b() {}\n" > $R/src/b.rs; g add -A; g commit -qm b
  g reset -q --soft origin/main; g commit -q --no-verify -m "a+b squashed"; Y=$(g rev-parse HEAD)
  L=$(approve_commit $Y); sign agent $L
  out=$(push_past main); verdict "L4b squash reviewed as one" main $Y "$out"
'
echo "== L5 one commit reviewed in two clones (agent: medium review; ci: its own lineage), notes merged"
variant36 l5 '
  printf "fn a() {}\n" > $R/src/a.rs; g add -A; g commit -qm a; Y=$(g rev-parse HEAD)
  git -C $R push -q --no-verify origin HEAD:refs/for/a 2>/dev/null
  C=$W/ci; git clone -q $S $C; git -C $C fetch -q origin refs/for/a; git -C $C checkout -q FETCH_HEAD
  ( R=$C; L=$(approve_commit $Y); sign ci $L; "$P" --cwd $C publish --range "$Y~1..$Y" >/dev/null 2>&1 )
  L=$(approve_commit $Y); sign agent $L; "$P" --cwd $R publish >/dev/null 2>&1
  g fetch -q $C +refs/notes/probity:refs/notes/probity-ci; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-ci
  echo "    note lines on Y: $(g notes --ref=probity show $Y | wc -l)"
  out=$("$P" --cwd $R push origin main 2>&1); verdict "L5 two clones, two lineages, one note" main $Y "$out"
'
echo "== L6 high change: agent reviews, alice signs the same lineage in her own clone"
variant36 l6 '
  mkdir -p $R/crypto; printf "AKIAABCDEFGHIJKLMNOP\n" > $R/crypto/k.rs
  L=$(approve_live); sign agent $L; Y=$(commit_all high); "$P" --cwd $R publish >/dev/null 2>&1
  A=$W/alice; git clone -q $S $A; git -C $A config probity.signingKey $W/keys/alice
  git -C $A fetch -q $R main:refs/remotes/agent/main "+refs/notes/probity:refs/notes/probity"; git -C $A merge -q --ff-only agent/main
  git -C $A notes --ref=probity show $Y > $IN/b.json; "$P" --cwd $A bundle import $IN/b.json >/dev/null
  "$P" --cwd $A attest --lineage $L --sign >/dev/null; "$P" --cwd $A publish --range "$Y~1..$Y" >/dev/null 2>&1
  g fetch -q $A +refs/notes/probity:refs/notes/probity-alice; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-alice
  out=$("$P" --cwd $R push origin main 2>&1); verdict "L6 high, alice in her clone" main $Y "$out"
'
echo "== L7 unprotected branch (protectedRefs = refs/heads/main) takes an unreviewed commit"
variant36 l7 '
  git -C $S config probity.protectedRefs refs/heads/main
  printf "fn wip() {}\n" > $R/src/wip.rs; g add -A; g commit -qm wip; Y=$(g rev-parse HEAD)
  out=$(git -C $R push --no-verify origin HEAD:refs/heads/wip 2>&1); verdict "L7 unreviewed on an unprotected branch" wip $Y "$out"
'
echo "== L8 protected tags: a tag on a reviewed commit; notes first then a plain non-atomic push"
variant36 l8 '
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  printf "fn a() {}\n" > $R/src/a.rs; team_step reviewed agent
  g tag -a -m v1 v1; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L8a annotated tag on a reviewed commit" refs/tags/v1 $(g rev-parse v1) "$out"
  printf "fn b() {}\n" > $R/src/b.rs; L=$(approve_live); sign agent $L; Y=$(commit_all b); "$P" --cwd $R publish >/dev/null 2>&1
  git -C $R push -q --no-verify origin refs/notes/probity 2>&1 | tail -1
  out=$(git -C $R push --no-verify origin main 2>&1); verdict "L8b notes first, then plain push of main" main $Y "$out"
'
