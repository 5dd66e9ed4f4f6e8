#!/usr/bin/env bash
# v12's inert JSON keys: a value under `label`, `name`, `source`, ... names
# a file only (nothing below it). Can a task run a directory's files
# while its name sits under such a key?
RT19=${RT19:-$(cd "$(dirname "$0")" && pwd)}
source "$RT19/common.sh"
hooks() { mkdir -p $R/tools/hooks; printf '#!/bin/sh\necho a\n' > $R/tools/hooks/a; chmod +x $R/tools/hooks/a; }
# a: JSONC comment between the key "command" and its colon: the key is not seen, the value is the label's
ca() { hooks
  task_raw '{"version":"2.0.0","tasks":[{"label":"hooks","type":"shell","command" /* every hook */ : "run-parts tools/hooks","runOptions":{"runOn":"folderOpen"}}]}'
  setup : ""
  hit "02a \"command\" /* */ : \"run-parts tools/hooks\", agent edits tools/hooks/a" "printf '#!/bin/sh\n$PAY\n' > $R/tools/hooks/a" "run-parts tools/hooks"; }
# b: the directory in options.env under a lower-case variable named like an inert key
cb() { hooks; task_env 'run-parts "$source"' '{"source":"tools/hooks"}'
  setup : ""
  hit "02b env {\"source\":\"tools/hooks\"}, command run-parts \"\$source\", agent edits tools/hooks/a" "printf '#!/bin/sh\n$PAY\n' > $R/tools/hooks/a" 'export source=tools/hooks; run-parts "$source"'; }
# b2: the same with "name"
cb2() { hooks; task_env 'run-parts "$name"' '{"name":"tools/hooks"}'
  setup : ""
  hit "02b2 env {\"name\":\"tools/hooks\"}, command run-parts \"\$name\", agent edits tools/hooks/a" "printf '#!/bin/sh\n$PAY\n' > $R/tools/hooks/a" 'export name=tools/hooks; run-parts "$name"'; }
# c (control): an upper-case variable
cc() { hooks; task_env 'run-parts "$HOOKS"' '{"HOOKS":"tools/hooks"}'
  setup : ""
  hit "02c control: env {\"HOOKS\":\"tools/hooks\"}, agent edits tools/hooks/a" "printf '#!/bin/sh\n$PAY\n' > $R/tools/hooks/a"; }
rm -f $PWN
for c in ${ONLY:-ca cb cb2 cc}; do variant19 "$c" "$c"; done
rm -f $PWN
