#!/usr/bin/env bash
# Ordinary flows: linters, formatters, test runners, build scripts; the
# agent edits a source file the configuration never runs. Each should
# stay medium and land.
RT27=${RT27:-$(cd "$(dirname "$0")" && pwd)}
source "$RT27/common.sh"
srv='mkdir -p $R/src; printf "print(\"serve\")\n" > $R/src/server.py'
sedit="printf 'print(\"serve v2\")\n' > \$R/src/server.py"
js='mkdir -p $R/src; printf "export const f = () => 1;\n" > $R/src/app.js'
jsedit="printf 'export const f = () => 2;\n' > \$R/src/app.js"
# lt TAG LABEL CMD [WHAT EDIT]: a folder-open task CMD; the agent edits src/server.py (or WHAT by EDIT)
lt() { setup : "$3"; hit "$1 $2; agent edits ${4:-src/server.py}" "${5:-$sedit}"; }
# la: pre-commit formatter/linter over the root (ruff check ., black --check .)
la()  { eval "$srv"; setup 'precommit "ruff check ."' ""; hit "27la pre-commit: ruff check .; agent edits src/server.py" "$sedit"; }
la2() { eval "$srv"; setup 'precommit "black --check --diff src tests"' ""; hit "27la2 pre-commit: black --check --diff src tests; agent edits src/server.py" "$sedit"; }
# lb: eslint/prettier over the sources (they read, never run, src/app.js)
lb()  { eval "$js"; printf '{"name":"w","version":"1.0.0","scripts":{"lint":"eslint src && prettier --check \\"src/**/*.{js,css}\\""}}\n' > $R/package.json
  lt 27lb 'npm run lint (eslint src && prettier --check "src/**/*.{js,css}")' 'npm run lint' src/app.js "$jsedit"; }
# lc: a build: tsc + a copy script; the agent edits the Python backend
lc()  { eval "$srv"; mkdir -p $R/web/src $R/scripts; printf 'export const a = 1;\n' > $R/web/src/a.ts
  printf '{"name":"w","version":"1.0.0","scripts":{"build":"tsc -p web/tsconfig.json && node scripts/copy-assets.js"}}\n' > $R/package.json
  printf '{"compilerOptions":{"outDir":"../dist"},"include":["src"]}\n' > $R/web/tsconfig.json
  printf 'const fs = require("fs");\nfs.cpSync("web/assets", "dist/assets", { recursive: true });\n' > $R/scripts/copy-assets.js
  lt 27lc 'npm run build (tsc -p web/tsconfig.json && node scripts/copy-assets.js)' 'npm run build'; }
# ld: unittest discovery under tests/; the agent edits a release script no test imports
ld()  { eval "$srv"; mkdir -p $R/tests $R/scripts; printf 'import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n' > $R/tests/test_ok.py
  printf 'print("release")\n' > $R/scripts/release.py
  lt 27ld 'python3 -m unittest discover -s tests' 'python3 -m unittest discover -s tests' scripts/release.py "printf 'print(\"release v2\")\n' > \$R/scripts/release.py"; }
# le: .envrc with dotenv, a venv on PATH; the agent edits the server
le()  { eval "$srv"; printf 'PORT=8000\n' > $R/.env
  setup "printf 'dotenv_if_exists .env\nexport VIRTUAL_ENV=\$PWD/.venv\nPATH_add .venv/bin\nPATH_add node_modules/.bin\n' > \$R/.envrc" ""
  hit "27le .envrc: dotenv_if_exists .env; VIRTUAL_ENV; PATH_add .venv/bin node_modules/.bin; agent edits src/server.py" "$sedit"; }
# lf: recursive make over docs and web (27ma's shape, the agent edits the backend)
lf()  { eval "$srv"; mkdir -p $R/docs $R/web; printf 'all:\n\t@echo docs\n' > $R/docs/Makefile; printf 'all:\n\t@echo web\n' > $R/web/Makefile
  printf 'SUBDIRS = docs web\nall:\n\tfor d in $(SUBDIRS); do $(MAKE) -C $$d; done\n' > $R/Makefile
  lt 27lf 'make; SUBDIRS = docs web; for d in $(SUBDIRS); do $(MAKE) -C $$d' make; }
# lg: shellcheck over tracked scripts (git ls-files | xargs), gofmt
lg()  { eval "$srv"; hook $R/scripts/deploy.sh 'echo deploy'
  lt 27lg "git ls-files '*.sh' | xargs shellcheck && gofmt -l \$(git ls-files '*.go')" "git ls-files '*.sh' | xargs shellcheck && gofmt -l \$(git ls-files '*.go')"; }
# lh: npm workspaces test run; the agent edits the Python backend
lh()  { eval "$srv"; mkdir -p $R/packages/a; printf '{"private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node --check index.js"}}\n' > $R/packages/a/package.json; printf '1;\n' > $R/packages/a/index.js
  lt 27lh 'npm test --workspaces' 'npm test --workspaces'; }
for c in ${ONLY:-la la2 lb lc ld le lf lg lh}; do variant27 "$c" "$c"; done
rm -f $PWN
