#!/usr/bin/env bash
# Merge commits whose second parent brings content, and a note reused for
# a commit with the same trees but another parent commit and message.
RT16=${RT16:-$(cd "$(dirname "$0")" && pwd)}
source "$RT16/common.sh"
setup_team >/dev/null
mkdir -p "$R/tools"; printf 'print(1)\n' > "$R/tools/a.py"; agent_step "05-0 base" >/dev/null
M0=$(smain main)
# side branch: one unreviewed high commit
g checkout -q -b side; mkdir -p "$R/crypto"; printf 'K="AKIAABCDEFGHIJKLMNOP"\n' > "$R/crypto/k.py"; commit_all "side: unreviewed" >/dev/null
# 05a: merge -s ours (tree = main's tree): the merge changes no bytes
g checkout -q main; g merge -q -s ours --no-edit side; Y=$(g rev-parse HEAD)
out=$(push_past main); verdict "05a merge -s ours bringing an unreviewed commit into main's history" main "$Y" "$out"
echo "$out" | grep -E "DENY|ALLOW" | head -2
g reset -q --hard "$M0"
# 05b: reviewed medium change on the side branch, real merge
g checkout -q -B side2 "$M0"; printf 'print(2)\n' > "$R/tools/b.py"; L=$(approve_live); sign agent "$L"; commit_all "side2: reviewed" >/dev/null
g checkout -q main; g merge -q --no-ff --no-edit side2; Y=$(g rev-parse HEAD)
out=$(push_past main); verdict "05b legit? --no-ff merge of a reviewed medium commit" main "$Y" "$out"
echo "$out" | grep -E "DENY|ALLOW" | head -2
g reset -q --hard "$M0"
# 05c: same trees, another commit: the reviewed commit re-made with a new
# message and author date (cherry-pick onto the same parent)
printf 'print(3)\n' > "$R/tools/c.py"; L=$(approve_live); sign agent "$L"; X=$(commit_all "c"); "$P" --cwd "$R" publish >/dev/null 2>&1
X=$(g rev-parse HEAD); Y=$(g commit-tree "$X^{tree}" -p "$M0" -m "c, another message"); g reset -q --hard "$Y"
out=$(push_past main); verdict "05c legit: same trees as the reviewed commit, new commit id" main "$Y" "$out"
echo "$out" | grep -E "DENY|ALLOW" | head -1
