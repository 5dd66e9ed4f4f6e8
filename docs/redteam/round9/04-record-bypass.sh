#!/usr/bin/env bash
# Try to make the record not apply to the push's own ref updates, each in a
# fresh team whose server holds notes O; every push is main + notes without
# --atomic (git applies main first, so it is refused unless the record is
# skipped):
#  a) push options (`-o x`), server not advertising them; a2) with the
#     server's receive.advertisePushOptions=true
#  b) --force-with-lease on both refs
#  c) the notes spelled `notes/probity` on the command line
#  d) refs that would block or alias the notes: refs/notes, refs/notes/probity/x
#  e) the 02 attack (descendant N' dropping the note) with --atomic
LIB="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
report() { # label ref want lineage out
  local label=$1 ref=$2 want=$3 lin=$4 out=$5 named
  named=$(git -C "$S" grep -l -F "$lin" refs/notes/probity -- 2>/dev/null | wc -l)
  if [ "$(smain "$ref")" = "$want" ] && [ "$named" = 0 ]; then echo "04$label: LANDED-WITHOUT-NOTE ($ref)"
  elif [ "$(smain "$ref")" = "$want" ]; then echo "04$label: LANDED-OK ($ref)"
  else echo "04$label: REFUSED"; grep -E "DENY|rejected|aborted|error:|fatal:" <<<"$out" | head -3 | sed 's/^/    /'; fi
}
prep() {
  setup_team
  git clone -q "$S" "$W/mate"
  git -C "$W/mate" notes --ref=probity add -m x "$(printf '%040x' 0xf0000001)"
  git -C "$W/mate" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1 || echo "setup notes refused"
  printf 'fn more() {}\n' >> "$R/src/parser.rs"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "the change")
  "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
}
( source $LIB; prep
  out=$(g push --no-verify -o x origin main refs/notes/probity 2>&1); report a main "$Y" "$L" "$out"
  git -C "$S" config receive.advertisePushOptions true
  out=$(g push --no-verify -o x -o ci.skip origin main refs/notes/probity 2>&1); report a2 main "$Y" "$L" "$out" )
( source $LIB; prep
  out=$(g push --no-verify --force-with-lease origin +main +refs/notes/probity 2>&1); report b main "$Y" "$L" "$out" )
( source $LIB; prep
  out=$(g push --no-verify origin main notes/probity 2>&1); report c main "$Y" "$L" "$out" )
( source $LIB; prep
  out=$(g push --no-verify origin main refs/notes/probity:refs/notes/probity/x 2>&1); report d-under main "$Y" "$L" "$out"
  out=$(g push --no-verify origin main refs/notes/probity:refs/notes 2>&1); report d-notes main "$Y" "$L" "$out"
  echo "    server refs: $(git -C "$S" for-each-ref --format='%(refname)' refs/notes | tr '\n' ' ')" )
( source $LIB; prep
  O=$(git -C "$S" rev-parse refs/notes/probity); N=$(g rev-parse refs/notes/probity)
  NP=$(g commit-tree "$O^{tree}" -p "$N" -m drop)
  g push --no-verify --atomic origin main refs/notes/probity > "$W/push.out" 2>&1 &
  PUSH=$!; sleep 0.05
  g push --no-verify origin "$NP:refs/notes/probity" >/dev/null 2>&1; wait $PUSH
  report e-atomic main "$Y" "$L" "$(cat "$W/push.out")" )
