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

use super::filter::FilterVersion;

/// The `format` value of a normalized-input document.
pub const INPUT_FORMAT: &str = "probity-context-input/1";

/// The normalized input document (`probity-context-input/1`): everything the
/// assembler reads. Read strictly (no key twice, no floats, integers within
/// ±(2^53 − 1)); array order does not change the output.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextInput {
    /// The input format; anything but [`INPUT_FORMAT`] is
    /// `AssembleError::Format`.
    pub format: String,
    /// The repository the entity lives in (the index `source`).
    pub source: SourceInput,
    /// The collection profile, validated before anything else is looked at.
    pub profile: ProfileInput,
    /// The handled issue or change proposal.
    pub entity: EntityInput,
    /// The accounts the records reference (authors, resolvers, dismissers), one
    /// row per actor ID (a repeated ID is an input error). A referenced actor
    /// without a row is an `actors` `invalid_metadata` gap.
    #[serde(default)]
    pub actors: Vec<ActorInput>,
    /// Registered bot roles (ADR 0107) that admit bot content.
    #[serde(default)]
    pub bot_roles: Vec<String>,
    /// Exact run credentials registered for redaction.
    #[serde(default)]
    pub credentials: Vec<String>,
    /// The filter version to assemble under (D-R73): absent for the current
    /// one (`probity-filter/6`); `probity-filter/4` or `/5` re-derives a
    /// tree recorded under that version byte for byte. Any other value is
    /// `AssembleError::Input`.
    #[serde(default)]
    pub filter_version: Option<String>,
    /// Conversation and review-thread comments, read only when the profile
    /// includes `comments`.
    #[serde(default)]
    pub comments: Vec<CommentInput>,
    /// Formal reviews, read only when the profile includes `reviews`.
    #[serde(default)]
    pub reviews: Vec<ReviewInput>,
    /// Review threads over `comments`, read only when the profile includes
    /// `reviews` (threads belong to that scope).
    #[serde(default)]
    pub threads: Vec<ThreadInput>,
    /// Check runs, read only when the profile includes `checks`; only those on
    /// `entity.head_sha` are kept.
    #[serde(default)]
    pub checks: Vec<CheckInput>,
    /// Fullsend run receipts, read only when the profile includes `agent_runs`.
    #[serde(default)]
    pub agent_runs: Vec<AgentRunInput>,
    /// Gaps the acquisition observed (fetch failures, unavailable history).
    #[serde(default)]
    pub acquisition_gaps: Vec<GapInput>,
}

/// The filter version `input` asks for: the current one when it names
/// none; `Err` with the unsupported spelling.
pub(crate) fn filter_version(input: &ContextInput) -> Result<FilterVersion, String> {
    match input.filter_version.as_deref() {
        None => Ok(FilterVersion::CURRENT),
        Some(v) => FilterVersion::parse(v).ok_or_else(|| v.to_owned()),
    }
}

/// The index `source`: a required singleton, so a missing, invalid or unsafe
/// field aborts assembly (`AssembleError::Source`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInput {
    /// `github`, `gitlab` or `forgejo`.
    pub forge: String,
    /// The forge's lowercase DNS name, `:<port>` appended only when the port is
    /// not 443; no scheme or path (D11).
    pub host: String,
    /// The forge's immutable repository ID (GitHub node ID, GitLab or Forgejo
    /// base-10 `id`), an input of every record key; required (`None` aborts).
    pub repository_id: Option<String>,
    /// The navigation path: lowercase `owner/name` on GitHub and Forgejo,
    /// GitLab's `path_with_namespace`; not hashed. Required (`None` aborts).
    pub repository: Option<String>,
}

/// The collection profile as given, before validation (`Profile::parse`); it
/// becomes `collection.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileInput {
    /// `work_item` or `change_proposal`; must equal the entity's `kind`.
    pub entity_kind: String,
    /// The sources to collect, each once: `entity` (required), `comments`,
    /// `reviews`, `checks`, `check_logs` (only with `checks`) and `agent_runs`;
    /// a work item takes only `comments` and `agent_runs` besides `entity`.
    pub included_sources: Vec<String>,
    /// `oldest` or `newest`: which `max_records_per_source` records of each
    /// source are kept, in canonical order.
    pub record_selection: String,
    /// `none`, `failed` or `all`: which retained checks keep their log; `none`
    /// exactly when `check_logs` is not included.
    pub check_log_selection: String,
    /// The count and byte bounds.
    pub bounds: BoundsInput,
    /// The human admission threshold (D1).
    pub admission: AdmissionInput,
}

