#!/usr/bin/env bash
RT13=${RT13:-$(cd "$(dirname "$0")" && pwd)}
# D-R160: hand-written trees, pushed with git's own client (--no-verify).
source "$RT13/common.sh"
# rawpush LABEL ROOT-TREE: approve nothing; commit ROOT on main, note a
# fresh self-review of it is impossible for a tree start refuses, so the
# delivery carries no note: the hook must refuse it whatever the tree.
# (For 03b the tree is one start accepts: reviewed by the agent alone.)
mkcommit() { g commit-tree "$1" -p HEAD -m "$2"; }
# 03a: `.vscode` twice: a gitlink and a directory holding a folder-open task
( source "$RT13/common.sh"; setup_team >/dev/null
  printf '%s\n' "$TASKS" > "$IN/t.json"; TB=$(git -C "$R" hash-object -w "$IN/t.json")
  VS=$(printf '100644 tasks.json %s\n' "$TB" | rawtree "$R")
  ROOT=$( { lsentries "$R" HEAD; echo "160000 .vscode $TB"; echo "40000 .vscode $VS"; } | sort -k2,2 -s | rawtree "$R")
  X=$(mkcommit "$ROOT" "03a"); g update-ref refs/heads/main "$X"; g reset -q --hard 2>/dev/null
  echo "    03a start: $(pj start --commit "$X" 2>&1 | jq -c '.error.code // .risk_level' 2>/dev/null)"
  out=$(g push --no-verify origin "$X:refs/heads/main" 2>&1); verdict "03a gitlink+dir .vscode" main "$X" "$out" )
# 03b: a `.git` directory inside a subdirectory (git's checkout refuses the
# path), reviewed and signed by the agent alone
( source "$RT13/common.sh"; setup_team >/dev/null
  printf '#!/bin/sh\necho pwned\n' > "$IN/h"; HB=$(git -C "$R" hash-object -w "$IN/h")
  HK=$(printf '100755 post-checkout %s\n' "$HB" | rawtree "$R"); GD=$(printf '40000 hooks %s\n' "$HK" | rawtree "$R")
  SUB=$(printf '40000 .git %s\n' "$GD" | rawtree "$R")
  ROOT=$( { lsentries "$R" HEAD; echo "40000 vendor $SUB"; } | sort -k2,2 -s | rawtree "$R")
  X=$(mkcommit "$ROOT" "03b vendor/.git"); st=$(pj start --commit "$X" 2>&1)
  echo "    03b start: $(jq -c '.error.code // {risk_level,risk_reasons}' <<<"$st" 2>/dev/null)"
  if L=$(jq -er .lineage_id <<<"$st" 2>/dev/null); then
    lin=$(approve_started "$st"); sign agent "$lin"; g update-ref refs/heads/main "$X"
    out=$(push_past main); verdict "03b vendor/.git/hooks (agent alone)" main "$X" "$out"
    CL=$W/mate; git clone -q "$S" "$CL" 2>"$IN/clone.err"; echo "    fresh clone: rc=$? $(tr '\n' ' ' < "$IN/clone.err" | cut -c1-200)"
  fi )
# 03c: a legacy malformed tree (blob `tasks.json` twice, the first an
# empty task list) the base holds at `legacy/`, reused by id at `.vscode`.
( source "$RT13/common.sh"
  git init -q -b main "$R"; mkdir -p "$R/.probity" "$R/src"; printf 'x\n' > "$R/src/a.rs"
  keygen agent; keygen ci; keygen alice
  printf '%s %s\n%s %s\n%s %s\n' "$AGENT" "$(cat $W/keys/agent.pub)" "$CI" "$(cat $W/keys/ci.pub)" "$ALICE" "$(cat $W/keys/alice.pub)" > "$R/.probity/allowed_signers"
  printf '%s' '{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["'$AGENT'","'$CI'"],"maintainer":["'$ALICE'"]},"signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]},"authorize":["maintainer"],"high_risk":{"paths":["crypto/**"],"content":["AKIA"]}}' > "$R/.probity/policy.json"
  g add -A; g commit -q -m init
  printf '{"version":"2.0.0","tasks":[]}\n' > "$IN/e.json"; E=$(git -C "$R" hash-object -w "$IN/e.json")
  printf '%s\n' "$TASKS" > "$IN/t.json"; TB=$(git -C "$R" hash-object -w "$IN/t.json")
  M=$(printf '100644 tasks.json %s\n100644 tasks.json %s\n' "$E" "$TB" | rawtree "$R")
  ROOT=$( { lsentries "$R" HEAD; echo "40000 legacy $M"; } | sort -k2,2 -s | rawtree "$R")
  B=$(g commit-tree "$ROOT" -p HEAD -m legacy); g update-ref refs/heads/main "$B"
  git init -q --bare -b main "$S"; g remote add origin "$S"; g push -q origin main
  "$P" --cwd "$S" hooks install --server >/dev/null
  ROOT2=$( { lsentries "$R" HEAD; echo "40000 .vscode $M"; } | sort -k2,2 -s | rawtree "$R")
  X=$(g commit-tree "$ROOT2" -p HEAD -m "reuse at .vscode")
  echo "    03c start: $(pj start --commit "$X" 2>&1 | jq -c '.error.code // {risk_level,risk_reasons}' 2>/dev/null)"
  g update-ref refs/heads/main "$X"; out=$(g push --no-verify origin main 2>&1); verdict "03c legacy tree reused at .vscode (no note)" main "$X" "$out" )
