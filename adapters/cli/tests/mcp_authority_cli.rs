//! `probity mcp --authority` (issue 10 §4) with an MCP client session over
//! the real binary's stdio (newline-delimited JSON-RPC 2.0, as an MCP stdio
//! client speaks it): initialize, list the tools, and drive a whole review
//! to approval — start, lens_context, lens_submit, finalize with the check
//! Probity runs, validate — each answer the command's `--json`, each
//! refusal a tool error carrying its error document.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};
use support::*;

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(cwd: &std::path::Path) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
        isolated(&mut cmd)
            .arg("--cwd")
            .arg(cwd)
            .args(["mcp", "--authority"])
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probity-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "probity", "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// Calls a tool: (is_error, the answer document).
    fn call(&mut self, name: &str, args: Value) -> (bool, Value) {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{r}");
        let text = result["content"][0]["text"].as_str().unwrap();
        (
            result["isError"] == json!(true),
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}")),
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_mcp_client_drives_a_review_to_approval() {
    let f = medium_change();
    let mut s = Session::start(f.root());
    let tools = s.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "start",
            "status",
            "lens_context",
            "lens_submit",
            "finalize",
            "validate"
        ]
    );

    let (err, started) = s.call("start", json!({}));
    assert!(!err, "{started}");
    // The same answer as the CLI's --json: a resumed start of the same
    // candidate answers the same lineage and revision.
    let cli = probity(f.root(), &["start"]);
    assert_eq!(cli.json["lineage_id"], started["lineage_id"]);
    assert_eq!(cli.json["store_revision"], started["store_revision"]);
    let lineage = started["lineage_id"].as_str().unwrap().to_string();

    let (err, ctx) = s.call(
        "lens_context",
        json!({"lineage": lineage, "lens": "reliability"}),
    );
    assert!(!err, "{ctx}");
    assert!(ctx["user"].as_str().unwrap().contains("+fn more() {}"));
    assert_eq!(ctx["schema"]["title"], "Probity reviewer result v1");
    let token = ctx["token"].as_str().unwrap().to_string();

    // A result that is not the schema: a tool error, nothing kept.
    let before = store_snapshot(&f);
    let (err, refused) = s.call(
        "lens_submit",
        json!({"lineage": lineage, "lens": "reliability", "binding": token, "result": {"findings": []}}),
    );
    assert!(err, "{refused}");
    assert_eq!(refused["error"]["code"], "malformed_input", "{refused}");
    assert_eq!(store_snapshot(&f), before);
    // A stale binding is refused too.
    let (err, stale) = s.call(
        "lens_submit",
        json!({"lineage": lineage, "lens": "reliability", "binding": "lbt1-00000000000000000000",
               "result": {"findings": [], "evidence": ["read the diff"]}}),
    );
    assert!(err);
    assert_eq!(stale["error"]["code"], "binding_mismatch", "{stale}");

    let (err, kept) = s.call(
        "lens_submit",
        json!({"lineage": lineage, "lens": "reliability", "binding": token,
               "result": {"findings": [], "evidence": ["read the frozen diff"]}}),
    );
    assert!(!err, "{kept}");
    let (err, validating) = s.call("finalize", json!({"lineage": lineage}));
    assert!(!err, "{validating}");
    assert_eq!(validating["action"], "provide_evidence");
    let (err, done) = s.call(
        "finalize",
        json!({"lineage": lineage, "evidence_cmd": ["grep", "-q", "fn more", "src/parser.rs"]}),
    );
    assert!(!err, "{done}");
    assert_eq!(done["state"], "approved", "{done}");
    assert!(done["receipt_path"].is_string());

    let (err, allow) = s.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{allow}");
    assert_eq!(allow["decision"], "allow", "{allow}");
    let (_, status) = s.call("status", json!({"lineage": lineage}));
    assert_eq!(status["state"], "approved", "{status}");

    // A gate's denial is an answer, not an error.
    f.write(
        "src/parser.rs",
        "// the parser\nfn parse() {}\nfn more() {}\n",
    )
    .unwrap();
    let (err, deny) = s.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{deny}");
    assert_eq!(deny["decision"], "deny");
    assert_eq!(deny["reason_code"], "receipt_scope_changed");

    // Arguments outside the schema, and an unknown tool.
    let (err, bad) = s.call("validate", json!({"gate": 7}));
    assert!(err, "{bad}");
    assert_eq!(bad["error"]["code"], "usage");
    let unknown = s.request("tools/call", json!({"name": "rm", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

/// An argument name a tool's input schema does not declare (a typo, or
/// `lineage_id` as the answers spell it) is a usage error naming it, and
/// nothing is done: without the check, the tool acted on the default
/// lineage instead of the one the caller meant.
#[test]
fn an_argument_the_schema_does_not_declare_is_refused_and_changes_nothing() {
    let f = medium_change();
    let mut s = Session::start(f.root());
    let (err, started) = s.call("start", json!({}));
    assert!(!err, "{started}");
    let lens = started["selected_lenses"][0].as_str().unwrap().to_string();
    let before = store_snapshot(&f);
    for (tool, args) in [
        ("finalize", json!({"lineage_id": "review-0000000000000000"})),
        (
            "lens_submit",
            json!({"lineage_id": "review-0000000000000000", "lens": lens, "result": CLEAN_RESULT}),
        ),
        ("status", json!({"lineag": "review-0000000000000000"})),
        ("start", json!({"focuss": "risk"})),
        ("validate", json!({"gate": "pre-commit", "stagged": true})),
    ] {
        let (err, refused) = s.call(tool, args.clone());
        assert!(err, "{tool} {args}: {refused}");
        assert_eq!(refused["error"]["code"], "usage", "{tool}: {refused}");
        let name = args
            .as_object()
            .unwrap()
            .keys()
            .find(|k| !["lens", "result", "gate"].contains(&k.as_str()))
            .unwrap();
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{name}`")), "{tool}: {message}");
        assert_eq!(store_snapshot(&f), before, "{tool} changed the store");
    }
    // Arguments that are not an object at all.
    let r = s.request("tools/call", json!({"name": "status", "arguments": [1]}));
    let refused = &r["result"];
    assert!(
        refused["isError"] == json!(true) || r["error"]["code"] == json!(-32602),
        "{r}"
    );
    assert_eq!(store_snapshot(&f), before);
}
