//! The assembled tree and the gap vocabulary.

use std::collections::BTreeMap;

/// A complete context tree: relative path → exact bytes, path-ordered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextTree {
    files: BTreeMap<String, Vec<u8>>,
}

impl ContextTree {
    pub(crate) fn insert(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, bytes);
    }
    pub fn files(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.files
    }
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }
    pub fn into_files(self) -> BTreeMap<String, Vec<u8>> {
        self.files
    }
}

/// `gaps[].scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GapScope {
    Entity,
    Comments,
    Reviews,
    Checks,
    CheckLogs,
    AgentRuns,
    Actors,
}

impl GapScope {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "entity" => GapScope::Entity,
            "comments" => GapScope::Comments,
            "reviews" => GapScope::Reviews,
            "checks" => GapScope::Checks,
            "check_logs" => GapScope::CheckLogs,
            "agent_runs" => GapScope::AgentRuns,
            "actors" => GapScope::Actors,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            GapScope::Entity => "entity",
            GapScope::Comments => "comments",
            GapScope::Reviews => "reviews",
            GapScope::Checks => "checks",
            GapScope::CheckLogs => "check_logs",
            GapScope::AgentRuns => "agent_runs",
            GapScope::Actors => "actors",
        }
    }
}

/// `gaps[].code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GapCode {
    ProfileBound,
    HistoryUnavailable,
    Unsupported,
    AuthorizationFailed,
    FetchFailed,
    SourceTooLarge,
    InvalidMetadata,
    UnsafeContent,
}

impl GapCode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "profile_bound" => GapCode::ProfileBound,
            "history_unavailable" => GapCode::HistoryUnavailable,
            "unsupported" => GapCode::Unsupported,
            "authorization_failed" => GapCode::AuthorizationFailed,
            "fetch_failed" => GapCode::FetchFailed,
            "source_too_large" => GapCode::SourceTooLarge,
            "invalid_metadata" => GapCode::InvalidMetadata,
            "unsafe_content" => GapCode::UnsafeContent,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            GapCode::ProfileBound => "profile_bound",
            GapCode::HistoryUnavailable => "history_unavailable",
            GapCode::Unsupported => "unsupported",
            GapCode::AuthorizationFailed => "authorization_failed",
            GapCode::FetchFailed => "fetch_failed",
            GapCode::SourceTooLarge => "source_too_large",
            GapCode::InvalidMetadata => "invalid_metadata",
            GapCode::UnsafeContent => "unsafe_content",
        }
    }
    /// `partial` for bounds and unavailable history, else `unusable`.
    pub fn usability(self) -> &'static str {
        match self {
            GapCode::ProfileBound | GapCode::HistoryUnavailable => "partial",
            _ => "unusable",
        }
    }
}

/// One aggregated gap row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub scope: GapScope,
    pub code: GapCode,
    pub count: u64,
}

/// Gap rows aggregated per (scope, code), sorted by scope then code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gaps(BTreeMap<(&'static str, &'static str), Gap>);

impl Gaps {
    pub fn add(&mut self, scope: GapScope, code: GapCode, count: u64) {
        if count == 0 {
            return;
        }
        self.0
            .entry((scope.as_str(), code.as_str()))
            .and_modify(|g| g.count += count)
            .or_insert(Gap { scope, code, count });
    }
    pub fn rows(&self) -> impl Iterator<Item = &Gap> {
        self.0.values()
    }
    pub fn count(&self, scope: GapScope, code: GapCode) -> u64 {
        self.0
            .get(&(scope.as_str(), code.as_str()))
            .map_or(0, |g| g.count)
    }
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.rows()
                .map(|g| {
                    serde_json::json!({
                        "scope": g.scope.as_str(), "code": g.code.as_str(),
                        "usability": g.code.usability(), "count": g.count,
                    })
                })
                .collect(),
        )
    }
}
