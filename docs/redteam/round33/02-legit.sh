#!/usr/bin/env bash
# Ordinary repositories under 82ede3a7 (D-R176's addendum): the agent
# edits a file the configured command never runs; each should stay
# medium and land. deno and bun are not installed: their cases are
# rated and pushed, not run (what they run is from their documentation).
RT33=${RT33:-$(cd "$(dirname "$0")" && pwd)}
source "$RT33/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
rel='mkdir -p $R/scripts; printf "print(\"release\")\n" > $R/scripts/release.py'
reledit="printf 'print(\"release v2\")\n' > \$R/scripts/release.py"
src='mkdir -p $R/src/w; printf "def f():\n    \"\"\">>> f()\n    1\n    \"\"\"\n    return 1\n" > $R/src/w/__init__.py'
PT='python3 -m pytest -q'
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
# la: a root test.py (a scratch script run by hand): pytest's patterns do
# not match it and nothing imports a module named test.
la()  { eval "$tok"; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini; printf 'print("try the api")\n' > $R/test.py
  lt 33la 'python3 -m pytest (testpaths = tests); a root test.py run by hand' "$PT" test.py "printf 'print(\"try the api v2\")\n' > \$R/test.py"; }
lab() { eval "$tok"; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini; printf 'print("try the api")\n' > $R/try_api.py
  lt 33lab 'control of 33la: the same script named try_api.py' "$PT" try_api.py "printf 'print(\"try the api v2\")\n' > \$R/try_api.py"; }
# lb: python3 tools/gen.py imports json only; tools/profile.py is a helper run by hand
gen='mkdir -p $R/tools; printf "import json\nprint(json.dumps(1))\n" > $R/tools/gen.py'
lb()  { eval "$gen"; printf 'print("profile")\n' > $R/tools/profile.py
  lt 33lb 'python3 tools/gen.py (imports json); tools/profile.py run by hand' "python3 tools/gen.py" tools/profile.py "printf 'print(\"profile v2\")\n' > \$R/tools/profile.py"; }
lbb() { eval "$gen"; printf 'print("profile")\n' > $R/tools/profiling.py
  lt 33lbb 'control of 33lb: the helper named tools/profiling.py' "python3 tools/gen.py" tools/profiling.py "printf 'print(\"profile v2\")\n' > \$R/tools/profiling.py"; }
# lc: tox.ini sets PYTEST_ADDOPTS for tox's own runs (setenv); the task runs pytest directly
lc()  { eval "$rel"; eval "$tok"; eval "$src"; printf '[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n' > $R/pytest.ini
  printf '[tox]\nenvlist = py311\n\n[testenv]\nsetenv =\n    PYTEST_ADDOPTS = --color=yes\ndeps = pytest\ncommands = pytest {posargs}\n' > $R/tox.ini
  lt 33lc 'pytest.ini testpaths = src tests, addopts = --doctest-modules; tox.ini setenv PYTEST_ADDOPTS = --color=yes' "$PT" scripts/release.py "$reledit"; }
lcb() { eval "$rel"; eval "$tok"; eval "$src"; printf '[pytest]\ntestpaths = src tests\naddopts = --doctest-modules\n' > $R/pytest.ini
  printf '[tox]\nenvlist = py311\n\n[testenv]\ndeps = pytest\ncommands = pytest {posargs}\n' > $R/tox.ini
  lt 33lcb 'control of 33lc: the same tox.ini without setenv' "$PT" scripts/release.py "$reledit"; }
# ld, le, lf: deno test / bun test in a repository with a Go service and shell scripts
gosvc='mkdir -p $R/svc $R/web; printf "package svc\n" > $R/svc/handler.go; printf "package svc\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) {}\n" > $R/svc/handler_test.go; printf "export const a = 1;\n" > $R/web/a_test.ts'
goedit="printf 'package svc\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) { t.Log(1) }\n' > \$R/svc/handler_test.go"
ld()  { eval "$gosvc"; lt 33ld 'deno test (web/a_test.ts); a Go test svc/handler_test.go (deno runs .ts/.tsx/.mts/.js/.mjs/.jsx only; not run)' "deno test" svc/handler_test.go "$goedit"; }
le()  { eval "$gosvc"; lt 33le 'bun test; a Go test svc/handler_test.go (bun runs JS/TS test files only; not run)' "bun test" svc/handler_test.go "$goedit"; }
# lg: the Go test bun's pattern matches is read in turn as a script: its
# `package svc` names svc/ whole, so the service's own source is high too.
lg()  { eval "$gosvc"; lt 33lg 'bun test; svc/handler.go (the Go package beside handler_test.go; not run)' "bun test" svc/handler.go "printf 'package svc\n\n// v2\n' > \$R/svc/handler.go"; }
lgb() { mkdir -p $R/svc; printf "package svc\n" > $R/svc/handler.go; printf 'export const a = 1;\n' > $R/a.test.ts
  lt 33lgb 'control of 33ld/33le/33lg: bun test, no Go test in the tree; svc/handler.go' "bun test" svc/handler.go "printf 'package svc\n\n// v2\n' > \$R/svc/handler.go"; }
lf()  { eval "$gosvc"; mkdir -p $R/scripts; printf '#!/bin/sh\ngo test ./...\n' > $R/scripts/test.sh
  lt 33lf 'deno test; scripts/test.sh (a CI script deno does not run; not run)' "deno test" scripts/test.sh "printf '#!/bin/sh\ngo test -race ./...\n' > \$R/scripts/test.sh"; }
for c in ${ONLY:-la lab lb lbb lc lcb ld le lg lgb lf}; do variant33 "$c" "$c"; done
rm -f $PWN
