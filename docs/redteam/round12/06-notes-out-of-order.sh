#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# A notes tree git never writes: an entry that sorts AFTER a held note
# placed BEFORE it. git's path lookup (find_tree_entry) stops at the first
# name that sorts past the one asked, so <notes>:<X> answers nothing,
# while diff-tree (walking in order) shows X deleted and re-added with the
# same blob, which changed_notes takes for "no change". D-R160 does not
# check notes trees.
#  a) hide the note of a reviewed commit Y pending on an unprotected
#     branch (published with its note), then Y is pushed to main
#  b) the replay of 01 with X1's note hidden this way (grep still sees it)
source "$RT12/common.sh"
setup_team >/dev/null
printf 'fn more() {}\n' >> "$R/src/parser.rs"
L=$(approve_live); sign agent "$L"; Y=$(commit_all "more")
"$P" --cwd "$R" publish >/dev/null 2>&1
g push -q --no-verify --atomic origin "$Y:refs/heads/feature" refs/notes/probity 2>&1 | grep -v '^remote' | head -2
g fetch -q origin '+refs/notes/probity:refs/notes/probity'; OLDN=$(g rev-parse refs/notes/probity)
Z=$(printf 'f%.0s' $(seq 1 40)); ZB=$(printf 'junk\n' | g hash-object -w --stdin)
NT=$( { echo "100644 $Z $ZB"; ls_notes_raw refs/notes/probity; } | rawtree "$R")
N=$(notes_commit "$NT" "$OLDN")
echo "notes tree:"; g ls-tree "$NT" | sed 's/^/    /'
echo "  lookup <notes>:$Y -> $(g cat-file -t "$N:$Y" 2>&1 | head -1)"
echo "  diff-tree old new: $(g diff-tree -r "$OLDN" "$N" | cut -c1-60,97- | tr '\t\n' '  ')"
out=$(g push --no-verify origin refs/notes/probity 2>&1)
echo "06a notes-only push: $( [ "$(git -C "$S" rev-parse refs/notes/probity)" = "$N" ] && echo ACCEPTED || echo REFUSED)"; grep -E "remote: probity" <<<"$out" | head -2 | cut -c1-200 | sed 's/^/    /'
out=$(g push --no-verify origin "$Y:refs/heads/main" 2>&1)
verdict "06a the reviewed Y to main after its note was hidden" main "$Y" "$out"
