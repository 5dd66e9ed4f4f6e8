#!/usr/bin/env bash
# D-R146 claims: "every delivery the hook allowed is named by the notes that
# name its approval ... the replay check finds it there whatever the window
# holds". But the notes search reads at most 64 names per lineage in path
# order (MAX_PRIOR_NOTES); past that bound (D-R137) only the ref's history
# WINDOW (newest 1,000 changing commits) is asked, and a named commit
# outside the window is not. So: deliver L1 properly (its note on its own
# commit), alice's reviewed revert, N self-reviewed low-risk filler commits
# (pushes the delivery out of the window, as round 7's 01), then replay the
# revert of the revert with L1's note, in a push that also adds 64 junk
# notes naming L1 on ids that sort first (no such commits).
# CONTROL=noflood: the same without the flood (REFUSED expected).
# N=5: the same with the delivery still in the window (REFUSED expected).
source "$(dirname "$0")/../lib.sh"
N=${N:-1000}
setup_team
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
out=$(push_past main); verdict "1. first delivery of L1 (note on its own commit)" main "$Y" "$out"
echo "   server note of Y names L1: $(git -C "$S" notes --ref=probity show "$Y" 2>/dev/null | grep -c "$L1")"

g revert --no-edit --no-commit "$Y" && RV=$(commit_all "revert encrypt")
st=$(pj start --commit "$RV"); LR=$(approve_started "$st"); sign ci "$LR"; sign alice "$LR"
out=$(push_past main); verdict "2. alice's reviewed revert" main "$RV" "$out"

t0=$(date +%s); mkdir -p "$R/notes-docs"
for i in $(seq $((N-1))); do
  printf 'entry %s\n' "$i" > "$R/notes-docs/log.md"
  approve_live >/dev/null; commit_all "doc $i" >/dev/null
done
rm -rf "$R/notes-docs"; approve_live >/dev/null; F=$(commit_all "docs tidy")
echo "   $N filler commits made in $(( $(date +%s)-t0 )) s"
t0=$(date +%s)
base=$(smain main); n=$(g rev-list --count "$base..$F")
while [ "$n" -gt 0 ]; do
  step=$(( n > 100 ? 100 : n )); tipc=$(g rev-list --reverse "$base..$F" | sed -n "${step}p")
  out=$(push_past "$tipc:refs/heads/main")
  [ "$(smain main)" = "$tipc" ] || { verdict "3. filler stack" main "$tipc" "$out"; exit 1; }
  base=$tipc; n=$(g rev-list --count "$base..$F")
done
verdict "3. $N filler commits" main "$F" "$out"; echo "   pushed in $(( $(date +%s)-t0 )) s"

# 4. the replay: exactly L1's trees, L1's note copied from Y.
g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote'; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote
g checkout -q "$Y" -- crypto/aes.rs; Y2=$(commit_all "bring encrypt back")
echo "   Y2 delivers L1's exact trees: $( [ "$(g rev-parse $Y2^{tree})" = "$(g rev-parse $Y^{tree})" ] && [ "$(g rev-parse $Y2~1^{tree})" = "$(g rev-parse $Y~1^{tree})" ] && echo yes || echo no)"
g notes --ref=probity copy -f "$Y" "$Y2"
if [ "${CONTROL:-}" != noflood ]; then
  for i in $(seq 1 64); do
    fake=$(printf '%040x' "$i")
    printf 'junk naming %s\n' "$L1" | g notes --ref=probity add -f -F - "$fake" 2>/dev/null \
      || { printf 'junk naming %s\n' "$L1" > "$IN/j"; b=$(g hash-object -w "$IN/j"); echo "bad"; }
  done
fi
echo "   notes naming L1 locally: $(g grep -l -F "$L1" refs/notes/probity -- | wc -l)"
t0=$(date +%s)
out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1)
verdict "4. REPLAY of L1 after $N filler commits (flood=${CONTROL:-yes})" main "$Y2" "$out"
echo "   hook time $(( $(date +%s)-t0 )) s"
