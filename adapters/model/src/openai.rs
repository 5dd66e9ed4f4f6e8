//! OpenAI-compatible chat completions (`POST <base>/chat/completions`),
//! non-streaming (`"stream": false`), with tool calls.
//!
//! Sent: `model`, `messages` (the system prompt as a `system` message, tool
//! calls on the assistant message, each tool result as a `tool` message),
//! `tools` with `tool_choice` (`auto`, or `none` once the budget is spent),
//! and when configured `temperature`, `seed` and `max_tokens`. Read: the
//! first choice's text and tool calls, `finish_reason`, and `usage`
//! (`prompt_tokens`, `completion_tokens`, and `cost` in US dollars when a
//! gateway reports one).

use probity_core::snapshot_tools::ToolSpec;
use probity_core::snapshot_tools::{
    Message, ModelRequest, ModelResponse, StopReason, ToolCall, Usage,
};
use probity_ports::snapshot::{ChatModel, ModelError};
use serde_json::{Value, json};

use crate::http::{Client, Sleeper};
use crate::{CallOptions, ModelConfig, temperature_json};

/// The chat-completions body for a request.
pub fn request_body(
    model: &str,
    request: &ModelRequest,
    tools: &[ToolSpec],
    options: &CallOptions,
) -> Result<Value, ModelError> {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": false,
    });
    if !tools.is_empty() {
        body["tools"] = Value::Array(
            tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.input_schema,
                        }
                    })
                })
                .collect(),
        );
        // Once the budget is spent the tools stay declared (the transcript
        // refers to them) but the model may not call them.
        body["tool_choice"] = json!(if request.offer_tools { "auto" } else { "none" });
    }
    if let Some(t) = &options.temperature {
        body["temperature"] = temperature_json(t)?;
    }
    if let Some(seed) = options.seed {
        body["seed"] = json!(seed);
    }
    if let Some(n) = options.max_tokens {
        body["max_tokens"] = json!(n);
    }
    Ok(body)
}

fn message_json(m: &Message) -> Value {
    match m {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut v = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                v["tool_calls"] = Value::Array(
                    tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments}
                            })
                        })
                        .collect(),
                );
            }
            v
        }
        Message::Tool {
            tool_call_id,
            content,
        } => json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
    }
}

/// Reads the first choice of a chat-completions response.
pub fn parse_response(v: &Value) -> Result<ModelResponse, ModelError> {
    let bad = |what: &str| ModelError::Protocol(what.to_owned());
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| bad("no `choices[0]` in the response"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| bad("no `message` in `choices[0]`"))?;
    let text = match message.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        // Some providers send content parts.
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        Some(_) => return Err(bad("`message.content` is neither text nor null")),
    };
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, c) in calls.iter().enumerate() {
            let f = c
                .get("function")
                .ok_or_else(|| bad("a tool call without `function`"))?;
            let name = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a tool call without a name"))?;
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                None | Some(Value::Null) => String::new(),
                Some(other) => other.to_string(),
            };
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("call_{i}"));
            tool_calls.push(ToolCall {
                id,
                name: name.to_owned(),
                arguments,
            });
        }
    }
    let stop = match choice.get("finish_reason").and_then(Value::as_str) {
        Some("stop") | None => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::Length,
        Some(other) => StopReason::Other(other.to_owned()),
    };
    Ok(ModelResponse {
        text,
        tool_calls,
        stop,
        usage: parse_usage(v.get("usage")),
    })
}

/// `usage.prompt_tokens` and `usage.completion_tokens` (both needed), and
/// `usage.cost` when a gateway reports one. Absent or malformed usage is
/// no usage, never an error: it only feeds the footer.
fn parse_usage(u: Option<&Value>) -> Option<Usage> {
    let u = u?;
    Some(Usage {
        input_tokens: u.get("prompt_tokens")?.as_u64()?,
        output_tokens: u.get("completion_tokens")?.as_u64()?,
        cost_micro_usd: u.get("cost").and_then(cost_micro_usd),
    })
}

