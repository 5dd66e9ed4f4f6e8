#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# Legitimate team flows against the s15 build (all should LAND):
#  a) amend: a reviewed commit amended with more work, reviewed again, `probity push`
#  b) squash: two reviewed commits squashed into one (reset --soft), `probity push`
#  c) two clones, one note: a high (crypto/) change the agent reviews and
#     signs; alice imports the note's bundle in her own clone, signs there,
#     publishes, and pushes with `probity push`
#  d) the same but each signs in parallel and the agent merges alice's
#     notes and pushes with `probity push`
#  e) a new protected branch and then a protected tag (refs/tags/* protected)
source "$RT11/common.sh"
ok() { if [ "$(smain "$2")" = "$3" ]; then echo "$1: LANDED-OK"; else echo "$1: WRONGLY-REFUSED ($2 at $(smain "$2" | cut -c1-12))"; grep -E "DENY|rejected|error:|fatal:" <<<"$4" | head -4 | sed 's/^/    /'; fi; }
( source "$RT11/common.sh"; setup_team >/dev/null
  printf 'fn a1() {}\n' >> "$R/src/parser.rs"; L=$(approve_live); sign agent "$L"; commit_all a1 >/dev/null
  printf 'fn a2() {}\n' >> "$R/src/parser.rs"; g add -A; L2=$(approve_live); sign agent "$L2"
  g commit -q --no-verify --amend -m "a1+a2"; Y=$(g rev-parse HEAD)
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 03a-amend main "$Y" "$out" )
( source "$RT11/common.sh"; setup_team >/dev/null
  printf 'fn s1() {}\n' >> "$R/src/parser.rs"; L=$(approve_live); sign agent "$L"; commit_all s1 >/dev/null
  printf 'fn s2() {}\n' >> "$R/src/parser.rs"; L2=$(approve_live); sign agent "$L2"; commit_all s2 >/dev/null
  g reset -q --soft HEAD~2; g commit -q --no-verify -m squashed; Y=$(g rev-parse HEAD)
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 03b-squash main "$Y" "$out" )
alice_clone() { # alice_clone DIR COMMIT
  git clone -q "$S" "$1"; git -C "$1" config probity.signingKey "$W/keys/alice"
  git -C "$1" fetch -q "$R" main:refs/remotes/agent/main "refs/notes/probity:refs/notes/probity"
  git -C "$1" merge -q --ff-only agent/main
  git -C "$1" notes --ref=probity show "$2" > "$IN/bundle.json"
  "$P" --cwd "$1" bundle import "$IN/bundle.json" >/dev/null || echo "import failed"
}
( source "$RT11/common.sh"; setup_team >/dev/null
  mkdir -p "$R/crypto"; printf 'pub fn enc() {}\n' > "$R/crypto/enc.rs"
  L=$(approve_live); sign agent "$L"; Y=$(commit_all "crypto: enc"); "$P" --cwd "$R" publish >/dev/null 2>&1
  A=$W/alice; alice_clone "$A" "$Y"
  "$P" --cwd "$A" attest --lineage "$L" --sign >/dev/null || echo "alice sign failed"
  "$P" --cwd "$A" publish --range "$Y~1..$Y" >/dev/null 2>&1
  out=$("$P" --cwd "$A" push origin main 2>&1); ok 03c-alice-signs-in-her-clone-and-pushes main "$Y" "$out" )
( source "$RT11/common.sh"; setup_team >/dev/null
  mkdir -p "$R/crypto"; printf 'pub fn enc() {}\n' > "$R/crypto/enc.rs"
  L=$(approve_live); Y=$(commit_all "crypto: enc"); "$P" --cwd "$R" publish >/dev/null 2>&1
  A=$W/alice; alice_clone "$A" "$Y"
  "$P" --cwd "$A" attest --lineage "$L" --sign >/dev/null || echo "alice sign failed"
  "$P" --cwd "$A" publish --range "$Y~1..$Y" >/dev/null 2>&1
  sign agent "$L"; "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q "$A" refs/notes/probity:refs/notes/probity-alice; g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-alice
  echo "    note lines on Y: $(g notes --ref=probity show "$Y" | wc -l)"
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 03d-parallel-signers-agent-pushes main "$Y" "$out"; [ -n "${VERBOSE:-}" ] && echo "$out" )
( source "$RT11/common.sh"; setup_team >/dev/null
  git -C "$S" config --add probity.protectedRefs 'refs/heads/*'; git -C "$S" config --add probity.protectedRefs 'refs/tags/*'
  printf 'fn e() {}\n' >> "$R/src/parser.rs"; L=$(approve_live); sign agent "$L"; Y=$(commit_all e)
  out=$("$P" --cwd "$R" push origin HEAD:refs/heads/release 2>&1); ok 03e-new-branch refs/heads/release "$Y" "$out"
  g tag -a -m v1 v1; TG=$(g rev-parse v1)
  out=$("$P" --cwd "$R" push origin refs/tags/v1 2>&1); ok 03e-protected-tag refs/tags/v1 "$TG" "$out"
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 03e-then-main main "$Y" "$out" )
