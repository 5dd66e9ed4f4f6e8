#!/usr/bin/env bash
# v12 at 531cd328 (D-R175, listings by name): what a test runner's
# configuration file makes it collect or import, the packages discovery
# imports, files found by a name test the listing does not take as one,
# workspaces selected by other spellings, and what a discovered test
# imports through sys.path. LANDED + medium + executed = hole.
RT28=${RT28:-$(cd "$(dirname "$0")" && pwd)}
source "$RT28/common.sh"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
jlib='mkdir -p $R/lib; printf "module.exports = 1;\n" > $R/lib/x.js'
jedit="printf \"$JSPAY;\n\" > \$R/lib/x.js"
okt='import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n'
# task TAG LABEL CMD [WHAT EDIT]: a folder-open task running CMD; the agent edits lib/x.py (or WHAT by EDIT)
task() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "${5:-$edit}" "$3"; }
## pytest: what its own configuration file says (pytest.ini is named, never read)
pa()  { mkdir -p $R/tests; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  printf 'def test_ok():\n    assert True\n' > $R/tests/check_api.py
  task 28pa 'python3 -m pytest -q; pytest.ini: python_files = check_*.py' 'python3 -m pytest -q' tests/check_api.py "printf \"$PYPAY\ndef test_ok():\n    assert True\n\" > \$R/tests/check_api.py"; }
pa2() { eval "$lib"; mkdir -p $R/tests; printf '[pytest]\naddopts = --doctest-modules\n' > $R/pytest.ini
  printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pa2 'python3 -m pytest -q; pytest.ini: addopts = --doctest-modules (imports every module)' 'python3 -m pytest -q'; }
pa3() { mkdir -p $R/tests $R/tools; printf '[pytest]\naddopts = -p tools.plug\n' > $R/pytest.ini; printf 'X = 1\n' > $R/tools/plug.py
  printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pa3 'python3 -m pytest -q; pytest.ini: addopts = -p tools.plug' 'python3 -m pytest -q' tools/plug.py "printf \"$PYPAY\nX = 1\n\" > \$R/tools/plug.py"; }
pa4() { mkdir -p $R/tests; printf '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n' > $R/pyproject.toml
  printf 'def test_ok():\n    assert True\n' > $R/tests/check_api.py
  task 28pa4 'python3 -m pytest -q; pyproject.toml [tool.pytest.ini_options] python_files = check_*.py' 'python3 -m pytest -q' tests/check_api.py "printf \"$PYPAY\ndef test_ok():\n    assert True\n\" > \$R/tests/check_api.py"; }
pa5() { mkdir -p $R/tests; printf 'def test_ok():\n    assert True\n' > $R/tests/check_api.py
  task 28pa5 "python3 -m pytest -q -o 'python_files=check_*.py'" "python3 -m pytest -q -o 'python_files=check_*.py'" tests/check_api.py "printf \"$PYPAY\ndef test_ok():\n    assert True\n\" > \$R/tests/check_api.py"; }
pa6() { eval "$lib"; mkdir -p $R/tests; printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pa6 'python3 -m pytest -q --doctest-modules (imports every module below the root)' 'python3 -m pytest -q --doctest-modules'; }
# unittest's pattern as discover's second operand, not -p
up()  { mkdir -p $R/tests; printf "$okt" > $R/tests/lint_check.py
  task 28up "python3 -m unittest discover tests '*_check.py' (the pattern as an operand)" "python3 -m unittest discover tests '*_check.py'" tests/lint_check.py "printf \"$PYPAY\n$okt\" > \$R/tests/lint_check.py"; }
up2() { mkdir -p $R/tests; touch $R/tests/__init__.py; printf "$okt" > $R/tests/lint_check.py
  task 28up2 "python3 -m unittest discover . '*_check.py' (the pattern as an operand, from the root)" "python3 -m unittest discover . '*_check.py'" tests/lint_check.py "printf \"$PYPAY\n$okt\" > \$R/tests/lint_check.py"; }
upb() { mkdir -p $R/tests; printf "$okt" > $R/tests/lint_check.py
  task 28upb "control: python3 -m unittest discover -s tests -p '*_check.py'" "python3 -m unittest discover -s tests -p '*_check.py'" tests/lint_check.py "printf \"$PYPAY\n$okt\" > \$R/tests/lint_check.py"; }
