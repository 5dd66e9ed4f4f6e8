#!/usr/bin/env bash
RT10=${RT10:-$(cd "$(dirname "$0")" && pwd)}
# Legitimate team flows under D-R149 (all with `probity push`, the hooks
# installed by setup_team):
#  a) a stack of 3 reviewed commits, one `probity push`
#  b) two clones reviewed the same change (same tree) as separate commits?
#     no: clone B fetches A's reviewed commit Y before A pushes, both
#     review... simplest real case: A and B both hold reviewed Y (B got Y
#     and the notes from A's clone); A pushes, then B `probity push`
#  b2) B has its own reviewed commit on the old main; A pushes first; B is
#     told to fetch/rebase, rebases, reviews the rebased commit, pushes
#  c) a new protected branch: `probity push origin HEAD:refs/heads/feature`
#  d) tags protected (probity.protectedRefs refs/heads/* + refs/tags/*):
#     `probity push origin main refs/tags/v1` (annotated tag at reviewed Y)
source "$RT10/common.sh"
verdict5() { # label ref want lineage out
  local n; n=$(named "$4")
  if [ "$(smain "$2")" = "$3" ] && [ "$n" != 0 ]; then echo "$1: LANDED-OK"
  elif [ "$(smain "$2")" = "$3" ]; then echo "$1: LANDED-WITHOUT-NOTE"
  else echo "$1: WRONGLY-REFUSED ($2 at $(smain "$2" | cut -c1-12), want ${3:0:12})"; grep -E "DENY|rejected|error:|fatal:" <<<"$5" | head -4 | sed 's/^/    /'; fi
}
( source "$RT10/common.sh"; prep
  L1=$L
  printf 'fn two() {}\n' >> "$R/src/parser.rs"; L2=$(approve_live); sign agent "$L2"; commit_all two >/dev/null
  printf 'fn three() {}\n' >> "$R/src/parser.rs"; L3=$(approve_live); sign agent "$L3"; T=$(commit_all three)
  out=$("$P" --cwd "$R" push origin main 2>&1)
  verdict5 05a-stack3 main "$T" "$L3" "$out"
  echo "    notes naming L1 L2 L3: $(named $L1) $(named $L2) $(named $L3)"
)
( source "$RT10/common.sh"; prep
  B=$W/bob; git clone -q "$S" "$B"
  git -C "$B" fetch -q "$R" main:refs/heads/fromA "+refs/notes/probity:refs/notes/probity"
  git -C "$B" checkout -q main; git -C "$B" merge -q --ff-only fromA
  "$P" --cwd "$B" hooks install >/dev/null 2>&1
  out=$("$P" --cwd "$R" push origin main 2>&1); verdict5 05b-first main "$Y" "$L" "$out"
  out=$("$P" --cwd "$B" push origin main 2>&1); rc=$?
  echo "05b-second (same commit Y, B's notes from A's clone): rc=$rc, main at $(smain main | cut -c1-12) ($( [ "$(smain main)" = "$Y" ] && echo unchanged-ok ))"
  [ $rc != 0 ] && { echo "    WRONGLY-REFUSED?"; echo "$out" | tail -5 | sed 's/^/    /'; }
)
( source "$RT10/common.sh"; prep
  B=$W/bob; git clone -q "$S" "$B"
  R0=$R; R=$B
  g config user.name bob
  printf '// bob\n' > "$B/src/bob.rs"; LB=$(approve_live); sign agent "$LB"; YB=$(commit_all "bob's change")
  R=$R0
  out=$("$P" --cwd "$R" push origin main 2>&1); verdict5 05b2-A main "$Y" "$L" "$out"
  out=$("$P" --cwd "$B" push origin main 2>&1)
  [ "$(smain main)" = "$Y" ] && echo "05b2-B-stale: REFUSED as expected ($(grep -oE 'fetch first|non-fast-forward|rejected' <<<"$out" | head -1))"
  git -C "$B" fetch -q origin; git -C "$B" rebase -q origin/main >/dev/null 2>&1 || echo "rebase failed"
  YB2=$(git -C "$B" rev-parse HEAD)
  out=$("$P" --cwd "$B" push origin main 2>&1)
  if [ "$(smain main)" != "$YB2" ]; then
    # the rebased commit may need its own review (probity's rebase rules)
    R=$B; LB2=$(approve_commit HEAD 2>/dev/null) && sign agent "$LB2"; R=$R0
    out=$("$P" --cwd "$B" push origin main 2>&1); echo "    (needed a review of the rebased commit)"
    verdict5 05b2-B-rebased main "$YB2" "${LB2:-$LB}" "$out"
  else verdict5 05b2-B-rebased main "$YB2" "$LB" "$out"; fi
)
( source "$RT10/common.sh"; prep
  out=$("$P" --cwd "$R" push origin HEAD:refs/heads/feature 2>&1); verdict5 05c-newbranch feature "$Y" "$L" "$out"
  out=$("$P" --cwd "$R" push origin main 2>&1); verdict5 05c-then-main main "$Y" "$L" "$out"
)
( source "$RT10/common.sh"; prep
  git -C "$S" config --add probity.protectedRefs 'refs/heads/*'; git -C "$S" config --add probity.protectedRefs 'refs/tags/*'
  g tag -a -m "v1" v1 main; TG=$(g rev-parse v1)
  out=$("$P" --cwd "$R" push origin main refs/tags/v1 2>&1); verdict5 05d-tag-main main "$Y" "$L" "$out"; verdict5 05d-tag-tag refs/tags/v1 "$TG" "$L" "$out"
  g tag -a -m "v2" v2 main; TG2=$(g rev-parse v2)
  out=$("$P" --cwd "$R" push origin refs/tags/v2 2>&1); verdict5 05d-tag-only refs/tags/v2 "$TG2" "$L" "$out"
)
