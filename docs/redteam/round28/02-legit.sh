#!/usr/bin/env bash
# Ordinary test suites under D-R175's listings by name (531cd328): the
# files a runner discovers are now read in turn, so what their words
# mention is named. The agent edits a file the suite never runs; each
# should stay medium and land.
RT28=${RT28:-$(cd "$(dirname "$0")" && pwd)}
source "$RT28/common.sh"
okt='import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n'
# lt TAG LABEL CMD WHAT EDIT: a folder-open task CMD; the agent edits WHAT by EDIT
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
web='mkdir -p $R/web; printf "export const f = () => 1;\n" > $R/web/main.js'
wedit="printf 'export const f = () => 2;\n' > \$R/web/main.js"
# la: a layout test names the source directory it checks (never runs web/)
la()  { eval "$web"; mkdir -p $R/tests $R/src/app; printf 'def serve():\n    return 1\n' > $R/src/app/server.py
  printf 'from pathlib import Path\nSRC = Path(__file__).resolve().parent.parent / "src"\ndef test_layout():\n    assert (SRC / "app").is_dir()\n' > $R/tests/test_layout.py
  lt 28la 'python3 -m pytest -q; tests/test_layout.py: SRC = ... / "src" (checks a directory exists)' 'python3 -m pytest -q' src/app/server.py "printf 'def serve():\n    return 2\n' > \$R/src/app/server.py"; }
# lb: the usual sys.path line of a test (the parent directory); the agent edits a JS file
lb()  { eval "$web"; mkdir -p $R/tests $R/app; touch $R/app/__init__.py; printf 'def get():\n    return 1\n' > $R/app/api.py
  printf 'import os, sys\nsys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))\nfrom app import api\ndef test_get():\n    assert api.get() == 1\n' > $R/tests/test_api.py
  lt 28lb 'python3 -m pytest -q; tests/test_api.py: sys.path.insert(0, join(dirname(__file__), "..")); from app import api' 'python3 -m pytest -q' web/main.js "$wedit"; }
# lc: a fixtures directory a test reads (json data, never run)
lc()  { mkdir -p $R/tests/fixtures; printf '{"name": "alice"}\n' > $R/tests/fixtures/user.json
  printf 'import json, pathlib\nFIXTURES = pathlib.Path(__file__).parent / "fixtures"\ndef test_user():\n    assert json.loads((FIXTURES / "user.json").read_text())["name"] == "alice"\n' > $R/tests/test_user.py
  lt 28lc 'python3 -m pytest -q; tests/test_user.py reads tests/fixtures/*.json' 'python3 -m pytest -q' tests/fixtures/user.json "printf '{\"name\": \"alice\", \"age\": 3}\n' > \$R/tests/fixtures/user.json"; }
# ld: mocha's test/ holds fixtures for a build tool; one mentions "src"
ld()  { mkdir -p $R/src $R/test/fixtures/app; printf 'module.exports = () => 1;\n' > $R/src/app.js; printf 'console.log("cli");\n' > $R/src/cli.js
  printf 'const app = require("../src/app");\nit("works", () => { if (app() !== 1) throw new Error(); });\n' > $R/test/app.spec.js
  printf '{"compilerOptions": {"outDir": "dist"}, "include": ["src"]}\n' > $R/test/fixtures/app/tsconfig.json
  printf '{"name":"w","version":"1.0.0","scripts":{"test":"mocha"}}\n' > $R/package.json
  lt 28ld 'npm test (mocha); test/fixtures/app/tsconfig.json: "include": ["src"]' 'npm test' src/cli.js "printf 'console.log(\"cli v2\");\n' > \$R/src/cli.js"; }
# le: more than 128 test files (a mid-sized suite); the agent edits docs' build script
le()  { mkdir -p $R/tests $R/docs; printf 'print("docs")\n' > $R/docs/build.py
  for n in $(seq 1 130); do printf "$okt" > $R/tests/test_m$n.py; done
  lt 28le 'python3 -m unittest discover -s tests (130 test files)' 'python3 -m unittest discover -s tests' docs/build.py "printf 'print(\"docs v2\")\n' > \$R/docs/build.py"; }
# lf: npm workspaces in a repo whose test fixtures hold package.json files (not workspaces)
lf()  { mkdir -p $R/packages/a $R/src; printf 'print("serve")\n' > $R/src/server.py
  printf '{"private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node --check index.js"}}\n' > $R/packages/a/package.json; printf '1;\n' > $R/packages/a/index.js
  mkdir -p $R/packages/a/test/fixtures/proj; printf '{"name":"proj","scripts":{"build":"node build.js src"}}\n' > $R/packages/a/test/fixtures/proj/package.json
  printf '{"name":"top-fixture","scripts":{"start":"python3 ../src/server.py"}}\n' > $R/packages/a/test/fixtures/package.json
  lt 28lf 'npm test --workspaces; packages/a/test/fixtures/{,proj/}package.json (fixtures, not workspaces)' 'npm test --workspaces' src/server.py "printf 'print(\"serve v2\")\n' > \$R/src/server.py"; }
# lg: jest's __tests__ holds a README mentioning the scripts directory
lg()  { mkdir -p $R/src/__tests__ $R/scripts; printf 'test("ok", () => {});\n' > $R/src/__tests__/a.js; printf 'print("release")\n' > $R/scripts/release.py
  printf 'Tests run with jest; release notes are made by scripts/ (not run here).\n' > $R/src/__tests__/README.md
  printf '{"name":"w","version":"1.0.0","scripts":{"test":"jest"}}\n' > $R/package.json
  lt 28lg 'npm test (jest); src/__tests__/README.md mentions scripts/' 'npm test' scripts/release.py "printf 'print(\"release v2\")\n' > \$R/scripts/release.py"; }
# lh: 28la's control: the same suite with no test mentioning src
lh()  { eval "$web"; mkdir -p $R/tests $R/src/app; printf 'def serve():\n    return 1\n' > $R/src/app/server.py
  printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  lt 28lh 'python3 -m pytest -q; no test mentions src' 'python3 -m pytest -q' src/app/server.py "printf 'def serve():\n    return 2\n' > \$R/src/app/server.py"; }
for c in ${ONLY:-la lb lc ld le lf lg lh}; do variant28 "$c" "$c"; done
rm -f $PWN
