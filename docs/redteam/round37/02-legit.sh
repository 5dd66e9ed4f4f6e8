#!/usr/bin/env bash
# Round 37, 02: legitimate flows beside the attacks; each should land.
source "$(dirname "$0")/common.sh"
eval "$(sed -n '/^escalate()/,/^}/p;/^rev()/p;/^finish()/,/^}/p' "$(dirname "$0")/01-escalation.sh")"
eval "$(sed -n '/^runner_policy()/,/^}/p;/^ci_review()/,/^}/p' "$(dirname "$0")/03-checks-sigs.sh")"
echo "== L1 a real escalation resolved by alice: recover (her authorization), agent + alice sign the successor"
variant37 l1 '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky check" --actor alice --authorization "OPS-1 alice")
  L2=$(jq -r .lineage_id <<<"$s"); echo "    $(finish $L2)"; sign agent $L2; sign alice $L2; Y=$(commit_all "escalated, alice authorized")
  out=$(push_past main); verdict "L1 escalation + alice" main $Y "$out"
'
echo "== L2 the 37ei chain with alice signing the approved leaf"
variant37 l2 '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky" --actor alice --authorization "OPS-1 alice")
  L2=$(jq -r .lineage_id <<<"$s"); pj invalidate --lineage $L2 --reason "start over" >/dev/null
  s=$(pj recover --predecessor-lineage $L2 --expected-predecessor-revision $(rev $L2) --disposition invalidated --reason "start over" --actor agent)
  L3=$(jq -r .lineage_id <<<"$s"); echo "    $(finish $L3)"; sign agent $L3; sign alice $L3; Y=$(commit_all "recovered twice, alice signs")
  out=$(push_past main); verdict "L2 escalation chain + alice" main $Y "$out"
'
echo "== L3 a dispute authorized by alice: agent + alice sign"
variant37 l3 '
  printf "fn a() {\n  panic!()\n}\n" > $R/src/a.rs
  st=$(pj start); L=$(jq -r .lineage_id <<<"$st")
  printf "{\"findings\":[{\"location\":\"src/a.rs:2\",\"severity\":\"BLOCKER\",\"claim\":\"panics\",\"proof_refs\":[\"t fails\"],\"evidence_class\":\"deterministic\",\"causal_disposition\":\"introduced\"}],\"evidence\":[\"ran t\"]}" > $IN/b.json
  j=$(pj finalize --lineage $L --result reliability=$IN/b.json); F=$(jq -r ".findings[0].id" <<<"$j")
  printf "false positive\n" > $IN/why.txt; pj dispute --lineage $L --finding $F --evidence $IN/why.txt --reason fp --actor alice --authorization "OPS-2 alice" >/dev/null
  printf "tests passed\n" > $IN/ev.txt; pj finalize --lineage $L --evidence $IN/ev.txt >/dev/null
  sign agent $L; sign alice $L; Y=$(commit_all "disputed, alice"); out=$(push_past main); verdict "L3 dispute + alice" main $Y "$out"
'
echo "== L4 a required check re-run by ci in its own clone (runner policy), agent + ci sign"
variant37 l4 '
  runner_policy
  printf "fn a() {}\n" > $R/src/a.rs; Y=$(commit_all "src change the check passes")
  ci_review $Y "L4 check run by ci"
'
echo "== L5 one high commit: agent review; alice signs the same lineage (copied envelopes refused in 37cs, so this is the way)"
variant37 l5 '
  mkdir -p $R/crypto; printf "fn k(){}\n" > $R/crypto/k.rs; team_step "L5 high, agent + alice" agent alice
'
