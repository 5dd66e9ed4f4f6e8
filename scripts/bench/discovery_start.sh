#!/bin/bash
# Listings by name (D-R175) on a start (docs/perf.md): bash
# scripts/bench/discovery_start.sh BIN builds a repository of 20,000
# files in 5,000 directories with 60 test files under tests/, and prints,
# for a folder-open task that runs pytest (its discovery listed by name
# from the root: every directory read) and for one that runs a script
# (no listing), five start times, the processes a start runs and its tier.
set -u
source "$(dirname "$0")/starts.sh"
mkdir -p /tmp/discoveryperf
trap 'rm -rf /tmp/discoveryperf' EXIT
cd /tmp/discoveryperf
build() {
  rm -rf r && mkdir r && cd r && git init -q -b main && git config user.email a@b && git config user.name a
  mkdir -p src tests .vscode tools
  for i in $(seq 1 2000); do echo "fn f$i() {}" > src/m$i.rs; done
  python3 - <<'PY'
import os
for d in range(4900):
    p = f"vendor/d{d // 70}/e{d}"
    os.makedirs(p, exist_ok=True)
    for f in range(4):
        open(f"{p}/f{f}.txt", "w").write(f"{d} {f}\n")
for i in range(60):
    open(f"tests/test_m{i}.py", "w").write(f"def test_{i}():\n    assert {i} == {i}\n")
open("tools/gen.py", "w").write("print('gen')\n")
PY
  printf '[pytest]\ntestpaths = tests\n' > pytest.ini
  printf '{"version":"2.0.0","tasks":[{"label":"t","type":"shell","command":"%s","runOptions":{"runOn":"folderOpen"}}]}' "$1" > .vscode/tasks.json
  git add -A && git commit -qm base
  cd ..
}
# COMMAND=... measures one task command instead of the two.
if [ -n "${COMMAND:-}" ]; then commands=("$COMMAND"); else commands=("python3 -m pytest -q" "python3 tools/gen.py"); fi
for command in "${commands[@]}"; do
  echo "== task: $command"
  build "$command"
  measure_starts "$@"
done
