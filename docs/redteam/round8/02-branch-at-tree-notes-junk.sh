#!/usr/bin/env bash
# D-R147: a notes update's stored bytes are measured against the protected
# tips the push leaves AND the protected tips it judges (every protected
# update's new value). git refuses to point a branch at a non-commit only
# when it writes the ref, AFTER pre-receive, and a push without --atomic
# applies each ref on its own. So: one non-atomic push of
#   <tag object -> junk tree>:refs/heads/junk   (protected by the default refs/heads/*)
#   M:refs/notes/probity          (a notes merge bringing K x 8 MiB of junk)
# The junk tree is "held" by the judged update, so the measure counts
# nothing; then git drops refs/heads/junk ("non-commit object to branch")
# and keeps the notes: the junk is stored for good, reachable from the
# notes only. CONTROL=1: the notes alone (REFUSED expected).
source "$(dirname "$0")/../lib.sh"
K=${K:-12}
setup_team
echo "fn more() {}" >> "$R/src/parser.rs"; L0=$(approve_live); sign agent "$L0"; C0=$(commit_all "medium")
out=$(push_past main); verdict "0. baseline delivery with notes" main "$C0" "$out"
J=$W/junk; git init -q "$J"
for i in $(seq "$K"); do
  id=$(printf '%040x' $((0xdead0000 + i))); head -c $((8*1024*1024 - 16)) /dev/urandom > "$J/$id"
done
git -C "$J" add -A && git -C "$J" commit -q -m junk && JC=$(git -C "$J" rev-parse HEAD)
g fetch -q "$J" "$JC"; JT=$(g rev-parse "$JC^{tree}")
# an annotated tag object naming the junk tree (the measure keeps holds of kind commit or tag)
TG=$(printf 'object %s\ntype tree\ntag junk\ntagger a <a@b> 0 +0000\n\njunk\n' "$JT" | g mktag)
HOLD=${HOLD:-$TG}
old=$(git -C "$S" rev-parse refs/notes/probity)
g fetch -q origin '+refs/notes/probity:refs/notes/probity'
M=$(g commit-tree "$old^{tree}" -p "$old" -p "$JC" -m "merge")
echo "   J holds $K x 8 MiB notes ($(( K*8 )) MiB); merge tree == old notes tree"
if [ -n "${CONTROL:-}" ]; then echo "   CONTROL: the notes alone"; out=$(g push --no-verify origin "$M:refs/notes/probity" 2>&1)
else out=$(g push --no-verify origin "$HOLD:refs/heads/junk" "$M:refs/notes/probity" 2>&1); fi
echo "$out" | grep -E "remote:|\[|error" | grep -v "^remote: *$" | head -8
if [ "$(git -C "$S" rev-parse refs/notes/probity)" = "$M" ]; then echo "1. notes merge bringing $((K*8)) MiB: LANDED"; else echo "1. notes merge: REFUSED"; fi
echo "   refs/heads/junk on the server: $(git -C "$S" rev-parse -q --verify refs/heads/junk || echo none)"
echo "   notes reach, outside every branch: $(git -C "$S" rev-list --objects --disk-usage refs/notes/probity --not --branches) bytes on disk"
# a teammate's ordinary push afterwards still works?
echo "fn more2() {}" >> "$R/src/parser.rs"; L1=$(approve_live); sign agent "$L1"; C1=$(commit_all "medium 2")
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
out=$(push_past main); verdict "2. next ordinary push" main "$C1" "$out"
