#!/usr/bin/env bash
# Tags and refs with probity.protectedRefs = refs/heads/* + refs/tags/*:
# tags of every kind on unreviewed content; refs/tags/main; deletion and
# re-creation; refs/notes/probity pushed directly (forced).
RT16=${RT16:-$(cd "$(dirname "$0")" && pwd)}
source "$RT16/common.sh"
setup_team >/dev/null
git -C "$S" config --add probity.protectedRefs 'refs/heads/*'
git -C "$S" config --add probity.protectedRefs 'refs/tags/*'
echo "    server protectedRefs: $(git -C "$S" config --get-all probity.protectedRefs | tr '\n' ' ')"
# the unreviewed payload: a crypto/** file with an AKIA literal (high)
mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
g add -A; U=$(g commit -q -m "unreviewed high" && g rev-parse HEAD); g reset -q --hard HEAD~1
TR=$(g rev-parse "$U^{tree}"); BL=$(g rev-parse "$U:crypto/key.rs")
try() { # LABEL REFSPEC REF WANT
  local out; out=$(g push --no-verify origin "$2" 2>&1)
  if [ "$(git -C "$S" rev-parse -q --verify "$3" 2>/dev/null)" = "$4" ]; then echo "$1: LANDED ($3 -> ${4:0:12})"; else echo "$1: REFUSED"; fi
  grep -E "DENY|ALLOW" <<<"$out" | head -2
}
try "04a lightweight tag on an unreviewed commit" "$U:refs/tags/lw" refs/tags/lw "$U"
AT=$(g tag -a -m annotated at1 "$U" && g rev-parse at1)
try "04b annotated tag on an unreviewed commit" "refs/tags/at1:refs/tags/at1" refs/tags/at1 "$AT"
g tag tt "$TR"; try "04c lightweight tag to a TREE holding crypto/key.rs (AKIA)" "refs/tags/tt:refs/tags/tt" refs/tags/tt "$TR"
g tag -a -m "tree" att "$TR"; ATT=$(g rev-parse att); try "04c2 annotated tag to that TREE" "refs/tags/att:refs/tags/att" refs/tags/att "$ATT"
g tag tb "$BL"; try "04d tag to a BLOB (AKIA)" "refs/tags/tb:refs/tags/tb" refs/tags/tb "$BL"
g tag -a -m outer nest refs/tags/at1 2>/dev/null; NE=$(g rev-parse nest); try "04e tag of a tag of an unreviewed commit" "refs/tags/nest:refs/tags/nest" refs/tags/nest "$NE"
try "04f refs/tags/main at the unreviewed commit" "$U:refs/tags/main" refs/tags/main "$U"
try "04g refs/heads/refs/tags/x (branch spelled like a tag)" "$U:refs/heads/refs/tags/x" refs/heads/refs/tags/x "$U"
try "04h unprotected namespace refs/for/main" "$U:refs/for/main" refs/for/main "$U"
echo "    archive of tag tt (tree): $(git -C "$S" archive tt 2>/dev/null | tar -t 2>/dev/null | tr '\n' ' ')"
# legit: a tag on the reviewed main tip
M=$(smain main); try "04i legit: lightweight tag on main's tip" "$M:refs/tags/v1" refs/tags/v1 "$M"
g tag -a -m "release" v2 "$M"; V2=$(g rev-parse v2); try "04j legit: annotated tag on main's tip" "refs/tags/v2:refs/tags/v2" refs/tags/v2 "$V2"
out=$(g push --no-verify origin :refs/tags/v1 2>&1); echo "04k delete protected tag v1: $(git -C "$S" rev-parse -q --verify refs/tags/v1 >/dev/null && echo kept/REFUSED || echo DELETED)"; grep -E "DENY|ALLOW" <<<"$out" | head -1
# notes pushed directly: forced rewind, and a junk note on an unrelated commit
"$P" --cwd "$R" publish >/dev/null 2>&1
g fetch -q origin +refs/notes/probity:refs/notes/probity 2>/dev/null
N0=$(git -C "$S" rev-parse -q --verify refs/notes/probity)
g notes --ref=probity add -f -m 'junk' "$U" 2>/dev/null
try "04l notes: append a junk note for the unreviewed commit" "refs/notes/probity:refs/notes/probity" refs/notes/probity "$(g rev-parse refs/notes/probity)"
EMPTY=$(g commit-tree "$(git hash-object -t tree /dev/null)" -m empty); 
try "04m notes: forced replacement by an empty notes commit" "+$EMPTY:refs/notes/probity" refs/notes/probity "$EMPTY"
try "04n notes: deletion" ":refs/notes/probity" refs/notes/probity ""
echo "    notes at the server: $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12)"
