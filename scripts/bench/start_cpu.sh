#!/usr/bin/env bash
# CPU time (perf stat task-clock: the process and its children) of a new
# `probity start` in REPO, by OLD and NEW interleaved with the peer (a copy
# of the index, `git add -A`, `git write-tree`), ROUNDS times; prints the
# median of each. CPU time does not wait on other work, so it separates two
# builds on a loaded machine where wall time does not (docs/perf.md).
#
# Usage: OLD=/path/old-probity NEW=target/release/probity \
#          bash scripts/bench/start_cpu.sh REPO [ROUNDS]
set -euo pipefail
dir=$(realpath "$1"); n=${2:-7}
OLD=$(realpath "${OLD:?set OLD}"); NEW=$(realpath "${NEW:-target/release/probity}")
copy=$(mktemp); trap 'rm -f "$copy"' EXIT
declare -A S
one() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
for _ in $(seq "$n"); do
  for b in "$OLD" "$NEW"; do
    rm -rf "$dir/.git/probity"
    S[$b]+=" $(cd "$dir" && one "$b" start)"
  done
  S[peer]+=" $(cd "$dir" && one bash -c "cp .git/index '$copy' && GIT_INDEX_FILE='$copy' git add -A && GIT_INDEX_FILE='$copy' git write-tree")"
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo "old $(med ${S[$OLD]}) ms"
echo "new $(med ${S[$NEW]}) ms"
echo "peer $(med ${S[peer]}) ms"
