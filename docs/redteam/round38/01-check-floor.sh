#!/usr/bin/env bash
# Round 38, 01: the required_check floor (D-R178) against the spelling of
# the argv. Runner policy (medium: agent AND ci; ci re-runs the required
# check). Each case: the protected base requires a check whose program is
# a file in the tree; the change makes src/a.rs fail that check AND
# rewrites the program to exit 0 (plus a payload); ci re-runs exactly the
# required argv on the candidate; agent + ci sign. The floor should make
# the change high (maintainer needed): a LANDED is a hole.
source "$(dirname "$0")/common.sh"
# case LABEL ARGV_JSON PROGRAM_FILE ARGV...: base with PROGRAM_FILE = the
# honest check, the policy requiring ARGV_JSON; then the attack.
attack() {
  local label=$1 argv=$2 prog=$3; shift 3
  mkdir -p $R/$(dirname $prog); printf "$CHECKPY" > $R/$prog
  check_policy "$argv"
  echo "    control, honest program, a failing src change:"
  printf "fn a() { panic!() }\n" > $R/src/a.rs; Y0=$(commit_all "src change the check refuses")
  ( ci_check $Y0 "    $label-control" "$@" )
  g reset -q --hard HEAD~1
  rm -f $PWN
  printf "fn a() { panic!() }\n" > $R/src/a.rs
  printf "import sys\n$PYPAY\nsys.exit(0)\n" > $R/$prog
  echo "    agent's risk of the attack: $(risk_of_live)"
  rm -rf $R/.git/probity
  Y=$(commit_all "src change + the check program rewritten")
  ci_check $Y "$label program rewritten, ci re-ran the check (agent + ci)" "$@"
  [ -e $PWN ] && echo "    PAYLOAD RAN in ci's check run ($PWN)"; rm -f $PWN
}
echo "== 38ck0 control: argv [python3, scripts/check.py] (round 37's 37ck1, closed by D-R178)"
variant38 ck0 'attack 38ck0 "[\"python3\",\"scripts/check.py\"]" scripts/check.py python3 scripts/check.py'
echo "== 38ckc: argv [sh, -c, \"python3 scripts/check.py\"] (the path inside one argv item)"
variant38 ckc 'attack 38ckc "[\"sh\",\"-c\",\"python3 scripts/check.py\"]" scripts/check.py sh -c "python3 scripts/check.py"'
echo "== 38ckd: argv [python3, scripts] (a directory: python runs scripts/__main__.py)"
variant38 ckd 'attack 38ckd "[\"python3\",\"scripts\"]" scripts/__main__.py python3 scripts'
echo "== 38ckm: argv [python3, -m, scripts.check] (a module name: python runs scripts/check.py)"
variant38 ckm 'attack 38ckm "[\"python3\",\"-m\",\"scripts.check\"]" scripts/check.py python3 -m scripts.check'
echo "== 38ckl: argv [python3, scripts/check.py], where scripts is a symlink (in the base) to tools/; the change edits tools/check.py"
variant38 ckl 'mkdir -p $R/tools; ln -s tools $R/scripts; attack 38ckl "[\"python3\",\"scripts/check.py\"]" scripts/check.py python3 scripts/check.py; echo "    changed in the attack: $(g show --name-only --format= HEAD | tr "\n" " ")"'
echo "== 38ckf: argv [python3, scripts/check.py], where scripts/check.py is a symlink (in the base) to ../tools/check_impl.py; the change edits the target"
variant38 ckf 'mkdir -p $R/tools $R/scripts; printf "" > $R/tools/check_impl.py; ln -s ../tools/check_impl.py $R/scripts/check.py; attack 38ckf "[\"python3\",\"scripts/check.py\"]" scripts/check.py python3 scripts/check.py; echo "    changed in the attack: $(g show --name-only --format= HEAD | tr "\n" " ")"'
