#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# 01 in the CI range form: in a fresh CI clone (notes fetched), judge
#   a) the step-1 commit (the duplicate `.probity` blob): BASE..C
#   b) the crypto/AKIA commit on top, agent-signed only:   C..C2
# with `validate --gate pre-receive --range --ref refs/heads/main` (no
# --policy-base: in the attack's real order the default branch is at C by
# then, so naming it reads the same hidden policy).
source "$RT11/common.sh"
setup_team >/dev/null
BASE=$(g rev-parse HEAD); blob=$(printf 'x\n' | g hash-object -w --stdin)
T=$( lsentries "$R" HEAD | awk '$2==".probity"{print "100644 .probity '"$blob"'"} {print}' | rawtree "$R")
C=$(g commit-tree "$T" -p "$BASE" -m "marker"); g update-ref refs/heads/main "$C"
L1=$(approve_commit "$C"); sign agent "$L1"
ev=$(printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' | g hash-object -w --stdin)
ct=$(printf '100644 evil.rs %s\n' "$ev" | rawtree "$R")
T2=$( { lsentries "$R" "$T" | grep -v ' src '; echo "40000 crypto $ct"; lsentries "$R" "$T" | grep ' src '; } | rawtree "$R")
C2=$(g commit-tree "$T2" -p "$C" -m "crypto"); g update-ref refs/heads/main "$C2"
L2=$(approve_commit "$C2"); sign agent "$L2"
"$P" --cwd "$R" publish >/dev/null 2>&1
# the pushes go to an unprotected tag (accepted as pushed) so CI can fetch them
g push -q --no-verify origin "$C2:refs/tags/pr" refs/notes/probity 2>/dev/null
CIC=$W/ci; git clone -q "$S" "$CIC"; git -C "$CIC" fetch -q origin refs/tags/pr:refs/tags/pr "+refs/notes/probity:refs/notes/probity"
for r in "$BASE..$C" "$C..$C2" "$BASE..$C2"; do
  out=$("$P" --json --cwd "$CIC" validate --gate pre-receive --range "$r" --ref refs/heads/main 2>&1)
  echo "06 CI range ${r%%..*}..${r##*..} (short: ${r:0:7}..${r##*..}): $(sed -n '/^{/,$p' <<<"$out" | jq -r '"\(.decision) \(.reason_code)"' 2>/dev/null)"
  [ -n "${VERBOSE:-}" ] && echo "$out" | head -30
done
