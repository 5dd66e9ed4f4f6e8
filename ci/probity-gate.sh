#!/usr/bin/env bash
# Probity's gate in forge CI: fetch the review authority (refs/notes/probity)
# and re-derive the decision for a change proposal (pre-pr) or a push to a
# protected branch (pre-receive). Called by the GitHub Actions composite
# action (action.yml) and the GitLab CI template
# (ci/gitlab/probity.gitlab-ci.yml); runnable by hand in any clone.
#
# Inputs (environment; each falls back to what GitHub Actions or GitLab CI
# set, see docs/ci.md):
#   PROBITY_GATE_MODE  pre-pr | pre-receive | auto (default: from the event)
#   PROBITY_BASE       pre-pr: the target branch's name (e.g. main)
#   PROBITY_HEAD       pre-pr: the proposal's head commit (default HEAD)
#   PROBITY_DEFAULT_BRANCH  the repository's default branch (GitHub: the
#                      Action's default-branch input; GitLab:
#                      CI_DEFAULT_BRANCH; else asked of the remote). Every
#                      pushed ref and every proposal answers to its policy
#                      besides its old tip's or target's, and a new branch
#                      (old tip all zeros) is measured from it
#   PROBITY_BEFORE     pre-receive: the branch's old tip
#   PROBITY_AFTER      pre-receive: the branch's new tip
#   PROBITY_REF        pre-receive: the full ref pushed (refs/heads/main)
#   PROBITY_REMOTE     the remote to fetch from (default origin)
#   PROBITY_BIN        the probity executable (default: probity on PATH)
#   PROBITY_ALLOWED_SIGNERS    an allowed-signers file: a path in the
#                              repository is read from the protected base
#                              (never from the proposal), an absolute path
#                              is the runner's own file; set as
#                              probity.allowedSignersFile in this clone
#   PROBITY_REQUIRE_SIGNATURE  true: set probity.requireSignature
#   PROBITY_REPORT_FILE        a file to append the Markdown report of the
#                              judged range to (`probity report --range`,
#                              from the fetched notes; the Action gives
#                              $GITHUB_STEP_SUMMARY); never changes the exit
#   PROBITY_GATE_DRY_RUN       1: print the gate's command, one argument
#                              per line, and run nothing (not even fetch)
#
# Exit: the gate's own code (0 allow, 1 deny, 2 usage, ...); 2 when this
# script cannot tell what to check. No eval; every value is one argument.
set -euo pipefail

probity=${PROBITY_BIN:-probity}
remote=${PROBITY_REMOTE:-origin}
mode=${PROBITY_GATE_MODE:-auto}
dry_run=${PROBITY_GATE_DRY_RUN:-0}
notes_ref=refs/notes/probity

die() {
  printf 'probity-gate: %s\n' "$*" >&2
  exit 2
}

# The gate's command lines, in one place: adjust the flags here.
pre_pr_command() { # <base ref> <head> <default branch ref>
  cmd=("$probity" validate --gate pre-pr --authority notes --base "$1" --head "$2" --policy-base "$3" --json)
}
pre_receive_command() { # <before> <after> <ref> <default branch ref>
  cmd=("$probity" validate --gate pre-receive --range "$1..$2" --ref "$3" --policy-base "$4" --json)
}

# A value that would read as a flag, or carries a newline, is refused.
plain() { # <name> <value>
  case $2 in
    -* | *$'\n'*) die "$1 is not a plain value: '$2'" ;;
  esac
}

# The default branch's policy governs every ref and every proposal,
# besides the ref's own old tip's or the proposal's target's (a branch made
# at a commit from before the policy holds none), as the server hook's
# does. Asked of the remote when no variable names it; a dry run asks
# nothing. Sets default_ref and fetch_default.
default_branch() {
  default=${PROBITY_DEFAULT_BRANCH:-${CI_DEFAULT_BRANCH:-}}
  if [ -z "$default" ] && [ "$dry_run" != 1 ]; then
    default=$(git ls-remote --symref "$remote" HEAD 2>/dev/null |
      sed -n 's#^ref: refs/heads/\([^[:space:]]*\)[[:space:]]*HEAD$#\1#p') || default=
  fi
  [ -n "$default" ] || die "no default branch: set PROBITY_DEFAULT_BRANCH (the repository's default branch, e.g. main)"
  plain default "$default"
  git check-ref-format --branch "$default" >/dev/null 2>&1 || die "'$default' is not a branch name"
  default_ref="refs/remotes/$remote/$default"
  fetch_default=$default
}

if [ "$mode" = auto ]; then
  if [ "${GITHUB_ACTIONS:-}" = true ]; then
    case ${GITHUB_EVENT_NAME:-} in
      pull_request | pull_request_target) mode=pre-pr ;;
      push) mode=pre-receive ;;
      *) die "GitHub event '${GITHUB_EVENT_NAME:-}' is neither a pull request nor a push: set mode" ;;
    esac
  elif [ "${GITLAB_CI:-}" = true ]; then
    case ${CI_PIPELINE_SOURCE:-} in
      merge_request_event) mode=pre-pr ;;
      push) mode=pre-receive ;;
      *) die "GitLab pipeline source '${CI_PIPELINE_SOURCE:-}' is neither a merge request nor a push: set PROBITY_GATE_MODE" ;;
    esac
  else
    die "not in GitHub Actions or GitLab CI: set PROBITY_GATE_MODE (pre-pr or pre-receive)"
  fi
fi

