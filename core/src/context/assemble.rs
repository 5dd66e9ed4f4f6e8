//! The pure assembler (C1): normalized input → the complete tree (path →
//! bytes) plus the retained root-index digest. No clock, no I/O: the same
//! input gives the same bytes, whatever the order of its arrays.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::filter::{
    self, CredentialRegistry, FILTER_VERSION, FilterError, FilterStatus, FilterSummary,
};
use super::input::{self, ContextInput, INPUT_FORMAT};
use super::profile::{LogSelection, Profile, ProfileError, RecordSelection, Source};
use super::schema::{self, DocSchema, SchemaError};
use super::tree::{ContextTree, GapCode, GapScope, Gaps};
use super::types::{
    ActorKind, ActorRole, CheckConclusion, CheckStatus, ENTITY_ORDER_KEY, EntityKind, EntityState,
    Forge, GitOid, HexDigest, Host, IdKind, KeyKind, Repository, RepositoryPath, ReviewState,
    RunStatus, Side, StructuralId, Timestamp, ValueError, record_key,
};
use crate::canonical::{CanonicalError, canonical_value_bytes};

/// Why no snapshot was assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    #[error("unsupported input format `{0}` (expected {INPUT_FORMAT})")]
    Format(String),
    #[error("invalid collection profile: {0}")]
    Profile(#[from] ProfileError),
    #[error("invalid index source field {field}: {reason}")]
    Source { field: &'static str, reason: String },
    #[error("entity scope {code}: {reason}; assembly aborted")]
    EntityAborted { code: &'static str, reason: String },
    #[error("invalid normalized input: {0}")]
    Input(String),
    #[error(transparent)]
    Filter(#[from] FilterError),
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
    #[error("emitted document failed its schema: {0}")]
    Schema(#[from] SchemaError),
}

/// The assembled snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembly {
    pub tree: ContextTree,
    /// Lowercase SHA-256 of the exact `index.json` bytes: the value the host
    /// retains outside the tree.
    pub index_digest: HexDigest,
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

struct Assembler {
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

impl Assembler {
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
        schema::bundle()?.validate(doc, value)?;
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
        let f = filter::filter_text(&self.creds, body, self.profile.bounds.max_record_bytes)?;
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

/// Assembles the complete tree from normalized input.
pub fn assemble(input: &ContextInput) -> Result<Assembly, AssembleError> {
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
    let creds = CredentialRegistry::new(&input.credentials)?;

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
    schema::bundle()?.validate(DocSchema::Index, &index)?;
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

struct EntityOut {
    kind: EntityKind,
    id: StructuralId,
    updated_at: Timestamp,
    content_path: String,
    head_sha: Option<GitOid>,
}

fn build_entity(
    a: &mut Assembler,
    kind: EntityKind,
    e: &input::EntityInput,
) -> Result<EntityOut, AssembleError> {
    let invalid = |what: &str| abort(GapCode::InvalidMetadata, what.to_owned());
    let id_raw =
        e.id.as_deref()
            .ok_or_else(|| invalid("entity id is missing"))?;
    let id = a
        .structural(IdKind::Entity, id_raw)?
        .ok_or_else(|| invalid("entity id is invalid or unsafe"))?;
    if e.number < 1 {
        return Err(invalid("entity number must be positive"));
    }
    let state = EntityState::parse(&e.state).map_err(|x| invalid(&x.to_string()))?;
    if kind == EntityKind::WorkItem && state == EntityState::Merged {
        return Err(invalid("a work item cannot be merged"));
    }
    let created = ts_opt(&e.created_at)
        .map_err(|x| invalid(&x.to_string()))?
        .ok_or_else(|| invalid("entity created_at is missing"))?;
    let updated = ts_opt(&e.updated_at)
        .map_err(|x| invalid(&x.to_string()))?
        .ok_or_else(|| invalid("entity updated_at is missing"))?;
    let head_sha = match &e.head_sha {
        Some(h) => Some(GitOid::parse(h).map_err(|x| invalid(&x.to_string()))?),
        None => None,
    };

    let mut meta_filter = FilterSummary::unchanged();
    // Title: a required singleton; empty or unsafe aborts.
    let title_raw = e
        .title
        .as_deref()
        .ok_or_else(|| invalid("entity title is missing"))?;
    let title = a.display(title_raw)?;
    if title.is_rejected() {
        return Err(abort(GapCode::UnsafeContent, "entity title is unsafe"));
    }
    if title.text.is_empty() {
        return Err(invalid("entity title is empty after filtering"));
    }
    meta_filter.absorb(&title.summary);

    // Author and body authorization.
    let author_id = match &e.author_id {
        Some(raw) => Some(
            a.structural(IdKind::Actor, raw)?
                .ok_or_else(|| invalid("entity author_id is invalid or unsafe"))?,
        ),
        None => None,
    };
    if !a.admitted(author_id.as_ref()) {
        return Err(abort(
            GapCode::AuthorizationFailed,
            "the entity body author is missing, unverifiable or below the admission threshold",
        ));
    }
    let body = e
        .body
        .as_deref()
        .ok_or_else(|| abort(GapCode::FetchFailed, "the entity body is missing"))?;
    if body.len() as u64 > a.profile.bounds.max_source_bytes {
        return Err(abort(
            GapCode::SourceTooLarge,
            "the entity body exceeds max_source_bytes",
        ));
    }
    let key = a.key(KeyKind::Entity, &id);
    let fb = filter::filter_text(&a.creds, body, a.profile.bounds.max_record_bytes)?;
    if fb.is_rejected() {
        return Err(abort(GapCode::UnsafeContent, "the entity body is unsafe"));
    }
    let content_path = format!("records/{ENTITY_ORDER_KEY}-{}.md", key.hex());
    let bytes = record_bytes("entity", &id, author_id.as_ref(), &created, &fb.text)?;
    a.add_file(
        content_path.clone(),
        bytes,
        "entity_record",
        "text/markdown",
        Some(fb.summary.clone()),
    );

    let (author_login, login_filter) = match &author_id {
        Some(aid) => a.login(aid)?,
        None => (None, FilterSummary::unchanged()),
    };
    meta_filter.absorb(&login_filter);
    a.index_filter.absorb(&login_filter);
    if let Some(aid) = &author_id {
        a.referenced.insert(aid.clone());
    }

    // Labels: bound, drop empty and unsafe, re-unique, sort, max_labels.
    let mut labels = BTreeSet::new();
    for l in &e.labels {
        let f = a.display(l)?;
        meta_filter.absorb(&display_contribution(&f));
        if !f.is_rejected() && !f.text.is_empty() {
            labels.insert(f.text);
        }
    }
    let max_labels = usize::try_from(a.profile.bounds.max_labels).unwrap_or(usize::MAX);
    let mut labels: Vec<String> = labels.into_iter().collect();
    if labels.len() > max_labels {
        a.gaps.add(
            GapScope::Entity,
            GapCode::ProfileBound,
            (labels.len() - max_labels) as u64,
        );
        labels.truncate(max_labels);
        meta_filter.status = FilterStatus::Truncated;
    }

    let meta = json!({
        "kind": kind.as_str(),
        "id": id.as_str(),
        "number": e.number,
        "title": title.text,
        "state": state.as_str(),
        "author_id": author_id.as_ref().map(StructuralId::as_str),
        "author": author_login,
        "created_at": created.canonical(),
        "updated_at": updated.canonical(),
        "labels": labels,
    });
    a.add_json(
        "entity/metadata.json",
        DocSchema::Entity,
        &meta,
        "entity_metadata",
        Some(meta_filter),
    )?;
    a.records.push(Record {
        kind: "entity",
        id: id.clone(),
        key,
        created_at: created,
        updated_at: Some(updated),
        author: Some((author_id, author_login)),
        content_path: Some(content_path.clone()),
        metadata_path: None,
        log_path: None,
        filter: fb.summary,
    });
    Ok(EntityOut {
        kind,
        id,
        updated_at: updated,
        content_path,
        head_sha,
    })
}

/// Comments: validate, admit, select, filter. Returns retained comments by
/// forge ID.
fn build_comments(
    a: &mut Assembler,
    comments: &[input::CommentInput],
) -> Result<BTreeMap<String, Retained>, AssembleError> {
    let dups = duplicates(comments.iter().map(|c| c.id.as_deref()));
    let mut ok = Vec::new();
    for c in comments {
        let id = a.unique_id(IdKind::Record, c.id.as_deref(), &dups)?;
        let author = a.optional_actor(c.author_id.as_deref())?;
        let (Some(id), Some(author), Ok(Some(created)), Ok(updated)) =
            (id, author, ts_opt(&c.created_at), ts_opt(&c.updated_at))
        else {
            a.gaps.add(GapScope::Comments, GapCode::InvalidMetadata, 1);
            continue;
        };
        if !a.admitted(author.as_ref()) {
            a.gaps
                .add(GapScope::Comments, GapCode::AuthorizationFailed, 1);
            continue;
        }
        let key = a.key(KeyKind::Comment, &id);
        ok.push((created, key, id, author, updated, c));
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let (kept, dropped) = select(
        ok,
        a.profile.bounds.max_records_per_source,
        a.profile.record_selection,
    );
    a.gaps
        .add(GapScope::Comments, GapCode::ProfileBound, dropped);
    let mut out = BTreeMap::new();
    for (created, key, id, author, updated, c) in kept {
        let (path, f) = a.body_record(
            GapScope::Comments,
            "comment",
            "comment_record",
            &id,
            &key,
            author.as_ref(),
            &created,
            &c.body,
        )?;
        let login = a.record_author(author.as_ref())?;
        out.insert(
            id.as_str().to_owned(),
            Retained {
                key,
                created_at: created,
                content_path: path.clone(),
            },
        );
        a.records.push(Record {
            kind: "comment",
            id,
            key,
            created_at: created,
            updated_at: updated,
            author: Some((author, login)),
            content_path: path,
            metadata_path: None,
            log_path: None,
            filter: f,
        });
    }
    Ok(out)
}

type Reviews = (BTreeMap<String, Retained>, Vec<Value>);

fn build_reviews(
    a: &mut Assembler,
    reviews: &[input::ReviewInput],
) -> Result<Reviews, AssembleError> {
    let dups = duplicates(reviews.iter().map(|r| r.id.as_deref()));
    let mut ok = Vec::new();
    for r in reviews {
        let id = a.unique_id(IdKind::Record, r.id.as_deref(), &dups)?;
        let author = a.optional_actor(r.author_id.as_deref())?;
        let dismissed_by = a.optional_actor(r.dismissed_by_actor_id.as_deref())?;
        let sha = r.reviewed_sha.as_deref().map(GitOid::parse).transpose();
        let (
            Some(id),
            Some(author),
            Some(dismissed_by),
            Ok(state),
            Ok(Some(submitted)),
            Ok(updated),
            Ok(dismissed_at),
            Ok(sha),
        ) = (
            id,
            author,
            dismissed_by,
            ReviewState::parse(&r.state),
            ts_opt(&r.submitted_at),
            ts_opt(&r.updated_at),
            ts_opt(&r.dismissed_at),
            sha,
        )
        else {
            a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
            continue;
        };
        if !a.admitted(author.as_ref()) {
            a.gaps
                .add(GapScope::Reviews, GapCode::AuthorizationFailed, 1);
            continue;
        }
        let key = a.key(KeyKind::Review, &id);
        ok.push((
            submitted,
            key,
            id,
            author,
            updated,
            state,
            sha,
            dismissed_at,
            dismissed_by,
            r,
        ));
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let (kept, dropped) = select(
        ok,
        a.profile.bounds.max_records_per_source,
        a.profile.record_selection,
    );
    a.gaps
        .add(GapScope::Reviews, GapCode::ProfileBound, dropped);
    let mut out = BTreeMap::new();
    let mut rows = Vec::new();
    // Formal review arrays sort by submitted_at and then review ID.
    let mut kept = kept;
    kept.sort_by(|x, y| (x.0, x.2.as_str()).cmp(&(y.0, y.2.as_str())));
    for (submitted, key, id, author, updated, state, sha, dismissed_at, dismissed_by, r) in kept {
        let (path, f) = a.body_record(
            GapScope::Reviews,
            "review",
            "review_record",
            &id,
            &key,
            author.as_ref(),
            &submitted,
            &r.body,
        )?;
        let login = a.record_author(author.as_ref())?;
        let mut row = Map::new();
        row.insert("id".into(), json!(id.as_str()));
        row.insert("record_key".into(), json!(key.hex()));
        row.insert("state".into(), json!(state.as_str()));
        row.insert("submitted_at".into(), json!(submitted.canonical()));
        if let Some(s) = &sha {
            row.insert("reviewed_sha".into(), json!(s.as_str()));
        }
        if state == ReviewState::Dismissed {
            row.insert(
                "dismissed_at".into(),
                json!(dismissed_at.map(|t| t.canonical())),
            );
            row.insert(
                "dismissed_by_actor_id".into(),
                json!(dismissed_by.as_ref().map(StructuralId::as_str)),
            );
            if let Some(d) = &dismissed_by {
                a.referenced.insert(d.clone());
            }
        }
        rows.push(Value::Object(row));
        out.insert(
            id.as_str().to_owned(),
            Retained {
                key,
                created_at: submitted,
                content_path: path.clone(),
            },
        );
        a.records.push(Record {
            kind: "review",
            id,
            key,
            created_at: submitted,
            updated_at: updated,
            author: Some((author, login)),
            content_path: path,
            metadata_path: None,
            log_path: None,
            filter: f,
        });
    }
    Ok((out, rows))
}

struct ThreadOut {
    key: HexDigest,
    created_at: Timestamp,
    review_id: Option<String>,
    paths: Vec<String>,
    unresolved_current: bool,
    relation: Value,
    state: Value,
}

fn positive(v: Option<i64>) -> Result<Option<i64>, ()> {
    match v {
        Some(n) if n < 1 => Err(()),
        other => Ok(other),
    }
}

fn build_threads(
    a: &mut Assembler,
    threads: &[input::ThreadInput],
    comments: &BTreeMap<String, Retained>,
    reviews: &BTreeMap<String, Retained>,
) -> Result<Vec<ThreadOut>, AssembleError> {
    let dups = duplicates(threads.iter().map(|t| t.id.as_deref()));
    let mut out = Vec::new();
    for t in threads {
        let id = a.unique_id(IdKind::Thread, t.id.as_deref(), &dups)?;
        let resolved_by = if t.resolved {
            a.optional_actor(t.resolved_by_actor_id.as_deref())?
        } else {
            Some(None)
        };
        let review_id = match t.review_id.as_deref() {
            Some(raw) => a.structural(IdKind::Record, raw)?.map(Some),
            None => Some(None),
        };
        let sha = t.reviewed_sha.as_deref().map(GitOid::parse).transpose();
        let side = t.side.as_deref().map(Side::parse).transpose();
        let oside = t.original_side.as_deref().map(Side::parse).transpose();
        let lines = (
            positive(t.line),
            positive(t.start_line),
            positive(t.original_line),
            positive(t.original_start_line),
        );
        let (
            Some(id),
            Ok(Some(created)),
            Some(resolved_by),
            Some(review_id),
            Ok(sha),
            Ok(side),
            Ok(oside),
            (Ok(line), Ok(start_line), Ok(original_line), Ok(original_start_line)),
        ) = (
            id,
            ts_opt(&t.created_at),
            resolved_by,
            review_id,
            sha,
            side,
            oside,
            lines,
        )
        else {
            a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
            continue;
        };
        // Review file paths pass the complete pipeline before strict
        // structural validation; an unsafe path omits the relationship.
        let path = match t.path.as_deref() {
            Some(p) => {
                if !filter::structural_is_safe(&a.creds, p, a.max_meta())? {
                    a.gaps.add(GapScope::Reviews, GapCode::UnsafeContent, 1);
                    continue;
                }
                match RepositoryPath::parse(p) {
                    Ok(rp) => Some(rp),
                    Err(_) => {
                        a.gaps.add(GapScope::Reviews, GapCode::InvalidMetadata, 1);
                        continue;
                    }
                }
            }
            None => None,
        };
        // Only retained records with content paths, forge order, unique.
        let mut keys = Vec::new();
        let mut paths = Vec::new();
        let mut member = BTreeMap::new();
        for cid in &t.comment_ids {
            if let Some(Retained {
                key,
                content_path: Some(p),
                ..
            }) = comments.get(cid)
                && member.insert(cid.as_str(), *key).is_none()
            {
                keys.push(key.hex());
                paths.push(p.clone());
            }
        }
        if keys.is_empty() {
            continue;
        }
        // Reply edges in forge thread order (the reply's position in the
        // thread, then its parent's), whatever order the input lists them.
        let position = |cid: &str| t.comment_ids.iter().position(|x| x == cid);
        let mut edges: Vec<(usize, usize, HexDigest, HexDigest)> = t
            .replies
            .iter()
            .filter_map(|r| {
                let c = member.get(r.comment_id.as_str())?;
                let p = member.get(r.parent_comment_id.as_str())?;
                Some((
                    position(&r.comment_id)?,
                    position(&r.parent_comment_id)?,
                    *c,
                    *p,
                ))
            })
            .collect();
        edges.sort();
        edges.dedup();
        let replies: Vec<Value> = edges
            .iter()
            .map(|(_, _, c, p)| json!({"record_key": c.hex(), "parent_record_key": p.hex()}))
            .collect();
        let key = a.key(KeyKind::Thread, &id);
        let mut rel = Map::new();
        rel.insert("id".into(), json!(id.as_str()));
        rel.insert("thread_key".into(), json!(key.hex()));
        rel.insert("created_at".into(), json!(created.canonical()));
        rel.insert(
            "order_path".into(),
            json!(format!("threads/{}.order", key.hex())),
        );
        rel.insert("record_keys".into(), json!(keys));
        rel.insert("replies".into(), Value::Array(replies));
        if let Some(rid) = &review_id {
            rel.insert("review_id".into(), json!(rid.as_str()));
            if let Some(r) = reviews.get(rid.as_str()) {
                rel.insert("review_record_key".into(), json!(r.key.hex()));
            }
        }
        if let Some(s) = &sha {
            rel.insert("reviewed_sha".into(), json!(s.as_str()));
        }
        if let Some(p) = &path {
            rel.insert("path".into(), json!(p.as_str()));
        }
        for (name, v) in [
            ("line", line),
            ("start_line", start_line),
            ("original_line", original_line),
            ("original_start_line", original_start_line),
        ] {
            if let Some(n) = v {
                rel.insert(name.into(), json!(n));
            }
        }
        if let Some(s) = side {
            rel.insert("side".into(), json!(s.as_str()));
        }
        if let Some(s) = oside {
            rel.insert("original_side".into(), json!(s.as_str()));
        }
        let mut st = Map::new();
        st.insert("id".into(), json!(id.as_str()));
        st.insert("thread_key".into(), json!(key.hex()));
        st.insert("resolved".into(), json!(t.resolved));
        if t.resolved {
            st.insert(
                "resolved_by_actor_id".into(),
                json!(resolved_by.as_ref().map(StructuralId::as_str)),
            );
            if let Some(r) = &resolved_by {
                a.referenced.insert(r.clone());
            }
        }
        st.insert("outdated".into(), json!(t.outdated));
        if let Some(m) = t.minimized {
            st.insert("minimized".into(), json!(m));
        }
        out.push(ThreadOut {
            key,
            created_at: created,
            review_id: review_id.map(|r| r.as_str().to_owned()),
            paths,
            unresolved_current: !t.resolved && !t.outdated,
            relation: Value::Object(rel),
            state: Value::Object(st),
        });
    }
    // Relationship threads: created_at then thread ID.
    out.sort_by(|x, y| {
        (x.created_at, x.relation["id"].as_str()).cmp(&(y.created_at, y.relation["id"].as_str()))
    });
    for t in &out {
        let bytes = order_bytes(&t.paths);
        a.add_file(
            format!("threads/{}.order", t.key.hex()),
            bytes,
            "thread_order",
            "text/plain",
            None,
        );
    }
    Ok(out)
}

fn build_checks(
    a: &mut Assembler,
    checks: &[input::CheckInput],
    head: Option<&GitOid>,
) -> Result<(), AssembleError> {
    let dups = duplicates(checks.iter().map(|c| c.id.as_deref()));
    let mut ok = Vec::new();
    for c in checks {
        let id = a.unique_id(IdKind::Record, c.id.as_deref(), &dups)?;
        match (id, validate_check(c, head)) {
            (Some(id), Some(meta)) => {
                let key = a.key(KeyKind::Check, &id);
                ok.push((meta.created_at, key, id, meta, c));
            }
            _ => a.gaps.add(GapScope::Checks, GapCode::InvalidMetadata, 1),
        }
    }
    ok.sort_by_key(|x| (x.0, x.1));
    let (kept, dropped) = select(
        ok,
        a.profile.bounds.max_records_per_source,
        a.profile.record_selection,
    );
    a.gaps.add(GapScope::Checks, GapCode::ProfileBound, dropped);
    for (created, key, id, meta, c) in kept {
        let name = a.display(&c.name)?;
        if !name.is_rejected() && name.text.is_empty() {
            a.gaps.add(GapScope::Checks, GapCode::InvalidMetadata, 1);
            continue;
        }
        if name.is_rejected() {
            a.gaps.add(GapScope::Checks, GapCode::UnsafeContent, 1);
            a.records.push(Record {
                kind: "check",
                id,
                key,
                created_at: created,
                updated_at: None,
                author: None,
                content_path: None,
                metadata_path: None,
                log_path: None,
                filter: name.summary,
            });
            continue;
        }
        let dir = format!("checks/{}", key.hex());
        let mut doc = Map::new();
        doc.insert("id".into(), json!(id.as_str()));
        doc.insert("name".into(), json!(name.text));
        doc.insert("status".into(), json!(meta.status.as_str()));
        doc.insert("created_at".into(), json!(created.canonical()));
        doc.insert("head_sha".into(), json!(meta.head_sha.as_str()));
        if let Some(cn) = meta.conclusion {
            doc.insert("conclusion".into(), json!(cn.as_str()));
        }
        if let Some(t) = meta.started_at {
            doc.insert("started_at".into(), json!(t.canonical()));
        }
        if let Some(t) = meta.completed_at {
            doc.insert("completed_at".into(), json!(t.canonical()));
        }
        if let Some(n) = meta.never_started {
            doc.insert("never_started".into(), json!(n));
        }
        let metadata_path = format!("{dir}/metadata.json");
        a.add_json(
            &metadata_path,
            DocSchema::Check,
            &Value::Object(doc),
            "check_metadata",
            Some(name.summary.clone()),
        )?;
        let log_path = check_log(a, &dir, &meta, c)?;
        a.records.push(Record {
            kind: "check",
            id,
            key,
            created_at: created,
            updated_at: None,
            author: None,
            content_path: None,
            metadata_path: Some(metadata_path),
            log_path,
            filter: name.summary,
        });
    }
    Ok(())
}

fn check_log(
    a: &mut Assembler,
    dir: &str,
    meta: &CheckMeta,
    c: &input::CheckInput,
) -> Result<Option<String>, AssembleError> {
    let wanted = a.profile.includes(Source::CheckLogs)
        && match a.profile.check_log_selection {
            LogSelection::None => false,
            LogSelection::All => true,
            LogSelection::Failed => meta.conclusion.is_some_and(CheckConclusion::is_failed),
        };
    if !wanted {
        return Ok(None);
    }
    let Some(log) = c.log.as_deref() else {
        if meta.status == CheckStatus::Completed {
            a.gaps.add(GapScope::CheckLogs, GapCode::FetchFailed, 1);
        }
        return Ok(None);
    };
    if log.len() as u64 > a.profile.bounds.max_source_bytes {
        a.gaps.add(GapScope::CheckLogs, GapCode::SourceTooLarge, 1);
        return Ok(None);
    }
    let f = filter::filter_text(&a.creds, log, a.profile.bounds.max_log_bytes)?;
    if f.is_rejected() {
        a.gaps.add(GapScope::CheckLogs, GapCode::UnsafeContent, 1);
        return Ok(None);
    }
    let path = format!("{dir}/log.txt");
    a.add_file(
        path.clone(),
        f.text.into_bytes(),
        "check_log",
        "text/plain",
        Some(f.summary),
    );
    Ok(Some(path))
}

struct CheckMeta {
    status: CheckStatus,
    conclusion: Option<CheckConclusion>,
    created_at: Timestamp,
    head_sha: GitOid,
    started_at: Option<Timestamp>,
    completed_at: Option<Timestamp>,
    never_started: Option<bool>,
}

/// The status-specific timestamp rules of `check.schema.json`; `None` is
/// `invalid_metadata`. Fields forbidden for the status are omitted.
fn validate_check(c: &input::CheckInput, head: Option<&GitOid>) -> Option<CheckMeta> {
    let status = CheckStatus::parse(&c.status).ok()?;
    let created_at = ts_opt(&c.created_at).ok()??;
    let head_sha = GitOid::parse(c.head_sha.as_deref()?).ok()?;
    if Some(&head_sha) != head {
        return None;
    }
    let started = ts_opt(&c.started_at).ok()?;
    let completed = ts_opt(&c.completed_at).ok()?;
    let mut m = CheckMeta {
        status,
        conclusion: None,
        created_at,
        head_sha,
        started_at: None,
        completed_at: None,
        never_started: None,
    };
    match status {
        CheckStatus::Queued => {}
        CheckStatus::InProgress => m.started_at = Some(started?),
        CheckStatus::Completed => {
            let conclusion = CheckConclusion::parse(c.conclusion.as_deref()?).ok()?;
            let never = c.never_started?;
            m.conclusion = Some(conclusion);
            m.never_started = Some(never);
            if never {
                if started.is_some()
                    || !matches!(
                        conclusion,
                        CheckConclusion::Failure
                            | CheckConclusion::Skipped
                            | CheckConclusion::Cancelled
                    )
                {
                    return None;
                }
                m.completed_at = Some(completed.unwrap_or(created_at));
            } else {
                m.started_at = Some(started?);
                m.completed_at = Some(completed?);
            }
        }
    }
    Some(m)
}

fn build_runs(
    a: &mut Assembler,
    runs: &[input::AgentRunInput],
) -> Result<(Vec<Value>, FilterSummary), AssembleError> {
    let dups = duplicates(runs.iter().map(|r| r.id.as_deref()));
    let mut ok = Vec::new();
    let mut summary = FilterSummary::unchanged();
    for r in runs {
        let id = a.unique_id(IdKind::AgentRun, r.id.as_deref(), &dups)?;
        let keys: Result<BTreeSet<HexDigest>, _> = r
            .result_record_keys
            .iter()
            .map(|k| HexDigest::parse(k))
            .collect();
        let (
            Some(id),
            Ok(status),
            Ok(input_rev),
            Ok(head),
            Ok(commit),
            Ok(started),
            Ok(Some(completed)),
            Ok(keys),
        ) = (
            id,
            RunStatus::parse(&r.status),
            HexDigest::parse(&r.input_revision),
            r.input_head_sha.as_deref().map(GitOid::parse).transpose(),
            r.resulting_commit_sha
                .as_deref()
                .map(GitOid::parse)
                .transpose(),
            ts_opt(&r.started_at),
            ts_opt(&r.completed_at),
            keys,
        )
        else {
            a.gaps.add(GapScope::AgentRuns, GapCode::InvalidMetadata, 1);
            continue;
        };
        ok.push((
            completed, id, status, input_rev, head, commit, started, keys, r,
        ));
    }
    ok.sort_by(|x, y| (x.0, x.1.as_str()).cmp(&(y.0, y.1.as_str())));
    let (kept, dropped) = select(
        ok,
        a.profile.bounds.max_records_per_source,
        a.profile.record_selection,
    );
    a.gaps
        .add(GapScope::AgentRuns, GapCode::ProfileBound, dropped);
    let mut docs = Vec::new();
    for (completed, id, status, input_rev, head, commit, started, keys, r) in kept {
        let agent = a.display(&r.agent)?;
        if agent.is_rejected() {
            a.gaps.add(GapScope::AgentRuns, GapCode::UnsafeContent, 1);
            summary.absorb(&display_contribution(&agent));
            continue;
        }
        if agent.text.is_empty() {
            a.gaps.add(GapScope::AgentRuns, GapCode::InvalidMetadata, 1);
            continue;
        }
        summary.absorb(&agent.summary);
        let mut d = Map::new();
        d.insert("id".into(), json!(id.as_str()));
        d.insert("agent".into(), json!(agent.text));
        d.insert("status".into(), json!(status.as_str()));
        d.insert("input_revision".into(), json!(input_rev.hex()));
        if let Some(h) = head {
            d.insert("input_head_sha".into(), json!(h.as_str()));
        }
        let keys: Vec<String> = keys.iter().map(HexDigest::hex).collect();
        d.insert("result_record_keys".into(), json!(keys));
        if let Some(c) = commit {
            d.insert("resulting_commit_sha".into(), json!(c.as_str()));
        }
        if let Some(s) = started {
            d.insert("started_at".into(), json!(s.canonical()));
        }
        d.insert("completed_at".into(), json!(completed.canonical()));
        docs.push(Value::Object(d));
    }
    Ok((docs, summary))
}

fn build_views(
    a: &mut Assembler,
    entity: &EntityOut,
    comments: &BTreeMap<String, Retained>,
    reviews: &BTreeMap<String, Retained>,
    threads: &[ThreadOut],
) -> Result<(), AssembleError> {
    let mut conv: Vec<&Retained> = comments
        .values()
        .chain(reviews.values())
        .filter(|r| r.content_path.is_some())
        .collect();
    conv.sort_by_key(|x| (x.created_at, x.key));
    let mut timeline = vec![entity.content_path.clone()];
    timeline.extend(conv.iter().filter_map(|r| r.content_path.clone()));
    a.add_file(
        "views/timeline.order".into(),
        order_bytes(&timeline),
        "timeline_view",
        "text/plain",
        None,
    );
    let mut ordered: Vec<&ThreadOut> = threads.iter().collect();
    ordered.sort_by_key(|x| (x.created_at, x.key));
    let unresolved: Vec<String> = ordered
        .iter()
        .filter(|t| t.unresolved_current)
        .flat_map(|t| t.paths.iter().cloned())
        .collect();
    a.add_file(
        "views/unresolved-review.order".into(),
        order_bytes(&unresolved),
        "unresolved_review_view",
        "text/plain",
        None,
    );
    for (rid, r) in reviews {
        let Some(p) = &r.content_path else { continue };
        let mut lines = vec![p.clone()];
        for t in ordered
            .iter()
            .filter(|t| t.review_id.as_deref() == Some(rid.as_str()))
        {
            lines.extend(t.paths.iter().cloned());
        }
        a.add_file(
            format!("views/reviews/{}.order", r.key.hex()),
            order_bytes(&lines),
            "review_view",
            "text/plain",
            None,
        );
    }
    Ok(())
}

fn build_actor_state(a: &mut Assembler) -> Result<(), AssembleError> {
    let mut rows = Vec::new();
    let mut summary = FilterSummary::unchanged();
    let mut missing = 0u64;
    let referenced: Vec<StructuralId> = a.referenced.iter().cloned().collect();
    // Actor-state arrays sort by actor ID's UTF-8 byte order (BTreeSet).
    for id in referenced {
        let Some(actor) = a.actors.get(id.as_str()) else {
            missing += 1;
            continue;
        };
        let (login, lf) = a.login(&actor.id)?;
        summary.absorb(&lf);
        let (role, verified) = match actor.kind {
            ActorKind::Bot => (json!("bot"), false),
            ActorKind::Human => (
                json!(actor.role.map(ActorRole::as_str)),
                actor.role_verified,
            ),
        };
        rows.push(json!({
            "id": actor.id.as_str(),
            "kind": actor.kind.as_str(),
            "login": login,
            "role": role,
            "role_verified": verified,
        }));
    }
    a.gaps
        .add(GapScope::Actors, GapCode::InvalidMetadata, missing);
    a.add_json(
        "state/actors.json",
        DocSchema::ActorState,
        &json!({"actors": rows}),
        "actor_state",
        Some(summary),
    )
}

fn build_index(
    a: &Assembler,
    entity: &EntityOut,
    repository: &Repository,
    collection_digest: HexDigest,
) -> Result<Value, AssembleError> {
    let mut files = Vec::new();
    for (path, entry) in &a.files {
        let bytes = a.tree.get(path).unwrap_or_default();
        let mut f = Map::new();
        f.insert("path".into(), json!(path));
        f.insert("role".into(), json!(entry.role));
        f.insert("media_type".into(), json!(entry.media_type));
        f.insert("bytes".into(), json!(bytes.len()));
        f.insert("sha256".into(), json!(HexDigest::of(bytes).hex()));
        if let Some(s) = &entry.filter {
            f.insert("filter".into(), s.to_json());
        }
        files.push(Value::Object(f));
    }
    let mut recs: Vec<&Record> = a.records.iter().collect();
    recs.sort_by_key(|x| (x.created_at, x.key));
    let records: Vec<Value> = recs
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("kind".into(), json!(r.kind));
            m.insert("id".into(), json!(r.id.as_str()));
            m.insert("record_key".into(), json!(r.key.hex()));
            m.insert("created_at".into(), json!(r.created_at.canonical()));
            if let Some(u) = r.updated_at {
                m.insert("updated_at".into(), json!(u.canonical()));
            }
            if let Some((aid, login)) = &r.author {
                m.insert(
                    "author_id".into(),
                    json!(aid.as_ref().map(StructuralId::as_str)),
                );
                m.insert("author".into(), json!(login));
            }
            for (k, v) in [
                ("content_path", &r.content_path),
                ("metadata_path", &r.metadata_path),
                ("log_path", &r.log_path),
            ] {
                if let Some(p) = v {
                    m.insert(k.into(), json!(p));
                }
            }
            m.insert("filter".into(), r.filter.to_json());
            Value::Object(m)
        })
        .collect();
    Ok(json!({
        "schema_version": 1,
        "filter_version": FILTER_VERSION,
        "collection_profile": collection_digest.hex(),
        "filter": a.index_filter.to_json(),
        "source": {
            "forge": a.forge.as_str(),
            "host": a.host.as_str(),
            "repository_id": a.repository_id.as_str(),
            "repository": repository.as_str(),
        },
        "entity": {
            "kind": entity.kind.as_str(),
            "id": entity.id.as_str(),
            "updated_at": entity.updated_at.canonical(),
        },
        "files": files,
        "records": records,
        "gaps": a.gaps.to_json(),
    }))
}