# control: pytest.ini itself edited
pab() { mkdir -p $R/tests; printf '[pytest]\n' > $R/pytest.ini; printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pab 'as 28pa, the agent adds python_files to pytest.ini' 'python3 -m pytest -q' pytest.ini "printf '[pytest]\npython_files = *.py\n' > \$R/pytest.ini"; }
## The package a discovered test lives in: its __init__.py runs first
pi()  { mkdir -p $R/tests; touch $R/tests/__init__.py; printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pi 'python3 -m pytest -q; tests/__init__.py (the package of tests/test_ok.py)' 'python3 -m pytest -q' tests/__init__.py "printf \"$PYPAY\n\" > \$R/tests/__init__.py"; }
pib() { mkdir -p $R/tests; touch $R/tests/__init__.py; printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pib 'control: as 28pi, tests/test_ok.py itself edited' 'python3 -m pytest -q' tests/test_ok.py "printf \"$PYPAY\ndef test_ok():\n    assert True\n\" > \$R/tests/test_ok.py"; }
ui()  { mkdir -p $R/tests; touch $R/tests/__init__.py; printf "$okt" > $R/tests/test_ok.py
  task 28ui 'python3 -m unittest (discovery); tests/__init__.py (the package of tests/test_ok.py)' 'python3 -m unittest' tests/__init__.py "printf \"$PYPAY\n\" > \$R/tests/__init__.py"; }
# a discovered test that imports through sys.path
us()  { mkdir -p $R/tests $R/tools; printf 'def gen():\n    return 1\n' > $R/tools/gen.py
  printf 'import os, sys, unittest\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))\nimport gen\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(gen.gen(), 1)\n' > $R/tests/test_gen.py
  task 28us 'python3 -m unittest discover -s tests; tests/test_gen.py: sys.path.insert(.., "tools"); import gen' 'python3 -m unittest discover -s tests' tools/gen.py "printf \"$PYPAY\ndef gen():\n    return 1\n\" > \$R/tools/gen.py"; }
# two steps past the listing: a helper a test imports runs a script
ua2() { eval "$lib"; mkdir -p $R/tests; touch $R/tests/__init__.py; printf 'import subprocess, sys\ndef make():\n    subprocess.run([sys.executable, "lib/x.py"], check=True)\n    return 1\n' > $R/tests/helpers.py
  printf 'import unittest\nfrom tests.helpers import make\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(make(), 1)\n' > $R/tests/test_api.py
  task 28ua2 'python3 -m unittest; tests/test_api.py imports tests/helpers.py, which runs lib/x.py' 'python3 -m unittest'; }
# root conftest.py's import
pc()  { mkdir -p $R/tests $R/tools; printf 'def fx():\n    return 1\n' > $R/tools/fixtures.py; printf 'from tools import fixtures\n' > $R/conftest.py
  printf 'def test_ok():\n    assert True\n' > $R/tests/test_ok.py
  task 28pc 'python3 -m pytest -q; conftest.py (root): from tools import fixtures' 'python3 -m pytest -q' tools/fixtures.py "printf \"$PYPAY\ndef fx():\n    return 1\n\" > \$R/tools/fixtures.py"; }
## find: name tests the listing does not take as one
# (no .sh file: a changed shell source is high by its extension alone, shell_source)
fv()  { printf 'print("ok")\n' > $R/lint_check.py; mkdir -p $R/tools; mv $R/lint_check.py $R/tools/
  task 28fv "PAT='*_check.py'; find . -type f -name \"\$PAT\" -exec python3 {} \\;" "PAT='*_check.py'; find . -type f -name \"\$PAT\" -exec python3 {} \\;" tools/lint_check.py "printf \"$PYPAY\n\" > \$R/tools/lint_check.py"; }
fn()  { eval "$lib"; hook $R/tools/run_checks 'python3 lib/x.py'
  task 28fn "find . -type f -name run_checks -exec sh {} \\; (a name without a dot); tools/run_checks runs lib/x.py" "find . -type f -name run_checks -exec sh {} \\;"; }
fnb() { eval "$lib"; hook $R/tools/run_checks 'python3 lib/x.py'
  task 28fnb "as 28fn, tools/run_checks itself edited" "find . -type f -name run_checks -exec sh {} \\;" tools/run_checks "hook \$R/tools/run_checks '$PAY'"; }
fc()  { hook $R/tools/lint_check.sh 'echo ok'; hook $R/lib/x 'echo lib'
  task 28fc "find . -name '*_check.sh' , -type f -perm -u+x ! -path './.git/*' -exec sh {} \\; (GNU find's comma)" "find . -name '*_check.sh' , -type f -perm -u+x ! -path './.git/*' -exec sh {} \\;" lib/x "hook \$R/lib/x '$PAY'"; }
