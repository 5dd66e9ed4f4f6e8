//! Review configuration: one flat JSON object (S3.1).
//!
//! Keys: `reviewSnapshotMaxCalls`, `reviewSnapshotMaxBytes`,
//! `reviewContextMaxFileBytes` (also the per-result cap),
//! `reviewContextMaxTotalBytes`, `reviewContextMaxFiles`, `reviewTimeoutMs`,
//! `reviewModelBaseUrl`, `reviewModel`, `reviewModelApiKeyEnv`,
//! `reviewModelProvider` (`openai`, `anthropic` or `command`),
//! `reviewModelCommand` (an argument vector, for `command`),
//! `reviewModelTemperature` (a decimal string such as `"0.2"`, from 0 to 2:
//! the configuration reader refuses floats), `reviewModelSeed`,
//! `reviewModelMaxTokens`, `reviewModelMaxRetries`. Any other key is refused
//! by name.

/// The largest `--config` file read, checked while reading.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

use serde_json::{Map, Value};

use super::budget::{BudgetLimits, DEFAULT_MAX_BYTES, DEFAULT_MAX_CALLS, DEFAULT_RESULT_CAP};

/// Default review timeout: the wall clock shared by all rounds (S3.3).
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 300_000;

/// Declared-context caps (80 KiB a file, 200 KB total, 12 files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextCaps {
    /// The most bytes of one declared file, and the per-result cap of every
    /// tool call (`reviewContextMaxFileBytes`, at least 1; 80 KiB).
    pub max_file_bytes: u64,
    /// The most bytes of declared context in all (`reviewContextMaxTotalBytes`;
    /// 200 000); the model-run roles take it as their diff cap.
    pub max_total_bytes: u64,
    /// The most declared files (`reviewContextMaxFiles`; 12).
    pub max_files: u32,
}

impl Default for ContextCaps {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_RESULT_CAP,
            max_total_bytes: 200_000,
            max_files: 12,
        }
    }
}

/// Which API a model is asked through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible chat completions (`<base>/chat/completions`).
    #[default]
    OpenAi,
    /// The Anthropic Messages API (`<base>/v1/messages`).
    Anthropic,
    /// An external agent CLI: the prompt on stdin, the answer on stdout.
    Command,
}

impl Provider {
    /// The configuration spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Command => "command",
        }
    }

    /// The provider a spelling names.
    pub fn parse(s: &str) -> Option<Provider> {
        [Provider::OpenAi, Provider::Anthropic, Provider::Command]
            .into_iter()
            .find(|p| p.name() == s)
    }
}

/// A sampling temperature, as the decimal text given (`"0.2"`): from 0 to 2
/// with at most three decimals. Kept as text: no float enters a typed
/// input; an adapter sends it as a JSON number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Temperature(String);

impl Temperature {
    /// Parses `0`, `1`, `2`, or `d.ddd` between 0 and 2.
    pub fn parse(s: &str) -> Option<Temperature> {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        let ok = matches!(int, "0" | "1" | "2")
            && digits(frac)
            && frac.len() <= 3
            && (s.contains('.') != frac.is_empty())
            && (int != "2" || frac.bytes().all(|b| b == b'0'));
        ok.then(|| Temperature(s.to_string()))
    }

    /// The decimal text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The default number of retries of a model call answered 429 or 5xx.
pub const DEFAULT_MODEL_RETRIES: u32 = 3;

/// Where the model is and how it is asked. Secrets never live in the file:
/// it names the environment variable that holds the key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSettings {
    /// The API's base URL (`reviewModelBaseUrl`), `http://` or `https://`;
    /// `None` leaves it to the environment or the provider's default.
    pub base_url: Option<String>,
    /// The model name the API is asked for (`reviewModel`); `None` leaves
    /// it to the environment.
    pub model: Option<String>,
    /// The name of the environment variable holding the API key
    /// (`reviewModelApiKeyEnv`), never the key; `None`: the adapter's
    /// default variable.
    pub api_key_env: Option<String>,
    /// Which API is spoken (`reviewModelProvider`; default `openai`).
    pub provider: Provider,
    /// `command`: the program and its arguments (no shell).
    pub command: Vec<String>,
    /// The sampling temperature (`reviewModelTemperature`); `None` sends
    /// none and leaves the API's default.
    pub temperature: Option<Temperature>,
    /// Passed where the API takes one (OpenAI-compatible).
    pub seed: Option<u64>,
    /// The most tokens one answer may use (Anthropic requires one; default
    /// 4096 there).
    pub max_tokens: Option<u32>,
    /// Retries of a call answered 429 or 5xx (`None`: the default, 3;
    /// a configured value is capped at 10).
    pub max_retries: Option<u32>,
}

