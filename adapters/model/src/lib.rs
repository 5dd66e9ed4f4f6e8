//! `probity-model`: the model port (spec S5.2) over three providers.
//!
//! - [`OpenAiChat`]: OpenAI-compatible chat completions with tool calls
//!   ([`openai`]).
//! - [`AnthropicMessages`]: the Anthropic Messages API, tool calls as
//!   `tool_use` / `tool_result` blocks ([`anthropic`]).
//! - [`CommandModel`]: an external agent program, the conversation on its
//!   stdin, its answer on stdout ([`command`]).
//!
//! [`build`] picks one from the settings. Each wire mapping (`request_body`,
//! `parse_response`) is pure and tested without a network; the HTTP
//! providers share one bounded POST with retries ([`http`]). The base URL,
//! model and key come from the configuration or the environment
//! ([`ModelConfig::resolve`]); the key itself never lives in a configuration
//! file, only the name of the variable that holds it, and it is never
//! written to a file, a log, an error or a `Debug` output.

#![deny(unsafe_code)]

pub mod anthropic;
pub mod command;
pub mod http;
pub mod openai;

use probity_core::snapshot_tools::{DEFAULT_MODEL_RETRIES, ModelSettings, Provider, Temperature};
use probity_ports::snapshot::{ChatModel, ModelError};

pub use anthropic::AnthropicMessages;
pub use command::{CommandModel, SubjectAccess};
pub use http::{MAX_RESPONSE_BYTES, Sleeper, ThreadSleeper};
pub use openai::{OpenAiChat, parse_response, request_body};

/// Environment variable for the base URL (e.g. `https://api.example/v1`).
pub const ENV_BASE_URL: &str = "PROBITY_MODEL_BASE_URL";
/// Environment variable for the model name.
pub const ENV_MODEL: &str = "PROBITY_MODEL";
/// Default environment variable holding the API key.
pub const ENV_API_KEY: &str = "PROBITY_MODEL_API_KEY";
/// The Anthropic API, when no base URL is configured for that provider.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// Where and what to ask.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// The provider's base URL, `http://` or `https://` (a key goes over plain
    /// http only to the loopback interface); the endpoint path is appended to
    /// it.
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// The API key, sent only as a request header and never shown (`Debug`
    /// redacts it); `None` when its variable is unset or blank.
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
    ///
    /// The base URL is required for `openai`; `anthropic` defaults to
    /// [`ANTHROPIC_DEFAULT_BASE_URL`] and then requires a key (the official
    /// API refuses a call without one). A key with a control character is
    /// refused (it could not be a header), naming the variable, never the
    /// value.
    pub fn resolve(
        settings: &ModelSettings,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ModelError> {
        let nonempty = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        let default_base = match settings.provider {
            Provider::Anthropic => Some(ANTHROPIC_DEFAULT_BASE_URL.to_owned()),
            Provider::OpenAi | Provider::Command => None,
        };
        let configured =
            nonempty(env(ENV_BASE_URL)).or_else(|| nonempty(settings.base_url.clone()));
        let defaulted = configured.is_none() && default_base.is_some();
        let base_url = configured.or(default_base).ok_or_else(|| {
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
            .or_else(|| nonempty(settings.model.clone()))
            .ok_or_else(|| {
                ModelError::NotConfigured(format!("no model: set {ENV_MODEL} or reviewModel"))
            })?;
        let key_var = settings
            .api_key_env
            .as_deref()
            .filter(|v| !v.trim().is_empty())
            .unwrap_or(ENV_API_KEY);
        let api_key = nonempty(env(key_var)).map(|k| k.trim().to_owned());
        if api_key
            .as_deref()
            .is_some_and(|k| k.chars().any(char::is_control))
        {
            return Err(ModelError::NotConfigured(format!(
                "the API key in {key_var} contains a control character"
            )));
        }
        // The key is never sent in clear beyond this machine.
        if api_key.is_some()
            && base_url.starts_with("http://")
            && !probity_core::url::is_loopback(&base_url)
        {
            return Err(ModelError::NotConfigured(format!(
                "refusing to send the API key in {key_var} over plain http to `{base_url}`: use https (plain http is for 127.0.0.1, ::1 or localhost)"
            )));
        }
        if defaulted && api_key.is_none() {
            return Err(ModelError::NotConfigured(format!(
                "no API key for {ANTHROPIC_DEFAULT_BASE_URL}: set {key_var}"
            )));
        }
        Ok(Self {
            base_url,
            model,
            api_key,
        })
    }

    /// `<base>/chat/completions` (OpenAI-compatible).
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// `<base>/v1/messages` (Anthropic); a base that already ends in `/v1`
    /// gets `/messages` only.
    pub fn messages_endpoint(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        }
    }
}

/// How an HTTP provider samples and retries (from [`ModelSettings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOptions {
    /// Sent as a JSON number parsed from the decimal text.
    pub temperature: Option<Temperature>,
    /// OpenAI-compatible only: the Messages API has no seed.
    pub seed: Option<u64>,
    /// The most tokens one answer may use (Anthropic: 4096 when unset).
    pub max_tokens: Option<u32>,
    /// Retries of a call answered 429 or 5xx.
    pub max_retries: u32,
}

