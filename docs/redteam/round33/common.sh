# Round 33 helpers (sourced): round 32's (31's ... 21's setup_team, setup,
# hit, runs_in_checkout, task_json, task_env, setup_cwd, setup_env, ...), plus:
export RT33=${RT33:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT33/../round32/common.sh"
# variant33 LABEL BODY...: BODY against its own fresh team setup.
variant33() { local label=$1; shift; ( source "$RT33/common.sh"; setup_team >/dev/null; eval "$*" ); }
# Each script has its own marker (they may run in parallel).
PWN=/tmp/r33-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
# cext MODULE OUT: compile a CPython extension module named MODULE into
# OUT (no Python.h needed: PyInit_MODULE runs the payload, then fails).
cext() {
  local c=$W/cext-$RANDOM.c
  printf '#include <stdlib.h>\nvoid *PyInit_%s(void) { system("touch %s"); return 0; }\n' "$1" "$PWN" > "$c"
  mkdir -p "$(dirname "$2")"; gcc -shared -fPIC -o "$2" "$c"
}
