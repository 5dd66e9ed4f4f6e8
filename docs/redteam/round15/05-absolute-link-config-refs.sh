#!/usr/bin/env bash
RT15=${RT15:-$(cd "$(dirname "$0")" && pwd)}
# v9 takes an absolute link target's tails as paths from the root for
# the link rule, but the configuration read through links (D-R166,
# start.rs `run_configs`, `read_paths_followed`) still reads an absolute
# target as absent (docs "Risk policy v9"). Precondition (as round 14's
# 02): the maintainer approved `.vscode -> /proc/self/cwd/tools/vscode`
# (a tool run at the root resolves it into the clone) and the task in
# tools/vscode/tasks.json that runs `python3 tools/build.py`. The agent
# alone then edits tools/build.py. Control: the same with a relative
# `.vscode -> tools/vscode`.
source "$RT15/common.sh"
one() { variant15 "$1" '
  mkdir -p "$R/tools/vscode"; printf "print(\"build\")\n" > "$R/tools/build.py"; printf "%s\n" "$TASKS" > "$R/tools/vscode/tasks.json"; ln -s "'"$2"'" "$R/.vscode"
  base_with "'"$1"' approved .vscode -> '"$2"' + task python3 tools/build.py"
  printf "import os\nos.getcwd()\nprint(\"edited\")\n" > "$R/tools/build.py"
  agent_step "'"$1"' edit tools/build.py (what the folder-open task runs)"
  CL=$W/co; git clone -q "$S" "$CL" 2>/dev/null; echo "    fresh clone: $(cd "$CL" && cat .vscode/tasks.json 2>/dev/null | grep -c folderOpen) folderOpen task(s) through .vscode from the clone root"'; }
one 05a /proc/self/cwd/tools/vscode
one 05ctl tools/vscode