/// The profile's bounds as given, signed so that a value below its minimum is
/// refused by name (`ProfileError::Bound`) rather than as a parse error. Byte
/// bounds count UTF-8 bytes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundsInput {
    /// Records kept per optional source, after admission and validation (at
    /// least 1); the dropped ones are the scope's `profile_bound` gap.
    pub max_records_per_source: i64,
    /// The acquisition cap (at least 1): an entity body, comment or review body
    /// or log longer than this is not decoded (`source_too_large`; for the
    /// entity body, assembly aborts).
    pub max_source_bytes: i64,
    /// The bound of each emitted record body after filtering, its one trailing
    /// LF included (at least 1).
    pub max_record_bytes: i64,
    /// The bound of each emitted check log after filtering, its one trailing LF
    /// included (at least 1).
    pub max_log_bytes: i64,
    /// The bound of each display string (title, label, login, check or agent
    /// name), which is truncated to it, and the longest structural value (ID,
    /// host, repository, review path), which is invalid beyond it (at least 1).
    pub max_metadata_string_bytes: i64,
    /// Entity labels kept after sorting (0 or more); the dropped ones are an
    /// `entity` `profile_bound` gap.
    pub max_labels: i64,
}

/// `collection.json` `admission` (D1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmissionInput {
    /// `triage` or `write`: the least verified repository role a human author
    /// needs for their records to be admitted.
    pub human_min_role: String,
}

/// The handled issue or change proposal: the entity record and
/// `entity/metadata.json`. A required singleton: a missing, invalid or unsafe
/// value aborts assembly (`AssembleError::EntityAborted`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityInput {
    /// `work_item` or `change_proposal`; must equal the profile's
    /// `entity_kind`.
    pub kind: String,
    /// The forge's immutable entity ID (GitHub node ID, GitLab or Forgejo
    /// base-10 `id`; never the display number), an input of the entity's record
    /// key; required.
    pub id: Option<String>,
    /// The positive display number (the issue, pull request or merge request
    /// number; GitLab's `iid`).
    pub number: i64,
    /// The title, filtered as a display string; missing, unsafe or empty after
    /// filtering aborts.
    pub title: Option<String>,
    /// `open`, `closed` or `merged` (a work item cannot be merged).
    pub state: String,
    /// The author's actor ID; `None` for a deleted or withheld author, who
    /// cannot be admitted, so assembly aborts (`authorization_failed`).
    pub author_id: Option<String>,
    /// RFC 3339 creation time (any offset, 0 to 9 fraction digits; normalized
    /// to UTC), the entity record's `Created-At`; required.
    pub created_at: Option<String>,
    /// RFC 3339 time of the last update (the index `entity.updated_at`);
    /// required.
    pub updated_at: Option<String>,
    /// Label names in any order: filtered as display strings, empty and unsafe
    /// ones dropped, deduplicated, sorted and cut to `max_labels`.
    #[serde(default)]
    pub labels: Vec<String>,
    /// The entity body; `null` when it could not be fetched.
    pub body: Option<String>,
    /// The change-proposal HEAD captured at collection start.
    #[serde(default)]
    pub head_sha: Option<String>,
}

/// One account the records may reference (a `state/actors.json` row when
/// referenced).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorInput {
    /// The forge's immutable actor ID (GitHub node ID, GitLab or Forgejo
    /// base-10 user `id`); an invalid or unsafe one drops the row with an
    /// `actors` `invalid_metadata` gap.
    pub id: String,
    /// `human` or `bot`.
    pub kind: String,
    /// The current login, filtered as a display string (emitted as `null` when
    /// unsafe or empty); `None` when the forge gave none.
    pub login: Option<String>,
    /// Verified repository role (humans); `null` when unverified.
    #[serde(default)]
    pub role: Option<String>,
    /// Humans: whether `role` came from a successful permission lookup; true
    /// exactly when `role` is set. Bots: always false.
    #[serde(default)]
    pub role_verified: bool,
    /// Bots: provider-positive bot identity was established.
    #[serde(default)]
    pub bot_identity_verified: bool,
    /// Bots: the resolved `actor.bot_role` (ADR 0107), if any.
    #[serde(default)]
    pub bot_role: Option<String>,
}

