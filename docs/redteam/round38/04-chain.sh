#!/usr/bin/env bash
# Round 38, 04: the escalation/dispute chain after D-R178
# (Bundle::chain_rests_on_authorized_act).
source "$(dirname "$0")/common.sh"
eval "$(sed -n '/^escalate()/,/^}/p;/^rev()/p;/^finish()/,/^}/p' "$(dirname "$0")/../round37/01-escalation.sh")"
echo "== 38ds: the agent disputes its own BLOCKER (free --authorization), approves; edits a reviewed line; recover --disposition scope_changed; the successor (no dispute of its own) signed by the agent alone"
variant38 ds '
  printf "fn a() {\n  panic!()\n}\n" > $R/src/a.rs
  st=$(pj start); L=$(jq -r .lineage_id <<<"$st")
  printf "{\"findings\":[{\"location\":\"src/a.rs:2\",\"severity\":\"BLOCKER\",\"claim\":\"panics\",\"proof_refs\":[\"t fails\"],\"evidence_class\":\"deterministic\",\"causal_disposition\":\"introduced\"}],\"evidence\":[\"ran t\"]}" > $IN/b.json
  j=$(pj finalize --lineage $L --result reliability=$IN/b.json); F=$(jq -r ".findings[0].id" <<<"$j")
  printf "false positive\n" > $IN/why.txt
  pj dispute --lineage $L --finding $F --evidence $IN/why.txt --reason fp --actor agent --authorization "alice said ok" | jq -c "{state}"
  printf "tests passed\n" > $IN/ev.txt; pj finalize --lineage $L --evidence $IN/ev.txt | jq -c "{state}"
  printf "fn a() {\n  panic!(\"still\")\n}\n" > $R/src/a.rs
  s=$(pj recover --predecessor-lineage $L --expected-predecessor-revision $(rev $L) --disposition scope_changed --reason "one more line" --actor agent)
  L2=$(jq -r .lineage_id <<<"$s"); echo "    successor $L2 gen $(jq -r .generation <<<"$s") risk $(jq -r .risk_level <<<"$s") $(jq -r ".code // .error.code // empty" <<<"$s")"
  printf "{\"findings\":[],\"evidence\":[\"read the diff\"]}\n" > $IN/r.json
  echo "    $(finish $L2)"; sign agent $L2; Y=$(commit_all "self-disputed, then scope_changed")
  out=$(push_past main); verdict "38ds dispute then scope_changed, agent only" main $Y "$out"
  echo "    chain in the note: $(g notes --ref=probity show $Y | jq -c "[.records[].state | {g:.generation, d:(.predecessor.disposition // null), s:.stage.state}]")"
'
echo "== 38ex: escalated; the agent tries invalidate on the escalated lineage, then recover --disposition invalidated / scope_changed from it"
variant38 ex '
  escalate
  echo "    invalidate escalated: $(pj invalidate --lineage $E --reason x 2>&1 | jq -c "{state,code:(.code // .error.code // null)}" 2>/dev/null || echo refused)"
  for d in invalidated scope_changed; do
    s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition $d --reason x --actor agent 2>&1)
    echo "    recover --disposition $d: $(jq -c "{lineage_id,code:(.code // .error.code // null)}" <<<"$s" 2>/dev/null || echo "$s" | head -2)"
  done
'
