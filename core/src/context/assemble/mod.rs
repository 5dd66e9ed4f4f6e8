//! The pure assembler (C1): normalized input → the complete tree (path →
//! bytes) plus the retained root-index digest. No clock, no I/O: the same
//! input gives the same bytes, whatever the order of its arrays.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::filter::{
    self, CredentialRegistry, FilterError, FilterStatus, FilterSummary, FilterVersion,
};
use super::input::{self, ContextInput, INPUT_FORMAT};
use super::profile::{LogSelection, Profile, ProfileError, RecordSelection, Source};
use super::schema::{DocSchema, SchemaError, Schemas};
use super::tree::{ContextTree, GapCode, GapScope, Gaps};
use super::types::{
    ActorKind, ActorRole, CheckConclusion, CheckStatus, ENTITY_ORDER_KEY, EntityKind, EntityState,
    Forge, FormalReviewState, GitOid, HexDigest, Host, IdKind, KeyKind, Repository, RepositoryPath,
    RunStatus, Side, StructuralId, Timestamp, ValueError, record_key,
};
use crate::canonical::{CanonicalError, canonical_value_bytes};

mod checks;
mod derived;
mod discussion;
mod plan;
#[cfg(test)]
mod tests;

pub use plan::{FilterJob, FilterMemo, FilterPlan, JobResult};

use checks::*;
use derived::*;
use discussion::*;

/// Why no snapshot was assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    /// The input's `format` is not [`INPUT_FORMAT`]; carries it.
    #[error("unsupported input format `{0}` (expected {INPUT_FORMAT})")]
    Format(String),
    /// The collection profile is invalid, or its `entity_kind` is not the
    /// entity's.
    #[error("invalid collection profile: {0}")]
    Profile(#[from] ProfileError),
    /// A required index `source` field is missing, invalid, unsafe or over
    /// `max_metadata_string_bytes`.
    #[error("invalid index source field {field}: {reason}")]
    Source {
        /// The field: `forge`, `host`, `repository_id` or `repository`.
        field: &'static str,
        /// What is wrong with it, in words.
        reason: String,
    },
    /// The entity scope is unusable (a missing, invalid, unauthorized,
    /// oversized or unsafe entity value, or an unusable `entity` gap), so
    /// there is no snapshot.
    #[error("entity scope {code}: {reason}; assembly aborted")]
    EntityAborted {
        /// The gap code (`authorization_failed`, `invalid_metadata`, ...).
        code: &'static str,
        /// What failed, in words.
        reason: String,
    },
    /// A malformed input row: an actor ID listed twice, an unknown actor
    /// kind or role, a human whose `role_verified` disagrees with `role`, a
    /// bot with a repository role, a human with a bot identity, or an
    /// acquisition gap with an unknown scope or code, a count below 1 or a
    /// scope the profile does not select.
    #[error("invalid normalized input: {0}")]
    Input(String),
    /// The filter pipeline could not run (a detector unavailable, an invalid
    /// credential registry); original bytes never pass through.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// An emitted document has no canonical bytes.
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
    /// An emitted document fails its v1 schema; nothing is emitted.
    #[error("emitted document failed its schema: {0}")]
    Schema(#[from] SchemaError),
}

/// The assembled snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembly {
    /// Every emitted file, path → bytes, `index.json` included.
    pub tree: ContextTree,
    /// Lowercase SHA-256 of the exact `index.json` bytes: the value the host
    /// retains outside the tree.
    pub index_digest: HexDigest,
    /// The index `gaps` rows: what the tree lacks, and why.
    pub gaps: Gaps,
}

fn abort(code: GapCode, reason: impl Into<String>) -> AssembleError {
    AssembleError::EntityAborted {
        code: code.as_str(),
        reason: reason.into(),
    }
}

fn ts_opt(s: &Option<String>) -> Result<Option<Timestamp>, ValueError> {
    s.as_deref().map(Timestamp::parse).transpose()
}

struct Actor {
    id: StructuralId,
    kind: ActorKind,
    login: Option<String>,
    role: Option<ActorRole>,
    role_verified: bool,
    bot_identity_verified: bool,
    bot_role: Option<String>,
}

