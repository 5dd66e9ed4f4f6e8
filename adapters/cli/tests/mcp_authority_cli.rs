//! `probity mcp --authority` (issue 10 §4) with an MCP client session over
//! the real binary's stdio (newline-delimited JSON-RPC 2.0, as an MCP stdio
//! client speaks it): initialize, list the tools, and drive a whole review
//! to approval — start, lens_context, lens_submit, finalize with the check
//! Probity runs, validate — each answer the command's `--json`, each
//! refusal a tool error carrying its error document.

mod support;

use std::io::Write;

use serde_json::{Value, json};
use support::mcp::{Session, authority_command};
use support::*;

/// A `start` call whose line (without its newline) is `len` bytes: were it
/// read, a review would start.
fn start_call_of(len: usize) -> Vec<u8> {
    let tail = br#""}}}"#;
    let mut line =
        br#"{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"start","arguments":{"focus":""#
            .to_vec();
    line.resize(len - tail.len(), b'a');
    line.extend_from_slice(tail);
    assert_eq!(line.len(), len);
    line
}

/// The bound `probity mcp` reads a message under: 4 MiB.
const BOUND: usize = 4 * 1024 * 1024;

#[test]
fn an_mcp_client_drives_a_review_to_approval() {
    let f = medium_change();
    let mut s = Session::start_running_checks(f.root());
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
    let lineage = string_at(&started, "lineage_id");

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

/// Every bad frame `probity mcp --authority` reads is answered with a
/// JSON-RPC error, and the session goes on to answer what comes next:
/// a line that is not JSON (-32700), JSON that is not a request object
/// (-32600), a message over the 4 MiB bound (-32600, its `tools/call` never
/// run), and a `tools/call` whose `params` are not its shape (-32602, with
/// its id). None of them changes the store.
#[test]
fn bad_frames_get_json_rpc_errors_and_the_session_goes_on() {
    let f = medium_change();
    let mut s = Session::start(f.root());
    let before = store_snapshot(&f);

    assert_eq!(probity_mcp::frame::MAX_FRAME_BYTES, BOUND);
    let oversized = start_call_of(BOUND + 1);

    let not_an_object = [
        &b"42"[..],
        b"\"tools/list\"",
        b"[1,2]",
        b"[]",
        b"null",
        b"true",
    ];
    let mut cases: Vec<(&[u8], i64, Value)> = vec![
        (b"this is not json", -32700, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call""#,
            -32700,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"st\xffart\"}",
            -32700,
            Value::Null,
        ),
    ];
    cases.extend(not_an_object.iter().map(|f| (*f, -32600, Value::Null)));
    cases.push((&oversized, -32600, Value::Null));
    cases.push((
        br#"{"jsonrpc":"2.0","id":"params-array","method":"tools/call","params":[1]}"#,
        -32602,
        json!("params-array"),
    ));
    cases.push((
        br#"{"jsonrpc":"2.0","id":"arguments-string","method":"tools/call","params":{"name":"start","arguments":"x"}}"#,
        -32602,
        json!("arguments-string"),
    ));
    for (frame, code, id) in cases {
        let shown = String::from_utf8_lossy(&frame[..frame.len().min(80)]).into_owned();
        let (error, pong) = s.bad_frame(frame);
        assert_eq!(error["jsonrpc"], "2.0", "{shown}: {error}");
        assert_eq!(error["error"]["code"], code, "{shown}: {error}");
        assert_eq!(error["id"], id, "{shown}: {error}");
        assert!(error["error"]["message"].is_string(), "{shown}: {error}");
        assert!(error.get("result").is_none(), "{shown}: {error}");
        assert_eq!(
            pong["result"],
            json!({}),
            "{shown}: the session went on: {pong}"
        );
    }
    assert_eq!(store_snapshot(&f), before, "a bad frame changed the store");

    // After all of them, a tool call is served as usual.
    let (err, started) = s.call("start", json!({}));
    assert!(!err, "{started}");
    assert!(started["lineage_id"].is_string(), "{started}");
}

/// The bound holds for a last frame the client ends its stream without a
/// newline after: it is answered -32600 before the session ends (it went
/// unanswered), and nothing is run.
#[test]
fn an_oversized_last_frame_without_a_newline_is_answered_before_the_session_ends() {
    let f = medium_change();
    let before = store_snapshot(&f);
    let mut child = authority_command(f.root()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probity-test", "version": "0"}}});
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    writeln!(stdin, "{init}\n{note}").unwrap();
    stdin.write_all(&start_call_of(BOUND + 1)).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == 1 && a["result"].is_object())
    );
    let refused = answers.iter().find(|a| a["id"] != 1).unwrap();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    assert_eq!(store_snapshot(&f), before);
}

