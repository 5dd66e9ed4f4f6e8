#!/usr/bin/env bash
RT10=${RT10:-$(cd "$(dirname "$0")" && pwd)}
# Protected updates the record might not cover (rp-client.py, no --atomic,
# server with a mate's notes O):
#  a) tags protected (refs/heads/* + refs/tags/*): an annotated tag at
#     reviewed Y created beside the notes, tag first / notes first
#  b) a new protected branch at a commit main already holds (X) beside the
#     notes, branch first (nothing delivered, still held?)
#  c) protected + unprotected ref with the same (old,new), unprotected
#     first: refs/heads/feat and refs/review/x both 0->Y, notes last
#  d) allowProtectedDeletion true, a second protected branch keep at X:
#     delete protected rel (at X) and recreate it at Y in one push
#     [X->0 rel, O->N notes, 0->Y rel] (main is git's current branch)
source "$RT10/common.sh"
for order in tagfirst notesfirst; do
( source "$RT10/common.sh"; prep
  git -C "$S" config --add probity.protectedRefs 'refs/heads/*'; git -C "$S" config --add probity.protectedRefs 'refs/tags/*'
  g tag -a -m v1 v1 "$Y"; TG=$(g rev-parse v1)
  if [ $order = tagfirst ]; then out=$($RP "$R" "$S" "0 $TG refs/tags/v1" "$O $N refs/notes/probity" 2>&1)
  else out=$($RP "$R" "$S" "$O $N refs/notes/probity" "0 $TG refs/tags/v1" 2>&1); fi
  report "04a-tag-$order" refs/tags/v1 "$TG" "$L" "$out" )
done
( source "$RT10/common.sh"; prep
  out=$($RP "$R" "$S" "0 $X refs/heads/copy" "$O $N refs/notes/probity" 2>&1)
  if [ "$(smain copy)" = "$X" ]; then echo "04b-existing-commit-branch: LANDED-OK (nothing delivered)"; else echo "04b-existing-commit-branch: REFUSED (held although it delivers nothing; $(grep -oE 'notes_not_in_place|DENY: [a-z_]+' <<<"$out" | head -1))"; fi )
( source "$RT10/common.sh"; prep
  out=$($RP "$R" "$S" "0 $Y refs/review/x" "0 $Y refs/heads/feat" "$O $N refs/notes/probity" 2>&1)
  report 04c-unprotected-twin feat "$Y" "$L" "$out"
  echo "    refs/review/x on server: $(git -C "$S" rev-parse -q --verify refs/review/x | cut -c1-12)" )
( source "$RT10/common.sh"; prep
  git -C "$S" config probity.allowProtectedDeletion true; git -C "$S" update-ref refs/heads/rel "$X"
  out=$($RP "$R" "$S" "$X 0 refs/heads/rel" "$O $N refs/notes/probity" "0 $Y refs/heads/rel" 2>&1)
  report 04d-delete-recreate rel "$Y" "$L" "$out" )
