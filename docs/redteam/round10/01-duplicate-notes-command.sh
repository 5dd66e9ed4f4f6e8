#!/usr/bin/env bash
RT10=${RT10:-$(cd "$(dirname "$0")" && pwd)}
# One push (a hand-written client, rp-client.py) naming refs/notes/probity
# TWICE, without --atomic:
#   O -> N   refs/notes/probity   (N: the agent's notes, naming L)
#   X -> Y   refs/heads/main      (Y: reviewed, lineage L)
#   N -> N2  refs/notes/probity   (a second update of the same ref)
# git's receive-pack does not reject duplicate commands; without --atomic
# it applies each in its own transaction, in order. pre-receive reads only
# the FIRST notes line (notes_after: updates.iter().find), the record's N
# too (JudgedNotes::of_push), and the transaction hook holds only updates
# it judged. Variants for the second notes update:
#   a) N2 = child of N with O's tree (L's note dropped)
#   b) deletion of refs/notes/probity (N -> 0)
#   c) N2 = an unrelated root commit with an empty tree (non-fast-forward)
source "$RT10/common.sh"
EMPTY=$(git hash-object -t tree /dev/null)
for v in a b c; do
( source "$RT10/common.sh"; prep
  case $v in
    a) N2=$(g commit-tree "$O^{tree}" -p "$N" -m "Notes dropped");;
    b) N2=0;;
    c) N2=$(g commit-tree "$EMPTY" -m "no notes");;
  esac
  out=$($RP "$R" "$S" "$O $N refs/notes/probity" "$X $Y refs/heads/main" "$N $N2 refs/notes/probity" 2>&1)
  [ -n "${VERBOSE:-}" ] && echo "$out"
  report "01$v" main "$Y" "$L" "$out"
  echo "    server notes: $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12) (O=${O:0:12} N=${N:0:12} N2=${N2:0:12})"
)
done
