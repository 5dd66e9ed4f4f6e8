//! `probity-model`: the model port over an OpenAI-compatible
//! chat-completions endpoint with tool calls (spec S5.2).
//!
//! The wire mapping ([`request_body`], [`parse_response`]) is pure and
//! tested without a network; [`OpenAiChat`] sends it with a small blocking
//! HTTP client. The base URL, model and key come from the configuration or
//! the environment ([`ModelConfig::resolve`]); the key itself never lives in
//! a configuration file, only the name of the variable that holds it.

#![forbid(unsafe_code)]

use std::time::Duration;

use probity_core::snapshot_tools::config::ModelSettings;
use probity_core::snapshot_tools::tools::ToolSpec;
use probity_core::snapshot_tools::{Message, ModelRequest, ModelResponse, StopReason, ToolCall};
use probity_ports::snapshot::{ChatModel, ModelError};
use serde_json::{Value, json};

/// Environment variable for the base URL (e.g. `https://api.example/v1`).
pub const ENV_BASE_URL: &str = "PROBITY_MODEL_BASE_URL";
/// Environment variable for the model name.
pub const ENV_MODEL: &str = "PROBITY_MODEL";
/// Default environment variable holding the API key.
pub const ENV_API_KEY: &str = "PROBITY_MODEL_API_KEY";
/// The most bytes read from one response.
pub const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// Where and what to ask.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl ModelConfig {
    /// Resolves the configuration: the environment (`PROBITY_MODEL_BASE_URL`,
    /// `PROBITY_MODEL`) overrides the file's `reviewModelBaseUrl` and
    /// `reviewModel`; the key is read from the variable the file names in
    /// `reviewModelApiKeyEnv` (default `PROBITY_MODEL_API_KEY`). `env` is the
    /// environment lookup (a parameter so tests and callers control it).
    pub fn resolve(
        settings: &ModelSettings,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ModelError> {
        let nonempty = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        let base_url = nonempty(env(ENV_BASE_URL))
            .or_else(|| settings.base_url.clone())
            .ok_or_else(|| {
                ModelError::NotConfigured(format!(
                    "no base URL: set {ENV_BASE_URL} or reviewModelBaseUrl"
                ))
            })?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ModelError::NotConfigured(format!(
                "the base URL must start with http:// or https://, got `{base_url}`"
            )));
        }
        let model = nonempty(env(ENV_MODEL))
            .or_else(|| settings.model.clone())
            .ok_or_else(|| {
                ModelError::NotConfigured(format!("no model: set {ENV_MODEL} or reviewModel"))
            })?;
        let key_var = settings.api_key_env.as_deref().unwrap_or(ENV_API_KEY);
        Ok(Self {
            base_url,
            model,
            api_key: nonempty(env(key_var)),
        })
    }

    /// `<base>/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// The chat-completions body for a request.
pub fn request_body(model: &str, request: &ModelRequest, tools: &[ToolSpec]) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body = json!({
        "model": model,
        "messages": messages,
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
    body
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
        usage: None,
    })
}

/// The HTTP client.
#[derive(Debug)]
pub struct OpenAiChat {
    config: ModelConfig,
}

impl OpenAiChat {
    pub fn new(config: ModelConfig) -> Self {
        Self { config }
    }
}

fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

impl ChatModel for OpenAiChat {
    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError> {
        let body = request_body(&self.config.model, request, tools);
        let bytes = serde_json::to_vec(&body).map_err(|e| ModelError::Protocol(e.to_string()))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_millis(timeout_ms.max(1))))
            .http_status_as_error(false)
            .build()
            .into();
        let mut req = agent
            .post(self.config.endpoint())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let mut resp = req.send(&bytes[..]).map_err(map_err)?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_string()
            .map_err(map_err)?;
        if !(200..300).contains(&status) {
            return Err(ModelError::Status {
                status,
                body: cut(&text, 2000),
            });
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| ModelError::Protocol(format!("the response is not JSON: {e}")))?;
        parse_response(&v)
    }
}

fn map_err(e: ureq::Error) -> ModelError {
    match e {
        ureq::Error::Timeout(_) => ModelError::Timeout,
        other => ModelError::Transport(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::snapshot_tools::tools::tool_specs;

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
        let body = request_body("m", &req, &tool_specs());
        assert_eq!(body["model"], "m");
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
    fn resolves_configuration_from_env_and_file() {
        let settings = ModelSettings {
            base_url: Some("http://file/v1".into()),
            model: Some("file-model".into()),
            api_key_env: Some("MY_KEY".into()),
            ..Default::default()
        };
        let c = ModelConfig::resolve(&settings, |k| match k {
            "MY_KEY" => Some("secret".into()),
            "PROBITY_MODEL" => Some("env-model".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.base_url, "http://file/v1");
        assert_eq!(c.model, "env-model");
        assert_eq!(c.api_key.as_deref(), Some("secret"));
        assert_eq!(c.endpoint(), "http://file/v1/chat/completions");
        assert!(!format!("{c:?}").contains("secret"));
        let e = ModelConfig::resolve(&ModelSettings::default(), |_| None).unwrap_err();
        assert!(e.to_string().contains("PROBITY_MODEL_BASE_URL"));
        let e = ModelConfig::resolve(&ModelSettings::default(), |k| {
            (k == ENV_BASE_URL).then(|| "ftp://x".to_owned())
        })
        .unwrap_err();
        assert!(e.to_string().contains("http://"));
    }
}
