//! The v1 filter pipeline (C2) under one `filter_version` (D2).
//!
//! Order, for every source-derived value: decode and normalize line endings,
//! Unicode safety (floor classes, NUL, terminal escapes, controls, other
//! `Cf`, NFKC), secret redaction over the complete normalized source, the
//! injection floor over the complete redacted source, the byte bound at a
//! code-point boundary, and a re-scan of the exact emitted bytes when the
//! bound removed bytes. Findings are codes and counts, never text.
//!
//! Regex classes are ASCII and written explicitly (D3): `WS` below is RE2's
//! `\s` (`[\t\n\f\r ]`), and word boundaries are `(?-u:\b)`.

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use unicode_normalization::UnicodeNormalization;

mod families;
mod injection;
mod keywords;
mod redaction;
mod rules;
mod scan;
mod secret_specs;
#[cfg(test)]
mod tests;
mod unicode;
mod validators;
mod vendors;

use std::borrow::Cow;

use families::*;
use injection::*;
use keywords::*;
use redaction::*;
use rules::*;
use scan::*;
use secret_specs::secret_specs;
use unicode::*;
use validators::*;

pub use validators::CODE_LITERALS;
use vendors::*;

/// The filter version new trees are assembled under
/// ([`FilterVersion::CURRENT`]). A version pins the Unicode tables (NFKC
/// from `unicode-normalization`'s Unicode version, the `Cf` table) and every
/// pattern of its detector set. Changing any emitted byte for the same input
/// requires a new version.
pub const FILTER_VERSION: &str = "probity-filter/6";

/// A filter version this build implements, byte for byte (D-R73): the
/// current one, and `probity-filter/4` and `/5`, kept so that a tree
/// recorded under them can be re-derived and verified. All share the
/// Unicode tables; they differ only in their secret detectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum FilterVersion {
    /// `probity-filter/4`.
    V4,
    /// `probity-filter/5`: the `probity-filter/4` floor plus the families
    /// measured against gitleaks and detect-secrets (`docs/secrets.md`),
    /// and four over-eager masks narrowed.
    V5,
    /// `probity-filter/6`: the `probity-filter/5` floor plus vendor-named
    /// values (`DATADOG = …`) that look like random tokens (D-R96).
    #[default]
    V6,
}

impl FilterVersion {
    /// The version new trees are assembled under.
    pub const CURRENT: FilterVersion = FilterVersion::V6;
    /// Every version this build implements, oldest first.
    pub const SUPPORTED: [FilterVersion; 3] =
        [FilterVersion::V4, FilterVersion::V5, FilterVersion::V6];

    /// The `filter_version` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FilterVersion::V4 => "probity-filter/4",
            FilterVersion::V5 => "probity-filter/5",
            FilterVersion::V6 => "probity-filter/6",
        }
    }

    /// The version spelled `s`, if this build implements it.
    pub fn parse(s: &str) -> Option<FilterVersion> {
        Self::SUPPORTED.into_iter().find(|v| v.as_str() == s)
    }
}

/// The Unicode version of the NFKC tables this filter version is pinned to.
pub const NFKC_UNICODE_VERSION: (u8, u8, u8) = (18, 0, 0);

/// Why the pipeline could not run. Any such error aborts assembly; original
/// bytes never pass through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A detector could not be built: a pattern that does not compile, the
    /// keyword prefilter or the registered-credential automaton.
    #[error("filter detector `{detector}` is unavailable: {reason}")]
    DetectorUnavailable {
        /// The detector's finding code (`secret.registered_credential`, ...)
        /// or `prefilter`.
        detector: String,
        /// The builder's message.
        reason: String,
    },
    /// A registered credential has fewer than 8 bytes.
    #[error("a registered credential is empty or shorter than 8 bytes (entry {index})")]
    CredentialTooShort {
        /// Its position in the input's `credentials`, from 0.
        index: usize,
    },
    /// A registered credential contains a CR or LF.
    #[error("a registered credential contains a line break (entry {index})")]
    CredentialMultiline {
        /// Its position in the input's `credentials`, from 0.
        index: usize,
    },
    /// Unicode safety (stripping, then NFKC) still changed the value after four
    /// rounds.
    #[error("Unicode safety did not reach a fixed point")]
    UnicodeNotConverged,
}

/// `filter.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FilterStatus {
    /// `unchanged`: the emitted bytes are the normalized source bytes.
    Unchanged,
    /// `modified`: replacements or redactions were applied.
    Modified,
    /// `truncated`: a byte bound removed source bytes, whatever else changed.
    Truncated,
    /// `rejected`: the value cannot be represented safely; nothing is emitted.
    Rejected,
}

impl FilterStatus {
    /// The `filter.status` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FilterStatus::Unchanged => "unchanged",
            FilterStatus::Modified => "modified",
            FilterStatus::Truncated => "truncated",
            FilterStatus::Rejected => "rejected",
        }
    }
}

