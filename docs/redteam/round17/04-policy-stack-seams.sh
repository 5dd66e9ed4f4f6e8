#!/usr/bin/env bash
# D-R172 seams. C1 (signed ci + alice) revokes the agent (no longer a
# reviewer, key removed from allowed_signers); C2 (child of C1) is an
# ordinary medium edit signed by the agent alone. Pushed C1 then C2 (two
# pushes) C2 is refused (round 16's 03c); D-R172 refuses them in one push.
# a) one push, two refs: C1 to main, C2 to a new protected branch
# b) C1 first pushed to an unprotected ref (refs/for/c1), then C1+C2 to main
# c) C1.5 (ci alone) between the policy commit and C2, one push
# d) C1 only removes the agent's key from allowed_signers (roles unchanged)
RT17=${RT17:-$(cd "$(dirname "$0")" && pwd)}
source "$RT17/common.sh"
c1_signed() { eval "$1"; local L; L=$(approve_live); sign ci "$L"; sign alice "$L"; commit_all "C1 policy change"; }
c2_agent() { eval "$1"; echo "    C2 start: $(risk_of_live)" >&2; local L; L=$(approve_live); sign agent "$L"; commit_all "C2 agent"; }
REVOKE='jq -c ".roles.reviewer = [\"$CI\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json && grep -v ^$AGENT $R/.probity/allowed_signers > $IN/a && cp $IN/a $R/.probity/allowed_signers'
KEYONLY='grep -v ^$AGENT $R/.probity/allowed_signers > $IN/a && cp $IN/a $R/.probity/allowed_signers'
base() { mkdir -p "$R/tools"; printf "print(1)\n" > "$R/tools/a.py"; agent_step "base" >/dev/null; }
va() { base; C1=$(c1_signed "$REVOKE"); Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
  out=$(push_past "$C1:refs/heads/main" "$Y:refs/heads/feature")
  verdict "04a-main C1 to main" main "$C1" "$out"; verdict "04a-feature C2 (agent alone, revoked by C1) to new branch feature, same push" feature "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
vb() { base; C1=$(c1_signed "$REVOKE"); Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
  out=$(push_past "$C1:refs/for/c1"); echo "    C1 to refs/for/c1: $(echo "$out" | grep -E "ALLOW|DENY|nothing|new reference" | head -2 | tr '\n' ' ')"
  out=$(push_past "$Y:refs/heads/main"); verdict "04b C1 pre-published on refs/for/c1, then C1+C2 to main" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3
  out=$(push_past "$C1:refs/heads/main"); verdict "    04b control: C1 alone to main" main "$C1" "$out"
  out=$(push_past "$Y:refs/heads/main"); verdict "    04b control: then C2 to main" main "$Y" "$out"; }
vc() { base; C1=$(c1_signed "$REVOKE")
  printf "x\n" > "$R/tools/b.txt"; L=$(approve_live); sign ci "$L"; commit_all "C1.5 ci" >/dev/null
  Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
  out=$(push_past main); verdict "04c C1 policy, C1.5 (ci), C2 (agent alone), one push" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
vd() { base; C1=$(c1_signed "$KEYONLY"); Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
  out=$(push_past main); verdict "04d C1 removes only the agent's key, C2 agent alone, one push" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3; }
for v in ${ONLY:-va vb vc vd}; do variant17 "$v" "$v"; done
