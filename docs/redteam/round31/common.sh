# Round 31 helpers (sourced): round 30's (29's ... 21's setup_team, setup,
# hit, hook, runs_in_checkout, precommit, task_json, task_env, ...), plus:
export RT31=${RT31:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$RT31/../round30/common.sh"
# variant31 LABEL BODY...: BODY against its own fresh team setup.
variant31() { local label=$1; shift; ( source "$RT31/common.sh"; setup_team >/dev/null; eval "$*" ); }
# setup_cwd PREP CMD CWD: PREP, a folder-open task running CMD in
# options.cwd CWD, landed by agent + alice.
setup_cwd() { eval "$1"; task_json "$2" "$3"; base_with "base (task: $2, cwd $3)" >/dev/null; }
# setup_env PREP CMD ENVJSON: the same with options.env.
setup_env() { eval "$1"; task_env "$2" "$3"; base_with "base (task: $2, env $3)" >/dev/null; }
PWN=/tmp/r31-pwned-$(basename "$0" .sh)
PAY="touch $PWN"
PYPAY="open('$PWN','w').close()"
JSPAY="require('fs').writeFileSync('$PWN','')"
ESMPAY="import { writeFileSync } from 'fs'; writeFileSync('$PWN','')"
