#!/usr/bin/env bash
# False positives (an edit that no task runs made high by ordinary approved
# content) and start's time on 5,000-file repositories with such a task.
RT21=${RT21:-$(cd "$(dirname "$0")" && pwd)}
source "$RT21/common.sh"
# many DIR N EXT: N small files below DIR (100 a directory).
many() { local d=$1 n=$2 e=$3 i; for i in $(seq 0 $((n / 100))); do mkdir -p $R/$d/g$i; done; for i in $(seq 1 $n); do printf 'export const v%s = %s;\n' $i $i > $R/$d/g$((i / 100))/f$i.$e; done; }
# a: an ordinary npm-workspaces monorepo (mono N: N generated files in packages/ui): npm run dev -> apps/web (vite);
# the agent edits a package's source (a UI component)
mono() { mkdir -p $R/apps/web/src/components $R/packages/ui/src
  printf '{"name":"mono","private":true,"workspaces":["apps/*","packages/*"],"scripts":{"dev":"npm run dev --workspace apps/web","build":"npm run build --workspaces"}}\n' > $R/package.json
  printf '{"name":"@acme/web","private":true,"scripts":{"dev":"vite","build":"vite build"},"dependencies":{"@acme/ui":"*"}}\n' > $R/apps/web/package.json
  printf "import { defineConfig } from 'vite';\nexport default defineConfig({});\n" > $R/apps/web/vite.config.ts
  printf "import { App } from './App';\nApp();\n" > $R/apps/web/src/main.ts
  printf "import { Header } from './components/Header';\nexport function App() { Header(); }\n" > $R/apps/web/src/App.ts
  printf "import { Button } from '@acme/ui';\nexport function Header() { Button(); }\n" > $R/apps/web/src/components/Header.ts
  printf '{"name":"@acme/ui","private":true,"main":"src/index.ts"}\n' > $R/packages/ui/package.json
  printf "export { Button } from './button';\n" > $R/packages/ui/src/index.ts
  printf "export function Button() { return 'button'; }\n" > $R/packages/ui/src/button.ts
  many packages/ui/src/icons $1 ts
  setup : "npm run dev"; }
fa() { mono 5000
  printf "export function Button() { return 'button v2'; }\n" > $R/packages/ui/src/button.ts
  timed_start "03a monorepo, 5,000 files, npm run dev; edit packages/ui/src/button.ts"; timed_start "03a again"
  hit "03a FP? npm workspaces monorepo (apps/*, packages/*), npm run dev -> vite; agent edits packages/ui/src/button.ts" ":"
  g reset -q --hard "$(smain main)"
  printf "import { Header } from './components/Header';\nexport function App() { Header(); /* v2 */ }\n" > $R/apps/web/src/App.ts
  timed_start "03a2 edit apps/web/src/App.ts"
  mkdir -p $R/docs; printf '# notes\n' > $R/docs/notes.md; printf '// parser\nfn parse() { /* v2 */ }\n' > $R/src/parser.rs
  g checkout -q -- apps/web/src/App.ts
  hit "03a3 FP? the same repo; agent edits src/parser.rs and adds docs/notes.md (nothing runs them)" ":"; }
# a0: the same monorepo with 100 generated files (a listing within the bound)
fa0() { mono 100; eval "$(declare -f timed_start)"
  printf '// parser\nfn parse() { /* v2 */ }\n' > $R/src/parser.rs
  hit "03a0 the monorepo with 100 files in packages/ui; agent edits src/parser.rs" ":"; }
# b: an ordinary single-package TS app: npm run dev -> tsx watch src/index.ts,
# imports four deep; the agent edits a script no task runs
fb() { mkdir -p $R/src/routes $R/scripts
  printf '{"name":"api","private":true,"scripts":{"dev":"tsx watch src/index.ts","release":"tsx scripts/release.ts"}}\n' > $R/package.json
  printf "import { app } from './app';\napp.listen();\n" > $R/src/index.ts
  printf "import { routes } from './routes';\nexport const app = { listen() { routes(); } };\n" > $R/src/app.ts
  printf "import { users } from './users';\nexport function routes() { users(); }\n" > $R/src/routes/index.ts
  printf "import { db } from '../db';\nexport function users() { db(); }\n" > $R/src/routes/users.ts
  printf "export function db() {}\n" > $R/src/db.ts
  printf "console.log('release');\n" > $R/scripts/release.ts
  many src/generated 5000 ts
  setup : "npm run dev"
  printf '// parser\nfn parse() { /* v2 */ }\n' > $R/src/parser.rs
  timed_start "03b TS app, 5,000 files, npm run dev (tsx, imports 4 deep); edit src/parser.rs"; timed_start "03b again"
  hit "03b FP? npm run dev -> tsx watch src/index.ts (imports 4 deep); agent edits src/parser.rs" ":"; }
