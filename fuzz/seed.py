#!/usr/bin/env python3
"""Writes each fuzz target's seed inputs into fuzz/seeds/<target>/ from the
golden snapshots (golden/tests/snapshots/*.snap), the conformance vectors
(conformance/*.jsonl), the example context inputs and a few hand-written
lines. `cargo fuzz cmin` then minimises them into fuzz/corpus/<target>/
(what is committed; see docs/reliability.md)."""
import base64, hashlib, json, os, pathlib, re, shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "seeds"
SNAPS = ROOT / "golden" / "tests" / "snapshots"


def snap(name):
    text = (SNAPS / name).read_text()
    # insta header: ---\n...\n---\n then the body.
    return text.split("\n---\n", 1)[1]


def put(target, items):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    for item in items:
        b = item if isinstance(item, bytes) else item.encode()
        (d / hashlib.sha1(b).hexdigest()).write_bytes(b)


shutil.rmtree(OUT, ignore_errors=True)
all_json = []
for p in sorted(SNAPS.glob("*.snap")):
    body = snap(p.name).strip("\n")
    if body.startswith("{") or body.startswith("["):
        all_json.append(body)

vectors = [json.loads(l) for f in ("vectors-v1.jsonl", "refusals-v1.jsonl")
           for l in (ROOT / "conformance" / f).read_text().split("\n") if l.strip()]
jcs = []
for v in vectors:
    if "input_text" in v:
        jcs.append(v["input_text"])
    if "input" in v:
        jcs.append(json.dumps(v["input"], ensure_ascii=False))
    if "canonical_hex" in v:
        jcs.append(bytes.fromhex(v["canonical_hex"]))
put("jcs", jcs + all_json)

zero = "0" * 40
a, b = "a" * 40, "b" * 40
s256 = "c" * 64
put("hook_input", [
    f"refs/heads/main {a} refs/heads/main {b}\n",
    f"refs/heads/topic {a} refs/heads/topic {zero}\nrefs/tags/v1 {b} refs/tags/v1 {zero}\n",
    f"(delete) {zero} refs/heads/old {a}\n",
    f"HEAD^{{/fix the}} {a} refs/heads/main {b}\r\n\n",
    f"{b} {a} refs/heads/main\n{zero} {a} refs/notes/probity\n",
    f"{s256} {'0' * 64} refs/heads/main\n",
])

bundle = snap("review__bundle_approved.snap").strip("\n")
put("bundle", [bundle, bundle + "\n"])
put("note", [bundle + "\n", "x\n" + bundle + "\n"])

dsse = snap("dsse__dsse_envelope.snap").strip("\n")
sig_armor = (ROOT / "fuzz" / "fuzz_targets" / "allowed_signers.rs").read_text()
sig_armor = re.search(r"-----BEGIN SSH SIGNATURE-----.*?-----END SSH SIGNATURE-----\n", sig_armor, re.S).group(0)
blob = base64.b64decode("".join(sig_armor.splitlines()[1:-1]))
env = json.loads(dsse)
real = dict(env, signatures=[{"sig": base64.b64encode(blob).decode()}])
put("dsse_envelope", [dsse, json.dumps(real), json.dumps(dict(real, extra=1, signatures=[{"keyid": "", "sig": real["signatures"][0]["sig"]}]))])
put("sshsig", [sig_armor, blob] + [base64.b64decode(s["sig"]) for s in env["signatures"]])

put("allowed_signers", [
    "alice@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICVFq2NBfXSGPYnIZSC0pw6F3iSepILwKmrCT2XNIlSy\n",
    '# a comment\n*@example.org,bob namespaces="probity",valid-after="20240101" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICVFq2NBfXSGPYnIZSC0pw6F3iSepILwKmrCT2XNIlSy\n',
    'ca@example.org cert-authority ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICVFq2NBfXSGPYnIZSC0pw6F3iSepILwKmrCT2XNIlSy\n',
])

