#!/usr/bin/env bash
# v12 at 2612c15a (D-R175's second addendum): pytest's configuration read
# for its keys only (python_files, testpaths, addopts), testpaths as the
# start of what is listed, -execdir's words named anywhere, npm -w.
# LANDED + medium + executed = hole.
RT30=${RT30:-$(cd "$(dirname "$0")" && pwd)}
source "$RT30/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
# task TAG LABEL CMD [WHAT EDIT]: a folder-open task running CMD; the agent edits lib/x.py (or WHAT by EDIT)
task() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "${5:-$edit}" "$3"; }
chk="mkdir -p \$R/checks; printf '$okf' > \$R/checks/check_api.py"
chkedit="printf \"$PYPAY\n$okf\" > \$R/checks/check_api.py"
tchk="mkdir -p \$R/tests; printf '$okf' > \$R/tests/check_api.py"
tchkedit="printf \"$PYPAY\n$okf\" > \$R/tests/check_api.py"
## pytest: testpaths is used only when no path is given
pta() { eval "$tok"; eval "$chk"; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n' > $R/pytest.ini
  task 30pta 'python3 -m pytest -q checks; pytest.ini testpaths = tests, python_files = test_*.py check_*.py (a path given: testpaths unused)' 'python3 -m pytest -q checks' checks/check_api.py "$chkedit"; }
ptab() { eval "$tok"; eval "$chk"; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n' > $R/pytest.ini
  task 30ptab 'control: as 30pta, pytest.ini itself edited' 'python3 -m pytest -q checks' pytest.ini "printf '[pytest]\npython_files = *.py\n' > \$R/pytest.ini"; }
pao() { eval "$tok"; eval "$chk"; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\naddopts = -q checks\n' > $R/pytest.ini
  task 30pao 'python3 -m pytest; pytest.ini testpaths = tests, addopts = -q checks (a path in addopts)' 'python3 -m pytest' checks/check_api.py "$chkedit"; }
ptg() { mkdir -p $R/checks1; printf "$okf" > $R/checks1/check_api.py; printf '[pytest]\ntestpaths = chk*\npython_files = check_*.py\n' > $R/pytest.ini; mv $R/checks1 $R/chk1
  task 30ptg 'python3 -m pytest -q; pytest.ini testpaths = chk* (a glob, pytest >= 7), python_files = check_*.py' 'python3 -m pytest -q' chk1/check_api.py "printf \"$PYPAY\n$okf\" > \$R/chk1/check_api.py"; }
## pytest: keys the reading misses
ppp() { mkdir -p $R/lib $R/tests; printf 'def h():\n    return 1\n' > $R/lib/helper.py; printf 'import helper\ndef test_h():\n    assert helper.h() == 1\n' > $R/tests/test_h.py; printf '[pytest]\npythonpath = lib\n' > $R/pytest.ini
  task 30ppp 'python3 -m pytest -q; pytest.ini pythonpath = lib; tests/test_h.py: import helper' 'python3 -m pytest -q' lib/helper.py "printf \"$PYPAY\ndef h():\n    return 1\n\" > \$R/lib/helper.py"; }
pppb() { mkdir -p $R/lib $R/tests; printf 'def h():\n    return 1\n' > $R/lib/helper.py; printf 'import helper\ndef test_h():\n    assert helper.h() == 1\n' > $R/tests/test_h.py; printf '[pytest]\npythonpath = lib\n' > $R/pytest.ini
  task 30pppb 'control: as 30ppp, tests/test_h.py itself edited' 'python3 -m pytest -q' tests/test_h.py "printf \"$PYPAY\nimport helper\ndef test_h():\n    assert helper.h() == 1\n\" > \$R/tests/test_h.py"; }
pml() { eval "$lib"; eval "$tok"; printf '[tool.pytest.ini_options]\naddopts = """\n--doctest-modules\n"""\n' > $R/pyproject.toml
  task 30pml 'python3 -m pytest -q; pyproject.toml addopts = """ NL --doctest-modules NL """ (multi-line string)' 'python3 -m pytest -q'; }