/// The parsed configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The most tool calls of one review (`reviewSnapshotMaxCalls`; 12).
    pub max_calls: u32,
    /// The most payload bytes all tool results of one review may carry
    /// (`reviewSnapshotMaxBytes`; 200 000).
    pub max_bytes: u64,
    /// The declared-context caps, whose per-file cap is also the per-result
    /// cap.
    pub context: ContextCaps,
    /// The review's wall-clock timeout in milliseconds, shared by all rounds
    /// (`reviewTimeoutMs`, at least 1; S3.3).
    pub timeout_ms: u64,
    /// Where the model is and how it is asked.
    pub model: ModelSettings,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        Self {
            max_calls: DEFAULT_MAX_CALLS,
            max_bytes: DEFAULT_MAX_BYTES,
            context: ContextCaps::default(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            model: ModelSettings::default(),
        }
    }
}

impl ReviewConfig {
    /// The snapshot budget: calls, bytes, and the per-result cap (the
    /// declared-context per-file cap).
    pub fn budget(&self) -> BudgetLimits {
        BudgetLimits {
            max_calls: self.max_calls,
            max_bytes: self.max_bytes,
            result_cap: self.context.max_file_bytes,
        }
    }
}

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not strict JSON (a syntax error, a duplicate key, trailing
    /// data); carries the reader's message.
    #[error("the configuration is not valid JSON: {0}")]
    Json(String),
    /// The document is JSON but not an object.
    #[error("the configuration must be a JSON object of flat keys")]
    NotAnObject,
    /// A key that is not one of the flat keys (S3.1); carries it.
    #[error("unknown configuration key `{0}`")]
    UnknownKey(String),
    /// A known key has a value of the wrong type or shape (a float, a
    /// negative number, an empty string, an unknown provider), or
    /// `reviewModelCommand` is missing for the `command` provider.
    #[error("configuration key `{key}` must be {expected}")]
    WrongType {
        /// The key, as spelled in the file.
        key: String,
        /// What its value must be, as a phrase (`a non-empty string`).
        expected: &'static str,
    },
    /// A whole number below the key's minimum: 0 for
    /// `reviewContextMaxFileBytes`, `reviewTimeoutMs` or
    /// `reviewModelMaxTokens`, which take at least 1.
    #[error("configuration key `{key}` must be at least {min}")]
    TooSmall {
        /// The key, as spelled in the file.
        key: String,
        /// The least value the key takes.
        min: u64,
    },
}

const KEYS: &[&str] = &[
    "reviewSnapshotMaxCalls",
    "reviewSnapshotMaxBytes",
    "reviewContextMaxFileBytes",
    "reviewContextMaxTotalBytes",
    "reviewContextMaxFiles",
    "reviewTimeoutMs",
    "reviewModelBaseUrl",
    "reviewModel",
    "reviewModelApiKeyEnv",
    "reviewModelProvider",
    "reviewModelCommand",
    "reviewModelTemperature",
    "reviewModelSeed",
    "reviewModelMaxTokens",
    "reviewModelMaxRetries",
];

