#!/usr/bin/env bash
# Round 8's 05-self-made-race.sh against the D-R149 hooks: a second clone
# loops notes-only fast-forwards (one junk note each) while the agent pushes
# main (L1, signed by alice) and a forced notes refspec without --atomic.
# Expect REFUSED every run (main's own transaction notes_not_in_place, or
# the push refused), never LANDED-WITHOUT-NOTE.
source "$(dirname "$0")/../lib.sh"
setup_team
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
"$P" --cwd "$R" publish >/dev/null 2>&1
B=$W/racer; git clone -q "$S" "$B"; git -C "$B" fetch -q origin '+refs/notes/probity:refs/notes/probity' 2>/dev/null
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
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
wait "$RACER"
echo "$out" | grep -E "\->|rejected|error|DENY" | head -4
named=$(git -C "$S" grep -l -F "$L1" refs/notes/probity -- 2>/dev/null | wc -l)
if [ "$(smain main)" = "$Y" ] && [ "$named" = 0 ]; then echo "01: LANDED-WITHOUT-NOTE (main at ${Y:0:12}, server notes naming L1: 0)"
elif [ "$(smain main)" = "$Y" ]; then echo "01: LANDED-OK (race lost, notes naming L1: $named)"
else echo "01: REFUSED"; fi