/// A record in the manifest.
struct Record {
    kind: &'static str,
    id: StructuralId,
    key: HexDigest,
    created_at: Timestamp,
    updated_at: Option<Timestamp>,
    /// Non-check records: (author_id, author login).
    author: Option<(Option<StructuralId>, Option<String>)>,
    content_path: Option<String>,
    metadata_path: Option<String>,
    log_path: Option<String>,
    filter: FilterSummary,
}

struct FileEntry {
    role: &'static str,
    media_type: &'static str,
    filter: Option<FilterSummary>,
}

/// A retained conversation record (comment or review).
#[derive(Clone)]
struct Retained {
    key: HexDigest,
    created_at: Timestamp,
    content_path: Option<String>,
}

struct Assembler<'m> {
    /// Precomputed filter results (`assemble_with`); empty for `assemble`.
    memo: &'m FilterMemo<'m>,
    /// The schema bundle every emitted document is checked against.
    schemas: &'m dyn Schemas,
    forge: Forge,
    host: Host,
    repository_id: StructuralId,
    profile: Profile,
    creds: CredentialRegistry,
    actors: BTreeMap<String, Actor>,
    bot_roles: BTreeSet<String>,
    gaps: Gaps,
    referenced: BTreeSet<StructuralId>,
    index_filter: FilterSummary,
    tree: ContextTree,
    files: BTreeMap<String, FileEntry>,
    records: Vec<Record>,
}

fn record_path(created: &Timestamp, key: &HexDigest) -> String {
    format!("records/{}-{}.md", created.order_key(), key.hex())
}

fn json_str(s: &str) -> Result<String, CanonicalError> {
    let b = canonical_value_bytes(&Value::String(s.to_owned()))?;
    String::from_utf8(b).map_err(|e| CanonicalError::NotJson(e.to_string()))
}

/// The self-contained record layout.
fn record_bytes(
    kind: &str,
    id: &StructuralId,
    author: Option<&StructuralId>,
    created: &Timestamp,
    body: &str,
) -> Result<Vec<u8>, CanonicalError> {
    let author = match author {
        Some(a) => json_str(a.as_str())?,
        None => "null".to_owned(),
    };
    Ok(format!(
        "Fullsend-Record: {}\nSource-ID: {}\nAuthor-ID: {}\nCreated-At: {}\n\n{}",
        json_str(kind)?,
        json_str(id.as_str())?,
        author,
        json_str(&created.canonical())?,
        body
    )
    .into_bytes())
}

