#!/bin/bash
# usage: mkrepo.sh DIR FORMAT  -> builds a repo with odd objects and writes DIR.specs
set -e
D=$1; F=${2:-sha1}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "${WORK:-/tmp/review-d-r151}/home"
export HOME="${WORK:-/tmp/review-d-r151}/home" GIT_CONFIG_NOSYSTEM=1
rm -rf $D; git init -q --object-format=$F $D; cd $D
mkdir -p d/e; echo hello > a.txt; echo inner > d/b.txt; echo deep > d/e/c.txt; echo sp > "x missing"; echo amb > "y ambiguous"; echo c > "has:colon"; echo at > "a@{1}"
printf 'crlf\n' > "$(printf 'cr\r')"; echo hash > "#h"; echo br > "br{ace}"
ln -s a.txt link
git add -A; git commit -qm base
C1=$(git rev-parse HEAD); T1=$(git rev-parse HEAD^{tree})
B=$(git rev-parse HEAD:a.txt)
# gitlink to a commit not present
Z=$(printf '%s' "$C1" | sed 's/./f/g; s/^f/e/')
git update-index --add --cacheinfo 160000,$Z,sub
# a tree with a missing blob
MB=$(printf '%s' "$B" | sed 's/./d/g')
git commit -qm second
C2=$(git rev-parse HEAD); T2=$(git rev-parse HEAD^{tree})
TM=$(printf '100644 blob %s\tghost\n100644 blob %s\treal\n' $MB $B | git mktree --missing)
git tag -a -m t1 tc $C1; git tag -a -m t2 tt $T1; git tag -a -m t3 tb $B; git tag -a -m t4 tn tc
TC=$(git rev-parse tc); TT=$(git rev-parse tt); TB=$(git rev-parse tb); TN=$(git rev-parse tn)
MISS=$(printf '%s' "$C1" | sed 's/./0/g; s/0$/1/')
UP=$(echo $C1 | tr a-f A-F)
{
for X in $C1 $C2 $T1 $T2 $TM $B $TC $TT $TB $TN $MISS $UP; do
  echo $X
  for p in a.txt d d/b.txt d/e/c.txt d/e/ "x missing" "y ambiguous" has:colon "a@{1}" "$(printf 'cr\r')" cr "#h" "br{ace}" link link/ sub sub/x nope ghost real "" ./a.txt d/../a.txt; do echo "$X:$p"; done
  for q in '^{tree}' '^{commit}' '^{blob}' '^{tag}' '^{object}' '^{}' '^{tree}:a.txt' '~0' '^0'; do echo "$X$q"; done
done
echo HEAD; echo HEAD:a.txt; echo ${C1:0:12}; echo ${C1:0:12}:a.txt; echo tc:a.txt; echo main
} > ../$D.specs
echo built $D $(wc -l < ../$D.specs) specs
