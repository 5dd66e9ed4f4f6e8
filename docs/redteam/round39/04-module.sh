#!/usr/bin/env bash
# Round 39, 04: the required_check floor's reading of `python3 -m A.B`
# (module_paths: A/B.py, the directory A/B, A/__init__.py) against what
# Python's import system actually loads for A.B. Round 38's runner setup
# (medium: agent AND ci; ci re-runs the check). The base holds the honest
# tools/check.py in a namespace package (no tools/__init__.py: the usual
# scripts directory); the change makes src/a.rs fail the check and ADDS a
# file Python loads instead of (or before) tools/check.py. LANDED is a hole.
source "$(dirname "$0")/common.sh"
run() { local id=$1 title=$2; shift 2; ( echo "== $id: $title"; variant39 $id "$@" ) > $OUTD/$id 2>&1 & }
OUTD=$(mktemp -d /tmp/r39-04.XXXXXX)
# mod_attack LABEL ADD: ADD (a shell snippet) adds the hijacking file (or
# rewrites the program). PROG (default tools/check.py) and ARGV (default
# python3 -m tools.check) may be set.
mod_attack() {
  local label=$1 add=$2 prog=${PROG:-tools/check.py}; local -a argv=(${ARGV:-python3 -m tools.check})
  local json; json=$(printf '%s\n' "${argv[@]}" | jq -R . | jq -cs .)
  PWN=/tmp/r39-pwned-04-$label; rm -f $PWN
  mkdir -p $R/$(dirname $prog); printf "$CHECKPY39" > $R/$prog
  check_policy "$json"
  echo "    control, honest program, a failing src change:"
  printf "fn a() { panic!() }\n" > $R/src/a.rs; Y0=$(commit_all "src change the check refuses")
  ( ci_check $Y0 "    $label-control" "${argv[@]}" )
  g reset -q --hard HEAD~1; rm -f $PWN
  printf "fn a() { panic!() }\n" > $R/src/a.rs
  eval "$add"
  echo "    module tools resolves to: $(cd $R && python3 -c 'import importlib.util as u; s=u.find_spec("tools"); print(s.origin or list(s.submodule_search_locations))' 2>&1 | tail -1); the argv exits here with: $(cd $R && "${argv[@]}" >/dev/null 2>&1; echo $?)"; rm -f $PWN
  echo "    agent's risk of the attack: $(risk_of_live)"
  rm -rf $R/.git/probity
  Y=$(commit_all "src change + a file python loads first")
  echo "    changed: $(g show --name-only --format= HEAD | tr '\n' ' ')"
  ci_check $Y "$label src fails the check + hijack, ci re-ran the check (agent + ci)" "${argv[@]}"
  [ -e $PWN ] && echo "    PAYLOAD RAN in ci's check run ($PWN)"; rm -f $PWN
}
run 39ckmp 'a root tools.py beside the namespace package tools/ (a module beats a namespace portion; importing it runs it)' \
  'mod_attack 39ckmp "printf \"import sys\\nopen(\\\"\$PWN\\\", \\\"w\\\").close()\\nsys.exit(0)\\n\" > \$R/tools.py"'
run 39ckmx 'tools/check.so beside tools/check.py (an extension module beats a source module; its constructor runs at load)' \
  'mod_attack 39ckmx "printf \"#include <stdio.h>\\n#include <unistd.h>\\n__attribute__((constructor)) static void p(void) { fclose(fopen(\\\"\$PWN\\\", \\\"w\\\")); _exit(0); }\\n\" > \$IN/p.c && gcc -shared -fPIC -o \$R/tools/check.so \$IN/p.c"'
run 39ckbm 'argv [python3, -Bm, tools.check] (-m glued after another flag: the reader takes tools.check for a script path); the change rewrites tools/check.py' \
  'ARGV="python3 -Bm tools.check"; mod_attack 39ckbm "printf \"import sys\\nopen(\\\"\$PWN\\\", \\\"w\\\").close()\\nsys.exit(0)\\n\" > \$R/tools/check.py"'
run 39ckss 'argv [python3, scripts/check.py] (floored); the change ADDS scripts/subprocess.py, which the honest check.py imports (sys.path[0] is the script directory: it shadows the standard library)' \
  'PROG=scripts/check.py; ARGV="python3 scripts/check.py"; mod_attack 39ckss "printf \"import sys\\nopen(\\\"\$PWN\\\", \\\"w\\\").close()\\nsys.exit(0)\\n\" > \$R/scripts/subprocess.py"'
wait
for id in 39ckmp 39ckmx 39ckbm 39ckss; do cat $OUTD/$id; done
rm -rf $OUTD
