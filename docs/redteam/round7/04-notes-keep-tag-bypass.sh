#!/usr/bin/env bash
# Target 2 (D-R144/D-R138 stored-bytes bound): what a notes update's brought
# commits store is measured by `rev-list --objects --disk-usage new ^old
# --not --all <keep>`, where keep is every other new tip of the SAME push.
# An unprotected tag pushed in the same push at the junk commit J makes J's
# objects "kept", so a notes merge (old notes tip, J) whose J holds K notes
# of 8 MiB random bytes (K*8 MiB > 64 MiB) is admitted; then the tag is
# deleted and only the notes ref reaches the junk, for good.
source "$(dirname "$0")/../lib.sh"
K=${K:-12}
setup_team
echo "fn more() {}" >> "$R/src/parser.rs"; L0=$(approve_live); sign agent "$L0"; C0=$(commit_all "medium")
out=$(push_past main); verdict "0. baseline delivery with notes" main "$C0" "$out"
# J: a root commit of K notes (canonical paths, ids no commit has), 8 MiB each, random
J=$W/junk; git init -q "$J"
for i in $(seq "$K"); do
  id=$(printf '%040x' $((0xdead0000 + i))); head -c $((8*1024*1024 - 16)) /dev/urandom > "$J/$id"
done
git -C "$J" add -A && git -C "$J" commit -q -m junk && JC=$(git -C "$J" rev-parse HEAD)
g fetch -q "$J" "$JC"
old=$(git -C "$S" rev-parse refs/notes/probity)
g fetch -q origin '+refs/notes/probity:refs/notes/probity'
M=$(g commit-tree "$old^{tree}" -p "$old" -p "$JC" -m "merge")
echo "   J holds $K x 8 MiB notes ($(( K*8 )) MiB); merge tree == old notes tree"
if [ -n "${CONTROL:-}" ]; then echo "   CONTROL: no tag in the push"; out=$(g push --no-verify origin "$M:refs/notes/probity" 2>&1)
else out=$(g push --no-verify origin "$JC:refs/tags/junk" "$M:refs/notes/probity" 2>&1); fi
if [ "$(git -C "$S" rev-parse refs/notes/probity)" = "$M" ]; then echo "1. notes merge bringing $((K*8)) MiB (with a tag in the same push): LANDED"; else echo "1. REFUSED"; grep "remote:" <<<"$out" | head -5; fi
out=$(g push --no-verify origin :refs/tags/junk 2>&1)
if git -C "$S" rev-parse -q --verify refs/tags/junk >/dev/null; then echo "2. tag deletion: REFUSED"; grep "remote:" <<<"$out" | head -4; else echo "2. tag deletion: LANDED (only the notes reach J now)"; fi
git -C "$S" count-objects -vH | grep size-pack
echo "   notes history reaches: $(git -C "$S" rev-list --objects --disk-usage refs/notes/probity --not main) bytes on disk"