/// One comment: a conversation comment or a review-thread comment (`comments`
/// scope).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentInput {
    /// The forge's immutable comment ID, an input of its record key; a missing,
    /// invalid or duplicated one is `invalid_metadata`.
    pub id: Option<String>,
    /// The author's actor ID; `None` for a deleted author, who is never
    /// admitted (`authorization_failed`).
    pub author_id: Option<String>,
    /// RFC 3339 creation time: the record's `Created-At` and filename order
    /// key; `None` is `invalid_metadata`.
    pub created_at: Option<String>,
    /// RFC 3339 time of the last edit, when the forge reports one (the index
    /// record's `updated_at`).
    #[serde(default)]
    pub updated_at: Option<String>,
    /// The Markdown body as the forge returned it: over `max_source_bytes` it
    /// is `source_too_large`, otherwise filtered and bounded by
    /// `max_record_bytes` into the record file.
    pub body: String,
}

/// One formal review of a change proposal (`reviews` scope).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewInput {
    /// The forge's immutable review ID, an input of its record key; a missing,
    /// invalid or duplicated one is `invalid_metadata`.
    pub id: Option<String>,
    /// The author's actor ID; `None` for a deleted author, who is never
    /// admitted (`authorization_failed`).
    pub author_id: Option<String>,
    /// `approved`, `changes_requested`, `commented` or `dismissed` (the adapter
    /// leaves unsubmitted reviews out).
    pub state: String,
    /// RFC 3339 submission time: the record's `Created-At`, order key and
    /// `submitted_at`; `None` is `invalid_metadata`.
    pub submitted_at: Option<String>,
    /// RFC 3339 time of the last edit, when the forge reports one.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// The commit the review was submitted on (40 or 64 lowercase hex), when
    /// the forge reports it.
    #[serde(default)]
    pub reviewed_sha: Option<String>,
    /// The Markdown body (empty when absent), filtered and bounded like a
    /// comment body.
    #[serde(default)]
    pub body: String,
    /// Dismissed reviews: `null` when the forge exposes no time.
    #[serde(default)]
    pub dismissed_at: Option<String>,
    /// Dismissed reviews: `null` when the forge exposes no actor.
    #[serde(default)]
    pub dismissed_by_actor_id: Option<String>,
}

/// A reply edge between two comments of one thread.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyInput {
    /// The forge ID of the replying comment.
    pub comment_id: String,
    /// The forge ID of the comment it replies to.
    pub parent_comment_id: String,
}

/// One review thread: which comments it groups, where in the diff it sits and
/// its resolution state (`relations/reviews.json`, `state/threads.json`). A
/// thread with no retained comment is omitted.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadInput {
    /// The thread's forge ID (GitHub review-thread node ID, GitLab discussion
    /// ID, Forgejo root comment ID: D8), an input of its thread key; a missing,
    /// invalid or duplicated one is a `reviews` `invalid_metadata` gap.
    pub id: Option<String>,
    /// RFC 3339 creation time (its first comment's, D8); `None` is
    /// `invalid_metadata`.
    pub created_at: Option<String>,
    /// Member comment IDs in forge thread order.
    pub comment_ids: Vec<String>,
    /// Reply edges between its comments, in any order; an edge is kept only
    /// when both ends are retained with content, and emitted in forge thread
    /// order.
    #[serde(default)]
    pub replies: Vec<ReplyInput>,
    /// The formal review the thread belongs to (a review's forge ID); its
    /// `review_record_key` is emitted only when that review is retained.
    #[serde(default)]
    pub review_id: Option<String>,
    /// The commit the thread's comments were made on (40 or 64 lowercase hex).
    #[serde(default)]
    pub reviewed_sha: Option<String>,
    /// The repository-relative file path the thread is on: it must pass the
    /// filter unchanged (else the thread is omitted, `unsafe_content`) and be a
    /// valid repository path (else `invalid_metadata`).
    #[serde(default)]
    pub path: Option<String>,
    /// The 1-based line the thread is anchored on in the current diff (the last
    /// line of a multi-line thread); below 1 is `invalid_metadata`.
    #[serde(default)]
    pub line: Option<i64>,
    /// The diff side of `line`: `left` (the old file) or `right` (the new
    /// file).
    #[serde(default)]
    pub side: Option<String>,
    /// The 1-based first line of a multi-line thread; absent for one line.
    #[serde(default)]
    pub start_line: Option<i64>,
    /// `line` in the diff the thread was created on, 1-based.
    #[serde(default)]
    pub original_line: Option<i64>,
    /// `start_line` in the diff the thread was created on, 1-based.
    #[serde(default)]
    pub original_start_line: Option<i64>,
    /// The diff side of `original_line`: `left` or `right`.
    #[serde(default)]
    pub original_side: Option<String>,
    /// Whether the thread is resolved (mutable state).
    pub resolved: bool,
    /// Who resolved it; read only when `resolved`, `None` when the forge does
    /// not say (emitted as `null`).
    #[serde(default)]
    pub resolved_by_actor_id: Option<String>,
    /// Whether the forge marks the thread outdated (its lines changed since);
    /// `false` where the forge exposes no such observation. The records of
    /// unresolved, non-outdated threads make `views/unresolved-review.order`.
    pub outdated: bool,
    /// Whether the forge shows the thread minimized (hidden); `None` when not
    /// observed (then omitted).
    #[serde(default)]
    pub minimized: Option<bool>,
}

