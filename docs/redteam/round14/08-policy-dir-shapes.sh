#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# The server reads the base's `.probity/policy.json` by git's plain path
# lookup. Can a well-formed tree change make that lookup find a weaker
# policy (or none) while the step is rated medium? Each variant against
# its own fresh team setup.
source "$RT14/common.sh"
export WEAK='{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["'$AGENT'"]},"signatures":{"medium":["reviewer"],"high":["reviewer"]},"authorize":["reviewer"],"high_risk":{"paths":[],"content":[]}}'
variant 08a '# .probity becomes a link to a copy holding a weaker policy
mkdir -p "$R/conf/probity"; cp "$R/.probity/allowed_signers" "$R/conf/probity/"; printf "%s" "$WEAK" > "$R/conf/probity/policy.json"
rm -rf "$R/.probity"; ln -s conf/probity "$R/.probity"
agent_step "08a .probity -> conf/probity (weaker policy)"'
variant 08b '# .probity/policy.json becomes a link
printf "%s" "$WEAK" > "$R/weak.json"; rm "$R/.probity/policy.json"; ln -s ../weak.json "$R/.probity/policy.json"
agent_step "08b .probity/policy.json -> ../weak.json"'
variant 08c '# a .gitattributes re-encoding the policy at checkout (the server reads the blob)
printf ".probity/** working-tree-encoding=UTF-16LE\n" > "$R/.gitattributes"
agent_step "08c .gitattributes over .probity/"
printf "%s\n" "$TASKS" > "$R/.vscode-x"; mkdir -p "$R/crypto"; printf "pub const K: &str = \"AKIAABCDEFGHIJKLMNOP\";\n" > "$R/crypto/key.rs"
agent_step "08c-2 high change after 08c (agent alone)"'
variant 08d '# case and look-alike directories beside the real one
mkdir -p "$R/.PROBITY" "$R/.probity " "$R/.probit$(printf "\xc5\xbf")"; for d in .PROBITY ".probity " ".probit$(printf "\xc5\xbf")"; do printf "%s" "$WEAK" > "$R/$d/policy.json"; done
agent_step "08d .PROBITY/, \".probity \"/, .probitſ/ policy.json"
mkdir -p "$R/crypto"; printf "pub const K: &str = \"AKIAABCDEFGHIJKLMNOP\";\n" > "$R/crypto/key.rs"
agent_step "08d-2 high change after 08d (agent alone)"'
variant 08e '# a gitlink at .probity/policy.json side: .probity replaced by a submodule entry
B=$(g rev-parse HEAD); root=$( { lsentries "$R" "$B^{tree}" | grep -v " .probity "; echo "160000 .probity $B"; } | sort -k2 | rawtree "$R")
X=$(g commit-tree "$root" -p "$B" -m gitlink); echo "    08e tree: $(g ls-tree $X | tr "\t\n" "  ")"
st=$(pj start --commit "$X" 2>&1); echo "    08e start --commit: $(jq -c "{risk_level,risk_reasons}" <<<"$st" 2>/dev/null || echo "$st" | head -3)"'
