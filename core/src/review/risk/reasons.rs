//! Why a change has its tier: the reason codes and the assessment that
//! refuses a tier its reasons do not imply (moved out of `risk.rs` as it
//! was, moves only).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::RiskLevel;

/// Why a change has its tier. Rendered as stable codes, e.g. `path_token:auth`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RiskReason {
    /// `path_token:<t>`: a changed path holds a high path token.
    PathToken(String),
    /// `adjacent_tokens:<a>+<b>`: a changed path holds a high token pair.
    AdjacentTokens(String, String),
    /// `shell_source`: a changed file has a shell extension.
    ShellSource,
    /// `ci_config`: a changed file is CI or release configuration.
    CiConfig,
    /// `executable_bit_change`: an executable bit was set or cleared, or a
    /// new file is executable.
    ExecutableBitChange,
    /// `process_spawn`: a changed file's content matches a process-spawn
    /// pattern.
    ProcessSpawn,
    /// A changed file larger than the scanned prefix: not shown passive or
    /// spawn-free.
    UnscannedContent,
    /// `large_change`: more lines than the policy's `large_change_lines`.
    LargeChange,
    /// `agent_hooks`: a changed file is agent configuration that runs
    /// commands by itself (hooks, MCP server launchers; v2).
    AgentHooks,
    /// `auto_run_config`: a changed file is configuration a tool runs by
    /// itself on a teammate's or a CI machine (editor tasks, dev
    /// containers, git hook managers, direnv, build scripts, install-time
    /// package scripts; v3).
    AutoRunConfig,
    /// `policy_floor:<rule>`: the repository policy read from the base
    /// (`.probity/policy.json`) rates the change high: a `high_risk` path
    /// glob or content literal matched (`path#<i>`, `content#<i>`), or the
    /// change touches the policy's own directory (`policy_dir`).
    PolicyFloor(String),
    /// `docs_only`: every file is provably passive; the only reason of a
    /// low tier.
    DocsOnly,
    /// `code_change`: no high reason, not all passive: a file that is not
    /// a document (under v1, any file not passive: the only reason of a
    /// medium tier).
    CodeChange,
    /// `agent_instructions`: an agent-instruction file, which an agent
    /// follows (medium; v2).
    AgentInstructions,
    /// `doc_code_block`: a document carrying code (a fence, a doctest
    /// prompt, an indented code line; under v6 a directive not listed
    /// inert) that a tool may run, rustdoc's doctests and Sphinx's
    /// directives among them (medium; v2).
    DocCodeBlock,
}

impl RiskReason {
    /// Whether the reason makes a change high risk.
    pub fn is_high(&self) -> bool {
        !matches!(self, RiskReason::DocsOnly) && !self.is_medium()
    }

    /// Whether the reason explains a medium tier (`code_change`,
    /// `agent_instructions`, `doc_code_block`).
    pub fn is_medium(&self) -> bool {
        matches!(
            self,
            RiskReason::CodeChange | RiskReason::AgentInstructions | RiskReason::DocCodeBlock
        )
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "shell_source" => Self::ShellSource,
            "ci_config" => Self::CiConfig,
            "executable_bit_change" => Self::ExecutableBitChange,
            "process_spawn" => Self::ProcessSpawn,
            "unscanned_content" => Self::UnscannedContent,
            "large_change" => Self::LargeChange,
            "docs_only" => Self::DocsOnly,
            "code_change" => Self::CodeChange,
            "agent_hooks" => Self::AgentHooks,
            "auto_run_config" => Self::AutoRunConfig,
            "agent_instructions" => Self::AgentInstructions,
            "doc_code_block" => Self::DocCodeBlock,
            _ => {
                if let Some(rule) = s.strip_prefix("policy_floor:") {
                    if rule.is_empty() || rule.contains(char::is_whitespace) {
                        return None;
                    }
                    return Some(Self::PolicyFloor(rule.to_string()));
                }
                if let Some(t) = s.strip_prefix("path_token:") {
                    if t.is_empty() {
                        return None;
                    }
                    Self::PathToken(t.to_string())
                } else {
                    let pair = s.strip_prefix("adjacent_tokens:")?;
                    let (a, b) = pair.split_once('+')?;
                    if a.is_empty() || b.is_empty() {
                        return None;
                    }
                    Self::AdjacentTokens(a.to_string(), b.to_string())
                }
            }
        })
    }
}

