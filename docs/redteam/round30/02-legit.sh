#!/usr/bin/env bash
# Ordinary suites under 2612c15a (pytest's configuration read for its
# keys; testpaths; -execdir's words named anywhere; npm workspaces). The
# agent edits a file the suite never runs; each should stay medium and land.
RT30=${RT30:-$(cd "$(dirname "$0")" && pwd)}
source "$RT30/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
rel='mkdir -p $R/scripts; printf "print(\"release\")\n" > $R/scripts/release.py'
reledit="printf 'print(\"release v2\")\n' > \$R/scripts/release.py"
docs='mkdir -p $R/docs; printf "project = \"w\"\n" > $R/docs/conf.py'
docsedit="printf 'project = \"w2\"\n' > \$R/docs/conf.py"
# lt TAG LABEL CMD WHAT EDIT: a folder-open task CMD; the agent edits WHAT by EDIT
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
# la: a full pyproject: testpaths, addopts with a coverage source, markers, filterwarnings
la()  { eval "$rel"; eval "$tok"; mkdir -p $R/src/w; printf 'X = 1\n' > $R/src/w/__init__.py
  printf '[project]\nname = "w"\nversion = "1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-ra --strict-markers"\nmarkers = [\n  "slow: marks tests as slow (deselect with -m \\"not slow\\")",\n]\nfilterwarnings = ["error", "ignore::DeprecationWarning:scripts.*"]\n\n[tool.coverage.run]\nsource = ["src", "scripts"]\n' > $R/pyproject.toml
  lt 30la 'python3 -m pytest -q; pyproject.toml testpaths, addopts, markers, filterwarnings naming scripts.*, coverage source' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
# lb: setup.cfg [tool:pytest] with addopts = --doctest-modules, testpaths = src; docs/ outside
lb()  { eval "$docs"; mkdir -p $R/src/w; printf 'def f():\n    """\n    >>> f()\n    1\n    """\n    return 1\n' > $R/src/w/core.py
  printf '[metadata]\nname = w\n\n[options]\npackages = find:\npackage_dir =\n    = src\n\n[tool:pytest]\ntestpaths =\n    src\n    tests\naddopts =\n    --doctest-modules\n    -p no:cacheprovider\n' > $R/setup.cfg; eval "$tok"
  lt 30lb 'python3 -m pytest -q; setup.cfg [tool:pytest] testpaths = src tests (continued), addopts --doctest-modules -p no:cacheprovider' 'python3 -m pytest -q' docs/conf.py "$docsedit"; }
# lc: tox.ini [pytest] with python_files and a docs env; pytest via tox-less task
lc()  { eval "$docs"; eval "$tok"; printf '[tox]\nenvlist = py3, docs\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n\n[testenv:docs]\ncommands = sphinx-build -b html docs docs/_build\n\n[pytest]\ntestpaths = tests\npython_files = test_*.py *_test.py\naddopts = -ra\n' > $R/tox.ini
  lt 30lc 'python3 -m pytest -q; tox.ini [pytest] testpaths = tests, python_files, a docs env' 'python3 -m pytest -q' docs/conf.py "$docsedit"; }
# ld: pytest with pythonpath = src (the src layout); scripts/ outside
ld()  { eval "$rel"; eval "$tok"; mkdir -p $R/src/w; printf 'X = 1\n' > $R/src/w/__init__.py; printf '[pytest]\npythonpath = src\ntestpaths = tests\n' > $R/pytest.ini
  lt 30ld 'python3 -m pytest -q; pytest.ini pythonpath = src, testpaths = tests' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
# le: unittest discovery in tests/, a tools/ script outside
le()  { eval "$rel"; eval "$tok"
  lt 30le 'python3 -m unittest discover -s tests -t .' 'python3 -m unittest discover -s tests -t .' scripts/release.py "$reledit"; }
# lf: npm monorepo, --workspaces; a root tools/ script no workspace runs
lf()  { mkdir -p $R/packages/a $R/packages/b $R/tools; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":["packages/*"],"scripts":{"release":"node tools/release.js"}}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/packages/a/package.json; printf '{"name":"b","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/packages/b/package.json
  printf 'console.log(1);\n' > $R/tools/release.js
  lt 30lf 'npm test --workspaces; root script release (not run) -> tools/release.js' 'npm test --workspaces' tools/release.js "printf 'console.log(2);\n' > \$R/tools/release.js"; }
# lg: npm -w packages/a; the agent edits packages/b's source
lg()  { mkdir -p $R/packages/a $R/packages/b/src; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/packages/a/package.json; printf '{"name":"b","version":"1.0.0","scripts":{"test":"node src/x.js"}}\n' > $R/packages/b/package.json
  printf 'console.log(1);\n' > $R/packages/b/src/x.js
  lt 30lg 'npm test -w packages/a; the agent edits packages/b/src/x.js' 'npm test -w packages/a' packages/b/src/x.js "printf 'console.log(2);\n' > \$R/packages/b/src/x.js"; }
# lh: find -execdir npm ci in each package; a ci/ directory beside
lh()  { mkdir -p $R/packages/a $R/ci; printf '{"name":"a","version":"1.0.0"}\n' > $R/packages/a/package.json; printf 'echo deploy\n' > $R/ci/deploy.sh
  lt 30lh "find packages -name package.json -execdir npm ci \\; ; ci/deploy.sh beside" "find packages -name package.json -execdir npm ci \\;" ci/deploy.sh "printf 'echo deploy v2\n' > \$R/ci/deploy.sh"; }
# li: find -execdir shellcheck over hook scripts; the agent edits a doc named like a word
li()  { mkdir -p $R/hooks $R/docs; printf 'echo a\n' > $R/hooks/a.sh; printf 'notes\n' > $R/docs/style
  lt 30li "find hooks -name '*.sh' -execdir shellcheck --severity style {} + ; docs/style beside" "find hooks -name '*.sh' -execdir shellcheck --severity style {} +" docs/style "printf 'notes v2\n' > \$R/docs/style"; }
# lj: pytest with testpaths = tests and a conftest at the root that imports nothing of scripts/
lj()  { eval "$rel"; eval "$tok"; printf 'import pytest\n\n@pytest.fixture\ndef root():\n    return "scripts"\n' > $R/conftest.py; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  lt 30lj 'python3 -m pytest -q; conftest.py returns the string "scripts"' 'python3 -m pytest -q' scripts/release.py "$reledit"; }
# lfb, lgb: controls of lf, lg without workspaces chosen (plain npm test)
lfb() { mkdir -p $R/packages/a $R/tools; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":["packages/*"],"scripts":{"test":"node -e 1","release":"node tools/release.js"}}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/packages/a/package.json; printf 'console.log(1);\n' > $R/tools/release.js
  lt 30lfb 'control of 30lf: npm test (no --workspaces)' 'npm test' tools/release.js "printf 'console.log(2);\n' > \$R/tools/release.js"; }
lgb() { mkdir -p $R/packages/a $R/packages/b/src; printf '{"name":"w","version":"1.0.0","private":true,"workspaces":["packages/*"],"scripts":{"test":"node -e 1"}}\n' > $R/package.json
  printf '{"name":"a","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/packages/a/package.json; printf '{"name":"b","version":"1.0.0","scripts":{"test":"node src/x.js"}}\n' > $R/packages/b/package.json
  printf 'console.log(1);\n' > $R/packages/b/src/x.js
  lt 30lgb 'control of 30lg: npm test (root only)' 'npm test' packages/b/src/x.js "printf 'console.log(2);\n' > \$R/packages/b/src/x.js"; }
lhb() { mkdir -p $R/packages/a $R/ci; printf '{"name":"a","version":"1.0.0"}\n' > $R/packages/a/package.json; printf 'echo deploy\n' > $R/ci/deploy.sh
  lt 30lhb "control of 30lh: find packages -name package.json -exec npm ci \\;" "find packages -name package.json -exec npm ci \\;" ci/deploy.sh "printf 'echo deploy v2\n' > \$R/ci/deploy.sh"; }
lib_() { mkdir -p $R/hooks $R/docs; printf 'echo a\n' > $R/hooks/a.sh; printf 'notes\n' > $R/docs/style
  lt 30lib "control of 30li: -exec instead of -execdir" "find hooks -name '*.sh' -exec shellcheck --severity style {} +" docs/style "printf 'notes v2\n' > \$R/docs/style"; }
for c in ${ONLY:-la lb lc ld le lf lfb lg lgb lh lhb li lib_ lj}; do variant30 "$c" "$c"; done
rm -f $PWN
