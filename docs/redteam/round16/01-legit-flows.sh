#!/usr/bin/env bash
# Legit flows across features: a two-commit stack reviewed with
# start --range and pushed at once; a message-only amend of a reviewed
# commit; a rebase onto unrelated teammate work (rebase proof);
# an approved high change signed by alice from a second clone.
RT16=${RT16:-$(cd "$(dirname "$0")" && pwd)}
source "$RT16/common.sh"
setup_team >/dev/null
mkdir -p "$R/tools"
printf 'print("a")\n' > "$R/tools/a.py"; g add -A; g commit -qm "stack 1"
printf 'print("b")\n' > "$R/tools/b.py"; g add -A; g commit -qm "stack 2"
st=$(pj start --range origin/main..HEAD); echo "    range start: $(jq -c '[.. | objects | select(has("lineage_id")) | {lineage_id,risk_level}]' <<<"$st" | head -c 400)"
for L in $(jq -r '.. | objects | select(has("lineage_id")) | .lineage_id' <<<"$st" | sort -u); do
  lst=$(jq -c --arg l "$L" '[.. | objects | select(.lineage_id==$l)][0]' <<<"$st")
  approve_started "$lst" >/dev/null; sign agent "$L"
done
Y=$(g rev-parse HEAD); out=$(push_past main); verdict "01-1 legit stack of two medium commits (agent)" main "$Y" "$out"
# message-only amend of a reviewed commit before the push
printf 'print("c")\n' > "$R/tools/c.py"; L=$(approve_live); sign agent "$L"; commit_all "c" >/dev/null
g commit -q --amend -m "c, better message"; Y=$(g rev-parse HEAD)
out=$(push_past main); verdict "01-2 legit amend of the message after review" main "$Y" "$out"
# rebase onto a teammate's unrelated work
printf 'print("d")\n' > "$R/tools/d.py"; L=$(approve_live); sign agent "$L"; commit_all "d" >/dev/null
T=$W/team; git clone -q "$S" "$T"; printf 'x\n' > "$T/notes.txt"
( R=$T; L=$(approve_live); sign agent "$L"; commit_all "teammate" >/dev/null; push_past main >/dev/null )
g pull -q --rebase origin main 2>&1 | tail -2; Y=$(g rev-parse HEAD)
out=$(push_past main); verdict "01-3 legit rebase onto unrelated work" main "$Y" "$out"
# high change: agent reviews+signs; alice fetches the commit and notes from
# the agent's clone, signs in her own clone, publishes; the agent merges her
# notes and pushes (round 13's 04b flow)
mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
L=$(approve_live); sign agent "$L"; Y=$(commit_all "crypto key"); "$P" --cwd "$R" publish >/dev/null 2>&1
A=$W/alice; git clone -q "$S" "$A"; git -C "$A" config probity.signingKey "$W/keys/alice"
git -C "$A" fetch -q "$R" main:refs/remotes/agent/main "+refs/notes/probity:refs/notes/probity"
git -C "$A" merge -q --ff-only agent/main
git -C "$A" notes --ref=probity show "$Y" > "$IN/bundle.json"; "$P" --cwd "$A" bundle import "$IN/bundle.json" >/dev/null
"$P" --cwd "$A" attest --lineage "$L" --sign >/dev/null || echo "alice sign failed"
"$P" --cwd "$A" publish --range "$Y~1..$Y" >/dev/null 2>&1
g fetch -q "$A" +refs/notes/probity:refs/notes/probity-alice
g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-alice
out=$("$P" --cwd "$R" push origin main 2>&1); verdict "01-4 legit high, alice signs in her own clone" main "$Y" "$out"
