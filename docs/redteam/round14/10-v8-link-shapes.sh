#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# v8 shapes from the brief, each against its own setup: a maintainer
# approved the `.vscode` (or `.husky`) link; the agent alone moves what
# it resolves to.
source "$RT14/common.sh"
variant 10a '# `.` and `//` components before a link met before `..`
mkdir -p "$R/tools/cur" "$R/tools/vscode"; printf "k\n" > "$R/tools/cur/README"; printf "{}\n" > "$R/tools/vscode/extensions.json"
ln -s ./tools//cur/./../vscode "$R/.vscode"; base_with "10a .vscode -> ./tools//cur/./../vscode"
rm -rf "$R/tools/cur"; mkdir -p "$R/tools/deep/er" "$R/tools/deep/vscode"; printf "k\n" > "$R/tools/deep/er/README"; ln -s deep/er "$R/tools/cur"; printf "%s\n" "$TASKS" > "$R/tools/deep/vscode/tasks.json"
agent_step "10a tools/cur -> deep/er + tools/deep/vscode/tasks.json"; checkout_sees .vscode/tasks.json'
variant 10b '# the moved entry three links away: .husky -> a/h, a -> b, b -> c (c a directory)
mkdir -p "$R/c/h"; printf "#!/bin/sh\n" > "$R/c/h/README"; ln -s b "$R/a"; ln -s c "$R/b"; ln -s a/h "$R/.husky"
base_with "10b .husky -> a/h, a -> b, b -> c"
mkdir -p "$R/d/h"; printf "python3 tools/x.py\n" > "$R/d/h/pre-commit"; agent_step "10b-1 add d/h/pre-commit (unlinked yet)"
rm -rf "$R/c"; ln -s d "$R/c"; agent_step "10b-2 c: directory -> link d"; checkout_sees .husky/pre-commit'
variant 10c '# a gitlink met before `..`, replaced by a link
mkdir -p "$R/vscode"; printf "{}\n" > "$R/vscode/extensions.json"; ln -s sub/../vscode "$R/.vscode"
git init -q "$R/sub"; git -C "$R/sub" commit -q --allow-empty -m s; base_with "10c .vscode -> sub/../vscode, sub a gitlink"
mkdir -p "$R/x/y" "$R/x/vscode"; printf "%s\n" "$TASKS" > "$R/x/vscode/tasks.json"; printf "k\n" > "$R/x/y/README"; agent_step "10c-1 add x/vscode/tasks.json"
echo "    base sub entry: $(git -C "$S" ls-tree main sub)"
rm -rf "$R/sub"; g rm -q --cached sub; ln -s x/y "$R/sub"; agent_step "10c-2 sub: gitlink -> link x/y"; checkout_sees .vscode/tasks.json'