pqk() { eval "$tchk"; printf '[tool.pytest.ini_options]\n"python_files" = ["check_*.py"]\n' > $R/pyproject.toml
  task 30pqk 'python3 -m pytest -q; pyproject.toml "python_files" = ["check_*.py"] (a quoted TOML key)' 'python3 -m pytest -q' tests/check_api.py "$tchkedit"; }
pdk() { eval "$tchk"; printf '[tool]\npytest.ini_options.python_files = ["check_*.py"]\n' > $R/pyproject.toml
  task 30pdk 'python3 -m pytest -q; pyproject.toml [tool] pytest.ini_options.python_files = [...] (a dotted TOML key)' 'python3 -m pytest -q' tests/check_api.py "$tchkedit"; }
poi() { eval "$tchk"; printf '[pytest]\naddopts = -o python_files=check_*.py\n' > $R/pytest.ini
  task 30poi 'python3 -m pytest -q; pytest.ini addopts = -o python_files=check_*.py' 'python3 -m pytest -q' tests/check_api.py "$tchkedit"; }
pot() { eval "$tchk"
  task 30pot 'python3 -m pytest -q -o python_files=check_*.py (on the command line)' 'python3 -m pytest -q -o python_files=check_*.py' tests/check_api.py "$tchkedit"; }
pcf() { eval "$tchk"; mkdir -p $R/ci; printf '[pytest]\npython_files = check_*.py\n' > $R/ci/pytest-ci.ini
  task 30pcf 'python3 -m pytest -q -c ci/pytest-ci.ini --rootdir=. (29pcf again: now keys only?)' 'python3 -m pytest -q -c ci/pytest-ci.ini --rootdir=.' tests/check_api.py "$tchkedit"; }
pcfb() { eval "$tchk"; mkdir -p $R/ci; printf '[pytest]\npython_files = check_*.py\n' > $R/ci/pytest-ci.ini
  task 30pcfb 'control: as 30pcf, ci/pytest-ci.ini itself edited' 'python3 -m pytest -q -c ci/pytest-ci.ini --rootdir=.' ci/pytest-ci.ini "printf '[pytest]\npython_files = *.py\n' > \$R/ci/pytest-ci.ini"; }
## pytest: what a discovered file imports
pil() { mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/plug.py; printf 'import importlib\nfor n in ["plug"]:\n    importlib.import_module("tools." + n)\n' > $R/conftest.py; eval "$tok"
  task 30pil 'python3 -m pytest -q; conftest.py: importlib.import_module("tools." + n) for n in ["plug"]' 'python3 -m pytest -q' tools/plug.py "printf \"$PYPAY\nX = 1\n\" > \$R/tools/plug.py"; }
prl() { mkdir -p $R/tests/unit; printf '' > $R/tests/__init__.py; printf '' > $R/tests/unit/__init__.py; printf 'def boot():\n    return 1\n' > $R/tests/support.py; printf 'from ..support import boot\ndef test_b():\n    assert boot() == 1\n' > $R/tests/unit/test_b.py
  task 30prl 'python3 -m pytest -q; tests/unit/test_b.py: from ..support import boot' 'python3 -m pytest -q' tests/support.py "printf \"$PYPAY\ndef boot():\n    return 1\n\" > \$R/tests/support.py"; }
## find -execdir: the command's script named past the first six pieces, or inside sh -c
fel() { mkdir -p $R/lib; printf 'print(0)\n' > $R/lib/run.py; printf 'x\n' > $R/lib/x.spec
  task 30fel "find . -name x.spec -execdir timeout 60 nice -n 10 python3 -u run.py \\;" "find . -name x.spec -execdir timeout 60 nice -n 10 python3 -u run.py \\;" lib/run.py "printf \"$PYPAY\n\" > \$R/lib/run.py"; }
