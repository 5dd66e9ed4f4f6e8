#!/usr/bin/env bash
RT11=${RT11:-$(cd "$(dirname "$0")" && pwd)}
# Two clones, one note, the agent pushes: alice signs the agent's high
# (crypto/) review in her own clone; the agent merges her notes into its
# own (cat_sort_uniq) so the note on Y holds both signatures, then pushes.
#  a) `probity push origin main`                (the client's pre-check)
#  b) the same after `probity bundle import` of the merged note
#  c) plain `git push --atomic` of main and the notes (the server alone)
source "$RT11/common.sh"
ok() { if [ "$(smain "$2")" = "$3" ]; then echo "$1: LANDED-OK"; else echo "$1: REFUSED ($2 at $(smain "$2" | cut -c1-12))"; grep -E "DENY|rejected|error|fatal:" <<<"$4" | head -3 | cut -c1-300 | sed 's/^/    /'; fi; }
prep() {
  setup_team >/dev/null
  mkdir -p "$R/crypto"; printf 'pub fn enc() {}\n' > "$R/crypto/enc.rs"
  L=$(approve_live); Y=$(commit_all "crypto: enc"); "$P" --cwd "$R" publish >/dev/null 2>&1
  A=$W/alice; git clone -q "$S" "$A"; git -C "$A" config probity.signingKey "$W/keys/alice"
  git -C "$A" fetch -q "$R" main:refs/remotes/agent/main "refs/notes/probity:refs/notes/probity"
  git -C "$A" merge -q --ff-only agent/main
  git -C "$A" notes --ref=probity show "$Y" > "$IN/bundle.json"; "$P" --cwd "$A" bundle import "$IN/bundle.json" >/dev/null
  "$P" --cwd "$A" attest --lineage "$L" --sign >/dev/null || echo "alice sign failed"
  "$P" --cwd "$A" publish --range "$Y~1..$Y" >/dev/null 2>&1
  sign agent "$L"; "$P" --cwd "$R" publish >/dev/null 2>&1
  g fetch -q "$A" refs/notes/probity:refs/notes/probity-alice
  g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-alice
}
( source "$RT11/common.sh"; prep
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 04a-probity-push main "$Y" "$out" )
( source "$RT11/common.sh"; prep
  for i in $(seq 1 $(g notes --ref=probity show "$Y" | wc -l)); do
    g notes --ref=probity show "$Y" | sed -n "${i}p" > "$IN/line.json"; "$P" --cwd "$R" bundle import "$IN/line.json" >/dev/null 2>&1; done
  out=$("$P" --cwd "$R" push origin main 2>&1); ok 04b-probity-push-after-import main "$Y" "$out" )
( source "$RT11/common.sh"; prep
  out=$(g push --no-verify --atomic origin main refs/notes/probity 2>&1); ok 04c-plain-atomic-push main "$Y" "$out" )
