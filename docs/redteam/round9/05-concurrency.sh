#!/usr/bin/env bash
# Concurrency beside the D-R149 hooks (fresh team each; server holds notes):
#  a) two clones `probity push` at once (A: main, B: a new branch feat2),
#     each bringing notes; a loser retries once: `git fetch origin` (the
#     pre-push gate's next step when origin moved) and `probity push`.
#  b) a notes-only racer loops fast-forward pushes while A `probity push`es
#     main (atomic); after the racer stops, A retries if it lost.
#  c) two non-atomic pushes at once, each creating a new branch with notes
#     (git applies the notes first, then the branch).
# Per branch: LANDED-OK (its lineage named by the server's notes),
# LANDED-WITHOUT-NOTE, REFUSED (c: expected for a loser) or JAMMED (a
# retry with `probity push` did not land).
LIB="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
state() { # label ref want lineage
  local named; named=$(git -C "$S" grep -l -F "$4" refs/notes/probity -- 2>/dev/null | wc -l)
  if [ "$(smain "$2")" = "$3" ] && [ "$named" = 0 ]; then echo "LANDED-WITHOUT-NOTE"
  elif [ "$(smain "$2")" = "$3" ]; then echo "LANDED-OK"; else echo "REFUSED"; fi
}
prep() {
  setup_team
  git clone -q "$S" "$W/mate"
  git -C "$W/mate" notes --ref=probity add -m x "$(printf '%040x' 0xf0000001)"
  git -C "$W/mate" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1 || echo "setup notes refused"
  B=$W/b; git clone -q "$S" "$B"; git -C "$B" checkout -q -b feat2
  printf 'fn a() {}\n' >> "$R/src/parser.rs"
  LA=$(approve_live); sign agent "$LA"; YA=$(commit_all "A's change")
  printf 'fn b() {}\n' >> "$B/src/parser.rs"
  LB=$(R=$B approve_live); R=$B sign ci "$LB"; YB=$(R=$B commit_all "B's change")
}
retry() { # clone branch label ref want lineage
  local s; s=$(state "$3" "$4" "$5" "$6")
  if [ "$s" = REFUSED ]; then git -C "$1" fetch -q origin; "$P" --cwd "$1" push origin "$2" > "$W/retry.out" 2>&1; s=$(state "$3" "$4" "$5" "$6")
    [ "$s" = REFUSED ] && { s="JAMMED (retry refused)"; tail -4 "$W/retry.out" | sed 's/^/    /'; } || s="$s after one retry"; fi
  echo "05$3: $s"
}
( source $LIB; prep
  "$P" --cwd "$R" push origin main > "$W/a.out" 2>&1 & PA=$!
  "$P" --cwd "$B" push origin feat2 > "$W/b.out" 2>&1 & PB=$!
  wait $PA $PB
  retry "$R" main a-main main "$YA" "$LA"; retry "$B" feat2 a-feat2 feat2 "$YB" "$LB" )
( source $LIB; prep
  "$P" --cwd "$R" push origin main > "$W/a.out" 2>&1 & PA=$!
  M=$W/mate; ( i=1; while kill -0 $PA 2>/dev/null; do i=$((i+1))
      git -C "$M" fetch -q origin '+refs/notes/probity:refs/notes/probity' 2>/dev/null
      git -C "$M" notes --ref=probity add -f -m "x$i" "$(printf '%040x' $((0xf0000000+i)))" 2>/dev/null
      git -C "$M" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1; done ) & RC=$!
  wait $PA; wait $RC
  echo "    first try: $(state b main "$YA" "$LA")"
  retry "$R" main b-main-vs-notes-racer main "$YA" "$LA" )
( source $LIB; prep
  git -C "$R" checkout -q -b feat1
  for c in "$R" "$B"; do "$P" --cwd "$c" publish >/dev/null 2>&1
    git -C "$c" fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' && git -C "$c" notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote; done
  git -C "$R" push --no-verify origin feat1 refs/notes/probity > "$W/a.out" 2>&1 & PA=$!
  git -C "$B" push --no-verify origin feat2 refs/notes/probity > "$W/b.out" 2>&1 & PB=$!
  wait $PA $PB
  echo "05c-feat1: $(state c feat1 "$YA" "$LA")"; echo "05c-feat2: $(state c feat2 "$YB" "$LB")"
  grep -hE "DENY|rejected|lock" "$W/a.out" "$W/b.out" | head -4 | sed 's/^/    /'
  retry "$R" feat1 c-feat1-retry feat1 "$YA" "$LA"; retry "$B" feat2 c-feat2-retry feat2 "$YB" "$LB" )
