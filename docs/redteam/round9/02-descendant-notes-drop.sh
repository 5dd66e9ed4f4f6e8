#!/usr/bin/env bash
# D-R149 accepts a judged update when the notes ref "is at the judged notes
# commit N or descends from N". But a descendant of N need not hold N's
# notes: a notes fast-forward is only held to the notes the SERVER holds
# (its old tip), not to the commits it passes through. So:
#  - the agent pushes main (Y, approved L1) + notes O->N WITHOUT --atomic,
#    through a client whose commands reach the server STALL s after it read
#    the advertisement (stall-ssh; any hand-written client can do this);
#  - meanwhile the agent (or a second clone) pushes notes-only O->N', where
#    N' is a child of N whose tree is O's tree (L1's note dropped): a
#    fast-forward of O that removes nothing the server holds;
#  - the stalled push is judged with N (allowed, recorded); its notes update
#    fails (the ref is at N', not O); main's transaction finds the notes at
#    N', a descendant of N: allowed. main lands, no note names L1.
# MODE=new: the protected update creates refs/heads/feat instead of main.
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
GIT_SSH_COMMAND="$HERE/stall-ssh" STALL=${STALL:-4} git -C "$R" -c ssh.variant=simple \
  push --no-verify "ssh://x$S" "$SPEC" refs/notes/probity > "$W/push.out" 2>&1 &
PUSH=$!
sleep 1.5
g push --no-verify origin "$NP:refs/notes/probity" > "$W/drop.out" 2>&1 || { echo "drop push refused:"; cat "$W/drop.out"; }
wait "$PUSH"
cat "$W/push.out"
named=$(git -C "$S" grep -l -F "$L1" refs/notes/probity -- 2>/dev/null | wc -l)
echo "server notes at $(git -C "$S" rev-parse refs/notes/probity) (N=$N N'=$NP)"
if [ "$(smain $REF)" = "$Y" ] && [ "$named" = 0 ]; then echo "02($REF): LANDED-WITHOUT-NOTE ($REF at ${Y:0:12}, server notes naming L1: 0)"
elif [ "$(smain $REF)" = "$Y" ]; then echo "02($REF): LANDED-OK (notes naming L1: $named)"
else echo "02($REF): REFUSED"; fi