fn order_bytes(paths: &[String]) -> Vec<u8> {
    let mut seen = BTreeSet::new();
    let mut out = String::new();
    for p in paths {
        if seen.insert(p.as_str()) {
            out.push_str(p);
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// A display value's contribution: a rejected value is dropped (its
/// findings are kept), which modifies the document.
fn display_contribution(f: &filter::Filtered) -> FilterSummary {
    let mut s = f.summary.clone();
    if s.status == FilterStatus::Rejected {
        s.status = FilterStatus::Modified;
    }
    s
}

/// Keeps the oldest or newest `max` items of a canonically sorted list.
fn select<T>(mut items: Vec<T>, max: u64, sel: RecordSelection) -> (Vec<T>, u64) {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    if items.len() <= max {
        return (items, 0);
    }
    let dropped = (items.len() - max) as u64;
    match sel {
        RecordSelection::Oldest => items.truncate(max),
        RecordSelection::Newest => {
            items.drain(..items.len() - max);
        }
    }
    (items, dropped)
}

/// IDs that occur more than once in one source (all copies are invalid:
/// keeping one would depend on input order).
fn duplicates<'a>(ids: impl Iterator<Item = Option<&'a str>>) -> BTreeSet<String> {
    let mut seen = BTreeMap::<&str, u32>::new();
    for id in ids.flatten() {
        *seen.entry(id).or_insert(0) += 1;
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, _)| k.to_owned())
        .collect()
}

impl Assembler<'_> {
    /// `items` (sorted as their source orders them) cut to the profile's
    /// bound on records per source; the records dropped are `scope`'s
    /// `profile_bound` gap.
    fn bounded<T>(&mut self, scope: GapScope, items: Vec<T>) -> Vec<T> {
        let (kept, dropped) = select(
            items,
            self.profile.bounds.max_records_per_source,
            self.profile.record_selection,
        );
        self.gaps.add(scope, GapCode::ProfileBound, dropped);
        kept
    }

    fn max_meta(&self) -> u64 {
        self.profile.bounds.max_metadata_string_bytes
    }

    /// A structural ID: forge mapping, complete pipeline, length bound.
    /// An optional actor reference: `Some(None)` when absent, `Some(Some)`
    /// when valid, `None` when present but invalid (the record is then
    /// `invalid_metadata`).
    fn optional_actor(
        &self,
        raw: Option<&str>,
    ) -> Result<Option<Option<StructuralId>>, FilterError> {
        match raw {
            Some(raw) => Ok(self.structural(IdKind::Actor, raw)?.map(Some)),
            None => Ok(Some(None)),
        }
    }

    /// A source ID that must be valid and unique within its source.
    fn unique_id(
        &self,
        kind: IdKind,
        raw: Option<&str>,
        dups: &BTreeSet<String>,
    ) -> Result<Option<StructuralId>, FilterError> {
        match raw {
            Some(raw) if !dups.contains(raw) => self.structural(kind, raw),
            _ => Ok(None),
        }
    }

    fn structural(&self, kind: IdKind, s: &str) -> Result<Option<StructuralId>, FilterError> {
        let Ok(id) = StructuralId::parse(self.forge, kind, s) else {
            return Ok(None);
        };
        Ok(filter::structural_is_safe(&self.creds, s, self.max_meta())?.then_some(id))
    }

    fn key(&self, kind: KeyKind, id: &StructuralId) -> HexDigest {
        record_key(self.forge, &self.host, &self.repository_id, kind, id)
    }

    /// `filter_text` of a record body or log, from the memo when it holds
    /// this exact text and bound.
    fn filter_text(&self, s: &str, max_bytes: u64) -> Result<filter::Filtered, FilterError> {
        match self.memo.get(s, max_bytes) {
            Some(f) => Ok(f.clone()),
            None => filter::filter_text(&self.creds, s, max_bytes),
        }
    }

    fn display(&self, s: &str) -> Result<filter::Filtered, FilterError> {
        filter::filter_display(&self.creds, s, self.max_meta())
    }

    /// Filtered login of an actor (`None` when unknown, unsafe or empty).
    /// A record's author: marks the actor referenced and returns its
    /// filtered login, folding the login's filter outcome into the index.
    fn record_author(
        &mut self,
        author: Option<&StructuralId>,
    ) -> Result<Option<String>, FilterError> {
        let Some(aid) = author else { return Ok(None) };
        self.referenced.insert(aid.clone());
        let (login, filter) = self.login(aid)?;
        self.index_filter.absorb(&filter);
        Ok(login)
    }

    fn login(&self, id: &StructuralId) -> Result<(Option<String>, FilterSummary), FilterError> {
        let Some(raw) = self
            .actors
            .get(id.as_str())
            .and_then(|a| a.login.as_deref())
        else {
            return Ok((None, FilterSummary::unchanged()));
        };
        let f = self.display(raw)?;
        let text = (!f.is_rejected() && !f.text.is_empty()).then(|| f.text.clone());
        Ok((text, display_contribution(&f)))
    }

    /// Whether the author of a record in `scope` is [`Self::admitted`];
    /// when not, its `authorization_failed` gap is added.
    fn admits(&mut self, scope: GapScope, author: Option<&StructuralId>) -> bool {
        let admitted = self.admitted(author);
        if !admitted {
            self.gaps.add(scope, GapCode::AuthorizationFailed, 1);
        }
        admitted
    }

    /// The admission rule: a verified human role meeting the threshold, or a
    /// provider-positive bot with a registered bot role.
    fn admitted(&self, author: Option<&StructuralId>) -> bool {
        let Some(a) = author.and_then(|id| self.actors.get(id.as_str())) else {
            return false;
        };
        match a.kind {
            ActorKind::Human => {
                a.role_verified && a.role.is_some_and(|r| r.meets(self.profile.human_min_role))
            }
            ActorKind::Bot => {
                a.bot_identity_verified
                    && a.bot_role
                        .as_ref()
                        .is_some_and(|r| self.bot_roles.contains(r))
            }
        }
    }

    fn add_file(
        &mut self,
        path: String,
        bytes: Vec<u8>,
        role: &'static str,
        media_type: &'static str,
        filter: Option<FilterSummary>,
    ) {
        self.files.insert(
            path.clone(),
            FileEntry {
                role,
                media_type,
                filter,
            },
        );
        self.tree.insert(path, bytes);
    }

    fn add_json(
        &mut self,
        path: &str,
        doc: DocSchema,
        value: &Value,
        role: &'static str,
        filter: Option<FilterSummary>,
    ) -> Result<(), AssembleError> {
        self.schemas.validate(doc, value)?;
        let bytes = canonical_value_bytes(value)?;
        self.add_file(path.to_owned(), bytes, role, "application/json", filter);
        Ok(())
    }

    /// Filters a conversation body; returns the content path and filter, or
    /// `None` path when rejected (its gap is added).
    #[allow(clippy::too_many_arguments)]
    fn body_record(
        &mut self,
        scope: GapScope,
        kind: &'static str,
        role: &'static str,
        id: &StructuralId,
        key: &HexDigest,
        author: Option<&StructuralId>,
        created: &Timestamp,
        body: &str,
    ) -> Result<(Option<String>, FilterSummary), AssembleError> {
        if body.len() as u64 > self.profile.bounds.max_source_bytes {
            self.gaps.add(scope, GapCode::SourceTooLarge, 1);
            return Ok((
                None,
                FilterSummary {
                    status: FilterStatus::Rejected,
                    findings: filter::Findings::default(),
                },
            ));
        }
        let f = self.filter_text(body, self.profile.bounds.max_record_bytes)?;
        if f.is_rejected() {
            self.gaps.add(scope, GapCode::UnsafeContent, 1);
            return Ok((None, f.summary));
        }
        let path = record_path(created, key);
        let bytes = record_bytes(kind, id, author, created, &f.text)?;
        self.add_file(
            path.clone(),
            bytes,
            role,
            "text/markdown",
            Some(f.summary.clone()),
        );
        Ok((Some(path), f.summary))
    }
}

