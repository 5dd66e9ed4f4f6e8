//! Risk classification from a versioned, hashed policy (R2.4–R2.6).
//!
//! The policy is data (`core/policy/risk-policy-v1.json`, embedded); `policy_hash` is its
//! canonical digest. The tier is always explained by the reason codes it
//! reports, and [`RiskAssessment::new`] refuses a tier the reasons do not
//! imply: the classifier fails closed.

use std::fmt;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::canonical::canonical_digest;
use crate::digest::{Domain, Sha256Digest};
use crate::review::lens::Lens;
use crate::review::snapshot::{CandidateContent, ChangedFile, FileMode, LineCount};

/// Domain of `policy_hash`.
pub const POLICY_DOMAIN: Domain = Domain::new("probity/risk-policy/v1");

/// The risk tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    /// Only provably passive files (docs, images): no lens runs.
    Low,
    /// Ordinary code: the one `--focus` lens runs.
    Medium,
    /// At least one high reason: all four lenses run, in canonical order.
    High,
}

impl RiskLevel {
    /// The lowercase wire spelling, `low` etc.
    pub const fn name(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
        }
    }
}

/// Selects lenses for a risk level: low → none, medium → the focus lens,
/// high → the four canonical lenses in order.
pub fn select_lenses(level: RiskLevel, focus: Lens) -> Vec<Lens> {
    match level {
        RiskLevel::Low => Vec::new(),
        RiskLevel::Medium => vec![focus],
        RiskLevel::High => Lens::CANONICAL.to_vec(),
    }
}

/// Whether `lenses` is a legal selection for `level` (with any focus lens).
pub(crate) fn is_legal_selection(level: RiskLevel, lenses: &[Lens]) -> bool {
    match level {
        RiskLevel::Low => lenses.is_empty(),
        RiskLevel::Medium => lenses.len() == 1,
        RiskLevel::High => lenses == Lens::CANONICAL,
    }
}

