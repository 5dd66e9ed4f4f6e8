#!/usr/bin/env bash
# Legitimate flows (an ordinary edit in a repo with an ordinary folder-open
# task: medium and lands) and false positives (ordinary approved content
# makes an edit nothing runs high). Every edit here is src/parser.rs, which
# no task runs.
RT19=${RT19:-$(cd "$(dirname "$0")" && pwd)}
source "$RT19/common.sh"
edit='printf "// parser\nfn parse() { /* v2 */ }\n" > $R/src/parser.rs'
# a: make with an ordinary C Makefile (no directory words)
la() { printf 'CC ?= cc\nCFLAGS := -O2 -Wall\nall: app\napp: main.c\n\t$(CC) $(CFLAGS) -o $@ $<\n' > $R/Makefile; printf 'int main(void){return 0;}\n' > $R/main.c
  setup : make; hit "04a legit: make (ordinary Makefile), agent edits src/parser.rs" "$edit"; }
# b: an ordinary Python task script
lb() { mkdir -p $R/tools; printf 'import json, sys\n\ndef main():\n    print(json.dumps({"ok": True}))\n\nif __name__ == "__main__":\n    main()\n' > $R/tools/gen.py
  setup : "python3 tools/gen.py"; hit "04b legit: python3 tools/gen.py (ordinary), agent edits src/parser.rs" "$edit"; }
# c: npm run dev with a vite package.json
lc() { printf '{"name":"web","private":true,"scripts":{"dev":"vite","build":"vite build"},"devDependencies":{"vite":"^5.0.0","@vitejs/plugin-react":"^4.0.0"}}\n' > $R/package.json
  setup : "npm run dev"; hit "04c legit: npm run dev (vite), agent edits src/parser.rs" "$edit"; }
# d: a Makefile's ordinary clean rule: find . -name '*.o' -exec rm
fd() { printf 'all:\n\t@echo build\nclean:\n\tfind . -name "*.o" -exec rm -f {} +\n' > $R/Makefile
  setup : make; hit "04d FP? make; Makefile clean: find . -name *.o -exec rm, agent edits src/parser.rs" "$edit"; }
# d2: find . ... | xargs in a script the task runs
fd2() { mkdir -p $R/tools; printf '#!/bin/sh\nfind . -name "*.md" | xargs wc -l\n' > $R/tools/stats.sh
  setup : "sh tools/stats.sh"; hit "04d2 FP? sh tools/stats.sh: find . -name *.md | xargs wc -l, agent edits src/parser.rs" "$edit"; }
# e: a task script whose docstring says "src"
fe() { mkdir -p $R/tools; printf '"""Print the version table (nothing in src is read)."""\nprint("v1")\n' > $R/tools/gen.py
  setup : "python3 tools/gen.py"; hit "04e FP? python3 tools/gen.py, docstring mentions src, agent edits src/parser.rs" "$edit"; }
# f: a Python package whose import chain is four deep
ff() { mkdir -p $R/tools $R/pkg; : > $R/pkg/__init__.py; printf 'import pkg.b\n' > $R/tools/a.py; printf 'import pkg.c\n' > $R/pkg/b.py; printf 'import pkg.d\n' > $R/pkg/c.py; printf 'X = 1\n' > $R/pkg/d.py
  setup : "python3 tools/a.py"; hit "04f FP? python3 tools/a.py with import chain a->pkg.b->pkg.c->pkg.d, agent edits src/parser.rs" "$edit"; }
# g: a C Makefile with SRC := src (v12 documents this over-naming)
fg() { printf 'SRC := src\nall:\n\t@echo $(SRC)\n' > $R/Makefile
  setup : make; hit "04g FP (documented): Makefile SRC := src, agent edits src/parser.rs" "$edit"; }
for c in ${ONLY:-la lb lc fd fd2 fe ff fg}; do variant19 "$c" "$c"; done
