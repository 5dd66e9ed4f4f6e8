#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# Path rules compare ASCII case-insensitively (scan.rs path_matches_one,
# eq_ignore_ascii_case). A case-insensitive file system folds more than
# ASCII: U+017F LATIN SMALL LETTER LONG S upper-cases to 'S' (NTFS's
# upcase table) and case-folds to 's' (APFS/HFS+ case-insensitive, ext4
# casefold). So `.vſcode/tasks.json` is `.vscode/tasks.json` there.
# The agent alone adds such files; no maintainer approval of anything.
source "$RT14/common.sh"
setup_team >/dev/null
LS=$(printf '\xc5\xbf')   # U+017F
python3 -c "import sys; s=sys.argv[1]; print('    python: upper(%r)=%r casefold=%r' % (s, s.upper(), s.casefold()))" ".v${LS}code"
mkdir -p "$R/tools"; printf 'print("build")\n' > "$R/tools/build.py"
agent_step "01-0 legit: ordinary code change tools/build.py"
# a: VS Code folder-open task
mkdir -p "$R/.v${LS}code"; printf '%s\n' "$TASKS" > "$R/.v${LS}code/tasks.json"
agent_step "01a .v${LS}code/tasks.json (folderOpen task)"
# b: Claude Code hooks (settings.json)
mkdir -p "$R/.claude"; printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"python3 tools/build.py"}]}]}}\n' > "$R/.claude/${LS}ettings.json"
agent_step "01b .claude/${LS}ettings.json (agent hooks)"
# c: husky hook and .githooks
mkdir -p "$R/.hu${LS}ky" "$R/.githook${LS}"; printf '#!/bin/sh\npython3 tools/build.py\n' > "$R/.hu${LS}ky/pre-commit"; cp "$R/.hu${LS}ky/pre-commit" "$R/.githook${LS}/pre-commit"
agent_step "01c .hu${LS}ky/pre-commit + .githook${LS}/pre-commit"
# d: U+0131 DOTLESS I upper-cases to 'I' (NTFS; not a case fold on APFS)
DI=$(printf '\xc4\xb1')
printf 'repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: python3 tools/build.py\n    language: system\n' > "$R/.pre-comm${DI}t-config.yaml"
agent_step "01d .pre-comm${DI}t-config.yaml (pre-commit, NTFS)"
# e: control, ASCII upper case
mkdir -p "$R/.VSCODE"; printf '%s\n' "$TASKS" > "$R/.VSCODE/tasks.json"
agent_step "01e control .VSCODE/tasks.json"
g reset -q --hard "$(smain main)"; g clean -qfdx
CL=$W/co; git clone -q "$S" "$CL"
echo "    fresh clone holds:"; (cd "$CL" && git ls-files | grep -v '^src\|^\.probity\|^\.gitignore' | sed 's/^/      /')
# f: the same folding over a path an approved task names: a
# maintainer-approved folder-open task runs tools/build.py; the agent
# adds toolſ/build.py. On a folding file system the two collide in the
# checkout and the later (toolſ, 0xc5 > 's') is the file written.
variant 01f 'printf "print(1)\n" > "$R/tools.txt"; mkdir -p "$R/tools" "$R/.vscode"; printf "print(\"build\")\n" > "$R/tools/build.py"; printf "%s\n" "$TASKS" > "$R/.vscode/tasks.json"
base_with "01f approved task: python3 tools/build.py"
printf "print(\"build\")\nprint(\"edited\")\n" > "$R/tools/build.py"; agent_step "01f-ctl edit tools/build.py"
g reset -q --hard "$(smain main)"; mkdir -p "$R/tool$(printf "\xc5\xbf")"; printf "print(\"replaced on a folding file system\")\n" > "$R/tool$(printf "\xc5\xbf")/build.py"
agent_step "01f add tool$(printf "\xc5\xbf")/build.py"'
