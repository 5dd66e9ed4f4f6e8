#!/usr/bin/env bash
# Round 37, 03: required checks on the wrong tree or with the change's own
# check program; signatures copied between lineages.
source "$(dirname "$0")/common.sh"
# redigest FILE: recompute a bundle line's digest after an edit.
redigest() { python3 - "$1" <<'PY'
import json, sys, hashlib
p = sys.argv[1]; b = json.load(open(p)); b.pop("digest")
b["attestations"].sort(key=lambda e: json.dumps(e, sort_keys=True, separators=(",", ":")))
dom = b"probity/review-bundle/v2" if b["schema"].endswith("/v2") else b"probity/review-bundle/v1"
body = json.dumps(b, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
b["digest"] = "sha256:" + hashlib.sha256(dom + b"\0" + body).hexdigest()
open(p, "w").write(json.dumps(b, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
PY
}
# runner_policy: land (agent + ci + alice) a policy where medium needs a
# reviewer (agent) AND a runner (ci, which re-runs the required check),
# and a required check `python3 scripts/check.py` over src/**.
runner_policy() {
  jq -c '.roles.reviewer=["'$AGENT'"] | .roles.runner=["'$CI'"] | .signatures.medium=["reviewer","runner"] | .signatures.high=["reviewer","runner","maintainer"]' $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  mkdir -p $R/scripts
  printf 'import os, sys\nsys.exit(1 if "panic" in open("src/a.rs").read() else 0) if os.path.exists("src/a.rs") else sys.exit(0)\n' > $R/scripts/check.py
  printf '{"schema":"probity-checks/v1","checks":[{"name":"tests","paths":["src/**","scripts/**"],"argv":["python3","scripts/check.py"]}]}' > $R/.probity/checks.json
  team_step "the runner policy + required check (agent, ci, alice)" agent ci alice
}
# ci_review Y: ci, in its own clone, reviews Y and re-runs the required
# check on it (--evidence-cmd) and signs; the agent's signature over the
# same statement is added there too (an attestation is over the statement,
# wherever it is made); then ci's clone pushes Y to main with the notes.
# Prints the verdict.
ci_review() {
  local Y=$1 C=$W/ci L st args=() out
  git -C $R push -q --no-verify origin $Y:refs/for/x 2>/dev/null
  rm -rf $C; git clone -q $S $C; git -C $C fetch -q origin refs/for/x; git -C $C checkout -q FETCH_HEAD
  st=$("$P" --json --cwd $C start --commit $Y); L=$(jq -r .lineage_id <<<"$st")
  printf '{"findings":[],"evidence":["read the diff"]}\n' > $IN/r.json
  for lens in $(jq -r '.selected_lenses[]?' <<<"$st"); do args+=(--result "$lens=$IN/r.json"); done
  echo "    ci's check run: $("$P" --json --cwd $C finalize --lineage $L "${args[@]}" --evidence-cmd -- python3 scripts/check.py | jq -c '{state,escalation_reason,risk_level}')"
  for k in ci agent; do git -C $C config probity.signingKey $W/keys/$k; "$P" --cwd $C attest --lineage $L --sign >/dev/null 2>&1 || echo "    sign $k failed"; done
  out=$( R=$C; push_past $Y:refs/heads/main ); verdict "$2" main $Y "$out"
}
echo "== 37ck0 control: a src change the required check fails, ci re-runs it"
variant37 ck0 '
  runner_policy
  printf "fn a() { panic!() }\n" > $R/src/a.rs; Y=$(commit_all "src change the check refuses")
  ci_review $Y "37ck0 check fails"
'
echo "== 37ck1: the same change also rewrites the check program the protected policy names (payload in it)"
rm -f $PWN
variant37 ck1 '
  runner_policy
  printf "fn a() { panic!() }\n" > $R/src/a.rs
  printf "import sys\n$PYPAY\nsys.exit(0)\n" > $R/scripts/check.py
  echo "    risk of the change: $(risk_of_live)"
  Y=$(commit_all "src change + check.py rewritten")
  ci_review $Y "37ck1 check program rewritten by the change (ci re-ran it, agent + ci)"
'
[ -e $PWN ] && echo "    PAYLOAD RAN in ci's check run ($PWN)"; rm -f $PWN
echo "== 37ckp: the change rewrites .probity/checks.json itself (argv true)"
variant37 ckp '
  runner_policy
  printf "fn a() {}\n" > $R/src/a.rs
  jq -c ".checks[0].argv=[\"true\"]" $R/.probity/checks.json > $IN/c && cp $IN/c $R/.probity/checks.json
  echo "    risk: $(risk_of_live)"
  Y=$(commit_all "checks.json weakened"); ci_review $Y "37ckp checks.json weakened (agent + ci)"
'
# 37ckr (check evidence from the pre-rebase tree carried by the rebase proof)
# was not run to a meaningful verdict this round: see README.
echo "== 37cs1: alice's attestation from a landed high lineage copied into the agent's high lineage of other trees"
variant37 cs1 '
  mkdir -p $R/crypto; printf "fn k1(){}\n" > $R/crypto/k1.rs; team_step "high 1 (agent, alice)" agent alice
  Y1=$(g rev-parse HEAD); g notes --ref=probity show $Y1 | jq -c "[.attestations[] | select((.payload|@base64d|fromjson|.predicate.lineage_id) != null)]" > $IN/env1.json
  printf "fn k2(){}\n" > $R/crypto/k2.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "high 2"); "$P" --cwd $R publish >/dev/null 2>&1
  g notes --ref=probity show $Y > $IN/n.json; jq -c --slurpfile e $IN/env1.json ".attestations += \$e[0]" $IN/n.json > $IN/n2.json; redigest $IN/n2.json
  echo "    envelopes now: $(jq ".attestations|length" $IN/n2.json)"
  g notes --ref=probity add -f -F $IN/n2.json $Y
  out=$(push_past main); verdict "37cs1 alice envelope of another lineage/trees copied" main $Y "$out"
'
echo "== 37cs2: the same trees, two lineages: alice signed L1 in her clone; the agent moves her envelope onto its own L2"
variant37 cs2 '
  mkdir -p $R/crypto; printf "fn k(){}\n" > $R/crypto/k.rs; Y=$(commit_all high)
  L1=$(approve_commit $Y); sign alice $L1; "$P" --cwd $R publish --range "$Y~1..$Y" >/dev/null 2>&1
  g notes --ref=probity show $Y | jq -c ".attestations" > $IN/env1.json
  g notes --ref=probity remove $Y 2>/dev/null; rm -rf $R/.git/probity
  L2=$(approve_commit $Y); sign agent $L2; "$P" --cwd $R publish --range "$Y~1..$Y" >/dev/null 2>&1
  g notes --ref=probity show $Y > $IN/n.json; echo "    L1=$L1 L2=$(jq -r .lineage_id $IN/n.json)"
  jq -c --slurpfile e $IN/env1.json ".attestations += \$e[0]" $IN/n.json > $IN/n2.json; redigest $IN/n2.json
  g notes --ref=probity add -f -F $IN/n2.json $Y
  out=$(push_past main); verdict "37cs2 alice envelope of L1 moved onto L2 (same trees)" main $Y "$out"
'
