#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# A `.gitattributes` on main (the server's HEAD tree: git >= 2.42 may read
# attributes from HEAD in a bare repository) saying every file is binary,
# not to be diffed, or diffed by an undefined driver. Does the hook's
# measure of a delivery change?
#  a) a 500-line change (built-in large_change: high) agent-only
#  b) an AKIA literal in src/ (team content rule: high) agent-only
source "$RT12/common.sh"
setup_team >/dev/null
printf '* -diff -text binary\n*.rs diff=nosuch\n' > "$R/.gitattributes"
L=$(approve_live); sign agent "$L"; Y=$(commit_all "attributes")
out=$(push_past main); verdict "05-0 .gitattributes on main (agent-only)" main "$Y" "$out"
seq 1 500 | sed 's/^/fn f/; s/$/() {}/' > "$R/src/big.rs"
echo "    05a start: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; Y=$(commit_all "big")
out=$(push_past main); verdict "05a 500 lines agent-only" main "$Y" "$out"; YA=$Y; g push -q --no-verify origin "$YA:refs/tags/big" 2>/dev/null
g reset -q --hard HEAD~1
printf 'const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/src/k.rs"
echo "    05b start: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; Y=$(commit_all "key")
out=$(push_past main); verdict "05b AKIA agent-only" main "$Y" "$out"
echo "    server (bare, HEAD has the .gitattributes) plain numstat of 05a: '$(git -C "$S" diff-tree -r --numstat "$YA~1" "$YA" | tr '\t\n' '  ')' ; with --text: '$(git -C "$S" diff-tree -r --numstat --text "$YA~1" "$YA" | tr '\t\n' '  ')'"
