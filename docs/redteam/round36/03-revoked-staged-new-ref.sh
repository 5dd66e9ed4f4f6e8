#!/usr/bin/env bash
# Round 36, 03: after the server's administrator revokes the agent's key,
# main refuses a fast-forward onto the commit the agent staged (signed by
# that key) on a protected feature branch before the revocation (01, 36rk).
# Does a NEW protected ref (a release tag, a release branch) at that same
# commit get judged, or is it "already published" (refs.rs
# new_ref_delivery: AlreadyPublished)?
source "$(dirname "$0")/common.sh"
for kind in tag branch; do
echo "== 36rn-$kind: a new protected $kind at a commit staged with a key revoked since"
variant36 rn '
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  cp $R/.probity/allowed_signers $W/server_signers; git -C $S config probity.allowedSignersFile $W/server_signers
  git -C $S config probity.requireSignature true
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "feature (agent, before revocation)" feature $Y "$out"
  grep -v "^$AGENT " $R/.probity/allowed_signers > $W/server_signers
  echo "    server signers now: $(cut -d" " -f1 $W/server_signers | tr "\n" " ")"
  out=$(git -C $R push --no-verify origin $Y:refs/heads/main 2>&1); verdict "control: main fast-forwarded to it" main $Y "$out"
  if [ '$kind' = tag ]; then
    g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "new protected tag v9 at the staged commit" refs/tags/v9 $Y "$out"
  else
    out=$(git -C $R push --no-verify origin $Y:refs/heads/release 2>&1); verdict "new protected branch release at the staged commit" release $Y "$out"
  fi
  echo "$out" | grep -E "remote: .*(ALLOW|nothing|deliver)" | head -3
'
done

echo "== 36rp: the same with the repository policy: ci + alice revoke the agent on main; a new protected tag at the commit the agent staged before"
variant36 rp '
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "feature (agent, before revocation)" feature $Y "$out"
  g checkout -q -B main origin/main
  jq -c ".roles.reviewer -= [\"$AGENT\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  grep -v "^$AGENT " $R/.probity/allowed_signers > $IN/s && cp $IN/s $R/.probity/allowed_signers
  team_step "revoke the agent (ci + alice)" ci alice
  g checkout -q -b re $Y; g rebase -q main 2>&1 | tail -1; Z=$(g rev-parse HEAD)
  L=$(approve_commit $Z); sign agent $L; out=$(push_past HEAD:refs/heads/main); verdict "control: the staged change rebased onto main, agent signs" main $Z "$out"
  g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "new protected tag v9 at the staged commit" refs/tags/v9 $Y "$out"
  echo "$out" | grep -E "remote: .*ALLOW" | head -2
'
