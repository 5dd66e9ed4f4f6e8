#!/usr/bin/env bash
# Target 1(b) (D-R145): a commit in the ref's history window that delivered
# the same (parent tree, tree) as an approval spends it "whatever its note
# says". An agent that sees a teammate's approved change (here: the
# teammate's feature branch, pushed for CI) lands the same bytes on main
# under its OWN review (medium: the agent signs as reviewer), then reverts
# them (its own review again): main's tree is unchanged. The teammate
# rebases (same trees) and pushes its genuine, never-used approval:
# refused approval_spent. Two cheap self-reviews per victim change.
source "$(dirname "$0")/../lib.sh"
setup_team
T=$W/teammate; git clone -q "$S" "$T"
tj() { "$P" --json --cwd "$T" "$@"; }
tpush() { "$P" --cwd "$T" publish >/dev/null 2>&1
  git -C "$T" fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null && git -C "$T" notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote 2>/dev/null
  git -C "$T" push --no-verify --atomic origin "$@" refs/notes/probity 2>&1; }
# teammate (ci, a reviewer): a medium change, reviewed and signed
printf '// parser\nfn parse() { /* teammate: handle empty input */ }\n' > "$T/src/parser.rs"
st=$(tj start); lin=$(jq -r .lineage_id <<<"$st")
printf '{"findings":[],"evidence":["read it"]}\n' > "$IN/r.json"; printf 'ok\n' > "$IN/ev.txt"
args=(); for lens in $(jq -r '.selected_lenses[]?' <<<"$st"); do args+=(--result "$lens=$IN/r.json"); done
tj finalize --lineage "$lin" "${args[@]}" --evidence "$IN/ev.txt" | jq -r '"   teammate review: \(.state) risk=\(.risk_level // "?")"'
git -C "$T" config probity.signingKey "$W/keys/ci"; "$P" --cwd "$T" attest --lineage "$lin" --sign >/dev/null
git -C "$T" checkout -q -b feature; git -C "$T" commit -qam "handle empty input" --no-verify; TC=$(git -C "$T" rev-parse HEAD)
out=$(tpush feature); verdict "0. teammate's feature branch (for CI)" feature "$TC" "$out"

# agent: copies the bytes from the feature branch, lands them on main under its own review, reverts
if [ -z "${CONTROL:-}" ]; then
g fetch -q origin feature; g show FETCH_HEAD:src/parser.rs > "$R/src/parser.rs"
LA=$(approve_live); sign agent "$LA"; A=$(commit_all "agent: same change")
g revert --no-edit --no-commit HEAD; LB=$(approve_live); sign agent "$LB"; A2=$(commit_all "agent: revert it")
out=$(push_past main); verdict "1. agent's own change + revert (self-reviewed)" main "$A2" "$out"
else echo "   CONTROL: the agent does nothing"; fi

# teammate: rebase onto main (tree unchanged: same trees as reviewed) and push
git -C "$T" fetch -q origin; git -C "$T" checkout -q -B main origin/main; git -C "$T" cherry-pick "$TC" >/dev/null; TM=$(git -C "$T" rev-parse HEAD)
echo "   teammate's commit delivers its approved trees: $([ "$(git -C "$T" rev-parse $TM^{tree})" = "$(git -C "$T" rev-parse $TC^{tree})" ] && [ "$(git -C "$T" rev-parse $TM~1^{tree})" = "$(git -C "$T" rev-parse $TC~1^{tree})" ] && echo yes)"
out=$(tpush main); verdict "2. teammate's legitimate push of its unused approval" main "$TM" "$out"
grep "^remote:" <<<"$out" | grep -v "^remote: *$" | head -8
