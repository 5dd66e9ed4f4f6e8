#!/usr/bin/env bash
# Ordinary flows next to the shapes of 01: an edit no configuration runs
# should stay medium and land.
RT22=${RT22:-$(cd "$(dirname "$0")" && pwd)}
source "$RT22/common.sh"
# a: a Python service run as python3 -m app.main, imports five deep; the agent edits the web front end
la() { mkdir -p $R/app $R/web; : > $R/app/__init__.py
  printf 'from .a import run\nrun()\n' > $R/app/main.py
  printf 'from .b import run\n' > $R/app/a.py; printf 'from .c import run\n' > $R/app/b.py
  printf 'from .d import run\n' > $R/app/c.py; printf 'def run():\n    print("ok")\n' > $R/app/d.py
  printf 'export const x = 1;\n' > $R/web/app.js
  setup : "python3 -m app.main"
  hit "22la python3 -m app.main (imports five deep); agent edits web/app.js" "printf 'export const x = 2;\n' > \$R/web/app.js"; }
# b: direnv + run-parts "$HOOKS"; the agent edits src/server.py
lb() { mkdir -p $R/src; hook $R/tools/hooks/a 'echo lint'; printf 'export HOOKS=tools/hooks\nlayout_dir=.direnv\n' > $R/.envrc
  printf 'print("serve")\n' > $R/src/server.py
  setup : 'run-parts "$HOOKS"'
  hit "22lb .envrc HOOKS + run-parts \"\$HOOKS\"; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
for c in ${ONLY:-la lb}; do variant22 "$c" "$c"; done
