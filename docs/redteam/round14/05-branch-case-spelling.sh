#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# A high change signed by the agent alone, pushed to spellings of the
# protected branch: `refs/heads/MAIN`, `refs/heads/Main`. On a server
# whose refs live on a case-insensitive file system (loose refs, the
# files backend on macOS/Windows) these are `refs/heads/main`.
source "$RT14/common.sh"
setup_team >/dev/null
mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
echo "    start: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; X=$(commit_all "crypto: key")
out=$(push_past main); verdict "05-0 control: high change to main (agent alone)" main "$X" "$out"
for ref in refs/heads/MAIN refs/heads/Main; do
  out=$(push_past "$X:$ref"); verdict "05 high change to $ref (agent alone)" "$ref" "$X" "$out"
done
echo "    server refs: $(git -C "$S" for-each-ref --format='%(refname)' refs/heads | tr '\n' ' ')"
# legit: the same change with alice's signature lands on main
sign alice "$L"; out=$(push_past main); verdict "05-L legit: high change agent + alice" main "$X" "$out"
