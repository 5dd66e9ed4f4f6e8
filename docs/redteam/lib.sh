# Shared helpers for the red-team scripts of every round (sourced).
set -u
P=${PROBITY:-$(git rev-parse --show-toplevel 2>/dev/null)/target/release/probity}
W=$(mktemp -d /tmp/probity-redteam.XXXXXX)
export HOME=$W/home XDG_CONFIG_HOME=$W/home
mkdir -p "$HOME"
unset PROBITY_MODEL_BASE_URL PROBITY_MODEL PROBITY_MODEL_API_KEY GIT_DIR GIT_INDEX_FILE
git config --global user.name agent
git config --global user.email agent@example.invalid
git config --global init.defaultBranch main
git config --global advice.detachedHead false
git config --global commit.gpgsign false
AGENT=agent@example.invalid CI=ci@example.invalid ALICE=alice@example.invalid
R=$W/clone S=$W/server.git IN=$W/inputs
mkdir -p "$IN" "$W/keys"

pj() { "$P" --json --cwd "$R" "$@"; }
g() { git -C "$R" "$@"; }

keygen() { ssh-keygen -q -t ed25519 -N "" -C "$1" -f "$W/keys/$1"; }

# setup_team [policy-json]: clone $R with src/parser.rs, team keys and policy,
# bare $S with the server hook.
setup_team() {
  local policy=${1:-}
  git init -q -b main "$R"
  mkdir -p "$R/src" "$R/.probity"
  printf '// parser\nfn parse() {}\n' > "$R/src/parser.rs"
  printf 'target/\n' > "$R/.gitignore"
  keygen agent; keygen ci; keygen alice
  printf '%s %s\n%s %s\n%s %s\n' "$AGENT" "$(cat $W/keys/agent.pub)" "$CI" "$(cat $W/keys/ci.pub)" "$ALICE" "$(cat $W/keys/alice.pub)" > "$R/.probity/allowed_signers"
  if [ -z "$policy" ]; then
    policy='{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["'$AGENT'","'$CI'"],"maintainer":["'$ALICE'"]},"signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]},"authorize":["maintainer"],"high_risk":{"paths":["crypto/**"],"content":["AKIA"]}}'
  fi
  printf '%s' "$policy" > "$R/.probity/policy.json"
  g add -A && g commit -q -m "the team's policy"
  git init -q --bare -b main "$S"
  g remote add origin "$S"
  g push -q origin main
  "$P" --cwd "$S" hooks install --server >/dev/null || { echo "hook install failed"; exit 9; }
}

# approve_started JSON -> lineage (approved), one clean result per lens.
approve_started() {
  local st=$1 lin args=()
  lin=$(jq -r .lineage_id <<<"$st")
  printf '{"findings":[],"evidence":["read the whole diff"]}\n' > "$IN/r.json"
  printf 'tests passed\n' > "$IN/ev.txt"
  for lens in $(jq -r '.selected_lenses[]?' <<<"$st"); do args+=(--result "$lens=$IN/r.json"); done
  local out; out=$(pj finalize --lineage "$lin" "${args[@]}" --evidence "$IN/ev.txt")
  if [ "$(jq -r .state <<<"$out")" != approved ]; then echo "finalize not approved: $out" >&2; exit 9; fi
  echo "$lin"
}
approve_live() { local st; st=$(pj start) || { echo "start failed: $st" >&2; exit 9; }; approve_started "$st"; }
approve_commit() { local st; st=$(pj start --commit "$1") || { echo "start failed: $st" >&2; exit 9; }; approve_started "$st"; }
risk_of_live() { pj start | jq -c '{risk_level,risk_reasons,selected_lenses}'; }

sign() { # sign KEYNAME LINEAGE
  g config probity.signingKey "$W/keys/$1"
  "$P" --cwd "$R" attest --lineage "$2" --sign >/dev/null || { echo "sign failed" >&2; exit 9; }
}
commit_all() { g add -A && g commit -q --no-verify -m "$1" && g rev-parse HEAD; }
smain() { git -C "$S" rev-parse -q --verify "${1:-main}" 2>/dev/null; }

# push past the client's gates: publish, merge the remote's notes, push
# the given refspecs and the notes atomically with --no-verify.
push_past() {
  "$P" --cwd "$R" publish >/dev/null 2>&1
  if g fetch -q origin '+refs/notes/probity:refs/notes/probity-remote' 2>/dev/null; then
    g notes --ref=probity merge -q -s cat_sort_uniq refs/notes/probity-remote 2>/dev/null
  fi
  g push --no-verify --atomic origin "$@" refs/notes/probity 2>&1
}

# verdict LABEL REF EXPECTED-TIP OUTPUT
verdict() {
  local label=$1 ref=$2 want=$3 out=$4
  if [ "$(smain "$ref")" = "$want" ]; then echo "$label: LANDED ($ref at ${want:0:12})"
  else echo "$label: REFUSED"; grep -E "DENY|remote: .*(deny|denied|refus|[a-z]+_[a-z_]+:)" <<<"$out" | head -6; fi
}
