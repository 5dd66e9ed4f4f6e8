#!/usr/bin/env bash
# 02 without any special client: a plain `git push origin main
# refs/notes/probity` (no --atomic) in the background, and DELAY s later a
# notes-only push of N' (child of N with O's tree). Lands without its note
# when N' lands after the first push read the advertisement and before its
# main transaction (its pre-receive runs the whole gate; N''s push is cheap).
source "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
setup_team
# The server holds some notes (O): a teammate's notes-only push.
B=$W/mate; git clone -q "$S" "$B"
git -C "$B" notes --ref=probity add -m 'x' "$(printf '%040x' 0xf0000001)"
git -C "$B" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1 || { echo "setup: mate's notes refused"; exit 9; }
O=$(git -C "$S" rev-parse refs/notes/probity)
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
N=$(g rev-parse refs/notes/probity)
NP=$(g commit-tree "$O^{tree}" -p "$N" -m "Notes dropped")   # child of N, O's tree
if [ "${MODE:-main}" = new ]; then SPEC="main:refs/heads/feat"; REF=feat; else SPEC=main; REF=main; fi
git -C "$R" \
  push --no-verify origin "$SPEC" refs/notes/probity > "$W/push.out" 2>&1 &
PUSH=$!
sleep "${DELAY:-0.05}"
g push --no-verify origin "$NP:refs/notes/probity" > "$W/drop.out" 2>&1 || { echo "drop push refused:"; cat "$W/drop.out"; }
wait "$PUSH"
grep -E "\->|rejected|error|DENY|notes_" "$W/push.out" | head -6
named=$(git -C "$S" grep -l -F "$L1" refs/notes/probity -- 2>/dev/null | wc -l)
echo "server notes at $(git -C "$S" rev-parse refs/notes/probity) (N=$N N'=$NP)"
if [ "$(smain $REF)" = "$Y" ] && [ "$named" = 0 ]; then echo "02b($REF): LANDED-WITHOUT-NOTE ($REF at ${Y:0:12}, server notes naming L1: 0)"
elif [ "$(smain $REF)" = "$Y" ]; then echo "02b($REF): LANDED-OK (notes naming L1: $named)"
else echo "02b($REF): REFUSED"; fi
