#!/usr/bin/env bash
# Two clones, one commit. X is a high change (crypto/k.rs). Needs
# reviewer + maintainer. The agent controls clone A; clone B is a second
# clone (alice's, or another agent clone).
# a) A: lineage LA signed by the agent; B: an independent lineage LB of
#    the same commit signed by alice only. Both notes merged on X. Two
#    reviews, each with half the signatures: does the server add them up?
# b) transplant: alice signed LA' for a benign earlier high commit X1
#    (landed). The agent's note for a new high commit X2 carries LB (agent)
#    plus X1's bundle with alice's attestation: is alice counted for X2?
# c) legit: alice signs the agent's own lineage in clone B (imported), notes
#    merged: lands.
RT17=${RT17:-$(cd "$(dirname "$0")" && pwd)}
source "$RT17/common.sh"
cloneB() { B=$W/cloneB; git clone -q "$S" "$B"; git -C "$B" fetch -q "$R" "+$1:refs/heads/x" "+refs/notes/probity:refs/notes/probity" 2>/dev/null; git -C "$B" checkout -q x; }
signB() { git -C "$B" config probity.signingKey "$W/keys/$1"; "$P" --cwd "$B" attest --lineage "$2" --sign >/dev/null || echo "    sign in B failed"; }
merge_from_B() { "$P" --cwd "$B" publish --range "$1~1..$1" >/dev/null 2>&1
  g fetch -q "$B" "+refs/notes/probity:refs/notes/probity-b"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-b; }
va() { mkdir -p $R/crypto; printf 'pub fn k() {}\n' > $R/crypto/k.rs
  LA=$(approve_live); sign agent "$LA"; X=$(commit_all "X high")
  "$P" --cwd "$R" publish >/dev/null 2>&1
  cloneB "$X"; st=$("$P" --json --cwd "$B" start --commit "$X"); echo "    B start: $(jq -c '{risk_level,lineage_id,state}' <<<"$st" 2>&1 | head -2)"
  LB=$(R=$B approve_started "$st"); signB alice "$LB"; echo "    LA=$LA LB=$LB"
  merge_from_B "$X"; echo "    note on X: $(g notes --ref=probity show "$X" | grep -o 'review-[0-9a-f]\{16\}' | sort -u | tr '\n' ' ')"
  out=$(g push --no-verify --atomic origin "$X:refs/heads/main" refs/notes/probity 2>&1)
  verdict "05a two lineages of X: LA signed agent (clone A), LB signed alice (clone B)" main "$X" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
vb() { mkdir -p $R/crypto; printf 'pub fn k() {}\n' > $R/crypto/k.rs
  L1=$(approve_live); sign agent "$L1"; sign alice "$L1"; X1=$(commit_all "X1 high benign"); out=$(push_past main); verdict "    05b-0 X1 (agent + alice)" main "$X1" "$out"
  printf 'pub fn k() { /* AKIA0000000000000000 */ }\n' > $R/crypto/k.rs
  L2=$(approve_live); sign agent "$L2"; X2=$(commit_all "X2 high")
  "$P" --cwd "$R" publish >/dev/null 2>&1
  { g notes --ref=probity show "$X2"; g notes --ref=probity show "$X1"; } > $IN/both; g notes --ref=probity add -f -F $IN/both "$X2"
  out=$(g push --no-verify --atomic origin "$X2:refs/heads/main" refs/notes/probity 2>&1)
  verdict "05b X2 (agent alone) with X1's note (alice's attestation) appended" main "$X2" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
vc() { mkdir -p $R/crypto; printf 'pub fn k() {}\n' > $R/crypto/k.rs
  LA=$(approve_live); sign agent "$LA"; X=$(commit_all "X high"); "$P" --cwd "$R" publish >/dev/null 2>&1
  cloneB "$X"; git -C "$B" notes --ref=probity show "$X" > $IN/bundle.json
  imp=$("$P" --cwd "$B" bundle import $IN/bundle.json 2>&1 | head -1); echo "    B bundle import: $imp"
  signB alice "$LA"; merge_from_B "$X"
  out=$(g push --no-verify --atomic origin "$X:refs/heads/main" refs/notes/probity 2>&1)
  verdict "05c legit: alice signs the agent's lineage in clone B" main "$X" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
for v in ${ONLY:-va vb vc}; do variant17 "$v" "$v"; done
