#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# D-R164: refs git honours as replacements, spelled other ways. A
# replacement for main's tip (a commit with an unreviewed crypto/ AKIA tree).
source "$RT13/common.sh"; setup_team >/dev/null
T=$(g rev-parse HEAD); mkdir -p "$R/crypto"; printf 'K="AKIAABCDEFGHIJKLMNOP"\n' > "$R/crypto/k.rs"
g add -A; TR=$(g write-tree); g reset -q; rm -rf "$R/crypto"
E=$(g commit-tree "$TR" -m "the team's policy")
try() { local label=$1; shift; local out; out=$(g push --no-verify origin "$@" 2>&1)
  echo "$label: $(git -C "$S" for-each-ref --format='%(refname)' | grep -v -e refs/heads/main -e refs/notes | tr '\n' ' ')"
  grep -E "DENY|rejected|error:|fatal" <<<"$out" | head -2 | sed 's/^/    /'
  echo "    server's git show main: $(git -C "$S" ls-tree -r --name-only main | tr '\n' ' ')"; }
try "05a refs/replace/<tip>" "$E:refs/replace/$T"
try "05b refs/Replace/<tip> (case)" "$E:refs/Replace/$T"
try "05c refs/replace (bare)" "$E:refs/replace"
try "05d refs/replace//<tip>" "$E:refs/replace//$T"
try "05e refs/replace/./<tip>" "$E:refs/replace/./$T"
try "05f refs/heads/../replace/<tip>" "$E:refs/heads/../replace/$T"
# 05g: delete + recreate in one push (a replacement already there, put by
# the administrator before the hook: simulated with update-ref on $S)
git -C "$S" update-ref "refs/replace/$T" "$E"
out=$(printf '' ; g push --no-verify --atomic origin ":refs/replace/$T" "$E:refs/replace/$T" 2>&1); echo "05g delete+recreate one push:"; grep -E "DENY|rejected|error:|fatal" <<<"$out" | head -2 | sed 's/^/    /'
out=$(g push --no-verify origin ":refs/replace/$T" 2>&1); echo "05h delete alone: $(git -C "$S" for-each-ref refs/replace | wc -l) replace refs left"
