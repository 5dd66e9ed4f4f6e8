#!/usr/bin/env bash
# Controls for 01's holes: the same shapes without the trick (should be
# high), and the files the walks run edited themselves.
RT25=${RT25:-$(cd "$(dirname "$0")" && pwd)}
source "$RT25/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
hooks='eval "$lib"; hook $R/tools/hooks/a "python3 lib/x.py"; hook $R/tools/safe/a "echo ok"'
hedit="hook \$R/tools/hooks/a '$PAY'"
run() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "${5:-$edit}" "$3"; }
kwa()  { eval "$hooks"; printf 'tools/hooks\n' > $R/tools/hooks.txt; run 25kwa 'decoy, read -r HOOKS < file (spaced: 24wa2 fixed)' 'HOOKS=tools/safe; read -r HOOKS < tools/hooks.txt; run-parts "$HOOKS"'; }
kwa8() { eval "$hooks"; run 25kwa8 'as 25wa8 (mapfile), the hook itself edited' 'HOOKS=tools/safe; mapfile -t HOOKS<<<tools/hooks; run-parts "$HOOKS"' tools/hooks/a "$hedit"; }
kxa()  { eval "$hooks"; run 25kxa 'xargs -n1 sh (24ga2 fixed)' "ls tools/hooks | sed 's|^|tools/hooks/|' | xargs -n1 sh"; }
kfa()  { eval "$hooks"; run 25kfa 'find tools/hooks -type f -exec sh {} \; (no test)' "find tools/hooks -type f -exec sh {} \\;"; }
kfa2() { eval "$hooks"; run 25kfa2 "find . -name 'hook?' -type d -exec run-parts {} \\; the hook itself edited" "find . -name 'hook?' -type d -exec run-parts {} \\;" tools/hooks/a "$hedit"; }
kfa3() { eval "$hooks"; run 25kfa3 "as 25fa3 (-regex), the hook itself edited" "find tools -regex '.*/hooks/.*' -exec sh {} \\;" tools/hooks/a "$hedit"; }
kga()  { eval "$hooks"; printf 'import os, subprocess\nfor n in sorted(os.listdir("tools/hooks")):\n    subprocess.run(["sh", "tools/hooks/" + n])\n' > $R/tools/gen.py
  run 25kga 'os.listdir("tools/hooks") + subprocess (24ga8 fixed)' 'python3 tools/gen.py'; }
kga3() { eval "$lib"; hook $R/tools/hooks/a "python3 ../lib/x.py"; printf 'import os, subprocess\nos.chdir("tools")\nfor n in sorted(os.listdir("hooks")):\n    subprocess.run(["sh", os.path.join("hooks", n)])\n' > $R/tools/gen.py
  run 25kga3 'as 25ga3 (chdir + listdir("hooks")), the hook itself edited' 'python3 tools/gen.py' tools/hooks/a "$hedit"; }
kga5() { mkdir -p $R/lib $R/tools/hooks; printf 'console.log(1);\n' > $R/lib/x.js; printf 'require("../../lib/x.js");\n' > $R/tools/hooks/a.js
  printf 'const fs = require("fs");\nfor (const f of fs.readdirSync("tools/hooks")) require("./hooks/" + f);\n' > $R/tools/gen.js
  run 25kga5 'as 25ga5 (readdirSync + require), the hook itself edited' 'node tools/gen.js' tools/hooks/a.js "printf \"$JSPAY\n\" > \$R/tools/hooks/a.js"; }
rm -f $PWN
for c in ${ONLY:-kwa kwa8 kxa kfa kfa2 kfa3 kga kga3 kga5}; do variant25 "$c" "$c"; done
rm -f $PWN
