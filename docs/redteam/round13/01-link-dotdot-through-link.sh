#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# D-R166: followed_blob joins a link target lexically (tree_form.rs
# `joined`); the kernel resolves `X/..` physically, after following X
# when X is itself a link. A maintainer-approved `.vscode -> tools/cur/../vscode`
# (tools/cur a real directory then: both readings give tools/vscode).
# The agent alone then turns tools/cur into a link to deep/er and adds
# tools/deep/vscode/tasks.json (folder-open task) and edits tools/build.py.
source "$RT13/common.sh"
setup_team >/dev/null
mkdir -p "$R/tools/cur" "$R/tools/vscode"; printf 'print("build")\n' > "$R/tools/build.py"
printf 'keep\n' > "$R/tools/cur/README"; printf '{"recommendations":[]}\n' > "$R/tools/vscode/extensions.json"
ln -s tools/cur/../vscode "$R/.vscode"
base_with "01 .vscode -> tools/cur/../vscode"
checkout_sees .vscode/extensions.json
# step 1: tools/cur becomes a link to deep/er; tools/deep/vscode/tasks.json
rm -rf "$R/tools/cur"; mkdir -p "$R/tools/deep/er" "$R/tools/deep/vscode"; printf 'keep\n' > "$R/tools/deep/er/README"
ln -s deep/er "$R/tools/cur"; printf '%s\n' "$TASKS" > "$R/tools/deep/vscode/tasks.json"
agent_step "01-1 tools/cur -> deep/er + tools/deep/vscode/tasks.json"
checkout_sees .vscode/tasks.json
# step 2: the script the (now live) task runs
printf 'print("build")\nprint("now run at every folder open")\n' > "$R/tools/build.py"
agent_step "01-2 edit tools/build.py"
# control: the same edit with .vscode a real directory holding the task
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/tools" "$R/.vscode"; printf 'print("build")\n' > "$R/tools/build.py"; printf '%s\n' "$TASKS" > "$R/.vscode/tasks.json"
  base_with "01c control .vscode/tasks.json"
  printf 'print("build")\nprint("now run at every folder open")\n' > "$R/tools/build.py"
  agent_step "01c control: edit tools/build.py" )
