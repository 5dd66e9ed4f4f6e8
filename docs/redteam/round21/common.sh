# Round 21 helpers (sourced): round 20's (lib.sh, setup_team, base_with,
# agent_step, task_json, task_env, task_raw, setup, hit, hook, timed_start,
# runs_in_checkout, push_past, ...) plus:
export RT21=${RT21:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT21/../round20/common.sh"
# variant21 LABEL BODY...: BODY against its own fresh team setup.
variant21() { local label=$1; shift; ( source "$RT21/common.sh"; setup_team >/dev/null; eval "$*" ); }
# precommit ENTRY [LANGUAGE]: a .pre-commit-config.yaml with one local hook.
precommit() {
  printf 'repos:\n  - repo: local\n    hooks:\n      - id: check\n        name: check\n        entry: %s\n        language: %s\n        pass_filenames: false\n' "$1" "${2:-system}" > "$R/.pre-commit-config.yaml"
}
# pyc MODULE_PY PYCODE: write MODULE_PY's __pycache__ file (this python3's
# tag), an unchecked-hash .pyc compiled from PYCODE (the source is kept).
pyc() {
  python3 - "$R/$1" "$2" <<'PY'
import sys, py_compile, importlib.util, tempfile, os
src, code = sys.argv[1], sys.argv[2]
with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as t:
    t.write(code + "\n"); tmp = t.name
py_compile.compile(tmp, cfile=importlib.util.cache_from_source(src), dfile=src,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
os.unlink(tmp)
PY
}
# direnv's stdlib as far as these cases use it (no direnv here): bash runs
# .envrc with source_env / source_env_if_exists / dotenv defined.
DIRENV='source_env(){ local f=$1; [ -d "$f" ] && f=$f/.envrc; . "$f"; }; source_env_if_exists(){ [ -e "$1" ] && source_env "$1"; return 0; }; dotenv(){ set -a; . "${1:-.env}"; set +a; }; . ./.envrc'
PWN=/tmp/r21-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