/// Every argument is checked against its declared schema before anything
/// runs (issue 23 §2): a `gate` outside its enum (`pre-receive`, whose form
/// would read the server's own stdin and swallow the requests behind it),
/// a value of the wrong type or under its minimum is a usage error, the
/// store is unchanged, and the next request is answered.
#[test]
fn an_argument_outside_its_declared_schema_is_refused_before_anything_runs() {
    let f = medium_change();
    let mut s = Session::start_running_checks(f.root());
    let before = store_snapshot(&f);
    for (tool, args, named) in [
        ("validate", json!({"gate": "pre-receive"}), "gate"),
        (
            "validate",
            json!({"gate": "pre-commit", "staged": "yes"}),
            "staged",
        ),
        ("start", json!({"focus": "everything"}), "focus"),
        (
            "finalize",
            json!({"correction_lines": 0}),
            "correction_lines",
        ),
        ("finalize", json!({"evidence_cmd": []}), "evidence_cmd"),
        (
            "finalize",
            json!({"evidence_cmd": ["true", 1]}),
            "evidence_cmd[1]",
        ),
        (
            "finalize",
            json!({"bindings": {"risk": 7}}),
            "bindings.risk",
        ),
    ] {
        let (err, refused) = s.call(tool, args.clone());
        assert!(err, "{tool} {args}: {refused}");
        assert_eq!(refused["error"]["code"], "usage", "{tool}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{named}`")), "{tool}: {message}");
        assert_eq!(store_snapshot(&f), before, "{tool} changed the store");
    }
    // The session still answers.
    let pong = s.request("ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
}

/// Starts a review of the live medium change over `s` and keeps its one
/// lens's clean result: the lineage, whose finalize asks for evidence.
fn lens_result_kept(s: &mut Session) -> String {
    let (_, started) = s.call("start", json!({}));
    let lineage = string_at(&started, "lineage_id");
    let (_, ctx) = s.call(
        "lens_context",
        json!({"lineage": lineage, "lens": "reliability"}),
    );
    let token = ctx["token"].as_str().unwrap().to_string();
    let (err, kept) = s.call(
        "lens_submit",
        json!({"lineage": lineage, "lens": "reliability", "binding": token,
               "result": {"findings": [], "evidence": ["read the frozen diff"]}}),
    );
    assert!(!err, "{kept}");
    lineage
}

