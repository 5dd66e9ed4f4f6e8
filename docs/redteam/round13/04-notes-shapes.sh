#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# D-R163: round 12's replay of a spent maintainer approval (X1: crypto/
# AKIA, agent + alice; reverted; X2 = X1's tree on the revert, X1's note
# copied onto X2, pushed by the agent alone) with X1's own note reshaped:
#  exec    : mode 100755, same path
#  fan4    : moved to a four-level fan-out path ab/cd/ef/gh/<rest>
#  fan4dup : kept, plus a copy at the four-level path
#  linkdir : moved to ab/<rest>, the fan-out directory `ab` a symlink (120000) to the subtree
#  gitdir  : the same with `ab` a gitlink (160000)
for v in ${VARIANTS:-exec fan4 fan4dup linkdir gitdir}; do
( source "$RT13/common.sh"; setup_team >/dev/null
  X1=$(land_high); RV=$(land_revert "$X1")
  g fetch -q origin '+refs/notes/probity:refs/notes/probity'
  X2=$(g commit-tree "$X1^{tree}" -p "$RV" -m "crypto: key (again, $v)")
  g notes --ref=probity add -f -C "$(g notes --ref=probity list "$X1")" "$X2"
  g update-ref refs/heads/main "$X2"
  NB=$(g notes --ref=probity list "$X1"); others=$(ls_notes_raw refs/notes/probity | awk -v x="$X1" '$2!=x')
  a=${X1:0:2} b=${X1:2:2} c=${X1:4:2} d=${X1:6:2} rest=${X1:8}
  case $v in
    exec) NT=$( { echo "$others"; echo "100755 $X1 $NB"; } | sort -k2,2 -s | rawtree "$R");;
    fan4|fan4dup)
      T=$(echo "100644 $rest $NB" | rawtree "$R"); T=$(echo "40000 $d $T" | rawtree "$R"); T=$(echo "40000 $c $T" | rawtree "$R"); T=$(echo "40000 $b $T" | rawtree "$R")
      keep=""; [ $v = fan4dup ] && keep="100644 $X1 $NB"
      NT=$( { echo "$others"; [ -n "$keep" ] && echo "$keep"; echo "40000 $a $T"; } | awk 'NF' | awk '{k=$2; if($1=="40000") k=k"/"; print k"\t"$0}' | LC_ALL=C sort | cut -f2 | rawtree "$R");;
    linkdir|gitdir)
      m=120000; [ $v = gitdir ] && m=160000
      T=$(echo "100644 ${X1:2} $NB" | rawtree "$R")
      NT=$( { echo "$others"; echo "$m $a $T"; } | LC_ALL=C sort -k2,2 | rawtree "$R");;
  esac
  N=$(notes_commit "$NT" "$(g rev-parse refs/notes/probity)")
  echo "$v: git notes show X1: $(g notes --ref=probity show "$X1" >/dev/null 2>&1 && echo found || echo none); fsck: $(g fsck --no-dangling 2>&1 | grep -c -i -E 'error|warning') problems"
  out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
  verdict "  04-$v replay (agent alone)" main "$X2" "$out"; [ -n "${VERBOSE:-}" ] && echo "$out" )
done
