#!/usr/bin/env bash
# Controls for 01: the same names at a read step (not beyond), and the
# files 01's walkers run edited themselves.
RT23=${RT23:-$(cd "$(dirname "$0")" && pwd)}
source "$RT23/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
# b2 at the first read: gen.py joins the path itself
kb() { eval "$lib"; mkdir -p $R/tools
  printf 'import os, subprocess, sys\nsubprocess.run([sys.executable, os.path.join("lib", "x.py")])\n' > $R/tools/gen.py
  setup : "python3 tools/gen.py"
  hit "23kb python3 tools/gen.py; gen (read): os.path.join(\"lib\", \"x.py\"); agent edits lib/x.py" "$edit" "python3 tools/gen.py"; }
# a at the read: d's sibling c edited (inside tools/, named below)
ka() { eval "$lib"; mkdir -p $R/tools
  printf 'import a\na.main()\n' > $R/tools/gen.py; printf 'import b\ndef main():\n    b.main()\n' > $R/tools/a.py
  printf 'import c\ndef main():\n    c.main()\n' > $R/tools/b.py; printf 'import d\ndef main():\n    d.main()\n' > $R/tools/c.py
  printf 'def main():\n    pass\n' > $R/tools/d.py
  setup : "python3 tools/gen.py"
  hit "23ka python3 tools/gen.py; agent edits tools/d.py (sibling of the beyond module)" "printf \"$PYPAY\ndef main(): pass\n\" > \$R/tools/d.py" "python3 tools/gen.py"; }
# d: ls | xargs, the hook itself edited
kd() { hook $R/tools/hooks/a 'echo a'
  setup : 'ls tools/hooks | xargs -I{} sh tools/hooks/{}'
  hit "23kd ls tools/hooks | xargs -I{} sh tools/hooks/{}; agent edits tools/hooks/a" "hook \$R/tools/hooks/a '$PAY'" 'ls tools/hooks | xargs -I{} sh tools/hooks/{}'; }
# c3 without the other value: HOOKS=$(cat ...) alone
kc() { eval "$lib"; hook $R/tools/hooks/a 'python3 lib/x.py'; printf 'tools/hooks\n' > $R/tools/hooks.txt
  setup : 'HOOKS=$(cat tools/hooks.txt); run-parts "$HOOKS"'
  hit "23kc HOOKS=\$(cat tools/hooks.txt); run-parts \"\$HOOKS\" (no other value); agent edits lib/x.py" "$edit" 'HOOKS=$(cat tools/hooks.txt); run-parts "$HOOKS"'; }
rm -f $PWN
for c in ${ONLY:-kb ka kd kc}; do variant23 "$c" "$c"; done
rm -f $PWN
