//! An MCP session over a byte stream, in process: initialize, tools/list,
//! then tools/call until the budget ends. The server reads a real git
//! repository in a temporary directory; the client side speaks raw
//! newline-delimited JSON-RPC, as an MCP stdio client does.

mod common;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use common::{frame, session};
use probity_core::snapshot_tools::BudgetLimits;
use probity_git::GitCli;
use probity_git::subject::{Subject, SubjectSpec};
use probity_mcp::{SnapshotServer, serve_on};
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs git hermetically (the testkit's environment).
fn git(dir: &Path, args: &[&str]) {
    probity_testkit::git_env::git(dir, args).unwrap_or_else(|e| panic!("{e}"));
}

/// A new repository whose one commit holds `files` (path, content), and
/// the index snapshot of it.
fn committed(files: &[(&str, &str)]) -> (tempfile::TempDir, Subject) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q", "-b", "main"]);
    for (path, content) in files {
        std::fs::write(root.join(path), content).unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    let subject = Subject::open(&SubjectSpec::Index, GitCli::default(), root).unwrap();
    (tmp, subject)
}

#[test]
fn an_mcp_session_lists_the_tools_and_calls_until_the_budget_ends() {
    let (tmp, subject) = committed(&[("a.md", "alpha\n"), ("b.rs", "fn beta() {}\n")]);
    std::fs::write(tmp.path().join("untracked.txt"), "u\n").unwrap();

    let log = SharedLog::default();
    let server = SnapshotServer::new(
        subject,
        BudgetLimits {
            max_calls: 4,
            max_bytes: 200_000,
            result_cap: 80 * 1024,
        },
        Box::new(log.clone()),
    );
    let footer_view = server.clone();
    let calls = [
        ("read", json!({"path": "a.md"})),
        ("read", json!({"path": "untracked.txt"})),
        ("read", json!({"path": "../../etc/passwd"})),
        ("grep", json!({"pattern": "--beta|beta", "path": "-x"})),
        ("list", json!({})),
    ];
    let requests = std::iter::once(("tools/list", json!({})))
        .chain(
            calls
                .into_iter()
                .map(|(name, args)| ("tools/call", json!({"name": name, "arguments": args}))),
        )
        .zip(2u64..)
        .map(|((method, params), id)| {
            frame(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        })
        .collect();
    let transcript = session(move |read, write| serve_on(server, read, write), requests);
    // Each request has its own answer, in order.
    for (i, answer) in transcript.iter().enumerate() {
        assert_eq!(answer["id"], json!(i + 1), "{answer}");
    }

    let init = &transcript[0]["result"];
    assert_eq!(init["serverInfo"]["name"], "probity");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    let tools = transcript[1]["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read", "grep", "list"]);
    assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["path"]));

    let result = |i: usize| -> (String, bool) {
        let r = &transcript[i]["result"];
        assert!(transcript[i].get("error").is_none(), "{}", transcript[i]);
        (
            r["content"][0]["text"].as_str().unwrap().to_owned(),
            r["isError"].as_bool().unwrap_or(false),
        )
    };
    assert_eq!(result(2), ("alpha\n".to_owned(), false));
    let (text, is_error) = result(3);
    assert!(is_error);
    assert_eq!(
        text,
        "untracked.txt: not in the snapshot (untracked; only tracked files are in the snapshot)"
    );
    let (text, is_error) = result(4);
    assert!(
        is_error && text.contains("escapes the repository root"),
        "{text}"
    );
    let (text, is_error) = result(5);
    assert!(!is_error);
    assert!(text.contains("no matches"), "{text}");
    let (text, is_error) = result(6);
    assert!(is_error);
    assert_eq!(
        text,
        "budget exhausted: 4 calls / 6 bytes used; answer from what you have"
    );

    let log = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "review.snapshot.read",
            "review.snapshot.read",
            "review.snapshot.read",
            "review.snapshot.grep",
            "review.snapshot.exhausted",
            // S4.1: the call past the budget is logged too, refused.
            "review.snapshot.list",
            "review.snapshot.footer"
        ]
    );
    assert!(
        events[5]["refused"]
            .as_str()
            .unwrap()
            .starts_with("budget exhausted")
    );
    assert!(events[1]["refused"].as_str().unwrap().contains("untracked"));
    assert!(events[2]["refused"].as_str().unwrap().contains("escapes"));
    assert_eq!(events[3]["pattern"], "--beta|beta");
    assert_eq!(
        events[6]["footer"],
        "read 1 file (6 B) beyond the declared context: a.md; also 1 search (0 B); 3 tool calls failed or were refused"
    );
    assert_eq!(
        footer_view.footer().as_deref(),
        Some(
            "read 1 file (6 B) beyond the declared context: a.md; also 1 search (0 B); 3 tool calls failed or were refused"
        )
    );
}

/// Regression (issue 12): a 64 MiB request was dropped silently and the
/// client waited forever; a non-JSON line got no answer; a malformed
/// `tools/call` was answered -32601. Each now gets its JSON-RPC error, and
/// the session goes on.
#[test]
fn bad_frames_get_json_rpc_errors_and_the_session_goes_on() {
    let (_tmp, subject) = committed(&[("a.md", "alpha\n")]);
    let server = SnapshotServer::new(
        subject,
        BudgetLimits::default(),
        Box::new(SharedLog::default()),
    );
    // 64 MiB in one line.
    let mut huge =
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"x\":\"".to_vec();
    huge.resize(64 * 1024 * 1024, b'a');
    huge.extend_from_slice(b"\"}}\n");
    let malformed =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}});
    let unknown = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "write", "arguments": {}}});
    let good = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "a.md"}}});
    let answers = session(
        move |read, write| serve_on(server, read, write),
        vec![
            huge,
            b"this is not json\n".to_vec(),
            frame(&malformed),
            frame(&unknown),
            frame(&good),
        ],
    );
    let err = |i: usize| {
        (
            answers[i]["error"]["code"].clone(),
            answers[i]["id"].clone(),
        )
    };
    assert_eq!(err(1), (json!(-32600), Value::Null), "{}", answers[1]);
    assert_eq!(err(2), (json!(-32700), Value::Null), "{}", answers[2]);
    assert_eq!(err(3), (json!(-32602), json!(3)), "{}", answers[3]);
    assert_eq!(err(4), (json!(-32602), json!(4)), "{}", answers[4]);
    assert!(
        answers[4]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `write`"),
        "{}",
        answers[4]
    );
    assert_eq!(answers[5]["id"], 5);
    assert_eq!(answers[5]["result"]["content"][0]["text"], "alpha\n");
}
