#!/usr/bin/env bash
# Probity beside the git commands it wraps (issue 24): one interleaved run,
# each Probity figure next to its peer, with the git processes and fsyncs
# each side makes (strace -f). Not run by the tests; figures in docs/perf.md.
#
# Usage:
#   cargo build --release -p probity-cli
#   bash scripts/bench/gate_bench.sh [--before OLD_PROBITY] [ROUNDS]
#
# SECTIONS (default "1 2 3 4") picks the parts to run: 1 validate beside
# git status, 2 a new start beside add -A && write-tree, 3 the server hook,
# 4 probity push (needs 3), 5 the server hook with a folder-open pytest
# task whose discovery walks every pushed tree ($TASK_DIRS, default 5000,
# directories of $FILES files; TASK_COMMITS, default "1 10 30", the pushes). FILES (default 20000) sizes the repositories.
# PROBITY (default target/release/probity) is the binary measured; with
# --before, every Probity figure is also taken with OLD_PROBITY in the same
# interleaved rounds (new, old, peer in turn), so both see the same machine.
# Needs bash 5 ($EPOCHREALTIME), git, strace.
set -euo pipefail
BEFORE=
if [[ "${1:-}" == "--before" ]]; then BEFORE=$(realpath "$2"); shift 2; fi
ROUNDS=${1:-7}
FILES=${FILES:-20000}
SECTIONS=" ${SECTIONS:-1 2 3 4} "
run_section() { [[ "$SECTIONS" == *" $1 "* ]]; }
P=$(realpath "${PROBITY:-target/release/probity}")
GIT=$(command -v git)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@x
export GIT_AUTHOR_DATE='2026-12-01T00:00:00Z' GIT_COMMITTER_DATE='2026-12-01T00:00:00Z'
CLEAN='{"findings":[],"evidence":["read the diff"]}'
echo "$CLEAN" > "$T/clean.json"

now() { echo "${EPOCHREALTIME/./}"; }   # microseconds

# median of the arguments
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }

# counts DIR CMD...: "gits fsyncs" of one run of CMD in DIR (strace -f)
counts() {
  local dir=$1; shift
  (cd "$dir" && strace -f -qq -o "$T/strace" -e trace=execve,fsync,fdatasync "$@" >/dev/null 2>&1) || true
  local gits fs
  gits=$(grep -v ENOENT "$T/strace" | grep -c 'execve(".*git' || true)
  fs=$(grep -cE 'fsync\(|fdatasync\(' "$T/strace" || true)
  echo "$gits $fs"
}

# A repository of $FILES (20,000) files in $2 directories at $1.
make_repo() {
  local dir=$1 dirs=$2
  "$GIT" init -q -b main "$dir"
  (cd "$dir" && for d in $(seq 0 $((dirs - 1))); do printf 'd%04d\n' "$d"; done | xargs mkdir -p &&
    awk -v n="$FILES" -v d="$dirs" 'BEGIN{for(i=0;i<n;i++){f=sprintf("d%04d/f%05d.rs",i%d,i); print "fn f() -> u32 { " i " }" > f; close(f)}}'
    printf 'target/\n' > .gitignore
    "$GIT" add -A && "$GIT" commit -qm base)
}

# Changes $2 tracked files and adds 20 untracked ones in $1.
change() {
  local dir=$1 n=$2
  (cd "$dir" && "$GIT" ls-files '*.rs' | awk -v n="$n" 'NR <= n' | while read -r f; do echo "// changed" >> "$f"; done
   mkdir -p new && for i in $(seq 1 20); do echo "fn n$i() {}" > "new/n$i.rs"; done)
}

# restamp DIR N: the N files change() changed get content no object store
# holds yet (a first start after an edit writes every changed file's blob;
# a start again over the same edit writes none).
STAMP=0
restamp() {
  STAMP=$((STAMP + 1))
  (cd "$1" && "$GIT" ls-files '*.rs' | awk -v n="$2" -v t="$STAMP-$$" \
    'NR <= n { getline first < $0; close($0); print first > $0; print "// changed " t > $0; close($0) }')
}

# approve DIR BIN: start and approve the live candidate
approve() {
  local dir=$1 bin=$2 l
  l=$("$bin" --cwd "$dir" start --json | grep -o '"lineage_id": *"[^"]*"' | head -1 | cut -d'"' -f4)
  "$bin" --cwd "$dir" finalize --lineage "$l" --result "$T/clean.json" >/dev/null
  "$bin" --cwd "$dir" finalize --lineage "$l" --evidence-cmd -- true >/dev/null
}

