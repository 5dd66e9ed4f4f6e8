#!/usr/bin/env bash
# Round 39, 05: the common-ancestor vouching (D-R177's addendum) in a
# repository that adopted probity with history: a commit from before the
# hook (no note) and an old release tag v0 (protected). A new release tag
# on main should land (the history was there before probity; the governed
# control shows the server accepts it when HEAD governs).
source "$(dirname "$0")/common.sh"
run() { local id=$1 title=$2; shift 2; ( echo "== $id: $title"; variant39 $id "$@" ) > $OUTD/$id 2>&1 & }
OUTD=$(mktemp -d /tmp/r39-05.XXXXXX)
# legacy V0: one more commit pushed before the hook (hooks moved aside),
# and (V0=1) a tag v0 at the root made on the server; heads and tags protected.
legacy() {
  mv $S/hooks/pre-receive $S/hooks/pre-receive.off; mv $S/hooks/reference-transaction $S/hooks/reference-transaction.off
  printf "fn old() {}\n" > $R/src/old.rs; commit_all "pre-probity history" >/dev/null; g push -q --no-verify origin main
  [ "$1" = 1 ] && git -C $S tag v0 $(g rev-list --max-parents=0 HEAD)
  mv $S/hooks/pre-receive.off $S/hooks/pre-receive; mv $S/hooks/reference-transaction.off $S/hooks/reference-transaction
  git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"
  echo "    server: $(git -C $S for-each-ref --format='%(refname:short)' | tr '\n' ' ')"
}
tag_on_main() {
  printf "fn a() {}\n" > $R/src/a.rs; team_step "    medium on main" agent
  g tag v1 main; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "$1 tag v1 on main" refs/tags/v1 $(g rev-parse main) "$out"
}
run L9c 'control: HEAD -> main (governed), old tag v0 at the root, one pre-probity commit' 'legacy 1; tag_on_main L9c'
run L9b 'HEAD unborn (refs/heads/master), no old tag (main the only protected tip), one pre-probity commit' 'legacy 0; git -C $S symbolic-ref HEAD refs/heads/master; tag_on_main L9b'
run L9 'HEAD unborn (refs/heads/master), old tag v0 at the root, one pre-probity commit' 'legacy 1; git -C $S symbolic-ref HEAD refs/heads/master; tag_on_main L9'
wait
for id in L9c L9b L9; do cat $OUTD/$id; done
rm -rf $OUTD
