#!/usr/bin/env bash
# What a followed tool loads by its own rules, beyond v11's default-file
# table (same precondition as 01). And one more false-positive shape.
RT18=${RT18:-$(cd "$(dirname "$0")" && pwd)}
source "$RT18/common.sh"
setup() { eval "$1"; task_json "$2" "${3:-}"; base_with "base (task: $2)" >/dev/null; }
hit() { eval "$2"; agent_step "$1"; [ "${4:-}" = nocheck ] || runs_in_checkout "$3" $PWN; }
# a: python3 -m unittest (discovery imports and runs every test*.py)
ca() { mkdir -p $R/tests; : > $R/tests/__init__.py; printf 'import unittest\nclass T(unittest.TestCase):\n    def test_x(self): pass\n' > $R/tests/test_x.py
  setup : "python3 -m unittest"
  hit "05a task 'python3 -m unittest', agent edits tests/test_x.py" "printf \"$PYPAY\nimport unittest\n\" > $R/tests/test_x.py" "python3 -m unittest"; }
# b: python3 -m pytest (conftest.py is named; the test files it imports are not)
cb() { mkdir -p $R/tests; printf 'def test_x():\n    pass\n' > $R/tests/test_x.py
  setup : "python3 -m pytest -q"
  hit "05b task 'python3 -m pytest -q', agent edits tests/test_x.py" "printf \"$PYPAY\ndef test_x():\n    pass\n\" > $R/tests/test_x.py" "python3 -m pytest -q -p no:cacheprovider"; }
# c: a module next to the approved script shadows the standard library (a new file)
cc() { mkdir -p $R/tools; printf 'import json\nprint(json.dumps(1))\n' > $R/tools/build.py
  setup : "python3 tools/build.py"
  hit "05c task 'python3 tools/build.py' (import json), agent ADDS tools/json.py" "printf \"$PYPAY\ndef dumps(x): return str(x)\n\" > $R/tools/json.py" "python3 tools/build.py"; }
# d: npm run dev -> vite, which loads vite.config.ts (rating only)
cd_() { printf '{"name":"w","scripts":{"dev":"vite"}}\n' > $R/package.json; printf 'export default {}\n' > $R/vite.config.ts
  setup : "npm run dev"
  hit "05d task 'npm run dev' (vite), agent edits vite.config.ts [rating only]" "printf \"import fs from 'fs'; fs.writeFileSync('$PWN', ''); export default {}\n\" > $R/vite.config.ts" x nocheck; }
# e: false positive: 65 scoped deps, task with options.cwd (bases doubled)
ce() { mkdir -p $R/web; { printf '{"name":"web","scripts":{"dev":"vite"},"dependencies":{'; for i in $(seq 1 65); do printf '"@acme/p%s":"1",' $i; done; printf '"vite":"5"}}\n'; } > $R/web/package.json
  setup : "npm run dev" '${workspaceFolder}/web'
  printf '// parser 2\nfn parse() {}\n' > $R/src/parser.rs
  agent_step "05e (false positive?) task 'npm run dev' cwd web, web/package.json with 65 scoped deps, agent edits src/parser.rs"; }
rm -f $PWN
for c in ${ONLY:-ca cb cc cd_ ce}; do variant18 "$c" "$c"; done
rm -f $PWN
