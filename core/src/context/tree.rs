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
    /// Every file, relative `/`-separated path → bytes, in path order
    /// (`index.json` included once assembled).
    pub fn files(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.files
    }
    /// The bytes of the file at `path`, if the tree has it.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }
    /// The files, path → bytes, consuming the tree.
    pub fn into_files(self) -> BTreeMap<String, Vec<u8>> {
        self.files
    }
}

/// `gaps[].scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GapScope {
    /// `entity`: the entity body and metadata; an unusable gap here aborts
    /// assembly.
    Entity,
    /// `comments`: comment records.
    Comments,
    /// `reviews`: formal reviews and review threads.
    Reviews,
    /// `checks`: check runs.
    Checks,
    /// `check_logs`: the logs of selected checks.
    CheckLogs,
    /// `agent_runs`: run receipts.
    AgentRuns,
    /// `actors`: actor rows; any gap here leaves authorization unusable, so
    /// consumers fail closed.
    Actors,
}

impl GapScope {
    /// Parses a `gaps[].scope` spelling; `None` for anything else.
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
    /// The `gaps[].scope` spelling.
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
    /// `profile_bound` (partial): records a profile bound or the fetch window
    /// dropped.
    ProfileBound,
    /// `history_unavailable` (partial): the forge keeps no immutable history of
    /// the source (GitLab approvals).
    HistoryUnavailable,
    /// `unsupported` (unusable): the adapter cannot collect the source (Forgejo
    /// checks, agent runs).
    Unsupported,
    /// `authorization_failed` (unusable): records whose author is missing,
    /// unverified or below the admission threshold.
    AuthorizationFailed,
    /// `fetch_failed` (unusable): a listing or log that could not be fetched
    /// (for the entity, a missing body).
    FetchFailed,
    /// `source_too_large` (unusable): a body or log over `max_source_bytes`,
    /// left undecoded.
    SourceTooLarge,
    /// `invalid_metadata` (unusable): records left out for a missing, malformed
    /// or unmapped value, or referenced actors without a valid row.
    InvalidMetadata,
    /// `unsafe_content` (unusable): content the filter rejected, or an unsafe
    /// structural value.
    UnsafeContent,
}

impl GapCode {
    /// Parses a `gaps[].code` spelling; `None` for anything else.
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
    /// The `gaps[].code` spelling.
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
    /// The scope the records are missing from.
    pub scope: GapScope,
    /// Why they are missing; the row's `usability` follows from it.
    pub code: GapCode,
    /// How many records (or labels) are affected; at least 1.
    pub count: u64,
}

/// Gap rows aggregated per (scope, code), sorted by scope then code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gaps(BTreeMap<(&'static str, &'static str), Gap>);

impl Gaps {
    /// Adds `count` to the row of (`scope`, `code`), creating it; a zero count
    /// adds nothing (no empty row).
    pub fn add(&mut self, scope: GapScope, code: GapCode, count: u64) {
        if count == 0 {
            return;
        }
        self.0
            .entry((scope.as_str(), code.as_str()))
            .and_modify(|g| g.count += count)
            .or_insert(Gap { scope, code, count });
    }
    /// The rows, sorted by the scope's then the code's spelling.
    pub fn rows(&self) -> impl Iterator<Item = &Gap> {
        self.0.values()
    }
    /// The count of the (`scope`, `code`) row; 0 when there is none.
    pub fn count(&self, scope: GapScope, code: GapCode) -> u64 {
        self.0
            .get(&(scope.as_str(), code.as_str()))
            .map_or(0, |g| g.count)
    }
    /// The index `gaps` array: `{scope, code, usability, count}` per row, in
    /// row order.
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
