#!/usr/bin/env bash
# Pre-receive cost of a reviewed stack of N commits pushed at once.
# Usage: cargo build --release && PROBITY=target/release/probity bash adapters/cli/examples/pre_receive_stack.sh 100
# Not run by the tests; figures in docs/perf.md.
set -euo pipefail
P=$(realpath "$(command -v "${PROBITY:-probity}")")
N=${1:-30}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GIT_AUTHOR_NAME=p GIT_AUTHOR_EMAIL=p@x GIT_COMMITTER_NAME=p GIT_COMMITTER_EMAIL=p@x
export GIT_AUTHOR_DATE='2026-12-01T00:00:00Z' GIT_COMMITTER_DATE='2026-12-01T00:00:00Z'
git init -q --bare -b main "$T/remote.git"
git init -q -b main "$T/w"
cd "$T/w"
mkdir src && echo 'fn a() {}' > src/lib.rs && git add -A && git commit -qm base
git remote add origin ../remote.git && git push -q origin main
"$P" hooks install --server --cwd ../remote.git >/dev/null
echo '{"findings":[],"evidence":["read the diff"]}' > "$T/clean.json"
for i in $(seq 1 "$N"); do
  echo "fn f$i() {}" > "src/m$i.rs"
  git add -A && git commit -q --no-verify -m "c$i"
done
"$P" start --range origin/main..HEAD --json > "$T/started.json"
grep -o '"lineage_id": *"[^"]*"' "$T/started.json" | cut -d'"' -f4 | sort -u |
  while read -r l; do
    "$P" finalize --lineage "$l" --result "$T/clean.json" >/dev/null
    "$P" finalize --lineage "$l" --evidence-cmd -- true >/dev/null
  done
"$P" publish >/dev/null 2>&1 || true
/usr/bin/time -f "push of $N reviewed commits (server pre-receive included): %e s wall, %M KiB max RSS (largest process of the push)" \
  "$P" push origin HEAD >/dev/null
git --git-dir=../remote.git rev-list --count main
