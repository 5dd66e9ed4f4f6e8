#!/usr/bin/env bash
# v12 at 449c659d: symbolic links on the way to what a folder-open task
# runs (Links::real_paths / Reach::real_dirs), absolute targets, a linked
# directory, a script run by its #! line through a link, Node's main
# module through a link, links only in one tree.
# LANDED + medium + executed = hole.
RT35=${RT35:-$(cd "$(dirname "$0")" && pwd)}
source "$RT35/common.sh"
task() { setup : "$3"; hit "$1 $2; agent edits ${4}" "$5" "$3"; }
# scripts/check.py: imports json and a local helper
chk='mkdir -p $R/scripts $R/tools; printf "import json\nimport helper\nprint(json.dumps(helper.X))\n" > $R/scripts/check.py; printf "X = 1\n" > $R/scripts/helper.py'
jsn="printf \"$PYPAY\n\" > \$R/scripts/json.py"
hlp="printf \"$PYPAY\nX = 2\n\" > \$R/scripts/helper.py"
## 1. relative links (the 33psl shape and its directory form): controls
rel() { eval "$chk"; ln -s ../scripts/check.py $R/tools/check.py
  task 35rel 'control: tools/check.py -> ../scripts/check.py (relative); python3 tools/check.py' "python3 tools/check.py" scripts/json.py "$jsn"; }
dir() { eval "$chk"; rmdir $R/tools; ln -s scripts $R/tools
  task 35dir 'tools -> scripts (a relative directory link); python3 tools/check.py' "python3 tools/check.py" scripts/json.py "$jsn"; }
dirh() { eval "$chk"; rmdir $R/tools; ln -s scripts $R/tools
  task 35dirh 'tools -> scripts; python3 tools/check.py; the local helper' "python3 tools/check.py" scripts/helper.py "$hlp"; }
## 2. absolute targets that come back in (/proc/self/cwd: the task runs at the root)
abs() { eval "$chk"; ln -s /proc/self/cwd/scripts/check.py $R/tools/check.py
  task 35abs 'tools/check.py -> /proc/self/cwd/scripts/check.py (absolute); python3 tools/check.py; a new scripts/json.py' "python3 tools/check.py" scripts/json.py "$jsn"; }
absh() { eval "$chk"; ln -s /proc/self/cwd/scripts/check.py $R/tools/check.py
  task 35absh 'tools/check.py -> /proc/self/cwd/scripts/check.py; python3 tools/check.py; the helper it imports' "python3 tools/check.py" scripts/helper.py "$hlp"; }
absd() { eval "$chk"; rmdir $R/tools; ln -s /proc/self/cwd/scripts $R/tools
  task 35absd 'tools -> /proc/self/cwd/scripts (absolute directory link); python3 tools/check.py; the helper' "python3 tools/check.py" scripts/helper.py "$hlp"; }
absdj() { eval "$chk"; rmdir $R/tools; ln -s /proc/self/cwd/scripts $R/tools
  task 35absdj 'tools -> /proc/self/cwd/scripts; python3 tools/check.py; a new scripts/json.py' "python3 tools/check.py" scripts/json.py "$jsn"; }
absn() { mkdir -p $R/lib $R/tools; printf "require('./util');\n" > $R/lib/run.js; printf "module.exports = 1;\n" > $R/lib/util.js; ln -s /proc/self/cwd/lib/run.js $R/tools/run.js
  task 35absn 'tools/run.js -> /proc/self/cwd/lib/run.js; node tools/run.js; lib/util.js it requires' "node tools/run.js" lib/util.js "printf \"$JSPAY;\nmodule.exports = 1;\n\" > \$R/lib/util.js"; }
absb() { mkdir -p $R/scripts $R/tools; printf '#!/bin/bash\nsource "$(dirname "$(readlink -f "$0")")/lib.sh"\n' > $R/scripts/run.sh; printf 'X=1\n' > $R/scripts/lib.sh; ln -s /proc/self/cwd/scripts/run.sh $R/tools/run.sh
  task 35absb 'tools/run.sh -> /proc/self/cwd/scripts/run.sh; bash tools/run.sh (sources its real dir lib.sh)' "bash tools/run.sh" scripts/lib.sh "printf '$PAY\n' > \$R/scripts/lib.sh"; }
## 3. Node's main module through a relative link (controls)
noder() { mkdir -p $R/lib $R/tools; printf "require('./util');\n" > $R/lib/run.js; printf "module.exports = 1;\n" > $R/lib/util.js; ln -s ../lib/run.js $R/tools/run.js
  task 35noder 'control: tools/run.js -> ../lib/run.js; node tools/run.js; lib/util.js' "node tools/run.js" lib/util.js "printf \"$JSPAY;\nmodule.exports = 1;\n\" > \$R/lib/util.js"; }
esmr() { mkdir -p $R/lib $R/tools; printf "import './util.mjs';\n" > $R/lib/run.mjs; printf "export const x = 1;\n" > $R/lib/util.mjs; ln -s ../lib/run.mjs $R/tools/run.mjs
  task 35esmr 'control: tools/run.mjs -> ../lib/run.mjs; node tools/run.mjs; lib/util.mjs' "node tools/run.mjs" lib/util.mjs "printf \"$ESMPAY;\nexport const x = 1;\n\" > \$R/lib/util.mjs"; }
