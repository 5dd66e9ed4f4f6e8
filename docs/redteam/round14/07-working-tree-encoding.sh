#!/usr/bin/env bash
RT14=${RT14:-$(cd "$(dirname "$0")" && pwd)}
# The content rules read the blob. `.gitattributes` `working-tree-encoding`
# (built into git, no configuration needed) makes a checkout write the
# blob's text re-encoded: with UTF-16LE, a blob holding the UTF-8 of
# decode_utf16le(B) is checked out as the bytes B. B can be plain ASCII
# (every pair of printable ASCII bytes is a BMP code unit, no surrogate):
# the blob is CJK-looking text, the checked-out file an install script.
# The agent writes the ASCII file in its work tree; `git add` stores the
# re-encoded blob.
source "$RT14/common.sh"
setup_team >/dev/null
fresh() { g reset -q --hard "$(smain main)"; g clean -qfdx; }
printf 'package.json working-tree-encoding=UTF-16LE\nsrc/run.py working-tree-encoding=UTF-16LE\nsrc/key.txt working-tree-encoding=UTF-16LE\nCargo.toml working-tree-encoding=UTF-16LE\npyproject.toml working-tree-encoding=UTF-16LE\n' > "$R/.gitattributes"
agent_step "07-1 add .gitattributes (working-tree-encoding=UTF-16LE)"
# even length: pad with spaces
pad() { local s=$1; [ $(( ${#s} % 2 )) -eq 1 ] && s="$s "; printf '%s' "$s"; }
pad '{"name":"x","private":true,"scripts":{"postinstall":"node -e require(\"fs\").writeFileSync(\"/tmp/r14-npm\",\"1\")"}}' > "$R/package.json"
agent_step "07-2 package.json (postinstall, stored re-encoded)"
echo "    blob package.json (first 60 bytes as stored): $(g cat-file -p HEAD:package.json | head -c 60)"
fresh; pad 'import os; os.system("id > /tmp/r14-py")' > "$R/src/run.py"
agent_step "07-3 src/run.py (os.system)"
fresh; pad 'AKIAABCDEFGHIJKLMNOP' > "$R/src/key.txt"
agent_step "07-4 src/key.txt (AKIA, the team's content floor)"
fresh; pad "$(printf '[package]\nname = "c"\nversion = "0.1.0"\nbuild = "tools/gen.rs"\n')" > "$R/Cargo.toml"; mkdir -p "$R/tools"; printf 'fn main() {}\n' > "$R/tools/gen.rs"
agent_step "07-5 Cargo.toml with build = tools/gen.rs (rust-analyzer runs it at folder open)"
fresh; pad "$(printf '[build-system]\nrequires = []\nbuild-backend = "be"\nbackend-path = ["tools"]\n')" > "$R/pyproject.toml"; mkdir -p "$R/tools"; printf 'import os\n' > "$R/tools/be.py"
agent_step "07-6 pyproject.toml with backend-path (pip install runs tools/be.py)"
fresh; CL=$W/co7; git clone -q "$S" "$CL"
echo "    fresh clone package.json: $(cat "$CL/package.json" 2>/dev/null)"
echo "    fresh clone src/run.py:   $(cat "$CL/src/run.py" 2>/dev/null)"
echo "    fresh clone src/key.txt:  $(cat "$CL/src/key.txt" 2>/dev/null)"
echo "    fresh clone Cargo.toml:   $(tr '\n' ' ' < "$CL/Cargo.toml" 2>/dev/null)"
echo "    fresh clone pyproject.toml: $(tr '\n' ' ' < "$CL/pyproject.toml" 2>/dev/null)"
if command -v npm >/dev/null; then (cd "$CL" && npm install --silent >/dev/null 2>&1); echo "    npm install in the clone: /tmp/r14-npm $( [ -e /tmp/r14-npm ] && echo written || echo absent)"; rm -f /tmp/r14-npm; fi
(cd "$CL" && python3 src/run.py 2>&1 | head -2); echo "    python3 src/run.py in the clone: /tmp/r14-py $( [ -e /tmp/r14-py ] && echo written || echo absent)"; rm -f /tmp/r14-py
# controls: the same files without the attribute
( source "$RT14/common.sh"; setup_team >/dev/null
  printf 'import os; os.system("id > /tmp/r14-py")\n' > "$R/src/run.py"; agent_step "07c-3 control src/run.py plain"
  g reset -q --hard "$(smain main)"; g clean -qfdx
  printf '[package]\nname = "c"\nversion = "0.1.0"\nbuild = "tools/gen.rs"\n' > "$R/Cargo.toml"; agent_step "07c-5 control Cargo.toml plain" )
