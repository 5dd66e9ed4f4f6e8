#!/usr/bin/env bash
# Round 36, 01: seams of the server gate itself (not the risk reader).
# Each case against its own fresh team (lib.sh's setup_team: high needs
# reviewer + maintainer, medium a reviewer; the agent is a reviewer).
source "$(dirname "$0")/common.sh"

echo "== 36sd: sideways force-push of main onto a reviewed medium commit that drops a reviewed high fix"
variant36 sd '
  mkdir -p $R/crypto; printf "fn weak() {}\n" > $R/crypto/k.rs; team_step "crypto base" ci alice >/dev/null
  OLD=$(smain main)
  printf "fn strong() {}\n" > $R/crypto/k.rs; team_step "crypto fix (high)" ci alice
  # the agent branches at the commit before the fix, makes a medium change there
  g checkout -q -b side $OLD; printf "fn side() {}\n" > $R/src/side.rs
  L=$(approve_live); sign agent $L; Y=$(commit_all "side medium")
  out=$(push_past HEAD:refs/heads/side); verdict "side branch (agent alone)" side $Y "$out"
  out=$(push_past +HEAD:refs/heads/main); verdict "main forced sideways to side (drops the crypto fix)" main $Y "$out"
'

echo "== 36tg: protected tags; a release tag moved (forced) from a reviewed commit to an unreviewed one"
variant36 tg '
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  printf "fn a() {}\n" > $R/src/a.rs; team_step "reviewed" agent >/dev/null
  g tag v1; out=$(push_past refs/tags/v1); verdict "tag v1 on a reviewed commit" refs/tags/v1 $(g rev-parse v1) "$out"
  g checkout -q -b evil main~1; mkdir -p $R/crypto; printf "AKIA1234\n" > $R/crypto/k.rs; U=$(commit_all "unreviewed high")
  git -C $R push -q origin HEAD:refs/for/evil 2>/dev/null
  g tag -f v1 $U >/dev/null; out=$(push_past +refs/tags/v1); verdict "v1 forced onto the unreviewed commit" refs/tags/v1 $U "$out"
  g tag v2 $U; out=$(push_past refs/tags/v2); verdict "new tag v2 on the unreviewed commit (held by refs/for/evil)" refs/tags/v2 $U "$out"
'

echo "== 36pu: a policy change landed on an unprotected ref (refs/for/*), then main fast-forwarded to it"
variant36 pu '
  jq -c ".roles.maintainer += [\"$AGENT\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  L=$(approve_live); sign agent $L; P1=$(commit_all "agent becomes maintainer")
  git -C $R push -q --no-verify origin HEAD:refs/for/pol 2>&1 | tail -1
  echo "    refs/for/pol holds: $(smain refs/for/pol | cut -c1-12)"
  out=$(push_past main); verdict "main fast-forwarded to the policy commit (agent alone)" main $P1 "$out"
  mkdir -p $R/crypto; printf "AKIA1234\n" > $R/crypto/k.rs
  L=$(approve_live); sign agent $L; Y=$(commit_all "high on top")
  out=$(push_past main); verdict "policy + high on top in one push (agent alone)" main $Y "$out"
'

echo "== 36kk: one key filling two roles (agent signs twice; agent adds its key for alice in the same push)"
variant36 kk '
  mkdir -p $R/crypto; printf "AKIA1234\n" > $R/crypto/k.rs
  L=$(approve_live); sign agent $L; sign agent $L; Y=$(commit_all "high, agent twice")
  out=$(push_past main); verdict "high signed twice by the agent" main $Y "$out"
  fresh
  keygen fake; printf "%s %s\n" "$ALICE" "$(cat $W/keys/fake.pub)" >> $R/.probity/allowed_signers
  L=$(approve_live); sign agent $L; sign fake $L; K=$(commit_all "agent adds a key for alice")
  mkdir -p $R/crypto; printf "AKIA1234\n" > $R/crypto/k.rs
  L=$(approve_live); sign agent $L; sign fake $L; Y=$(commit_all "high signed by agent + fake alice")
  out=$(push_past main); verdict "key for alice added + used in the same push" main $Y "$out"
'

echo "== 36rk: a key revoked in the server's allowedSignersFile; a commit the agent staged before on a protected feature branch"
variant36 rk '
  cp $R/.probity/allowed_signers $W/server_signers; git -C $S config probity.allowedSignersFile $W/server_signers
  git -C $S config probity.requireSignature true
  printf "fn staged() {}\n" > $R/src/staged.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "staged medium")
  out=$(push_past HEAD:refs/heads/feature); verdict "feature (agent, before revocation)" feature $Y "$out"
  grep -v "^$AGENT " $R/.probity/allowed_signers > $W/server_signers   # the administrator revokes the agent key
  echo "    server signers now: $(cut -d" " -f1 $W/server_signers | tr "\n" " ")"
  g checkout -q -b other main; printf "fn other() {}\n" > $R/src/other.rs; L=$(approve_live); sign agent $L; Z=$(commit_all "after revocation")
  out=$(push_past HEAD:refs/heads/other); verdict "control: a new commit signed by the revoked key" other $Z "$out"
  out=$(git -C $R push --no-verify origin $Y:refs/heads/main 2>&1); verdict "main fast-forwarded to the staged commit (plain push)" main $Y "$out"
'
