//! A scripted OpenAI-compatible chat-completions server on 127.0.0.1 that
//! answers by role, for the model-run lifecycle tests: it reads the system
//! prompt's header line (`probity-prompt/v1 role=lens|refuter|validator`)
//! and the turn (no tool result yet: one `read` tool call of the first
//! changed path; then the role's document). What a lens answers is
//! scripted per test. Every request body is recorded. The HTTP side is
//! `probity_testkit::http`'s server. No test reaches the network.

use probity_testkit::http::{HttpServer, Reply, Request};
use serde_json::{Value, json};

/// What a lens answers once it has read.
#[derive(Clone, Debug)]
pub enum Lens {
    /// No findings.
    Clean,
    /// One deterministic, candidate-causal BLOCKER at `location`.
    Blocker { location: String, claim: String },
    /// Prose instead of JSON, every time.
    Prose,
    /// Prose first, then (after the repair turn) a clean document.
    ProseThenClean,
    /// One inferential, candidate-causal CRITICAL at `location` (the
    /// refuter judges it).
    Inferential { location: String, claim: String },
    /// HTTP 500 for this lens (by name), clean for the others.
    FailsFor(String),
}

/// The running server; it stops when dropped.
pub struct RoleServer {
    pub base_url: String,
    server: HttpServer,
}

impl RoleServer {
    /// Every request body so far.
    pub fn requests(&self) -> Vec<Value> {
        self.server.seen().iter().map(Request::json).collect()
    }
}

/// The role a request is for (`lens`, `refuter`, `validator`) and its
/// lens, read from the system prompt's header line.
pub fn role(body: &Value) -> (String, Option<String>) {
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let header = system
        .lines()
        .rev()
        .find(|l| l.starts_with("probity-prompt/v1 role=") && !l.contains("role=frame"))
        .unwrap_or_default();
    let role = header
        .split_whitespace()
        .find_map(|w| w.strip_prefix("role="))
        .unwrap_or("lens")
        .to_string();
    let lens = header
        .split_whitespace()
        .find_map(|w| w.strip_prefix("lens="))
        .map(str::to_string);
    (role, lens)
}

fn user(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn first_changed_path(user: &str) -> Option<String> {
    let (_, list) = user.split_once("## Changed paths")?;
    list.lines()
        .find_map(|l| l.strip_prefix("- "))
        .and_then(|l| l.rsplit_once(" ("))
        .map(|(p, _)| p.to_string())
}

fn listed_findings(user: &str) -> Vec<String> {
    user.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(' ').map(|(id, _)| id.to_string()))
        .filter(|id| id.len() == 6 && id.as_bytes().get(2) == Some(&b'-'))
        .collect()
}

/// A final answer; its usage reports a cost too (US dollars, as some
/// gateways do), the tool round's does not.
fn text(content: &str) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cost": 0.0021}})
}

fn answer(body: &Value, lens_answer: &Lens) -> (u16, Value) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let read = messages.iter().any(|m| m["role"] == "tool");
    let repair = messages.iter().filter(|m| m["role"] == "user").any(|m| {
        m["content"]
            .as_str()
            .unwrap_or("")
            .contains("is not a valid")
    });
    let offered = body["tool_choice"] == "auto";
    let (role, lens) = role(body);
    let user = user(body);
    if let Lens::FailsFor(name) = lens_answer
        && role == "lens"
        && lens.as_deref() == Some(name.as_str())
    {
        return (500, json!({"error": {"message": "scripted failure"}}));
    }
    if offered
        && !read
        && let Some(path) = first_changed_path(&user).or_else(|| Some("src/parser.rs".into()))
    {
        return (
            200,
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": json!({"path": path}).to_string()}}
            ]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 90, "completion_tokens": 5}}),
        );
    }
    let doc = match role.as_str() {
        "refuter" => json!({"outcomes": listed_findings(&user).into_iter().map(|id| json!({
            "finding_id": id, "outcome": "corroborated", "evidence": ["read the lines it names"]
        })).collect::<Vec<_>>()}),
        "validator" => json!({
            "original_criteria": {"passed": true, "evidence": ["read the corrected lines"]},
            "correction_regression": {"passed": true, "evidence": ["read the fix diff"]},
        }),
        _ => match lens_answer {
            Lens::Prose => return (200, text("Looks good to me.")),
            Lens::ProseThenClean if !repair => return (200, text("The change looks fine.")),
            Lens::Blocker { location, claim } => json!({
                "findings": [{"location": location, "severity": "BLOCKER", "claim": claim,
                    "proof_refs": [format!("{location} as read through the snapshot")],
                    "evidence_class": "deterministic", "causal_disposition": "introduced"}],
                "evidence": ["read the frozen diff and the changed file"],
            }),
            Lens::Inferential { location, claim } => json!({
                "findings": [{"location": location, "severity": "CRITICAL", "claim": claim,
                    "proof_refs": [format!("{location}: the reasoning in the claim")],
                    "evidence_class": "inferential", "causal_disposition": "introduced"}],
                "evidence": ["read the frozen diff and the changed file"],
            }),
            _ => json!({"findings": [], "evidence": ["read the frozen diff and the changed file"]}),
        },
    };
    (200, text(&doc.to_string()))
}

/// Starts the server; it answers until dropped.
pub fn role_server(lens_answer: Lens) -> RoleServer {
    role_server_with(lens_answer, |_| {})
}

/// [`role_server`] that calls `on_request` with each request body before
/// answering it (while the model is being asked: a test changes the world
/// there, deterministically, between the question and the answer).
pub fn role_server_with(
    lens_answer: Lens,
    mut on_request: impl FnMut(&Value) + Send + 'static,
) -> RoleServer {
    let server = HttpServer::serve(move |request: &Request| {
        let body = request.json();
        on_request(&body);
        let (status, reply) = answer(&body, &lens_answer);
        Reply::value(status, reply)
    })
    .unwrap();
    RoleServer {
        base_url: format!("{}/v1", server.base()),
        server,
    }
}
