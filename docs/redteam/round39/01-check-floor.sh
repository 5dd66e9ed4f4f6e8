#!/usr/bin/env bash
# Round 39, 01: the required_check floor (D-R178 as of 44eee69b:
# argv_paths/command_paths/shell_commands/module_paths, resolved through
# links) against argv shapes its reader does not model. Round 38's setup:
# runner policy (medium: agent AND ci; ci re-runs the required check).
# Each case: the protected base requires a check whose program is a file
# in the tree; control: an honest program refuses a src/a.rs with panic;
# attack: the change makes src/a.rs fail AND rewrites the program to exit
# 0 plus a payload; ci re-runs exactly the required argv; agent + ci sign.
# The floor should make the change high (alice needed): LANDED is a hole.
# The cases run in parallel, each with its own team, server and marker.
source "$(dirname "$0")/common.sh"
# attack39 LABEL ARGV_JSON PROG KIND ARGV...: KIND py | sh | make picks the
# honest and the rewritten program.
attack39() {
  local label=$1 argv=$2 prog=$3 kind=$4; shift 4
  PWN=/tmp/r39-pwned-01-$label; rm -f $PWN
  mkdir -p $R/$(dirname $prog)
  case $kind in
    py) printf "$CHECKPY39" > $R/$prog ;;
    sh) printf '#!/bin/sh\ncd "$(git rev-parse --show-toplevel)"\n! grep -q panic src/a.rs 2>/dev/null\n' > $R/$prog ;;
    make) printf 'check:\n\t! grep -q panic src/a.rs\n' > $R/$prog ;;
    shn) printf 'cd "$(git rev-parse --show-toplevel)"\n! grep -q panic src/a.rs 2>/dev/null\n' > $R/$prog ;;
    js) printf "const fs = require('fs');\nprocess.exit(fs.existsSync('src/a.rs') && fs.readFileSync('src/a.rs', 'utf8').includes('panic') ? 1 : 0);\n" > $R/$prog ;;
  esac
  eval "${PRE:-}"
  check_policy "$argv"
  echo "    control, honest program, a failing src change:"
  printf "fn a() { panic!() }\n" > $R/src/a.rs; Y0=$(commit_all "src change the check refuses")
  ( ci_check $Y0 "    $label-control" "$@" )
  g reset -q --hard HEAD~1
  rm -f $PWN
  printf "fn a() { panic!() }\n" > $R/src/a.rs
  case $kind in
    py) printf "import sys\nopen('$PWN','w').close()\nsys.exit(0)\n" > $R/$prog ;;
    sh) printf "#!/bin/sh\ntouch $PWN\nexit 0\n" > $R/$prog ;;
    make) printf "check:\n\ttouch $PWN\n" > $R/$prog ;;
    shn) printf "touch $PWN\nexit 0\n" > $R/$prog ;;
    js) printf "require('fs').writeFileSync('$PWN', '');\nprocess.exit(0);\n" > $R/$prog ;;
  esac
  echo "    agent's risk of the attack: $(risk_of_live)"
  rm -rf $R/.git/probity
  Y=$(commit_all "src change + the check program rewritten")
  ci_check $Y "$label program rewritten, ci re-ran the check (agent + ci)" "$@"
  [ -e $PWN ] && echo "    PAYLOAD RAN in ci's check run ($PWN)"; rm -f $PWN
}
run() { # run ID TITLE BODY: each case in the background, printed in order
  local id=$1 title=$2; shift 2
  ( echo "== $id: $title"; variant39 $id "$@" ) > $OUTD/$id 2>&1 &
}
OUTD=$(mktemp -d /tmp/r39-01.XXXXXX)
run 39ck0 'control: argv [python3, -Wd, scripts/check.py] (the option glued: the reader sees the script)' \
  'attack39 39ck0 "[\"python3\",\"-Wd\",\"scripts/check.py\"]" scripts/check.py py python3 -Wd scripts/check.py'
run 39ckw 'argv [python3, -W, ignore, scripts/check.py] (an option with a separate value: the reader takes "ignore" for the script)' \
  'attack39 39ckw "[\"python3\",\"-W\",\"ignore\",\"scripts/check.py\"]" scripts/check.py py python3 -W ignore scripts/check.py'
run 39cke 'argv [env, python3, scripts/check.py] (a launcher before the interpreter)' \
  'attack39 39cke "[\"env\",\"python3\",\"scripts/check.py\"]" scripts/check.py py env python3 scripts/check.py'
