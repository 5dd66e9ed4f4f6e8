#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# A commit object with two `tree` headers: `tree EVIL`, `parent P`, then
# `tree REVIEWED`. git's commit parser takes the first tree line and stops
# reading parents at the first line that is not one; a reader that takes
# the last tree line sees the reviewed tree. The note of the honest,
# reviewed commit is copied onto the crafted commit (the approval sits on
# the note of the commit it delivers).
source "$RT11/common.sh"
setup_team >/dev/null
BASE=$(g rev-parse HEAD)
# The honest change: one line in src/parser.rs, reviewed (medium), signed by
# the agent (a reviewer: enough for medium).
printf '// parser\nfn parse() {}\nfn more() {}\n' > "$R/src/parser.rs"
L=$(approve_live); sign agent "$L"; H=$(commit_all "more parsing")
"$P" --cwd "$R" publish >/dev/null 2>&1
REVIEWED=$(g rev-parse "$H^{tree}")
# The evil tree: crypto/evil.rs with an AKIA literal (high under the policy).
ev=$(printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' | g hash-object -w --stdin)
ct=$(printf '100644 evil.rs %s\n' "$ev" | rawtree "$R")
EVIL=$( { lsentries "$R" "$REVIEWED"; echo "40000 crypto $ct"; } | sort -k2,2 | rawtree "$R")
body=$(printf 'tree %s\nparent %s\ntree %s\nauthor a <a@x> 1700000000 +0000\ncommitter a <a@x> 1700000000 +0000\n\nmore parsing\n' "$EVIL" "$BASE" "$REVIEWED")
C=$(printf '%s' "$body" | g hash-object -t commit -w --literally --stdin)
echo "git's view of C: tree $(g rev-parse "$C^{tree}") parents $(g rev-list --parents -n1 "$C" | cut -d' ' -f2-)"
echo "  EVIL=$EVIL REVIEWED=$REVIEWED"
g notes --ref=probity add -f -C "$(g notes --ref=probity list "$H")" "$C"
g update-ref refs/heads/main "$C"
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "07-two-tree-headers" main "$C" "$out"
echo "$out" | grep -E "remote:" | head -6 | cut -c1-220 | sed 's/^/    /'
