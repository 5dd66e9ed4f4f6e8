#!/bin/bash
# Risk policy v12 on a start with a folder-open task (docs/perf.md):
# bash scripts/bench/task_start.sh BIN... builds the repository under
# /tmp/v12perf and prints, per binary, five start times, the processes a
# start runs (strace -f) and its tier.
set -u
source "$(dirname "$0")/starts.sh"
mkdir -p /tmp/v12perf
trap 'rm -rf /tmp/v12perf' EXIT
cd /tmp/v12perf
rm -rf r && mkdir r && cd r && git init -q -b main && git config user.email a@b && git config user.name a
mkdir -p src tools/hooks .vscode pkg lib
for i in $(seq 1 2000); do echo "fn f$i() {}" > src/m$i.rs; done
for i in $(seq 1 40); do echo "def g$i(): return $i" > pkg/mod$i.py; done
touch pkg/__init__.py
for i in 1 2 3; do printf '#!/bin/sh\npython3 lib/h%s.py\n' $i > tools/hooks/h$i; echo "print($i)" > lib/h$i.py; done
python3 - <<'PY'
lines=["import os, subprocess","from pkg import mod1, mod2","import pkg.mod3"]
for i in range(300):
    lines.append(f"def step_{i}(path, data, config):\n    out = os.path.join(path, 'build', 'out_{i}.txt')\n    return subprocess.run(['cargo', 'build', '--release'], check=True)")
open("tools/build.py","w").write("\n".join(lines)+"\n")
PY
printf '{"version":"2.0.0","tasks":[{"label":"b","type":"shell","command":"python3 tools/build.py && run-parts tools/hooks","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json
git add -A && git commit -qm base
cd ..
measure_starts "$@"
