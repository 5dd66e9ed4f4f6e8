#!/usr/bin/env bash
RT12=${RT12:-$(cd "$(dirname "$0")" && pwd)}
# 01's replay with X1's note entry given each other mode git accepts in a
# tree (a fresh team per mode): which readings see it (git grep, the path
# lookup, git notes), and whether the replay lands.
for mode in ${MODES:-100644 100755 100664 0100644 120000 160000 40000}; do
( source "$RT12/common.sh"
  setup_team >/dev/null
  X1=$(land_high); RV=$(land_revert "$X1")
  g fetch -q origin '+refs/notes/probity:refs/notes/probity'
  X2=$(g commit-tree "$X1^{tree}" -p "$RV" -m "crypto: key (again, $mode)")
  g notes --ref=probity add -f -C "$(g notes --ref=probity list "$X1")" "$X2"
  g update-ref refs/heads/main "$X2"
  NT=$(ls_notes_raw refs/notes/probity | awk -v x="$X1" -v m="$mode" '$2==x{$1=m} {print}' | rawtree "$R")
  N=$(notes_commit "$NT" "$(g rev-parse refs/notes/probity)")
  LIN=$(g notes --ref=probity show "$X2" | head -1 | jq -r '.. | .lineage_id? // empty' | head -1)
  grep_sees=$(g grep -l -F "$LIN" "$N" -- 2>&1 | grep -c "${X1}")
  notes_sees=$(g notes --ref=probity show "$X1" >/dev/null 2>&1 && echo yes || echo no)
  out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
  echo "mode $mode: git grep lists X1's note: $grep_sees; lookup <notes>:X1: $(g cat-file -t "$N:$X1" 2>&1 | head -1); git notes show X1: $notes_sees"
  verdict "  02-replay-with-X1-note-mode-$mode" main "$X2" "$out"; [ -n "${VERBOSE:-}" ] && echo "$out" )
done
