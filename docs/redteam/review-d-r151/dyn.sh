#!/bin/bash
# Dynamic cases: objects that arrive or leave while one reader runs.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "${WORK:-/tmp/review-d-r151}/home"
export HOME="${WORK:-/tmp/review-d-r151}/home" GIT_CONFIG_NOSYSTEM=1
H="${HARNESS:-$HERE/harness/target/debug/harness}"
rm -rf dyn; git init -q dyn; cd dyn
echo hello > a.txt; git add a.txt; git commit -qm base
B=$(git hash-object --stdin <<< "later")           # blob id, not written yet
T=$(printf '100644 blob %s\tghost\n' $B | git mktree --missing)   # tree present, blob absent
echo "== (b) present tree, descendant blob written later (as unpack-objects / a migrate writes trees before blobs)"
$H steps . "ask:$T" "ask:$T:ghost" "sh:echo later | git hash-object -w --stdin" "ask:$T:ghost"
echo "   old design (one long-lived git cat-file, no memo):"
rm -f /tmp/rv11_b.txt
git hash-object --stdin <<< "later2" >/dev/null
B2=$(git hash-object --stdin <<< "later2"); T2=$(printf '100644 blob %s\tghost\n' $B2 | git mktree --missing)
coproc CF { git cat-file --batch-command; }
echo "info $T2" >&${CF[1]}; read -r l <&${CF[0]}; echo "   $l"
echo "info $T2:ghost" >&${CF[1]}; read -r l <&${CF[0]}; echo "   $l"
git hash-object -w --stdin <<< "later2" >/dev/null
echo "info $T2:ghost" >&${CF[1]}; read -r l <&${CF[0]}; echo "   $l"
eval "exec ${CF[1]}>&-"; wait $CF_PID || true

echo "== (a) gitlink whose commit arrives later"
git init -q ../subr; (cd ../subr && echo s > s && git add s && git commit -qm s)
S=$(git -C ../subr rev-parse HEAD)
git update-index --add --cacheinfo 160000,$S,sub; git commit -qm gl; C=$(git rev-parse HEAD)
$H steps . "ask:$C" "ask:$C:sub" "sh:git fetch -q ../subr $S" "ask:$C:sub"

echo "== (c) object removed while the reader runs (positive kept)"
L=$(git hash-object -w --stdin <<< "doomed")
$H steps . "ask:$L" "head:100:$L" "sh:rm .git/objects/${L:0:2}/${L:2}" "ask:$L" "head:100:$L"
