#!/usr/bin/env bash
# v12's globs and stems against the shell's own expansions: braces,
# tilde, quoting, escapes, POSIX classes, negated classes, **.
RT19=${RT19:-$(cd "$(dirname "$0")" && pwd)}
source "$RT19/common.sh"
gen() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/$1; }
ca() { gen gen_a.py; gen gen_b.py; setup : 'for s in tools/gen_{a,b}.py; do python3 "$s"; done'
  hit "03a brace inside a component tools/gen_{a,b}.py, agent edits tools/gen_a.py" "printf \"$PYPAY\n\" > $R/tools/gen_a.py" 'for s in tools/gen_{a,b}.py; do python3 "$s"; done'; }
cb() { gen gen.py; setup : 'python3 ~+/tools/gen.py'
  hit "03b tilde ~+/tools/gen.py (bash: \$PWD), agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" 'python3 ~+/tools/gen.py'; }
cc() { gen gen.py; setup : 'python3 tools/g\en.py'
  hit "03c escape tools/g\\en.py, agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" 'python3 tools/g\en.py'; }
cd_() { gen gen.py; setup : "python3 tools/g''en.py"
  hit "03d quotes inside a component tools/g''en.py, agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" "python3 tools/g''en.py"; }
ce() { gen gen.py; setup : 'for f in tools/[[:alpha:]]*.py; do python3 "$f"; done'
  hit "03e POSIX class tools/[[:alpha:]]*.py, agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" 'for f in tools/[[:alpha:]]*.py; do python3 "$f"; done'; }
cf() { gen Gen.py; setup : 'for f in tools/[!a-z]*.py; do python3 "$f"; done'
  hit "03f negated class tools/[!a-z]*.py (lower-cased), agent edits tools/Gen.py" "printf \"$PYPAY\n\" > $R/tools/Gen.py" 'for f in tools/[!a-z]*.py; do python3 "$f"; done'; }
# g (control): ** over a subdirectory
cg() { mkdir -p $R/tools/x; printf 'echo\n' > $R/tools/x/y.sh; setup : 'shopt -s globstar; for f in tools/**/*.sh; do bash "$f"; done'
  hit "03g control: tools/**/*.sh, agent edits tools/x/y.sh" "printf '$PAY\n' > $R/tools/x/y.sh"; }
# h (control): a stem: tools/gen".py"
ch() { gen gen.py; setup : 'python3 tools/gen".py"'
  hit "03h control: tools/gen\".py\", agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py"; }
rm -f $PWN
for c in ${ONLY:-ca cb cc cd_ ce cf cg ch}; do variant19 "$c" "$c"; done
rm -f $PWN
