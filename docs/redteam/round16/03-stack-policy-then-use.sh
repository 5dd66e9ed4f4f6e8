#!/usr/bin/env bash
# Seam: a stack in one push whose first commit changes the team policy
# (properly signed by ci + alice) and whose second commit, signed by the
# agent alone, is what the new policy makes high / no longer allows.
# Pushed apart, the second commit is judged under the first's policy.
# Pushed together, which policy judges it?
RT16=${RT16:-$(cd "$(dirname "$0")" && pwd)}
source "$RT16/common.sh"
# c1_signed BODY: in $R, apply BODY (a policy change), approve, sign ci+alice, commit
c1_signed() { eval "$1"; echo "    C1 start: $(risk_of_live)"; local L; L=$(approve_live); sign ci "$L"; sign alice "$L"; commit_all "C1 policy change" >/dev/null; }
c2_agent() { eval "$1"; echo "    C2 start: $(risk_of_live)" >&2; local L; L=$(approve_live); sign agent "$L"; commit_all "C2 agent" ; }
variant16 a '
mkdir -p "$R/vendor"; printf "pub fn v() {}\n" > "$R/vendor/v.rs"; agent_step "03a-0 base: vendor/v.rs"
c1_signed "jq -c \".high_risk.paths += [\\\"vendor/**\\\"]\" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json"
Y=$(c2_agent "printf \"pub fn v() { let _ = 2; }\n\" > $R/vendor/v.rs")
out=$(push_past main); verdict "03a C1 makes vendor/** high + C2 edits vendor by the agent alone, one push" main "$Y" "$out"
echo "$out" | grep -v "^ *$" | cut -c1-300 | head -16
'
variant16 b '
mkdir -p "$R/tools"; printf "print(1)\n" > "$R/tools/a.py"; agent_step "03b-0 base: tools/a.py"
# C1 revokes the agent: no longer a reviewer, key removed (ci takes its place)
c1_signed "jq -c \".roles.reviewer = [\\\"$CI\\\"]\" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json && grep -v ^$AGENT $R/.probity/allowed_signers > $IN/a && cp $IN/a $R/.probity/allowed_signers"
Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
out=$(push_past main); verdict "03b C1 revokes the agent + C2 signed by the agent alone, one push" main "$Y" "$out"
echo "$out" | grep -v "^ *$" | cut -c1-300 | head -16
'
variant16 c '
mkdir -p "$R/tools"; printf "print(1)\n" > "$R/tools/a.py"; agent_step "03c-0 base: tools/a.py"
c1_signed "jq -c \".roles.reviewer = [\\\"$CI\\\"]\" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json && grep -v ^$AGENT $R/.probity/allowed_signers > $IN/a && cp $IN/a $R/.probity/allowed_signers"
C1=$(g rev-parse HEAD); out=$(push_past main); verdict "03c-1 control: C1 alone" main "$C1" "$out"
Y=$(c2_agent "printf \"print(2)\n\" > $R/tools/a.py")
out=$(push_past main); verdict "03c-2 control: C2 by the revoked agent, pushed after C1" main "$Y" "$out"
'
# 03d: as 03a, but C2 is reviewed (medium) on the old base first, then
# C1 is put under it (rebase): C1 + C2 in one push.
variant16 d '
mkdir -p "$R/vendor"; printf "pub fn v() {}\n" > "$R/vendor/v.rs"; agent_step "03d-0 base: vendor/v.rs"
OLD=$(g rev-parse HEAD)
Y2=$(c2_agent "printf \"pub fn v() { let _ = 2; }\n\" > $R/vendor/v.rs")
g checkout -q -B c1 "$OLD"
c1_signed "jq -c \".high_risk.paths += [\\\"vendor/**\\\"]\" $R/.probity/policy.json > $IN/p && cp $IN/p $R/.probity/policy.json"
g checkout -q main; g rebase -q c1 2>&1 | tail -2; Y=$(g rev-parse HEAD)
out=$(push_past main); verdict "03d C1 (vendor/** high, ci+alice) + C2 (vendor edit reviewed medium before C1, agent alone), one push" main "$Y" "$out"
echo "$out" | grep -E "remote:" | cut -c1-300 | head -4
'
