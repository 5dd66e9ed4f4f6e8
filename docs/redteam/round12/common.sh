# Round 12 helpers (sourced): round 11's (lib.sh, rawtree, lsentries) plus
# notes-tree surgery.
export RT12=${RT12:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
RT11=$RT12/../round11
source "$RT11/common.sh"
# notes_commit TREE PARENT: a notes commit in $R on top of PARENT; moves
# the clone's refs/notes/probity there; prints it.
notes_commit() {
  local n; n=$(g commit-tree "$1" -p "$2" -m "Notes added by 'git notes add'")
  g update-ref refs/notes/probity "$n"; echo "$n"
}
# ls_notes_raw TREEISH: "mode name oid" lines, git's order, modes verbatim
ls_notes_raw() { g ls-tree "$1" | awk -F'\t' '{split($1,a," "); m=a[1]; if (m=="040000") m="40000"; print m" "$2" "a[3]}'; }
# land_high: a crypto/** change with an AKIA literal (high), signed by
# the agent and by alice (a maintainer), pushed; prints the commit.
land_high() {
  mkdir -p "$R/crypto"; printf 'pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n' > "$R/crypto/key.rs"
  local L; L=$(approve_live); sign agent "$L"; sign alice "$L"
  local X; X=$(commit_all "crypto: key"); push_past main >/dev/null
  [ "$(smain main)" = "$X" ] || { echo "land_high: not landed" >&2; exit 9; }
  echo "$X"
}
# land_revert X: a reviewed revert of X, signed by agent and alice, pushed.
land_revert() {
  g revert --no-edit --no-commit "$1" >/dev/null
  local L; L=$(approve_live); sign agent "$L"; sign alice "$L"
  local Rv; Rv=$(commit_all "Revert crypto: key"); push_past main >/dev/null
  [ "$(smain main)" = "$Rv" ] || { echo "land_revert: not landed" >&2; exit 9; }
  echo "$Rv"
}
