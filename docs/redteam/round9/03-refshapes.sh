#!/usr/bin/env bash
# Ref shapes beside the notes, each in a fresh team whose server already
# holds notes O (a teammate's), pushes without --atomic unless said:
#  a) the server has a symbolic ref refs/heads/alias -> refs/heads/main
#     (set up by the admin); the agent pushes main:alias + notes;
#     then the same with --atomic
#  b) creates a new protected branch feat + notes (the notes, an existing
#     ref, are applied first, then feat)
#  b2) the server has no notes yet: feat created + notes created, refspecs
#     in the order feat, notes
#  c) several protected refs: main (existing, applied before the notes),
#     feat (new, applied after the notes) + notes
#  d) a tag and a branch with the same (old,new): refs/tags/v1 and feat,
#     both created at Y, + notes (tags unprotected), then with
#     probity.protectedRefs also refs/tags/*
# Verdict per case: LANDED-OK (the protected ref moved and the server's
# notes name the lineage), LANDED-WITHOUT-NOTE, or REFUSED.
LIB="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
report() { # label ref want lineage out
  local label=$1 ref=$2 want=$3 lin=$4 out=$5 named
  named=$(git -C "$S" grep -l -F "$lin" refs/notes/probity -- 2>/dev/null | wc -l)
  if [ "$(smain "$ref")" = "$want" ] && [ "$named" = 0 ]; then echo "03$label: LANDED-WITHOUT-NOTE ($ref)"
  elif [ "$(smain "$ref")" = "$want" ]; then echo "03$label: LANDED-OK ($ref)"
  else echo "03$label: REFUSED ($ref at $(smain "$ref" | cut -c1-12))"; grep -E "DENY|rejected|aborted|error:" <<<"$out" | head -3 | sed 's/^/    /'; fi
}
prep() { # [nonotes]
  setup_team
  if [ "${1:-}" != nonotes ]; then
    git clone -q "$S" "$W/mate"
    git -C "$W/mate" notes --ref=probity add -m x "$(printf '%040x' 0xf0000001)"
    git -C "$W/mate" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1 || echo "setup notes refused"
  fi
  printf 'fn more() {}\n' >> "$R/src/parser.rs"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "the change")
  "$P" --cwd "$R" publish >/dev/null 2>&1
  if g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null; then
    g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote; fi
}
( source $LIB; prep
  git -C "$S" symbolic-ref refs/heads/alias refs/heads/main
  g fetch -q origin
  out=$(g push --no-verify origin main:refs/heads/alias refs/notes/probity 2>&1); report a alias "$Y" "$L" "$out"
  echo "    main at $(smain main | cut -c1-12) (Y=${Y:0:12})"
  out=$(g push --no-verify --atomic origin main:refs/heads/alias refs/notes/probity 2>&1); report a-atomic main "$Y" "$L" "$out" )
( source $LIB; prep
  out=$(g push --no-verify origin main:refs/heads/feat refs/notes/probity 2>&1); report b feat "$Y" "$L" "$out" )
( source $LIB; prep nonotes
  out=$(g push --no-verify origin main:refs/heads/feat refs/notes/probity 2>&1); report b2 feat "$Y" "$L" "$out"
  echo "    notes on server: $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12)" )
( source $LIB; prep
  out=$(g push --no-verify origin main main:refs/heads/feat refs/notes/probity 2>&1); report c-main main "$Y" "$L" "$out"; report c-feat feat "$Y" "$L" "$out"
  echo "    notes on server now name L: $(git -C "$S" grep -l -F "$L" refs/notes/probity -- | wc -l)" )
( source $LIB; prep
  g tag v1 main
  out=$(g push --no-verify origin main:refs/heads/feat refs/tags/v1 refs/notes/probity 2>&1); report d feat "$Y" "$L" "$out"
  echo "    tag v1 on server: $(git -C "$S" rev-parse -q --verify refs/tags/v1 | cut -c1-12)" )
( source $LIB; prep
  git -C "$S" config --add probity.protectedRefs 'refs/heads/*'; git -C "$S" config --add probity.protectedRefs 'refs/tags/*'
  g tag v1 main
  out=$(g push --no-verify origin refs/tags/v1 main:refs/heads/feat refs/notes/probity 2>&1); report d-tagsprotected v1 "$Y" "$L" "$out"; report d-tagsprotected feat "$Y" "$L" "$out" )
