#!/usr/bin/env bash
# The bound over several walked directories (a false positive), and the
# time `probity start` takes (the edit made first, then timed).
RT20=${RT20:-$(cd "$(dirname "$0")" && pwd)}
source "$RT20/common.sh"
edit='printf "// parser\nfn parse() { /* v2 */ }\n" > $R/src/parser.rs'
# a: FP? two walked directories of 70 hooks each (140 files at one step > 128)
fa() { for i in $(seq 1 70); do hook $R/tools/pre/h$i 'true'; hook $R/tools/post/h$i 'true'; done
  setup : "run-parts tools/pre && run-parts tools/post"; eval "$edit"; timed_start "04a (2 x 70 hooks)"
  hit "04a FP? run-parts tools/pre && run-parts tools/post (70 hooks each), agent edits src/parser.rs" "$edit"; }
# a0: one walked directory of 120 hooks: medium
fa0() { for i in $(seq 1 120); do hook $R/tools/pre/h$i 'true'; done
  setup : "run-parts tools/pre"; eval "$edit"; timed_start "04a0 (1 x 120 hooks)"
  hit "04a0 run-parts tools/pre (120 hooks), agent edits src/parser.rs" "$edit"; }
# p: perf within the bound: 5 walked dirs x 20 Python scripts importing each other, 5000 other files
pp() { local cmd=""; for d in $(seq 1 5); do mkdir -p $R/tools/d$d
    for i in $(seq 1 20); do printf '#!/usr/bin/env python3\nimport m%s, m%s\n' $(( (i+1)%20 )) $(( (i+2)%20 )) > $R/tools/d$d/m$i; chmod +x $R/tools/d$d/m$i; done
    cmd="$cmd run-parts tools/d$d;"; done
  mkdir -p $R/vendor $R/src/gen; for i in $(seq 1 3000); do echo "x$i" > $R/vendor/f$i.txt; done; for i in $(seq 1 2000); do echo "fn f$i() {}" > $R/src/gen/f$i.rs; done
  setup : "$cmd"; eval "$edit"; timed_start "04p perf (5 walked dirs x 20 files, 5000 other files)"; timed_start "04p perf again"
  hit "04p perf: agent edits src/parser.rs" ":"; }
for c in ${ONLY:-fa fa0 pp}; do variant20 "$c" "$c"; done