/// A cost in US dollars (a JSON number, or a decimal string) in millionths,
/// rounded half up, computed on the number's decimal text (so `0.0000005`
/// is 1, not a binary float's 0). Negative, non-numeric or overflowing
/// costs are `None`.
pub fn cost_micro_usd(v: &Value) -> Option<u64> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_owned(),
        _ => return None,
    };
    decimal_micro(&text)
}

/// `d[.d][e±d]` × 10^6, rounded half up.
fn decimal_micro(s: &str) -> Option<u64> {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let mantissa = mantissa.strip_prefix('+').unwrap_or(mantissa);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // digits × 10^(exp - frac.len()) dollars; × 10^6 for micro.
    let digits: String = format!("{int}{frac}").trim_start_matches('0').to_owned();
    if digits.is_empty() {
        return Some(0);
    }
    let shift = i64::from(exp) - frac.len() as i64 + 6;
    if shift >= 0 {
        // Too many digits for u64 overflows below; `shift` this large too.
        if shift > 20 {
            return None;
        }
        let base: u64 = digits.parse().ok()?;
        return base.checked_mul(10u64.checked_pow(shift as u32)?);
    }
    // Drop `-shift` digits, rounding half up on the first dropped one.
    let drop = usize::try_from(-shift).ok()?;
    if drop > digits.len() {
        return Some(0);
    }
    let (keep, dropped) = digits.split_at(digits.len() - drop);
    let kept: u64 = if keep.is_empty() {
        0
    } else {
        keep.parse().ok()?
    };
    let round_up = dropped.as_bytes().first().is_some_and(|b| *b >= b'5');
    kept.checked_add(u64::from(round_up))
}

/// The HTTP client.
pub struct OpenAiChat {
    client: Client,
}

impl std::fmt::Debug for OpenAiChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.client.debug("OpenAiChat", f)
    }
}

impl OpenAiChat {
    /// With the default options (no temperature or seed, 3 retries).
    pub fn new(config: ModelConfig) -> Self {
        Self::with_options(config, CallOptions::default())
    }

