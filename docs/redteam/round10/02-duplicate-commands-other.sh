#!/usr/bin/env bash
RT10=${RT10:-$(cd "$(dirname "$0")" && pwd)}
# Duplicate ref commands beyond 01:
#  a) after main landed legitimately (`probity push`, notes N naming L), a
#     notes-only push: "N N refs/notes/probity" (a no-op the first-line
#     check passes) then "N 0 refs/notes/probity" (deletion) / "N O'"
#     (a rewind to a commit without L's note): the append-only notes rule
#     on the second line?
#  b) main named twice: "X Y main" (reviewed, L) then "Y Z main" (Z
#     unreviewed), with the notes
#  c) 01a with --atomic
#  d) git's own client asked for two updates of refs/notes/probity
source "$RT10/common.sh"
EMPTY=$(git hash-object -t tree /dev/null)
( source "$RT10/common.sh"; prep
  "$P" --cwd "$R" push origin main >/dev/null 2>&1
  N=$(git -C "$S" rev-parse refs/notes/probity)
  [ "$(smain main)" = "$Y" ] && [ "$(named "$L")" != 0 ] || { echo "02a: setup: probity push did not land"; exit; }
  out=$($RP "$R" "$S" "$N $N refs/notes/probity" "$N 0 refs/notes/probity" 2>&1)
  echo "02a-delete: server notes now $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12 || true) (were ${N:0:12}); notes naming L: $(named "$L") -> $( [ "$(named "$L")" = 0 ] && echo NOTES-ERASED || echo REFUSED)"
  [ -n "${VERBOSE:-}" ] && echo "$out"
)
( source "$RT10/common.sh"; prep
  "$P" --cwd "$R" push origin main >/dev/null 2>&1
  N=$(git -C "$S" rev-parse refs/notes/probity)
  NO=$(g commit-tree "$EMPTY" -m "no notes")
  out=$($RP "$R" "$S" "$N $N refs/notes/probity" "$N $NO refs/notes/probity" 2>&1)
  echo "02a-rewind: server notes now $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12) (were ${N:0:12}); notes naming L: $(named "$L") -> $( [ "$(named "$L")" = 0 ] && echo NOTES-ERASED || echo REFUSED)"
  [ -n "${VERBOSE:-}" ] && echo "$out"
)
( source "$RT10/common.sh"; prep
  printf 'fn unreviewed() {}\n' >> "$R/src/parser.rs"; Z=$(commit_all "unreviewed")
  out=$($RP "$R" "$S" "$O $N refs/notes/probity" "$X $Y refs/heads/main" "$Y $Z refs/heads/main" 2>&1)
  [ -n "${VERBOSE:-}" ] && echo "$out"
  if [ "$(smain main)" = "$Z" ]; then echo "02b: LANDED-UNREVIEWED (main at Z)"; else report 02b main "$Z" "$L" "$out"; fi
)
( source "$RT10/common.sh"; prep
  N2=$(g commit-tree "$O^{tree}" -p "$N" -m "Notes dropped")
  out=$($RP "$R" "$S" --atomic "$O $N refs/notes/probity" "$X $Y refs/heads/main" "$N $N2 refs/notes/probity" 2>&1)
  [ -n "${VERBOSE:-}" ] && echo "$out"
  report 02c-atomic main "$Y" "$L" "$out"
)
( source "$RT10/common.sh"; prep
  N2=$(g commit-tree "$O^{tree}" -p "$N" -m "Notes dropped")
  out=$(g push --no-verify origin main "$N:refs/notes/probity" "$N2:refs/notes/probity" 2>&1)
  [ -n "${VERBOSE:-}" ] && echo "$out"
  report 02d-gitclient main "$Y" "$L" "$out"
)
