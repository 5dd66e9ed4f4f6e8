#!/usr/bin/env bash
# Target 1(b) cost (D-R145): the replay check asks, for every delivery of a
# push x every commit of the window (1,000 changing commits) and of what the
# update brings, MayCarry's path lookups (trees read through cat-file), with
# no cache across deliveries: a stack of S reviewed commits costs about
# S x (1000 + S) tree reads. Hook time of one stack push of S reviewed
# low-risk commits on a history of H changing commits (history put on the
# server with the hook set aside, FAST, as 03 does).
source "$(dirname "$0")/../lib.sh"
H=${H:-1000}
setup_team
mkdir -p "$R/fill"; for i in $(seq "$H"); do printf '%s\n' "$i" > "$R/fill/e$i.md"; g add -A; g commit -q --no-verify -m "h$i"; done
mv "$S/hooks/pre-receive" "$W/pr"; g push -q --no-verify origin main; mv "$W/pr" "$S/hooks/pre-receive"
for SN in ${STACKS:-25 50 100}; do
  for i in $(seq "$SN"); do printf 'x\n' > "$R/s$SN-$i.md"; approve_live >/dev/null; c=$(commit_all "s$SN $i"); done
  t0=$(date +%s%N); out=$(push_past main); verdict "stack of $SN reviewed commits on a $H-commit history" main "$c" "$out"
  echo "   hook+push $(( ($(date +%s%N)-t0)/1000000 )) ms"
done
