#!/usr/bin/env bash
# Probe: a merge commit on a protected branch whose tree is neither parent's
# (an "evil merge": unreviewed bytes in the merge itself). Both parents are
# already on main. Pushed to main and to a new protected branch, no note.
source "$(dirname "$0")/../lib.sh"
setup_team
echo "fn more() {}" >> "$R/src/parser.rs"; L0=$(approve_live); sign agent "$L0"; C0=$(commit_all "medium")
out=$(push_past main); verdict "0. baseline" main "$C0" "$out"
mkdir -p "$R/crypto"; printf 'pub fn backdoor() {}\n' > "$R/crypto/aes.rs"; g add -A
T=$(g write-tree); g reset -q --hard
M=$(g commit-tree "$T" -p "$C0" -p "$C0~1" -m "merge")
out=$(g push --no-verify origin "$M:refs/heads/main" 2>&1); verdict "1. evil merge onto main (no note)" main "$M" "$out"
out=$(g push --no-verify origin "$M:refs/heads/evil" 2>&1); verdict "2. evil merge as a new protected branch" evil "$M" "$out"
