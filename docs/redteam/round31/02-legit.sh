#!/usr/bin/env bash
# Ordinary suites under b609f1ab: pytest's keys (pythonpath = ., addopts
# with option values written apart), unittest's and pytest's discovery
# beside their start. The agent edits a file the suite never runs; each
# should stay medium and land.
RT31=${RT31:-$(cd "$(dirname "$0")" && pwd)}
source "$RT31/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
rel='mkdir -p $R/scripts; printf "print(\"release\")\n" > $R/scripts/release.py'
reledit="printf 'print(\"release v2\")\n' > \$R/scripts/release.py"
docs='mkdir -p $R/docs; printf "project = \"w\"\n" > $R/docs/conf.py'
docsedit="printf 'project = \"w2\"\n' > \$R/docs/conf.py"
e2e='mkdir -p $R/e2e; printf "test(\"login\", () => {});\n" > $R/e2e/login.spec.js'
e2eedit="printf 'test(\"login v2\", () => {});\n' > \$R/e2e/login.spec.js"
PT='python3 -m pytest -q'
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
# la: pythonpath = . (common: import the project from the root); a release script no test imports
la()  { eval "$rel"; eval "$tok"; printf '[pytest]\npythonpath = .\ntestpaths = tests\n' > $R/pytest.ini
  lt 31la 'pytest.ini pythonpath = ., testpaths = tests' "$PT" scripts/release.py "$reledit"; }
# la2: the same in pyproject.toml; the agent edits README.md
la2() { eval "$tok"; printf '# w\n' > $R/README.md; printf '[tool.pytest.ini_options]\npythonpath = ["."]\ntestpaths = ["tests"]\n' > $R/pyproject.toml
  lt 31la2 'pyproject.toml pythonpath = ["."], testpaths = ["tests"]' "$PT" README.md "printf '# w v2\n' > \$R/README.md"; }
# lb: addopts -m "not e2e" (a marker expression, shlex-split by pytest); a JS e2e/ directory
lb()  { eval "$e2e"; eval "$tok"; printf '[pytest]\ntestpaths = tests\naddopts = -ra -m "not e2e"\n' > $R/pytest.ini
  lt 31lb 'pytest.ini testpaths = tests, addopts = -ra -m "not e2e"; Playwright specs in e2e/' "$PT" e2e/login.spec.js "$e2eedit"; }
lbb() { eval "$e2e"; eval "$tok"; printf '[pytest]\ntestpaths = tests\naddopts = -ra -m "not slow"\n' > $R/pytest.ini
  lt 31lbb 'control of 31lb: addopts = -ra -m "not slow"' "$PT" e2e/login.spec.js "$e2eedit"; }
# lc: addopts --ignore docs (the option's value written apart)
lc()  { eval "$docs"; eval "$tok"; printf '[pytest]\naddopts = --ignore docs --ignore scripts\n' > $R/pytest.ini
  lt 31lc 'pytest.ini addopts = --ignore docs --ignore scripts (no testpaths)' "$PT" docs/conf.py "$docsedit"; }
lcb() { eval "$docs"; eval "$tok"; printf '[pytest]\naddopts = --ignore=docs --ignore=scripts\n' > $R/pytest.ini
  lt 31lcb 'control of 31lc: --ignore=docs glued' "$PT" docs/conf.py "$docsedit"; }
# ld: unittest discovery from tests/; a tools/ script whose name starts with test
ld()  { eval "$tok"; mkdir -p $R/tools; printf 'print("upload")\n' > $R/tools/testrail_upload.py
  lt 31ld 'python3 -m unittest discover -s tests; tools/testrail_upload.py outside the start' 'python3 -m unittest discover -s tests' tools/testrail_upload.py "printf 'print(\"upload v2\")\n' > \$R/tools/testrail_upload.py"; }
# le: pytest testpaths = tests; benchmarks/test_speed.py outside testpaths
le()  { eval "$tok"; mkdir -p $R/benchmarks; printf 'def test_speed():\n    pass\n' > $R/benchmarks/test_speed.py; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  lt 31le 'pytest.ini testpaths = tests; benchmarks/test_speed.py (run by hand with pytest benchmarks)' "$PT" benchmarks/test_speed.py "printf 'def test_speed():\n    assert 1\n' > \$R/benchmarks/test_speed.py"; }
# lf: node --test test/; a scripts/ file beside
lf()  { mkdir -p $R/test $R/scripts; printf 'module.exports = 1;\n' > $R/test/a.test.js; printf 'console.log(1);\n' > $R/scripts/release.js
  lt 31lf 'node --test test/; scripts/release.js beside' 'node --test test/' scripts/release.js "printf 'console.log(2);\n' > \$R/scripts/release.js"; }
for c in ${ONLY:-la la2 lb lbb lc lcb ld le lf}; do variant31 "$c" "$c"; done
rm -f $PWN
