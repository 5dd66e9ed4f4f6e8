#!/usr/bin/env bash
# Risk policy v11 (D-R170, core/src/review/risk/follow.rs): a maintainer
# (agent + alice) approves a folder-open task and what it runs; then the
# agent alone edits a file the task runs indirectly, in a way v11 does
# not follow. Each case: the base (task + files) lands signed agent +
# alice; the agent's edit is rated, approved, signed by the agent alone,
# pushed past the client's gates. LANDED + medium = the agent alone
# changed what a folder-open task runs.
RT17=${RT17:-$(cd "$(dirname "$0")" && pwd)}
source "$RT17/common.sh"
PAY='touch /tmp/r17-pwned'
setup() { # SETUP-BODY TASK-CMD [CWD]
  eval "$1"; task_json "$2" "${3:-}"; base_with "base (task: $2${3:+ cwd $3})" >/dev/null
}
hit() { # LABEL EDIT-BODY TASK-CMD [nocheck]
  eval "$2"; agent_step "$1"
  [ "${4:-}" = nocheck ] || runs_in_checkout "$3" /tmp/r17-pwned
}
# a: make -f with the file glued to the option
ca() { mkdir -p $R/tools; printf 'all:\n\t@echo build\n' > $R/tools/build.mk
  setup : "make -ftools/build.mk"
  hit "02a make -ftools/build.mk, agent edits tools/build.mk" "printf 'all:\n\t@$PAY\n' > $R/tools/build.mk" "make -ftools/build.mk"; }
# b: make -C glued
cb() { mkdir -p $R/tools; printf 'all:\n\t@echo build\n' > $R/tools/Makefile
  setup : "make -Ctools"
  hit "02b make -Ctools, agent edits tools/Makefile" "printf 'all:\n\t@$PAY\n' > $R/tools/Makefile" "make -Ctools"; }
# c: cd in the task's own command (json words carry no cds)
cc() { mkdir -p $R/tools; printf 'echo gen\n' > $R/tools/gen.sh
  setup : "cd tools && sh gen.sh"
  hit "02c task 'cd tools && sh gen.sh', agent edits tools/gen.sh" "printf '$PAY\n' > $R/tools/gen.sh" "cd tools && sh gen.sh"; }
# d: a script sources through a variable directory
cd_() { mkdir -p $R/tools; printf 'D=tools\n. "${D}/env.sh"\n' > $R/tools/a.sh; printf 'echo env\n' > $R/tools/env.sh
  setup : "sh tools/a.sh"
  hit "02d a.sh sources \${D}/env.sh, agent edits tools/env.sh" "printf '$PAY\n' > $R/tools/env.sh" "sh tools/a.sh"; }
# e: a script without #! run by bash with an option before it, which runs a payload script
ce() { mkdir -p $R/tools; printf 'sh tools/step.sh\n' > $R/tools/run; printf 'echo step\n' > $R/tools/step.sh
  setup : "bash -e tools/run"
  hit "02e bash -e tools/run (no #!) runs tools/step.sh, agent edits step.sh" "printf '$PAY\n' > $R/tools/step.sh" "bash -e tools/run"; }
# f: a chain five scripts deep (reads = 3)
cf() { mkdir -p $R/t; for i in 1 2 3 4; do printf "sh t/$((i+1)).sh\n" > $R/t/$i.sh; done; printf 'echo 5\n' > $R/t/5.sh
  setup : "sh t/1.sh"
  hit "02f chain t/1.sh -> ... -> t/5.sh, agent edits t/5.sh" "printf '$PAY\n' > $R/t/5.sh" "sh t/1.sh"; }
# g: Makefile include through a variable
cg() { mkdir -p $R/tools; printf 'D := tools\ninclude $(D)/rules.mk\n' > $R/Makefile; printf 'all:\n\t@echo rules\n' > $R/tools/rules.mk
  setup : "make"
  hit "02g Makefile 'include \$(D)/rules.mk', agent edits tools/rules.mk" "printf 'all:\n\t@$PAY\n' > $R/tools/rules.mk" "make"; }
# h: npm workspace
ch() { mkdir -p $R/packages/a; printf '{"name":"root","private":true,"workspaces":["packages/*"]}\n' > $R/package.json
  printf '{"name":"a","scripts":{"dev":"echo dev"}}\n' > $R/packages/a/package.json
  setup : "npm run dev -w packages/a"
  hit "02h npm run dev -w packages/a, agent edits packages/a/package.json" "printf '{\"name\":\"a\",\"scripts\":{\"dev\":\"$PAY\"}}\n' > $R/packages/a/package.json" "npm run dev -w packages/a"; }
# i: other tools' default files (not executed here: tools absent)
ci() { printf 'version: "3"\ntasks:\n  default:\n    cmds: [echo hi]\n' > $R/Taskfile.yml
  setup : "task"
  hit "02i task -> Taskfile.yml, agent edits it" "printf 'version: \"3\"\ntasks:\n  default:\n    cmds: [\"$PAY\"]\n' > $R/Taskfile.yml" task nocheck; }
cj() { printf 'task :default do\n  puts 1\nend\n' > $R/Rakefile
  setup : "rake"
  hit "02j rake -> Rakefile, agent edits it" "printf 'task :default do\n  File.write(\"/tmp/r17-pwned\", \"\")\nend\n' > $R/Rakefile" rake nocheck; }
