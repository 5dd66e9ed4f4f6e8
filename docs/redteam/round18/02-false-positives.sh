#!/usr/bin/env bash
# False positives of v11's following: an ordinary repository whose
# maintainer-approved folder-open task is a plain 'make' or 'npm run
# dev'. An ordinary source edit (src/parser.rs, src/App.tsx) should stay
# medium and land with the agent's signature alone.
RT18=${RT18:-$(cd "$(dirname "$0")" && pwd)}
source "$RT18/common.sh"
setup() { eval "$1"; task_json "$2" "${3:-}"; base_with "base (task: $2)" >/dev/null; }
# a: a realistic Makefile
fa() { cat > $R/Makefile <<'MK'
PREFIX ?= /usr/local
BUILD := target/release
.PHONY: all test install
all:
	cargo build --release
test:
	cargo test --workspace
install: all
	install -m755 $(BUILD)/parser $(DESTDIR)$(PREFIX)/bin/parser
MK
  setup : make
  printf '// parser 2\nfn parse() {}\n' > $R/src/parser.rs
  agent_step "02a task 'make' (ordinary Makefile), agent edits src/parser.rs"; }
# b: a realistic package.json
fb() { mkdir -p $R/web/src; printf 'export default 1\n' > $R/web/src/App.tsx
  cat > $R/package.json <<'PJ'
{"name":"web","private":true,"type":"module","scripts":{"dev":"vite --host","build":"tsc -b && vite build","lint":"eslint ."},
 "dependencies":{"react":"^18.3.1","react-dom":"^18.3.1","@tanstack/react-query":"^5.0.0"},
 "devDependencies":{"@types/react":"^18.3.3","@vitejs/plugin-react":"^4.3.1","typescript":"^5.5.3","vite":"^5.4.1"}}
PJ
  setup : "npm run dev"
  printf 'export default 2\n' > $R/web/src/App.tsx
  agent_step "02b task 'npm run dev' (ordinary package.json), agent edits web/src/App.tsx"; }
# c: a package.json with N scoped dependencies (@scope/name: a path with '/'
# and no '.', so "a file to read"); over files_per_read (128) every change
# is high.
deps() { local n=$1 i; printf '{"name":"web","private":true,"scripts":{"dev":"vite"},"dependencies":{'; for i in $(seq 1 $n); do printf '"@acme/pkg-%s":"^1.0.0",' $i; done; printf '"vite":"^5.0.0"}}\n'; }
fc() { local n=$1; deps $n > $R/package.json
  setup : "npm run dev"
  printf '// parser 2\nfn parse() {}\n' > $R/src/parser.rs
  agent_step "02c($n) task 'npm run dev', package.json with $n scoped deps, agent edits src/parser.rs"; }
# d: the same with ordinary dependency names that are paths: git URLs
fd() { printf '{"name":"web","scripts":{"dev":"vite"},"dependencies":{' > $R/package.json
  for i in $(seq 1 130); do printf '"lib%s":"github:acme/lib%s",' $i $i; done >> $R/package.json; printf '"vite":"^5"}}\n' >> $R/package.json
  setup : "npm run dev"
  printf '// parser 2\nfn parse() {}\n' > $R/src/parser.rs
  agent_step "02d task 'npm run dev', package.json with 130 github: deps, agent edits src/parser.rs"; }
for c in ${ONLY:-fa fb "fc 128" "fc 129" fd}; do variant18 "$c" "$c"; done