/// The supported filter versions, comma-separated, for messages.
fn supported_versions() -> String {
    FilterVersion::SUPPORTED
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Assembles the complete tree from normalized input.
pub fn assemble(input: &ContextInput, schemas: &dyn Schemas) -> Result<Assembly, AssembleError> {
    assemble_with(input, &FilterMemo::default(), schemas)
}

/// [`assemble`] with filter results computed beforehand (see
/// [`FilterPlan`]): the same bytes, gaps and errors as `assemble`, whatever
/// the memo holds. A memo computed under other credentials is not used.
pub fn assemble_with(
    input: &ContextInput,
    memo: &FilterMemo<'_>,
    schemas: &dyn Schemas,
) -> Result<Assembly, AssembleError> {
    let version = input::filter_version(input).map_err(|v| {
        AssembleError::Input(format!(
            "unsupported filter_version `{v}` (supported: {})",
            supported_versions()
        ))
    })?;
    let empty = FilterMemo::default();
    let memo = if memo.applies_to(&input.credentials, version) {
        memo
    } else {
        &empty
    };
    if input.format != INPUT_FORMAT {
        return Err(AssembleError::Format(input.format.clone()));
    }
    // The profile is validated before anything else.
    let profile = Profile::parse(&input.profile)?;
    let entity_kind = EntityKind::parse(&input.entity.kind)
        .map_err(|e| abort(GapCode::InvalidMetadata, e.to_string()))?;
    if entity_kind != profile.entity_kind {
        return Err(ProfileError::EntityKindMismatch {
            profile: profile.entity_kind.as_str(),
            entity: entity_kind.as_str(),
        }
        .into());
    }
    let creds = CredentialRegistry::new(&input.credentials)?.with_version(version);

    // Index source: required singleton structural values abort.
    let src_err = |field: &'static str, reason: String| AssembleError::Source { field, reason };
    let forge = Forge::parse(&input.source.forge).map_err(|e| src_err("forge", e.to_string()))?;
    let max_meta = profile.bounds.max_metadata_string_bytes;
    let safe = |field: &'static str, v: &str| -> Result<(), AssembleError> {
        if filter::structural_is_safe(&creds, v, max_meta)? {
            Ok(())
        } else {
            Err(src_err(
                field,
                "unsafe or over max_metadata_string_bytes".into(),
            ))
        }
    };
    let host = Host::parse(&input.source.host).map_err(|e| src_err("host", e.to_string()))?;
    safe("host", host.as_str())?;
    let repo_id_raw = input
        .source
        .repository_id
        .as_deref()
        .ok_or_else(|| src_err("repository_id", "missing".into()))?;
    let repository_id = StructuralId::parse(forge, IdKind::Repository, repo_id_raw)
        .map_err(|e| src_err("repository_id", e.to_string()))?;
    safe("repository_id", repo_id_raw)?;
    let repo_raw = input
        .source
        .repository
        .as_deref()
        .ok_or_else(|| src_err("repository", "missing".into()))?;
    let repository =
        Repository::parse(forge, repo_raw).map_err(|e| src_err("repository", e.to_string()))?;
    safe("repository", repo_raw)?;

    let mut a = Assembler {
        schemas,
        memo,
        forge,
        host,
        repository_id,
        profile,
        creds,
        actors: BTreeMap::new(),
        bot_roles: input.bot_roles.iter().cloned().collect(),
        gaps: Gaps::default(),
        referenced: BTreeSet::new(),
        index_filter: FilterSummary::unchanged(),
        tree: ContextTree::default(),
        files: BTreeMap::new(),
        records: Vec::new(),
    };

    load_actors(&mut a, &input.actors)?;
    load_acquisition_gaps(&mut a, &input.acquisition_gaps)?;

    let entity = build_entity(&mut a, entity_kind, &input.entity)?;
    let comments = if a.profile.includes(Source::Comments) {
        build_comments(&mut a, &input.comments)?
    } else {
        BTreeMap::new()
    };
    let (reviews, review_rows) = if a.profile.includes(Source::Reviews) {
        build_reviews(&mut a, &input.reviews)?
    } else {
        (BTreeMap::new(), Vec::new())
    };
    let threads = if a.profile.includes(Source::Reviews) {
        build_threads(&mut a, &input.threads, &comments, &reviews)?
    } else {
        Vec::new()
    };
    if a.profile.includes(Source::Checks) {
        build_checks(&mut a, &input.checks, entity.head_sha.as_ref())?;
    }
    let runs = if a.profile.includes(Source::AgentRuns) {
        build_runs(&mut a, &input.agent_runs)?
    } else {
        (Vec::new(), FilterSummary::unchanged())
    };

    build_views(&mut a, &entity, &comments, &reviews, &threads)?;

    let mut review_docs = Vec::new();
    for r in &review_rows {
        review_docs.push(r.clone());
    }
    let thread_rel: Vec<Value> = threads.iter().map(|t| t.relation.clone()).collect();
    // Mutable thread-state rows sort by thread key, not by creation time.
    let mut by_key: Vec<&ThreadOut> = threads.iter().collect();
    by_key.sort_by_key(|t| t.key);
    let thread_state: Vec<Value> = by_key.iter().map(|t| t.state.clone()).collect();
    a.add_json(
        "relations/reviews.json",
        DocSchema::Reviews,
        &json!({"reviews": review_docs, "threads": thread_rel}),
        "reviews",
        Some(FilterSummary::unchanged()),
    )?;
    a.add_json(
        "state/threads.json",
        DocSchema::ThreadState,
        &json!({"threads": thread_state}),
        "thread_state",
        None,
    )?;
    let (run_docs, run_filter) = runs;
    a.add_json(
        "history/agent-runs.json",
        DocSchema::AgentRuns,
        &json!({"runs": run_docs}),
        "agent_runs",
        Some(run_filter),
    )?;
    build_actor_state(&mut a)?;

    // Entity-scope unusable gaps abort (from acquisition or assembly).
    for g in a.gaps.rows() {
        if g.scope == GapScope::Entity && g.code.usability() == "unusable" {
            return Err(abort(g.code, "the entity scope is unusable"));
        }
    }

    let collection = a.profile.to_json();
    a.add_json(
        "collection.json",
        DocSchema::Collection,
        &collection,
        "collection",
        None,
    )?;
    let collection_digest = HexDigest::of(a.tree.get("collection.json").unwrap_or_default());

    let index = build_index(&a, &entity, &repository, collection_digest)?;
    schemas.validate(DocSchema::Index, &index)?;
    let index_bytes = canonical_value_bytes(&index)?;
    let index_digest = HexDigest::of(&index_bytes);
    a.tree.insert("index.json".to_owned(), index_bytes);
    Ok(Assembly {
        tree: a.tree,
        index_digest,
        gaps: a.gaps,
    })
}

