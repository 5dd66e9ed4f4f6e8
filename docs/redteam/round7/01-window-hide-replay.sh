#!/usr/bin/env bash
# Target 1(a) (D-R145): the hook reads only the newest 1,000 *changing*
# commits of the protected ref's history below its old tip. An earlier
# delivery whose commit carries no note naming its approval (round 6's
# trick, still accepted: the bundle sits on the note of an empty sibling
# commit on top) is found only through that window. The agent pushes N
# (default 1000) low-risk docs commits, each with its own self-made review
# (low: no lens, no signature; the last commit deletes what the others
# added, so the tree returns to what it was), which pushes the reverted
# maintainer-approved delivery past the window; then it replays the
# revert-of-the-revert with the old note.  N=5 is the control (REFUSED).
source "$(dirname "$0")/../lib.sh"
N=${N:-1000}
setup_team
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
X=$(g commit -q --allow-empty --no-verify -m "empty follow-up" && g rev-parse HEAD)
"$P" --cwd "$R" publish >/dev/null
g notes --ref=probity copy -f "$Y" "$X"; g notes --ref=probity remove "$Y" 2>/dev/null
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "1. first delivery of L1 (bundle on the empty sibling's note)" main "$X" "$out"

# 2. alice reverts it (reviewed, ci + alice).
g revert --no-edit --no-commit "$Y" && RV=$(commit_all "revert encrypt")
st=$(pj start --commit "$RV"); LR=$(approve_started "$st"); sign ci "$LR"; sign alice "$LR"
out=$(push_past main); verdict "2. alice's reviewed revert" main "$RV" "$out"

# 3. N self-reviewed low-risk docs commits (the last removes them all).
t0=$(date +%s); mkdir -p "$R/notes-docs"
for i in $(seq $((N-1))); do
  printf 'entry %s\n' "$i" > "$R/notes-docs/log.md"
  approve_live >/dev/null; commit_all "doc $i" >/dev/null
done
rm -rf "$R/notes-docs"; approve_live >/dev/null; F=$(commit_all "docs tidy")
echo "   $N reviewed low-risk commits made in $(( $(date +%s)-t0 )) s; tip tree == revert's tree: $([ "$(g rev-parse $F^{tree})" = "$(g rev-parse $RV^{tree})" ] && echo yes)"
t0=$(date +%s)
# push in stacks of at most 100 (the hook's cost grows with the square of a stack, see 05)
base=$(smain main); n=$(g rev-list --count "$base..$F")
while [ "$n" -gt 0 ]; do
  step=$(( n > 100 ? 100 : n )); tipc=$(g rev-list --reverse "$base..$F" | sed -n "${step}p")
  out=$(push_past "$tipc:refs/heads/main")
  [ "$(smain main)" = "$tipc" ] || { verdict "3. filler stack" main "$tipc" "$out"; exit 1; }
  base=$tipc; n=$(g rev-list --count "$base..$F")
done
verdict "3. $N filler commits" main "$F" "$out"; echo "   pushed in $(( $(date +%s)-t0 )) s"

# 4. the replay: revert of the revert, exactly L1's trees, with L1's note.
g revert --no-edit --no-commit HEAD~0 >/dev/null 2>&1; g reset -q --hard "$F"
g checkout -q "$Y" -- crypto/aes.rs; Y2=$(commit_all "bring encrypt back")
echo "   Y2 delivers L1's exact trees: $( [ "$(g rev-parse $Y2^{tree})" = "$(g rev-parse $Y^{tree})" ] && [ "$(g rev-parse $Y2~1^{tree})" = "$(g rev-parse $Y~1^{tree})" ] && echo yes || echo no)"
g notes --ref=probity copy -f "$X" "$Y2"
t0=$(date +%s)
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "4. REPLAY of L1 (alice's one-time approval) after $N filler commits" main "$Y2" "$out"
echo "   hook time $(( $(date +%s)-t0 )) s"
