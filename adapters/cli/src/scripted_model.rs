//! A built-in scripted model for `probity demo --scenario model`: no
//! network, the same answers every time. It plays whatever role its system
//! prompt names (a lens, the refuter, the targeted validator): it reads the
//! first changed path once through the reviewer tools, then answers its
//! role's document. A lens reports the findings it was scripted with
//! (none, or one); the refuter corroborates every finding it is asked
//! about; the validator passes both checks.
//!
//! It is a model like any other to the lifecycle: what it answers is
//! checked, bound to its transcript, submitted and finalized by the same
//! code as a real provider's answer.

use probity_core::snapshot_tools::ToolSpec;
use probity_core::snapshot_tools::{Message, ModelRequest, ModelResponse, StopReason, ToolCall};
use probity_ports::snapshot::{ChatModel, ModelError};
use serde_json::{Value, json};

/// A finding the scripted lens reports.
#[derive(Debug, Clone)]
pub struct ScriptedFinding {
    pub location: String,
    pub claim: String,
    pub proof: String,
}

/// The scripted model.
#[derive(Debug, Clone, Default)]
pub struct ScriptedModel {
    /// What a lens reports: a deterministic, candidate-causal BLOCKER for
    /// each (none: a clean result).
    pub blockers: Vec<ScriptedFinding>,
}

fn role_of(request: &ModelRequest) -> &'static str {
    let system = request.messages.iter().find_map(|m| match m {
        Message::System { content } => Some(content.as_str()),
        _ => None,
    });
    match system {
        Some(s) if s.contains("probity-prompt/v1 role=refuter") => "refuter",
        Some(s) if s.contains("probity-prompt/v1 role=validator") => "validator",
        _ => "lens",
    }
}

fn user_text(request: &ModelRequest) -> &str {
    request
        .messages
        .iter()
        .find_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The first path listed under "## Changed paths" (`- path (status)`).
fn first_changed_path(user: &str) -> Option<&str> {
    let (_, list) = user.split_once("## Changed paths")?;
    list.lines()
        .find_map(|l| l.strip_prefix("- "))
        .and_then(|l| l.rsplit_once(" ("))
        .map(|(p, _)| p)
}

/// The finding IDs listed for the refuter (`- R1-002 (CRITICAL) at ...`).
fn listed_findings(user: &str) -> Vec<&str> {
    user.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(' ').map(|(id, _)| id))
        .filter(|id| id.len() == 6 && id.as_bytes().get(2) == Some(&b'-'))
        .collect()
}

impl ScriptedModel {
    fn document(&self, request: &ModelRequest) -> Value {
        let read = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        let evidence = if read {
            "read the frozen diff and the changed file through the snapshot tools"
        } else {
            "read the frozen diff"
        };
        match role_of(request) {
            "refuter" => json!({
                "outcomes": listed_findings(user_text(request))
                    .into_iter()
                    .map(|id| json!({"finding_id": id, "outcome": "corroborated", "evidence": [evidence]}))
                    .collect::<Vec<_>>()
            }),
            "validator" => json!({
                "original_criteria": {"passed": true, "evidence": [evidence]},
                "correction_regression": {"passed": true, "evidence": [evidence]},
            }),
            _ => json!({
                "findings": self.blockers.iter().map(|f| json!({
                    "location": f.location,
                    "severity": "BLOCKER",
                    "claim": f.claim,
                    "proof_refs": [f.proof],
                    "evidence_class": "deterministic",
                    "causal_disposition": "introduced",
                })).collect::<Vec<_>>(),
                "evidence": [evidence],
            }),
        }
    }
}

impl ChatModel for ScriptedModel {
    fn complete(
        &mut self,
        request: &ModelRequest,
        _tools: &[ToolSpec],
        _timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError> {
        let read_already = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        if request.offer_tools
            && !read_already
            && let Some(path) = first_changed_path(user_text(request))
        {
            return Ok(ModelResponse {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "scripted-read-1".into(),
                    name: "read".into(),
                    arguments: json!({"path": path}).to_string(),
                }],
                stop: StopReason::ToolUse,
                usage: None,
            });
        }
        Ok(ModelResponse {
            text: Some(self.document(request).to_string()),
            tool_calls: Vec::new(),
            stop: StopReason::EndTurn,
            usage: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_the_first_changed_path_then_answers_its_role() {
        let user = "binding\n\n## Changed paths\n\n- src/a.rs (modified)\n- b.md (added)\n";
        let mut m = ScriptedModel::default();
        let mut req = ModelRequest {
            messages: vec![
                Message::System {
                    content: "probity-prompt/v1 role=lens lens=reliability prefix=R3".into(),
                },
                Message::User {
                    content: user.into(),
                },
            ],
            offer_tools: true,
        };
        let first = m.complete(&req, &[], 1000).unwrap();
        assert_eq!(first.tool_calls[0].arguments, r#"{"path":"src/a.rs"}"#);
        req.messages.push(Message::Tool {
            tool_call_id: "scripted-read-1".into(),
            content: "fn a() {}".into(),
        });
        let answer = m.complete(&req, &[], 1000).unwrap();
        let v: Value = serde_json::from_str(answer.text.as_deref().unwrap()).unwrap();
        assert_eq!(v["findings"], json!([]));
        assert_eq!(
            listed_findings("- R1-002 (CRITICAL) at a:1: x\n  proof refs: y\n- x"),
            ["R1-002"]
        );
    }
}