    /// With explicit sampling and retry options.
    pub fn with_options(config: ModelConfig, options: CallOptions) -> Self {
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

impl ChatModel for OpenAiChat {
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
        let mut headers = Vec::new();
        if let Some(key) = &config.api_key {
            headers.push(("Authorization", format!("Bearer {key}")));
        }
        let url = config.endpoint();
        let v = self.client.post(&url, &headers, &body, timeout_ms)?;
        parse_response(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::snapshot_tools::Temperature;
    use probity_core::snapshot_tools::tool_specs;

    #[test]
    fn maps_messages_and_tools() {
        let req = ModelRequest {
            messages: vec![
                Message::System {
                    content: "frame".into(),
                },
                Message::User {
                    content: "diff".into(),
                },
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "read".into(),
                        arguments: r#"{"path":"a"}"#.into(),
                    }],
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    content: "text".into(),
                },
            ],
            offer_tools: false,
        };
        let body = request_body("m", &req, &tool_specs(), &CallOptions::default()).unwrap();
        assert_eq!(body["model"], "m");
        assert_eq!(body["stream"], false);
        assert_eq!(body["tool_choice"], "none");
        assert_eq!(body["tools"][0]["function"]["name"], "read");
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"],
            r#"{"path":"a"}"#
        );
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "text"})
        );
        for key in ["temperature", "seed", "max_tokens"] {
            assert!(body.get(key).is_none(), "{key}");
        }
        let body = request_body("m", &req, &[], &CallOptions::default()).unwrap();
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
    }

    #[test]
    fn sends_temperature_seed_and_max_tokens_when_set() {
        let req = ModelRequest {
            messages: vec![Message::User {
                content: "x".into(),
            }],
            offer_tools: true,
        };
        let options = CallOptions {
            temperature: Temperature::parse("0.2"),
            seed: Some(42),
            max_tokens: Some(512),
            max_retries: 0,
        };
        let body = request_body("m", &req, &[], &options).unwrap();
        assert_eq!(body["temperature"].to_string(), "0.2");
        assert_eq!(body["seed"], 42);
        assert_eq!(body["max_tokens"], 512);
    }

    #[test]
    fn parses_tool_calls_text_and_stop_reasons() {
        let v = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"a\"}"}}
        ]}, "finish_reason": "tool_calls"}]});
        let r = parse_response(&v).unwrap();
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(r.tool_calls[0].name, "grep");
        assert_eq!(r.text, None);
        assert_eq!(r.usage, None);
        let v = json!({"choices": [{"message": {"content": "VERDICT: PASS"}, "finish_reason": "length"}]});
        let r = parse_response(&v).unwrap();
        assert_eq!(r.stop, StopReason::Length);
        assert_eq!(r.text.as_deref(), Some("VERDICT: PASS"));
        assert!(matches!(
            parse_response(&json!({})),
            Err(ModelError::Protocol(_))
        ));
    }

    #[test]
    fn parses_usage_and_a_gateway_cost() {
        let with = |usage: Value| {
            parse_response(&json!({"choices": [{"message": {"content": "ok"},
                "finish_reason": "stop"}], "usage": usage}))
            .unwrap()
            .usage
        };
        assert_eq!(
            with(json!({"prompt_tokens": 1204, "completion_tokens": 310, "total_tokens": 1514})),
            Some(Usage {
                input_tokens: 1204,
                output_tokens: 310,
                cost_micro_usd: None
            })
        );
        assert_eq!(
            with(json!({"prompt_tokens": 1, "completion_tokens": 2, "cost": 0.0042})),
            Some(Usage {
                input_tokens: 1,
                output_tokens: 2,
                cost_micro_usd: Some(4200)
            })
        );
        // A negative cost is not taken; the tokens still are.
        assert_eq!(
            with(json!({"prompt_tokens": 1, "completion_tokens": 2, "cost": -0.5}))
                .unwrap()
                .cost_micro_usd,
            None
        );
        assert_eq!(with(json!({"prompt_tokens": 1})), None);
        assert_eq!(
            with(json!({"prompt_tokens": -1, "completion_tokens": 2})),
            None
        );
        assert_eq!(with(json!("lots")), None);
    }

    #[test]
    fn costs_round_half_up_on_their_decimal_text() {
        let c = |v: Value| cost_micro_usd(&v);
        assert_eq!(c(json!(0)), Some(0));
        assert_eq!(c(json!(1)), Some(1_000_000));
        assert_eq!(c(json!(0.0042)), Some(4200));
        assert_eq!(c(json!(0.0000005)), Some(1));
        assert_eq!(c(json!(0.00000049)), Some(0));
        assert_eq!(c(json!(0.0000015)), Some(2));
        assert_eq!(c(json!(1.5e-7)), Some(0));
        assert_eq!(c(json!(12.3456789)), Some(12_345_679));
        assert_eq!(c(json!(2e3)), Some(2_000_000_000));
        assert_eq!(c(json!("0.000001")), Some(1));
        assert_eq!(c(json!("1E-6")), Some(1));
        assert_eq!(c(json!("+3")), Some(3_000_000));
        assert_eq!(c(json!(1e300)), None);
        assert_eq!(c(json!("18446744073709.551615")), Some(u64::MAX));
        assert_eq!(c(json!("18446744073709.551616")), None);
        assert_eq!(c(json!("0.00000001")), Some(0));
        for bad in [
            json!(-0.1),
            json!("-1"),
            json!("NaN"),
            json!("inf"),
            json!(""),
            json!("."),
            json!("1e"),
            json!("0x10"),
            json!(null),
            json!(true),
            json!({"usd": 1}),
        ] {
            assert_eq!(c(bad.clone()), None, "{bad}");
        }
    }
}