put("role_documents", [
    '{"findings":[],"evidence":["read the diff"]}',
    '{"findings":[{"location":"src/a.rs:2","severity":"BLOCKER","claim":"wrong","proof_refs":["t fails"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran t"]}',
    '{"findings":[{"location":"src/a.rs:1","severity":"BLOCKER","claim":"maybe wrong","proof_refs":["a hunch"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["read the diff"]}',
    '{"original_criteria":{"passed":true,"evidence":["t passes"]},"correction_regression":{"passed":true,"evidence":["suite"]}}',
    '{"original_criteria":{"passed":false,"evidence":["t fails"]},"correction_regression":{"passed":true,"evidence":["suite"]}}',
    '{"outcomes":[{"finding_id":"R3-002","outcome":"refuted","evidence":["x"]}]}',
    '{"outcomes":[{"finding_id":"R3-001","outcome":"corroborated","evidence":["y"]},{"finding_id":"R1-001","outcome":"inconclusive","evidence":["z"]}]}',
])

ev2 = snap("review__command_evidence_v2.snap").strip("\n")
d = json.loads(ev2)
v1 = {k: v for k, v in d.items() if k != "tree"}
v1["schema"] = "probity-command-evidence/v1"
put("command_evidence", [ev2, json.dumps(v1), json.dumps(dict(v1, exit_code=0)),
                         json.dumps({k: v for k, v in dict(d, signal=9).items() if k != "exit_code"}),
                         "ok\n", "\ufeff" + ev2, ev2 + "\nlog line"])

put("policy", [
    '{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{"reviewer":["agent@example.org","ci@example.org"],"maintainer":["alice@example.org"]},"signatures":{"medium":["reviewer"],"high":["reviewer","maintainer"]},"authorize":["maintainer"],"high_risk":{"paths":["crypto/**"],"content":["AKIA"]}}',
    '{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers"}',
    '{"schema":"probity-policy/v1","high_risk":{"content":["AKIA"]}}',
])

put("context_input", [(ROOT / "examples" / "context" / f).read_bytes() for f in ("work-item.json", "change-proposal.json")])

trees = []
for name in ("context__work_item_tree.snap", "context__change_proposal_tree.snap"):
    body = snap(name).encode()
    files, pos = [], body.index(b"\n") + 1
    while pos < len(body):
        m = re.match(rb"=== (\S+) \((\d+) bytes, sha256 [0-9a-f]+\)\n", body[pos:])
        if not m:
            break
        start = pos + m.end()
        n = int(m.group(2))
        files.append(m.group(1) + b"\n" + body[start:start + n])
        pos = start + n + 1
    trees.append(b"\xff".join(files))
put("context_verify", trees)

