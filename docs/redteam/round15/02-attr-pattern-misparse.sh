#!/usr/bin/env bash
RT15=${RT15:-$(cd "$(dirname "$0")" && pwd)}
# v9's `checkout_transforms` matches each .gitattributes pattern with its
# own glob (checkout.rs `glob`). A bracket expression ends at the first
# `]` after its second byte, so a POSIX class (`[[:alpha:]]`), a negated
# class holding `]` (`[!]]`, `[^]]`) and an escaped `]` (`[\]u]`) end
# early and the rest is matched literally: the pattern "cannot match"
# where git's wildmatch matches. Precondition (as round 14's 07b): the
# maintainer approved the attribute line. The agent alone then adds a
# file under it, stored re-encoded.
source "$RT15/common.sh"
SPAWN='import os; os.system("id > /tmp/r15-py")'
one() { # LABEL PATTERN
  variant15 "$1" '
  printf "%s working-tree-encoding=UTF-16LE\n" "'"$2"'" > "$R/.gitattributes"; mkdir -p "$R/lib"; printf "x = 1\n" > "$R/lib/keep.py"
  base_with "'"$1"' approved attribute: '"$2"'"
  echo "    git check-attr: $(git -C "$R" check-attr working-tree-encoding -- lib/run.py)"
  pad "$SPAWN" > "$R/lib/run.py"
  agent_step "'"$1"' add lib/run.py (os.system, stored re-encoded)"
  echo "    blob lib/run.py as stored: $(git -C "$S" cat-file -p main:lib/run.py 2>/dev/null | head -c 40)"
  CL=$W/co; git clone -q "$S" "$CL" 2>/dev/null; echo "    fresh clone lib/run.py: $(cat "$CL/lib/run.py" 2>/dev/null)"
  (cd "$CL" && python3 lib/run.py 2>/dev/null); echo "    python3 lib/run.py in the clone: /tmp/r15-py $( [ -e /tmp/r15-py ] && echo written || echo absent)"; rm -f /tmp/r15-py'
}
export SPAWN
one 02a 'lib/*.[[:alpha:]]y'
one 02b 'lib/r[!]]n.py'
one 02c 'lib/r[\]u]n.py'
# control: a plain bracket expression is matched (v9 works here)
one 02ctl 'lib/r[a-z]n.py'
