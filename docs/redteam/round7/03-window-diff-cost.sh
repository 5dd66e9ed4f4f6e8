#!/usr/bin/env bash
# Target 1(b) cost (D-R145): for every commit of the 1,000-commit window
# that holds the approved final bytes at the approved paths (MayCarry), the
# hook reads its note, verifies it, and diffs it. An approved change that
# DELETES a file (a revert of an addition) has "final bytes" = absent, held
# by every older commit. MODE=sibling (default): the agent's N filler
# commits carry their bundles on empty siblings' notes (so no filler's note
# holds an approval it delivered); MODE=honest: each filler has its own note.
# Measures the hook time of a teammate-style push of an addition (K) and of
# its reviewed revert (K2).
source "$(dirname "$0")/../lib.sh"
N=${N:-1000}; MODE=${MODE:-sibling}
setup_team
t0=$(date +%s); mkdir -p "$R/fill"
for i in $(seq "$N"); do
  printf 'entry %s\n' "$i" > "$R/fill/e$i.md"; approve_live >/dev/null; c=$(commit_all "doc $i")
  if [ "$MODE" = sibling ]; then e=$(g commit -q --allow-empty --no-verify -m "empty $i" && g rev-parse HEAD); echo "$c $e" >> "$W/pairs"; fi
done
"$P" --cwd "$R" publish >/dev/null
if [ "$MODE" = sibling ]; then
  while read -r c e; do g notes --ref=probity copy -f "$c" "$e" && g notes --ref=probity remove "$c" 2>/dev/null; done < "$W/pairs"
fi
echo "   $N fillers ($MODE) made in $(( $(date +%s)-t0 )) s"
base=$(smain main); F=$(g rev-parse HEAD); n=$(g rev-list --count "$base..$F")
# FAST=1: put the fillers on the server with the hook set aside (the same
# history the hook admits stack by stack, as 01 shows, only slowly).
if [ -n "${FAST:-}" ]; then mv "$S/hooks/pre-receive" "$W/pr"; g push -q --no-verify --atomic origin "$F:refs/heads/main" refs/notes/probity; mv "$W/pr" "$S/hooks/pre-receive"; n=0; out=""; fi
while [ "$n" -gt 0 ]; do
  step=$(( n > 900 ? 900 : n )); tipc=$(g rev-list --reverse "$base..$F" | sed -n "${step}p")
  out=$(g push --no-verify --atomic origin "$tipc:refs/heads/main" refs/notes/probity 2>&1)
  [ "$(smain main)" = "$tipc" ] || { verdict "filler stack" main "$tipc" "$out"; exit 1; }
  base=$tipc; n=$(g rev-list --count "$base..$F")
done
verdict "1. $N fillers" main "$F" "$out"
printf 'x\n' > "$R/doc-x.md"; approve_live >/dev/null; K=$(commit_all "add doc-x")
t0=$(date +%s%N); out=$(push_past main); verdict "2. add doc-x" main "$K" "$out"; echo "   hook+push $(( ($(date +%s%N)-t0)/1000000 )) ms"
rm "$R/doc-x.md"; approve_live >/dev/null; K2=$(commit_all "remove doc-x (revert)")
t0=$(date +%s%N); out=$(push_past main); verdict "3. remove doc-x (every window commit holds the 'final bytes')" main "$K2" "$out"; echo "   hook+push $(( ($(date +%s%N)-t0)/1000000 )) ms"
