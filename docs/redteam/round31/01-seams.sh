#!/usr/bin/env bash
# v12 at b609f1ab (D-R175's third addendum): pytest's configuration read
# for its keys (TOML syntax: indented keys, escapes, inline tables, `#`
# in strings, a `\` line ending; INI `#`), where pytest starts when
# testpaths is unused (absent directory, a cwd below the configuration,
# --rootdir from PYTEST_ADDOPTS, --pyargs), node's test runner.
# LANDED + medium + executed = hole.
RT31=${RT31:-$(cd "$(dirname "$0")" && pwd)}
source "$RT31/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
lib='mkdir -p $R/lib; printf "print(1)\n" > $R/lib/x.py'
edit="printf \"$PYPAY\n\" > \$R/lib/x.py"
task() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "${5:-$edit}" "$3"; }
chk="mkdir -p \$R/checks; printf '$okf' > \$R/checks/check_api.py"
chkedit="printf \"$PYPAY\n$okf\" > \$R/checks/check_api.py"
tchk="mkdir -p \$R/tests; printf '$okf' > \$R/tests/check_api.py"
tchkedit="printf \"$PYPAY\n$okf\" > \$R/tests/check_api.py"
PT='python3 -m pytest -q'
## pyproject.toml: TOML the key reading does not parse as tomllib does
pti() { eval "$tchk"; printf '[tool.pytest.ini_options]\n  python_files = ["check_*.py"]\n' > $R/pyproject.toml
  task 31pti 'pyproject.toml [tool.pytest.ini_options] NL "  python_files = [check_*.py]" (an indented TOML key)' "$PT" tests/check_api.py "$tchkedit"; }
ptib() { eval "$tchk"; printf '[tool.pytest.ini_options]\n  python_files = ["check_*.py"]\n' > $R/pyproject.toml
  task 31ptib 'control: as 31pti, pyproject.toml itself edited (a section appended)' "$PT" pyproject.toml "printf '[tool.black]\nline-length = 100\n' >> \$R/pyproject.toml"; }
pue() { eval "$tchk"; printf '[tool.pytest.ini_options]\npython_files = ["check\\u005f*.py"]\n' > $R/pyproject.toml
  task 31pue 'pyproject.toml python_files = ["check\u005f*.py"] (a TOML escape in the value)' "$PT" tests/check_api.py "$tchkedit"; }
puk() { eval "$tchk"; printf '[tool.pytest.ini_options]\n"python\\u005ffiles" = ["check_*.py"]\n' > $R/pyproject.toml
  task 31puk 'pyproject.toml "python\u005ffiles" = ["check_*.py"] (a TOML escape in the key)' "$PT" tests/check_api.py "$tchkedit"; }
pit() { eval "$tchk"; printf '[tool.pytest]\nini_options = { python_files = ["check_*.py"] }\n' > $R/pyproject.toml
  task 31pit 'pyproject.toml [tool.pytest] ini_options = { python_files = [...] } (an inline table)' "$PT" tests/check_api.py "$tchkedit"; }
phs() { eval "$tchk"; printf '[tool.pytest.ini_options]\npython_files = ["test_*.py #1", "check_*.py"]\n' > $R/pyproject.toml
  task 31phs 'pyproject.toml python_files = ["test_*.py #1", "check_*.py"] (a " #" inside a TOML string)' "$PT" tests/check_api.py "$tchkedit"; }
phi() { eval "$tchk"; printf '[pytest]\npython_files = test_*.py #1 check_*.py\n' > $R/pytest.ini
  task 31phi 'pytest.ini python_files = test_*.py #1 check_*.py (iniconfig keeps " #" inside a value)' "$PT" tests/check_api.py "$tchkedit"; }
pbs() { eval "$lib"; eval "$tok"; printf '[tool.pytest.ini_options]\naddopts = """--doctest-\\\nmodules"""\n' > $R/pyproject.toml
  task 31pbs 'pyproject.toml addopts = """--doctest-\ NL modules""" (a TOML line-ending backslash)' "$PT"; }
## where pytest starts when testpaths is not used
pta() { eval "$chk"; printf '[pytest]\ntestpaths = testing\npython_files = check_*.py\n' > $R/pytest.ini
  task 31pta 'pytest.ini testpaths = testing (no such directory: pytest collects from the root), python_files = check_*.py' "$PT" checks/check_api.py "$chkedit"; }
ptab() { eval "$chk"; printf '[pytest]\ntestpaths = testing\npython_files = check_*.py\n' > $R/pytest.ini
  task 31ptab 'control: as 31pta, pytest.ini itself edited' "$PT" pytest.ini "printf '[pytest]\ntestpaths = testing\npython_files = *.py\n' > \$R/pytest.ini"; }
