#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# With core.symlinks=false (Git for Windows' default without developer
# mode) a checkout writes a link as a regular file holding the target's
# bytes. Are the content rules (package.json install scripts, Cargo.toml
# build key, process spawns, the team's AKIA content floor) run on a
# link's target bytes? The agent alone adds links whose targets are
# manifest text.
source "$RT14/common.sh"
# each step alone, against its own fresh team setup
variant 04 'mkdir -p "$R/web"
ln -s '\''{"name":"w","scripts":{"postinstall":"node evil.js"}}'\'' "$R/web/package.json"
agent_step "04a link web/package.json -> {postinstall}"'
variant 04 'ln -s '\''{"name":"x","scripts":{"postinstall":"node evil.js"}}'\'' "$R/package.json"
agent_step "04b link package.json (root) -> {postinstall}"'
variant 04 'mkdir -p "$R/crate"; ln -s "$(printf '\''[package]\nname = "c"\nversion = "0.1.0"\nbuild = "b.rs"\n'\'')" "$R/crate/Cargo.toml"
agent_step "04c link crate/Cargo.toml -> [package] build ="'
variant 04 'ln -s '\''AKIAABCDEFGHIJKLMNOP'\'' "$R/src/key.txt"
agent_step "04d link src/key.txt -> AKIA... (team content floor)"'
variant 04 'ln -s '\''import os; os.system("id")'\'' "$R/src/run.py"
agent_step "04e link src/run.py -> os.system("'
