#!/usr/bin/env bash
# 03a's setup (a vendor/** floor landed after the agent's medium approval;
# the edit rebased onto it): does the client's pre-push gate, fed the
# refs as git feeds them, and a plain `git push` with the client hooks
# installed, agree with the server (policy_floor_unmet)?
RT18=${RT18:-$(cd "$(dirname "$0")" && pwd)}
source "$RT18/common.sh"
v() { mkdir -p $R/vendor; printf 'fn v() {}\n' > $R/vendor/lib.rs; agent_step "base" >/dev/null; OLD=$(smain main)
  g checkout -q -B work "$OLD"; printf 'fn v() { /* agent */ }\n' > $R/vendor/lib.rs; L=$(approve_live); sign agent "$L"; commit_all "agent edit" >/dev/null
  g checkout -q main; jq -c '.high_risk.paths += ["vendor/**"]' $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  L=$(approve_live); sign ci "$L"; sign alice "$L"; Z=$(commit_all "policy"); push_past main >/dev/null; [ "$(smain main)" = "$Z" ] && echo "    policy commit landed"
  g checkout -q work; g rebase -q main 2>&1 | tail -1; Y=$(g rev-parse HEAD); B=$(smain main)
  "$P" --cwd "$R" publish >/dev/null 2>&1
  echo "    validate --gate pre-push --remote origin (no stdin): $("$P" --cwd "$R" validate --gate pre-push --remote origin --json </dev/null 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -1)"
  echo "    validate --gate pre-push, git's stdin (refs/heads/work $Y refs/heads/main $B): $(printf 'refs/heads/work %s refs/heads/main %s\n' $Y $B | "$P" --cwd "$R" validate --gate pre-push --remote origin --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -1)"
  echo "    validate --gate pre-push --range $B..$Y: $("$P" --cwd "$R" validate --gate pre-push --range "$B..$Y" --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -1)"
  echo "    validate --gate pre-receive --range --ref refs/heads/main --policy-base origin/main: $("$P" --cwd "$R" validate --gate pre-receive --range "$B..$Y" --ref refs/heads/main --policy-base refs/remotes/origin/main --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -1)"
  "$P" --cwd "$R" hooks install >/dev/null 2>&1
  out=$(g push origin HEAD:refs/heads/main refs/notes/probity 2>&1); verdict "06 plain git push with the client hooks" main "$Y" "$out"; echo "$out" | grep -iE "DENY|deny|refus|floor|receipt" | head -4; }
variant18 v v