fn load_actors(a: &mut Assembler, actors: &[input::ActorInput]) -> Result<(), AssembleError> {
    for r in actors {
        if a.actors.contains_key(&r.id) {
            return Err(AssembleError::Input(format!(
                "actor `{}` is listed twice",
                r.id
            )));
        }
        let Some(id) = a.structural(IdKind::Actor, &r.id)? else {
            a.gaps.add(GapScope::Actors, GapCode::InvalidMetadata, 1);
            continue;
        };
        let kind = ActorKind::parse(&r.kind).map_err(|e| AssembleError::Input(e.to_string()))?;
        let role = r
            .role
            .as_deref()
            .map(ActorRole::parse)
            .transpose()
            .map_err(|e| AssembleError::Input(e.to_string()))?;
        match kind {
            ActorKind::Human if r.role_verified != role.is_some() => {
                return Err(AssembleError::Input(format!(
                    "human actor `{}`: role_verified true requires a role, false requires null",
                    r.id
                )));
            }
            ActorKind::Bot if role.is_some() || r.role_verified => {
                return Err(AssembleError::Input(format!(
                    "bot actor `{}` carries no repository role (use bot_role)",
                    r.id
                )));
            }
            ActorKind::Human if r.bot_role.is_some() || r.bot_identity_verified => {
                return Err(AssembleError::Input(format!(
                    "human actor `{}` carries no bot identity",
                    r.id
                )));
            }
            _ => {}
        }
        a.actors.insert(
            r.id.clone(),
            Actor {
                id,
                kind,
                login: r.login.clone(),
                role,
                role_verified: r.role_verified,
                bot_identity_verified: r.bot_identity_verified,
                bot_role: r.bot_role.clone(),
            },
        );
    }
    Ok(())
}

