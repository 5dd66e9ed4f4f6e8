#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# 02g: approved .vscode -> editor (editor holds only extensions.json); the
# agent turns the directory editor into a link to ed2 holding tasks.json.
source "$RT13/common.sh"; setup_team >/dev/null
mkdir -p "$R/editor" "$R/tools"; printf 'print(1)\n' > "$R/tools/build.py"; printf '{}\n' > "$R/editor/extensions.json"
ln -s editor "$R/.vscode"; base_with "02g .vscode -> editor"
rm -rf "$R/editor"; mkdir -p "$R/ed2"; printf '%s\n' "$TASKS" > "$R/ed2/tasks.json"; printf '{}\n' > "$R/ed2/extensions.json"
ln -s ed2 "$R/editor"; agent_step "02g-1 editor -> ed2 holding tasks.json"; checkout_sees .vscode/tasks.json
