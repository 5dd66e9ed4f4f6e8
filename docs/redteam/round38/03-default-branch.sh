#!/usr/bin/env bash
# Round 38, 03: the default branch (D-R177, D-R58) when the server's HEAD
# names an existing branch that probity.protectedRefs does not protect
# (a repository migrated from master to main whose HEAD was never moved:
# protectedRefs = refs/heads/main + refs/tags/*, HEAD -> master).
source "$(dirname "$0")/common.sh"
legacy_head() {
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  echo "    server HEAD -> $(git -C $S symbolic-ref HEAD), protected: $(git -C $S config --get-all probity.protectedRefs | tr '\n' ' ')"
}
# weaken_on_master: the agent pushes to unprotected master a commit whose
# policy drops the maintainer from the high tier (nothing judged there).
weaken_on_master() {
  g checkout -q -b evil-pol
  jq -c '.signatures.high = ["reviewer"]' $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  P1=$(commit_all "high needs a reviewer only")
  out=$(g push --no-verify origin $P1:refs/heads/master 2>&1); echo "    master <- weakened policy: $(grep -o 'ALLOW[^ ]*\|DENY[^ ]*' <<<"$out" | head -1) (master at $(git -C $S rev-parse --short master))"
  g checkout -q main
}
# high_commit: a crypto/ change (high: reviewer + maintainer) on main,
# reviewed and signed by the agent alone.
high_commit() {
  mkdir -p $R/crypto; printf "fn k(){ /* weak */ }\n" > $R/crypto/k.rs
  L=$(approve_live); sign agent $L; Y=$(commit_all "high change, agent only")
}
echo "== 38hu-ctl: control, the same HEAD setup, no weakened policy: a new protected tag at a high commit the agent alone signed"
variant38 huc '
  legacy_head; high_commit; g tag v9 $Y
  out=$(push_past refs/tags/v9); verdict "38hu-ctl tag v9 at high commit, agent only" refs/tags/v9 $Y "$out"
'
echo "== 38hu: HEAD names unprotected master; the agent pushes its own policy there; then a new protected tag at a high commit signed by the agent alone"
variant38 hu '
  legacy_head; weaken_on_master; high_commit
  out=$(push_past $Y:refs/heads/main); verdict "38hu main <- high commit, agent only (control)" main $Y "$out"
  g tag v9 $Y; out=$(push_past refs/tags/v9); verdict "38hu new tag v9 at the high commit, agent only" refs/tags/v9 $Y "$out"
  echo "    the root commit (the team policy, pushed before any review) has no note: the agent reviews and signs it too"
  ROOT=$(g rev-list --max-parents=0 HEAD); LR=$(approve_commit $ROOT); sign agent $LR
  for t in $(g for-each-ref --format="%(refname)" refs/remotes); do g update-ref -d $t; done; "$P" --cwd $R publish >/dev/null 2>&1; g fetch -q origin
  echo "    notes now on: $(g notes --ref=probity list | wc -l) commits"
  out=$(push_past refs/tags/v9); verdict "38hu new tag v9 at the high commit, history signed by the agent alone" refs/tags/v9 $Y "$out"
'
echo "== 38hv: HEAD names unprotected master (protected: main, feature, tags); round 36's 36rp (work staged before a revocation) with master pushed to a commit without a policy, so the default branch is ungoverned"
variant38 hv '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs "refs/heads/feature"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "38hv feature (agent, before revocation)" feature $Y "$out"
  g checkout -q -B main origin/main
  jq -c ".roles.reviewer -= [\"$AGENT\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  grep -v "^$AGENT " $R/.probity/allowed_signers > $IN/s && cp $IN/s $R/.probity/allowed_signers
  team_step "38hv revoke the agent on main (ci + alice)" ci alice
  git -C $S update-ref refs/heads/master main
  g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "38hv control: new tag v9 at the staged commit (master = main: HEAD governed)" refs/tags/v9 $Y "$out"
  g tag -d v9 >/dev/null
  g checkout -q -b nopol main; g rm -q -r .probity; P2=$(commit_all "no policy")
  out=$(g push --no-verify origin $P2:refs/heads/master 2>&1); echo "    master <- a commit without a policy: $(grep -o "ALLOW[^ ]*\|DENY[^ ]*" <<<"$out" | head -1)"
  g checkout -q main; g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "38hv new tag v9 at the staged commit, HEAD ungoverned" refs/tags/v9 $Y "$out"
  echo "$out" | grep -E "remote: .*ALLOW" | head -2
'
echo "== 38hw: the server HEAD is unborn (git init --bare with git's default master; the team pushes main); protected: refs/heads/*, refs/tags/*; round 36's 36rp unchanged"
variant38 hw '
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S symbolic-ref HEAD refs/heads/master; echo "    server HEAD -> $(git -C $S symbolic-ref HEAD) ($(git -C $S rev-parse -q --verify HEAD || echo unborn))"
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "38hw feature (agent, before revocation)" feature $Y "$out"
  g checkout -q -B main origin/main
  jq -c ".roles.reviewer -= [\"$AGENT\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  grep -v "^$AGENT " $R/.probity/allowed_signers > $IN/s && cp $IN/s $R/.probity/allowed_signers
  team_step "38hw revoke the agent on main (ci + alice)" ci alice
  g checkout -q -b re $Y; g rebase -q main 2>&1 | tail -1; Z=$(g rev-parse HEAD)
  L=$(approve_commit $Z); sign agent $L; out=$(push_past HEAD:refs/heads/main); verdict "38hw control: the staged change rebased onto main, agent signs" main $Z "$out"
  g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "38hw new tag v9 at the staged commit (HEAD unborn)" refs/tags/v9 $Y "$out"
  echo "$out" | grep -E "remote: .*ALLOW" | head -2
'
