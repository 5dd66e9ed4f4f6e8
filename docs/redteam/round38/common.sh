# Round 38 helpers (sourced): round 37's (36's ... lib.sh's setup_team,
# approve_live, approve_commit, sign, commit_all, push_past, verdict,
# team_step, ...), plus:
export RT38=${RT38:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT38/../round37/common.sh"
# variant38 LABEL BODY...: BODY against its own fresh team setup.
variant38() { local label=$1; shift; ( source "$RT38/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r38-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
# check_policy ARGV_JSON: land (agent + ci + alice) round 37's runner
# policy (medium: reviewer agent AND runner ci) with one required check
# over src/** and scripts/** whose argv is ARGV_JSON; the files it runs
# must exist before (write them first). The check refuses a src/a.rs
# holding "panic".
check_policy() {
  jq -c '.roles.reviewer=["'$AGENT'"] | .roles.runner=["'$CI'"] | .signatures.medium=["reviewer","runner"] | .signatures.high=["reviewer","runner","maintainer"]' $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  printf '{"schema":"probity-checks/v1","checks":[{"name":"tests","paths":["src/**","scripts/**"],"argv":%s}]}' "$1" > $R/.probity/checks.json
  team_step "the runner policy + required check $1 (agent, ci, alice)" agent ci alice
}
CHECKPY='import os, sys\nsys.exit(1 if os.path.exists("src/a.rs") and "panic" in open("src/a.rs").read() else 0)\n'
# ci_check Y LABEL ARGV...: ci, in its own clone, reviews Y, re-runs the
# required check (--evidence-cmd -- ARGV), signs; the agent's signature is
# added over the same statement; ci's clone pushes Y to main with notes.
ci_check() {
  local Y=$1 label=$2 C=$W/ci L st args=() out; shift 2
  git -C $R push -q --no-verify origin $Y:refs/for/c-${Y:0:12} 2>/dev/null
  rm -rf $C; git clone -q $S $C; git -C $C fetch -q origin refs/for/c-${Y:0:12}; git -C $C checkout -q FETCH_HEAD
  st=$("$P" --json --cwd $C start --commit $Y); L=$(jq -r .lineage_id <<<"$st")
  echo "    ci's start: $(jq -c '{risk_level,risk_reasons}' <<<"$st")"
  printf '{"findings":[],"evidence":["read the diff"]}\n' > $IN/r.json
  for lens in $(jq -r '.selected_lenses[]?' <<<"$st"); do args+=(--result "$lens=$IN/r.json"); done
  echo "    ci's check run: $("$P" --json --cwd $C finalize --lineage $L "${args[@]}" --evidence-cmd -- "$@" | jq -c '{state,escalation_reason,risk_level}')"
  for k in ${SIGNERS:-ci agent}; do git -C $C config probity.signingKey $W/keys/$k; "$P" --cwd $C attest --lineage $L --sign >/dev/null 2>&1 || echo "    sign $k failed"; done
  out=$( R=$C; push_past $Y:refs/heads/main ); verdict "$label" main $Y "$out"
}
