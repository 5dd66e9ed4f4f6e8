#!/usr/bin/env bash
# Controls for 01's holes: the same shapes without the trick, and the
# files the walks run edited themselves.
RT24=${RT24:-$(cd "$(dirname "$0")" && pwd)}
source "$RT24/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
hooks='eval "$lib"; hook $R/tools/hooks/a "python3 lib/x.py"; hook $R/tools/safe/a "echo ok"'
hedit="hook \$R/tools/hooks/a '$PAY'"
run() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "${5:-$edit}" "$3"; }
kwa()  { eval "$hooks"; run 24kwa 'HOOKS=tools/hooks; run-parts "$HOOKS" (the literal is the value)' 'HOOKS=tools/hooks; run-parts "$HOOKS"'; }
kwa2() { eval "$hooks"; printf 'tools/hooks\n' > $R/tools/hooks.txt; run 24kwa2 'read -r HOOKS < file (no decoy)' 'read -r HOOKS < tools/hooks.txt; run-parts "$HOOKS"'; }
kwa8() { eval "$hooks"; run 24kwa8 'for D in tools/hooks (a literal value)' 'for D in tools/hooks; do run-parts "$D"; done'; }
kwa4() { eval "$hooks"; run 24kwa4 'as 24wa4, the hook itself edited' 'HOOKS=tools/safe; run-parts "${HOOKS/safe/hooks}"' tools/hooks/a "$hedit"; }
kga()  { eval "$hooks"; run 24kga 'as 24ga, the hook itself edited' 'for f in $(ls tools/hooks); do sh tools/hooks/$(basename $f); done' tools/hooks/a "$hedit"; }
kga3() { eval "$lib"; hook $R/tools/hooks/a "python3 ../../lib/x.py"; run 24kga3 'as 24ga3, the hook itself edited' 'cd tools/hooks && for f in *; do sh "./$f"; done' tools/hooks/a "$hedit"; }
kga4() { eval "$hooks"; printf 'import os, subprocess\nfor n in sorted(os.listdir("tools/hooks")):\n    subprocess.run(["sh", f"tools/hooks/{n}"])\n' > $R/tools/gen.py
  run 24kga4 'as 24ga4, the hook itself edited' 'python3 tools/gen.py' tools/hooks/a "$hedit"; }
kwa5() { eval "$hooks"; run 24kwa5 'as 24wa5, the hook itself edited' 'HOOKS=_tools/hooks; run-parts "${HOOKS#_}"' tools/hooks/a "$hedit"; }
kwa3() { eval "$lib"; hook $R/tools/hooks/a "python3 lib/x.py"; run 24kwa3 'as 24wa3, the hook itself edited' 'HOOKS=tools; HOOKS+=/hooks; run-parts "$HOOKS"' tools/hooks/a "$hedit"; }
kga0() { eval "$hooks"; run 24kga0 'for f in $(ls tools/hooks); do sh tools/hooks/$f (23d3, fixed)' 'for f in $(ls tools/hooks); do sh tools/hooks/$f; done'; }
rm -f $PWN
for c in ${ONLY:-kwa kwa2 kwa8 kwa4 kga kga3 kga4 kga0 kwa5 kwa3}; do variant24 "$c" "$c"; done
rm -f $PWN
