#!/usr/bin/env bash
# v12 at f8b46e40/fabae5b5 (D-R176's second addendum): seams between the
# readers of pytest's configuration and what pytest, Python, unittest and
# npm actually load: a configuration found in the directory of the path
# pytest is given (not where it runs), `-o addopts=` (an override of
# addopts itself), a file named whole as a test path (its directory put
# first on sys.path), PYTHONPATH in a task's env (sitecustomize), a
# conftest's `pytest_plugins`, unittest's discovery importing every
# package's __init__.py, npm's .npmrc node-options / script-shell.
# LANDED + medium + executed = hole.
RT34=${RT34:-$(cd "$(dirname "$0")" && pwd)}
source "$RT34/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
PT='python3 -m pytest -q'
task() { setup : "$3"; hit "$1 $2; agent edits ${4}" "$5" "$3"; }
evnew="mkdir -p \$R/tools; printf \"$PYPAY\n\" > \$R/tools/ev.py"
## 1. pytest's configuration found where its path argument is (rootdir/inifile
## determination walks up from the arguments' common ancestor, not from cwd)
sub() { eval "$tok"
  task 34sub "python3 -m pytest -q tests; a new tests/pytest.ini ([pytest] addopts = -p tools.ev) and tools/ev.py" "$PT tests" 'tests/pytest.ini, tools/ev.py' \
    "printf '[pytest]\naddopts = -p tools.ev\n' > \$R/tests/pytest.ini; $evnew"; }
sut() { eval "$tok"
  task 34sut "python3 -m pytest -q tests; a new tests/tox.ini ([pytest] addopts = -p tools.ev) and tools/ev.py" "$PT tests" 'tests/tox.ini, tools/ev.py' \
    "printf '[pytest]\naddopts = -p tools.ev\n' > \$R/tests/tox.ini; $evnew"; }
sus() { eval "$tok"
  task 34sus "python3 -m pytest -q tests; a new tests/setup.cfg ([tool:pytest] addopts = -p tools.ev) and tools/ev.py" "$PT tests" 'tests/setup.cfg, tools/ev.py' \
    "printf '[tool:pytest]\naddopts = -p tools.ev\n' > \$R/tests/setup.cfg; $evnew"; }
sup() { eval "$tok"
  task 34sup "python3 -m pytest -q tests; a new tests/pyproject.toml ([tool.pytest.ini_options] addopts) and tools/ev.py" "$PT tests" 'tests/pyproject.toml, tools/ev.py' \
    "printf '[tool.pytest.ini_options]\naddopts = \"-p tools.ev\"\n' > \$R/tests/pyproject.toml; $evnew"; }
suf() { eval "$tok"
  task 34suf "python3 -m pytest -q tests/test_ok.py (a file given); a new tests/pytest.ini and tools/ev.py" "$PT tests/test_ok.py" 'tests/pytest.ini, tools/ev.py' \
    "printf '[pytest]\naddopts = -p tools.ev\n' > \$R/tests/pytest.ini; $evnew"; }
sud() { mkdir -p $R/tests/unit; printf "$okf" > $R/tests/unit/test_a.py
  task 34sud "python3 -m pytest -q tests/unit/test_a.py; a new tests/tox.ini (an ancestor of the argument) and tools/ev.py" "$PT tests/unit/test_a.py" 'tests/tox.ini, tools/ev.py' \
    "printf '[pytest]\naddopts = -p tools.ev\n' > \$R/tests/tox.ini; $evnew"; }
subb() { eval "$tok"
  task 34subb "control of 34sub: a new root pytest.ini (where pytest runs) and tools/ev.py" "$PT tests" 'pytest.ini, tools/ev.py' \
    "printf '[pytest]\naddopts = -p tools.ev\n' > \$R/pytest.ini; $evnew"; }
## 2. -o addopts=...: pytest's getini honours the override for addopts itself
oad() { eval "$tok"; mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/ev.py
  task 34oad 'python3 -m pytest -q -o "addopts=-p tools.ev" (the task); tools/ev.py in the base' "$PT -o \"addopts=-p tools.ev\"" tools/ev.py "printf \"$PYPAY\n\" > \$R/tools/ev.py"; }
oadb() { eval "$tok"; mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/ev.py
  task 34oadb 'control of 34oad: python3 -m pytest -q -p tools.ev' "$PT -p tools.ev" tools/ev.py "printf \"$PYPAY\n\" > \$R/tools/ev.py"; }
oae() { eval "$tok"; mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/ev.py; printf '[pytest]\naddopts = -o "addopts=-p tools.ev"\n' > $R/pytest.ini
  task 34oae 'pytest.ini addopts = -o "addopts=-p tools.ev" (one level of override, pytest #14442)' "$PT" tools/ev.py "printf \"$PYPAY\n\" > \$R/tools/ev.py"; }
## 3. a file given whole to pytest: its directory goes first on sys.path (prepend)
chk="mkdir -p \$R/checks; printf 'import sqlite3\n$okf' > \$R/checks/check.py"
sq="printf \"$PYPAY\n\" > \$R/checks/_sqlite3.py"
tpf() { eval "$chk"; printf '[pytest]\ntestpaths = checks/check.py\n' > $R/pytest.ini
  task 34tpf 'pytest.ini testpaths = checks/check.py (a file; check.py imports sqlite3)' "$PT" checks/_sqlite3.py "$sq"; }
pca() { eval "$chk"
  task 34pca 'python3 -m pytest -q checks/check.py (the task; check.py imports sqlite3)' "$PT checks/check.py" checks/_sqlite3.py "$sq"; }
