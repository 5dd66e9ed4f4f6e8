#!/usr/bin/env bash
# Legitimate flows beside the D-R149 hooks (one team, three deliveries):
#  a) `probity push origin main` (atomic, merges the remote's notes) lands;
#  b) notes pushed first alone, then a plain `git push origin main` lands;
#  c) a plain non-atomic `git push origin main refs/notes/probity` is
#     refused, naming --atomic and `probity push`; then `probity push`
#     lands it (no jam).
source "$(dirname "$0")/../lib.sh"
setup_team
named() { git -C "$S" notes --ref=probity show "$1" 2>/dev/null | grep -c -F "$2"; }
# a)
printf 'fn a() {}\n' >> "$R/src/parser.rs"
La=$(approve_live); sign agent "$La"; Ya=$(commit_all "a")
out=$("$P" --cwd "$R" push origin main 2>&1)
if [ "$(smain main)" = "$Ya" ] && [ "$(git -C "$S" grep -l -F "$La" refs/notes/probity -- | wc -l)" != 0 ]; then echo "07a probity push: LANDED-OK"; else echo "07a probity push: REFUSED/JAMMED"; echo "$out" | tail -5; fi
# b)
printf 'fn b() {}\n' >> "$R/src/parser.rs"
Lb=$(approve_live); sign agent "$Lb"; Yb=$(commit_all "b")
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
o1=$(g push --no-verify origin refs/notes/probity 2>&1); o2=$(g push --no-verify origin main 2>&1)
if [ "$(smain main)" = "$Yb" ] && [ "$(git -C "$S" grep -l -F "$Lb" refs/notes/probity -- | wc -l)" != 0 ]; then echo "07b notes first, then git push main: LANDED-OK"; else echo "07b: REFUSED/JAMMED"; echo "$o1"; echo "$o2" | tail -8; fi
# c)
printf 'fn c() {}\n' >> "$R/src/parser.rs"
Lc=$(approve_live); sign agent "$Lc"; Yc=$(commit_all "c")
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
o3=$(g push --no-verify origin main refs/notes/probity 2>&1)
echo "$o3" | grep -E "DENY|notes_not_in_place|next:|note:|rejected|aborted|->" | head -8
if [ "$(smain main)" = "$Yb" ] && grep -q -- "--atomic" <<<"$o3" && grep -q "probity push" <<<"$o3"; then echo "07c plain non-atomic push: REFUSED (names --atomic and probity push)"
elif [ "$(smain main)" = "$Yb" ]; then echo "07c plain non-atomic push: REFUSED (message lacks --atomic or probity push)"
else echo "07c plain non-atomic push: LANDED (main at $(smain main | cut -c1-12))"; fi
echo "records left: $(ls "$S/probity-receive" 2>/dev/null | tr '\n' ' ')"
out=$("$P" --cwd "$R" push origin main 2>&1)
if [ "$(smain main)" = "$Yc" ] && [ "$(git -C "$S" grep -l -F "$Lc" refs/notes/probity -- | wc -l)" != 0 ]; then echo "07c' then probity push: LANDED-OK"; else echo "07c' then probity push: JAMMED"; echo "$out" | tail -6; fi
