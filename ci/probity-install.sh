#!/usr/bin/env bash
# Installs probity for a CI job from a cache of builds, building only when
# the cache has none for this Probity and this runner (issue 22 §3). Used by
# the GitHub Actions composite action (action.yml) and the GitLab CI
# template (ci/gitlab/probity.gitlab-ci.yml); see docs/ci.md.
#
# Inputs (environment):
#   PROBITY_INSTALL_CACHE  the directory of cached builds (one per key);
#                          the CI caches it between jobs
#   PROBITY_SOURCE_DIR     a Probity checkout already on the runner (the
#                          Action's own source), or else
#   PROBITY_SOURCE_URL     a clone URL of Probity, and
#   PROBITY_SOURCE_REF     a branch, a tag or a full commit id (a commit id
#                          pins the build: nothing is resolved, and a
#                          warm job never contacts the URL)
#
# The key names the Probity and the runner: the commit (a URL) or the
# version and a digest of every source file (a checkout), then the OS, the
# machine and a digest of the runner image (CI_JOB_IMAGE on GitLab,
# ImageOS/ImageVersion on GitHub-hosted runners), so a binary is reused
# only where it was built for.
#
# `probity-install.sh --key` prints the key. Otherwise: prints the install
# directory (bin/probity, probity-gate.sh) on stdout; on stderr whether the
# build was reused ("warm") or made ("cold"). Builds of other keys are
# removed from the cache, so it holds one; a cold build also leaves its
# source's copy of this script in the cache (probity-install.sh). No eval; every value is one
# argument.
set -euo pipefail
# A failure inside $(...) ends the script too (a `die` in a key function).
shopt -s inherit_errexit

die() {
  printf 'probity-install: %s\n' "$*" >&2
  exit 2
}

digest() { # stdin -> 16 hex
  sha256sum | cut -c1-16
}

platform() {
  local image
  image=$(printf '%s|%s|%s' "${CI_JOB_IMAGE:-}" "${ImageOS:-}" "${ImageVersion:-}" | digest)
  printf '%s-%s-%s' "$(uname -s)" "$(uname -m)" "$image"
}

# The commit PROBITY_SOURCE_REF names at PROBITY_SOURCE_URL.
resolve() {
  local ref=$PROBITY_SOURCE_REF lines peeled
  if [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
    printf '%s' "$ref"
    return
  fi
  case $ref in
    -* | *$'\n'* | '') die "PROBITY_SOURCE_REF is not a plain ref: '$ref'" ;;
  esac
  lines=$(git ls-remote -- "$PROBITY_SOURCE_URL" "refs/heads/$ref" "refs/tags/$ref" "refs/tags/$ref^{}") ||
    die "cannot list $PROBITY_SOURCE_URL"
  peeled=$(printf '%s\n' "$lines" | awk '$2 ~ /\^\{\}$/ {print $1; exit}')
  if [ -z "$peeled" ]; then
    peeled=$(printf '%s\n' "$lines" | awk 'NF {print $1; exit}')
  fi
  [ -n "$peeled" ] || die "$PROBITY_SOURCE_URL has no branch or tag '$ref' (pin a full commit id instead)"
  printf '%s' "$peeled"
}

source_key() {
  if [ -n "${PROBITY_SOURCE_DIR:-}" ]; then
    local version sources
    version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$PROBITY_SOURCE_DIR/adapters/cli/Cargo.toml" | head -n 1)
    [ -n "$version" ] || die "$PROBITY_SOURCE_DIR/adapters/cli/Cargo.toml names no version"
    sources=$(cd -- "$PROBITY_SOURCE_DIR" &&
      find . \( -path ./target -o -path ./.git \) -prune -o -type f -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum | digest)
    printf 'v%s-%s' "$version" "$sources"
  else
    [ -n "${PROBITY_SOURCE_URL:-}" ] || die "set PROBITY_SOURCE_DIR, or PROBITY_SOURCE_URL and PROBITY_SOURCE_REF"
    local commit
    commit=$(resolve) || exit 2
    printf '%s' "$commit"
  fi
}

src_key=$(source_key) || exit 2
key="probity-$src_key-$(platform)"
if [ "${1:-}" = --key ]; then
  printf '%s\n' "$key"
  exit 0
fi
[ $# -eq 0 ] || die "unknown argument '$1' (only --key)"

cache=${PROBITY_INSTALL_CACHE:-}
[ -n "$cache" ] || die "set PROBITY_INSTALL_CACHE (the directory the CI caches)"
mkdir -p "$cache"
# Absolute: the build below runs in another directory.
cache=$(cd -- "$cache" && pwd -P)
dir="$cache/$key"
if [ -x "$dir/bin/probity" ] && [ -x "$dir/probity-gate.sh" ]; then
  printf 'probity-install: warm: reusing %s\n' "$key" >&2
  printf '%s\n' "$dir"
  exit 0
fi

printf 'probity-install: cold: building %s\n' "$key" >&2
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${PROBITY_SOURCE_DIR:-}" ]; then
  src=$PROBITY_SOURCE_DIR
else
  src=$work/src
  commit=${key#probity-}
  commit=${commit%%-*}
  git init --quiet "$src"
  git -C "$src" fetch --quiet --depth 1 -- "$PROBITY_SOURCE_URL" "$commit"
  git -C "$src" checkout --quiet --detach FETCH_HEAD
fi
# The build runs in Probity's own source, never in the job's directory:
# that is the checkout under review, whose rust-toolchain.toml (rustup's
# `path` toolchain) or .cargo/config.toml (a rustc-wrapper) would let the
# proposal choose the compiler of the gate that judges it.
(cd -- "$src" && cargo install --locked --quiet --root "$work/out" --path adapters/cli)
cp "$src/ci/probity-gate.sh" "$work/out/probity-gate.sh"
chmod +x "$work/out/probity-gate.sh"
# Only this key stays: the cache holds one build.
find "$cache" -mindepth 1 -maxdepth 1 -type d -name 'probity-*' ! -name "$key" -exec rm -rf {} +
rm -rf "$dir"
mv "$work/out" "$dir"
# The installer of the Probity just built, beside the builds: the GitLab
# template runs this copy, so a warm job fetches nothing.
cp "$src/ci/probity-install.sh" "$cache/probity-install.sh.tmp"
chmod +x "$cache/probity-install.sh.tmp"
mv "$cache/probity-install.sh.tmp" "$cache/probity-install.sh"
printf '%s\n' "$dir"
