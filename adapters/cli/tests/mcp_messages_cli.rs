//! Over MCP an answer's own sentences name the tools an agent can call
//! (issue 22 §5, D-R109): the `message` of a lifecycle answer (and of a
//! `--next-transition` status), and the `next_action` of a refusal a tool
//! leads on from, are the MCP rendering of the step (`next_tool`'s), not
//! the command line's `probity ...` words. A command is named only beside
//! the words that no MCP tool does the step. The command line keeps its
//! words.

mod support;

use serde_json::{Value, json};
use support::*;

/// `text` names no command line command, unless it says no MCP tool does
/// the step.
fn names_no_command(what: &str, text: &str, answer: &Value) {
    if text.contains("probity ") {
        assert!(
            text.contains("no MCP tool"),
            "{what} names a CLI command over MCP: {text}\n{answer}"
        );
    }
}

/// An answer's `message` is its `next_tool`'s sentence (the gate's with
/// its decision and reason first).
fn message_is_the_steps(answer: &Value) -> String {
    let message = answer["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message: {answer}"))
        .to_string();
    let step = answer["next_tool"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no next_tool: {answer}"));
    assert!(message.ends_with(step), "{answer}");
    names_no_command("message", &message, answer);
    message
}

#[test]
fn over_mcp_an_answers_message_names_the_tool_not_the_command() {
    let f = change();
    let mut mcp = mcp::Session::start(f.root());
    // The gate's denial: start, as a tool.
    let (err, gate) = mcp.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{gate}");
    assert_eq!(gate["decision"], "deny", "{gate}");
    let m = message_is_the_steps(&gate);
    assert!(m.starts_with("deny (receipt_missing): "), "{m}");
    assert!(m.contains("call `start`"), "{m}");
    // The command line says it with its commands.
    let cli = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    let cli_message = cli.json["message"].as_str().unwrap();
    assert!(cli_message.contains("`probity start`"), "{}", cli.stdout);
    // start: the first lens's context, as a tool.
    let (err, s) = mcp.call("start", json!({}));
    assert!(!err, "{s}");
    let m = message_is_the_steps(&s);
    assert!(m.contains("call `lens_context`"), "{m}");
    let l = s["lineage_id"].as_str().unwrap().to_string();
    // status, with its next transition's sentence too.
    let (err, st) = mcp.call("status", json!({"lineage": l, "next_transition": true}));
    assert!(!err, "{st}");
    let nt = st["next_transition"]["message"].as_str().unwrap();
    assert_eq!(nt, st["next_tool"]["message"].as_str().unwrap(), "{st}");
    assert!(nt.contains("call `lens_context`"), "{nt}");
    names_no_command("next_transition.message", nt, &st);
    // lens_context, lens_submit, finalize: each names the tool after it.
    let lens = s["selected_lenses"][0].clone();
    let (err, ctx) = mcp.call("lens_context", json!({"lineage": l, "lens": lens}));
    assert!(!err, "{ctx}");
    if let Some(m) = ctx.get("message").and_then(Value::as_str) {
        names_no_command("lens_context message", m, &ctx);
    }
    let mut args = ctx["next_tool"]["arguments"].clone();
    args["result"] = serde_json::from_str(CLEAN_RESULT).unwrap();
    let (err, sub) = mcp.call("lens_submit", args);
    assert!(!err, "{sub}");
    message_is_the_steps(&sub);
    let (err, fin) = mcp.call("finalize", json!({"lineage": l}));
    assert!(!err, "{fin}");
    let m = message_is_the_steps(&fin);
    assert!(m.contains("call `finalize`"), "{m}");
    // The command line's status of the same lineage keeps its commands.
    let cli = probity(f.root(), &["status", "--lineage", &l, "--next-transition"]);
    let cli_message = cli.json["next_transition"]["message"].as_str().unwrap();
    assert!(cli_message.contains("`probity finalize"), "{}", cli.stdout);
}

#[test]
fn over_mcp_a_refusals_next_action_names_the_tool() {
    let f = change();
    let (mut mcp, _, l) = mcp::Session::with_review(f.root());
    // Evidence while the lens results are awaited: the wrong stage.
    let (err, refused) = mcp.call(
        "finalize",
        json!({"lineage": l, "evidence": "cargo test: ok"}),
    );
    assert!(err, "{refused}");
    let e = &refused["error"];
    let next_action = e["next_action"].as_str().unwrap();
    assert_eq!(
        next_action,
        e["next_tool"]["message"].as_str().unwrap(),
        "{e}"
    );
    assert!(next_action.contains("call `status`"), "{e}");
    names_no_command("next_action", next_action, e);
    // The command line's refusal names its command.
    let cli = probity(
        f.root(),
        &["finalize", "--lineage", &l, "--evidence-cmd", "true"],
    );
    let cli_next = cli.json["error"]["next_action"].as_str().unwrap();
    assert!(cli_next.contains("probity "), "{}", cli.stdout);
}

#[test]
fn over_mcp_a_step_no_tool_does_names_the_command_beside_saying_so() {
    let f = change();
    let (mut mcp, s, l) = mcp::Session::with_review(f.root());
    let fin = mcp.finalize_escalated(&s, &l);
    let m = message_is_the_steps(&fin);
    assert!(m.contains("no MCP tool does this"), "{m}");
    assert!(m.contains("`probity recover"), "{m}");
}

#[test]
fn over_mcp_each_lineage_of_a_range_start_names_the_tool() {
    let f = change();
    let base = commit_all(&f, "base");
    std::fs::write(f.root().join("src/other.rs"), "fn o() {}\nfn p() {}\n").unwrap();
    commit_all(&f, "first");
    std::fs::write(f.root().join("src/other.rs"), "fn o() {}\nfn q() {}\n").unwrap();
    commit_all(&f, "second");
    let range = format!("{base}..HEAD");
    let mut mcp = mcp::Session::start(f.root());
    let (err, s) = mcp.call("start", json!({"range": range}));
    assert!(!err, "{s}");
    let lineages = s["lineages"].as_array().unwrap();
    assert_eq!(lineages.len(), 2, "{s}");
    for l in lineages {
        let m = l["message"].as_str().unwrap();
        assert!(m.contains("call `lens_context`"), "{m}");
        assert!(m.contains(l["lineage_id"].as_str().unwrap()), "{m}");
        names_no_command("a range lineage's message", m, &s);
    }
    // The command line's answer for the same range keeps its commands.
    let cli = probity(f.root(), &["start", "--range", &range]);
    for l in cli.json["lineages"].as_array().unwrap() {
        assert!(
            l["message"].as_str().unwrap().contains("`probity "),
            "{}",
            cli.stdout
        );
    }
}