fcb() { hook $R/tools/lint_check.sh 'echo ok'; hook $R/lib/x 'echo lib'
  task 28fcb "control: find . -type f -perm -u+x ! -path './.git/*' -exec sh {} \\; (no name test)" "find . -type f -perm -u+x ! -path './.git/*' -exec sh {} \\;" lib/x "hook \$R/lib/x '$PAY'"; }
fs()  { hook $R/tools/cli 'echo cli'; mkdir -p $R/tests; ln -s ../tools/cli $R/tests/cli_test
  task 28fs "find -L . -type f -name '*_test' -exec sh {} \\;; tests/cli_test -> ../tools/cli (a link)" "find -L . -type f -name '*_test' -exec sh {} \\;" tools/cli "hook \$R/tools/cli '$PAY'"; }
fl()  { hook $R/tools/run_a 'echo tools'; hook $R/vendor/hooks/run_b 'echo vendor'; ln -s ../vendor/hooks $R/tools/ext
  task 28fl "find -L tools -type f -name 'run_*' -exec sh {} \\;; tools/ext -> ../vendor/hooks (a linked directory)" "find -L tools -type f -name 'run_*' -exec sh {} \\;" vendor/hooks/run_b "hook \$R/vendor/hooks/run_b '$PAY'"; }
flb() { hook $R/tools/run_a 'echo tools'; hook $R/vendor/hooks/run_b 'echo vendor'; ln -s ../vendor/hooks $R/tools/ext
  task 28flb "as 28fl, tools/run_a itself edited" "find -L tools -type f -name 'run_*' -exec sh {} \\;" tools/run_a "hook \$R/tools/run_a '$PAY'"; }
## npm workspaces selected by other spellings
ws='mkdir -p $R/packages/a; printf "{\"private\":true,\"workspaces\":[\"packages/*\"]}\n" > $R/package.json; printf "{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"node ../../lib/x.js\"}}\n" > $R/packages/a/package.json'
na()  { eval "$jlib"; eval "$ws"; task 28na 'npm run build --workspaces=true; packages/a build: node ../../lib/x.js' 'npm run build --workspaces=true' lib/x.js "$jedit"; }
na2() { eval "$jlib"; eval "$ws"; task 28na2 'npm run build --workspace=packages (a parent of workspaces selects them all)' 'npm run build --workspace=packages' lib/x.js "$jedit"; }
na3() { eval "$jlib"; eval "$ws"; task 28na3 'npm_config_workspaces=true npm run build' 'npm_config_workspaces=true npm run build' lib/x.js "$jedit"; }
nab() { eval "$jlib"; eval "$ws"; task 28nab 'as 28na, packages/a/package.json itself edited' 'npm run build --workspaces=true' packages/a/package.json "printf '{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"$PAY\"}}\n' > \$R/packages/a/package.json"; }
na4() { eval "$jlib"; eval "$ws"; printf 'workspaces=true\n' > $R/.npmrc; task 28na4 'npm run build; .npmrc: workspaces=true' 'npm run build' lib/x.js "$jedit"; }
na2b() { eval "$jlib"; eval "$ws"; task 28na2b 'as 28na2, packages/a/package.json itself edited' 'npm run build --workspace=packages' packages/a/package.json "printf '{\"name\":\"a\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"$PAY\"}}\n' > \$R/packages/a/package.json"; }
## jest's own test pattern in package.json (jest is not installed here)
ja()  { mkdir -p $R/checks; printf 'test("ok", () => {});\n' > $R/checks/api.js
  printf '{"name":"w","version":"1.0.0","scripts":{"test":"jest"},"jest":{"testRegex":"/checks/[^/]+\\\\\\\\.js$"}}\n' > $R/package.json
  task 28ja 'npm test (jest); package.json jest.testRegex: /checks/[^/]+\\.js$' 'npm test' checks/api.js "printf '$JSPAY;\ntest(\"ok\", () => {});\n' > \$R/checks/api.js"; }
rm -f $PWN
for c in ${ONLY:-pa pa2 pa3 pa4 pa5 pa6 pab pi pib ui up up2 upb us ua2 pc fv fn fnb fc fcb fs fl flb na na2 na2b na3 na4 nab ja}; do variant28 "$c" "$c"; done
rm -f $PWN
