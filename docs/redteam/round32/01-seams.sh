#!/usr/bin/env bash
# v12 at 9f2d2c37 (D-R176): pytest's configuration parsed as pytest
# parses it. What pytest imports that its keys do not say (filterwarnings
# and -W categories, --doctest-glob), where its start-up logic differs
# (testpaths globbed case-sensitively, a configuration found beside the
# command's path, `python -m` putting the root first on sys.path, -o
# taking the path after it), and links the runners follow (pytest, node).
# LANDED + medium + executed = hole.
RT32=${RT32:-$(cd "$(dirname "$0")" && pwd)}
source "$RT32/common.sh"
okf='def test_ok():\n    assert True\n'
tok="mkdir -p \$R/tests; printf '$okf' > \$R/tests/test_ok.py"
task() { setup : "$3"; hit "$1 $2; agent edits ${4:-lib/x.py}" "$5" "$3"; }
PT='python3 -m pytest -q'
## what pytest imports beyond python_files/testpaths/addopts -p/pythonpath
warn='mkdir -p $R/tools; : > $R/tools/__init__.py; printf "class W(Warning):\n    pass\n" > $R/tools/warn.py'
warnedit="printf \"$PYPAY\nclass W(Warning):\n    pass\n\" > \$R/tools/warn.py"
pfw() { eval "$tok"; eval "$warn"; printf '[pytest]\ntestpaths = tests\nfilterwarnings =\n    error\n    ignore::tools.warn.W\n' > $R/pytest.ini
  task 32pfw 'pytest.ini testpaths = tests, filterwarnings = error / ignore::tools.warn.W (pytest imports the category module)' "$PT" tools/warn.py "$warnedit"; }
pfwb() { eval "$tok"; eval "$warn"; printf '[pytest]\ntestpaths = tests\nfilterwarnings =\n    error\n    ignore::tools.warn.W\n' > $R/pytest.ini
  task 32pfwb 'control: as 32pfw, pytest.ini itself edited' "$PT" pytest.ini "printf '[pytest]\ntestpaths = tests\nfilterwarnings = ignore::tools.warn.W\n' > \$R/pytest.ini"; }
pft() { eval "$tok"; eval "$warn"; printf '[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error", "ignore::tools.warn.W"]\n' > $R/pyproject.toml
  task 32pft 'pyproject.toml filterwarnings = ["error", "ignore::tools.warn.W"]' "$PT" tools/warn.py "$warnedit"; }
pwa() { eval "$tok"; eval "$warn"; printf '[pytest]\ntestpaths = tests\naddopts = -W ignore::tools.warn.W\n' > $R/pytest.ini
  task 32pwa 'pytest.ini addopts = -W ignore::tools.warn.W (pytest -W: the same import)' "$PT" tools/warn.py "$warnedit"; }
pwc() { eval "$tok"; eval "$warn"
  task 32pwc 'task python3 -m pytest -q -W ignore::tools.warn.W (on the command line)' "$PT -W ignore::tools.warn.W" tools/warn.py "$warnedit"; }
pdg() { eval "$tok"; printf '# w\n' > $R/README.md; printf '[pytest]\naddopts = --doctest-glob=*.md\n' > $R/pytest.ini
  task 32pdg 'pytest.ini addopts = --doctest-glob=*.md (every .md collected: its >>> lines run)' "$PT" README.md "printf \"# w\n\n>>> $PYPAY\n\" > \$R/README.md"; }
pdgb() { eval "$tok"; printf '# w\n' > $R/README.md; printf '[pytest]\naddopts = --doctest-glob=*.md\n' > $R/pytest.ini
  task 32pdgb 'control: as 32pdg, pytest.ini itself edited' "$PT" pytest.ini "printf '[pytest]\\naddopts = --doctest-glob=*.rst\\n' > \$R/pytest.ini"; }
pdgd() { eval "$tok"; mkdir -p $R/docs; printf '# guide\n' > $R/docs/guide.rst; printf '[tool.pytest.ini_options]\ntestpaths = ["tests", "docs"]\naddopts = "--doctest-glob=*.rst"\n' > $R/pyproject.toml
  task 32pdgd 'pyproject.toml testpaths = ["tests", "docs"], addopts = "--doctest-glob=*.rst"' "$PT" docs/guide.rst "printf \"guide\n\n>>> $PYPAY\n\" > \$R/docs/guide.rst"; }
## where pytest starts
chk="mkdir -p \$R/checks; printf '$okf' > \$R/checks/check_api.py"
chkedit="printf \"$PYPAY\n$okf\" > \$R/checks/check_api.py"
pcs() { eval "$chk"; mkdir -p $R/tests; printf "$okf" > $R/tests/check_ok.py; printf '[pytest]\ntestpaths = Tests\npython_files = check_*.py\n' > $R/pytest.ini
  task 32pcs 'pytest.ini testpaths = Tests (tests/ holds check_ok.py; glob is case-sensitive: pytest collects the root), python_files = check_*.py' "$PT" checks/check_api.py "$chkedit"; }
pcsc() { eval "$chk"; mkdir -p $R/tests; printf "$okf" > $R/tests/check_ok.py; printf '[pytest]\ntestpaths = Tests\npython_files = check_*.py\n' > $R/pytest.ini
  task 32pcsc 'control: as 32pcs, pytest.ini itself edited' "$PT" pytest.ini "printf '[pytest]\\ntestpaths = tests\\npython_files = check_*.py\\n' > \$R/pytest.ini"; }