case $mode in
  pre-pr)
    base=${PROBITY_BASE:-${GITHUB_BASE_REF:-${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-}}}
    # GitLab's merged-results pipelines check out a merge commit: the
    # proposal's own head is the source branch's tip.
    head=${PROBITY_HEAD:-${CI_MERGE_REQUEST_SOURCE_BRANCH_SHA:-${CI_COMMIT_SHA:-HEAD}}}
    [ -n "$base" ] || die "no target branch: set PROBITY_BASE (the branch the proposal targets)"
    plain base "$base"
    plain head "$head"
    git check-ref-format --branch "$base" >/dev/null 2>&1 || die "'$base' is not a branch name"
    base_ref="refs/remotes/$remote/$base"
    default_branch
    pre_pr_command "$base_ref" "$head" "$default_ref"
    ;;
  pre-receive)
    before=${PROBITY_BEFORE:-${CI_COMMIT_BEFORE_SHA:-}}
    after=${PROBITY_AFTER:-${GITHUB_SHA:-${CI_COMMIT_SHA:-}}}
    ref=${PROBITY_REF:-${GITHUB_REF:-}}
    if [ -z "$ref" ] && [ -n "${CI_COMMIT_BRANCH:-}" ]; then
      ref="refs/heads/$CI_COMMIT_BRANCH"
    fi
    [ -n "$before" ] || die "no old tip: set PROBITY_BEFORE (GitHub: github.event.before)"
    [ -n "$after" ] || die "no new tip: set PROBITY_AFTER"
    [ -n "$ref" ] || die "no ref: set PROBITY_REF (e.g. refs/heads/main)"
    default_branch
    # A push that creates the branch has no old tip (all zeros): what it
    # delivers is what the default branch does not hold.
    if [[ $before =~ ^0+$ ]]; then
      before=$default_ref
    fi
    plain before "$before"
    plain after "$after"
    plain ref "$ref"
    git check-ref-format "$ref" >/dev/null 2>&1 || die "'$ref' is not a full ref name"
    pre_receive_command "$before" "$after" "$ref" "$default_ref"
    ;;
  *) die "unknown mode '$mode' (pre-pr, pre-receive or auto)" ;;
esac

if [ "$dry_run" = 1 ]; then
  printf '%s\n' "${cmd[@]}"
  exit 0
fi

fetch() {
  git fetch --quiet --no-tags --no-recurse-submodules "$remote" "$@"
}

# The gate walks history: a shallow clone cannot answer.
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  fetch --unshallow
fi

# The authority travels as notes. A remote without them has none to give:
# the gate then denies for lack of a review, which is its answer to give.
if git ls-remote --exit-code "$remote" "$notes_ref" >/dev/null 2>&1; then
  # The notes history carries the trees reviews froze (anchored by
  # `probity publish`): a rebased delivery, or a chain whose leaf is still
  # in review, is checked against them, as the server checked it.
  fetch "+$notes_ref:$notes_ref"
else
  printf 'probity-gate: %s has no %s (no review authority published)\n' "$remote" "$notes_ref" >&2
fi

if [ -n "${fetch_default:-}" ]; then
  fetch "+refs/heads/$fetch_default:$default_ref"
fi

if [ "$mode" = pre-pr ]; then
  fetch "+refs/heads/$base:$base_ref"
  if ! git cat-file -e "$head^{commit}" 2>/dev/null; then
    fetch "$head"
  fi
fi

# Trust material never comes from the proposal (issue 20 §2): a path in
# the repository is read from the protected base (the target branch, or
# the protected ref's old tip), never from this checkout, which holds the
# proposal and so whatever keys it adds. An absolute path is a file of the
# runner's own (a secret, a mounted file), used as it is.
if [ -n "${PROBITY_ALLOWED_SIGNERS:-}" ]; then
  signers=$PROBITY_ALLOWED_SIGNERS
  case $signers in
    /*) ;;
    *)
      plain PROBITY_ALLOWED_SIGNERS "$signers"
      case /$signers/ in
        */../* | */./*) die "PROBITY_ALLOWED_SIGNERS '$signers' is not a plain path in the repository" ;;
      esac
      if [ "$mode" = pre-pr ]; then trusted=$base_ref; else trusted=$before; fi
      copy=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/probity-allowed-signers.XXXXXX")
      trap 'rm -f "$copy"' EXIT
      git cat-file -e "$trusted:$signers" 2>/dev/null ||
        die "the allowed-signers file '$signers' is not on the protected base ($trusted): commit it there first (a proposal's own copy is never trusted), or give an absolute path to a file of the runner's"
      git cat-file blob "$trusted:$signers" >"$copy"
      signers=$copy
      ;;
  esac
  git config probity.allowedSignersFile "$signers"
fi
if [ "${PROBITY_REQUIRE_SIGNATURE:-false}" = true ]; then
  git config probity.requireSignature true
fi

status=0
"${cmd[@]}" || status=$?
case $status in
  0) printf 'probity-gate: %s allows\n' "$mode" >&2 ;;
  1) printf 'probity-gate: %s denies (see reason_code and next_action above)\n' "$mode" >&2 ;;
  *) printf 'probity-gate: %s failed with exit %s\n' "$mode" "$status" >&2 ;;
esac

# The review as Markdown for the job page (issue 22 §4): what the fetched
# notes carry for the range the gate judged. A report that cannot be
# written never changes the gate's answer.
if [ -n "${PROBITY_REPORT_FILE:-}" ]; then
  if [ "$mode" = pre-pr ]; then range="$base_ref..$head"; else range="$before..$after"; fi
  "$probity" report --range "$range" >>"$PROBITY_REPORT_FILE" ||
    printf 'probity-gate: no report written to %s\n' "$PROBITY_REPORT_FILE" >&2
fi
exit "$status"
