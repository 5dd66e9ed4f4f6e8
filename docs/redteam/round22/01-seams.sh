#!/usr/bin/env bash
# v12's newest seams (9253324f): the module one step beyond the reads, a
# directory listed for its own files and walked later with every file
# below, default and assignment forms, .envrc's variables in a task.
# LANDED + medium + executed = hole.
RT22=${RT22:-$(cd "$(dirname "$0")" && pwd)}
source "$RT22/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
# a: an import chain four deep (tools/), the module beyond runs lib/x.py
sa() { eval "$lib"; mkdir -p $R/tools
  printf 'import a\na.main()\n' > $R/tools/gen.py
  printf 'import b\ndef main():\n    b.main()\n' > $R/tools/a.py
  printf 'import c\ndef main():\n    c.main()\n' > $R/tools/b.py
  printf 'import subprocess, sys\ndef main():\n    subprocess.run([sys.executable, "lib/x.py"])\n' > $R/tools/c.py
  setup : "python3 tools/gen.py"
  hit "22a python3 tools/gen.py; gen->a->b->c (c beyond the reads) runs lib/x.py; agent edits lib/x.py" "$edit" "python3 tools/gen.py"; }
# a2: python -m app.main; relative imports main->a->b->c, then c imports lib.x (another directory)
sa2() { mkdir -p $R/app $R/lib; : > $R/app/__init__.py
  printf 'from .a import run\nrun()\n' > $R/app/main.py
  printf 'from .b import run\n' > $R/app/a.py
  printf 'from .c import run\n' > $R/app/b.py
  printf 'from lib.x import run\n' > $R/app/c.py
  printf 'def run():\n    print("x")\n' > $R/lib/x.py
  setup : "python3 -m app.main"
  hit "22a2 python3 -m app.main; main->a->b->c (beyond), c: from lib.x import run; agent edits lib/x.py" "printf \"$PYPAY\ndef run(): pass\n\" > \$R/lib/x.py" "python3 -m app.main"; }
# b: run-parts tools/hooks (own files listed); hooks/a then finds every *.sh below tools/hooks
sb() { eval "$lib"; hook $R/tools/hooks/a 'find tools/hooks -name "*.sh" -exec sh {} \;'
  mkdir -p $R/tools/hooks/steps; printf 'python3 lib/x.py\n' > $R/tools/hooks/steps/gen.sh
  setup : "run-parts tools/hooks"
  hit "22b run-parts tools/hooks; hooks/a: find tools/hooks -name '*.sh' -exec sh; steps/gen.sh runs lib/x.py; agent edits lib/x.py" "$edit" "run-parts tools/hooks"; }
# c: a nested default
sc() { hook $R/tools/hooks/a 'echo a'
  setup : 'run-parts "${HOOKS:-${DEFAULT_HOOKS:-tools/hooks}}"'
  hit "22c run-parts \"\${HOOKS:-\${DEFAULT_HOOKS:-tools/hooks}}\"; agent edits tools/hooks/a" "hook \$R/tools/hooks/a '$PAY'" 'run-parts "${HOOKS:-${DEFAULT_HOOKS:-tools/hooks}}"'; }
# c2: a quoted default
sc2() { hook $R/tools/hooks/a 'echo a'
  setup : 'run-parts "${HOOKS:-"tools/hooks"}"'
  hit "22c2 run-parts \"\${HOOKS:-\"tools/hooks\"}\"; agent edits tools/hooks/a" "hook \$R/tools/hooks/a '$PAY'" 'run-parts "${HOOKS:-"tools/hooks"}"'; }
# c3: := assigns, a later $HOOKS walks
sc3() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'
  setup : ': "${HOOKS:=tools/hooks}"; run-parts "$HOOKS"'
  hit "22c3 : \"\${HOOKS:=tools/hooks}\"; run-parts \"\$HOOKS\"; hooks/a runs lib/x.py; agent edits lib/x.py" "$edit" ': "${HOOKS:=tools/hooks}"; run-parts "$HOOKS"'; }
# c4: ${V-default} whose default starts with a variable
sc4() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'
  setup : 'run-parts "${HOOKS-$PWD/tools/hooks}"'
  hit "22c4 run-parts \"\${HOOKS-\$PWD/tools/hooks}\"; hooks/a runs lib/x.py; agent edits lib/x.py" "$edit" 'run-parts "${HOOKS-$PWD/tools/hooks}"'; }
# d: .envrc exports HOOKS; the folder-open task walks "$HOOKS"
sd() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'; printf 'export HOOKS=tools/hooks\n' > $R/.envrc
  setup : 'run-parts "$HOOKS"'
  hit "22d .envrc: export HOOKS=tools/hooks; task run-parts \"\$HOOKS\"; hooks/a runs lib/x.py; agent edits lib/x.py" "$edit" "$DIRENV; run-parts \"\$HOOKS\""; }
# d2: .envrc PATH_add tools/bin; the task runs lint from PATH
sd2() { eval "$lib"; hook $R/tools/bin/lint 'python3 lib/x.py'; printf 'PATH_add tools/bin\n' > $R/.envrc
  setup : 'lint'
  hit "22d2 .envrc: PATH_add tools/bin; task lint; tools/bin/lint runs lib/x.py; agent edits lib/x.py" "$edit" "$PATHADD; $DIRENV; lint"; }
rm -f $PWN
for c in ${ONLY:-sa sa2 sb sc sc2 sc3 sc4 sd sd2}; do variant22 "$c" "$c"; done
rm -f $PWN
