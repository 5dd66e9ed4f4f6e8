#!/usr/bin/env bash
# Round 39, 03: D-R177's addendum (HEAD governs only from a protected ref
# holding the policy; otherwise a new protected ref is measured against
# `git merge-base --octopus --all` of every protected tip). Round 36's 36rp
# shape throughout: the agent (a reviewer then) stages Y on a protected
# branch; ci + alice revoke it on main; the agent then tries to bring Y
# to a new protected ref. Every LANDED of Y is a hole.
source "$(dirname "$0")/common.sh"
run() { local id=$1 title=$2; shift 2; ( echo "== $id: $title"; variant39 $id "$@" ) > $OUTD/$id 2>&1 & }
OUTD=$(mktemp -d /tmp/r39-03.XXXXXX)
# stage_and_revoke: Y on protected feature (agent), then the revocation on main.
stage_and_revoke() {
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "    feature <- Y (agent, before revocation)" feature $Y "$out"
  g checkout -q -B main origin/main
  jq -c ".roles.reviewer -= [\"$AGENT\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  grep -v "^$AGENT " $R/.probity/allowed_signers > $IN/s && cp $IN/s $R/.probity/allowed_signers
  team_step "    revoke the agent on main (ci + alice)" ci alice
}
unborn() { git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"; git -C $S symbolic-ref HEAD refs/heads/master; }
run 39hw 'round 38 38hw again: unborn HEAD (refs/heads/master), refs/heads/* + refs/tags/* protected; tag v9 at the staged Y' '
  unborn; stage_and_revoke
  g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "39hw new tag v9 at Y (HEAD unborn)" refs/tags/v9 $Y "$out"
'
run 39hv 'round 38 38hv again: HEAD -> unprotected master pushed to a commit without a policy; protected main, feature, tags; tag v9 at Y' '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs refs/heads/feature; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  stage_and_revoke
  g checkout -q -b nopol main; g rm -q -r .probity; P2=$(commit_all "no policy")
  out=$(g push --no-verify origin $P2:refs/heads/master 2>&1); echo "    master <- a commit without a policy: $(grep -o "ALLOW[: ]*[a-z_]*\|DENY[: ]*[a-z_]*" <<<"$out" | head -1)"
  g checkout -q main; g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "39hv new tag v9 at Y, HEAD ungoverned" refs/tags/v9 $Y "$out"
'
run 39h2 'unborn HEAD; one atomic push creating two protected refs at Y (branch feature2 and tag v9), then each alone' '
  unborn; stage_and_revoke
  g tag v9 $Y; out=$(git -C $R push --no-verify --atomic origin $Y:refs/heads/feature2 refs/tags/v9 2>&1)
  verdict "39h2 feature2 at Y (atomic with v9)" feature2 $Y "$out"; verdict "39h2 tag v9 at Y (atomic with feature2)" refs/tags/v9 $Y "$out"
  out=$(git -C $R push --no-verify origin $Y:refs/heads/feature2 2>&1); verdict "39h2 feature2 at Y alone" feature2 $Y "$out"
'
run 39hd 'unborn HEAD; the agent deletes protected main (so the staged feature is the only protected tip, and its common ancestor is Y itself), then tag v9 at Y' '
  unborn; stage_and_revoke
  out=$(git -C $R push --no-verify origin :refs/heads/main 2>&1); echo "    delete main: $(grep -o "ALLOW[: ]*[a-z_]*\|DENY[: ]*[a-z_]*" <<<"$out" | head -1) (main at $(smain main || echo deleted))"
  g tag v9 $Y; out=$(git -C $R push --no-verify origin refs/tags/v9 2>&1); verdict "39hd new tag v9 at Y" refs/tags/v9 $Y "$out"
'
run 39hf 'unborn HEAD; the agent force-rewinds protected main to the fork point (before the revocation), then tag v9 at Y' '
  unborn; F=$(g rev-parse main); stage_and_revoke
  out=$(git -C $R push --no-verify --force origin $F:refs/heads/main 2>&1); echo "    rewind main: $(grep -o "ALLOW[: ]*[a-z_]*\|DENY[: ]*[a-z_]*" <<<"$out" | head -1) (main at $(smain main | cut -c1-12))"
  g tag v9 $Y; out=$(git -C $R push --no-verify --atomic --force origin $F:refs/heads/main refs/tags/v9 2>&1); verdict "39hf tag v9 at Y, atomic with a rewind of main" refs/tags/v9 $Y "$out"
'
wait
for id in 39hw 39hv 39h2 39hd 39hf; do cat $OUTD/$id; done
rm -rf $OUTD
