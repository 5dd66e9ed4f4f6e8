//! Over MCP, every next step names the tool to call (issue 22 §5, issue 26
//! "also over MCP, where the advice names the tool to call", D-R89): each
//! lifecycle answer of `probity mcp --authority` carries `next_tool`
//! (`name`, `arguments`, the arguments the caller fills, a sentence), and
//! a session that only follows it walks a review from the gate's denial
//! through start, the lens results, finalize and the correction to the
//! gate's allow; where no tool does the step, `name` is null and the
//! sentence says so and names the command a person runs.

mod support;

use serde_json::{Value, json};
use support::*;

/// The independent check's output, as a harness that ran the check gives
/// it to a server that runs no command (D-R123).
const CHECK_OUTPUT: &str = "cargo test: 3 passed; 0 failed";

/// The change's repository, an MCP session on it and the tools it lists.
fn session() -> (probity_git::fixture::Fixture, mcp::Session, Vec<String>) {
    let f = change();
    let mut mcp = mcp::Session::start(f.root());
    let tools = listed(&mut mcp);
    (f, mcp, tools)
}

/// The tools `tools/list` declares.
fn listed(mcp: &mut mcp::Session) -> Vec<String> {
    let r = mcp.request("tools/list", json!({}));
    r["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// An answer's `next_tool`, checked: a listed tool named in its sentence,
/// or none, and then a sentence that says no tool does it.
fn next_tool(answer: &Value, tools: &[String]) -> Value {
    let next = answer
        .get("next_tool")
        .unwrap_or_else(|| panic!("no next_tool in {answer}"))
        .clone();
    if next.is_null() {
        return next;
    }
    let message = next["message"].as_str().unwrap_or_else(|| panic!("{next}"));
    match next["name"].as_str() {
        Some(name) => {
            assert!(
                tools.iter().any(|t| t == name),
                "next_tool names `{name}`, not a tool of {tools:?}: {next}"
            );
            assert!(
                message.contains(&format!("`{name}`")),
                "the sentence does not name the tool: {next}"
            );
        }
        None => assert!(
            message.contains("no MCP tool"),
            "no tool named, and the sentence does not say so: {next}"
        ),
    }
    // A CLI command is named only beside the words that no tool does it.
    if message.contains("`probity ") {
        assert!(message.contains("no MCP tool"), "{next}");
    }
    next
}

/// Calls the tool `next` names with its arguments plus each argument it
/// asks the caller to fill (`fill`), and asserts the tool accepts it.
fn follow(
    mcp: &mut mcp::Session,
    next: &Value,
    mut fill: impl FnMut(&str, &Value) -> Value,
) -> Value {
    let name = next["name"].as_str().unwrap_or_else(|| panic!("{next}"));
    let mut args = next["arguments"].clone();
    assert!(args.is_object(), "{next}");
    for f in next["fill"].as_array().cloned().unwrap_or_default() {
        let key = f["argument"].as_str().unwrap_or_else(|| panic!("{f}"));
        assert!(f["what"].is_string(), "{f}");
        let v = fill(key, &args);
        args[key] = v;
    }
    let (err, answer) = mcp.call(name, args.clone());
    assert!(
        !err,
        "following next_tool `{name}` {args} was refused: {answer}"
    );
    answer
}

#[test]
fn over_mcp_following_next_tool_walks_a_review_to_the_gates_allow() {
    let (f, mut mcp, tools) = session();
    let (err, gate) = mcp.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{gate}");
    assert_eq!(gate["decision"], "deny", "{gate}");
    let mut next = next_tool(&gate, &tools);
    assert_eq!(next["name"], "start", "{next}");
    let mut called = Vec::new();
    let mut first_lens: Option<String> = None;
    let mut last = gate;
    for _ in 0..20 {
        if next.is_null() {
            break;
        }
        let name = next["name"].as_str().unwrap().to_string();
        let root = f.root().to_path_buf();
        let answer = follow(&mut mcp, &next, |key, args| match key {
            // The first lens finds a blocker; every other one is clean.
            "result" => {
                let lens = args["lens"].as_str().unwrap().to_string();
                let first = first_lens.get_or_insert(lens.clone());
                let doc = if *first == lens {
                    PARSER_BLOCKER
                } else {
                    CLEAN_RESULT
                };
                serde_json::from_str(doc).unwrap()
            }
            "correction_lines" => json!(2),
            "validation" => {
                // The fix, inside the forecast, then the validator's pass.
                std::fs::write(root.join("src/parser.rs"), body(2)).unwrap();
                serde_json::from_str(VALIDATION_PASS).unwrap()
            }
            "evidence" => json!(CHECK_OUTPUT),
            other => panic!("asked to fill `{other}`: {args}"),
        });
        called.push(name);
        next = next_tool(&answer, &tools);
        last = answer;
    }
    assert_eq!(last["decision"], "allow", "{last}\ncalled: {called:?}");
    assert!(next.is_null(), "an allow has no next step: {next}");
    // Each selected lens's context and result (one lens at this risk),
    // finalize through the correction (the results, the forecast, the
    // validation, the check), then the gate.
    let lenses = called.iter().filter(|c| *c == "lens_context").count();
    assert!(lenses >= 1, "{called:?}");
    let mut expected = vec!["start"];
    for _ in 0..lenses {
        expected.extend(["lens_context", "lens_submit"]);
    }
    expected.extend(["finalize", "finalize", "finalize", "finalize", "validate"]);
    assert_eq!(called, expected);
    // The answers' own fields are the CLI's `--json` ones, unchanged.
    let cli = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    let mut mcp_fields: Vec<&String> = last.as_object().unwrap().keys().collect();
    mcp_fields.retain(|k| *k != "next_tool");
    let cli_fields: Vec<&String> = cli.json.as_object().unwrap().keys().collect();
    assert_eq!(mcp_fields, cli_fields, "{}", cli.stdout);
    assert!(cli.json.get("next_tool").is_none(), "{}", cli.stdout);
}

#[test]
fn over_mcp_a_step_no_tool_does_says_so_and_names_the_command() {
    let (_f, mut mcp, tools) = session();
    let (s, l) = mcp.start_review();
    let fin = mcp.finalize_escalated(&s, &l);
    for answer in [fin, mcp.call("validate", json!({"gate": "pre-commit"})).1] {
        let next = next_tool(&answer, &tools);
        assert!(next["name"].is_null(), "{next}");
        let message = next["message"].as_str().unwrap();
        assert!(message.contains("`probity recover"), "{next}");
    }
}

#[test]
fn over_mcp_a_refusal_names_the_tool_that_leads_on() {
    let (_f, mut mcp, tools) = session();
    let (s, l) = mcp.start_review();
    // Evidence while the lens results are awaited: the wrong stage.
    let (err, refused) = mcp.call("finalize", json!({"lineage": l, "evidence": CHECK_OUTPUT}));
    assert!(err, "{refused}");
    let next = next_tool(&refused["error"], &tools);
    assert_eq!(next["name"], "status", "{refused}");
    let st = follow(&mut mcp, &next, |k, a| panic!("asked to fill {k}: {a}"));
    assert_eq!(st["action"], "run_lenses", "{st}");
    // Arguments outside the schema: the same tool, called as it declares.
    let (err, refused) = mcp.call("start", json!({"lineage_id": l}));
    assert!(err, "{refused}");
    let next = next_tool(&refused["error"], &tools);
    assert_eq!(next["name"], "start", "{refused}");
    let again = follow(&mut mcp, &next, |k, a| panic!("asked to fill {k}: {a}"));
    assert_eq!(again["lineage_id"], l.as_str(), "{again}");
    // A document the command refuses: no tool is named, and it says so.
    let (err, refused) = mcp.call(
        "lens_submit",
        json!({"lineage": l, "lens": s["selected_lenses"][0], "result": {"findings": 1}}),
    );
    assert!(err, "{refused}");
    let next = next_tool(&refused["error"], &tools);
    assert!(next["name"].is_null(), "{refused}");
    assert!(
        next["message"]
            .as_str()
            .unwrap()
            .contains(refused["error"]["next_action"].as_str().unwrap()),
        "{refused}"
    );
}

/// At a publication gate, committed work no review covers: `next_tool`
/// is `start` of that very commit, and following each next step from
/// there approves it, after which the push gate allows.
#[test]
fn over_mcp_an_unreviewed_commit_at_pre_push_leads_to_its_review() {
    let f = change();
    let (_dir, _remote) = bare_origin(&f, "origin.git");
    let head = commit_all(&f, "unreviewed");
    let mut mcp = mcp::Session::start(f.root());
    let tools = listed(&mut mcp);
    let push = json!({"gate": "pre-push", "remote": "origin"});
    let (err, gate) = mcp.call("validate", push.clone());
    assert!(!err, "{gate}");
    assert_eq!(gate["decision"], "deny", "{gate}");
    let mut next = next_tool(&gate, &tools);
    assert_eq!(next["name"], "start", "{next}");
    assert_eq!(next["arguments"]["commit"], head.as_str(), "{next}");
    let mut approved = false;
    for _ in 0..20 {
        let answer = follow(&mut mcp, &next, |key, _| match key {
            "result" => serde_json::from_str(CLEAN_RESULT).unwrap(),
            "evidence" => json!(CHECK_OUTPUT),
            other => panic!("asked to fill `{other}`"),
        });
        if answer["state"] == "approved" {
            approved = true;
            break;
        }
        next = next_tool(&answer, &tools);
    }
    assert!(approved, "never approved");
    let (err, gate) = mcp.call("validate", push);
    assert!(!err, "{gate}");
    assert_eq!(gate["decision"], "allow", "{gate}");
    assert!(gate["next_tool"].is_null(), "{gate}");
}

/// Several selected lenses: `next_tool` names each lens's context once,
/// in the order start selected them, each followed by its submit, until
/// every result is kept and `finalize` is next (issue 26 §2, over MCP).
#[test]
fn over_mcp_each_selected_lens_is_named_once_in_order() {
    // A high-risk change (an authentication path): every lens.
    let f = parser_base();
    f.write(
        "src/auth/token.rs",
        "pub fn check(t: &str) -> bool {\n    !t.is_empty()\n}\n",
    )
    .unwrap();
    let mut mcp = mcp::Session::start(f.root());
    let tools = listed(&mut mcp);
    let (err, s) = mcp.call("start", json!({}));
    assert!(!err, "{s}");
    let selected: Vec<String> = s["selected_lenses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert!(
        selected.len() >= 2,
        "a high-risk change selects lenses: {s}"
    );
    let mut next = next_tool(&s, &tools);
    let mut contexts = Vec::new();
    while next["name"] != "finalize" {
        let name = next["name"].as_str().unwrap_or_else(|| panic!("{next}"));
        if name == "lens_context" {
            contexts.push(next["arguments"]["lens"].as_str().unwrap().to_string());
        }
        let answer = follow(&mut mcp, &next, |key, _| match key {
            "result" => serde_json::from_str(CLEAN_RESULT).unwrap(),
            other => panic!("asked to fill `{other}`"),
        });
        next = next_tool(&answer, &tools);
        assert!(contexts.len() <= selected.len(), "{contexts:?}");
    }
    assert_eq!(contexts, selected);
    let f = follow(&mut mcp, &next, |k, _| panic!("asked to fill {k}"));
    assert_eq!(f["action"], "provide_evidence", "{f}");
}