/// Finding codes and counts, sorted by code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings(BTreeMap<&'static str, u64>);

impl Findings {
    /// Adds `n` findings of `code`; zero adds nothing (no empty row).
    pub fn add(&mut self, code: &'static str, n: u64) {
        if n > 0 {
            *self.0.entry(code).or_insert(0) += n;
        }
    }
    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Findings) {
        for (c, n) in &other.0 {
            self.add(c, *n);
        }
    }
    /// Whether there is no finding.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// (code, count) pairs, sorted by code.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().map(|(c, n)| (*c, *n))
    }
    /// The count of `code`; 0 when absent.
    pub fn count(&self, code: &str) -> u64 {
        self.0.get(code).copied().unwrap_or(0)
    }
    /// Whether any finding is an `injection.*` code (the value is then
    /// rejected).
    pub fn has_injection(&self) -> bool {
        self.0.keys().any(|c| c.starts_with("injection."))
    }
}

/// A filter summary: status plus findings (the `filter` object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSummary {
    /// The strongest change made (statuses order `unchanged` < `modified` <
    /// `truncated` < `rejected`).
    pub status: FilterStatus,
    /// Every finding, by code.
    pub findings: Findings,
}

impl FilterSummary {
    /// `unchanged` with no finding: the summary of a value nothing touched.
    pub fn unchanged() -> Self {
        FilterSummary {
            status: FilterStatus::Unchanged,
            findings: Findings::default(),
        }
    }
    /// Combines summaries of several values in one document: the strongest
    /// status wins and findings add up.
    pub fn absorb(&mut self, other: &FilterSummary) {
        self.status = self.status.max(other.status);
        self.findings.merge(&other.findings);
    }
    /// The `filter` object, `{status, findings: [{code, count}]}`, findings
    /// sorted by code.
    pub fn to_json(&self) -> serde_json::Value {
        let findings: Vec<serde_json::Value> = self
            .findings
            .iter()
            .map(|(c, n)| serde_json::json!({"code": c, "count": n}))
            .collect();
        serde_json::json!({"status": self.status.as_str(), "findings": findings})
    }
}

/// The result of filtering one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filtered {
    /// The emitted text; empty when rejected.
    pub text: String,
    /// What filtering did: status and findings.
    pub summary: FilterSummary,
}

impl Filtered {
    /// Whether the value was rejected (its text is then empty).
    pub fn is_rejected(&self) -> bool {
        self.summary.status == FilterStatus::Rejected
    }
}

/// The exact run credentials registered for redaction (validated), and the
/// filter version they are applied under (by default the current one).
#[derive(Debug, Clone, Default)]
pub struct CredentialRegistry {
    automaton: Option<AhoCorasick>,
    version: FilterVersion,
}

impl CredentialRegistry {
    /// The same registry applied under filter version `version`.
    pub fn with_version(mut self, version: FilterVersion) -> Self {
        self.version = version;
        self
    }

    /// The filter version this registry is applied under.
    pub fn version(&self) -> FilterVersion {
        self.version
    }

    /// Validates the registry: every entry has at least 8 bytes and no line
    /// break. Both the entry and its NFKC form are matched. It is applied
    /// under the current filter version ([`Self::with_version`] changes it).
    pub fn new(entries: &[String]) -> Result<Self, FilterError> {
        let mut pats: Vec<String> = Vec::new();
        for (index, e) in entries.iter().enumerate() {
            if e.len() < 8 {
                return Err(FilterError::CredentialTooShort { index });
            }
            if e.contains(['\n', '\r']) {
                return Err(FilterError::CredentialMultiline { index });
            }
            pats.push(e.clone());
            let n: String = e.nfkc().collect();
            if n != *e {
                pats.push(n);
            }
        }
        if pats.is_empty() {
            return Ok(Self::default());
        }
        let ac = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&pats)
            .map_err(|e| FilterError::DetectorUnavailable {
                detector: "secret.registered_credential".into(),
                reason: e.to_string(),
            })?;
        Ok(Self {
            automaton: Some(ac),
            version: FilterVersion::default(),
        })
    }
}

// -------------------------------------------------------------- Pipeline

/// The redaction and injection stages over an already Unicode-safe value.
/// The keyword prefilter runs once, over `safe`; the injection stage reuses
/// it for the redacted text, searching again only around the masks.
/// Returns `safe` itself (not a copy) when nothing is redacted.
fn secure<'a>(
    creds: &CredentialRegistry,
    safe: Cow<'a, str>,
    f: &mut Findings,
) -> Result<(Cow<'a, str>, bool), FilterError> {
    let e = engine_for(creds.version)?;
    let t = triggered(e, &safe);
    let (red, edits) = match redact(e, creds, &safe, &t, f) {
        (Cow::Owned(out), edits) => (Some(out), edits),
        (Cow::Borrowed(_), edits) => (None, edits),
    };
    let red = match red {
        Some(out) => Cow::Owned(out),
        None => safe,
    };
    let t = if edits.is_empty() {
        t
    } else {
        triggered_after(e, &t, &red, &edits)
    };
    let mut inj = Findings::default();
    scan_injection_with(e, &red, &t, &mut inj);
    let rejected = !inj.is_empty();
    f.merge(&inj);
    Ok((red, rejected))
}

