//! The normalized forge input: what a forge adapter (C4) hands the pure
//! assembler, independent of any forge. Vocabularies are already the v1
//! ones; values are kept as strings here so that the assembler can turn a
//! malformed optional record into its gap instead of failing the whole
//! document. Unknown fields are rejected. Format: `docs/context.md`.

/// The largest normalized-input document `probity context assemble` reads,
/// checked while reading (a larger one is `input_too_large`, nothing
/// written).
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

use serde::Deserialize;

/// The `format` value of a normalized-input document.
pub const INPUT_FORMAT: &str = "probity-context-input/1";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextInput {
    pub format: String,
    pub source: SourceInput,
    pub profile: ProfileInput,
    pub entity: EntityInput,
    #[serde(default)]
    pub actors: Vec<ActorInput>,
    /// Registered bot roles (ADR 0107) that admit bot content.
    #[serde(default)]
    pub bot_roles: Vec<String>,
    /// Exact run credentials registered for redaction.
    #[serde(default)]
    pub credentials: Vec<String>,
    #[serde(default)]
    pub comments: Vec<CommentInput>,
    #[serde(default)]
    pub reviews: Vec<ReviewInput>,
    #[serde(default)]
    pub threads: Vec<ThreadInput>,
    #[serde(default)]
    pub checks: Vec<CheckInput>,
    #[serde(default)]
    pub agent_runs: Vec<AgentRunInput>,
    /// Gaps the acquisition observed (fetch failures, unavailable history).
    #[serde(default)]
    pub acquisition_gaps: Vec<GapInput>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInput {
    pub forge: String,
    pub host: String,
    pub repository_id: Option<String>,
    pub repository: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileInput {
    pub entity_kind: String,
    pub included_sources: Vec<String>,
    pub record_selection: String,
    pub check_log_selection: String,
    pub bounds: BoundsInput,
    pub admission: AdmissionInput,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundsInput {
    pub max_records_per_source: i64,
    pub max_source_bytes: i64,
    pub max_record_bytes: i64,
    pub max_log_bytes: i64,
    pub max_metadata_string_bytes: i64,
    pub max_labels: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmissionInput {
    pub human_min_role: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityInput {
    pub kind: String,
    pub id: Option<String>,
    pub number: i64,
    pub title: Option<String>,
    pub state: String,
    pub author_id: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    #[serde(default)]
    pub labels: Vec<String>,
    /// The entity body; `null` when it could not be fetched.
    pub body: Option<String>,
    /// The change-proposal HEAD captured at collection start.
    #[serde(default)]
    pub head_sha: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorInput {
    pub id: String,
    pub kind: String,
    pub login: Option<String>,
    /// Verified repository role (humans); `null` when unverified.
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub role_verified: bool,
    /// Bots: provider-positive bot identity was established.
    #[serde(default)]
    pub bot_identity_verified: bool,
    /// Bots: the resolved `actor.bot_role` (ADR 0107), if any.
    #[serde(default)]
    pub bot_role: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentInput {
    pub id: Option<String>,
    pub author_id: Option<String>,
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    pub body: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewInput {
    pub id: Option<String>,
    pub author_id: Option<String>,
    pub state: String,
    pub submitted_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub reviewed_sha: Option<String>,
    #[serde(default)]
    pub body: String,
    /// Dismissed reviews: `null` when the forge exposes no time.
    #[serde(default)]
    pub dismissed_at: Option<String>,
    /// Dismissed reviews: `null` when the forge exposes no actor.
    #[serde(default)]
    pub dismissed_by_actor_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyInput {
    pub comment_id: String,
    pub parent_comment_id: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadInput {
    pub id: Option<String>,
    pub created_at: Option<String>,
    /// Member comment IDs in forge thread order.
    pub comment_ids: Vec<String>,
    #[serde(default)]
    pub replies: Vec<ReplyInput>,
    #[serde(default)]
    pub review_id: Option<String>,
    #[serde(default)]
    pub reviewed_sha: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub line: Option<i64>,
    #[serde(default)]
    pub side: Option<String>,
    #[serde(default)]
    pub start_line: Option<i64>,
    #[serde(default)]
    pub original_line: Option<i64>,
    #[serde(default)]
    pub original_start_line: Option<i64>,
    #[serde(default)]
    pub original_side: Option<String>,
    pub resolved: bool,
    #[serde(default)]
    pub resolved_by_actor_id: Option<String>,
    pub outdated: bool,
    #[serde(default)]
    pub minimized: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckInput {
    pub id: Option<String>,
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    pub created_at: Option<String>,
    pub head_sha: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub never_started: Option<bool>,
    /// The raw log, when fetched.
    #[serde(default)]
    pub log: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentRunInput {
    pub id: Option<String>,
    pub agent: String,
    pub status: String,
    pub input_revision: String,
    #[serde(default)]
    pub input_head_sha: Option<String>,
    #[serde(default)]
    pub result_record_keys: Vec<String>,
    #[serde(default)]
    pub resulting_commit_sha: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GapInput {
    pub scope: String,
    pub code: String,
    pub count: i64,
}