fn load_acquisition_gaps(a: &mut Assembler, gaps: &[input::GapInput]) -> Result<(), AssembleError> {
    for g in gaps {
        let scope = GapScope::parse(&g.scope)
            .ok_or_else(|| AssembleError::Input(format!("unknown gap scope `{}`", g.scope)))?;
        let code = GapCode::parse(&g.code)
            .ok_or_else(|| AssembleError::Input(format!("unknown gap code `{}`", g.code)))?;
        let count = u64::try_from(g.count)
            .ok()
            .filter(|c| *c >= 1)
            .ok_or_else(|| AssembleError::Input("a gap count must be at least 1".into()))?;
        let selected = match scope {
            GapScope::Entity | GapScope::Actors => true,
            GapScope::Comments => a.profile.includes(Source::Comments),
            GapScope::Reviews => a.profile.includes(Source::Reviews),
            GapScope::Checks => a.profile.includes(Source::Checks),
            GapScope::CheckLogs => a.profile.includes(Source::CheckLogs),
            GapScope::AgentRuns => a.profile.includes(Source::AgentRuns),
        };
        if !selected {
            return Err(AssembleError::Input(format!(
                "gap for scope `{}` that the profile does not select",
                g.scope
            )));
        }
        a.gaps.add(scope, code, count);
    }
    Ok(())
}
