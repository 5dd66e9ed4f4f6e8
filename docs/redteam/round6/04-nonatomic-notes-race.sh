#!/usr/bin/env bash
# Target 4 (server trusts the notes the push says it will hold): the hook
# judges a push against refs/notes/probity "as it will be after the push",
# but a push without --atomic applies each ref on its own after the hook.
# The agent pushes main (its maintainer-approved high-risk commit Y) and the
# notes holding Y's bundle WITHOUT --atomic, and while the hook runs, moves
# the notes ref with a second, notes-only push. The hook allows; git then
# moves main but fails the notes update (the ref moved): Y sits on main with
# no note on the server. After alice reverts Y, the agent re-applies it with
# L1's note: no note names L1 on an earlier commit, so the approval is unspent.
source "$(dirname "$0")/../lib.sh"
setup_team
# Give the server notes to start from (the agent's first medium review).
echo "fn more() {}" >> "$R/src/parser.rs"; L0=$(approve_live); sign agent "$L0"; C0=$(commit_all "medium")
out=$(push_past main); verdict "baseline medium delivery" main "$C0" "$out"

mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
"$P" --cwd "$R" publish >/dev/null
# 600 empty commits on top keep the hook busy a little longer (each no_change).
for i in $(seq 600); do g commit -q --allow-empty --no-verify -m "empty $i"; done; TIP=$(g rev-parse HEAD)
cp -a "$S" "$W/server.orig"
# A second clone that will race the notes ref forward (a junk note on an id
# no commit has: a legal notes-only fast-forward).
A=$W/racer; git clone -q "$S" "$A"; git -C "$A" fetch -q origin '+refs/notes/probity:refs/notes/probity'
git -C "$A" notes --ref=probity add -m junk 0000000000000000000000000000000000000001
landed=""
for try in 1 2 3 4 5 6 7 8 9; do
  rm -rf "$S"; cp -a "$W/server.orig" "$S"
  ( sleep "0.$((try))"; git -C "$A" push -q origin refs/notes/probity >/dev/null 2>&1 ) &
  out=$(g push --no-verify origin main refs/notes/probity 2>&1); wait
  sm=$(smain main); sn=$(smain refs/notes/probity)
  if [ "$sm" = "$TIP" ]; then
    if git -C "$S" notes --ref=probity show "$Y" >/dev/null 2>&1; then echo "try $try: main and notes both landed (no race)"; landed=both; break
    else echo "try $try: main moved to Y, the notes update FAILED after the hook:"; grep -E "rejected|failed|lock" <<<"$out" | head -3; landed=race; break; fi
  fi
  echo "try $try: $(grep -E 'DENY|rejected' <<<"$out" | head -1)"
done
[ "$landed" = race ] || { echo "race not won; result: $landed"; exit 0; }
echo "server note on Y: $(git -C "$S" notes --ref=probity show "$Y" 2>/dev/null | wc -c) bytes"

# Alice's reviewed revert, then the agent's replay with L1's note.
# The agent keeps Y's note aside and takes the server's notes as its own
# (so nothing it pushes later re-adds a note on Y).
g notes --ref=probity show "$Y" > "$W/ynote"
g fetch -q origin main '+refs/notes/probity:refs/notes/probity-remote'
g update-ref refs/notes/probity refs/notes/probity-remote
g revert --no-edit --no-commit "$Y" && RV=$(commit_all "revert encrypt")
st=$(pj start --commit "$RV"); LR=$(approve_started "$st"); sign ci "$LR"; sign alice "$LR"
out=$(push_past main); verdict "alice's reviewed revert" main "$RV" "$out"
g revert --no-edit --no-commit HEAD && Y2=$(commit_all "bring encrypt back")
g notes --ref=probity add -f -F "$W/ynote" "$Y2"
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote'; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "REPLAY of L1 after the notes race" main "$Y2" "$out"