declare -A SAMPLES
# time_it KEY DIR CMD...: one timed run, appended to SAMPLES[KEY]
time_it() {
  local key=$1 dir=$2; shift 2
  local a b
  a=$(now)
  # A run that fails is not a figure (a refused push does part of the work).
  (cd "$dir" && "$@" >/dev/null 2>&1) || { echo "gate_bench: $key failed: $*" >&2; exit 1; }
  b=$(now)
  SAMPLES[$key]="${SAMPLES[$key]:-} $(( b - a ))"
}
ms() { awk -v u="$1" 'BEGIN{printf "%.1f ms", u/1000}'; }
report() { # report LABEL KEY PEERKEY COUNTS PEERCOUNTS
  local m p
  m=$(median ${SAMPLES[$2]}); p=$(median ${SAMPLES[$3]})
  printf '| %s | %s | %s | %.2fx | %s | %s |\n' "$1" "$(ms "$m")" "$(ms "$p")" "$(awk -v a="$m" -v b="$p" 'BEGIN{print a/b}')" "$4" "$5"
}

echo "# gate_bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$GIT" --version), $ROUNDS rounds"
echo "| what | probity | peer | ratio | probity gits/fsyncs | peer gits/fsyncs |"
echo "|---|---:|---:|---:|---|---|"

BINS=("$P"); [[ -n "$BEFORE" ]] && BINS+=("$BEFORE")
tag() { [[ "$1" == "$P" ]] && echo new || echo old; }

# 1. validate --gate pre-commit beside git status --porcelain
run_section 1 && for dirs in 40 5000; do
  R="$T/v$dirs"; make_repo "$R" "$dirs"; change "$R" 50
  approve "$R" "$P"
  for _ in $(seq 1 "$ROUNDS"); do
    for bin in "${BINS[@]}"; do time_it "val$dirs$(tag "$bin")" "$R" "$bin" validate --gate pre-commit; done
    time_it "st$dirs" "$R" "$GIT" status --porcelain
  done
  for bin in "${BINS[@]}"; do
    report "validate pre-commit, $dirs dirs ($(tag "$bin"))" "val$dirs$(tag "$bin")" "st$dirs" \
      "$(counts "$R" "$bin" validate --gate pre-commit)" "$(counts "$R" "$GIT" status --porcelain)"
  done
done

# 2. a new start beside add -A && write-tree on a copy of the index
peer_tree() { cp .git/index "$T/index.copy" && GIT_INDEX_FILE="$T/index.copy" "$GIT" add -A && GIT_INDEX_FILE="$T/index.copy" "$GIT" write-tree; }
export -f peer_tree; export GIT T
run_section 2 && for n in 50 5000; do
  R="$T/s$n"; make_repo "$R" 40; change "$R" "$n"
  new_start() { rm -rf "$R/.git/probity"; time_it "$1" "$R" "$2" start; }
  for _ in $(seq 1 "$ROUNDS"); do
    for bin in "${BINS[@]}"; do new_start "start$n$(tag "$bin")" "$bin"; done
    time_it "tree$n" "$R" bash -c peer_tree
  done
  for bin in "${BINS[@]}"; do
    rm -rf "$R/.git/probity"
    report "new start, $n changed files ($(tag "$bin"))" "start$n$(tag "$bin")" "tree$n" \
      "$(counts "$R" "$bin" start)" "$(counts "$R" bash -c peer_tree)"
  done
  # The same with the changed files' content new to the store each run.
  for _ in $(seq 1 "$ROUNDS"); do
    for bin in "${BINS[@]}"; do restamp "$R" "$n"; new_start "fresh$n$(tag "$bin")" "$bin"; done
    restamp "$R" "$n"; time_it "ftree$n" "$R" bash -c peer_tree
  done
  for bin in "${BINS[@]}"; do
    rm -rf "$R/.git/probity"; restamp "$R" "$n"; c=$(counts "$R" "$bin" start)
    restamp "$R" "$n"
    report "new start, $n changed files, content new to the store ($(tag "$bin"))" \
      "fresh$n$(tag "$bin")" "ftree$n" "$c" "$(counts "$R" bash -c peer_tree)"
  done
done

# The base of a push: src/lib.rs; with a discovery task (section 5), also
# a folder-open task running pytest, a test, and $FILES files in
# $TASK_DIRS directories (each pushed tree walked by the discovery).
base_files() {
  mkdir src && echo 'fn a() {}' > src/lib.rs
  [[ "${1:-}" == task ]] || return 0
  mkdir -p .vscode tests
  printf '%s' '{"version":"2.0.0","tasks":[{"label":"t","type":"shell","command":"python3 -m pytest -q","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json
  echo 'def test_ok(): pass' > tests/test_ok.py
  for d in $(seq 0 $((TASK_DIRS - 1))); do printf 'd%04d\n' "$d"; done | xargs mkdir -p
  awk -v n="$FILES" -v d="$TASK_DIRS" 'BEGIN{for(i=0;i<n;i++){f=sprintf("d%04d/f%05d.rs",i%d,i); print "fn f() -> u32 { " i " }" > f; close(f)}}'
}
TASK_DIRS=${TASK_DIRS:-5000}

