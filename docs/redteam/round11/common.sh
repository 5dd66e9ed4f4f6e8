# Round 11 helpers (sourced): lib.sh plus raw tree writing.
export RT11=${RT11:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT11/../lib.sh"
# rawtree DIR < lines "mode name oid": writes a tree object with the
# entries in exactly the given order (no sorting, duplicates kept), as a
# hand-written client could push it (git's receive.fsckObjects is off by
# default). Prints its id.
rawtree() {
  local dir=$1 mode name oid
  while read -r mode name oid; do
    printf '%s %s\0' "$mode" "$name"
    printf '%s' "$oid" | xxd -r -p
  done | git -C "$dir" hash-object -t tree -w --literally --stdin
}
# lsentries TREE-ISH (in DIR): "mode name oid" lines of a tree, git's order
lsentries() { git -C "$1" ls-tree "$2" | awk -F'\t' '{split($1,a," "); m=a[1]; if (m=="040000") m="40000"; print m" "$2" "a[3]}'; }
