#!/usr/bin/env bash
# Stale records in <git dir>/probity-receive (looked at as the tester; the
# agent cannot read them): pushes that leave a record behind, then a
# teammate's legitimate pushes.
#  1) the agent's non-atomic push of main + notes, refused at main's
#     transaction (its record stays);
#  2) the agent's push killed mid-way (client SIGKILLed while the server's
#     pre-receive runs, STALL-free), several times;
#  3) a teammate (clone B) then delivers: notes pushed alone, then a plain
#     `git push origin feat2`; and another change with `probity push`.
# Verdict: LANDED-OK for the teammate, or JAMMED.
source "$(dirname "$0")/../lib.sh"
setup_team
git clone -q "$S" "$W/mate"
git -C "$W/mate" notes --ref=probity add -m x "$(printf '%040x' 0xf0000001)"
git -C "$W/mate" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1
B=$W/b; git clone -q "$S" "$B"; git -C "$B" checkout -q -b feat2
printf 'fn a() {}\n' >> "$R/src/parser.rs"
LA=$(approve_live); sign agent "$LA"; YA=$(commit_all "A's change")
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
g push --no-verify origin main refs/notes/probity >/dev/null 2>&1
echo "after 1): records $(ls "$S/probity-receive" 2>/dev/null | wc -l), main moved: $([ "$(smain main)" = "$YA" ] && echo yes || echo no)"
for d in 0.05 0.1 0.2 0.3 0.5; do
  g push --no-verify origin main:refs/heads/k$RANDOM refs/notes/probity >/dev/null 2>&1 & K=$!
  sleep $d; kill -9 $K 2>/dev/null; wait $K 2>/dev/null
done
sleep 1
echo "after 2): records $(ls "$S/probity-receive" 2>/dev/null | tr '\n' ' '); server branches: $(git -C "$S" for-each-ref --format='%(refname:short)' refs/heads | tr '\n' ' ')"
for r in $(git -C "$S" for-each-ref --format='%(refname:short)' 'refs/heads/k*'); do
  [ "$(git -C "$S" grep -l -F "$LA" refs/notes/probity -- | wc -l)" = 0 ] && echo "06 killed push: $r LANDED-WITHOUT-NOTE"; done
# 3) the teammate
printf 'fn b() {}\n' >> "$B/src/parser.rs"
LB=$(R=$B approve_live); R=$B sign ci "$LB"; YB=$(R=$B commit_all "B's change")
"$P" --cwd "$B" publish >/dev/null 2>&1
git -C "$B" fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && git -C "$B" notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
o1=$(git -C "$B" push --no-verify origin refs/notes/probity 2>&1); o2=$(git -C "$B" push --no-verify origin feat2 2>&1)
named=$(git -C "$S" grep -l -F "$LB" refs/notes/probity -- | wc -l)
if [ "$(smain feat2)" = "$YB" ] && [ "$named" != 0 ]; then echo "06 teammate notes-first then git push: LANDED-OK"; else echo "06 teammate notes-first then git push: JAMMED"; echo "$o1" "$o2" | tail -6; fi
printf 'fn c() {}\n' >> "$B/src/parser.rs"
LC=$(R=$B approve_live); R=$B sign ci "$LC"; YC=$(R=$B commit_all "B's second change")
out=$("$P" --cwd "$B" push origin feat2 2>&1)
named=$(git -C "$S" grep -l -F "$LC" refs/notes/probity -- | wc -l)
if [ "$(smain feat2)" = "$YC" ] && [ "$named" != 0 ]; then echo "06 teammate probity push: LANDED-OK"; else echo "06 teammate probity push: JAMMED"; echo "$out" | tail -6; fi
echo "records now: $(ls "$S/probity-receive" 2>/dev/null | tr '\n' ' ')"
