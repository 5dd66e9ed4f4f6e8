#!/usr/bin/env bash
# Legitimate flow under D-R146's binding: a backport. A maintainer-approved
# change Y is on main (its note carries L1). A teammate cherry-picks it onto
# a protected release branch whose base differs elsewhere (a rebase proof:
# the same approved bytes on the reviewed paths), and pushes with the
# honest client, `probity push origin release`. The hook's replay rule lets
# a backport pass; does the binding (the approval on the delivering
# commit's OWN note) let it, i.e. does `probity publish` write L1 there?
source "$(dirname "$0")/../lib.sh"
setup_team
mkdir -p "$R/crypto"; printf 'pub fn encrypt() {}\n' > "$R/crypto/aes.rs"
L1=$(approve_live); sign agent "$L1"; sign alice "$L1"
Y=$(commit_all "encrypt (reviewed, signed by alice)")
out=$(push_past main); verdict "1. Y on main" main "$Y" "$out"
# release branch from the first commit, with an unrelated reviewed change
g checkout -q -b release main~1
printf 'release notes\n' > "$R/RELEASE.md"; approve_live >/dev/null; RB=$(commit_all "release notes")
out=$(push_past release); verdict "2. release branch with its own change" release "$RB" "$out"
g cherry-pick "$Y" >/dev/null 2>&1 || g -c core.hooksPath=/dev/null cherry-pick "$Y"
BP=$(g rev-parse HEAD)
echo "   backport commit $BP (parent tree differs from Y's: $([ "$(g rev-parse $BP~1^{tree})" != "$(g rev-parse $Y~1^{tree})" ] && echo yes))"
out=$("$P" --cwd "$R" push origin release 2>&1)
echo "$out" | grep -E "DENY|deny|refus|error|_[a-z]+:" | head -6
verdict "3. backport with \`probity push origin release\`" release "$BP" "$out"
echo "   note on the backport at the server names L1: $(git -C "$S" notes --ref=probity show "$BP" 2>/dev/null | grep -c "$L1")"
if [ "$(smain release)" != "$BP" ]; then
  out=$(push_past release); verdict "3b. backport with publish + push past the client" release "$BP" "$out"
fi