/// Parses the flat configuration document.
pub fn parse_config(text: &str) -> Result<ReviewConfig, ConfigError> {
    // Strict: a key given twice is refused (which one counts would depend
    // on the parser), as are floats and integers beyond 2^53 - 1.
    let v: Value = crate::canonical::parse_strict(text.as_bytes()).map_err(|e| match e {
        // A number that is not a whole one is the wrong type for its key.
        crate::canonical::CanonicalError::Float { path }
        | crate::canonical::CanonicalError::IntegerOutOfRange { path }
            if path.starts_with("$.") =>
        {
            ConfigError::WrongType {
                key: path.trim_start_matches("$.").to_string(),
                expected: "a whole number within ±(2^53 - 1)",
            }
        }
        other => ConfigError::Json(other.to_string()),
    })?;
    let Value::Object(map) = v else {
        return Err(ConfigError::NotAnObject);
    };
    from_map(&map)
}

fn from_map(map: &Map<String, Value>) -> Result<ReviewConfig, ConfigError> {
    if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(ConfigError::UnknownKey(k.clone()));
    }
    let mut c = ReviewConfig::default();
    if let Some(v) = uint(map, "reviewSnapshotMaxCalls", 0)? {
        c.max_calls = u32::try_from(v).map_err(|_| ConfigError::WrongType {
            key: "reviewSnapshotMaxCalls".into(),
            expected: "an integer below 2^32",
        })?;
    }
    if let Some(v) = uint(map, "reviewSnapshotMaxBytes", 0)? {
        c.max_bytes = v;
    }
    if let Some(v) = uint(map, "reviewContextMaxFileBytes", 1)? {
        c.context.max_file_bytes = v;
    }
    if let Some(v) = uint(map, "reviewContextMaxTotalBytes", 0)? {
        c.context.max_total_bytes = v;
    }
    if let Some(v) = uint(map, "reviewContextMaxFiles", 0)? {
        c.context.max_files = u32::try_from(v).map_err(|_| ConfigError::WrongType {
            key: "reviewContextMaxFiles".into(),
            expected: "an integer below 2^32",
        })?;
    }
    if let Some(v) = uint(map, "reviewTimeoutMs", 1)? {
        c.timeout_ms = v;
    }
    c.model.base_url = string(map, "reviewModelBaseUrl")?;
    c.model.model = string(map, "reviewModel")?;
    c.model.api_key_env = string(map, "reviewModelApiKeyEnv")?;
    if let Some(p) = string(map, "reviewModelProvider")? {
        c.model.provider = Provider::parse(&p).ok_or(ConfigError::WrongType {
            key: "reviewModelProvider".into(),
            expected: "one of `openai`, `anthropic`, `command`",
        })?;
    }
    if let Some(v) = map.get("reviewModelCommand") {
        let argv = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_str().filter(|s| !s.is_empty()).map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            })
            .filter(|a| !a.is_empty())
            .ok_or(ConfigError::WrongType {
                key: "reviewModelCommand".into(),
                expected: "a non-empty array of non-empty strings (program first)",
            })?;
        c.model.command = argv;
    }
    if let Some(t) = string(map, "reviewModelTemperature")? {
        c.model.temperature = Some(Temperature::parse(&t).ok_or(ConfigError::WrongType {
            key: "reviewModelTemperature".into(),
            expected: "a decimal string from \"0\" to \"2\" (at most three decimals)",
        })?);
    }
    c.model.seed = uint(map, "reviewModelSeed", 0)?;
    if let Some(v) = uint(map, "reviewModelMaxTokens", 1)? {
        c.model.max_tokens = Some(u32::try_from(v).map_err(|_| ConfigError::WrongType {
            key: "reviewModelMaxTokens".into(),
            expected: "an integer below 2^32",
        })?);
    }
    if let Some(v) = uint(map, "reviewModelMaxRetries", 0)? {
        c.model.max_retries = Some(u32::try_from(v.min(10)).unwrap_or(10));
    }
    if c.model.provider == Provider::Command && c.model.command.is_empty() {
        return Err(ConfigError::WrongType {
            key: "reviewModelCommand".into(),
            expected: "set when reviewModelProvider is `command`",
        });
    }
    Ok(c)
}