init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
def calls(*pairs):
    return "".join(json.dumps({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": {"name": n, "arguments": a}}) + "\n"
                   for i, (n, a) in enumerate(pairs))
listing = '{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{}}\n'
put("mcp_snapshot_frames", [
    init + listing + calls(("read", {"path": "a.md"}), ("read", {"path": "../../etc/passwd"}), ("grep", {"pattern": "--beta|beta", "path": "-x"}), ("list", {})),
    init + '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":"x"}}\nnot json\n',
])
put("mcp_authority_frames", [
    init + listing + calls(("status", {"lineage": "review-1", "json": True}), ("status", {}), ("nope", {})),
    init + '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}\n',
])
# risk_content: a path byte (PATHS in the target), a configuration byte
# (0 tasks.json, 1 pre-commit, 2 .envrc, 3 none), the configuration, 0xFF,
# the file's content.
def risk(path, config, text, content):
    return bytes([path, config]) + text.encode() + b"\xff" + content.encode()
put("risk_content", [
    risk(0, 3, "", 'let c = std::r#process::r#Command::r#new("sh");'),
    risk(1, 0, '{"tasks":[{"label":"gen","command":"python","args":["tools/gen.py"],"runOptions":{"runOn":"folderOpen"}}]}', "print(1)\n"),
    risk(1, 1, "repos:\n- repo: local\n  hooks:\n  - id: g\n    entry: tools/gen.py\n    language: python\n", '__import__("sub" "process").run(["sh"])'),
    risk(4, 2, "source_env scripts/setup.sh\nPATH_add bin\nuse flake ./nix#dev\nexport PYTHONPATH=src\n", "echo hi\n"),
    risk(2, 3, "", "const m = /a/.exec(s); eval(code);"),
    risk(3, 3, "", "```sh\nrm -rf /\n```\n"),
    risk(9, 3, "", '[package]\nname = "x"\nbuild = "gen.rs"\n'),
    risk(11, 3, "", '{"scripts": {"post-install-cmd": "php x.php"}}'),
])
# risk_follow: a configuration byte (0 tasks.json, 1 pre-commit, 2
# .envrc), a changed-path byte, a cut-short byte, the command, then the
# texts of FILES in the target's order, each after 0xFF (the red team
# rounds' shapes: a listing, a find, an xargs, a variable, an import).
def follow(kind, change, command, *texts):
    return bytes([kind, change, 0]) + command.encode() + b"".join(b"\xff" + t.encode() for t in texts)
# risk_follow's FILES, in the target's order.
FOLLOW_FILES = ["tools/run", "tools/a.sh", "tools/hooks/h1", "lib/x.py", "pkg/__init__.py",
                "pkg/mod.py", "Makefile", "package.json", "tools/a.mk", "pytest.ini", ".npmrc",
                "tests/test_a.py", "tests/__init__.py", "pyproject.toml", "tests/check_a.py",
                "lib/a.test.js"]


def placed(kind, change, command, texts):
    """follow() with each text at its path among FOLLOW_FILES (empty before it)."""
    last = max(FOLLOW_FILES.index(p) for p in texts)
    return follow(kind, change, command, *(texts.get(p, "") for p in FOLLOW_FILES[:last + 1]))


put("risk_follow", [
    follow(0, 1, "run-parts tools/hooks", "", "", "python3 lib/x.py\n"),
    follow(0, 0, "bash tools/run", 'D=tools; for f in "$D"/*.sh; do sh "$f"; done\n', "echo a\n"),
    follow(1, 2, "find tools -name '*.sh' -exec sh {} \\;", "", "python3 -m pkg.mod\n"),
    follow(2, 3, "source_env tools/run\nPATH_add tools", "ls tools | xargs -n1 sh\n", "", "", "", "", "import os\n"),
    follow(0, 2, "make -C tools -f a.mk", "", "", "", "", "", "", "all:\n\tpython3 lib/x.py\n", "", "include tools/*.mk\n"),
    follow(0, 4, "npm run build", "", "", "", "", "", "", "", '{"scripts":{"build":"node tools/run"}}'),
    # Listings by name (D-R175): a root find, a discovery, the workspaces.
    follow(0, 2, "find . -name '*.sh' -exec sh {} \\;", "", "python3 lib/x.py\n"),
    follow(0, 3, "python3 -m unittest discover -p 'mod*.py'", "", "", "", "", "", "from lib import x\n"),
    follow(0, 2, "npm test --workspaces", "", "", "", "", "", "", "", '{"scripts":{"test":"sh tools/a.mk"}}', "python3 lib/x.py\n"),
    # pytest's configuration read for its keys, npm's .npmrc, a test and its package.
    follow(0, 3, "python3 -m pytest -q", "", "", "", "", "", "", "", "", "",
           "[pytest]\ntestpaths = tests\naddopts = -p pkg.mod --doctest-modules\npython_files = test_*.py\n",
           "", "from lib import x\n", "import pkg\n"),
    follow(0, 2, "npm run build", "", "", "", "", "", "", "", '{"scripts":{"build":"sh tools/a.mk"}}',
           "python3 lib/x.py\n", "", "workspaces=true\n"),
    # pytest's configuration parsed as pytest parses it (D-R176): TOML
    # with escapes and an inline table, INI with ` #` in a value, testpaths
    # that hold no test, options on the command line and in the
    # environment; node's test runner.
    placed(0, 1, "python3 -m pytest -q", {
        "pyproject.toml": '[tool]\npytest = { ini_options = { "python\\u005ffiles" = ["check_*.py"] } }\n',
        "tests/check_a.py": "import lib.x\n"}),
    placed(0, 1, "python3 -m pytest -q", {
        "pytest.ini": "[pytest]\ntestpaths = testing\npython_files = test_*.py #1 check_*.py\n",
        "tests/check_a.py": "import lib.x\n"}),
    placed(0, 1, "PYTEST_ADDOPTS='--rootdir=tests -p pkg.mod' python3 -m pytest -o python_files=check_*.py", {
        "tests/check_a.py": "import lib.x\n"}),
    placed(0, 1, "node --test", {"lib/a.test.js": "require('./x.py')\n"}),
])
print("seeds written to", OUT)