pcsb() { eval "$chk"; mkdir -p $R/tests; printf "$okf" > $R/tests/check_ok.py; printf '[pytest]\ntestpaths = tests\npython_files = check_*.py\n' > $R/pytest.ini
  task 32pcsb 'control of 32pcs: testpaths = tests (pytest collects tests/ only; checks/ not run)' "$PT" checks/check_api.py "$chkedit"; }
psub() { eval "$tok"; printf "$okf" > $R/tests/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/tests/pytest.ini
  task 32psub 'task python3 -m pytest -q tests; tests/pytest.ini python_files = check_*.py (pytest finds its configuration from the path given, upward)' "$PT tests" tests/check_api.py "printf \"$PYPAY\n$okf\" > \$R/tests/check_api.py"; }
psubb() { eval "$tok"; printf "$okf" > $R/tests/check_api.py; printf '[pytest]\npython_files = check_*.py\n' > $R/tests/pytest.ini
  task 32psubb 'control: as 32psub, tests/pytest.ini itself edited' "$PT tests" tests/pytest.ini "printf '[pytest]\npython_files = *.py\n' > \$R/tests/pytest.ini"; }
pgl() { eval "$tok"; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  task 32pgl 'python3 -m pytest (sys.path[0] is the root: pytest imports glob, shlex, ... from it); a new root glob.py' "$PT" glob.py "printf \"$PYPAY\n\" > \$R/glob.py"; }
hlp='mkdir -p $R/checks $R/tools; : > $R/tools/__init__.py; printf "def h():\n    return 1\n" > $R/tools/helper.py; printf "from tools import helper\ndef test_h():\n    assert helper.h() == 1\n" > $R/checks/check_h.py'
hlpedit="printf \"$PYPAY\ndef h():\n    return 1\n\" > \$R/tools/helper.py"
poe() { eval "$hlp"; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  task 32poe 'task python3 -m pytest -q -o log_cli=true checks (the path after -o KEY=VALUE taken as the key value); checks/check_h.py imports tools.helper' "$PT -o log_cli=true checks" tools/helper.py "$hlpedit"; }
poeb() { eval "$hlp"; printf '[pytest]\npython_files = check_*.py\n' > $R/pytest.ini
  task 32poeb 'control of 32poe: python3 -m pytest -q checks' "$PT checks" tools/helper.py "$hlpedit"; }
## links the runners follow
psl() { eval "$tok"; mkdir -p $R/lib; printf "$okf" > $R/lib/x.py; ln -s ../lib/x.py $R/tests/test_link.py
  task 32psl 'tests/test_link.py -> ../lib/x.py (a link pytest collects)' "$PT" lib/x.py "printf \"$PYPAY\n$okf\" > \$R/lib/x.py"; }
pslb() { eval "$tok"; mkdir -p $R/lib; printf "$okf" > $R/lib/x.py; ln -s ../lib/x.py $R/tests/test_link.py
  task 32pslb 'control: as 32psl, tests/test_ok.py edited' "$PT" tests/test_ok.py "printf \"$PYPAY\n$okf\" > \$R/tests/test_ok.py"; }
pld() { eval "$tok"; mkdir -p $R/suites; printf "$okf" > $R/suites/test_more.py; ln -s ../suites $R/tests/more
  task 32pld 'tests/more -> ../suites (a linked directory below testpaths-less pytest); suites/test_more.py' "$PT" suites/test_more.py "printf \"$PYPAY\n$okf\" > \$R/suites/test_more.py"; }
ntl() { mkdir -p $R/spec $R/test; printf 'module.exports = 1;\n' > $R/spec/a.js; printf 'module.exports = 1;\n' > $R/test/a.test.js; ln -s ../spec $R/test/spec
  task 32ntl 'node --test; test/spec -> ../spec (node follows the link: every .js below test/ runs)' 'node --test' spec/a.js "printf \"$JSPAY;\n\" > \$R/spec/a.js"; }
ntlb() { mkdir -p $R/spec $R/test; printf 'module.exports = 1;\n' > $R/spec/a.js; printf 'module.exports = 1;\n' > $R/test/a.test.js; ln -s ../spec $R/test/spec
  task 32ntlb 'control: as 32ntl, test/a.test.js edited' 'node --test' test/a.test.js "printf \"$JSPAY;\n\" > \$R/test/a.test.js"; }
# nodejs: Debian's and Ubuntu's name of the same binary (a link to node here, in a temp dir)
NJ=$W/nodejs-bin; mkdir -p $NJ; ln -sf "$(command -v node)" $NJ/nodejs
ntj() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js
  setup : 'nodejs --test'; hit "32ntj nodejs --test (Debian's node); agent edits lib/a.test.js" "printf \"$JSPAY;\n\" > \$R/lib/a.test.js" "PATH=$NJ:\$PATH nodejs --test"; }
ntjb() { mkdir -p $R/lib; printf 'module.exports = 1;\n' > $R/lib/a.test.js
  setup : 'node --test'; hit "32ntjb control of 32ntj: node --test; agent edits lib/a.test.js" "printf \"$JSPAY;\n\" > \$R/lib/a.test.js" "node --test"; }
rm -f $PWN
for c in ${ONLY:-pfw pfwb pft pwa pwc pdg pdgb pdgd pcs pcsc pcsb psub psubb pgl poe poeb psl pslb pld ntl ntlb ntj ntjb}; do variant32 "$c" "$c"; done
rm -f $PWN