/// No tool reads the server's own stdin (issue 23 §2): the one child a
/// tool starts that could (the `evidence_cmd` check) gets an empty stdin,
/// so `cat` ends at once instead of swallowing the JSON-RPC requests the
/// client sends behind the call, and the session goes on.
#[test]
fn no_tool_reads_the_server_s_stdin() {
    let f = medium_change();
    let mut s = Session::start_running_checks(f.root());
    let lineage = lens_result_kept(&mut s);
    // `cat` that inherited the server's stdin would wait for its end (the
    // client keeps it open) and be killed at the timeout: a failed check.
    let (err, done) = s.call(
        "finalize",
        json!({"lineage": lineage, "evidence_cmd": ["cat"], "evidence_timeout": 20}),
    );
    assert!(!err, "{done}");
    assert_eq!(done["state"], "approved", "{done}");
    let pong = s.request("ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
}

/// `mcp --authority` keeps no event log and reads no configuration (issue
/// 23 §7): beside `--log-file` or `--config` it is a usage error naming
/// the flag, nothing is written (the log file is not made), and `--help`
/// says so at each flag.
#[test]
fn authority_with_a_log_file_is_refused_clearly_and_help_says_so() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("mcp.log");
    let log_s = log.display().to_string();
    let config = support::input(tmp.path(), "c.json", "{}");
    for (flag, value) in [
        ("--log-file", log_s.as_str()),
        ("--config", config.as_str()),
    ] {
        let r = probity(f.root(), &["mcp", "--authority", flag, value]);
        assert_eq!(r.code, 2, "{flag}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], "usage", "{flag}");
        let message = r.error_message();
        assert!(
            message.contains("--authority") && message.contains(flag),
            "{flag}: {message}"
        );
    }
    assert!(!log.exists(), "no log file is made");
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
        .args(["mcp", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let section = |flag: &str| {
        // The flag's own line and its continuation lines, up to the next
        // flag.
        let mut lines = help
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(&format!("{flag} ")));
        let mut text = lines
            .next()
            .unwrap_or_else(|| panic!("{flag}: {help}"))
            .to_string();
        // A continuation line is indented past the flags' column.
        let indent = |l: &str| l.len() - l.trim_start().len();
        for l in lines.take_while(|l| !l.trim().is_empty() && indent(l) > 8) {
            text.push(' ');
            text.push_str(l.trim());
        }
        text
    };
    for flag in ["--log-file", "--config"] {
        assert!(
            section(flag).contains("not with --authority"),
            "{flag}'s help: {}",
            section(flag)
        );
    }
    assert!(
        section("--authority").contains("--log-file"),
        "--authority's help: {}",
        section("--authority")
    );
}

/// A server started without `--allow-evidence-cmd` runs no command
/// (D-R123): `finalize` declares no `evidence_cmd`; one given is refused by
/// name before anything runs (its argv would have made a file) and the
/// store is unchanged; the answer that asks for the check names
/// `evidence`, and the check's output given there approves.
#[test]
fn by_default_the_server_runs_no_command_and_takes_the_checks_output() {
    let f = medium_change();
    let mut s = Session::start(f.root());
    let tools = s.request("tools/list", json!({}));
    let finalize = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "finalize")
        .unwrap()
        .clone();
    let declared = finalize["inputSchema"]["properties"].as_object().unwrap();
    assert!(declared.contains_key("evidence"), "{finalize}");
    assert!(!declared.contains_key("evidence_cmd"), "{finalize}");
    assert!(!declared.contains_key("evidence_timeout"), "{finalize}");

    let lineage = lens_result_kept(&mut s);
    let (err, validating) = s.call("finalize", json!({"lineage": lineage}));
    assert!(!err, "{validating}");
    assert_eq!(validating["action"], "provide_evidence", "{validating}");
    let asked: Vec<&str> = validating["next_tool"]["fill"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["argument"].as_str().unwrap())
        .collect();
    assert_eq!(asked, ["evidence"], "{validating}");

    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("ran");
    let before = store_snapshot(&f);
    let (err, refused) = s.call(
        "finalize",
        json!({"lineage": lineage, "evidence_cmd": ["touch", ran.to_str().unwrap()]}),
    );
    assert!(err, "{refused}");
    let e = &refused["error"];
    assert_eq!(e["code"], "evidence_cmd_not_served", "{refused}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("--allow-evidence-cmd"),
        "{refused}"
    );
    assert_eq!(e["next_tool"]["name"], "finalize", "{refused}");
    assert_eq!(
        e["next_tool"]["arguments"]["lineage"],
        lineage.as_str(),
        "{refused}"
    );
    assert_eq!(
        e["next_tool"]["fill"][0]["argument"], "evidence",
        "{refused}"
    );
    assert!(!ran.exists(), "the refused argv ran");
    assert_eq!(store_snapshot(&f), before, "the refusal changed the store");

    let (err, done) = s.call(
        "finalize",
        json!({"lineage": lineage, "evidence": "grep -q 'fn more' src/parser.rs: found"}),
    );
    assert!(!err, "{done}");
    assert_eq!(done["state"], "approved", "{done}");
}

/// `--allow-evidence-cmd` is a flag of the lifecycle server only: beside
/// the reviewer tools' `--subject` it is a usage error naming both.
#[test]
fn allow_evidence_cmd_is_refused_beside_the_reviewer_tools() {
    let f = medium_change();
    let r = probity(
        f.root(),
        &["mcp", "--subject", "worktree", "--allow-evidence-cmd"],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let said = format!("{}{}", r.stdout, r.stderr);
    assert!(
        said.contains("--subject") && said.contains("--allow-evidence-cmd"),
        "{said}"
    );
}