fn uint(map: &Map<String, Value>, key: &str, min: u64) -> Result<Option<u64>, ConfigError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v >= min => Ok(Some(v)),
            Some(_) => Err(ConfigError::TooSmall {
                key: key.into(),
                min,
            }),
            None => Err(ConfigError::WrongType {
                key: key.into(),
                expected: "a non-negative integer",
            }),
        },
        Some(_) => Err(ConfigError::WrongType {
            key: key.into(),
            expected: "a non-negative integer",
        }),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, ConfigError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(ConfigError::WrongType {
            key: key.into(),
            expected: "a non-empty string",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_declared_context_caps() {
        let c = parse_config("{}").unwrap();
        assert_eq!(
            c.budget(),
            BudgetLimits {
                max_calls: 12,
                max_bytes: 200_000,
                result_cap: 80 * 1024
            }
        );
        assert_eq!(c.context.max_files, 12);
    }

    #[test]
    fn reads_flat_keys() {
        let c = parse_config(
            r#"{"reviewSnapshotMaxCalls": 3, "reviewSnapshotMaxBytes": 500,
                "reviewContextMaxFileBytes": 100, "reviewModel": "m"}"#,
        )
        .unwrap();
        assert_eq!(c.max_calls, 3);
        assert_eq!(c.max_bytes, 500);
        assert_eq!(c.budget().result_cap, 100);
        assert_eq!(c.model.model.as_deref(), Some("m"));
    }

    #[test]
    fn reads_the_provider_keys() {
        let c = parse_config(
            r#"{"reviewModelProvider": "anthropic", "reviewModelTemperature": "0.25",
                "reviewModelSeed": 7, "reviewModelMaxTokens": 2048, "reviewModelMaxRetries": 50}"#,
        )
        .unwrap();
        assert_eq!(c.model.provider, Provider::Anthropic);
        assert_eq!(
            c.model.temperature.as_ref().map(Temperature::as_str),
            Some("0.25")
        );
        assert_eq!(c.model.seed, Some(7));
        assert_eq!(c.model.max_tokens, Some(2048));
        // Retries are capped at 10, whatever is asked.
        assert_eq!(c.model.max_retries, Some(10));
        let cmd = parse_config(
            r#"{"reviewModelProvider": "command", "reviewModelCommand": ["agent", "--json"]}"#,
        )
        .unwrap();
        assert_eq!(cmd.model.command, ["agent", "--json"]);
        for bad in [
            r#"{"reviewModelProvider": "gemini"}"#,
            r#"{"reviewModelProvider": "command"}"#,
            r#"{"reviewModelCommand": []}"#,
            r#"{"reviewModelCommand": ["agent", ""]}"#,
            r#"{"reviewModelCommand": "agent --json"}"#,
            r#"{"reviewModelTemperature": "2.5"}"#,
            r#"{"reviewModelTemperature": "0.1234"}"#,
            r#"{"reviewModelTemperature": ".5"}"#,
            r#"{"reviewModelTemperature": "1."}"#,
            r#"{"reviewModelMaxTokens": 0}"#,
        ] {
            assert!(parse_config(bad).is_err(), "{bad}");
        }
        for ok in ["0", "1", "2", "0.7", "1.999", "2.0"] {
            assert!(Temperature::parse(ok).is_some(), "{ok}");
        }
    }

    #[test]
    fn refuses_unknown_keys_by_name() {
        let e = parse_config(r#"{"reviewSnapshot": {"maxCalls": 3}}"#).unwrap_err();
        assert_eq!(e, ConfigError::UnknownKey("reviewSnapshot".into()));
        assert_eq!(e.to_string(), "unknown configuration key `reviewSnapshot`");
    }

    #[test]
    fn refuses_wrong_types() {
        assert!(matches!(
            parse_config(r#"{"reviewSnapshotMaxCalls": -1}"#),
            Err(ConfigError::WrongType { .. })
        ));
        assert!(matches!(
            parse_config(r#"{"reviewSnapshotMaxBytes": 1.5}"#),
            Err(ConfigError::WrongType { .. })
        ));
        assert!(matches!(
            parse_config(r#"{"reviewSnapshotMaxCalls": "3"}"#),
            Err(ConfigError::WrongType { .. })
        ));
        assert_eq!(parse_config("[]"), Err(ConfigError::NotAnObject));
        assert!(matches!(parse_config("{"), Err(ConfigError::Json(_))));
    }
}
