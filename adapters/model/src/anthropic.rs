//! The Anthropic Messages API (`POST <base>/v1/messages`), non-streaming,
//! with tool use.
//!
//! Sent: headers `x-api-key` (when a key is set), `anthropic-version:
//! 2023-06-01` and `content-type: application/json`; a body with `model`,
//! `max_tokens` (required by the API: the configured one, else
//! [`DEFAULT_MAX_TOKENS`]), the system message(s) as the top-level `system`,
//! the turns as content blocks (an assistant's tool calls as `tool_use`
//! blocks, tool results as `tool_result` blocks in a user turn; adjacent
//! turns of one role merged, as the API wants user and assistant to
//! alternate), `tools` as `{name, description, input_schema}` with
//! `tool_choice` `{"type": "auto"}` (or `{"type": "none"}` once the budget
//! is spent), `temperature` when configured and `"stream": false`. The API
//! has no seed: a configured seed is not sent.
//!
//! Read: the `content` blocks (text blocks joined, `tool_use` blocks as tool
//! calls whose arguments are the input as JSON text), `stop_reason` and
//! `usage` (input tokens, cache reads and writes included, and output
//! tokens; the API reports no cost).

use probity_core::snapshot_tools::ToolSpec;
use probity_core::snapshot_tools::{
    Message, ModelRequest, ModelResponse, StopReason, ToolCall, Usage,
};
use probity_ports::snapshot::{ChatModel, ModelError};
use serde_json::{Map, Value, json};

use crate::http::{Client, Sleeper};
use crate::{CallOptions, ModelConfig, temperature_json};

/// The API version every request names.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` when none is configured (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The note a tool result carries when the call's arguments were not a JSON
/// object (the API takes only an object as a `tool_use` input, so `{}` was
/// sent in their place).
pub const UNPARSABLE_ARGUMENTS_NOTE: &str = "[probity: the arguments of this tool call were not a JSON object; they are shown to you as {}]";

/// The Messages body for a request.
pub fn request_body(
    model: &str,
    request: &ModelRequest,
    tools: &[ToolSpec],
    options: &CallOptions,
) -> Result<Value, ModelError> {
    let mut system = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    // Tool calls whose arguments were sent as `{}`: their results say so.
    let mut replaced: Vec<&str> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((r, b)) if *r == role => b.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    };
    for m in &request.messages {
        match m {
            Message::System { content } => system.push(content.as_str()),
            Message::User { content } => push("user", vec![text_block(content)]),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                // The API refuses empty text blocks; an assistant turn with
                // nothing in it is left out.
                let mut blocks: Vec<Value> = content
                    .iter()
                    .filter(|t| !t.is_empty())
                    .map(|t| text_block(t))
                    .collect();
                for c in tool_calls {
                    let input = match serde_json::from_str::<Value>(&c.arguments) {
                        Ok(Value::Object(o)) => Value::Object(o),
                        _ => {
                            replaced.push(&c.id);
                            Value::Object(Map::new())
                        }
                    };
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": input,
                    }));
                }
                push("assistant", blocks);
            }
            Message::Tool {
                tool_call_id,
                content,
            } => {
                let content = if replaced.contains(&tool_call_id.as_str()) {
                    format!("{UNPARSABLE_ARGUMENTS_NOTE}\n{content}")
                } else {
                    content.clone()
                };
                push(
                    "user",
                    vec![json!({
                        "type": "tool_result",
                        "tool_use_id": tool_call_id,
                        "content": content,
                    })],
                );
            }
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = json!({
        "model": model,
        "max_tokens": options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": false,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(
            tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                    })
                })
                .collect(),
        );
        body["tool_choice"] = json!({"type": if request.offer_tools { "auto" } else { "none" }});
    }
    if let Some(t) = &options.temperature {
        body["temperature"] = temperature_json(t)?;
    }
    Ok(body)
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// Reads a Messages response.
pub fn parse_response(v: &Value) -> Result<ModelResponse, ModelError> {
    let bad = |what: &str| ModelError::Protocol(what.to_owned());
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `content` array in the response"))?;
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                let t = b
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("a text block without `text`"))?;
                text.get_or_insert_with(String::new).push_str(t);
            }
            Some("tool_use") => {
                let name = b
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("a tool_use block without a name"))?;
                let id = b
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("toolu_{i}"));
                let arguments = match b.get("input") {
                    None | Some(Value::Null) => String::new(),
                    Some(input) => input.to_string(),
                };
                tool_calls.push(ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments,
                });
            }
            // Thinking and other blocks are not part of the answer.
            Some(_) => {}
            None => return Err(bad("a content block without a `type`")),
        }
    }
    let stop = match v.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn") | Some("stop_sequence") | None => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::Length,
        Some(other) => StopReason::Other(other.to_owned()),
    };
    Ok(ModelResponse {
        text,
        tool_calls,
        stop,
        usage: parse_usage(v.get("usage")),
    })
}

/// `usage.input_tokens` (plus cache writes and reads when reported) and
/// `usage.output_tokens`; absent or malformed usage is no usage.
fn parse_usage(u: Option<&Value>) -> Option<Usage> {
    let u = u?;
    let extra = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: u
            .get("input_tokens")?
            .as_u64()?
            .saturating_add(extra("cache_creation_input_tokens"))
            .saturating_add(extra("cache_read_input_tokens")),
        output_tokens: u.get("output_tokens")?.as_u64()?,
        cost_micro_usd: None,
    })
}