/// One check run of the change proposal (`checks` scope); the status-specific
/// timestamp rules of `check.schema.json` apply, and a check that breaks them
/// is `invalid_metadata`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckInput {
    /// The forge's immutable check-run ID (a new attempt has a new one), an
    /// input of its record key; a missing, invalid or duplicated one is
    /// `invalid_metadata`.
    pub id: Option<String>,
    /// The check's name, filtered as a display string; unsafe is
    /// `unsafe_content`, empty `invalid_metadata`.
    pub name: String,
    /// `queued`, `in_progress` or `completed` (already mapped from the forge's
    /// vocabulary).
    pub status: String,
    /// The outcome of a completed check: `success`, `failure`, `neutral`,
    /// `cancelled`, `skipped`, `timed_out`, `action_required` or `stale`;
    /// required when completed, ignored otherwise.
    #[serde(default)]
    pub conclusion: Option<String>,
    /// RFC 3339 immutable creation time of the check run (on GitHub its Actions
    /// job's, D7); `None` is `invalid_metadata`.
    pub created_at: Option<String>,
    /// The revision the check ran on (40 or 64 lowercase hex); a check on any
    /// other revision than `entity.head_sha` is `invalid_metadata`.
    pub head_sha: Option<String>,
    /// RFC 3339 start time: required in progress, and when completed unless
    /// `never_started`, which forbids it; ignored when queued.
    #[serde(default)]
    pub started_at: Option<String>,
    /// RFC 3339 terminal time: required when completed, except that a check
    /// that never started and has none takes `created_at`.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Completed checks: whether the forge reports that the check never started
    /// (allowed only with `failure`, `skipped` or `cancelled` and no
    /// `started_at`); required when completed.
    #[serde(default)]
    pub never_started: Option<bool>,
    /// The raw log, when fetched.
    #[serde(default)]
    pub log: Option<String>,
}

/// One Fullsend run receipt (`agent_runs` scope, `history/agent-runs.json`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentRunInput {
    /// The receipt's ID (a GitHub node ID on GitHub, the generic structural
    /// alphabet elsewhere); a missing, invalid or duplicated one is
    /// `invalid_metadata`.
    pub id: Option<String>,
    /// The agent's name, filtered as a display string; unsafe is
    /// `unsafe_content`, empty `invalid_metadata`.
    pub agent: String,
    /// `success`, `failure`, `cancelled`, `skipped` or `timed_out`.
    pub status: String,
    /// The input the run consumed: the lowercase hex SHA-256 of its
    /// `index.json` bytes (64 digits).
    pub input_revision: String,
    /// The Git revision checked out for the run (40 or 64 lowercase hex), when
    /// recorded.
    #[serde(default)]
    pub input_head_sha: Option<String>,
    /// The record keys (64 lowercase hex each) of the records the run produced;
    /// emitted deduplicated and sorted.
    #[serde(default)]
    pub result_record_keys: Vec<String>,
    /// The commit the run produced (40 or 64 lowercase hex), when it made one.
    #[serde(default)]
    pub resulting_commit_sha: Option<String>,
    /// RFC 3339 start time, when recorded.
    #[serde(default)]
    pub started_at: Option<String>,
    /// RFC 3339 completion time, required (`None` is `invalid_metadata`); runs
    /// are ordered and bounded by it, then by ID.
    pub completed_at: Option<String>,
}

/// A gap the acquisition observed, merged into the index `gaps`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GapInput {
    /// `entity`, `comments`, `reviews`, `checks`, `check_logs`, `agent_runs` or
    /// `actors`; a scope the profile does not select is an input error.
    pub scope: String,
    /// `profile_bound`, `history_unavailable`, `unsupported`,
    /// `authorization_failed`, `fetch_failed`, `source_too_large`,
    /// `invalid_metadata` or `unsafe_content`; an unusable `entity` gap aborts
    /// assembly.
    pub code: String,
    /// How many records the gap covers (at least 1); rows of one scope and code
    /// add up.
    pub count: i64,
}
