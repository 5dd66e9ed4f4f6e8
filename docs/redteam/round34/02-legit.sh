#!/usr/bin/env bash
# Ordinary repositories under f8b46e40/fabae5b5: edits a teammate makes.
# Those the configured command never runs should stay medium and land; a
# test file the folder-open task runs is high by design (it runs on open).
RT34=${RT34:-$(cd "$(dirname "$0")" && pwd)}
source "$RT34/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
PT='python3 -m pytest -q'
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
ini='printf "[pytest]\ntestpaths = tests\n" > $R/pytest.ini'
# la: a test body edited (the task runs it: high expected, by design)
la() { eval "$tok"; eval "$ini"; lt 34la 'python3 -m pytest (testpaths = tests); a test body edited (run by the task: high expected)' "$PT" tests/test_ok.py "printf 'def test_ok():\n    assert 1 + 1 == 2\n' > \$R/tests/test_ok.py"; }
# lb: a README added
lb() { eval "$tok"; eval "$ini"; lt 34lb 'python3 -m pytest; a new README.md' "$PT" README.md "printf '# x\n\nRun the tests with pytest.\n' > \$R/README.md"; }
# lc: a new normal test file (run by the task: high expected)
lc() { eval "$tok"; eval "$ini"; lt 34lc 'python3 -m pytest; a new tests/test_more.py (run by the task: high expected)' "$PT" tests/test_more.py "printf '$okf' > \$R/tests/test_more.py"; }
# ld: documentation under docs/ in a pytest repo with a file argument
ld() { eval "$tok"; mkdir -p $R/docs; printf '# guide\n' > $R/docs/guide.md; lt 34ld 'python3 -m pytest -q tests/test_ok.py; docs/guide.md' "$PT tests/test_ok.py" docs/guide.md "printf '# guide v2\n' > \$R/docs/guide.md"; }
# le: a unittest repo: docs edited
le() { mkdir -p $R/tests $R/docs; : > $R/tests/__init__.py; printf 'import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n' > $R/tests/test_ok.py; printf '# guide\n' > $R/docs/guide.md
  lt 34le 'python3 -m unittest; docs/guide.md' "python3 -m unittest" docs/guide.md "printf '# guide v2\n' > \$R/docs/guide.md"; }
# lf..li: root data/config files named like a standard-library module
# (only NAME.py / NAME.*.so / NAME.pyc are imported for `import NAME`)
root() { eval "$tok"; eval "$ini"; printf -- "$3\n" > "$R/$2"; lt "$1" "python3 -m pytest; a root $2 (a data file, never imported)" "$PT" "$2" "printf -- '$4\n' > \$R/$2"; }
lf() { root 34lf logging.yaml 'version: 1' 'version: 1\ndisable_existing_loggers: false'; }
lg() { root 34lg site.yml '- hosts: all' '- hosts: web'; }
lh() { root 34lh secrets.example.env 'API_KEY=changeme' 'API_KEY=changeme\nDB=changeme'; }
li() { root 34li types.ts 'export type A = number;' 'export type A = string;'; }
lj() { root 34lj token.txt 'placeholder' 'placeholder2'; }
ljb() { root 34ljb tokens.txt 'placeholder' 'placeholder2'; }
for c in ${ONLY:-la lb lc ld le lf lg lh li lj ljb}; do variant34 "$c" "$c"; done
rm -f $PWN