aof() { eval "$chk"; printf '[pytest]\naddopts = checks/check.py\n' > $R/pytest.ini
  task 34aof 'pytest.ini addopts = checks/check.py' "$PT" checks/_sqlite3.py "$sq"; }
tpfb() { eval "$chk"; printf '[pytest]\ntestpaths = checks\npython_files = check.py\n' > $R/pytest.ini
  task 34tpfb 'control of 34tpf: testpaths = checks, python_files = check.py' "$PT" checks/_sqlite3.py "$sq"; }
## 4. PYTHONPATH in the task's env: sitecustomize (and any stdlib name) there
ppy() { mkdir -p $R/tools $R/lib; printf 'print(1)\n' > $R/tools/check.py; printf 'X = 1\n' > $R/lib/util.py
  setup_env : "python3 tools/check.py" '{"PYTHONPATH":"lib"}'
  hit '34ppy python3 tools/check.py, env PYTHONPATH=lib; agent adds lib/sitecustomize.py (site imports it at start-up)' "printf \"$PYPAY\n\" > \$R/lib/sitecustomize.py" "PYTHONPATH=lib python3 tools/check.py"; }
pps() { mkdir -p $R/tools $R/lib; printf 'import subprocess\nprint(1)\n' > $R/tools/check.py; printf 'X = 1\n' > $R/lib/util.py
  setup_env : "python3 tools/check.py" '{"PYTHONPATH":"lib"}'
  hit '34pps python3 tools/check.py (imports subprocess), env PYTHONPATH=lib; agent adds lib/selectors.py' "printf \"$PYPAY\n\" > \$R/lib/selectors.py" "PYTHONPATH=lib python3 tools/check.py"; }
ppt() { mkdir -p $R/lib; printf 'X = 1\n' > $R/lib/util.py; eval "$tok"
  setup_env : "$PT" '{"PYTHONPATH":"lib"}'
  hit '34ppt python3 -m pytest -q, env PYTHONPATH=lib; agent adds lib/sitecustomize.py' "printf \"$PYPAY\n\" > \$R/lib/sitecustomize.py" "PYTHONPATH=lib $PT"; }
## 5. a conftest's pytest_plugins (a string, no import statement)
cpp() { eval "$tok"; mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/plug.py; printf 'pytest_plugins = ["tools.plug"]\n' > $R/tests/conftest.py; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  task 34cpp 'tests/conftest.py pytest_plugins = ["tools.plug"]' "$PT" tools/plug.py "printf \"$PYPAY\n\" > \$R/tools/plug.py"; }
## 6. unittest's discovery imports every package's __init__.py on its way
ut="mkdir -p \$R/tests \$R/app; : > \$R/tests/__init__.py; printf 'import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n' > \$R/tests/test_ok.py; printf 'X = 1\n' > \$R/app/__init__.py"
uti() { eval "$ut"
  task 34uti 'python3 -m unittest (discovery from the root); app/__init__.py (a package with no test)' "python3 -m unittest" app/__init__.py "printf \"$PYPAY\n\" > \$R/app/__init__.py"; }
utd() { eval "$ut"; mkdir -p $R/tests/helpers; printf 'X = 1\n' > $R/tests/helpers/__init__.py
  task 34utd 'python3 -m unittest discover -s tests; tests/helpers/__init__.py (no test in it)' "python3 -m unittest discover -s tests" tests/helpers/__init__.py "printf \"$PYPAY\n\" > \$R/tests/helpers/__init__.py"; }
utn() { eval "$ut"; mkdir -p $R/app/sub; printf 'Y = 1\n' > $R/app/sub/__init__.py
  task 34utn 'python3 -m unittest discover (explicit); app/sub/__init__.py (a nested package, no test)' "python3 -m unittest discover" app/sub/__init__.py "printf \"$PYPAY\n\" > \$R/app/sub/__init__.py"; }
## 7. npm's .npmrc: node-options, script-shell
npk='printf "{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node -e 1\"}}\n" > $R/package.json'
nop() { eval "$npk"; mkdir -p $R/tools; printf '1;\n' > $R/tools/hook.js; printf 'node-options=--require ./tools/hook.js\n' > $R/.npmrc
  task 34nop 'npm test; .npmrc node-options=--require ./tools/hook.js (base)' "npm test" tools/hook.js "printf \"$JSPAY;\n\" > \$R/tools/hook.js"; }
nsh() { eval "$npk"; mkdir -p $R/tools; printf '#!/bin/sh\nexec /bin/sh "$@"\n' > $R/tools/sh; chmod +x $R/tools/sh; printf 'script-shell=./tools/sh\n' > $R/.npmrc
  task 34nsh 'npm test; .npmrc script-shell=./tools/sh (base)' "npm test" tools/sh "printf '#!/bin/sh\n$PAY\nexec /bin/sh \"\$@\"\n' > \$R/tools/sh"; }
## 8. declared (third party), confirmed once: a root pluggy.py for python -m pytest
tpp() { eval "$tok"
  task 34tpp 'declared: python3 -m pytest; a new root pluggy.py (third-party name)' "$PT" pluggy.py "printf \"$PYPAY\n\" > \$R/pluggy.py"; }
rm -f $PWN
for c in ${ONLY:-sub sut sus sup suf sud subb oad oadb oae tpf pca aof tpfb ppy pps ppt cpp uti utd utn nop nsh tpp}; do variant34 "$c" "$c"; done
rm -f $PWN