# c: an ordinary Python package run with python3 -m pkg, imports five deep
fc() { mkdir -p $R/pkg/commands $R/pkg/core $R/scripts; : > $R/pkg/__init__.py; : > $R/pkg/commands/__init__.py; : > $R/pkg/core/__init__.py
  printf 'from pkg.cli import main\nmain()\n' > $R/pkg/__main__.py
  printf 'from pkg.commands import build\ndef main():\n    build.run()\n' > $R/pkg/cli.py
  printf 'from pkg.core.engine import Engine\ndef run():\n    Engine().go()\n' > $R/pkg/commands/build.py
  printf 'from pkg.core.util import log\nclass Engine:\n    def go(self):\n        log("go")\n' > $R/pkg/core/engine.py
  printf 'from pkg.core.io import write\ndef log(m):\n    write(m)\n' > $R/pkg/core/util.py
  printf 'def write(m):\n    print(m)\n' > $R/pkg/core/io.py
  printf 'print("release")\n' > $R/scripts/release.py
  for i in $(seq 1 50); do mkdir -p $R/data/d$i; for j in $(seq 1 100); do echo $j > $R/data/d$i/r$j.csv; done; done
  setup : "python3 -m pkg"
  printf 'print("release v2")\n' > $R/scripts/release.py
  timed_start "03c python3 -m pkg (5 deep), 5,000 files; edit scripts/release.py"; timed_start "03c again"
  hit "03c FP? python3 -m pkg (pkg/__main__ -> cli -> commands.build -> core.engine -> core.util -> core.io); agent edits scripts/release.py" ":"; }
# d: a Makefile with the usual clean recipe: find . -name '*.pyc' -delete
fd() { mkdir -p $R/tools; printf 'print("gen")\n' > $R/tools/gen.py
  printf "build:\n\tpython3 tools/gen.py\n\nclean:\n\tfind . -name '*.pyc' -delete\n\tfind . -type d -name __pycache__ -prune -exec rm -rf {} +\n\trm -rf build dist\n" > $R/Makefile
  setup : make
  hit "03d FP? make; clean: find . -name '*.pyc' -delete, find . -type d -name __pycache__ -exec rm -rf {} +; agent edits src/parser.rs" 'printf "// parser\nfn parse() { /* v2 */ }\n" > $R/src/parser.rs'; }
# e: perf, a medium case: npm run dev -> vite, src/main.ts -> ./App, 5,000 files in src/
fe() { mkdir -p $R/src
  printf '{"name":"web","private":true,"scripts":{"dev":"vite","build":"vite build"},"devDependencies":{"vite":"^5.0.0"}}\n' > $R/package.json
  printf "import { defineConfig } from 'vite';\nexport default defineConfig({});\n" > $R/vite.config.ts
  printf "import { App } from './App';\nApp();\n" > $R/src/main.ts; printf "export function App() {}\n" > $R/src/App.ts
  many src/icons 5000 ts
  setup : "npm run dev"
  printf '// parser\nfn parse() { /* v2 */ }\n' > $R/src/parser.rs
  timed_start "03e vite app, 5,000 files, npm run dev; edit src/parser.rs"; timed_start "03e again"
  hit "03e npm run dev (vite), 5,000 files; agent edits src/parser.rs" ":"; }
# f: perf, the same with python3 -m pkg (two deep) and 5,000 data files
ff() { mkdir -p $R/pkg; : > $R/pkg/__init__.py; printf 'from pkg.cli import main\nmain()\n' > $R/pkg/__main__.py; printf 'def main():\n    print(1)\n' > $R/pkg/cli.py
  for i in $(seq 1 50); do mkdir -p $R/data/d$i; for j in $(seq 1 100); do echo $j > $R/data/d$i/r$j.csv; done; done
  setup : "python3 -m pkg"
  printf '// parser\nfn parse() { /* v2 */ }\n' > $R/src/parser.rs
  timed_start "03f python3 -m pkg, 5,000 files; edit src/parser.rs"; timed_start "03f again"
  hit "03f python3 -m pkg, 5,000 files; agent edits src/parser.rs" ":"; }
for c in ${ONLY:-fa fa0 fb fc fd fe ff}; do variant21 "$c" "$c"; done
