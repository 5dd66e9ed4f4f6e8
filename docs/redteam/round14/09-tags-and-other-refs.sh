#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# A forge runs a pushed tag's or branch's own workflow files (`on: push`),
# so a commit reachable from any ref is "live" in CI. A high change (a
# workflow) signed by the agent alone, pushed under other ref names.
source "$RT14/common.sh"
setup_team >/dev/null
mkdir -p "$R/.github/workflows"; printf 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n    - run: echo pwned\n' > "$R/.github/workflows/x.yml"
echo "    start: $(risk_of_live)"
L=$(approve_live); sign agent "$L"; X=$(commit_all "ci: workflow")
for ref in refs/heads/feature refs/tags/v1 refs/heads/wip/x refs/for/main refs/pull/1/head refs/heads/refs/heads/main; do
  out=$(push_past "$X:$ref"); verdict "09 workflow under $ref (agent alone)" "$ref" "$X" "$out"
done
# an annotated tag object pointing at the commit
g tag -a -m t v2 "$X"; out=$(push_past refs/tags/v2); T=$(g rev-parse v2); verdict "09 annotated tag v2 (agent alone)" refs/tags/v2 "$T" "$out"
echo "    server refs: $(git -C "$S" for-each-ref --format='%(refname)' | tr '\n' ' ')"