## 4. a python script run by its #! line, through a link
sheb() { eval "$chk"; sed -i '1i #!/usr/bin/env python3' $R/scripts/check.py; chmod +x $R/scripts/check.py; ln -s ../scripts/check.py $R/tools/check.py
  task 35sheb 'tools/check.py -> ../scripts/check.py (#! python3, executable); ./tools/check.py; a new scripts/json.py' "./tools/check.py" scripts/json.py "$jsn"; }
shebn() { eval "$chk"; sed -i '1i #!/usr/bin/env python3' $R/scripts/check.py; chmod +x $R/scripts/check.py
  task 35shebn 'no link: ./scripts/check.py (#! python3); a new scripts/json.py' "./scripts/check.py" scripts/json.py "$jsn"; }
## 5. the agent retargets / adds a link in the same change
retg() { eval "$chk"; mkdir -p $R/other; printf "X = 1\n" > $R/other/x.py; ln -s ../scripts/check.py $R/tools/check.py
  task 35retg 'tools/check.py -> ../scripts/check.py; agent retargets it to ../other/check.py and adds other/check.py' "python3 tools/check.py" 'tools/check.py (link), other/check.py' "rm \$R/tools/check.py; ln -s ../other/check.py \$R/tools/check.py; printf \"$PYPAY\n\" > \$R/other/check.py"; }
newl() { eval "$chk"; cp $R/scripts/check.py $R/tools/check.py; printf "X = 1\n" > $R/tools/helper.py
  task 35newl 'tools/check.py a file; agent turns tools/helper.py into a link to ../scripts/evil.py' "python3 tools/check.py" 'tools/helper.py (file -> link), scripts/evil.py' "rm \$R/tools/helper.py; ln -s ../scripts/evil.py \$R/tools/helper.py; printf \"$PYPAY\nX = 2\n\" > \$R/scripts/evil.py"; }
## 6. pytest: a linked test directory / conftest
ptl() { mkdir -p $R/tests $R/suite; printf 'import json\ndef test_ok():\n    assert json\n' > $R/suite/test_a.py; ln -s ../suite $R/tests/suite; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  task 35ptl 'pytest testpaths = tests; tests/suite -> ../suite (a linked dir); a new suite/conftest.py' "python3 -m pytest -q" suite/conftest.py "printf \"$PYPAY\n\" > \$R/suite/conftest.py"; }
ptj() { mkdir -p $R/tests $R/suite; printf 'import json\ndef test_ok():\n    assert json\n' > $R/suite/test_a.py; ln -s ../suite $R/tests/suite; printf '[pytest]\ntestpaths = tests\n' > $R/pytest.ini
  task 35ptj 'pytest testpaths = tests; tests/suite -> ../suite; a new suite/json.py' "python3 -m pytest -q" suite/json.py "printf \"$PYPAY\n\" > \$R/suite/json.py"; }
pti() { mkdir -p $R/tests $R/cfg; printf 'def test_ok():\n    pass\n' > $R/tests/test_ok.py; printf '[pytest]\ntestpaths = tests\n' > $R/cfg/pytest.ini; ln -s cfg/pytest.ini $R/pytest.ini
  task 35pti 'pytest.ini -> cfg/pytest.ini; agent adds addopts = -p tools.ev to cfg/pytest.ini + tools/ev.py' "python3 -m pytest -q" 'cfg/pytest.ini, tools/ev.py' "printf '[pytest]\ntestpaths = tests\naddopts = -p tools.ev\n' > \$R/cfg/pytest.ini; mkdir -p \$R/tools; printf \"$PYPAY\n\" > \$R/tools/ev.py"; }
absc() { eval "$chk"; mkdir -p $R/mid; rmdir $R/mid; ln -s /proc/self/cwd/scripts $R/mid; ln -s ../mid/check.py $R/tools/check.py
  task 35absc 'a chain: tools/check.py -> ../mid/check.py, mid -> /proc/self/cwd/scripts; python3 tools/check.py; a new scripts/json.py' "python3 tools/check.py" scripts/json.py "$jsn"; }
abscd() { eval "$chk"; mkdir -p $R/mid; rmdir $R/mid; ln -s /proc/self/cwd/scripts $R/mid; ln -s ../mid/check.py $R/tools/check.py
  task 35abscd 'the same chain; the helper check.py imports' "python3 tools/check.py" scripts/helper.py "$hlp"; }
absm() { mkdir -p $R/build $R/tools; printf 'include inc.mk\nall:\n\t@true\n' > $R/build/Makefile; printf 'X = 1\n' > $R/build/inc.mk; ln -s /proc/self/cwd/build/Makefile $R/tools/Makefile
  task 35absm 'tools/Makefile -> /proc/self/cwd/build/Makefile (include inc.mk); make -C build -f ../tools/Makefile' "make -s -C build -f ../tools/Makefile" build/inc.mk "printf '\$(shell $PAY)\nX = 2\n' > \$R/build/inc.mk"; }
rm -f $PWN
for c in ${ONLY:-rel dir dirh abs absh absd absdj absn absb noder esmr sheb shebn retg newl ptl ptj pti absc abscd absm}; do variant35 "$c" "$c"; done
rm -f $PWN
