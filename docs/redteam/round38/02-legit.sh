#!/usr/bin/env bash
# Round 38, 02: legitimate flows beside the attacks; each should land.
source "$(dirname "$0")/common.sh"
eval "$(sed -n '/^escalate()/,/^}/p;/^rev()/p;/^finish()/,/^}/p' "$(dirname "$0")/../round37/01-escalation.sh")"
tags_protected() { git -C $S config --add probity.protectedRefs "refs/heads/*"; git -C $S config --add probity.protectedRefs "refs/tags/*"; }
echo "== L1 a release tag on main (tags protected)"
variant38 l1 '
  tags_protected; printf "fn a() {}\n" > $R/src/a.rs; team_step "L1 medium on main" agent
  g tag -a -m rel v1.0 HEAD; out=$(git -C $R push --no-verify origin refs/tags/v1.0 2>&1); verdict "L1 tag v1.0 on main" refs/tags/v1.0 $(g rev-parse v1.0) "$out"
'
echo "== L2 a new protected branch from main; then a reviewed commit on it"
variant38 l2 '
  tags_protected; out=$(git -C $R push --no-verify origin main:refs/heads/release 2>&1); verdict "L2 release branch at main" release $(g rev-parse main) "$out"
  g checkout -q -b release; printf "fn r() {}\n" > $R/src/r.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "release fix")
  out=$(push_past HEAD:refs/heads/release); verdict "L2 reviewed commit on release" release $Y "$out"
'
echo "== L3 main moved and a tag at its new tip in one atomic push"
variant38 l3 '
  tags_protected; printf "fn b() {}\n" > $R/src/b.rs; L=$(approve_live); sign agent $L; Y=$(commit_all "medium")
  g tag v2 $Y; out=$(push_past main refs/tags/v2); verdict "L3 main" main $Y "$out"; verdict "L3 tag v2 (same push)" refs/tags/v2 $Y "$out"
'
echo "== L4 the maintainer changes the required check program; alice signs (agent + ci + alice)"
variant38 l4 '
  mkdir -p $R/scripts; printf "$CHECKPY" > $R/scripts/check.py; check_policy "[\"python3\",\"scripts/check.py\"]"
  printf "import os, sys\n# stricter\nsys.exit(1 if os.path.exists(\"src/a.rs\") and \"panic\" in open(\"src/a.rs\").read() else 0)\n" > $R/scripts/check.py
  Y=$(commit_all "check.py improved by the maintainer"); SIGNERS="ci agent alice" ci_check $Y "L4 check program changed, agent + ci + alice" python3 scripts/check.py
'
echo "== L4b the same with a sh -c argv and scripts/__main__.py (the shape of 38ckc): the maintainer changes the program"
variant38 l4b '
  mkdir -p $R/scripts; printf "$CHECKPY" > $R/scripts/check.py; check_policy "[\"sh\",\"-c\",\"python3 scripts/check.py\"]"
  printf "import os, sys\n# stricter\nsys.exit(1 if os.path.exists(\"src/a.rs\") and \"panic\" in open(\"src/a.rs\").read() else 0)\n" > $R/scripts/check.py
  Y=$(commit_all "check.py improved"); SIGNERS="ci agent alice" ci_check $Y "L4b sh -c check program changed, agent + ci + alice" sh -c "python3 scripts/check.py"
'
echo "== L5 an escalation resolved by alice (recover with her authorization), agent + alice sign"
variant38 l5 '
  escalate
  s=$(pj recover --predecessor-lineage $E --expected-predecessor-revision $(rev $E) --disposition escalation_authorized --reason "flaky check" --actor alice --authorization "OPS-1 alice")
  L2=$(jq -r .lineage_id <<<"$s"); echo "    $(finish $L2)"; sign agent $L2; sign alice $L2; Y=$(commit_all "escalated, alice authorized")
  out=$(push_past main); verdict "L5 escalation + alice" main $Y "$out"
'
echo "== L6 server HEAD names a legacy master (unprotected; protected: main, tags) kept at main: a release tag on main"
variant38 l6 '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  printf "fn a() {}\n" > $R/src/a.rs; team_step "L6 medium on main" agent; git -C $S update-ref refs/heads/master main
  g tag v1 HEAD; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L6 tag v1 on main (master = main)" refs/tags/v1 $(g rev-parse HEAD) "$out"
'
echo "== L7 the same, but the legacy master was left behind at the first commit: a release tag on main"
variant38 l7 '
  git -C $S config probity.protectedRefs refs/heads/main; git -C $S config --add probity.protectedRefs "refs/tags/*"
  git -C $S branch master main; git -C $S symbolic-ref HEAD refs/heads/master
  printf "fn a() {}\n" > $R/src/a.rs; team_step "L7 medium on main" agent
  g tag v1 HEAD; out=$(git -C $R push --no-verify origin refs/tags/v1 2>&1); verdict "L7 tag v1 on main (master stale)" refs/tags/v1 $(g rev-parse HEAD) "$out"
'
