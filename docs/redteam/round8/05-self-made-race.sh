#!/usr/bin/env bash
# Round 6's finding 2 (still open): a push without --atomic whose notes
# update loses a race after the hook allowed it leaves a delivery on main
# that no note names. Can the pushing agent make the race itself, on
# demand? A second clone loops notes-only pushes (each a fast-forward of
# the server's notes: one tiny note on an id no commit has) while the agent
# pushes main (L1, signed by alice) and its notes without --atomic.
# The notes refspec is forced (+) so the client sends its update whatever
# the racer did meanwhile; the server still applies it only from the old
# value it advertised (and the hook only lets the notes fast-forward).
# LANDED-WITHOUT-NOTE = the race won: main holds Y, the server's notes do
# not name L1 anywhere.
source "$(dirname "$0")/../lib.sh"
setup_team
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
"$P" --cwd "$R" publish >/dev/null 2>&1
B=$W/racer; git clone -q "$S" "$B"; git -C "$B" fetch -q origin '+refs/notes/probity:refs/notes/probity' 2>/dev/null
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
g push --no-verify origin main "${NOTESPEC:-+refs/notes/probity}" > "$W/push.out" 2>&1 &
PUSH=$!
sleep "${DELAY:-0.1}"
( i=0; while kill -0 "$PUSH" 2>/dev/null; do i=$((i+1))
    git -C "$B" fetch -q origin '+refs/notes/probity:refs/notes/probity' 2>/dev/null
    printf 'x %s\n' "$i" | git -C "$B" notes --ref=probity add -f -F - "$(printf '%040x' $((0xf0000000+i)))" 2>/dev/null
    git -C "$B" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1
  done ) &
RACER=$!
wait "$PUSH"; out=$(cat "$W/push.out")
touch "$W/stop"; wait "$RACER"
echo "$out" | grep -E "\->|rejected|error" | head -4
named=$(git -C "$S" grep -l -F "$L1" refs/notes/probity -- 2>/dev/null | wc -l)
if [ "$(smain main)" = "$Y" ] && [ "$named" = 0 ]; then echo "1. Y delivered: LANDED-WITHOUT-NOTE (main at ${Y:0:12}, server notes naming L1: 0)"
elif [ "$(smain main)" = "$Y" ]; then echo "1. Y delivered with its note (race lost, notes naming L1: $named)"
else echo "1. REFUSED"; fi
