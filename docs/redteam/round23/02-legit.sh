#!/usr/bin/env bash
# Ordinary flows next to the shapes of 01: an edit no configuration runs
# should stay medium and land. Timings of start on the larger trees.
RT23=${RT23:-$(cd "$(dirname "$0")" && pwd)}
source "$RT23/common.sh"
# a: a Python service (python3 -m app.main), imports four deep, the fourth imports a sibling package common/; agent edits web/app.js
la() { mkdir -p $R/app $R/common $R/web; : > $R/app/__init__.py; : > $R/common/__init__.py
  printf 'from .a import run\nrun()\n' > $R/app/main.py
  printf 'from .b import run\n' > $R/app/a.py; printf 'from .c import run\n' > $R/app/b.py
  printf 'from common.util import helper\ndef run():\n    helper()\n' > $R/app/c.py
  printf 'def helper():\n    print("ok")\n' > $R/common/util.py
  printf 'export const x = 1;\n' > $R/web/app.js
  setup : "python3 -m app.main"
  hit "23la python3 -m app.main; app/c.py (4th) imports common.util; agent edits web/app.js" "printf 'export const x = 2;\n' > \$R/web/app.js"; }
# a2: the same, the service deep (app/ 300 modules, common/ 100), start timed; agent edits web/app.js
la2() { mkdir -p $R/app $R/common $R/web; : > $R/app/__init__.py; : > $R/common/__init__.py
  printf 'from .a import run\nrun()\n' > $R/app/main.py
  printf 'from .b import run\n' > $R/app/a.py; printf 'from .c import run\n' > $R/app/b.py
  printf 'from .d import run\nfrom common.util import helper\n' > $R/app/c.py; printf 'def run():\n    print("ok")\n' > $R/app/d.py
  for i in $(seq 1 300); do printf 'from common.m%d import f\n' $((i % 100)) > $R/app/m$i.py; done
  for i in $(seq 0 99); do printf 'def f():\n    return %d\n' $i > $R/common/m$i.py; done
  printf 'def helper():\n    print("ok")\n' > $R/common/util.py
  printf 'export const x = 1;\n' > $R/web/app.js
  setup : "python3 -m app.main"; printf 'export const x = 2;\n' > $R/web/app.js; timed_start "23la2 (app/ 300 modules, common/ 100)"
  hit "23la2 python3 -m app.main (deep, app/c.py imports common.util); agent edits web/app.js" ":"; }
# b: a hook script that cleans with find "$1" (no file run); agent edits src/server.py
lb() { mkdir -p $R/src; hook $R/tools/clean.sh 'find "$1" -name "*.orig" -delete'
  printf 'print("serve")\n' > $R/src/server.py
  setup : "sh tools/clean.sh build"
  hit "23lb task sh tools/clean.sh build; clean.sh: find \"\$1\" -name '*.orig' -delete; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# b2: a pre-commit hook with a script taking the file names ("$@") and listing them with find
lb2() { mkdir -p $R/src; hook $R/tools/check.sh 'find "$@" -maxdepth 0 -newer .git -print'
  printf 'print("serve")\n' > $R/src/server.py
  precommit "tools/check.sh" script; base_with "base (pre-commit)" >/dev/null
  hit "23lb2 pre-commit tools/check.sh; check.sh: find \"\$@\" -maxdepth 0 -print; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# c: an npm monorepo with workspaces by name (300 files each), task npm run dev; agent edits src/seed.py, start timed
lc() { mkdir -p $R/packages/utils $R/apps/web $R/src
  printf '{"name":"acme","private":true,"workspaces":["packages/utils","apps/web"],"scripts":{"dev":"node apps/web/server.js"}}\n' > $R/package.json
  printf 'require("../../packages/utils");\n' > $R/apps/web/server.js
  printf 'module.exports = 1;\n' > $R/packages/utils/index.js
  for i in $(seq 1 300); do printf 'module.exports = %d;\n' $i > $R/packages/utils/m$i.js; printf 'module.exports = %d;\n' $i > $R/apps/web/c$i.js; done
  printf 'print(1)\n' > $R/src/seed.py
  setup : "npm run dev"; printf 'print(2)\n' > $R/src/seed.py; timed_start "23lc (2 workspaces x 300 files)"
  hit "23lc npm run dev; workspaces packages/utils, apps/web; agent edits src/seed.py" ":"; }
for c in ${ONLY:-la la2 lb lb2 lc}; do variant23 "$c" "$c"; done
