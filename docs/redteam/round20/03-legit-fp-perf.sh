#!/usr/bin/env bash
# Legitimate flows (an edit to src/parser.rs, which no task runs: medium,
# lands), false positives (ordinary approved content makes that edit high)
# and the time `probity start` takes with walked directories.
RT20=${RT20:-$(cd "$(dirname "$0")" && pwd)}
source "$RT20/common.sh"
edit='printf "// parser\nfn parse() { /* v2 */ }\n" > $R/src/parser.rs'
# a: run-parts over a few ordinary hooks
la() { for n in 10-fmt 20-lint 30-deps; do hook $R/tools/hooks/$n "echo $n"; done
  setup : "run-parts tools/hooks"; hit "03a legit: run-parts tools/hooks (3 hooks), agent edits src/parser.rs" "$edit"; }
# b: make with include tools/*.mk
lb() { mkdir -p $R/tools; printf 'include tools/*.mk\n' > $R/Makefile; printf 'fmt:\n\t@echo fmt\n' > $R/tools/fmt.mk; printf 'lint:\n\t@echo lint\n' > $R/tools/lint.mk
  setup : make; hit "03b legit: make; include tools/*.mk, agent edits src/parser.rs" "$edit"; }
# c: find . -name '*.py' -exec python3 -m py_compile {} + (a compile check)
lc() { mkdir -p $R/app; printf 'print(1)\n' > $R/app/main.py
  setup : "find . -name '*.py' -exec python3 -m py_compile {} +"; hit "03c legit: find . -name *.py -exec python3 -m py_compile, agent edits src/parser.rs" "$edit"; }
# d: FP? run-parts over a directory of 200 generated hooks (over the bound)
fd() { for i in $(seq 1 200); do hook $R/tools/hooks/h$i 'true'; done
  setup : "run-parts tools/hooks"; eval "$edit"; timed_start "03d (200 hooks)"; hit "03d FP? run-parts tools/hooks (200 hooks), agent edits src/parser.rs" "$edit"; }
# e: FP? an ordinary Python app run with -m: __main__ -> cli -> commands.build -> util (four deep)
fe() { mkdir -p $R/app/commands; : > $R/app/__init__.py; : > $R/app/commands/__init__.py
  printf 'from .cli import main\nmain()\n' > $R/app/__main__.py; printf 'from .commands import build\ndef main():\n    build.run()\n' > $R/app/cli.py
  printf 'from ..util import log\ndef run():\n    log("built")\n' > $R/app/commands/build.py; printf 'import json\ndef log(m):\n    print(json.dumps(m))\n' > $R/app/util.py
  setup : "python3 -m app"; hit "03e FP? python3 -m app (__main__ -> cli -> commands.build -> util), agent edits src/parser.rs" "$edit"; }
# f: FP? python3 tools/gen.py in a repo whose tools/ holds 130 modules (import helpers)
ff() { mkdir -p $R/tools; printf 'import helpers\nhelpers.go()\n' > $R/tools/gen.py; printf 'def go():\n    print(1)\n' > $R/tools/helpers.py
  for i in $(seq 1 130); do printf 'X = %s\n' $i > $R/tools/m$i.py; done
  setup : "python3 tools/gen.py"; hit "03f FP? python3 tools/gen.py with 130 modules beside it, agent edits src/parser.rs" "$edit"; }
# p: perf: 20 walked directories of 120 files each (each importing 3 others), 3000 other files
pp() { local cmd=""; for d in $(seq 1 20); do mkdir -p $R/tools/d$d
    for i in $(seq 1 120); do printf '#!/usr/bin/env python3\nimport m%s, m%s, m%s\n' $(( (i+1)%120 )) $(( (i+2)%120 )) $(( (i+3)%120 )) > $R/tools/d$d/m$i; chmod +x $R/tools/d$d/m$i; done
    cmd="$cmd run-parts tools/d$d;"; done
  mkdir -p $R/vendor; for i in $(seq 1 3000); do echo "x$i" > $R/vendor/f$i.txt; done
  setup : "$cmd"
  eval "$edit"; timed_start "03p perf (20 walked dirs x 120 files, 3000 other files)"; timed_start "03p perf again"
  hit "03p perf: agent edits src/parser.rs" ":"; }
for c in ${ONLY:-la lb lc fd fe ff pp}; do variant20 "$c" "$c"; done
