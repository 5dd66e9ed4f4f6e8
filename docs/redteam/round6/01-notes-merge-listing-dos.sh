#!/usr/bin/env bash
# Target 2 (notes bounds, D-R138): a pusher adds 200,000 tiny notes on ids no
# commit has (one notes-only push, within every bound). Every teammate whose
# `probity push` has to merge the server's notes into a local notes commit
# (the managed pre-push hook path: publish first, then cat_sort_uniq merge
# on a stale-notes refusal) sends a merge whose diff against its FIRST parent
# (the teammate's own notes) lists the attacker's 200,000 files again:
# D-R138's listing cap refuses the teammate's legitimate push.
source "$(dirname "$0")/../lib.sh"
N=${N:-200000}
setup_team
# Teammate (this clone, CI key as its reviewer signature) has the managed hooks.
"$P" --cwd "$R" hooks install >/dev/null
echo "fn more() {}" >> "$R/src/parser.rs"
L=$(approve_live); sign ci "$L"; C1=$(commit_all "first reviewed change")
out=$("$P" --cwd "$R" push origin main 2>&1); verdict "teammate's first reviewed push (baseline)" main "$C1" "$out"

# Attacker: its own clone, fetches the notes, adds N junk notes in one commit.
A=$W/attacker; git clone -q "$S" "$A"
git -C "$A" fetch -q origin '+refs/notes/probity:refs/notes/probity'
tip=$(git -C "$A" rev-parse refs/notes/probity)
python3 - "$N" "$tip" > "$W/fi" <<'EOF'
import sys, hashlib
n, tip = int(sys.argv[1]), sys.argv[2]
w = sys.stdout.write
w("blob\nmark :1\ndata 5\njunk\n")
w("commit refs/notes/probity\ncommitter a <a@x> 0 +0000\ndata 4\njunk\nfrom %s\n" % tip)
for i in range(n):
    h = hashlib.sha1(b"junk%d" % i).hexdigest()
    w("M 100644 :1 %s/%s\n" % (h[:2], h[2:]))
w("\n")
EOF
git -C "$A" fast-import --quiet < "$W/fi"
t0=$(date +%s)
aout=$(git -C "$A" push origin refs/notes/probity 2>&1); echo "attacker's notes-only push of $N junk notes: rc=$? ($(( $(date +%s)-t0 ))s)"
grep -i "remote:" <<<"$aout" | head -3

# Teammate: an ordinary reviewed change, signed by CI, `probity push`.
echo "fn yet_more() {}" >> "$R/src/parser.rs"
L2=$(approve_live); sign ci "$L2"; C2=$(commit_all "second reviewed change")
t0=$(date +%s)
out=$("$P" --cwd "$R" push origin main 2>&1)
echo "teammate's push took $(( $(date +%s)-t0 ))s"
verdict "teammate's legitimate reviewed push after the flood" main "$C2" "$out"
grep -A3 "DENY" <<<"$out" | head -5
# And again (the named retry):
out=$("$P" --cwd "$R" push origin main 2>&1)
verdict "teammate's retry" main "$C2" "$out"
grep -A2 "DENY" <<<"$out" | head -3
