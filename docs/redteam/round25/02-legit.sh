#!/usr/bin/env bash
# Ordinary flows next to round 25's changes: an edit no configuration runs
# should stay medium and land. Timings of start on the larger trees.
RT25=${RT25:-$(cd "$(dirname "$0")" && pwd)}
source "$RT25/common.sh"
srv='mkdir -p $R/src; printf "print(\"serve\")\n" > $R/src/server.py'
sedit="printf 'print(\"serve v2\")\n' > \$R/src/server.py"
# a: a lowercase walker variable whose name is also a word in a message
la() { eval "$srv"; hook $R/tools/hooks/a 'echo a'; hook $R/tools/run.sh 'hooks=tools/hooks
echo "running hooks"
run-parts "$hooks"'
  setup : "sh tools/run.sh"; hit "25la sh tools/run.sh; run.sh: hooks=tools/hooks; echo \"running hooks\"; run-parts \"\$hooks\"; agent edits src/server.py" "$sedit"; }
# a2: getopts, read and printf -v for unrelated variables next to a literal walker variable
la2() { eval "$srv"; hook $R/tools/hooks/a 'echo a'; printf '1.0\n' > $R/VERSION; hook $R/tools/run.sh 'verbose=0
while getopts v opt; do case $opt in v) verbose=1;; esac; done
read -r version < VERSION
printf -v stamp "%s-%s" "$version" "$verbose"
HOOKS_DIR=tools/hooks
echo "hooks $stamp"
run-parts "$HOOKS_DIR"'
  setup : "sh tools/run.sh"; hit "25la2 sh tools/run.sh; getopts opt, read -r version, printf -v stamp, HOOKS_DIR=tools/hooks; run-parts; agent edits src/server.py" "$sedit"; }
# a3: a docs generator that lists docs/pages (200 pages) and asks git for the revision
docs() { eval "$srv"; mkdir -p $R/docs/pages $R/tools; for j in $(seq 1 ${1:-200}); do printf '# Page %d\n' $j > $R/docs/pages/p$j.md; done
  printf 'import os, subprocess\npages = sorted(os.listdir("docs/pages"))\nrev = subprocess.check_output(["git", "rev-parse", "--short", "HEAD"]).decode().strip()\nwith open("docs/index.html", "w") as f:\n    f.write("".join("<li>%%s</li>" %% p for p in pages) + rev)\n' > $R/tools/docs.py
  setup : "python3 tools/docs.py"; }
la3()  { docs; eval "$sedit"; timed_start "25la3 (docs gen, 200 pages, edit src/server.py)"
  hit "25la3 python3 tools/docs.py; lists docs/pages (200 .md), check_output git; agent edits src/server.py" ":"; }
la3b() { docs; printf '# Page 7, fixed\n' > $R/docs/pages/p7.md; timed_start "25la3b (docs gen, edit docs/pages/p7.md)"
  hit "25la3b python3 tools/docs.py; the same; agent edits docs/pages/p7.md (a page it lists)" ":"; }
# a4: a Node index generator: readdirSync("src/components") (200 files), execSync git
comps() { eval "$srv"; mkdir -p $R/src/components $R/tools; for j in $(seq 1 ${1:-200}); do printf 'export const C%d = () => %d;\n' $j $j > $R/src/components/c$j.js; done
  printf 'const fs = require("fs"), { execSync } = require("child_process");\nconst files = fs.readdirSync("src/components").filter(f => f.endsWith(".js"));\nconst rev = execSync("git rev-parse --short HEAD").toString().trim();\nfs.writeFileSync("src/index.js", "// " + rev + "\\n" + files.map(f => "export * from \\"./components/" + f + "\\";").join("\\n"));\n' > $R/tools/gen-index.js
  setup : "node tools/gen-index.js"; }
la4()  { comps; eval "$sedit"; timed_start "25la4 (index gen, 200 components, edit src/server.py)"
  hit "25la4 node tools/gen-index.js; readdirSync src/components (200), execSync git; agent edits src/server.py" ":"; }
la4b() { comps; printf 'export const C7 = () => 77;\n' > $R/src/components/c7.js; timed_start "25la4b (index gen, edit src/components/c7.js)"
  hit "25la4b node tools/gen-index.js; the same; agent edits src/components/c7.js (a file it lists, never runs)" ":"; }
