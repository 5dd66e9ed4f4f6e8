#!/usr/bin/env bash
# Ordinary flows next to round 24's changes: an edit no configuration runs
# should stay medium and land. Timings of start on the larger trees.
RT24=${RT24:-$(cd "$(dirname "$0")" && pwd)}
source "$RT24/common.sh"
# pysvc N: a Python service: app/main -> l1 -> ... -> l8 (import depth 9),
# main imports N handlers, each imports shared.db and one of 10 models;
# every module imports the stdlib and shared/; l8 runs git by subprocess.
pysvc() { mkdir -p $R/app/handlers $R/app/models $R/shared $R/web
  : > $R/app/__init__.py; : > $R/app/handlers/__init__.py; : > $R/app/models/__init__.py; : > $R/shared/__init__.py
  printf 'import json, os\ndef x():\n    return json.dumps(dict(os.environ))\n' > $R/shared/util.py
  printf 'import sqlite3\ndef q(s):\n    return sqlite3.connect(":memory:").execute(s)\n' > $R/shared/db.py
  printf 'import logging\nlog = logging.getLogger("svc")\n' > $R/shared/log.py
  { printf 'from app import l1\nfrom shared.log import log\n'; for j in $(seq 0 $(($1-1))); do printf 'from app.handlers import h%d\n' $j; done
    printf 'if __name__ == "__main__":\n    log.info(l1.run())\n'; } > $R/app/main.py
  for i in $(seq 1 7); do printf 'import os, json, logging\nfrom app import l%d\nfrom shared import util\ndef run():\n    return l%d.run()\n' $((i+1)) $((i+1)) > $R/app/l$i.py; done
  printf 'import subprocess\ndef run():\n    return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True).stdout\n' > $R/app/l8.py
  for j in $(seq 0 $(($1-1))); do printf 'from shared.db import q\nfrom app.models import m%d\ndef handle():\n    return q("select 1")\n' $((j % 10)) > $R/app/handlers/h$j.py; done
  for k in $(seq 0 9); do printf 'from dataclasses import dataclass\nfrom shared.util import x\n@dataclass\nclass M%d:\n    id: int\n' $k > $R/app/models/m$k.py; done
  printf 'export const x = 1;\n' > $R/web/app.js; }
la()  { pysvc 25; setup : "python3 -m app.main"; printf 'export const x = 2;\n' > $R/web/app.js; timed_start "24la (44 modules, depth 9)"
  hit "24la python3 -m app.main; Python service, 44 modules, import depth 9, shared/ + stdlib + git subprocess; agent edits web/app.js" ":"; }
la2() { pysvc 300; setup : "python3 -m app.main"; printf 'export const x = 2;\n' > $R/web/app.js; timed_start "24la2 (319 modules, depth 9)"
  hit "24la2 python3 -m app.main; the same with 300 handlers; agent edits web/app.js" ":"; }
# b: a Node app, require chains ten deep, 20 routes, a git child process; agent edits scripts/seed.py
lb() { mkdir -p $R/server/routes $R/server/lib $R/scripts
  { printf 'const c = require("./lib/c1");\n'; for j in $(seq 0 19); do printf 'require("./routes/r%d");\n' $j; done; } > $R/server/index.js
  for i in $(seq 1 9); do printf 'const n = require("./c%d");\nmodule.exports = () => n();\n' $((i+1)) > $R/server/lib/c$i.js; done
  printf 'const { execSync } = require("child_process");\nmodule.exports = () => execSync("git rev-parse HEAD");\n' > $R/server/lib/c10.js
  printf 'module.exports = {};\n' > $R/server/lib/db.js
  for j in $(seq 0 19); do printf 'const db = require("../lib/db");\nconst path = require("path");\nmodule.exports = () => db;\n' > $R/server/routes/r$j.js; done
  printf 'print(1)\n' > $R/scripts/seed.py
  setup : "node server/index.js"; printf 'print(2)\n' > $R/scripts/seed.py; timed_start "24lb (Node, 32 modules)"
  hit "24lb node server/index.js; require chain 10 deep, 20 routes, execSync git; agent edits scripts/seed.py" ":"; }
# c: find "$1" that runs nothing (23lb, 23lb2 again)
lc() { mkdir -p $R/src; hook $R/tools/clean.sh 'find "$1" -name "*.orig" -delete
n=$(find "$1" -type f | wc -l); echo "$n files"'
  printf 'print("serve")\n' > $R/src/server.py
  setup : "sh tools/clean.sh build"
  hit "24lc task sh tools/clean.sh build; clean.sh: find \"\$1\" -delete, find \"\$1\" | wc -l; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
lc2() { mkdir -p $R/src; hook $R/tools/check.sh 'find "$@" -maxdepth 0 -newer .git -print'
  printf 'print("serve")\n' > $R/src/server.py
  precommit "tools/check.sh" script; base_with "base (pre-commit)" >/dev/null
  hit "24lc2 pre-commit tools/check.sh; check.sh: find \"\$@\" -maxdepth 0 -print; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# d: a Makefile loop over $(SRCS) copying build/$$f to dist/$$f; agent edits src/server.py
ld() { mkdir -p $R/src $R/dist; printf 'x\n' > $R/dist/app.txt; printf 'print("serve")\n' > $R/src/server.py
  printf 'SRCS = app.txt notes.txt\ndist:\n\tfor f in $(SRCS); do cp build/$$f dist/$$f || true; done\n' > $R/Makefile
  setup : "make dist"
  hit "24ld make dist; for f in \$(SRCS); do cp build/\$\$f dist/\$\$f; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# e: a script that sets its own directory and walks it (D=tools/hooks; run-parts "$D"); agent edits src/server.py
le() { mkdir -p $R/src; hook $R/tools/hooks/a 'echo a'; hook $R/tools/run.sh 'D=tools/hooks; run-parts "$D"'
  printf 'print("serve")\n' > $R/src/server.py
  setup : "sh tools/run.sh"
  hit "24le task sh tools/run.sh; run.sh: D=tools/hooks; run-parts \"\$D\"; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# f: a dist script copying build/$f to dist/$f (dist/ holds files); agent edits src/server.py
lf() { mkdir -p $R/src $R/dist $R/build; printf 'x\n' > $R/dist/app.js; printf 'x\n' > $R/build/app.js; printf 'print("serve")\n' > $R/src/server.py
  hook $R/tools/dist.sh 'for f in app.js app.css; do cp build/$f dist/$f; done'
  setup : "sh tools/dist.sh"
  hit "24lf task sh tools/dist.sh; for f in app.js app.css; do cp build/\$f dist/\$f; agent edits src/server.py" "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
la3() { pysvc 120; setup : "python3 -m app.main"; printf 'export const x = 2;\n' > $R/web/app.js; timed_start "24la3 (139 modules, depth 9)"
  hit "24la3 python3 -m app.main; the same with 120 handlers; agent edits web/app.js" ":"; }
for c in ${ONLY:-la la2 la3 lb lc lc2 ld le lf}; do variant24 "$c" "$c"; done
