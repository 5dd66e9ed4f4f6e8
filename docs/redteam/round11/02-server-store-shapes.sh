#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# The server hook reads blobs of its own store in-process (loose.rs,
# packed.rs; D-R148, D-R155) where that is certainly git's answer. Each
# server store shape below, with the content the gate must scan already in
# the server's store (pushed earlier on an unprotected tag, so the delivered
# diff's blob is read from the server's store, not the quarantine):
#   loose | gc (one pack) | repack -a without -d (the blob in two packs) |
#   multi-pack-index + bitmap | alternates (objects in a shared store)
# For each: (a) a high change (AKIA content in src/, not crypto/) approved
# by the agent alone: must be REFUSED roles_unmet; (b) a legitimate medium
# change signed by the agent: must LAND; (c) an unreviewed commit: REFUSED.
source "$RT11/common.sh"
for shape in loose gc repack-dup midx alternates; do
( source "$RT11/common.sh"; setup_team >/dev/null
  AK='pub const K: &str = "AKIAABCDEFGHIJKLMNOP";\n'
  # the AKIA blob reaches the server's store on an unprotected tag
  g checkout -q -b side; printf "$AK" > "$R/src/k.rs"; commit_all side >/dev/null
  g tag t-side; g push -q --no-verify origin refs/tags/t-side 2>&1 | grep -v '^$' | head -2
  g checkout -q main; g branch -q -D side; g tag -d t-side >/dev/null
  case $shape in
    loose) ;;
    gc) git -C "$S" gc -q --prune=now ;;
    repack-dup) git -C "$S" repack -q; git -C "$S" repack -q -a ;;  # old pack kept: duplicates
    midx) git -C "$S" repack -q -a -d; git -C "$S" multi-pack-index write --bitmap 2>/dev/null || git -C "$S" multi-pack-index write ;;
    alternates) mkdir -p "$W/shared.git"; git init -q --bare "$W/shared.git"
       git -C "$S" repack -q -a -d; mv "$S/objects/pack/"* "$W/shared.git/objects/pack/"
       echo "$W/shared.git/objects" > "$S/objects/info/alternates" ;;
  esac
  echo "[$shape] server packs: $(ls "$S/objects/pack" 2>/dev/null | grep -c '\.pack$'), midx: $(test -e "$S/objects/pack/multi-pack-index" && echo yes || echo no), alternates: $(test -e "$S/objects/info/alternates" && echo yes || echo no)"
  git -C "$S" fsck --no-progress 2>&1 | grep -v "^dangling" | head -2
  # (a) AKIA content, agent alone
  printf "$AK" > "$R/src/k.rs"
  echo "    start: $(risk_of_live)"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "key")
  out=$(push_past main); verdict "02a-$shape-AKIA-agent-only" main "$Y" "$out"
  g reset -q --hard origin/main 2>/dev/null || g reset -q --hard "$(smain main)"
  # (c) unreviewed
  printf 'fn c() {}\n' >> "$R/src/parser.rs"; Y=$(commit_all "unreviewed")
  out=$(push_past main); verdict "02c-$shape-unreviewed" main "$Y" "$out"
  g reset -q --hard "$(smain main)"
  # (b) legitimate medium change, reusing a blob the server holds
  printf 'fn b() {}\n' >> "$R/src/parser.rs"; L=$(approve_live); sign agent "$L"; Y=$(commit_all "legit")
  out=$("$P" --cwd "$R" push origin main 2>&1); verdict "02b-$shape-legit-probity-push" main "$Y" "$out"
)
done
