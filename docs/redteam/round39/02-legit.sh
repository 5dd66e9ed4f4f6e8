#!/usr/bin/env bash
# Round 39, 02: legitimate flows beside the attacks; each should land
# (L5: and stay medium). Run in parallel, printed in order.
source "$(dirname "$0")/common.sh"
tags_protected() { git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"; }
run() { local id=$1 title=$2; shift 2; ( echo "== $id: $title"; variant39 $id "$@" ) > $OUTD/$id 2>&1 & }
OUTD=$(mktemp -d /tmp/r39-02.XXXXXX)
run L1 'a release tag on main (HEAD -> main; heads and tags protected)' '
  tags_protected; printf "fn a() {}\n" > $R/src/a.rs; team_step "L1 medium on main" agent
  g tag -a -m rel v1.0 HEAD; out=$(git -C $R push --no-verify origin refs/tags/v1.0 2>&1); verdict "L1 tag v1.0 on main" refs/tags/v1.0 $(g rev-parse v1.0) "$out"
'
run L2 'a release branch from main and a release tag on main in one atomic push (two protected refs created); then a reviewed commit on the branch' '
  tags_protected; printf "fn a() {}\n" > $R/src/a.rs; team_step "L2 medium on main" agent
  g tag v1 main; out=$(git -C $R push --no-verify --atomic origin main:refs/heads/release/1 refs/tags/v1 2>&1)
  verdict "L2 release/1 at main" release/1 $(g rev-parse main) "$out"; verdict "L2 tag v1 (same push)" refs/tags/v1 $(g rev-parse main) "$out"
  g checkout -q -b release/1; printf "fn r() {}\n" > $R/src/r.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "release fix")
  out=$(push_past HEAD:refs/heads/release/1); verdict "L2 reviewed commit on release/1" release/1 $Y "$out"
'
run L3 'main moved and a tag at its new tip in one atomic push' '
  tags_protected; printf "fn b() {}\n" > $R/src/b.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "medium")
  g tag v2 $Y; out=$(push_past main refs/tags/v2); verdict "L3 main" main $Y "$out"; verdict "L3 tag v2 (same push)" refs/tags/v2 $Y "$out"
'
run L4 'the maintainer changes the program of a sh -c check (floored since 44eee69b): ci re-runs it, agent + ci + alice sign' '
  mkdir -p $R/scripts; printf "$CHECKPY" > $R/scripts/check.py; check_policy "[\"sh\",\"-c\",\"set -e; python3 scripts/check.py\"]"
  printf "import os, sys\n# stricter\nsys.exit(1 if os.path.exists(\"src/a.rs\") and \"panic\" in open(\"src/a.rs\").read() else 0)\n" > $R/scripts/check.py
  echo "    risk of the edit: $(risk_of_live)"; rm -rf $R/.git/probity
  Y=$(commit_all "check.py improved by the maintainer"); SIGNERS="ci agent alice" ci_check $Y "L4 check program changed, agent + ci + alice" sh -c "set -e; python3 scripts/check.py"
'
run L5 'a test-file edit under a [python3, -m, pytest, -q, tests] check (must stay medium): agent + ci' '
  mkdir -p $R/tests; printf "def test_a():\n    assert \"panic\" not in open(\"src/parser.rs\").read()\n" > $R/tests/test_a.py
  check_policy "[\"python3\",\"-m\",\"pytest\",\"-q\",\"tests\"]"
  printf "def test_a():\n    assert \"panic\" not in open(\"src/parser.rs\").read()\n\ndef test_b():\n    assert 1 + 1 == 2\n" > $R/tests/test_a.py
  printf "// parser\nfn parse() { /* tested */ }\n" > $R/src/parser.rs
  echo "    risk of the edit: $(risk_of_live)"; rm -rf $R/.git/probity
  Y=$(commit_all "a test added"); ci_check $Y "L5 test edit under pytest, agent + ci" python3 -m pytest -q tests
'
run L6 'server HEAD -> a stale legacy master outside protectedRefs (round 38 L7, a false denial then): a release tag on main' '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  printf "fn a() {}\n" > $R/src/a.rs; team_step "L6 medium on main" agent
  g tag v1 HEAD; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L6 tag v1 on main (master stale)" refs/tags/v1 $(g rev-parse HEAD) "$out"
'
run L7 'a protected orphan branch (gh-pages, no history shared with main, reviewed); HEAD -> main: a release tag on main' '
  tags_protected; printf "fn a() {}\n" > $R/src/a.rs; team_step "L7 medium on main" agent
  g checkout -q --orphan gh-pages; g rm -q -r --cached . ; rm -rf $R/src; printf "<html></html>\n" > $R/index.html; g add index.html; O=$(g commit -q --no-verify -m pages && g rev-parse HEAD)
  L=$(approve_commit $O); sign agent $L; out=$(push_past gh-pages); verdict "L7 orphan gh-pages (no policy in its tree), reviewed, agent signs" gh-pages $O "$out"
  g checkout -q -f main; g tag v1 main; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L7 tag v1 on main" refs/tags/v1 $(g rev-parse main) "$out"
'
run L8 'as L6 (HEAD -> stale unprotected master) plus a protected orphan branch pages (created while master = main): a release tag on main' '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs refs/heads/pages; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  printf "fn a() {}\n" > $R/src/a.rs; team_step "L8 medium on main" agent; git -C $S update-ref refs/heads/master main
  g checkout -q --orphan pages; g rm -q -r --cached . ; rm -rf $R/src; printf "<html></html>\n" > $R/index.html; g add index.html; O=$(g commit -q --no-verify -m pages && g rev-parse HEAD)
  L=$(approve_commit $O); sign agent $L; out=$(push_past pages); verdict "L8 orphan pages, reviewed, agent signs" pages $O "$out"
  git -C $S update-ref refs/heads/master $(git -C $S rev-parse main~1)
  g checkout -q -f main; g tag v1 main; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L8 tag v1 on main (master stale, pages orphan)" refs/tags/v1 $(g rev-parse main) "$out"
'
wait
for id in L1 L2 L3 L4 L5 L6 L7 L8; do cat $OUTD/$id; done
rm -rf $OUTD