la3c() { docs 20; eval "$sedit"; timed_start "25la3c (docs gen, 20 pages, edit src/server.py)"
  hit "25la3c python3 tools/docs.py; the same with 20 pages; agent edits src/server.py" ":"; }
la4c() { comps 20; eval "$sedit"; timed_start "25la4c (index gen, 20 components, edit src/server.py)"
  hit "25la4c node tools/gen-index.js; the same with 20 components; agent edits src/server.py" ":"; }
la3d() { docs 20; printf '# Page 7, fixed\n' > $R/docs/pages/p7.md
  hit "25la3d python3 tools/docs.py; 20 pages; agent edits docs/pages/p7.md (a page it lists)" ":"; }
la4d() { comps 20; printf 'export const C7 = () => 77;\n' > $R/src/components/c7.js
  hit "25la4d node tools/gen-index.js; 20 components; agent edits src/components/c7.js (a file it lists, never runs)" ":"; }
# a5: a Makefile compiling $(wildcard src/*.c)
la5() { mkdir -p $R/src; printf 'int main(void){return 0;}\n' > $R/src/main.c; printf 'int u(void){return 1;}\n' > $R/src/util.c
  printf 'SRCS := $(wildcard src/*.c)\napp: $(SRCS)\n\tgcc -o app $(SRCS)\n' > $R/Makefile
  setup : "make app"; hit "25la5 make app; SRCS := \$(wildcard src/*.c); gcc -o app \$(SRCS); agent edits src/util.c" "printf 'int u(void){return 2;}\n' > \$R/src/util.c"; }
# a6: xargs running a shell or runtime to check, not run: bash -n, python3 -m py_compile
la6()  { eval "$srv"; setup : "git ls-files -z '*.sh' | xargs -0 bash -n"
  hit "25la6 git ls-files -z '*.sh' | xargs -0 bash -n (syntax check); agent edits src/server.py" "$sedit"; }
la6b() { eval "$srv"; setup : "git ls-files -z '*.py' | xargs -0 python3 -m py_compile"
  hit "25la6b git ls-files -z '*.py' | xargs -0 python3 -m py_compile; agent edits src/server.py" "$sedit"; }
la6c() { eval "$srv"; setup : "find . -name '*.orig' | xargs rm -f; git ls-files | xargs grep -n TODO || true"
  hit "25la6c xargs rm -f; xargs grep -n TODO; agent edits src/server.py" "$sedit"; }
# a7: xargs running a shell with a path
la7() { eval "$srv"; hook $R/tools/greet.sh 'echo "hi $1"'; setup : "printf '%s\\n' a b | xargs -n1 sh tools/greet.sh"
  hit "25la7 printf a b | xargs -n1 sh tools/greet.sh; agent edits src/server.py" "$sedit"; }
# a8: a JS build script: glob.sync("src/**/*.ts"), mkdir dist/assets, copy public/img, execSync tsc
la8() { mkdir -p $R/src/app $R/public/img $R/tools $R/web; for j in $(seq 1 40); do printf 'export const a%d = %d;\n' $j $j > $R/src/app/m$j.ts; printf 'x' > $R/public/img/i$j.png; done
  printf 'body{}\n' > $R/web/app.css
  printf 'const fs = require("fs"), glob = require("glob"), { execSync } = require("child_process");\nfs.mkdirSync("dist/assets", { recursive: true });\nfor (const f of fs.readdirSync("public/img")) fs.copyFileSync("public/img/" + f, "dist/assets/" + f);\nexecSync("npx tsc " + glob.sync("src/**/*.ts").join(" "));\n' > $R/tools/build.js
  setup : "node tools/build.js"; printf 'body{color:red}\n' > $R/web/app.css; timed_start "25la8 (build.js, 40 ts + 40 png)"
  hit "25la8 node tools/build.js; glob.sync src/**/*.ts, readdirSync public/img, execSync tsc; agent edits web/app.css" ":"; }
for c in ${ONLY:-la la2 la3 la3b la3c la3d la4 la4b la4c la4d la5 la6 la6b la6c la7 la8}; do variant25 "$c" "$c"; done
