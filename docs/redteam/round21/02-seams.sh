#!/usr/bin/env bash
# The newest code's seams: walk targets from assigned values, find's start
# points, listings through links, names with no word behind them.
# LANDED + medium + executed = hole.
RT21=${RT21:-$(cd "$(dirname "$0")" && pwd)}
source "$RT21/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
# a: the walked directory through options.env (the value is no assignment)
sa() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'
  eval "setup 'task_env \"run-parts \\\"\\\$HOOKS\\\"\" \"{\\\"HOOKS\\\":\\\"tools/hooks\\\"}\"' ''"
  hit "02a options.env HOOKS=tools/hooks; run-parts \"\$HOOKS\"; hooks/a runs lib/x.py; agent edits lib/x.py" "$edit" 'export HOOKS=tools/hooks; run-parts "$HOOKS"'; }
# b: a for loop's words are no assignment
sb() { eval "$lib"; hook $R/tools/pre/a 'python3 lib/x.py'; hook $R/tools/post/a 'true'
  setup : 'for d in tools/pre tools/post; do run-parts "$d"; done'
  hit "02b for d in tools/pre tools/post; do run-parts \"\$d\"; pre/a runs lib/x.py; agent edits lib/x.py" "$edit" 'for d in tools/pre tools/post; do run-parts "$d"; done'; }
# c: a default value: ${HOOKS:-tools/hooks}
sc() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'
  setup : 'run-parts "${HOOKS:-tools/hooks}"'
  hit "02c run-parts \"\${HOOKS:-tools/hooks}\"; hooks/a runs lib/x.py; agent edits lib/x.py" "$edit" 'run-parts "${HOOKS:-tools/hooks}"'; }
# c2: the same; the agent edits the hook itself
sc2() { hook $R/tools/hooks/a 'echo a'
  setup : 'run-parts "${HOOKS:-tools/hooks}"'
  hit "02c2 run-parts \"\${HOOKS:-tools/hooks}\"; agent edits tools/hooks/a" "hook \$R/tools/hooks/a '$PAY'" 'run-parts "${HOOKS:-tools/hooks}"'; }
# d: find -L (an option before the start point)
sd() { eval "$lib"; hook $R/tools/a.sh 'python3 lib/x.py'
  setup : "find -L tools -type f -exec sh {} \\;"
  hit "02d find -L tools -type f -exec sh {} \\;; tools/a.sh runs lib/x.py; agent edits lib/x.py" "$edit" "find -L tools -type f -exec sh {} \\;"; }
# e: find . with a name test: named, not read (as v12 says)
se() { eval "$lib"; hook $R/tools/setup.sh 'python3 lib/x.py'
  setup : "find . -name setup.sh -exec sh {} \\;"
  hit "02e find . -name setup.sh -exec sh {} \\;; tools/setup.sh runs lib/x.py; agent edits lib/x.py" "$edit" "find . -name setup.sh -exec sh {} \\;"; }
# f: git ls-files '*.sh' | xargs: the glob is read from the root only
sf() { hook $R/tools/a.sh 'echo a'
  setup : "git ls-files '*.sh' | xargs -n1 sh"
  hit "02f git ls-files '*.sh' | xargs -n1 sh; agent edits tools/a.sh" "hook \$R/tools/a.sh '$PAY'" "git ls-files '*.sh' | xargs -n1 sh"; }
# g: a walked directory's file is a link out of it; the agent edits the target
sg() { mkdir -p $R/tools/hooks $R/lib; hook $R/lib/hook.sh 'echo hook'; ln -s ../../lib/hook.sh $R/tools/hooks/a
  setup : "run-parts tools/hooks"
  hit "02g run-parts tools/hooks; tools/hooks/a -> ../../lib/hook.sh; agent edits lib/hook.sh" "hook \$R/lib/hook.sh '$PAY'" "run-parts tools/hooks"; }
# h: tsconfig paths (tsx resolves them; not installed here: rated only)
sh_() { mkdir -p $R/src/lib
  printf '{"name":"app","private":true,"scripts":{"dev":"tsx watch src/index.ts"}}\n' > $R/package.json
  printf '{"compilerOptions":{"baseUrl":".","paths":{"@lib/*":["src/lib/*"]}}}\n' > $R/tsconfig.json
  printf 'import { run } from "@lib/run";\nrun();\n' > $R/src/index.ts
  printf 'export function run() { console.log("run"); }\n' > $R/src/lib/run.ts
  setup : "npm run dev"
  hit "02h npm run dev (tsx src/index.ts); import from \"@lib/run\" via tsconfig paths; agent edits src/lib/run.ts" "printf 'import { execSync } from \"child_process\"; export function run() { execSync(\"$PAY\"); }\n' > \$R/src/lib/run.ts"; }
# h2: the same, the agent's edit without a process call (is the file named?)
sh2() { mkdir -p $R/src/lib
  printf '{"name":"app","private":true,"scripts":{"dev":"tsx watch src/index.ts"}}\n' > $R/package.json
  printf '{"compilerOptions":{"baseUrl":".","paths":{"@lib/*":["src/lib/*"]}}}\n' > $R/tsconfig.json
  printf 'import { run } from "@lib/run";\nrun();\n' > $R/src/index.ts
  printf 'export function run() { console.log("run"); }\n' > $R/src/lib/run.ts
  setup : "npm run dev"
  hit "02h2 as 02h; agent edits src/lib/run.ts (console.log only)" "printf 'export function run() { console.log(\"v2\"); }\n' > \$R/src/lib/run.ts"; }
# i: node --env-file=.env: the .env's NODE_OPTIONS --require
si() { mkdir -p $R/tools; printf 'console.log(1)\n' > $R/tools/gen.js; printf 'NODE_OPTIONS=--require ./tools/boot.cjs\n' > $R/.env; printf '// boot\n' > $R/tools/boot.cjs
  setup : "node --env-file=.env tools/gen.js"
  hit "02i node --env-file=.env tools/gen.js; .env NODE_OPTIONS=--require ./tools/boot.cjs; agent edits tools/boot.cjs" "printf \"$JSPAY\n\" > \$R/tools/boot.cjs" "node --env-file=.env tools/gen.js"; }
rm -f $PWN
for c in ${ONLY:-sa sb sc sc2 sd se sf sg sh_ sh2 si}; do variant21 "$c" "$c"; done
rm -f $PWN
