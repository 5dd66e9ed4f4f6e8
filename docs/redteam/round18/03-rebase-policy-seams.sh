#!/usr/bin/env bash
# D-R171 / D-R172 seams.
# a) a team floor (vendor/** high) lands in its own push (ci + alice);
#    the agent's medium edit of vendor/lib.rs, approved alone on the base
#    from before it, is rebased onto it and pushed (git push past the
#    client's gates, and `probity push`), then with the note copied by hand.
# b) legit: tier drops on the new base: a high edit (task-run script,
#    signed agent + alice) rebased onto a base where alice removed the task.
# c) legit: a medium edit rebased onto an unrelated teammate commit.
# d) a stack C0 (agent, medium) / C1 (ci + alice, revokes the agent) /
#    C2 (agent alone), one push; then C0 alone (should land).
# e) a content floor (AKIA-like 'SECRET_' string) added by a landed policy
#    commit; the agent's stale edit adding that string, rebased.
RT18=${RT18:-$(cd "$(dirname "$0")" && pwd)}
source "$RT18/common.sh"
push_head() { "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q origin "+refs/notes/probity:refs/notes/probity-remote"; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote 2>/dev/null
  g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1; }
policy_commit() { # JQ-FILTER: ci + alice sign a policy change on main and push it
  jq -c "$1" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json
  local L Y out; L=$(approve_live); sign ci "$L"; sign alice "$L"; Y=$(commit_all "policy: $1")
  out=$(push_past main); verdict "    policy commit ($1), ci + alice" main "$Y" "$out"; }
va() { mkdir -p $R/vendor; printf 'fn v() {}\n' > $R/vendor/lib.rs; agent_step "base vendor/lib.rs" >/dev/null; OLD=$(smain main)
  g checkout -q -B work "$OLD"; printf 'fn v() { /* agent */ }\n' > $R/vendor/lib.rs
  echo "    agent edit on OLD: $(risk_of_live)"; L=$(approve_live); sign agent "$L"; X=$(commit_all "agent edit vendor"); 
  g checkout -q main; policy_commit '.high_risk.paths += ["vendor/**"]'
  g checkout -q work; g rebase -q main 2>&1 | tail -1; Y=$(g rev-parse HEAD)
  echo "    rebased: $(risk_of_live)"
  echo "    agent pre-push: $("$P" --cwd "$R" validate --gate pre-push --remote origin --json 2>&1 | jq -c '{decision,reason_code}' 2>&1 | head -1)"
  out=$("$P" --cwd "$R" push origin HEAD:refs/heads/main 2>&1); verdict "03a probity push of the rebased stale medium vendor edit" main "$Y" "$out"; echo "$out" | grep -iE "ALLOW|DENY|risk_|refus" | head -3
  out=$(push_head); verdict "03a git push (past gates) of the rebased stale medium vendor edit" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2
  g notes --ref=probity copy -f "$X" "$Y" 2>/dev/null
  out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1); verdict "03a2 the same, X's note copied onto the rebased commit" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
vb() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/build.py; task_json "python3 tools/build.py"; base_with "task" >/dev/null; OLD=$(smain main)
  g checkout -q -B work "$OLD"; printf 'print(2)\n' > $R/tools/build.py
  echo "    agent edit on OLD (task runs it): $(risk_of_live)"; L=$(approve_live); sign agent "$L"; sign alice "$L"; commit_all "high edit" >/dev/null
  g checkout -q main; rm -rf $R/.vscode; L=$(approve_live); sign agent "$L"; sign alice "$L"; Z=$(commit_all "remove task"); out=$(push_past main); verdict "    alice removes the task" main "$Z" "$out"
  g checkout -q work; g rebase -q main 2>&1 | tail -1; Y=$(g rev-parse HEAD); echo "    rebased: $(risk_of_live)"
  out=$("$P" --cwd "$R" push origin HEAD:refs/heads/main 2>&1); verdict "03b (legit) high-approved edit rebased onto a base that removed the task, probity push" main "$Y" "$out"; echo "$out" | grep -iE "DENY|risk_|refus" | head -3; }
vc() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/a.py; agent_step "base" >/dev/null; OLD=$(smain main)
  g checkout -q -B work "$OLD"; printf 'print(2)\n' > $R/tools/a.py; L=$(approve_live); sign agent "$L"; commit_all "agent edit" >/dev/null
  g checkout -q main; printf 'x\n' > $R/README; L=$(approve_live); sign ci "$L"; Z=$(commit_all "teammate"); out=$(push_past main); verdict "    teammate commit (ci)" main "$Z" "$out"
  g checkout -q work; g rebase -q main 2>&1 | tail -1; Y=$(g rev-parse HEAD)
  out=$("$P" --cwd "$R" push origin HEAD:refs/heads/main 2>&1); verdict "03c (legit) medium edit rebased onto an unrelated teammate commit, probity push" main "$Y" "$out"; echo "$out" | grep -iE "DENY|risk_|refus" | head -3; }
REVOKE='jq -c ".roles.reviewer = [\"$CI\"]" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json && grep -v ^$AGENT $R/.probity/allowed_signers > $IN/a && cp $IN/a $R/.probity/allowed_signers'
vd() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/a.py; agent_step "base" >/dev/null
  printf 'print(0)\n' > $R/tools/z.py; L=$(approve_live); sign agent "$L"; C0=$(commit_all "C0 agent")
  eval "$REVOKE"; L=$(approve_live); sign ci "$L"; sign alice "$L"; C1=$(commit_all "C1 revoke")
  printf 'print(2)\n' > $R/tools/a.py; L=$(approve_live); sign agent "$L"; C2=$(commit_all "C2 agent")
  out=$(push_past main); verdict "03d stack C0 agent / C1 revoke (ci+alice) / C2 agent alone, one push" main "$C2" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -3
  out=$(push_past "$C1:refs/heads/main"); verdict "    03d control: C0+C1 (legit)" main "$C1" "$out"; }
ve() { mkdir -p $R/tools; printf 'x = 1\n' > $R/tools/cfg.py; agent_step "base" >/dev/null; OLD=$(smain main)
  g checkout -q -B work "$OLD"; printf 'x = "SECRET_abc"\n' > $R/tools/cfg.py; echo "    agent edit on OLD: $(risk_of_live)"
  L=$(approve_live); sign agent "$L"; X=$(commit_all "agent edit")
  g checkout -q main; policy_commit '.high_risk.content += ["SECRET_"]'
  g checkout -q work; g rebase -q main 2>&1 | tail -1; Y=$(g rev-parse HEAD); echo "    rebased: $(risk_of_live)"
  out=$(push_head); verdict "03e rebased stale edit adding a content floor string the new base's policy makes high" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2
  g notes --ref=probity copy -f "$X" "$Y" 2>/dev/null
  out=$(g push --no-verify --atomic origin HEAD:refs/heads/main refs/notes/probity 2>&1); verdict "03e2 the same, X's note copied" main "$Y" "$out"; echo "$out" | grep -E "ALLOW|DENY" | head -2; }
for v in ${ONLY:-va vb vc vd ve}; do variant18 "$v" "$v"; done