impl fmt::Display for RiskReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RiskReason::PathToken(t) => write!(f, "path_token:{t}"),
            RiskReason::AdjacentTokens(a, b) => write!(f, "adjacent_tokens:{a}+{b}"),
            RiskReason::ShellSource => f.write_str("shell_source"),
            RiskReason::CiConfig => f.write_str("ci_config"),
            RiskReason::ExecutableBitChange => f.write_str("executable_bit_change"),
            RiskReason::ProcessSpawn => f.write_str("process_spawn"),
            RiskReason::UnscannedContent => f.write_str("unscanned_content"),
            RiskReason::LargeChange => f.write_str("large_change"),
            RiskReason::PolicyFloor(rule) => write!(f, "policy_floor:{rule}"),
            RiskReason::DocsOnly => f.write_str("docs_only"),
            RiskReason::CodeChange => f.write_str("code_change"),
            RiskReason::AgentHooks => f.write_str("agent_hooks"),
            RiskReason::AutoRunConfig => f.write_str("auto_run_config"),
            RiskReason::AgentInstructions => f.write_str("agent_instructions"),
            RiskReason::DocCodeBlock => f.write_str("doc_code_block"),
        }
    }
}

impl Serialize for RiskReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RiskReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown risk reason `{s}`")))
    }
}

impl JsonSchema for RiskReason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RiskReason".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(path_token:.+|adjacent_tokens:.+\\+.+|shell_source|ci_config|executable_bit_change|process_spawn|unscanned_content|large_change|docs_only|code_change)$"
        })
    }
}

/// A tier with the reasons that explain it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RiskAssessment {
    pub(super) level: RiskLevel,
    pub(super) reasons: Vec<RiskReason>,
}

/// The reasons do not explain the tier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("risk tier `{level}` is not explained by its reasons {reasons:?}")]
pub struct UnexplainedRisk {
    /// The tier claimed, `low`, `medium` or `high`.
    pub level: &'static str,
    /// The reasons given, as their stable codes.
    pub reasons: Vec<String>,
}

impl RiskAssessment {
    /// Accepts a tier only when its reasons imply it (fail closed).
    pub fn new(level: RiskLevel, reasons: Vec<RiskReason>) -> Result<Self, UnexplainedRisk> {
        let mut sorted = reasons.clone();
        sorted.sort();
        sorted.dedup();
        let implied = if sorted.iter().any(RiskReason::is_high) {
            sorted
                .iter()
                .all(RiskReason::is_high)
                .then_some(RiskLevel::High)
        } else if sorted == [RiskReason::DocsOnly] {
            Some(RiskLevel::Low)
        } else if !sorted.is_empty() && sorted.iter().all(RiskReason::is_medium) {
            Some(RiskLevel::Medium)
        } else {
            None
        };
        if implied == Some(level) && sorted == reasons {
            Ok(Self { level, reasons })
        } else {
            Err(UnexplainedRisk {
                level: level.name(),
                reasons: reasons.iter().map(ToString::to_string).collect(),
            })
        }
    }

    /// The tier, which the reasons imply.
    pub fn level(&self) -> RiskLevel {
        self.level
    }

    /// The reasons, sorted and unique: high reasons only for `high`,
    /// exactly `docs_only` for `low`, medium reasons only for `medium`
    /// (exactly `code_change` under v1).
    pub fn reasons(&self) -> &[RiskReason] {
        &self.reasons
    }

    /// This assessment raised by a repository policy's floor reasons
    /// (`policy_floor:*`, each high): with none it is unchanged; with any,
    /// the tier is high and the reasons are the high ones already found
    /// plus the floor's (the `docs_only` or `code_change` of a lower tier
    /// no longer explains it).
    pub fn with_floor(self, floor: Vec<RiskReason>) -> Self {
        let mut floor: Vec<RiskReason> = floor.into_iter().filter(RiskReason::is_high).collect();
        if floor.is_empty() {
            return self;
        }
        let mut reasons: Vec<RiskReason> = self
            .reasons
            .into_iter()
            .filter(RiskReason::is_high)
            .collect();
        reasons.append(&mut floor);
        reasons.sort();
        reasons.dedup();
        Self {
            level: RiskLevel::High,
            reasons,
        }
    }
}
