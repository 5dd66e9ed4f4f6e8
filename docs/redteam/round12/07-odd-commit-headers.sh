#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# Commit objects git never writes, pushed to main (rp-client-raw.py) with a copied note of a
# reviewed commit H (the agent's own approval, medium):
#  a) `parent` naming H's tree (not a commit), tree = H's tree
#  b) `tree` naming a blob
#  c) a second `parent` naming a blob after the real parent
source "$RT12/common.sh"
setup_team >/dev/null
BASE=$(g rev-parse HEAD)
printf 'fn more() {}\n' >> "$R/src/parser.rs"
L=$(approve_live); sign agent "$L"; H=$(commit_all "more"); g reset -q --hard "$BASE"
"$P" --cwd "$R" publish --range "$BASE..$H" >/dev/null 2>&1
ORIGN=$(g rev-parse refs/notes/probity); HT=$(g rev-parse "$H^{tree}"); BL=$(g rev-parse "$H:src/parser.rs")
mk() { printf '%s\nauthor a <a@x> 1700000000 +0000\ncommitter a <a@x> 1700000000 +0000\n\nmore\n' "$1" | g hash-object -t commit -w --literally --stdin; }
try() { # try LABEL COMMIT: pushed by a hand-written client (git's own refuses to pack it)
  g notes --ref=probity add -f -C "$(g notes --ref=probity list "$H")" "$2" 2>/dev/null
  local NN; NN=$(g rev-parse refs/notes/probity)
  local ON; ON=$(git -C "$S" rev-parse -q --verify refs/notes/probity || echo 0)
  local objs; objs="$2 $(g rev-list --objects "$H" "$NN" --not "$BASE" $( [ "$ON" != 0 ] && echo "$ON") | cut -d' ' -f1 | tr '\n' ' ')"
  out=$(RAW_OBJECTS="$objs" python3 "$RT12/rp-client-raw.py" "$R" "$S" --atomic "$BASE $2 refs/heads/main" "$ON $NN refs/notes/probity" 2>&1)
  verdict "$1" main "$2" "$out"; [ "$(smain main)" = "$2" ] || grep -E "error|fatal|^ng |^ok |DENY|ALLOW|unpack" <<<"$out" | head -6 | cut -c1-200 | sed 's/^/    /'
  g update-ref refs/notes/probity "$ORIGN"
  g update-ref refs/heads/main "$BASE"
}
try "07a parent-is-a-tree" "$(mk "tree $HT
parent $HT")"
try "07b tree-is-a-blob" "$(mk "tree $BL
parent $BASE")"
try "07c second-parent-is-a-blob" "$(mk "tree $HT
parent $BASE
parent $BL")"
