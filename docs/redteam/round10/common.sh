# Round 10 helpers (sourced after $RT10/../lib.sh).
export RT10=${RT10:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
HERE10=$RT10
RP="python3 $HERE10/rp-client.py"
source $RT10/../lib.sh
# named LINEAGE: how many notes on the server name it
named() { git -C "$S" grep -l -F "$1" refs/notes/probity -- 2>/dev/null | wc -l; }
# report LABEL REF WANT LINEAGE OUT
report() {
  local label=$1 ref=$2 want=$3 lin=$4 out=$5 n
  n=$(named "$lin")
  if [ "$(smain "$ref")" = "$want" ] && [ "$n" = 0 ]; then echo "$label: LANDED-WITHOUT-NOTE ($ref at ${want:0:12}; server notes $(git -C "$S" rev-parse -q --verify refs/notes/probity | cut -c1-12), none names $lin)"
  elif [ "$(smain "$ref")" = "$want" ]; then echo "$label: LANDED-OK ($ref; notes naming the lineage: $n)"
  else echo "$label: REFUSED ($ref at $(smain "$ref" | cut -c1-12))"; grep -E "DENY|rejected|aborted|error:|fatal:|^ng " <<<"$out" | head -4 | sed 's/^/    /'; fi
}
# prep [nonotes]: team, server with a mate's notes O (unless nonotes), a
# reviewed commit Y on local main (lineage L, signed by agent), notes
# published and merged with the remote's (N = local notes).
prep() {
  setup_team >/dev/null
  if [ "${1:-}" != nonotes ]; then
    git clone -q "$S" "$W/mate"
    git -C "$W/mate" notes --ref=probity add -m x "$(printf '%040x' 0xf0000001)"
    git -C "$W/mate" push -q --no-verify origin refs/notes/probity >/dev/null 2>&1 || echo "setup notes refused"
  fi
  X=$(smain main)
  O=$(git -C "$S" rev-parse -q --verify refs/notes/probity || echo 0)
  printf 'fn more() {}\n' >> "$R/src/parser.rs"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "the change")
  "$P" --cwd "$R" publish >/dev/null 2>&1
  if g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null; then
    g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote; fi
  N=$(g rev-parse refs/notes/probity)
}
