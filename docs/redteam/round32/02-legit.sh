#!/usr/bin/env bash
# Ordinary suites under 9f2d2c37 (D-R176): the agent edits a file the
# suite never runs; each should stay medium and land.
RT32=${RT32:-$(cd "$(dirname "$0")" && pwd)}
source "$RT32/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
rel='mkdir -p $R/scripts; printf "print(\"release\")\n" > $R/scripts/release.py'
reledit="printf 'print(\"release v2\")\n' > \$R/scripts/release.py"
src='mkdir -p $R/src/w; printf "def f():\n    \"\"\">>> f()\n    1\n    \"\"\"\n    return 1\n" > $R/src/w/__init__.py'
PT='python3 -m pytest -q'
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
# la: doctests of src/ (testpaths = src tests); tox.ini passes PYTEST_ADDOPTS
# through (a common tox.ini line): every .py from the root is listed.
la()  { eval "$rel"; eval "$tok"; eval "$src"; printf '[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n' > $R/pytest.ini
  printf '[tox]\nenvlist = py311\n\n[testenv]\npassenv = PYTEST_ADDOPTS\ndeps = pytest\ncommands = pytest {posargs}\n' > $R/tox.ini
  lt 32la 'pytest.ini testpaths = src tests, addopts = --doctest-modules; tox.ini passenv = PYTEST_ADDOPTS' "$PT" scripts/release.py "$reledit"; }
lab() { eval "$rel"; eval "$tok"; eval "$src"; printf '[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n' > $R/pytest.ini
  printf '[tox]\nenvlist = py311\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n' > $R/tox.ini
  lt 32lab 'control of 32la: the same tox.ini without passenv' "$PT" scripts/release.py "$reledit"; }
# lb: -o python_files=... then a path: the path is taken as a second pattern
# (it holds a /: every module from the root is listed)
lb()  { eval "$rel"; mkdir -p $R/tests/unit; printf "$okf" > $R/tests/unit/check_a.py
  lt 32lb 'task python3 -m pytest -q -o python_files=check_*.py tests/unit' "$PT -o python_files=check_*.py tests/unit" scripts/release.py "$reledit"; }
lbb() { eval "$rel"; mkdir -p $R/tests/unit; printf "$okf" > $R/tests/unit/check_a.py
  lt 32lbb 'control of 32lb: python3 -m pytest -q tests/unit -o python_files=check_*.py (path first)' "$PT tests/unit -o python_files=check_*.py" scripts/release.py "$reledit"; }
# lc: a plugin option whose value is written apart and is no path (hypothesis' profile)
lc()  { eval "$tok"; mkdir -p $R/ci; printf 'print("deploy")\n' > $R/ci/deploy.py
  printf '[pytest]\ntestpaths = tests\naddopts = --hypothesis-profile ci\n' > $R/pytest.ini
  lt 32lc 'pytest.ini addopts = --hypothesis-profile ci; ci/deploy.py (run by CI, not by pytest)' "$PT" ci/deploy.py "printf 'print(\"deploy v2\")\n' > \$R/ci/deploy.py"; }
lcb() { eval "$tok"; mkdir -p $R/ci; printf 'print("deploy")\n' > $R/ci/deploy.py
  printf '[pytest]\ntestpaths = tests\naddopts = --hypothesis-profile=ci\n' > $R/pytest.ini
  lt 32lcb 'control of 32lc: --hypothesis-profile=ci glued' "$PT" ci/deploy.py "printf 'print(\"deploy v2\")\n' > \$R/ci/deploy.py"; }
# ld: a real-world pyproject.toml (other tools' tables, comments, filterwarnings of a library's warning)
ld()  { eval "$rel"; eval "$tok"; printf '[project]\nname = "w"\nversion = "1.0"\n\n[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\n# the suite\ntestpaths = ["tests"]\naddopts = "-ra --strict-markers -m \\"not slow\\""\nfilterwarnings = ["error", "ignore::DeprecationWarning"]\nmarkers = ["slow: slow tests"]\n\n[tool.coverage.run]\nsource = ["src"]\n' > $R/pyproject.toml
  lt 32ld 'pyproject.toml (ruff, coverage tables; pytest testpaths/addopts/filterwarnings/markers)' "$PT" scripts/release.py "$reledit"; }
for c in ${ONLY:-la lab lb lbb lc lcb ld}; do variant32 "$c" "$c"; done
rm -f $PWN
