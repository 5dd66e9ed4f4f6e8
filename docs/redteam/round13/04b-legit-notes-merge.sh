#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# Legit flow after D-R163: alice signs a high change in her own clone and
# publishes; the agent merges her notes with `git notes merge` (the trees
# git writes) and runs `probity push` (round 11's 04a, re-run on r13).
source "$RT13/common.sh"; setup_team >/dev/null
mkdir -p "$R/crypto"; printf 'pub fn enc() {}\n' > "$R/crypto/enc.rs"
L=$(approve_live); Y=$(commit_all "crypto: enc"); "$P" --cwd "$R" publish >/dev/null 2>&1
A=$W/alice; git clone -q "$S" "$A"; git -C "$A" config probity.signingKey "$W/keys/alice"
git -C "$A" fetch -q "$R" main:refs/remotes/agent/main "refs/notes/probity:refs/notes/probity"
git -C "$A" merge -q --ff-only agent/main
git -C "$A" notes --ref=probity show "$Y" > "$IN/bundle.json"; "$P" --cwd "$A" bundle import "$IN/bundle.json" >/dev/null
"$P" --cwd "$A" attest --lineage "$L" --sign >/dev/null || echo "alice sign failed"
"$P" --cwd "$A" publish --range "$Y~1..$Y" >/dev/null 2>&1
sign agent "$L"; "$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q "$A" refs/notes/probity:refs/notes/probity-alice
g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-alice
echo "    merged notes tree: $(g ls-tree refs/notes/probity | awk '{print $1}' | sort | uniq -c | tr '\n' ' ')"
out=$("$P" --cwd "$R" push origin main 2>&1); verdict "04b legit notes merge + probity push" main "$Y" "$out"
