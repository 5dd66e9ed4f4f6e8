#!/usr/bin/env bash
# Ordinary repositories holding symbolic links, under 449c659d: edits a
# teammate makes that the configured command never runs should stay
# medium (or low) and land.
RT35=${RT35:-$(cd "$(dirname "$0")" && pwd)}
source "$RT35/common.sh"
lt() { setup : "$3"; hit "$1 $2; agent edits $4" "$5"; }
chk='mkdir -p $R/scripts $R/tools $R/docs; printf "import json\nprint(json.dumps(1))\n" > $R/scripts/check.py; printf "# guide\n" > $R/docs/guide.md'
# la: a node_modules-like tree of 60 links (.bin -> ../pkgN/bin/cli.js), npm test; README edited
la() { mkdir -p $R/node_modules/.bin; for i in $(seq 1 60); do mkdir -p $R/node_modules/pkg$i/bin; printf 'console.log(1)\n' > $R/node_modules/pkg$i/bin/cli.js; ln -s ../pkg$i/bin/cli.js $R/node_modules/.bin/cli$i; done
  printf '{"name":"x","version":"1.0.0","scripts":{"test":"node -e 1"}}\n' > $R/package.json; printf '# x\n' > $R/README.md
  lt 35la 'npm test; node_modules/ with 60 .bin links (committed)' "npm test" README.md "printf '# x\n\nmore\n' > \$R/README.md"; }
# lb: a linked README (README.md -> docs/README.md) in a repo with a linked script
lb() { eval "$chk"; printf '# r\n' > $R/docs/README.md; ln -s docs/README.md $R/README.md; ln -s ../scripts/check.py $R/tools/check.py
  lt 35lb 'python3 tools/check.py (tools/check.py -> ../scripts/check.py); README.md -> docs/README.md' "python3 tools/check.py" docs/README.md "printf '# r\n\nv2\n' > \$R/docs/README.md"; }
# lc: the linked script's directory holds docs
lc() { eval "$chk"; printf '# s\n' > $R/scripts/README.md; rmdir $R/tools; ln -s scripts $R/tools
  lt 35lc 'python3 tools/check.py (tools -> scripts); scripts/README.md' "python3 tools/check.py" scripts/README.md "printf '# s\n\nv2\n' > \$R/scripts/README.md"; }
# ld: a data file named like a stdlib module next to the linked script's real path
ld() { eval "$chk"; printf 'a: 1\n' > $R/scripts/logging.yaml; ln -s ../scripts/check.py $R/tools/check.py
  lt 35ld 'python3 tools/check.py (tools/check.py -> ../scripts/check.py); scripts/logging.yaml (data)' "python3 tools/check.py" scripts/logging.yaml "printf 'a: 2\n' > \$R/scripts/logging.yaml"; }
# le: a link loop in an unrelated directory (docs/a -> b, docs/b -> a); docs edited
le() { eval "$chk"; ln -s b $R/docs/a; ln -s a $R/docs/b
  lt 35le 'python3 scripts/check.py; a link loop docs/a <-> docs/b elsewhere; docs/guide.md' "python3 scripts/check.py" docs/guide.md "printf '# guide v2\n' > \$R/docs/guide.md"; }
# lf: a bash script through a link reads a relative path (bash resolves from where it runs, not the link's target)
lf() { mkdir -p $R/scripts/conf $R/tools $R/conf; printf '#!/bin/bash\ncat conf/settings.txt\n' > $R/scripts/run.sh; printf 'a=1\n' > $R/conf/settings.txt; printf 'unused=1\n' > $R/scripts/conf/settings.txt; ln -s ../scripts/run.sh $R/tools/run.sh
  lt 35lf 'bash tools/run.sh (-> ../scripts/run.sh: cat conf/settings.txt, read from the root); scripts/conf/settings.txt (never read)' "bash tools/run.sh" scripts/conf/settings.txt "printf 'unused=2\n' > \$R/scripts/conf/settings.txt"; }
# lg: versioned layout: scripts/current -> . ; docs edited
lg() { eval "$chk"; ln -s . $R/scripts/current
  lt 35lg 'python3 scripts/current/check.py (scripts/current -> .); docs/guide.md' "python3 scripts/current/check.py" docs/guide.md "printf '# guide v2\n' > \$R/docs/guide.md"; }
for c in ${ONLY:-la lb lc ld le lf lg}; do variant35 "$c" "$c"; done
rm -f $PWN
