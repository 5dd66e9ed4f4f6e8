#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# refs/replace/* pushed by the agent. Probity runs every git command with
# GIT_NO_REPLACE_OBJECTS=1 and its in-process readers never follow replace
# refs, so the gates judge the real objects. git itself honours replace
# refs everywhere else: on the server (a deploy hook's checkout, git
# archive, git show) and in any clone that fetches refs/replace/*.
#  a) replace the blob of a reviewed file (src/parser.rs at main) by an
#     AKIA-bearing blob the policy would call high
#  b) replace main's tip commit by one whose tree adds crypto/evil.rs
source "$RT12/common.sh"
setup_team >/dev/null
printf '// parser\nfn parse() {}\nfn more() {}\n' > "$R/src/parser.rs"
L=$(approve_live); sign agent "$L"; H=$(commit_all "more parsing")
out=$("$P" --cwd "$R" push origin main 2>&1); verdict "03-legit-medium-change" main "$H" "$out"
OLD=$(g rev-parse "$H:src/parser.rs")
EVIL=$(printf '// parser\nconst K: &str = "AKIAABCDEFGHIJKLMNOP";\nfn parse() { exfiltrate(K) }\n' | g hash-object -w --stdin)
out=$(g push --no-verify origin "$EVIL:refs/replace/$OLD" 2>&1)
echo "03a push refs/replace/<blob of src/parser.rs>: $(git -C "$S" rev-parse -q --verify "refs/replace/$OLD" >/dev/null && echo ACCEPTED || echo REFUSED)"
grep -E "remote: probity" <<<"$out" | head -2 | cut -c1-200 | sed 's/^/    /'
echo "    server 'git show main:src/parser.rs':"; git -C "$S" show main:src/parser.rs | sed 's/^/      /'
echo "    server 'git show --no-replace-objects' (the bytes Probity judged):"; git -C "$S" --no-replace-objects show main:src/parser.rs | sed 's/^/      /'
D=$W/deploy; mkdir -p "$D"; git --git-dir="$S" --work-tree="$D" checkout -f -q main
echo "    a post-receive deploy (git --work-tree=DIR checkout -f main) writes: $(grep -c AKIA "$D/src/parser.rs") AKIA line(s)"
git -C "$S" archive main src/parser.rs | tar -xO | grep -q AKIA && echo "    git archive main (e.g. a release job on the server): AKIA present"
CL=$W/mate; git clone -q "$S" "$CL"; echo "    fresh clone: AKIA in work tree? $(grep -c AKIA "$CL/src/parser.rs")"
git -C "$CL" fetch -q origin 'refs/replace/*:refs/replace/*' '+refs/notes/probity:refs/notes/probity'
rm "$CL/src/parser.rs"; git -C "$CL" checkout -q -- src/parser.rs
echo "    clone after 'git fetch origin refs/replace/*:refs/replace/*' and re-checkout: AKIA lines: $(grep -c AKIA "$CL/src/parser.rs"); git status: '$(git -C "$CL" status --porcelain | tr '\n' ' ')'"
# CI gate run in that clone over the landed range judges the real bytes
out=$("$P" --json --cwd "$CL" validate --gate pre-receive --range "$H~1..$H" --ref refs/heads/main 2>&1)
echo "    CI form in that clone over $H~1..$H: $(sed -n '/^{/,$p' <<<"$out" | jq -r '"\(.decision) \(.reason_code)"' 2>/dev/null)"
# b) replace the tip commit
ev=$(printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' | g hash-object -w --stdin)
ct=$(printf '100644 evil.rs %s\n' "$ev" | rawtree "$R")
T=$( { lsentries "$R" "$H^{tree}"; echo "40000 crypto $ct"; } | sort -k2,2 | rawtree "$R")
FAKE=$(g commit-tree "$T" -p "$H~1" -m "more parsing")
out=$(g push --no-verify origin "$FAKE:refs/replace/$H" 2>&1)
echo "03b push refs/replace/<main's tip>: $(git -C "$S" rev-parse -q --verify "refs/replace/$H" >/dev/null && echo ACCEPTED || echo REFUSED)"
echo "    server 'git ls-tree main': $(git -C "$S" ls-tree --name-only main | tr '\n' ' ')"
echo "    server main:crypto/evil.rs: $(git -C "$S" show main:crypto/evil.rs 2>&1)"
D2=$W/deploy2; mkdir -p "$D2"; git --git-dir="$S" --work-tree="$D2" checkout -f -q main; echo "    deploy checkout has crypto/evil.rs? $(ls "$D2/crypto" 2>/dev/null)"
git -C "$S" config core.useReplaceRefs false
echo "    with core.useReplaceRefs=false on the server: main:crypto/evil.rs $(git -C "$S" cat-file -e main:crypto/evil.rs 2>/dev/null && echo present || echo absent)"
