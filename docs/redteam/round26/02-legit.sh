#!/usr/bin/env bash
# Ordinary flows next to round 26's shapes and round 25's fixes: an edit
# no configuration runs should stay medium and land. Timings of start on
# the larger trees.
RT26=${RT26:-$(cd "$(dirname "$0")" && pwd)}
source "$RT26/common.sh"
srv='mkdir -p $R/src; printf "print(\"serve\")\n" > $R/src/server.py'
sedit="printf 'print(\"serve v2\")\n' > \$R/src/server.py"
# la: a Python project; pre-commit local hook runs a header checker that
# os.walk()s src/ (argparse, subprocess for git); the agent edits a model.
la() { mkdir -p $R/src/app/models $R/src/app/views $R/scripts $R/tests
  for j in $(seq 1 30); do printf '# SPDX-License-Identifier: MIT\ndef m%d():\n    return %d\n' $j $j > $R/src/app/models/m$j.py; printf '# SPDX-License-Identifier: MIT\nfrom app.models.m%d import m%d\n' $j $j > $R/src/app/views/v$j.py; done
  printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  printf '[tox]\nenvlist = py3\n[testenv]\ncommands = pytest\n' > $R/tox.ini
  printf 'import argparse, os, subprocess, sys\np = argparse.ArgumentParser()\np.add_argument("--fix", action="store_true")\na = p.parse_args()\nbad = []\nfor root, dirs, files in os.walk("src"):\n    for n in files:\n        if n.endswith(".py"):\n            with open(os.path.join(root, n)) as f:\n                if "SPDX" not in f.readline():\n                    bad.append(os.path.join(root, n))\nstaged = subprocess.run(["git", "diff", "--cached", "--name-only"], capture_output=True, text=True).stdout\nprint("\\n".join(bad)); sys.exit(1 if bad else 0)\n' > $R/scripts/check_headers.py
  setup 'precommit "python3 scripts/check_headers.py"' ""
  printf '# SPDX-License-Identifier: MIT\ndef m7():\n    return 77\n' > $R/src/app/models/m7.py
  timed_start "26la (pre-commit header check os.walk(src), 60 modules, edit src/app/models/m7.py)"
  hit "26la pre-commit: python3 scripts/check_headers.py (os.walk(\"src\") + subprocess git); agent edits src/app/models/m7.py" ":"; }
# la2: a test task: find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \;
la2() { eval "$srv"; hook $R/tests/cli_test.sh 'echo ok'; setup : "find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\;"
  hit "26la2 find . -name '*_test.sh' -not -path './node_modules/*' -exec bash {} \\;; agent edits src/server.py" "$sedit"; }
# la2b: the same with ! -path and -o
la2b() { eval "$srv"; hook $R/tests/cli_test.sh 'echo ok'; setup : "find . \\( -name '*_test.sh' -o -name '*_test.bash' \\) -exec bash {} \\;"
  hit "26la2b find . ( -name '*_test.sh' -o -name '*_test.bash' ) -exec bash {} \\;; agent edits src/server.py" "$sedit"; }
# la3: lint tasks through xargs: python3 -m flake8, node --check
la3() { eval "$srv"; setup : "git ls-files '*.py' | xargs python3 -m flake8"
  hit "26la3 git ls-files '*.py' | xargs python3 -m flake8; agent edits src/server.py" "$sedit"; }
la3b() { eval "$srv"; mkdir -p $R/web; printf 'console.log(1);\n' > $R/web/app.js; setup : "git ls-files -z '*.js' | xargs -0 node --check"
  hit "26la3b git ls-files -z '*.js' | xargs -0 node --check; agent edits src/server.py" "$sedit"; }
# la4: a CI script: getopts, log() helper, read, printf -v, a walker variable named like a make target
la4() { eval "$srv"; hook $R/ci/checks.d/10-lint 'echo lint'; printf 'checks:\n\t@echo checks\n' > $R/Makefile; printf '1.0\n' > $R/VERSION
  hook $R/tools/ci.sh 'set -eu
checks=ci/checks.d
quiet=0
while getopts q opt; do case $opt in q) quiet=1;; esac; done
log() { [ "$quiet" = 1 ] || printf "[ci] %s\n" "$*"; }
read -r version < VERSION
printf -v banner "v%s" "$version"
log "running checks $banner"
make checks
run-parts --exit-on-error "$checks"'
  setup : "sh tools/ci.sh"; hit "26la4 sh tools/ci.sh; checks=ci/checks.d; make checks; run-parts \"\$checks\"; agent edits src/server.py" "$sedit"; }
# la4b: the same without the make line (control for la4)
la4b() { eval "$srv"; hook $R/ci/checks.d/10-lint 'echo lint'; printf '1.0\n' > $R/VERSION
  hook $R/tools/ci.sh 'set -eu
checks=ci/checks.d
quiet=0
while getopts q opt; do case $opt in q) quiet=1;; esac; done
log() { [ "$quiet" = 1 ] || printf "[ci] %s\n" "$*"; }
read -r version < VERSION
printf -v banner "v%s" "$version"
log "running checks $banner"
run-parts --exit-on-error "$checks"'
  setup : "sh tools/ci.sh"; hit "26la4b sh tools/ci.sh; as 26la4 without make checks; agent edits src/server.py" "$sedit"; }
# la5: a Node monorepo: scripts/check-versions.js lists packages/ (glob + readdirSync) and asks git; edit a package's source
la5() { for p in core cli web api util; do mkdir -p $R/packages/$p/src; printf '{"name":"@m/%s","version":"1.0.0"}\n' $p > $R/packages/$p/package.json
    for j in $(seq 1 20); do printf 'export const f%d = () => %d;\n' $j $j > $R/packages/$p/src/f$j.js; done; done
  mkdir -p $R/scripts; printf '{"private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf 'const fs = require("fs"), path = require("path"), glob = require("glob"), { execSync } = require("child_process");\nconst rev = execSync("git rev-parse --short HEAD").toString().trim();\nfor (const p of fs.readdirSync("packages")) {\n  const pkg = JSON.parse(fs.readFileSync(path.join("packages", p, "package.json")));\n  const srcs = glob.sync("packages/" + p + "/src/**/*.js");\n  console.log(pkg.name, pkg.version, srcs.length, rev);\n}\n' > $R/scripts/check-versions.js
  setup : "node scripts/check-versions.js"; printf 'export const f7 = () => 77;\n' > $R/packages/core/src/f7.js
  timed_start "26la5 (monorepo, 5 packages x 20 files, edit packages/core/src/f7.js)"
  hit "26la5 node scripts/check-versions.js; readdirSync(\"packages\") + glob.sync + execSync git; agent edits packages/core/src/f7.js" ":"; }
# la6: a Makefile clean/lint with find -o and xargs (no runner), edit src
la6() { eval "$srv"; printf 'clean:\n\tfind . \\( -name "*.pyc" -o -name __pycache__ \\) -prune -exec rm -rf {} +\nlint: clean\n\tfind . -name "*.sh" ! -path "./.git/*" | xargs shellcheck\n' > $R/Makefile
  setup : "make lint"; hit "26la6 make lint (find -o -prune -exec rm; find ! -path | xargs shellcheck); agent edits src/server.py" "$sedit"; }
for c in ${ONLY:-la la2 la2b la3 la3b la4 la4b la5 la6}; do variant26 "$c" "$c"; done