# 3. the server hook: a push of N reviewed commits, hooked beside plain
# (5: the same in a tree a discovery task walks).
hook_section() {
  local kind=$1 n=$2
  R="$T/p$kind$n"; rm -rf "$R"; mkdir -p "$R"
  "$GIT" init -q --bare -b main "$R/remote.git"
  "$GIT" init -q -b main "$R/w"
  (cd "$R/w" && base_files "$kind" && "$GIT" add -A && "$GIT" commit -qm base &&
    "$GIT" remote add origin ../remote.git && "$GIT" push -q origin main &&
    for i in $(seq 1 "$n"); do echo "fn f$i() {}" > "src/m$i.rs"; "$GIT" add -A; "$GIT" commit -q --no-verify -m "c$i"; done &&
    "$P" start --range origin/main..HEAD --json > "$R/started.json" &&
    grep -o '"lineage_id": *"[^"]*"' "$R/started.json" | cut -d'"' -f4 | sort -u |
      while read -r l; do "$P" finalize --lineage "$l" --result "$T/clean.json" >/dev/null; "$P" finalize --lineage "$l" --evidence-cmd -- true >/dev/null; done &&
    "$P" publish >/dev/null 2>&1 || true)
  cp -a "$R/remote.git" "$R/plain.pristine"
  for bin in "${BINS[@]}"; do
    cp -a "$R/remote.git" "$R/hooked-$(tag "$bin").pristine"
    "$bin" hooks install --server --cwd "$R/hooked-$(tag "$bin").pristine" >/dev/null
  done
  push_to() { rm -rf "$R/target.git"; cp -a "$R/$1.pristine" "$R/target.git"; }
  for _ in $(seq 1 "$ROUNDS"); do
    for bin in "${BINS[@]}"; do
      push_to "hooked-$(tag "$bin")"; time_it "hook$kind$n$(tag "$bin")" "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity
    done
    push_to plain; time_it "plain$kind$n" "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity
  done
  for bin in "${BINS[@]}"; do
    push_to "hooked-$(tag "$bin")"; c1=$(counts "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity)
    push_to plain; c2=$(counts "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity)
    report "push of $n reviewed commits to the hooked bare${kind:+, a discovery task over $TASK_DIRS dirs} ($(tag "$bin"))" "hook$kind$n$(tag "$bin")" "plain$kind$n" "$c1" "$c2"
  done
}
run_section 3 && for n in 1 10 100; do hook_section "" "$n"; done
run_section 5 && for n in ${TASK_COMMITS:-1 10 30}; do hook_section task "$n"; done

# 4. probity push beside git push (one reviewed commit, the hooked remote)
run_section 4 || exit 0
R="$T/p1"
BASE=$("$GIT" -C "$R/w" rev-parse HEAD~1)
(cd "$R/w" && "$GIT" remote set-url origin "$R/target.git")
# As first pushed: the remote-tracking ref at the base, the remote without
# the commit.
ppush() { push_to "hooked-$(tag "$1")"; "$GIT" -C "$R/w" update-ref refs/remotes/origin/main "$BASE"; }
for _ in $(seq 1 "$ROUNDS"); do
  for bin in "${BINS[@]}"; do
    ppush "$bin"; time_it "ppush$(tag "$bin")" "$R/w" "$bin" push origin HEAD:main
  done
  push_to "hooked-new"; time_it "gpush" "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity
done
for bin in "${BINS[@]}"; do
  ppush "$bin"; c1=$(counts "$R/w" "$bin" push origin HEAD:main)
  push_to "hooked-new"; c2=$(counts "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity)
  report "probity push, 1 commit ($(tag "$bin"))" "ppush$(tag "$bin")" "gpush" "$c1" "$c2"
done
# The same with Probity's managed hooks installed in the clone (D-R79): the
# hook judges inside the one push; the peer is the same plain push.
"$P" --cwd "$R/w" hooks install >/dev/null
for _ in $(seq 1 "$ROUNDS"); do
  ppush "$P"; time_it "hpush" "$R/w" "$P" push origin HEAD:main
  push_to "hooked-new"; time_it "gpush2" "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity
done
ppush "$P"; c1=$(counts "$R/w" "$P" push origin HEAD:main)
push_to "hooked-new"; c2=$(counts "$R/w" "$GIT" push -q --atomic --no-verify "$R/target.git" HEAD:main refs/notes/probity:refs/notes/probity)
report "probity push, 1 commit, managed hook" "hpush" "gpush2" "$c1" "$c2"
"$P" --cwd "$R/w" hooks uninstall >/dev/null
