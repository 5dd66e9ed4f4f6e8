#!/usr/bin/env bash
# Round 37, 01: escalation bypass. A medium change escalates (a failing
# check: evidence_failed). The policy has `authorize: [maintainer]`, so an
# approval resting on the recovery of an escalation needs alice.
source "$(dirname "$0")/common.sh"
# escalate: a medium change, finalized with a check that fails -> escalated.
escalate() {
  printf "fn a() { panic!() }\n" > $R/src/a.rs
  st=$(pj start); E=$(jq -r .lineage_id <<<"$st")
  printf '{"findings":[],"evidence":["read the diff"]}\n' > $IN/r.json
  out=$(pj finalize --lineage $E --result reliability=$IN/r.json --evidence-cmd -- sh -c "exit 1")
  echo "    finalize: $(jq -r .state <<<"$out") ($(jq -r '.escalation_reason // empty' <<<"$out"))"
}
rev() { pj status --lineage $1 | jq -r .store_revision; }
finish() { # finish LINEAGE: clean results for its lenses + evidence -> approved
  local st; st=$(pj status --lineage $1); local args=()
  for lens in $(jq -r '.selected_lenses[]?' <<<"$st"); do args+=(--result "$lens=$IN/r.json"); done
  printf 'tests passed\n' > $IN/ev.txt
  pj finalize --lineage $1 "${args[@]}" --evidence $IN/ev.txt | jq -c '{state,risk_level}'
}
echo "== 37es: escalated, the agent recovers it itself (free --authorization text), signs the successor alone"
variant37 es '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky" --actor agent --authorization "alice said ok")
  L2=$(jq -r .lineage_id <<<"$s"); echo "    successor $L2 risk $(jq -r .risk_level <<<"$s")"
  echo "    $(finish $L2)"; sign agent $L2; Y=$(commit_all "escalated, self-recovered")
  out=$(push_past main); verdict "37es self-recovered successor, agent only" main $Y "$out"
'
echo "== 37ei: escalated -> self-recovered successor (pristine) -> invalidated -> recover --disposition invalidated -> agent alone"
variant37 ei '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky" --actor agent --authorization "alice said ok")
  L2=$(jq -r .lineage_id <<<"$s"); echo "    successor $L2 risk $(jq -r .risk_level <<<"$s")"
  pj invalidate --lineage $L2 --reason "start over" | jq -c "{state}"
  s=$(pj recover --predecessor-lineage $L2 --expected-predecessor-revision $(rev $L2) --disposition invalidated --reason "start over" --actor agent)
  L3=$(jq -r .lineage_id <<<"$s"); echo "    successor $L3 gen $(jq -r .generation <<<"$s") risk $(jq -r .risk_level <<<"$s")"
  echo "    $(finish $L3)"; sign agent $L3; Y=$(commit_all "escalated, recovered twice")
  out=$(push_past main); verdict "37ei escalation_authorized then invalidated successor, agent only" main $Y "$out"
  echo "    chain in the note: $(g notes --ref=probity show $Y | jq -c "[.records[].state | {g:.generation, d:(.predecessor.disposition // null), s:.stage.state}]")"
'
echo "== 37ej: escalated -> self-recovered successor -> edit the candidate and start afresh (the guard is lifted)"
variant37 ej '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky" --actor agent --authorization "alice said ok")
  L2=$(jq -r .lineage_id <<<"$s")
  printf "fn a() { panic!(\"x\") }\n" > $R/src/a.rs
  st=$(pj start); echo "    start: $(jq -c "{lineage_id,generation,risk_level,code}" <<<"$st")"
  L=$(jq -r .lineage_id <<<"$st"); [ "$L" != null ] && { echo "    $(finish $L)"; sign agent $L; }
  Y=$(commit_all "escalated, restarted"); out=$(push_past main); verdict "37ej restart after a self-recovery, agent only" main $Y "$out"
'
echo "== 37ef: escalated, the agent drops its review store and reviews again (the server never saw the escalation)"
variant37 ef '
  escalate
  st=$(pj start 2>&1); echo "    start again: $(jq -r ".code // .error.code // .state // empty" <<<"$st" | head -1)"
  rm -rf "$R/.git/probity"; ls $R/.git | grep -c probity || true
  L=$(approve_live); sign agent $L; Y=$(commit_all "escalated, store dropped")
  out=$(push_past main); verdict "37ef fresh store, agent only" main $Y "$out"
'
echo "== 37ed: the agent disputes its own BLOCKER (free --authorization text), approves, signs alone"
variant37 ed '
  printf "fn a() {\n  panic!()\n}\n" > $R/src/a.rs
  st=$(pj start); L=$(jq -r .lineage_id <<<"$st")
  printf "{\"findings\":[{\"location\":\"src/a.rs:2\",\"severity\":\"BLOCKER\",\"claim\":\"panics\",\"proof_refs\":[\"t fails\"],\"evidence_class\":\"deterministic\",\"causal_disposition\":\"introduced\"}],\"evidence\":[\"ran t\"]}" > $IN/b.json
  j=$(pj finalize --lineage $L --result reliability=$IN/b.json); F=$(jq -r ".findings[0].id" <<<"$j"); echo "    $(jq -r .state <<<"$j") $F"
  printf "false positive\n" > $IN/why.txt
  pj dispute --lineage $L --finding $F --evidence $IN/why.txt --reason fp --actor agent --authorization "alice said ok" | jq -c "{state,disputes}"
  printf "tests passed\n" > $IN/ev.txt; pj finalize --lineage $L --evidence $IN/ev.txt | jq -c "{state}"
  sign agent $L; Y=$(commit_all "self-disputed blocker"); out=$(push_past main); verdict "37ed self-disputed, agent only" main $Y "$out"
'