fes() { mkdir -p $R/lib; printf 'print(0)\n' > $R/lib/run.py; printf 'x\n' > $R/lib/x.spec
  task 30fes "find . -name x.spec -execdir sh -c 'python3 run.py' \\;" "find . -name x.spec -execdir sh -c 'python3 run.py' \\;" lib/run.py "printf \"$PYPAY\n\" > \$R/lib/run.py"; }
fcd() { mkdir -p $R/lib; printf 'print(0)\n' > $R/lib/run.py; printf 'x\n' > $R/lib/x.spec
  task 30fcd "find . -name x.spec -exec sh -c 'cd \"\${0%/*}\" && python3 run.py' {} \\;" "find . -name x.spec -exec sh -c 'cd \"\${0%/*}\" && python3 run.py' {} \\;" lib/run.py "printf \"$PYPAY\n\" > \$R/lib/run.py"; }
feb() { mkdir -p $R/lib; printf 'print(0)\n' > $R/lib/run.py; printf 'x\n' > $R/lib/x.spec
  task 30feb "control: find . -name x.spec -execdir python3 run.py \\;" "find . -name x.spec -execdir python3 run.py \\;" lib/run.py "printf \"$PYPAY\n\" > \$R/lib/run.py"; }
## npm: a workspace chosen by its package name
nwn() { mkdir -p $R/packages/a; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf '{"name":"pkg-a","version":"1.0.0","scripts":{"build":"node build.js"}}\n' > $R/packages/a/package.json; printf 'module.exports = 1;\n' > $R/packages/a/build.js
  task 30nwn 'npm run build -w pkg-a (a workspace by its name; it lives in packages/a)' 'npm run build -w pkg-a' packages/a/build.js "printf \"$JSPAY;\n\" > \$R/packages/a/build.js"; }
nwo() { mkdir -p $R/libs/a; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":{"packages":["libs/*"]}}\n' > $R/package.json
  printf '{"name":"pkg-a","version":"1.0.0","scripts":{"build":"node build.js"}}\n' > $R/libs/a/package.json; printf 'module.exports = 1;\n' > $R/libs/a/build.js
  task 30nwo 'npm run build --workspace=pkg-a; workspaces as an object {"packages":["libs/*"]}' 'npm run build --workspace=pkg-a' libs/a/build.js "printf \"$JSPAY;\n\" > \$R/libs/a/build.js"; }
paob() { eval "$tok"; eval "$chk"; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\naddopts = -q checks\n' > $R/pytest.ini
  task 30paob 'control: as 30pao, pytest.ini itself edited' 'python3 -m pytest' pytest.ini "printf '[pytest]\ntestpaths = tests\npython_files = *.py\naddopts = -q checks\n' > \$R/pytest.ini"; }
pmlb() { eval "$lib"; eval "$tok"; printf '[tool.pytest.ini_options]\naddopts = """\n--doctest-modules\n"""\n' > $R/pyproject.toml
  task 30pmlb 'control: as 30pml, pyproject.toml itself edited (a section appended)' 'python3 -m pytest -q' pyproject.toml "printf '[tool.black]\nline-length = 100\n' >> \$R/pyproject.toml"; }
pilb() { mkdir -p $R/tools; printf 'X = 1\n' > $R/tools/plug.py; printf 'import importlib\nfor n in ["plug"]:\n    importlib.import_module("tools." + n)\n' > $R/conftest.py; eval "$tok"
  task 30pilb 'control: as 30pil, conftest.py itself edited' 'python3 -m pytest -q' conftest.py "printf \"$PYPAY\nX = 1\n\" > \$R/conftest.py"; }
rm -f $PWN
for c in ${ONLY:-pta ptab pao paob ptg ppp pppb pml pmlb pqk pdk poi pot pcf pcfb pil pilb prl fel fes fcd feb nwn nwo}; do variant30 "$c" "$c"; done
rm -f $PWN
