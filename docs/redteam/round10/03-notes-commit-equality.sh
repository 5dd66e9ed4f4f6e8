#!/usr/bin/env bash
RT10=${RT10:-$(cd "$(dirname "$0")" && pwd)}
# Making the record's notes commit N something the attacker controls (each
# in a fresh team whose server holds a mate's notes O; rp-client.py sends
# the exact commands, in the order given, without --atomic):
#  a) a no-op notes update "O O" beside main (L's note not on the server)
#  b) the notes landed first (notes-only push O->N), then "N N notes" + main
#  c) two pushes carrying the same N: A = [O->N notes, X->Y main] stalled
#     3 s after the advertisement; meanwhile B pushes notes-only O->N.
#     A's notes update fails (ref at N), its main finds N in place.
#  d) as c, but B pushes N' = a child of N keeping every note (adds one)
#  e) delete + recreate the notes in one push: [O->0 notes, 0->N notes,
#     X->Y main]; e2) a creation claimed while the server has O: [0->N2
#     notes, X->Y main] with N2 a root commit holding only L's note
#  f) a client-side symbolic ref refs/notes/alias -> refs/notes/probity,
#     pushed alias:refs/notes/probity beside main, --atomic and not
source "$RT10/common.sh"
( source "$RT10/common.sh"; prep
  out=$($RP "$R" "$S" "$O $O refs/notes/probity" "$X $Y refs/heads/main" 2>&1); report 03a-noop main "$Y" "$L" "$out" )
( source "$RT10/common.sh"; prep
  g push -q --no-verify origin refs/notes/probity >/dev/null 2>&1
  out=$($RP "$R" "$S" "$N $N refs/notes/probity" "$X $Y refs/heads/main" 2>&1); report 03b-notes-first-noop main "$Y" "$L" "$out" )
for v in c d; do
( source "$RT10/common.sh"; prep
  $RP "$R" "$S" --stall 3 "$O $N refs/notes/probity" "$X $Y refs/heads/main" > "$W/a.out" 2>&1 &
  A=$!; sleep 1
  git -C "$W/mate" fetch -q "$R" "+refs/notes/probity:refs/notes/probity"
  if [ $v = c ]; then NB=$N; else
    git -C "$W/mate" notes --ref=probity add -m y "$(printf '%040x' 0xf0000002)"
    NB=$(git -C "$W/mate" rev-parse refs/notes/probity); fi
  git -C "$W/mate" push --no-verify origin "$NB:refs/notes/probity" >/dev/null 2>&1 || echo "    B's notes push refused"
  wait $A; out=$(cat "$W/a.out")
  report "03$v-same-N$( [ $v = d ] && echo -descendant)" main "$Y" "$L" "$out"
  echo "    server notes $(git -C "$S" rev-parse refs/notes/probity | cut -c1-12) (N=${N:0:12} B=${NB:0:12}); A's report: $(grep -E '^(ok|ng) ' <<<"$out" | tr '\n' ';')" )
done
( source "$RT10/common.sh"; prep
  out=$($RP "$R" "$S" "$O 0 refs/notes/probity" "0 $N refs/notes/probity" "$X $Y refs/heads/main" 2>&1); report 03e-delete-recreate main "$Y" "$L" "$out"
  echo "    server notes $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12) (O=${O:0:12})" )
( source "$RT10/common.sh"; prep
  T=$(git -C "$R" ls-tree refs/notes/probity | grep -v "$(printf '%040x' 0xf0000001)" | git -C "$R" mktree)
  N2=$(g commit-tree "$T" -m "only L's note")
  out=$($RP "$R" "$S" "0 $N2 refs/notes/probity" "$X $Y refs/heads/main" 2>&1); report 03e2-claimed-creation main "$Y" "$L" "$out"
  echo "    server notes $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12) (O=${O:0:12})" )
( source "$RT10/common.sh"; prep
  g symbolic-ref refs/notes/alias refs/notes/probity
  out=$(g push --no-verify origin main refs/notes/alias:refs/notes/probity 2>&1); report 03f-symref-plain main "$Y" "$L" "$out"
  out=$(g push --no-verify --atomic origin main refs/notes/alias:refs/notes/probity 2>&1); report 03f-symref-atomic main "$Y" "$L" "$out" )