/// The HTTP client.
pub struct AnthropicMessages {
    client: Client,
}

impl std::fmt::Debug for AnthropicMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.client.debug("AnthropicMessages", f)
    }
}

impl AnthropicMessages {
    /// Calls the Messages API at `config`'s base, sampling and retrying as
    /// `options` say.
    pub fn new(config: ModelConfig, options: CallOptions) -> Self {
        Self {
            client: Client::new(config, options),
        }
    }

    /// Waits between retries through `sleeper` (tests record the waits).
    pub fn with_sleeper(mut self, sleeper: impl Sleeper + 'static) -> Self {
        self.client.set_sleeper(sleeper);
        self
    }
}

impl ChatModel for AnthropicMessages {
    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError> {
        let Client {
            config, options, ..
        } = &self.client;
        let body = request_body(&config.model, request, tools, options)?;
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION.to_owned())];
        if let Some(key) = &config.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        let url = config.messages_endpoint();
        let v = self.client.post(&url, &headers, &body, timeout_ms)?;
        parse_response(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::snapshot_tools::Temperature;
    use probity_core::snapshot_tools::tool_specs;

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn maps_the_conversation_to_alternating_block_turns() {
        let req = ModelRequest {
            messages: vec![
                Message::System {
                    content: "frame".into(),
                },
                Message::User {
                    content: "diff".into(),
                },
                Message::Assistant {
                    content: Some("Let me look.".into()),
                    tool_calls: vec![
                        call("t1", "read", r#"{"path":"a"}"#),
                        call("t2", "grep", "not json"),
                    ],
                },
                Message::Tool {
                    tool_call_id: "t1".into(),
                    content: "text".into(),
                },
                Message::Tool {
                    tool_call_id: "t2".into(),
                    content: "error: unparsable arguments".into(),
                },
                Message::User {
                    content: "Answer again.".into(),
                },
            ],
            offer_tools: false,
        };
        let body = request_body("claude", &req, &tool_specs(), &CallOptions::default()).unwrap();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "diff"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "t2", "name": "grep", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "text"},
                    {"type": "tool_result", "tool_use_id": "t2",
                        "content": format!("{UNPARSABLE_ARGUMENTS_NOTE}\nerror: unparsable arguments")},
                    {"type": "text", "text": "Answer again."},
                ]},
            ])
        );
        assert_eq!(body["system"], "frame");
        assert_eq!(body["model"], "claude");
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(body["stream"], false);
        assert_eq!(body["tool_choice"], json!({"type": "none"}));
        assert_eq!(body["tools"][0]["name"], "read");
        assert!(body["tools"][0]["input_schema"].is_object());
        assert!(body["tools"][0].get("type").is_none());
        assert!(body.get("temperature").is_none() && body.get("seed").is_none());
    }

    #[test]
    fn temperature_and_max_tokens_but_never_a_seed() {
        let req = ModelRequest {
            messages: vec![Message::User {
                content: "x".into(),
            }],
            offer_tools: true,
        };
        let options = CallOptions {
            temperature: Temperature::parse("1.5"),
            seed: Some(9),
            max_tokens: Some(100),
            max_retries: 0,
        };
        let body = request_body("m", &req, &[], &options).unwrap();
        assert_eq!(body["temperature"].to_string(), "1.5");
        assert_eq!(body["max_tokens"], 100);
        assert!(body.get("seed").is_none());
        assert!(body.get("system").is_none());
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
    }

    #[test]
    fn an_empty_assistant_turn_is_left_out() {
        let req = ModelRequest {
            messages: vec![
                Message::User {
                    content: "a".into(),
                },
                Message::Assistant {
                    content: Some(String::new()),
                    tool_calls: vec![],
                },
                Message::User {
                    content: "b".into(),
                },
            ],
            offer_tools: true,
        };
        let body = request_body("m", &req, &[], &CallOptions::default()).unwrap();
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": [
                {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
        );
    }

    #[test]
    fn parses_text_tool_use_stop_reasons_and_usage() {
        let v = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "src/a.rs"}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 20,
                "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0}});
        let r = parse_response(&v).unwrap();
        assert_eq!(r.text.as_deref(), Some("Checking."));
        assert_eq!(
            r.tool_calls,
            [call("toolu_a", "read", r#"{"path":"src/a.rs"}"#)]
        );
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 105,
                output_tokens: 20,
                cost_micro_usd: None
            })
        );
        for (reason, stop) in [
            ("end_turn", StopReason::EndTurn),
            ("stop_sequence", StopReason::EndTurn),
            ("max_tokens", StopReason::Length),
            ("refusal", StopReason::Other("refusal".into())),
        ] {
            let v = json!({"content": [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "x"},
                {"type": "text", "text": "b"}], "stop_reason": reason});
            let r = parse_response(&v).unwrap();
            assert_eq!(r.stop, stop);
            assert_eq!(r.text.as_deref(), Some("ab"));
            assert_eq!(r.usage, None);
        }
        let r = parse_response(&json!({"content": [], "stop_reason": "end_turn"})).unwrap();
        assert_eq!(r.text, None);
        for bad in [
            json!({}),
            json!({"content": "text"}),
            json!({"content": [{"text": "x"}]}),
            json!({"content": [{"type": "text"}]}),
            json!({"content": [{"type": "tool_use", "id": "x"}]}),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ] {
            assert!(
                matches!(parse_response(&bad), Err(ModelError::Protocol(_))),
                "{bad}"
            );
        }
    }
}
