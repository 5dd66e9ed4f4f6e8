#!/usr/bin/env bash
# D-R173 (core/src/review/risk/follow.rs): a maintainer (agent + alice)
# approved a folder-open task and what it runs; the agent alone then
# edits a file the task runs in a way v11 still does not name. LANDED +
# medium + "executed" = the agent alone changed what a folder-open task
# runs on the next folder open.
RT18=${RT18:-$(cd "$(dirname "$0")" && pwd)}
source "$RT18/common.sh"
setup() { eval "$1"; task_json "$2" "${3:-}"; base_with "base (task: $2)" >/dev/null; }
hit() { eval "$2"; agent_step "$1"; [ "${4:-}" = nocheck ] || runs_in_checkout "$3" $PWN; }
# a: a glob in a Makefile's include (a file read in turn)
ca() { mkdir -p $R/tools; printf 'include tools/*.mk\n' > $R/Makefile; printf 'all:\n\t@echo rules\n' > $R/tools/rules.mk
  setup : make
  hit "01a Makefile 'include tools/*.mk', agent edits tools/rules.mk" "printf 'all:\n\t@$PAY\n' > $R/tools/rules.mk" make; }
# b: a variable inside a path component (not before a '/')
cb() { mkdir -p $R/tools; printf 'N := step\nall:\n\tpython3 tools/$(N).py\n' > $R/Makefile; printf 'print(1)\n' > $R/tools/step.py
  setup : make
  hit "01b Makefile 'python3 tools/\$(N).py', agent edits tools/step.py" "printf \"$PYPAY\n\" > $R/tools/step.py" make; }
# c: run-parts of a directory named without a trailing slash (the task itself)
cc() { mkdir -p $R/tools/hooks; printf '#!/bin/sh\necho a\n' > $R/tools/hooks/a; chmod +x $R/tools/hooks/a
  setup : "run-parts tools/hooks"
  hit "01c task 'run-parts tools/hooks', agent edits tools/hooks/a" "printf '#!/bin/sh\n$PAY\n' > $R/tools/hooks/a" "run-parts tools/hooks"; }
# d: find -exec over a directory (the task itself)
cd_() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/gen.py
  setup : "find tools -name '*.py' -exec python3 {} \\;"
  hit "01d task 'find tools -name *.py -exec python3 {} ;', agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" "find tools -name '*.py' -exec python3 {} \\;"; }
# e: python3 runs a directory's __main__.py
ce() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/__main__.py
  setup : "python3 tools"
  hit "01e task 'python3 tools', agent edits tools/__main__.py" "printf \"$PYPAY\n\" > $R/tools/__main__.py" "python3 tools"; }
# f: make -I DIR: an include make finds in DIR
cf() { mkdir -p $R/tools; printf 'include rules.mk\n' > $R/Makefile; printf 'all:\n\t@echo rules\n' > $R/tools/rules.mk
  setup : "make -I tools"
  hit "01f task 'make -I tools', Makefile 'include rules.mk', agent edits tools/rules.mk" "printf 'all:\n\t@$PAY\n' > $R/tools/rules.mk" "make -I tools"; }
# g: node . runs index.js (package.json has no main)
cg() { printf '{"name":"x"}\n' > $R/package.json; printf 'console.log(1)\n' > $R/index.js
  setup : "node ."
  hit "01g task 'node .', agent edits index.js" "printf \"require('fs').writeFileSync('$PWN','')\n\" > $R/index.js" "node ."; }
# g2: npm start without a start script runs node server.js
cg2() { printf '{"name":"x","version":"1.0.0"}\n' > $R/package.json; printf 'console.log(1)\n' > $R/server.js
  setup : "npm start"
  hit "01g2 task 'npm start' (no start script), agent edits server.js" "printf \"require('fs').writeFileSync('$PWN','')\n\" > $R/server.js" "npm start"; }
# h: a glob in the middle of a file name (the task itself)
ch() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/step1.py
  setup : 'for f in tools/step*.py; do python3 "$f"; done'
  hit "01h task 'for f in tools/step*.py', agent edits tools/step1.py" "printf \"$PYPAY\n\" > $R/tools/step1.py" 'for f in tools/step*.py; do python3 "$f"; done'; }
# j: xargs over a list file (.txt, not read)
cj() { mkdir -p $R/tools; printf 'tools/step.py\n' > $R/tools/list.txt; printf 'print(1)\n' > $R/tools/step.py
  setup : "xargs -a tools/list.txt -n1 python3"
  hit "01j task 'xargs -a tools/list.txt -n1 python3', agent edits tools/step.py" "printf \"$PYPAY\n\" > $R/tools/step.py" "xargs -a tools/list.txt -n1 python3"; }
# l: cd \${workspaceFolder}/tools (VS Code substitutes the variable)
cl() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/gen.py
  setup : 'cd ${workspaceFolder}/tools && python3 gen.py'
  hit "01l task 'cd \${workspaceFolder}/tools && python3 gen.py', agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" 'cd $PWD/tools && python3 gen.py'; }
# l2: env --chdir=tools
cl2() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/gen.py
  setup : "env --chdir=tools python3 gen.py"
  hit "01l2 task 'env --chdir=tools python3 gen.py', agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" "env --chdir=tools python3 gen.py"; }
# l3: cd -- tools
cl3() { mkdir -p $R/tools; printf 'print(1)\n' > $R/tools/gen.py
  setup : "cd -- tools && python3 gen.py"
  hit "01l3 task 'cd -- tools && python3 gen.py', agent edits tools/gen.py" "printf \"$PYPAY\n\" > $R/tools/gen.py" "cd -- tools && python3 gen.py"; }
# p: the task's options.env puts tools/bin first on PATH; 'make' is tools/bin/make
cp_() { mkdir -p $R/tools/bin; printf '#!/bin/sh\nexec /usr/bin/make "$@"\n' > $R/tools/bin/make; chmod +x $R/tools/bin/make; printf 'all:\n\t@echo ok\n' > $R/Makefile
  task_env make '{"PATH":"${workspaceFolder}/tools/bin:${env:PATH}"}'; base_with "base (task make, PATH=tools/bin)" >/dev/null
  hit "01p task env PATH=\${workspaceFolder}/tools/bin, agent edits tools/bin/make" "printf '#!/bin/sh\n$PAY\nexec /usr/bin/make \"\$@\"\n' > $R/tools/bin/make" 'PATH=$PWD/tools/bin:$PATH make'; }
# p2: .envrc exports PATH (not PATH_add) and then runs git
cp2() { mkdir -p $R/tools/bin; printf '#!/bin/sh\nexec /usr/local/bin/git "$@"\n' > $R/tools/bin/git; chmod +x $R/tools/bin/git
  printf 'export PATH="$PWD/tools/bin:$PATH"\ngit config core.autocrlf false\n' > $R/.envrc; base_with "base (.envrc export PATH)" >/dev/null
  hit "01p2 .envrc 'export PATH=\$PWD/tools/bin:\$PATH; git ...', agent edits tools/bin/git" "printf '#!/bin/sh\n$PAY\nexec /usr/local/bin/git \"\$@\"\n' > $R/tools/bin/git" 'bash .envrc'; }
rm -f $PWN
for c in ${ONLY:-ca cb cc cd_ ce cf cg cg2 ch cj cl cl2 cl3 cp_ cp2}; do variant18 "$c" "$c"; done
rm -f $PWN
