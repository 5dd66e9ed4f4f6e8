#!/usr/bin/env bash
# Ordinary suites under D-R175's addendum (648a459a): pytest's
# configuration files and npm's .npmrc are now read in turn. The agent
# edits a file the suite never runs; each should stay medium and land.
RT29=${RT29:-$(cd "$(dirname "$0")" && pwd)}
source "$RT29/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
rel='mkdir -p $R/scripts; printf "print(\"release\")\n" > $R/scripts/release.py'
reledit="printf 'print(\"release v2\")\n' > \$R/scripts/release.py"
docs='mkdir -p $R/docs; printf "project = \"w\"\n" > $R/docs/conf.py'
docsedit="printf 'project = \"w2\"\n' > \$R/docs/conf.py"
# lt TAG LABEL CMD WHAT EDIT: a folder-open task CMD; the agent edits WHAT by EDIT
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
# la: pyproject.toml read for pytest; mypy's files list names scripts/
la()  { eval "$rel"; eval "$tok"; printf '[project]\nname = "w"\nversion = "1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.mypy]\nfiles = ["src", "scripts"]\n' > $R/pyproject.toml
  lt 29la 'python3 -m pytest -q; pyproject.toml [tool.mypy] files = ["src", "scripts"]' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
# lb: setup.cfg read for pytest; flake8's exclude names docs
lb()  { eval "$docs"; eval "$tok"; printf '[metadata]\nname = w\n\n[flake8]\nexclude = docs,build\nmax-line-length = 100\n\n[tool:pytest]\ntestpaths = tests\n' > $R/setup.cfg
  lt 29lb 'python3 -m pytest -q; setup.cfg [flake8] exclude = docs,build' 'python3 -m pytest -q' docs/conf.py "$docsedit"; }
# lc: tox.ini read for pytest; a docs environment names docs
lc()  { eval "$docs"; eval "$tok"; printf '[tox]\nenvlist = py3, docs\n\n[testenv]\ncommands = pytest\n\n[testenv:docs]\ncommands = sphinx-build docs docs/_build\n\n[pytest]\ntestpaths = tests\n' > $R/tox.ini
  lt 29lc 'python3 -m pytest -q; tox.ini [testenv:docs] commands = sphinx-build docs docs/_build' 'python3 -m pytest -q' docs/conf.py "$docsedit"; }
# ld: python_files beyond the default, testpaths = tests; a check_ script outside tests/
ld()  { eval "$tok"; mkdir -p $R/tools; printf 'print("fmt")\n' > $R/tools/check_format.py; printf '[pytest]\ntestpaths = tests\npython_files = test_*.py check_*.py\n' > $R/pytest.ini
  lt 29ld 'python3 -m pytest -q; pytest.ini testpaths = tests, python_files = test_*.py check_*.py; tools/check_format.py outside testpaths' 'python3 -m pytest -q' tools/check_format.py "printf 'print(\"fmt v2\")\n' > \$R/tools/check_format.py"; }
# le: --doctest-modules with testpaths = src; scripts/ is never imported
le()  { eval "$rel"; mkdir -p $R/src/w; printf 'def f():\n    """\n    >>> f()\n    1\n    """\n    return 1\n' > $R/src/w/core.py; printf '[pytest]\ntestpaths = src\naddopts = --doctest-modules\n' > $R/pytest.ini
  lt 29le 'python3 -m pytest -q; pytest.ini testpaths = src, addopts = --doctest-modules' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
# lf: an ordinary .npmrc
lf()  { eval "$rel"; printf '{"name":"w","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/package.json; printf 'save-exact=true\nengine-strict=true\nfund=false\n' > $R/.npmrc
  lt 29lf 'npm test; .npmrc save-exact, engine-strict, fund' 'npm test' scripts/release.py "$reledit"; }
# lg: .npmrc workspaces-update=false (not workspaces=true) and a fixture package.json
lg()  { eval "$rel"; printf '{"name":"w","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/package.json; printf 'workspaces-update=false\n' > $R/.npmrc
  mkdir -p $R/test/fixtures/proj; printf '{"name":"proj","scripts":{"release":"python3 scripts/release.py"}}\n' > $R/test/fixtures/proj/package.json
  lt 29lg 'npm test; .npmrc workspaces-update=false; test/fixtures/proj/package.json (a fixture)' 'npm test' scripts/release.py "$reledit"; }
lgb() { eval "$rel"; printf '{"name":"w","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/package.json
  mkdir -p $R/test/fixtures/proj; printf '{"name":"proj","scripts":{"release":"python3 scripts/release.py"}}\n' > $R/test/fixtures/proj/package.json
  lt 29lgb 'control of 29lg: no .npmrc' 'npm test' scripts/release.py "$reledit"; }
# lh: 29la's control: pyproject.toml without tool sections naming scripts
lh()  { eval "$rel"; eval "$tok"; printf '[project]\nname = "w"\nversion = "1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' > $R/pyproject.toml
  lt 29lh 'python3 -m pytest -q; pyproject.toml with [project] and pytest only' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
for c in ${ONLY:-la lb lc ld le lf lg lgb lh}; do variant29 "$c" "$c"; done
rm -f $PWN
