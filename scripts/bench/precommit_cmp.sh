#!/usr/bin/env bash
# The pre-commit gate beside `git status --porcelain`, interleaved (each
# binary once, then git, ROUNDS times), medians in ms. Not run by the
# tests; figures in docs/perf.md. DIR is a repository whose live
# candidate is approved (gate_bench.sh section 1 builds such a layout).
#
# Usage: bash scripts/bench/precommit_cmp.sh DIR ROUNDS PROBITY...
set -euo pipefail
dir=$1; rounds=$2; shift 2
cd "$dir"
declare -A S
for _ in $(seq "$rounds"); do
  for b in "$@" git; do
    a=${EPOCHREALTIME/./}
    if [ "$b" = git ]; then git status --porcelain >/dev/null; else "$b" validate --gate pre-commit >/dev/null; fi
    z=${EPOCHREALTIME/./}
    S[$b]="${S[$b]:-} $((z - a))"
  done
done
for b in "$@" git; do
  printf '%s %s\n' "$(printf '%s\n' ${S[$b]} | sort -n | awk '{a[NR]=$1} END{printf "%.1f ms", a[int((NR+1)/2)]/1000}')" "$b"
done