ck() { printf '[tox]\nenvlist = py\n[testenv]\ncommands = python -c "print(1)"\n' > $R/tox.ini
  setup : "tox"
  hit "02k tox -> tox.ini, agent edits it" "printf '[tox]\nenvlist = py\n[testenv]\nallowlist_externals = touch\ncommands = $PAY\n' > $R/tox.ini" tox nocheck; }
cl() { printf '{"tasks":{"dev":"echo dev"}}\n' > $R/deno.json
  setup : "deno task dev"
  hit "02l deno task dev -> deno.json, agent edits it" "printf '{\"tasks\":{\"dev\":\"$PAY\"}}\n' > $R/deno.json" "deno task dev" nocheck; }
cm() { printf 'fn main() { println!("hi"); }\n' > $R/src/main.rs; printf '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n' > $R/Cargo.toml
  setup : "cargo run"
  hit "02m cargo run -> src/main.rs, agent edits it" "printf 'fn main() { std::fs::write(\"/tmp/r17-pwned\", \"\").ok(); }\n' > $R/src/main.rs" "cargo run" nocheck; }
cn() { printf 'package main\nfunc main() {}\n' > $R/main.go; printf 'module x\ngo 1.21\n' > $R/go.mod
  setup : "go run ."
  hit "02n go run . -> main.go, agent edits it" "printf 'package main\nimport \"os\"\nfunc main() { os.WriteFile(\"/tmp/r17-pwned\", nil, 0644) }\n' > $R/main.go" "go run ." nocheck; }
co() { printf 'def test_x():\n    pass\n' > $R/test_x.py; printf '# conftest\n' > $R/conftest.py
  setup : "python3 -m pytest -q"
  hit "02o python3 -m pytest -> conftest.py, agent edits it" "printf 'open(\"/tmp/r17-pwned\", \"w\").close()\n' > $R/conftest.py" "python3 -m pytest -q -p no:cacheprovider"; }
# p: the per-step bound: a script naming 200 scripts. Exceeding the
# bound should name every changed file (an ordinary edit becomes high).
cp_() { mkdir -p $R/t; for i in $(seq 1 200); do echo "sh t/s$i.sh"; done > $R/t/all.sh
  setup : "sh t/all.sh"
  printf '// parser 2\nfn parse() {}\n' > $R/src/parser.rs
  echo "    02p ordinary edit of src/parser.rs with a task naming 200 scripts: $(risk_of_live)"
  g checkout -q -- src/parser.rs
  printf '$PAY\n' > $R/t/s150.sh
  echo "    02p a new t/s150.sh (named by the task): $(risk_of_live)"; }
[ -n "${ONLY:-}" ] || for c in ca cb cc cd_ ce cf cg ch ci cj ck cl cm cn co cp_; do variant17 "$c" "$c"; done
rm -f /tmp/r17-pwned

# c2..f2: as c..f, with the payload a file no extension rule makes high
# (.sh is always high: shell_source).
cc2() { mkdir -p $R/tools; printf 'print("gen")\n' > $R/tools/gen.py
  setup : "cd tools && python3 gen.py"
  hit "02c2 task 'cd tools && python3 gen.py', agent edits tools/gen.py" "printf 'open(\"/tmp/r17-pwned\",\"w\").close()\n' > $R/tools/gen.py" "cd tools && python3 gen.py"; }
cd2() { mkdir -p $R/tools; printf 'D=tools\n. "${D}/env"\n' > $R/tools/a.sh; printf 'echo env\n' > $R/tools/env
  setup : "sh tools/a.sh"
  hit "02d2 a.sh sources \${D}/env, agent edits tools/env" "printf '$PAY\n' > $R/tools/env" "sh tools/a.sh"; }
ce2() { mkdir -p $R/tools; printf 'python3 tools/step.py\n' > $R/tools/run; printf 'print(1)\n' > $R/tools/step.py
  setup : "bash -e tools/run"
  hit "02e2 bash -e tools/run (no #!) runs tools/step.py, agent edits step.py" "printf 'open(\"/tmp/r17-pwned\",\"w\").close()\n' > $R/tools/step.py" "bash -e tools/run"; }
cf2() { mkdir -p $R/t; for i in 1 2 3 4 5; do printf "#!/bin/sh\n./t/$((i+1))\n" > $R/t/$i; chmod +x $R/t/$i; done; printf '#!/bin/sh\necho 6\n' > $R/t/6; chmod +x $R/t/6
  setup : "./t/1"
  echo "    02f2 probe: editing t/4: $(printf '#!/bin/sh\n./t/5 \n' > $R/t/4; risk_of_live)"; g checkout -q -- t/4
  echo "    02f2 probe: editing t/5: $(printf '#!/bin/sh\n./t/6 \n' > $R/t/5; risk_of_live)"; g checkout -q -- t/5
  hit "02f2 chain ./t/1 -> ./t/2 -> ... -> ./t/6 (#! scripts), agent edits t/6" "printf '#!/bin/sh\n$PAY\n' > $R/t/6" "./t/1"; }
cq() { printf 'import os\n' > $R/tasks.py
  setup : "invoke build"
  hit "02q invoke -> tasks.py, agent edits it" "printf 'open(\"/tmp/r17-pwned\",\"w\").close()\n' > $R/tasks.py" "invoke build" nocheck; }
for c in cc2 cd2 ce2 cf2 cq; do variant17 "$c" "$c"; done
rm -f /tmp/r17-pwned
