#!/bin/bash
# Risk policy v12's modules past the reads (red team round 23, docs/perf.md):
# bash scripts/bench/deep_modules_start.sh BIN... builds a repository under
# /tmp/v12deep (2,000 other files; a folder-open task `python3 -m app.main`
# whose package imports a chain DEPTH modules deep, default 12, each module
# also importing a shared package of 100 modules) and prints, per binary,
# five start times, the processes a start runs (strace -f) and its tier.
set -u
source "$(dirname "$0")/starts.sh"
DEPTH=${DEPTH:-12}
mkdir -p /tmp/v12deep
trap 'rm -rf /tmp/v12deep' EXIT
cd /tmp/v12deep
rm -rf r && mkdir r && cd r && git init -q -b main && git config user.email a@b && git config user.name a
mkdir -p src app common .vscode
for i in $(seq 1 2000); do echo "fn f$i() {}" > src/m$i.rs; done
: > app/__init__.py; : > common/__init__.py
for i in $(seq 0 99); do printf 'import os, json\ndef f():\n    return %d\n' "$i" > common/m$i.py; done
printf 'from .c1 import run\nrun()\n' > app/main.py
for i in $(seq 1 "$DEPTH"); do
  n=$((i + 1))
  if [ "$i" -lt "$DEPTH" ]; then next="from .c$n import run as inner"; else next="inner = print"; fi
  printf 'import os, sys, json\nfrom common.m%d import f\n%s\ndef run():\n    inner(f())\n' $((i % 100)) "$next" > app/c$i.py
done
printf '{"version":"2.0.0","tasks":[{"label":"s","type":"shell","command":"python3 -m app.main","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json
git add -A && git commit -qm base
cd ..
measure_starts "$@"
