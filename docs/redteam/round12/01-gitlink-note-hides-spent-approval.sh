#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# Two readings of one notes tree: the replay check (approval_spent) finds
# earlier deliveries of an approval with `git grep` over the notes tree
# (Repo::notes_naming_each), and reads a history commit's note by path
# lookup (Repo::read_note, `<notes>:<path>`). git grep skips gitlink
# entries (mode 160000); the path lookup resolves the entry to its object
# whatever the mode, and read_note takes it if that object is a blob.
# The grow-only rule (changed_notes) compares blob ids only, so a notes
# update that changes just the MODE of a held note (100644 -> 160000) is
# no change to it.
# Story: a crypto/AKIA change X1 (high: agent + alice) lands; a reviewed
# revert R (agent + alice) lands. The agent, alone, wants X1 back:
#  control: X2 = (tree of X1, parent R) with X1's note copied: approval_spent.
#  attack:  the same, plus X1's note entry turned into a gitlink.
source "$RT12/common.sh"
setup_team >/dev/null
X1=$(land_high); echo "X1 (crypto/AKIA, agent+alice) landed: ${X1:0:12}"
RV=$(land_revert "$X1"); echo "R  (revert, agent+alice) landed:   ${RV:0:12}"
replay() { # replay -> X2 with X1's note lines
  local X2; X2=$(g commit-tree "$X1^{tree}" -p "$RV" -m "crypto: key (again)")
  g notes --ref=probity add -f -C "$(g notes --ref=probity list "$X1")" "$X2"
  g update-ref refs/heads/main "$X2"; echo "$X2"
}
g fetch -q origin '+refs/notes/probity:refs/notes/probity'
BASE_NOTES=$(g rev-parse refs/notes/probity)
# control
X2=$(replay)
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "01-control-replay" main "$X2" "$out"
# attack: the same X2, and X1's note entry as a gitlink (same blob id)
g update-ref refs/notes/probity "$BASE_NOTES"; g update-ref refs/heads/main "$RV"
X2=$(replay)
NT=$(ls_notes_raw refs/notes/probity | awk -v x="$X1" '$2==x{$1="160000"} {print}' | rawtree "$R")
echo "notes tree after surgery:"; g ls-tree "$NT" | sed 's/^/    /'
N=$(notes_commit "$NT" "$(g rev-parse refs/notes/probity)")
LIN=$(g notes --ref=probity show "$X2" | head -1 | jq -r '.. | .lineage_id? // empty' | head -1)
echo "  lineage of X1's approval: $LIN"
echo "  git grep -l of it over the new notes: $(g grep -l -F "$LIN" "$N" -- | sed "s/^$N://" | cut -c1-12 | tr '\n' ' ')(X2=${X2:0:12}; X1=${X1:0:12} not listed)"
echo "  path lookup $N:$X1 -> $(g cat-file -t "$N:$X1")"
echo "  diff-tree old-notes new-notes: $(g diff-tree -r "$BASE_NOTES" "$N" | tr '\t\n' '  ')"
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "01-attack-gitlink-note" main "$X2" "$out"
echo "$out" | grep -E "remote:" | grep -iE "allow|deny" | head -4 | cut -c1-220 | sed 's/^/    /'
echo "  server: main:crypto/key.rs = $(git -C "$S" show main:crypto/key.rs 2>/dev/null)"
# The CI form over the same update, in a fresh clone with the notes.
CIC=$W/ci; git clone -q "$S" "$CIC"; git -C "$CIC" fetch -q origin "+refs/notes/probity:refs/notes/probity"
out=$("$P" --json --cwd "$CIC" validate --gate pre-receive --range "$RV..$X2" --ref refs/heads/main 2>&1)
echo "01-ci-range-form $RV..$X2: $(sed -n '/^{/,$p' <<<"$out" | jq -r '"\(.decision) \(.reason_code)"' 2>/dev/null)"