pcw() { mkdir -p $R/src; printf "$okf" > $R/src/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  setup_cwd : "$PT" src; hit "31pcw task cwd src, $PT; root pytest.ini python_files = check_*.py (found above the cwd); agent edits src/check_api.py" "printf \"$PYPAY\n$okf\" > \$R/src/check_api.py" "cd src && $PT"; }
pcwb() { mkdir -p $R/src; printf "$okf" > $R/src/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  setup_cwd : "$PT" src; hit "31pcwb control: as 31pcw, the root pytest.ini itself edited (python_files = *.py); agent edits pytest.ini" "printf '[pytest]\npython_files = *.py\n' > \$R/pytest.ini" "cd src && $PT"; }
pcwc() { mkdir -p $R/src; printf "$okf" > $R/src/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/src/pytest.ini
  setup_cwd : "$PT" src; hit "31pcwc control: as 31pcw, src/pytest.ini (in the cwd); agent edits src/check_api.py" "printf \"$PYPAY\n$okf\" > \$R/src/check_api.py" "cd src && $PT"; }
pra() { eval "$tok"; eval "$chk"; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n' > $R/pytest.ini
  setup_env : "$PT" '{"PYTEST_ADDOPTS":"--rootdir=tests"}'; hit "31pra task env PYTEST_ADDOPTS=--rootdir=tests (rootdir is not the invocation dir: testpaths unused); pytest.ini testpaths = tests, python_files = test_*.py check_*.py; agent edits checks/check_api.py" "$chkedit" "PYTEST_ADDOPTS=--rootdir=tests $PT"; }
pya() { mkdir -p $R/w/checks; : > $R/w/__init__.py; : > $R/w/checks/__init__.py; printf "$okf" > $R/w/checks/check_api.py; printf '[pytest]\naddopts = --pyargs\ntestpaths = w.checks\npython_files = check_*.py\n' > $R/pytest.ini
  task 31pya 'pytest.ini addopts = --pyargs, testpaths = w.checks (a package), python_files = check_*.py' "$PT" w/checks/check_api.py "printf \"$PYPAY\n$okf\" > \$R/w/checks/check_api.py"; }
pyb() { mkdir -p $R/w/checks; : > $R/w/__init__.py; : > $R/w/checks/__init__.py; printf "$okf" > $R/w/checks/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  task 31pyb 'control of 31pya: --pyargs w.checks on the command line' "$PT --pyargs w.checks" w/checks/check_api.py "printf \"$PYPAY\n$okf\" > \$R/w/checks/check_api.py"; }
## node's test runner: node --test discovers *.test.js, test-*.js, *_test.js, test/**
ntt() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js
  task 31ntt 'node --test (node 20 discovers **/*.test.js)' 'node --test' lib/a.test.js "printf \"$JSPAY;\n\" > \$R/lib/a.test.js"; }
ntd() { mkdir -p $R/test; printf 'module.exports = 1;\n' > $R/test/helper.js
  task 31ntd 'node --test (every .js file in a test/ directory)' 'node --test' test/helper.js "printf \"$JSPAY;\n\" > \$R/test/helper.js"; }
ntn() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js; printf '{"name":"w","version":"1.0.0","scripts":{"test":"node --test"}}\n' > $R/package.json
  task 31ntn 'npm test; package.json "test": "node --test"' 'npm test' lib/a.test.js "printf \"$JSPAY;\n\" > \$R/lib/a.test.js"; }
ntb() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js
  task 31ntb 'control: node --test lib/a.test.js (named)' 'node --test lib/a.test.js' lib/a.test.js "printf \"$JSPAY;\n\" > \$R/lib/a.test.js"; }
ntnb() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js; printf '{"name":"w","version":"1.0.0","scripts":{"test":"node --test"}}\n' > $R/package.json
  task 31ntnb 'control: as 31ntn, package.json itself edited' 'npm test' package.json "printf '{\"name\":\"w\",\"version\":\"1.0.1\",\"scripts\":{\"test\":\"node --test\"}}\n' > \$R/package.json"; }
## pythonpath / testpaths written as ./DIR or DIR/
hlp='mkdir -p $R/lib $R/tests; printf "def h():\n    return 1\n" > $R/lib/helper.py; printf "import helper\ndef test_h():\n    assert helper.h() == 1\n" > $R/tests/test_h.py'
hlpedit="printf \"$PYPAY\ndef h():\n    return 1\n\" > \$R/lib/helper.py"
ppd() { eval "$hlp"; printf '[pytest]\npythonpath = ./lib\n' > $R/pytest.ini
  task 31ppd 'pytest.ini pythonpath = ./lib; tests/test_h.py: import helper' "$PT" lib/helper.py "$hlpedit"; }
pps() { eval "$hlp"; printf '[pytest]\npythonpath = lib/\n' > $R/pytest.ini
  task 31pps 'pytest.ini pythonpath = lib/; tests/test_h.py: import helper' "$PT" lib/helper.py "$hlpedit"; }
ptd() { eval "$chk"; printf '[pytest]\ntestpaths = ./checks\npython_files = check_*.py\n' > $R/pytest.ini
  task 31ptd 'pytest.ini testpaths = ./checks, python_files = check_*.py' "$PT" checks/check_api.py "$chkedit"; }
rm -f $PWN
for c in ${ONLY:-pti ptib pue puk pit phs phi pbs pta ptab pcw pcwb pcwc pra pya pyb ntt ntd ntn ntb ntnb ppd pps ptd}; do variant31 "$c" "$c"; done
rm -f $PWN
