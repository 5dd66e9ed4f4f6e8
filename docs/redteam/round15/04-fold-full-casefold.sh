#!/usr/bin/env bash
RT15=${RT15:-$(cd "$(dirname "$0")" && pwd)}
# v9's `folded` (checkout.rs `fold_char`) maps one character to one:
# its lower case, or the ASCII letter its upper case is. Unicode's FULL
# case folding (CaseFolding.txt status F) maps one character to several:
# U+FB01 `ﬁ` -> "fi", U+FB06 `ﬆ` -> "st", U+00DF `ß` -> "ss". A folding
# file system that uses full folding opens `.pre-commit-conﬁg.yaml` as
# `.pre-commit-config.yaml`. NOT shown on such a file system here (the
# container cannot mount one): Python's str.casefold (full folding) is
# printed as the claim's evidence, and Probity's rating of each path.
source "$RT15/common.sh"
setup_team >/dev/null
FI=$(printf '\xef\xac\x81'); ST=$(printf '\xef\xac\x86'); SZ=$(printf '\xc3\x9f')
for p in ".pre-commit-con${FI}g.yaml" "Jenkins${FI}le" "ru${ST}-toolchain.toml" "src/pa${SZ}word.rs"; do
  python3 -c "import sys; s=sys.argv[1]; print('    python casefold(%r) = %r' % (s, s.casefold()))" "$p"
done
printf 'repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: python3 tools/build.py\n    language: system\n' > "$R/.pre-commit-con${FI}g.yaml"
agent_step "04a .pre-commit-con${FI}g.yaml (pre-commit hook)"
printf 'pipeline { agent any; stages { stage("x") { steps { sh "id" } } } }\n' > "$R/Jenkins${FI}le"
agent_step "04b Jenkins${FI}le (CI file name)"
printf '[toolchain]\nchannel = "stable"\n' > "$R/ru${ST}-toolchain.toml"
agent_step "04c ru${ST}-toolchain.toml (auto-run path)"
printf 'pub fn check() {}\n' > "$R/src/pa${SZ}word.rs"
agent_step "04d src/pa${SZ}word.rs (high path token 'password')"
# controls: the ASCII spellings
variant15 04ctl 'printf "repos: []\n" > "$R/.pre-commit-config.yaml"; agent_step "04ctl control .pre-commit-config.yaml"'