/// Cuts `s` before the first secret the detectors still see (a secret
/// created by the bound itself); returns whether anything was cut.
fn cut_new_secrets(creds: &CredentialRegistry, s: &mut String) -> Result<bool, FilterError> {
    let e = engine_for(creds.version)?;
    let mut cut = false;
    while let Some(first) = secret_spans(e, creds, s).first() {
        let mut at = first.start;
        while at > 0 && !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
        cut = true;
    }
    Ok(cut)
}

fn rejected(findings: Findings) -> Filtered {
    Filtered {
        text: String::new(),
        summary: FilterSummary {
            status: FilterStatus::Rejected,
            findings,
        },
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Filters a record body or log: bounded to `max_bytes` including the one
/// trailing LF.
pub fn filter_text(
    creds: &CredentialRegistry,
    source: &str,
    max_bytes: u64,
) -> Result<Filtered, FilterError> {
    let mut f = Findings::default();
    let safe = canonical_unicode_safety(source, &mut f)?;
    let (red, is_rejected) = secure(creds, safe, &mut f)?;
    if is_rejected {
        return Ok(rejected(f));
    }
    let body = red.trim_end_matches('\n');
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let (mut text, truncated) = if body.is_empty() {
        (String::new(), false)
    } else if body.len() < max {
        let len = body.len();
        let mut text = red.into_owned();
        text.truncate(len);
        text.push('\n');
        (text, false)
    } else {
        let cut = floor_char_boundary(body, max.saturating_sub(1));
        (body[..cut].to_owned(), true)
    };
    if truncated {
        cut_new_secrets(creds, &mut text)?;
        let t = text.trim_end_matches('\n').len();
        text.truncate(t);
        text.push('\n');
        if let Some(rejection) = rescan(creds, &text, &mut f)? {
            return Ok(rejection);
        }
    }
    let unchanged = is_canonical_body(&text, source);
    Ok(finish(text, unchanged, truncated, f))
}

/// The injection re-scan of bytes the bound changed: `Some(rejected)` when
/// the emitted bytes now carry an injection finding.
fn rescan(
    creds: &CredentialRegistry,
    text: &str,
    f: &mut Findings,
) -> Result<Option<Filtered>, FilterError> {
    let mut again = Findings::default();
    scan_injection(engine_for(creds.version)?, text, &mut again);
    if again.is_empty() {
        return Ok(None);
    }
    f.merge(&again);
    Ok(Some(rejected(std::mem::take(f))))
}

/// The outcome of a filter run that emits bytes; `unchanged`: whether
/// `text` is the normalized source.
fn finish(text: String, unchanged: bool, truncated: bool, findings: Findings) -> Filtered {
    let status = if truncated {
        FilterStatus::Truncated
    } else if !unchanged {
        FilterStatus::Modified
    } else {
        FilterStatus::Unchanged
    };
    Filtered {
        text,
        summary: FilterSummary { status, findings },
    }
}

/// Filters a source-derived display string (title, label, login, check or
/// agent name): bounded at a code-point boundary, no LF added. An empty
/// result is returned as empty text (callers treat it as absent).
pub(crate) fn filter_display(
    creds: &CredentialRegistry,
    source: &str,
    max_bytes: u64,
) -> Result<Filtered, FilterError> {
    let mut f = Findings::default();
    let normalized = line_endings(source);
    let safe = unicode_safety(&normalized, &mut f)?;
    let (red, is_rejected) = secure(creds, safe, &mut f)?;
    if is_rejected {
        return Ok(rejected(f));
    }
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut text = red.into_owned();
    let truncated = text.len() > max;
    if truncated {
        let cut = floor_char_boundary(&text, max);
        text.truncate(cut);
        cut_new_secrets(creds, &mut text)?;
        if let Some(rejection) = rescan(creds, &text, &mut f)? {
            return Ok(rejection);
        }
    }
    let unchanged = text == normalized;
    Ok(finish(text, unchanged, truncated, f))
}

/// Structural values (IDs, paths, host, repository) pass the complete
/// pipeline and are never rewritten: a value is safe only when the pipeline
/// leaves it byte-identical and it fits `max_bytes`.
pub(crate) fn structural_is_safe(
    creds: &CredentialRegistry,
    value: &str,
    max_bytes: u64,
) -> Result<bool, FilterError> {
    if u64::try_from(value.len()).unwrap_or(u64::MAX) > max_bytes {
        return Ok(false);
    }
    let out = filter_display(creds, value, max_bytes)?;
    Ok(out.summary.status == FilterStatus::Unchanged && out.text == value)
}