run 39ckt 'argv [timeout, 600, python3, scripts/check.py] (a wrapper before the interpreter)' \
  'attack39 39ckt "[\"timeout\",\"600\",\"python3\",\"scripts/check.py\"]" scripts/check.py py timeout 600 python3 scripts/check.py'
run 39ckec 'argv [bash, -ec, "python3 scripts/check.py"] (the -c glued with another shell flag)' \
  'attack39 39ckec "[\"bash\",\"-ec\",\"python3 scripts/check.py\"]" scripts/check.py py bash -ec "python3 scripts/check.py"'
run 39ckcd 'argv [sh, -c, "cd scripts && python3 check.py"] (a path relative to a cd in the -c string)' \
  'attack39 39ckcd "[\"sh\",\"-c\",\"cd scripts && python3 check.py\"]" scripts/check.py py sh -c "cd scripts && python3 check.py"'
run 39ckv 'argv [sh, -c, "S=scripts/check.py; python3 \"$S\""] (the path in a shell variable)' \
  'attack39 39ckv "[\"sh\",\"-c\",\"S=scripts/check.py; python3 \\\"\$S\\\"\"]" scripts/check.py py sh -c "S=scripts/check.py; python3 \"\$S\""'
run 39cko 'argv [bash, -o, pipefail, scripts/check.sh] (a shell option with a separate value: "pipefail" taken for the script)' \
  'attack39 39cko "[\"bash\",\"-o\",\"pipefail\",\"scripts/check.sh\"]" scripts/check.sh sh bash -o pipefail scripts/check.sh'
run 39ckmf 'argv [make, -f, ci/Makefile, check] (the makefile named by -f; --file=ci/Makefile would be read)' \
  'attack39 39ckmf "[\"make\",\"-f\",\"ci/Makefile\",\"check\"]" ci/Makefile make make -f ci/Makefile check'
run 39ckpc 'argv [python3, -c, "import runpy; runpy.run_path(\"scripts/check.py\")"] (python -c naming the script)' \
  'attack39 39ckpc "[\"python3\",\"-c\",\"import runpy; runpy.run_path(\\\"scripts/check.py\\\", run_name=\\\"__main__\\\")\"]" scripts/check.py py python3 -c "import runpy; runpy.run_path(\"scripts/check.py\", run_name=\"__main__\")"'
run 39cko2 'argv [bash, -o, pipefail, ci/run-check] (39cko with a program file no shell_source rule rates)' \
  'attack39 39cko2 "[\"bash\",\"-o\",\"pipefail\",\"ci/run-check\"]" ci/run-check shn bash -o pipefail ci/run-check'
run 39ckif 'argv [sh, -c, "if python3 scripts/check.py; then exit 0; fi; exit 1"] (a compound command: "if" taken for the program)' \
  'attack39 39ckif "[\"sh\",\"-c\",\"if python3 scripts/check.py; then exit 0; fi; exit 1\"]" scripts/check.py py sh -c "if python3 scripts/check.py; then exit 0; fi; exit 1"'
run 39ckex 'argv [sh, -c, "exec python3 scripts/check.py"] (a builtin before the interpreter)' \
  'attack39 39ckex "[\"sh\",\"-c\",\"exec python3 scripts/check.py\"]" scripts/check.py py sh -c "exec python3 scripts/check.py"'
run 39ckn 'argv [node, --require, ./ci/setup.js, scripts/check.js] (node option with a separate value: ci/setup.js taken for the script)' \
  'PRE="mkdir -p \$R/ci; : > \$R/ci/setup.js"; attack39 39ckn "[\"node\",\"--require\",\"./ci/setup.js\",\"scripts/check.js\"]" scripts/check.js js node --require ./ci/setup.js scripts/check.js'
run 39cknpm 'argv [npm, run, -s, check], package.json (base) maps check to "node scripts/check.js"; the change rewrites scripts/check.js' \
  'PRE="printf %s \"{\\\"name\\\":\\\"x\\\",\\\"private\\\":true,\\\"scripts\\\":{\\\"check\\\":\\\"node scripts/check.js\\\"}}\" > \$R/package.json"; attack39 39cknpm "[\"npm\",\"run\",\"-s\",\"check\"]" scripts/check.js js npm run -s check'
wait
for id in 39ck0 39ckw 39cke 39ckt 39ckec 39ckcd 39ckv 39cko 39ckmf 39ckpc 39cko2 39ckif 39ckex 39ckn 39cknpm; do cat $OUTD/$id; done
rm -rf $OUTD
