#!/usr/bin/env bash
# Legitimate flows where the hook reads the notes ref differently:
#  a) first delivery ever with notes (server has no refs/notes/probity):
#     `probity push origin main` (atomic; the notes ref is CREATED in the
#     same transaction: the "nothing blocks it" path)
#  b) refs packed on the server (as git gc --auto after a push does, which
#     pushes can set off): `probity push`, then a non-atomic new branch +
#     notes (notes applied first), then a non-atomic main + notes (refused)
#  c) a reftable server (git init --ref-format=reftable): the hook asks
#     git; `probity push` lands; non-atomic main + notes refused
LIB="$(cd "$(dirname "$0")/.." && pwd)/lib.sh"
state() { local named; named=$(git -C "$S" grep -l -F "$3" refs/notes/probity -- 2>/dev/null | wc -l)
  if [ "$(smain "$1")" = "$2" ] && [ "$named" = 0 ]; then echo "LANDED-WITHOUT-NOTE"
  elif [ "$(smain "$1")" = "$2" ]; then echo "LANDED-OK"; else echo "REFUSED"; fi; }
change() { printf 'fn x%s() {}\n' "$RANDOM" >> "$R/src/parser.rs"; L=$(approve_live); sign agent "$L"; Y=$(commit_all "change"); }
merged() { "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null && g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote; }
( source $LIB; setup_team; change
  out=$("$P" --cwd "$R" push origin main 2>&1); echo "08a first notes via probity push: $(state main "$Y" "$L")"
  [ "$(state main "$Y" "$L")" = LANDED-OK ] || echo "$out" | tail -5 )
( source $LIB; setup_team; change
  "$P" --cwd "$R" push origin main >/dev/null 2>&1
  git -C "$S" pack-refs --all --prune; change
  out=$("$P" --cwd "$R" push origin main 2>&1); echo "08b packed, probity push: $(state main "$Y" "$L")"
  [ "$(state main "$Y" "$L")" = LANDED-OK ] || echo "$out" | tail -5
  git -C "$S" pack-refs --all --prune; g checkout -q -b feat; change; merged
  out=$(g push --no-verify origin feat refs/notes/probity 2>&1); echo "08b packed, non-atomic new branch + notes: $(state feat "$Y" "$L")"
  git -C "$S" pack-refs --all --prune; g checkout -q main; change; merged
  out=$(g push --no-verify origin main refs/notes/probity 2>&1); echo "08b packed, non-atomic main + notes: $(state main "$Y" "$L") ($(grep -o 'notes_not_in_place' <<<"$out" | head -1))" )
( source $LIB
  setup_team_rt() { # setup_team with a reftable server
    git init -q -b main "$R"; mkdir -p "$R/src" "$R/.probity"
    printf '// parser\nfn parse() {}\n' > "$R/src/parser.rs"; printf 'target/\n' > "$R/.gitignore"
    keygen agent; keygen ci; keygen alice
    printf '%s %s\n%s %s\n%s %s\n' "$AGENT" "$(cat $W/keys/agent.pub)" "$CI" "$(cat $W/keys/ci.pub)" "$ALICE" "$(cat $W/keys/alice.pub)" > "$R/.probity/allowed_signers"
    printf '%s' '{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["'$AGENT'","'$CI'"],"maintainer":["'$ALICE'"]},"signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]},"authorize":["maintainer"],"high_risk":{"paths":["crypto/**"],"content":["AKIA"]}}' > "$R/.probity/policy.json"
    g add -A && g commit -q -m "the team's policy"
    git init -q --bare -b main --ref-format=reftable "$S"; g remote add origin "$S"; g push -q origin main
    "$P" --cwd "$S" hooks install --server >/dev/null || { echo "hook install failed"; exit 9; }; }
  setup_team_rt; change
  out=$("$P" --cwd "$R" push origin main 2>&1); echo "08c reftable, probity push: $(state main "$Y" "$L")"
  [ "$(state main "$Y" "$L")" = LANDED-OK ] || echo "$out" | tail -5
  change; merged
  out=$(g push --no-verify origin main refs/notes/probity 2>&1); echo "08c reftable, non-atomic main + notes: $(state main "$Y" "$L") ($(grep -o 'notes_not_in_place' <<<"$out" | head -1))"
  g checkout -q -b feat; change; merged
  out=$(g push --no-verify origin feat refs/notes/probity 2>&1); echo "08c reftable, non-atomic new branch + notes: $(state feat "$Y" "$L")"
  [ "$(state feat "$Y" "$L")" = LANDED-OK ] || echo "$out" | grep -E "DENY|error|fatal" | head -4 )