impl Default for CallOptions {
    fn default() -> Self {
        Self {
            temperature: None,
            seed: None,
            max_tokens: None,
            max_retries: DEFAULT_MODEL_RETRIES,
        }
    }
}

impl CallOptions {
    /// The options `settings` name; retries default to `DEFAULT_MODEL_RETRIES`.
    pub fn from_settings(settings: &ModelSettings) -> Self {
        Self {
            temperature: settings.temperature.clone(),
            seed: settings.seed,
            max_tokens: settings.max_tokens,
            max_retries: settings.max_retries.unwrap_or(DEFAULT_MODEL_RETRIES),
        }
    }
}

/// A temperature's decimal text as a JSON number (`"0.2"` → `0.2`).
pub(crate) fn temperature_json(t: &Temperature) -> Result<serde_json::Value, ModelError> {
    t.as_str()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(serde_json::Value::Number)
        .ok_or_else(|| {
            ModelError::NotConfigured(format!("temperature `{}` is not a number", t.as_str()))
        })
}

/// The model the settings name, ready to ask: `openai` ([`OpenAiChat`]),
/// `anthropic` ([`AnthropicMessages`]) or `command` ([`CommandModel`]),
/// configured as [`ModelConfig::resolve`] says (the command provider reads
/// no URL, model or key).
pub fn build(
    settings: &ModelSettings,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Box<dyn ChatModel + Send>, ModelError> {
    build_with(settings, env, None)
}

/// [`build`] for a review of a known subject: the `command` provider tells
/// its agent how to read it (`access`, see [`SubjectAccess`]); the HTTP
/// providers offer the tools themselves and ignore it.
pub fn build_with(
    settings: &ModelSettings,
    env: impl Fn(&str) -> Option<String>,
    access: Option<SubjectAccess>,
) -> Result<Box<dyn ChatModel + Send>, ModelError> {
    let options = CallOptions::from_settings(settings);
    if let Some(t) = &options.temperature {
        temperature_json(t)?;
    }
    Ok(match settings.provider {
        Provider::OpenAi => Box::new(OpenAiChat::with_options(
            ModelConfig::resolve(settings, &env)?,
            options,
        )),
        Provider::Anthropic => Box::new(AnthropicMessages::new(
            ModelConfig::resolve(settings, &env)?,
            options,
        )),
        Provider::Command => {
            let model = CommandModel::new(settings.command.clone())?;
            Box::new(match access {
                Some(a) => model.with_access(a),
                None => model,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_never_sent_over_plain_http_beyond_loopback() {
        let with = |base: &str| {
            ModelConfig::resolve(&ModelSettings::default(), |k| match k {
                "PROBITY_MODEL_BASE_URL" => Some(base.to_string()),
                "PROBITY_MODEL" => Some("m".into()),
                "PROBITY_MODEL_API_KEY" => Some("sk-secret".into()),
                _ => None,
            })
        };
        for ok in [
            "https://api.example/v1",
            "http://127.0.0.1:8080/v1",
            "http://localhost/v1",
            "http://[::1]:9/v1",
        ] {
            assert!(with(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://api.example/v1",
            "http://127.0.0.1.evil.example/v1",
            "http://127.0.0.1@evil.example/v1",
        ] {
            let e = with(bad).unwrap_err();
            assert!(e.to_string().contains("use https"), "{bad}: {e}");
            assert!(!e.to_string().contains("sk-secret"));
        }
        // Without a key, plain http anywhere is the caller's choice.
        let no_key = ModelConfig::resolve(&ModelSettings::default(), |k| match k {
            "PROBITY_MODEL_BASE_URL" => Some("http://gateway.internal/v1".into()),
            "PROBITY_MODEL" => Some("m".into()),
            _ => None,
        });
        assert!(no_key.is_ok());
    }

    #[test]
    fn resolves_configuration_from_env_and_file() {
        let settings = ModelSettings {
            base_url: Some("https://file/v1".into()),
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
        assert_eq!(c.base_url, "https://file/v1");
        assert_eq!(c.model, "env-model");
        assert_eq!(c.api_key.as_deref(), Some("secret"));
        assert_eq!(c.endpoint(), "https://file/v1/chat/completions");
        assert!(!format!("{c:?}").contains("secret"));
        let e = ModelConfig::resolve(&ModelSettings::default(), |_| None).unwrap_err();
        assert!(e.to_string().contains("PROBITY_MODEL_BASE_URL"));
        let e = ModelConfig::resolve(&ModelSettings::default(), |k| {
            (k == ENV_BASE_URL).then(|| "ftp://x".to_owned())
        })
        .unwrap_err();
        assert!(e.to_string().contains("http://"));
    }

    #[test]
    fn anthropic_defaults_to_the_official_api_and_then_needs_a_key() {
        let settings = ModelSettings {
            provider: Provider::Anthropic,
            model: Some("claude".into()),
            ..Default::default()
        };
        let c = ModelConfig::resolve(&settings, |k| {
            (k == ENV_API_KEY).then(|| "sk-ant-secret".to_owned())
        })
        .unwrap();
        assert_eq!(c.base_url, ANTHROPIC_DEFAULT_BASE_URL);
        assert_eq!(
            c.messages_endpoint(),
            "https://api.anthropic.com/v1/messages"
        );
        let e = ModelConfig::resolve(&settings, |_| None).unwrap_err();
        assert!(matches!(e, ModelError::NotConfigured(_)));
        assert!(e.to_string().contains(ENV_API_KEY), "{e}");
        // A configured base (a gateway, a local server) needs no key.
        let c = ModelConfig::resolve(&settings, |k| {
            (k == ENV_BASE_URL).then(|| "http://127.0.0.1:9/v1/".to_owned())
        })
        .unwrap();
        assert_eq!(c.messages_endpoint(), "http://127.0.0.1:9/v1/messages");
        let c = ModelConfig {
            base_url: "http://gw/anthropic".into(),
            ..c
        };
        assert_eq!(c.messages_endpoint(), "http://gw/anthropic/v1/messages");
    }

    #[test]
    fn a_key_with_a_control_character_is_refused_without_its_value() {
        let settings = ModelSettings {
            base_url: Some("http://h".into()),
            model: Some("m".into()),
            ..Default::default()
        };
        let e = ModelConfig::resolve(&settings, |k| {
            (k == ENV_API_KEY).then(|| "sk-abc\r\nX-Evil: 1".to_owned())
        })
        .unwrap_err();
        let shown = format!("{e} {e:?}");
        assert!(shown.contains(ENV_API_KEY), "{shown}");
        assert!(!shown.contains("sk-abc"), "{shown}");
    }

    #[test]
    fn build_picks_the_provider_and_never_shows_the_key() {
        let env = |k: &str| match k {
            ENV_BASE_URL => Some("http://127.0.0.1:9".to_owned()),
            ENV_MODEL => Some("m".to_owned()),
            ENV_API_KEY => Some("sk-top-secret".to_owned()),
            _ => None,
        };
        for provider in [Provider::OpenAi, Provider::Anthropic] {
            let settings = ModelSettings {
                provider,
                ..Default::default()
            };
            assert!(build(&settings, env).is_ok(), "{provider:?}");
        }
        let settings = ModelSettings {
            provider: Provider::Command,
            ..Default::default()
        };
        assert!(matches!(
            build(&settings, env),
            Err(ModelError::NotConfigured(_))
        ));
        let settings = ModelSettings {
            provider: Provider::Command,
            command: vec!["agent".into()],
            ..Default::default()
        };
        assert!(build(&settings, env).is_ok());
        let chat = OpenAiChat::with_options(
            ModelConfig::resolve(&ModelSettings::default(), env).unwrap(),
            CallOptions::default(),
        );
        let messages = AnthropicMessages::new(
            ModelConfig::resolve(&ModelSettings::default(), env).unwrap(),
            CallOptions::default(),
        );
        let shown = format!("{chat:?} {messages:?}");
        assert!(shown.contains("<redacted>"), "{shown}");
        assert!(!shown.contains("sk-top-secret"), "{shown}");
    }

    #[test]
    fn options_come_from_the_settings() {
        let settings = ModelSettings {
            temperature: Temperature::parse("0.25"),
            seed: Some(7),
            max_tokens: Some(1000),
            max_retries: Some(1),
            ..Default::default()
        };
        let o = CallOptions::from_settings(&settings);
        assert_eq!(o.seed, Some(7));
        assert_eq!(o.max_tokens, Some(1000));
        assert_eq!(o.max_retries, 1);
        assert_eq!(
            CallOptions::from_settings(&ModelSettings::default()).max_retries,
            DEFAULT_MODEL_RETRIES
        );
        let t = temperature_json(o.temperature.as_ref().unwrap()).unwrap();
        assert_eq!(t.to_string(), "0.25");
        for s in ["0", "1", "2", "0.2", "1.999", "2.000"] {
            let t = temperature_json(&Temperature::parse(s).unwrap()).unwrap();
            assert_eq!(t.as_f64(), s.parse::<f64>().ok(), "{s}");
        }
        assert_eq!(
            temperature_json(&Temperature::parse("0.2").unwrap())
                .unwrap()
                .to_string(),
            "0.2"
        );
    }
}