/// Authored lines: added + removed of changed paths, excluding golden and
/// generated files (which stay in the identity) and binary files (0).
/// A generated-file marker counts only when the base already had it, so a
/// hand-written change cannot mark itself generated.
pub fn authored_lines(policy: &RiskPolicy, files: &[ChangedFile]) -> u64 {
    files
        .iter()
        .filter(|f| !policy.is_golden(f.path.as_str(), f.base_content.bytes(), f.content.bytes()))
        .map(|f| match f.lines {
            LineCount::Text { added, removed } => added.saturating_add(removed),
            LineCount::Binary => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// The golden/generated rule: files whose lines do not count as authored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenRule {
    /// A path starting with one of these (`golden/`) is golden.
    pub path_prefixes: Vec<String>,
    /// A path containing one of these (`/snapshots/`) is golden.
    pub path_infixes: Vec<String>,
    /// A path ending with one of these (`.snap`) is golden.
    pub suffixes: Vec<String>,
    /// A path whose last component is one of these (lock files such as
    /// `Cargo.lock`) is golden.
    pub file_names: Vec<String>,
    /// Byte strings (`@generated`) that mark a file generated when both the
    /// base and the candidate content carry one.
    pub generated_markers: Vec<String>,
    /// How many leading bytes of each side are searched for a marker.
    pub marker_scan_bytes: usize,
}

/// A versioned risk policy. Changing any field changes `policy_hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiskPolicy {
    /// The policy's version label, `probity.risk-policy/v1`.
    pub schema: String,
    /// Path tokens (a path split at `/`, `\`, `.`, `-` and `_`,
    /// lowercased) that make a change high (`path_token:<t>`).
    pub high_path_tokens: Vec<String>,
    /// Pairs of consecutive path tokens that make a change high
    /// (`adjacent_tokens:<a>+<b>`).
    pub high_adjacent_tokens: Vec<(String, String)>,
    /// Extensions (lowercase, no dot) of shell sources (`shell_source`).
    pub shell_extensions: Vec<String>,
    /// Path prefixes of CI configuration directories (`ci_config`).
    pub ci_path_prefixes: Vec<String>,
    /// File names of CI and release configuration (`ci_config`).
    pub ci_file_names: Vec<String>,
    /// Byte strings whose presence in a changed file's scanned content
    /// means it may spawn a process (`process_spawn`).
    pub process_spawn_patterns: Vec<String>,
    /// More authored (or text-measured) lines than this is
    /// `large_change`.
    pub large_change_lines: u64,
    /// Extensions of text documents a change may touch and stay low risk.
    pub passive_text_extensions: Vec<String>,
    /// Extensions of images a change may touch and stay low risk.
    pub passive_image_extensions: Vec<String>,
    /// File names (matched case-insensitively) of agent instructions: never
    /// passive, whatever their extension.
    pub agent_instruction_file_names: Vec<String>,
    /// Which files' lines are not authored (R2.4).
    pub golden: GoldenRule,
}

const POLICY_V1_JSON: &str = include_str!("../../policy/risk-policy-v1.json");

// The embedded policy is a compile-time constant covered by tests; a
// failure here is a build defect, not user input.
#[allow(clippy::expect_used)]
static POLICY_V1: LazyLock<(RiskPolicy, Sha256Digest)> = LazyLock::new(|| {
    let policy: RiskPolicy =
        serde_json::from_str(POLICY_V1_JSON).expect("embedded risk policy v1 parses");
    let hash =
        canonical_digest(POLICY_DOMAIN, &policy).expect("embedded risk policy v1 is canonical");
    (policy, hash)
});

/// One automaton over the non-empty `patterns` (`None` when there are
/// none): what `contains` over each pattern answers, in one pass.
fn matcher(patterns: &[String]) -> Option<aho_corasick::AhoCorasick> {
    let non_empty: Vec<&str> = patterns
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    if non_empty.is_empty() {
        return None;
    }
    // A handful of short literals: the builder cannot fail on them; a
    // failure would only cost the fast path (the naive search answers).
    aho_corasick::AhoCorasick::new(non_empty).ok()
}

// The built-in policy's process-spawn automaton, built once.
static SPAWN_V1: LazyLock<Option<aho_corasick::AhoCorasick>> =
    LazyLock::new(|| matcher(&RiskPolicy::v1().process_spawn_patterns));

impl RiskPolicy {
    /// Whether `bytes` holds any process-spawn pattern: one pass of an
    /// automaton (built once for the built-in policy), never a search per
    /// pattern.
    fn spawns(&self, bytes: &[u8], built: &Option<aho_corasick::AhoCorasick>) -> bool {
        match built {
            Some(m) => m.is_match(bytes),
            None => self
                .process_spawn_patterns
                .iter()
                .any(|p| contains(bytes, p.as_bytes())),
        }
    }

    /// The built-in policy v1.
    pub fn v1() -> &'static RiskPolicy {
        &POLICY_V1.0
    }

    /// The canonical digest of the built-in policy v1.
    pub fn v1_hash() -> Sha256Digest {
        POLICY_V1.1
    }

    /// Whether `path` is golden or generated (its lines are not authored):
    /// by path, or by a generated marker present in both the base and the
    /// candidate content (a marker added by the change itself does not
    /// count).
    pub fn is_golden(&self, path: &str, base: Option<&[u8]>, candidate: Option<&[u8]>) -> bool {
        let g = &self.golden;
        let name = file_name(path);
        if g.path_prefixes.iter().any(|p| path.starts_with(p.as_str()))
            || g.path_infixes.iter().any(|p| path.contains(p.as_str()))
            || g.suffixes.iter().any(|s| path.ends_with(s.as_str()))
            || g.file_names.iter().any(|n| n == name)
        {
            return true;
        }
        let marked = |bytes: &[u8]| {
            let scan = &bytes[..bytes.len().min(g.marker_scan_bytes)];
            g.generated_markers
                .iter()
                .any(|m| contains(scan, m.as_bytes()))
        };
        match (base, candidate) {
            (Some(b), Some(c)) => marked(b) && marked(c),
            _ => false,
        }
    }

    /// Classifies a change. `authored_lines` is the authored line count.
    pub fn classify(&self, files: &[ChangedFile], authored_lines: u64) -> RiskAssessment {
        let own;
        let spawn = if std::ptr::eq(self, RiskPolicy::v1()) {
            &*SPAWN_V1
        } else {
            own = matcher(&self.process_spawn_patterns);
            &own
        };
        let mut reasons = Vec::new();
        let mut all_passive = !files.is_empty();
        for f in files {
            let path = f.path.as_str();
            let tokens: Vec<String> = path
                .split(['/', '\\', '.', '-', '_'])
                .filter(|t| !t.is_empty())
                .map(str::to_ascii_lowercase)
                .collect();
            for t in &tokens {
                if self.high_path_tokens.iter().any(|h| h == t) {
                    reasons.push(RiskReason::PathToken(t.clone()));
                }
            }
            for w in tokens.windows(2) {
                if self
                    .high_adjacent_tokens
                    .iter()
                    .any(|(a, b)| *a == w[0] && *b == w[1])
                {
                    reasons.push(RiskReason::AdjacentTokens(w[0].clone(), w[1].clone()));
                }
            }
            let ext = extension(path);
            if ext.is_some_and(|e| self.shell_extensions.contains(&e)) {
                reasons.push(RiskReason::ShellSource);
            }
            let name = file_name(path);
            let workflow_yaml = self
                .ci_path_prefixes
                .iter()
                .any(|p| path.starts_with(p.as_str()));
            if workflow_yaml || self.ci_file_names.iter().any(|n| n == name) {
                reasons.push(RiskReason::CiConfig);
            }
            if f.executable_bit_changed() {
                reasons.push(RiskReason::ExecutableBitChange);
            }
            if !self.is_passive(f) {
                all_passive = false;
            }
            // Content not read to the end cannot be shown free of anything.
            if matches!(
                f.content,
                CandidateContent::Bytes {
                    complete: false,
                    ..
                }
            ) {
                reasons.push(RiskReason::UnscannedContent);
            }
            // Every file is scanned: a "document" can be a build input.
            if let Some(bytes) = f.content.bytes()
                && self.spawns(bytes, spawn)
            {
                reasons.push(RiskReason::ProcessSpawn);
            }
        }
        // Size is judged on every line Git measured as text too (outside
        // golden paths): a NUL byte that makes a file "binary" for the
        // authored count must not shrink the tier.
        let text_lines = files
            .iter()
            .filter(|f| !self.is_golden(f.path.as_str(), f.base_content.bytes(), f.content.bytes()))
            .map(|f| f.text_lines)
            .fold(0u64, u64::saturating_add);
        if authored_lines.max(text_lines) > self.large_change_lines {
            reasons.push(RiskReason::LargeChange);
        }
        reasons.sort();
        reasons.dedup();
        let (level, reasons) = if !reasons.is_empty() {
            (RiskLevel::High, reasons)
        } else if all_passive {
            (RiskLevel::Low, vec![RiskReason::DocsOnly])
        } else {
            (RiskLevel::Medium, vec![RiskReason::CodeChange])
        };
        RiskAssessment { level, reasons }
    }

    /// A provably passive file: docs (Markdown, reStructuredText,
    /// AsciiDoc; never `.txt`, which names build inputs such as
    /// `CMakeLists.txt` and `requirements.txt`) or images, with normal modes;
    /// text docs must be complete, valid UTF-8 without `#!`; never an
    /// agent-instruction file.
    fn is_passive(&self, f: &ChangedFile) -> bool {
        let path = f.path.as_str();
        let name = file_name(path);
        if self
            .agent_instruction_file_names
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
        {
            return false;
        }
        let normal = |m: Option<FileMode>| matches!(m, None | Some(FileMode::Regular));
        if !normal(f.old_mode) || !normal(f.new_mode) {
            return false;
        }
        let Some(ext) = extension(path) else {
            return false;
        };
        if self.passive_image_extensions.contains(&ext) {
            return true;
        }
        if !self.passive_text_extensions.contains(&ext) {
            return false;
        }
        match &f.content {
            crate::review::snapshot::CandidateContent::Absent => true,
            crate::review::snapshot::CandidateContent::Bytes { bytes, complete } => {
                *complete && std::str::from_utf8(bytes).is_ok() && !bytes.starts_with(b"#!")
            }
        }
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn extension(path: &str) -> Option<String> {
    let name = file_name(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        None
    } else {
        Some(ext.to_ascii_lowercase())
    }
}

/// A naive search: only for the golden markers, over at most
/// `marker_scan_bytes` (1 KiB) of each side; whole contents go through an
/// automaton ([`RiskPolicy::classify`]).
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

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
    /// `policy_floor:<rule>`: the repository policy read from the base
    /// (`.probity/policy.json`) rates the change high: a `high_risk` path
    /// glob or content literal matched (`path#<i>`, `content#<i>`), or the
    /// change touches the policy's own directory (`policy_dir`).
    PolicyFloor(String),
    /// `docs_only`: every file is provably passive; the only reason of a
    /// low tier.
    DocsOnly,
    /// `code_change`: no high reason, not all passive; the only reason of
    /// a medium tier.
    CodeChange,
}

impl RiskReason {
    /// Whether the reason makes a change high risk.
    pub fn is_high(&self) -> bool {
        !matches!(self, RiskReason::DocsOnly | RiskReason::CodeChange)
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "shell_source" => Self::ShellSource,
            "ci_config" => Self::CiConfig,
            "executable_bit_change" => Self::ExecutableBitChange,
            "process_spawn" => Self::ProcessSpawn,
            "unscanned_content" => Self::UnscannedContent,
            "large_change" => Self::LargeChange,
            "docs_only" => Self::DocsOnly,
            "code_change" => Self::CodeChange,
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
    level: RiskLevel,
    reasons: Vec<RiskReason>,
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
        } else if sorted == [RiskReason::CodeChange] {
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
    /// exactly `docs_only` for `low`, exactly `code_change` for `medium`.
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

/// One automaton over the non-empty literals (`None` when there are none,
/// or the builder refuses them): a single pass answers which occur.
pub(crate) fn literal_matcher(patterns: &[String]) -> Option<aho_corasick::AhoCorasick> {
    matcher(patterns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::ids::RepoPath;
    use crate::review::snapshot::LineCount;

    fn file(
        path: &str,
        old: Option<FileMode>,
        new: Option<FileMode>,
        content: &[u8],
    ) -> ChangedFile {
        ChangedFile {
            path: RepoPath::parse(path).unwrap(),
            old_mode: old,
            new_mode: new,
            text_lines: 1,
            base_content: CandidateContent::Absent,
            lines: LineCount::Text {
                added: 1,
                removed: 0,
            },
            content: CandidateContent::Bytes {
                bytes: content.to_vec(),
                complete: true,
            },
        }
    }

    const R: Option<FileMode> = Some(FileMode::Regular);

    #[test]
    fn policy_parses_and_hashes() {
        assert_eq!(RiskPolicy::v1().schema, "probity.risk-policy/v1");
        assert!(RiskPolicy::v1_hash().to_string().starts_with("sha256:"));
    }

    #[test]
    fn docs_only_is_low() {
        let a = RiskPolicy::v1().classify(&[file("docs/guide.md", R, R, b"# hi\n")], 1);
        assert_eq!(a.level(), RiskLevel::Low);
        assert_eq!(a.reasons(), [RiskReason::DocsOnly]);
    }

    #[test]
    fn agent_instructions_and_shebang_are_not_passive() {
        let p = RiskPolicy::v1();
        assert_eq!(
            p.classify(&[file("AGENTS.md", R, R, b"x")], 1).level(),
            RiskLevel::Medium
        );
        assert_eq!(
            p.classify(&[file("a.md", R, R, b"#!/bin/sh")], 1).level(),
            RiskLevel::Medium
        );
        assert_eq!(
            p.classify(&[file("a.md", R, R, b"\xff")], 1).level(),
            RiskLevel::Medium
        );
    }

    #[test]
    fn high_reasons() {
        let p = RiskPolicy::v1();
        let a = p.classify(&[file("src/auth/token.rs", R, R, b"fn f() {}")], 1);
        assert_eq!(a.reasons(), [RiskReason::PathToken("auth".into())]);
        let a = p.classify(&[file("src/service_token.rs", R, R, b"")], 1);
        assert_eq!(
            a.reasons(),
            [RiskReason::AdjacentTokens("service".into(), "token".into())]
        );
        let a = p.classify(&[file("run.sh", None, R, b"")], 1);
        assert_eq!(a.reasons(), [RiskReason::ShellSource]);
        let a = p.classify(&[file(".github/workflows/ci.yml", R, R, b"")], 1);
        assert_eq!(a.reasons(), [RiskReason::CiConfig]);
        let a = p.classify(&[file("tool", R, Some(FileMode::Executable), b"")], 1);
        assert_eq!(a.reasons(), [RiskReason::ExecutableBitChange]);
        let a = p.classify(&[file("src/x.rs", R, R, b"Command::new(\"ls\")")], 1);
        assert_eq!(a.reasons(), [RiskReason::ProcessSpawn]);
        let a = p.classify(&[file("src/x.rs", R, R, b"")], 401);
        assert_eq!(a.reasons(), [RiskReason::LargeChange]);
        assert_eq!(a.level(), RiskLevel::High);
    }

    #[test]
    fn ordinary_code_is_medium() {
        let a = RiskPolicy::v1().classify(&[file("src/parser.rs", R, R, b"fn f() {}")], 10);
        assert_eq!(
            (a.level(), a.reasons()),
            (RiskLevel::Medium, &[RiskReason::CodeChange][..])
        );
    }

    #[test]
    fn unexplained_tiers_fail_closed() {
        assert!(RiskAssessment::new(RiskLevel::Low, vec![RiskReason::CodeChange]).is_err());
        assert!(RiskAssessment::new(RiskLevel::Medium, vec![RiskReason::ShellSource]).is_err());
        assert!(RiskAssessment::new(RiskLevel::High, vec![]).is_err());
        assert!(
            RiskAssessment::new(
                RiskLevel::High,
                vec![RiskReason::ShellSource, RiskReason::DocsOnly]
            )
            .is_err()
        );
        assert!(RiskAssessment::new(RiskLevel::High, vec![RiskReason::CiConfig]).is_ok());
    }

    #[test]
    fn reasons_round_trip() {
        for r in [
            RiskReason::PathToken("auth".into()),
            RiskReason::AdjacentTokens("service".into(), "token".into()),
            RiskReason::LargeChange,
        ] {
            assert_eq!(RiskReason::parse(&r.to_string()), Some(r));
        }
    }

    #[test]
    fn golden_rule() {
        let p = RiskPolicy::v1();
        assert!(p.is_golden("testdata/golden/a.golden", None, None));
        assert!(p.is_golden("golden/tests/snapshots/x.snap", None, None));
        assert!(p.is_golden("Cargo.lock", None, None));
        let marked = Some(&b"// @generated by tool\n"[..]);
        assert!(p.is_golden("src/gen.rs", marked, marked));
        assert!(!p.is_golden("src/lib.rs", Some(b"fn main() {}"), Some(b"fn main() {}")));
        // A marker the change adds does not make hand-written code generated.
        assert!(!p.is_golden("src/lib.rs", Some(b"fn main() {}"), marked));
        assert!(!p.is_golden("src/new.rs", None, marked));
    }

    #[test]
    fn the_spawn_automaton_answers_as_a_search_per_pattern() {
        let p = RiskPolicy::v1();
        let built = matcher(&p.process_spawn_patterns);
        assert!(built.is_some());
        let mut samples: Vec<Vec<u8>> = vec![b"".to_vec(), b"fn main() {}".to_vec()];
        for pat in &p.process_spawn_patterns {
            let b = pat.as_bytes();
            samples.push(b.to_vec());
            samples.push([b"x ", b, b" y"].concat());
            // Near-misses: the pattern cut short at either end.
            samples.push(b[1..].to_vec());
            samples.push(b[..b.len() - 1].to_vec());
        }
        for s in &samples {
            assert_eq!(
                p.spawns(s, &built),
                p.spawns(s, &None),
                "{}",
                String::from_utf8_lossy(s)
            );
        }
        // A policy that is not the built-in one builds its own and answers
        // the same tier.
        let copy = p.clone();
        let f = file("src/run.rs", R, R, b"let c = Command::new(\"ls\");");
        assert_eq!(
            copy.classify(std::slice::from_ref(&f), 1),
            p.classify(std::slice::from_ref(&f), 1)
        );
        assert_eq!(p.classify(&[f], 1).level(), RiskLevel::High);
    }
}
