//! The forge port (C4): what a forge adapter answers when one entity (a
//! change proposal or a work item) is collected, and [`collect`], the
//! driver that sequences those calls into the normalized input the pure
//! assembler reads ([`ContextInput`], `docs/context.md`).
//!
//! Adapters map their native vocabulary (entity state, review state, check
//! status and conclusion, permissions, timestamps) with explicit tables
//! before anything reaches this module: what the port hands back is already
//! v1 vocabulary. A native value a table does not list is never invented:
//! for the entity it is [`ForgeError::InvalidMetadata`] (assembly cannot
//! start), for an optional record it is counted in [`Listing::invalid`] and
//! becomes that scope's `invalid_metadata` acquisition gap.
//!
//! The driver never drops a partial fetch silently: a listing that fails is
//! a `fetch_failed` gap (a response over its size bound `source_too_large`),
//! records left beyond the profile's fetch window are a `profile_bound` gap
//! with their count, and a selected source the adapter cannot collect is an
//! `unsupported` gap.

use std::collections::BTreeMap;

use probity_core::context::input::{
    ActorInput, AdmissionInput, BoundsInput, CheckInput, CommentInput, ContextInput, EntityInput,
    GapInput, INPUT_FORMAT, ProfileInput, ReviewInput, SourceInput, ThreadInput,
};
use probity_core::context::profile::{
    LogSelection, Profile, ProfileError, RecordSelection, Source,
};
use probity_core::context::tree::{GapCode, GapScope};
use probity_core::context::types::{ActorRole, CheckConclusion, EntityKind, Forge};
use serde_json::{Map, Value, json};

/// Why a forge call failed. Messages never carry a credential: adapters
/// name the resource (a path), never a header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForgeError {
    /// HTTP 401 (bad or expired credentials) or a 403 that is not a rate
    /// limit (the credentials lack a scope).
    #[error("{what}: the forge refused the credentials (HTTP {status})")]
    Unauthorized {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The HTTP status: 401 or 403.
        status: u16,
    },
    /// HTTP 404 (or 410): the resource does not exist or is not visible.
    #[error("{what}: not found (HTTP {status})")]
    NotFound {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The HTTP status (404 or 410; 200 for a GraphQL `NOT_FOUND`, 0
        /// when no request was made).
        status: u16,
    },
    /// Still rate limited after the adapter's bounded total wait.
    #[error("{what}: rate limited; gave up after waiting {waited_secs}s in total")]
    RateLimited {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// Seconds waited in all before giving up.
        waited_secs: u64,
    },
    /// A native value the adapter's mapping table does not list, or a
    /// required value that is missing. Never invented.
    #[error("{what}: unmapped or missing native value `{value}`")]
    InvalidMetadata {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The native value no table lists, or what is missing.
        value: String,
    },
    /// The connection failed, timed out, or the forge answered an
    /// unexpected status.
    #[error("{what}: {message}")]
    Transport {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// What failed (the connection error, the timeout, the status).
        message: String,
    },
    /// A response over its size bound (never parsed).
    #[error("{what}: the response exceeds {limit} bytes")]
    InputTooLarge {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The bound the response passed, in bytes.
        limit: u64,
    },
    /// A response that is not the documented shape.
    #[error("{what}: unexpected response: {message}")]
    Malformed {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// How the response departs from the documented shape.
        message: String,
    },
    /// A selected source this adapter cannot collect.
    #[error("{what}: not supported by this forge adapter")]
    Unsupported {
        /// The source that cannot be collected.
        what: String,
    },
}

impl ForgeError {
    /// The acquisition gap a failed optional listing records.
    pub fn gap_code(&self) -> GapCode {
        match self {
            ForgeError::InputTooLarge { .. } => GapCode::SourceTooLarge,
            ForgeError::InvalidMetadata { .. } => GapCode::InvalidMetadata,
            ForgeError::Unsupported { .. } => GapCode::Unsupported,
            // `authorization_failed` is admission (an actor's role), not
            // the collector's credentials: a refused listing is a failed
            // fetch.
            ForgeError::Unauthorized { .. }
            | ForgeError::NotFound { .. }
            | ForgeError::RateLimited { .. }
            | ForgeError::Transport { .. }
            | ForgeError::Malformed { .. } => GapCode::FetchFailed,
        }
    }
}

/// Whether an actor is a person or a provider-positive bot account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorKindRef {
    /// A person's account: its role is looked up ([`ForgePort::permission`]).
    Human,
    /// An account the forge marks as a bot: its role comes only from the
    /// host's registered bot roles.
    Bot,
}

/// An actor as a record names it: the immutable forge ID and the current
/// login (for the permission lookup and `state/actors.json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorRef {
    /// The forge's immutable actor ID, as text.
    pub id: String,
    /// The current login; `None` when the forge gives none (no permission
    /// lookup then).
    pub login: Option<String>,
    /// Person or bot, as the forge's table maps it.
    pub kind: ActorKindRef,
}

/// A record's author as the adapter saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Author {
    /// A known actor.
    Actor(ActorRef),
    /// Deleted or withheld: the record's `author_id` is `null`.
    Deleted,
    /// The forge names an actor of a kind no table maps (an organization,
    /// a mannequin): the reference is kept, no actor row is invented, and
    /// the `actors` scope records `invalid_metadata`.
    Unmapped {
        /// The forge's ID for the unmapped actor.
        id: String,
    },
    /// The forge names an actor whose kind could not be looked up (the
    /// lookup failed with anything but a 404: a 5xx, a timeout, a rate
    /// limit): the reference is kept, no actor row is invented, and the
    /// `actors` scope records `fetch_failed`.
    Unfetched {
        /// The forge's ID for the actor.
        id: String,
    },
}

impl Author {
    /// The record's `author_id`.
    pub fn id(&self) -> Option<String> {
        match self {
            Author::Actor(a) => Some(a.id.clone()),
            Author::Deleted => None,
            Author::Unmapped { id } | Author::Unfetched { id } => Some(id.clone()),
        }
    }
}

/// One record with its author.
#[derive(Debug, Clone)]
pub struct Authored<T> {
    /// The record, already v1 vocabulary.
    pub record: T,
    /// Who wrote it.
    pub author: Author,
}

/// Which end of a listing to fetch and how many records: the profile's
/// `record_selection` and `max_records_per_source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The most records the profile keeps (`max_records_per_source`).
    pub max_records: u64,
    /// Which end of the listing to fetch: the newest or the oldest records.
    pub selection: RecordSelection,
}

/// A bounded listing.
#[derive(Debug, Clone)]
pub struct Listing<T> {
    /// The mapped records fetched (possibly more than the window: whole
    /// pages; the assembler applies the exact bound and counts the rest).
    pub items: Vec<T>,
    /// Records the adapter could not map (unmapped native value, missing
    /// ID): each one is an `invalid_metadata` gap of the listing's scope.
    pub invalid: u64,
    /// Records left unfetched beyond the window (a `profile_bound` gap).
    pub beyond_window: u64,
    /// The forge keeps no immutable history of this source (GitLab
    /// approvals): a partial `history_unavailable` gap.
    pub history_unavailable: bool,
    /// Records left out because a lookup each needs failed (a 5xx, a
    /// timeout, a rate limit waited out in vain: anything but the 404 that
    /// answers "none", such as a GitHub check run's Actions job, D7): each
    /// one a `fetch_failed` gap of the listing's scope.
    pub fetch_failed: u64,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            invalid: 0,
            beyond_window: 0,
            history_unavailable: false,
            fetch_failed: 0,
        }
    }
}

/// What is collected: the entity's kind and display number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityRef {
    /// A change proposal or a work item.
    pub kind: EntityKind,
    /// The number people use for it on the forge (`#12`, `!12`).
    pub number: u64,
}

/// The repository as the forge names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryInfo {
    /// The immutable repository ID (`null` when the forge withholds it: the
    /// assembler then aborts, never substitutes).
    pub repository_id: Option<String>,
    /// The navigation value (`owner/name`, the forge's canonical form).
    pub repository: String,
}

/// The entity's metadata and body (already v1 vocabulary).
#[derive(Debug, Clone)]
pub struct FetchedEntity {
    /// The entity's normalized metadata and body.
    pub entity: EntityInput,
    /// Who opened it.
    pub author: Author,
}

/// Review threads with their comments (review comments are records of the
/// `comments` source; threads belong to the `reviews` scope).
#[derive(Debug, Clone, Default)]
pub struct FetchedThreads {
    /// The threads, each naming its comments.
    pub threads: Listing<ThreadInput>,
    /// The threads' review comments, with their authors.
    pub comments: Listing<Authored<CommentInput>>,
    /// Actors that resolved threads.
    pub resolvers: Vec<ActorRef>,
}

/// A check run and, when the forge has one, the handle of its log.
#[derive(Debug, Clone)]
pub struct FetchedCheck {
    /// The check run, normalized.
    pub check: CheckInput,
    /// The adapter's handle for the log, passed back to
    /// [`ForgePort::check_log`]; `None` when the check has no log.
    pub log: Option<String>,
}

/// A check log read under its bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogText {
    /// The log (lossy UTF-8 of the bytes read).
    pub text: String,
    /// More bytes than the bound were available: `text` holds the first
    /// `max_bytes + 1` bytes, which the assembler refuses undecoded
    /// (`source_too_large`).
    pub oversized: bool,
}

/// The operations needed to collect one entity. Every answer is already
/// mapped to v1 vocabulary by the adapter's tables.
pub trait ForgePort {
    /// The repository's immutable ID and navigation name.
    fn repository(&mut self) -> Result<RepositoryInfo, ForgeError>;
    /// The entity's metadata and body; for a change proposal `head_sha` is
    /// the HEAD captured now (collection start).
    fn entity(&mut self, entity: EntityRef) -> Result<FetchedEntity, ForgeError>;
    /// Conversation comments on the entity.
    fn comments(
        &mut self,
        entity: EntityRef,
        window: Window,
    ) -> Result<Listing<Authored<CommentInput>>, ForgeError>;
    /// Formal reviews of a change proposal (unsubmitted ones omitted).
    fn reviews(
        &mut self,
        number: u64,
        window: Window,
    ) -> Result<Listing<Authored<ReviewInput>>, ForgeError>;
    /// Review threads of a change proposal, with their comments.
    fn review_threads(&mut self, number: u64, window: Window)
    -> Result<FetchedThreads, ForgeError>;
    /// Check runs reported for exactly `head_sha`.
    fn checks(
        &mut self,
        head_sha: &str,
        window: Window,
    ) -> Result<Listing<FetchedCheck>, ForgeError>;
    /// One check log, read to at most `max_bytes + 1` bytes.
    fn check_log(&mut self, log: &str, max_bytes: u64) -> Result<LogText, ForgeError>;
    /// The actor's current effective repository role.
    fn permission(&mut self, actor: &ActorRef) -> Result<ActorRole, ForgeError>;
}

/// What to collect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectRequest {
    /// Which forge the adapter speaks to (`source.forge`).
    pub forge: Forge,
    /// `source.host` (lowercase DNS name, `:port` only when not 443).
    pub host: String,
    /// The entity to collect.
    pub entity: EntityRef,
    /// The host's registered bot roles (ADR 0107): a provider-positive bot
    /// account with exactly this login resolves to this `bot_role`. A human
    /// account with the same login gets nothing from it.
    pub bot_roles: BTreeMap<String, String>,
}

/// Why collection could not produce an input document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CollectError {
    /// The profile is invalid: nothing was fetched.
    #[error("invalid collection profile: {0}")]
    Profile(#[from] ProfileError),
    /// The profile names another entity kind than the request.
    #[error("the profile's entity_kind is {profile}, the request names a {request}")]
    KindMismatch {
        /// The profile's `entity_kind`.
        profile: &'static str,
        /// The kind the request names.
        request: &'static str,
    },
    /// A required singleton (the repository, the entity) could not be
    /// fetched or mapped.
    #[error(transparent)]
    Forge(#[from] ForgeError),
}

/// The default collection profile for an entity kind: every applicable
/// source but agent runs (Fullsend receipts are not collected yet), the
/// newest records, failed checks' logs, and the `write` admission
/// threshold (mutation agents; the stricter one).
pub fn default_profile(kind: EntityKind) -> ProfileInput {
    let (sources, logs): (&[&str], &str) = match kind {
        EntityKind::WorkItem => (&["entity", "comments"], "none"),
        EntityKind::ChangeProposal => (
            &["entity", "comments", "reviews", "checks", "check_logs"],
            "failed",
        ),
    };
    ProfileInput {
        entity_kind: kind.as_str().to_owned(),
        included_sources: sources.iter().map(|s| (*s).to_owned()).collect(),
        record_selection: "newest".to_owned(),
        check_log_selection: logs.to_owned(),
        bounds: BoundsInput {
            max_records_per_source: 100,
            max_source_bytes: 1024 * 1024,
            max_record_bytes: 64 * 1024,
            max_log_bytes: 64 * 1024,
            max_metadata_string_bytes: 1024,
            max_labels: 20,
        },
        admission: AdmissionInput {
            human_min_role: "write".to_owned(),
        },
    }
}

/// Gaps keyed by (scope, code), summed.
#[derive(Default)]
struct Gaps(BTreeMap<(&'static str, &'static str), u64>);

impl Gaps {
    fn add(&mut self, scope: GapScope, code: GapCode, count: u64) {
        if count > 0 {
            *self.0.entry((scope.as_str(), code.as_str())).or_default() += count;
        }
    }
    fn into_inputs(self) -> Vec<GapInput> {
        self.0
            .into_iter()
            .map(|((scope, code), count)| GapInput {
                scope: scope.to_owned(),
                code: code.to_owned(),
                count: i64::try_from(count).unwrap_or(i64::MAX),
            })
            .collect()
    }
}

/// Actor references seen while collecting, by ID.
#[derive(Default)]
struct Actors {
    seen: BTreeMap<String, ActorRef>,
    conflicting: BTreeMap<String, ()>,
    unmapped: BTreeMap<String, ()>,
    unfetched: BTreeMap<String, ()>,
}

impl Actors {
    fn note(&mut self, author: &Author) {
        match author {
            Author::Actor(a) => self.note_ref(a),
            Author::Deleted => {}
            Author::Unmapped { id } => {
                self.unmapped.insert(id.clone(), ());
            }
            Author::Unfetched { id } => {
                self.unfetched.insert(id.clone(), ());
            }
        }
    }
    fn note_ref(&mut self, a: &ActorRef) {
        match self.seen.get(&a.id) {
            Some(prev) if prev.kind != a.kind => {
                self.conflicting.insert(a.id.clone(), ());
            }
            Some(_) => {}
            None => {
                self.seen.insert(a.id.clone(), a.clone());
            }
        }
    }
}

/// Collects one entity through `port` into a normalized input document.
///
/// The profile is validated first (nothing is fetched for an invalid one).
/// The repository and the entity are required: their failure is an error.
/// Every optional source the profile selects is fetched within its window;
/// a failed listing becomes that scope's gap (see the module docs), a
/// failed log leaves the check without a log (the assembler records
/// `check_logs` `fetch_failed`), and a failed permission lookup leaves the
/// actor unverified (`role: null`, fail closed).
pub fn collect<P: ForgePort + ?Sized>(
    port: &mut P,
    request: &CollectRequest,
    profile: &ProfileInput,
) -> Result<ContextInput, CollectError> {
    let parsed = Profile::parse(profile)?;
    if parsed.entity_kind != request.entity.kind {
        return Err(CollectError::KindMismatch {
            profile: parsed.entity_kind.as_str(),
            request: request.entity.kind.as_str(),
        });
    }
    let window = Window {
        max_records: parsed.bounds.max_records_per_source,
        selection: parsed.record_selection,
    };
    let repo = port.repository()?;
    let fetched = port.entity(request.entity)?;
    let mut gaps = Gaps::default();
    let mut actors = Actors::default();
    actors.note(&fetched.author);
    let mut entity = fetched.entity;
    entity.author_id = fetched.author.id();

    let mut comments = Vec::new();
    if parsed.sources.contains(&Source::Comments) {
        match port.comments(request.entity, window) {
            Ok(l) => take(&mut comments, l, GapScope::Comments, &mut gaps, &mut actors),
            Err(e) => gaps.add(GapScope::Comments, e.gap_code(), 1),
        }
    }

    let mut reviews = Vec::new();
    let mut threads = Vec::new();
    if parsed.sources.contains(&Source::Reviews) {
        let n = request.entity.number;
        match port.reviews(n, window) {
            Ok(l) => take(&mut reviews, l, GapScope::Reviews, &mut gaps, &mut actors),
            Err(e) => gaps.add(GapScope::Reviews, e.gap_code(), 1),
        }
        match port.review_threads(n, window) {
            Ok(t) => {
                gaps.add(
                    GapScope::Reviews,
                    GapCode::InvalidMetadata,
                    t.threads.invalid,
                );
                gaps.add(
                    GapScope::Reviews,
                    GapCode::ProfileBound,
                    t.threads.beyond_window,
                );
                threads = t.threads.items;
                for r in &t.resolvers {
                    actors.note_ref(r);
                }
                if parsed.sources.contains(&Source::Comments) {
                    take(
                        &mut comments,
                        t.comments,
                        GapScope::Comments,
                        &mut gaps,
                        &mut actors,
                    );
                } else {
                    // Review comments are `comments` records; without that
                    // source the threads have no retained records, which
                    // the assembler omits everywhere.
                }
            }
            Err(e) => {
                gaps.add(GapScope::Reviews, e.gap_code(), 1);
                // The review comments came with the threads: the comment
                // source is incomplete too.
                if parsed.sources.contains(&Source::Comments) {
                    gaps.add(GapScope::Comments, e.gap_code(), 1);
                }
            }
        }
    }

    let mut checks = Vec::new();
    if parsed.sources.contains(&Source::Checks) {
        match entity.head_sha.clone() {
            None => gaps.add(GapScope::Checks, GapCode::InvalidMetadata, 1),
            Some(head) => match port.checks(&head, window) {
                Ok(l) => {
                    gaps.add(GapScope::Checks, GapCode::InvalidMetadata, l.invalid);
                    gaps.add(GapScope::Checks, GapCode::ProfileBound, l.beyond_window);
                    gaps.add(GapScope::Checks, GapCode::FetchFailed, l.fetch_failed);
                    checks = fetch_logs(port, &parsed, window, &head, l.items);
                }
                Err(e) => gaps.add(GapScope::Checks, e.gap_code(), 1),
            },
        }
    }

    if parsed.sources.contains(&Source::AgentRuns) {
        // Fullsend run receipts are not collected from forges yet.
        gaps.add(GapScope::AgentRuns, GapCode::Unsupported, 1);
    }

    let mut actor_rows = Vec::new();
    for (id, a) in &actors.seen {
        if actors.conflicting.contains_key(id) {
            continue;
        }
        actor_rows.push(match a.kind {
            ActorKindRef::Bot => ActorInput {
                id: id.clone(),
                kind: "bot".into(),
                login: a.login.clone(),
                role: None,
                role_verified: false,
                bot_identity_verified: true,
                // ADR 0107: only a login the host registered resolves a
                // role; an unregistered bot is not admitted.
                bot_role: a
                    .login
                    .as_ref()
                    .and_then(|l| request.bot_roles.get(l))
                    .cloned(),
            },
            ActorKindRef::Human => {
                let role = match a.login {
                    Some(_) => port.permission(a).ok(),
                    None => None,
                };
                ActorInput {
                    id: id.clone(),
                    kind: "human".into(),
                    login: a.login.clone(),
                    role: role.map(|r| r.as_str().to_owned()),
                    role_verified: role.is_some(),
                    bot_identity_verified: false,
                    bot_role: None,
                }
            }
        });
    }
    let unmapped = actors
        .unmapped
        .keys()
        .filter(|id| !actors.seen.contains_key(*id))
        .count() as u64;
    gaps.add(
        GapScope::Actors,
        GapCode::InvalidMetadata,
        actors.conflicting.len() as u64 + unmapped,
    );
    let unfetched = actors
        .unfetched
        .keys()
        .filter(|id| !actors.seen.contains_key(*id) && !actors.unmapped.contains_key(*id))
        .count() as u64;
    gaps.add(GapScope::Actors, GapCode::FetchFailed, unfetched);

    Ok(ContextInput {
        format: INPUT_FORMAT.to_owned(),
        source: SourceInput {
            forge: request.forge.as_str().to_owned(),
            host: request.host.clone(),
            repository_id: repo.repository_id,
            repository: Some(repo.repository),
        },
        profile: profile.clone(),
        entity,
        actors: actor_rows,
        bot_roles: request
            .bot_roles
            .values()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
        credentials: Vec::new(),
        comments,
        reviews,
        threads,
        checks,
        agent_runs: Vec::new(),
        acquisition_gaps: gaps.into_inputs(),
    })
}

/// Records with author IDs set; their authors noted; gaps counted.
trait WithAuthor {
    fn set_author(&mut self, id: Option<String>);
}
impl WithAuthor for CommentInput {
    fn set_author(&mut self, id: Option<String>) {
        self.author_id = id;
    }
}
impl WithAuthor for ReviewInput {
    fn set_author(&mut self, id: Option<String>) {
        self.author_id = id;
    }
}

fn take<T: WithAuthor>(
    out: &mut Vec<T>,
    listing: Listing<Authored<T>>,
    scope: GapScope,
    gaps: &mut Gaps,
    actors: &mut Actors,
) {
    gaps.add(scope, GapCode::InvalidMetadata, listing.invalid);
    gaps.add(scope, GapCode::ProfileBound, listing.beyond_window);
    gaps.add(scope, GapCode::FetchFailed, listing.fetch_failed);
    if listing.history_unavailable {
        gaps.add(scope, GapCode::HistoryUnavailable, 1);
    }
    for a in listing.items {
        actors.note(&a.author);
        let mut r = a.record;
        r.set_author(a.author.id());
        out.push(r);
    }
}

/// Fetches the logs the profile selects, for the checks the assembler can
/// retain: completed ones on the captured head, in the window's order.
fn fetch_logs<P: ForgePort + ?Sized>(
    port: &mut P,
    profile: &Profile,
    window: Window,
    head: &str,
    fetched: Vec<FetchedCheck>,
) -> Vec<CheckInput> {
    let wants = |c: &CheckInput| {
        profile.sources.contains(&Source::CheckLogs)
            && c.status == "completed"
            && match profile.check_log_selection {
                LogSelection::None => false,
                LogSelection::All => true,
                LogSelection::Failed => c
                    .conclusion
                    .as_deref()
                    .and_then(|s| CheckConclusion::parse(s).ok())
                    .is_some_and(CheckConclusion::is_failed),
            }
    };
    // Logs only for checks inside the window (by created_at, then ID, the
    // assembler's order, over the checks it can retain: with a creation
    // time, on the captured head): never more than
    // `max_records_per_source` logs.
    let mut order: Vec<usize> = (0..fetched.len())
        .filter(|&i| {
            let c = &fetched[i].check;
            c.created_at.is_some() && c.head_sha.as_deref() == Some(head)
        })
        .collect();
    order.sort_by(|&a, &b| {
        let k = |i: usize| {
            (
                fetched[i].check.created_at.clone(),
                fetched[i].check.id.clone(),
            )
        };
        k(a).cmp(&k(b))
    });
    let cap = usize::try_from(window.max_records).unwrap_or(usize::MAX);
    let chosen: Vec<usize> = match window.selection {
        RecordSelection::Oldest => order.into_iter().take(cap).collect(),
        RecordSelection::Newest => order.into_iter().rev().take(cap).collect(),
    };
    let mut checks: Vec<FetchedCheck> = fetched;
    for i in chosen {
        let Some(fc) = checks.get_mut(i) else {
            continue;
        };
        if !wants(&fc.check) {
            continue;
        }
        if let Some(handle) = fc.log.clone()
            && let Ok(log) = port.check_log(&handle, profile.bounds.max_source_bytes)
        {
            fc.check.log = Some(log.text);
        }
    }
    checks.into_iter().map(|c| c.check).collect()
}

fn opt(map: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        map.insert(key.to_owned(), v);
    }
}

/// The normalized-input document as JSON (`--input-out`), the exact shape
/// `probity context assemble --input` reads back.
pub fn input_document(input: &ContextInput) -> Value {
    let p = &input.profile;
    let e = &input.entity;
    let mut entity = Map::new();
    entity.insert("kind".into(), json!(e.kind));
    entity.insert("id".into(), json!(e.id));
    entity.insert("number".into(), json!(e.number));
    entity.insert("title".into(), json!(e.title));
    entity.insert("state".into(), json!(e.state));
    entity.insert("author_id".into(), json!(e.author_id));
    entity.insert("created_at".into(), json!(e.created_at));
    entity.insert("updated_at".into(), json!(e.updated_at));
    entity.insert("labels".into(), json!(e.labels));
    entity.insert("body".into(), json!(e.body));
    opt(
        &mut entity,
        "head_sha",
        e.head_sha.as_ref().map(|v| json!(v)),
    );
    let actors: Vec<Value> = input
        .actors
        .iter()
        .map(|a| {
            json!({"id": a.id, "kind": a.kind, "login": a.login, "role": a.role,
                   "role_verified": a.role_verified,
                   "bot_identity_verified": a.bot_identity_verified, "bot_role": a.bot_role})
        })
        .collect();
    let comments: Vec<Value> = input
        .comments
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("id".into(), json!(c.id));
            m.insert("author_id".into(), json!(c.author_id));
            m.insert("created_at".into(), json!(c.created_at));
            opt(
                &mut m,
                "updated_at",
                c.updated_at.as_ref().map(|v| json!(v)),
            );
            m.insert("body".into(), json!(c.body));
            Value::Object(m)
        })
        .collect();
    let reviews: Vec<Value> = input
        .reviews
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("id".into(), json!(r.id));
            m.insert("author_id".into(), json!(r.author_id));
            m.insert("state".into(), json!(r.state));
            m.insert("submitted_at".into(), json!(r.submitted_at));
            opt(
                &mut m,
                "updated_at",
                r.updated_at.as_ref().map(|v| json!(v)),
            );
            opt(
                &mut m,
                "reviewed_sha",
                r.reviewed_sha.as_ref().map(|v| json!(v)),
            );
            m.insert("body".into(), json!(r.body));
            if r.state == "dismissed" {
                m.insert("dismissed_at".into(), json!(r.dismissed_at));
                m.insert(
                    "dismissed_by_actor_id".into(),
                    json!(r.dismissed_by_actor_id),
                );
            }
            Value::Object(m)
        })
        .collect();
    let threads: Vec<Value> = input
        .threads
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("id".into(), json!(t.id));
            m.insert("created_at".into(), json!(t.created_at));
            m.insert("comment_ids".into(), json!(t.comment_ids));
            let replies: Vec<Value> = t
                .replies
                .iter()
                .map(|r| json!({"comment_id": r.comment_id, "parent_comment_id": r.parent_comment_id}))
                .collect();
            m.insert("replies".into(), Value::Array(replies));
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            let n = |v: &Option<i64>| v.map(|v| json!(v));
            opt(&mut m, "review_id", s(&t.review_id));
            opt(&mut m, "reviewed_sha", s(&t.reviewed_sha));
            opt(&mut m, "path", s(&t.path));
            opt(&mut m, "line", n(&t.line));
            opt(&mut m, "side", s(&t.side));
            opt(&mut m, "start_line", n(&t.start_line));
            opt(&mut m, "original_line", n(&t.original_line));
            opt(&mut m, "original_start_line", n(&t.original_start_line));
            opt(&mut m, "original_side", s(&t.original_side));
            m.insert("resolved".into(), json!(t.resolved));
            opt(&mut m, "resolved_by_actor_id", s(&t.resolved_by_actor_id));
            m.insert("outdated".into(), json!(t.outdated));
            opt(&mut m, "minimized", t.minimized.map(|v| json!(v)));
            Value::Object(m)
        })
        .collect();
    let checks: Vec<Value> = input
        .checks
        .iter()
        .map(|c| {
            let mut m = Map::new();
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            m.insert("id".into(), json!(c.id));
            m.insert("name".into(), json!(c.name));
            m.insert("status".into(), json!(c.status));
            opt(&mut m, "conclusion", s(&c.conclusion));
            m.insert("created_at".into(), json!(c.created_at));
            m.insert("head_sha".into(), json!(c.head_sha));
            opt(&mut m, "started_at", s(&c.started_at));
            opt(&mut m, "completed_at", s(&c.completed_at));
            opt(&mut m, "never_started", c.never_started.map(|v| json!(v)));
            opt(&mut m, "log", s(&c.log));
            Value::Object(m)
        })
        .collect();
    let agent_runs: Vec<Value> = input
        .agent_runs
        .iter()
        .map(|r| {
            let mut m = Map::new();
            let s = |v: &Option<String>| v.as_ref().map(|v| json!(v));
            m.insert("id".into(), json!(r.id));
            m.insert("agent".into(), json!(r.agent));
            m.insert("status".into(), json!(r.status));
            m.insert("input_revision".into(), json!(r.input_revision));
            opt(&mut m, "input_head_sha", s(&r.input_head_sha));
            m.insert("result_record_keys".into(), json!(r.result_record_keys));
            opt(&mut m, "resulting_commit_sha", s(&r.resulting_commit_sha));
            opt(&mut m, "started_at", s(&r.started_at));
            m.insert("completed_at".into(), json!(r.completed_at));
            Value::Object(m)
        })
        .collect();
    let gaps: Vec<Value> = input
        .acquisition_gaps
        .iter()
        .map(|g| json!({"scope": g.scope, "code": g.code, "count": g.count}))
        .collect();
    json!({
        "format": input.format,
        "source": {
            "forge": input.source.forge,
            "host": input.source.host,
            "repository_id": input.source.repository_id,
            "repository": input.source.repository,
        },
        "profile": {
            "entity_kind": p.entity_kind,
            "included_sources": p.included_sources,
            "record_selection": p.record_selection,
            "check_log_selection": p.check_log_selection,
            "bounds": {
                "max_records_per_source": p.bounds.max_records_per_source,
                "max_source_bytes": p.bounds.max_source_bytes,
                "max_record_bytes": p.bounds.max_record_bytes,
                "max_log_bytes": p.bounds.max_log_bytes,
                "max_metadata_string_bytes": p.bounds.max_metadata_string_bytes,
                "max_labels": p.bounds.max_labels,
            },
            "admission": {"human_min_role": p.admission.human_min_role},
        },
        "entity": Value::Object(entity),
        "actors": actors,
        "bot_roles": input.bot_roles,
        "credentials": input.credentials,
        "comments": comments,
        "reviews": reviews,
        "threads": threads,
        "checks": checks,
        "agent_runs": agent_runs,
        "acquisition_gaps": gaps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port answering fixed records (no I/O).
    struct Fake {
        threads_fail: bool,
        roles: BTreeMap<String, ActorRole>,
        logs_asked: Vec<String>,
    }

    fn human(id: &str, login: &str) -> Author {
        Author::Actor(ActorRef {
            id: id.into(),
            login: Some(login.into()),
            kind: ActorKindRef::Human,
        })
    }

    fn comment(id: &str, at: &str) -> CommentInput {
        CommentInput {
            id: Some(id.into()),
            author_id: None,
            created_at: Some(at.into()),
            updated_at: None,
            body: format!("comment {id}"),
        }
    }

    fn check(id: &str, at: &str, conclusion: &str) -> FetchedCheck {
        FetchedCheck {
            check: CheckInput {
                id: Some(id.into()),
                name: format!("check {id}"),
                status: "completed".into(),
                conclusion: Some(conclusion.into()),
                created_at: Some(at.into()),
                head_sha: Some(HEAD.into()),
                started_at: Some(at.into()),
                completed_at: Some(at.into()),
                never_started: Some(false),
                log: None,
            },
            log: Some(format!("log-{id}")),
        }
    }

    const HEAD: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

    impl ForgePort for Fake {
        fn repository(&mut self) -> Result<RepositoryInfo, ForgeError> {
            Ok(RepositoryInfo {
                repository_id: Some("R_kgDOFake".into()),
                repository: "acme/widgets".into(),
            })
        }
        fn entity(&mut self, e: EntityRef) -> Result<FetchedEntity, ForgeError> {
            Ok(FetchedEntity {
                entity: EntityInput {
                    kind: e.kind.as_str().into(),
                    id: Some("PR_kwDOFake".into()),
                    number: 1,
                    title: Some("t".into()),
                    state: "open".into(),
                    author_id: None,
                    created_at: Some("2026-01-01T00:00:00Z".into()),
                    updated_at: Some("2026-01-01T00:00:00Z".into()),
                    labels: vec![],
                    body: Some("b".into()),
                    head_sha: Some(HEAD.into()),
                },
                author: human("U_a", "alice"),
            })
        }
        fn comments(
            &mut self,
            _: EntityRef,
            _: Window,
        ) -> Result<Listing<Authored<CommentInput>>, ForgeError> {
            Ok(Listing {
                items: vec![
                    Authored {
                        record: comment("IC_1", "2026-01-01T01:00:00Z"),
                        author: human("U_a", "alice"),
                    },
                    // The same ID named as a bot elsewhere: conflicting.
                    Authored {
                        record: comment("IC_2", "2026-01-01T02:00:00Z"),
                        author: Author::Actor(ActorRef {
                            id: "U_b".into(),
                            login: Some("bob".into()),
                            kind: ActorKindRef::Bot,
                        }),
                    },
                    Authored {
                        record: comment("IC_3", "2026-01-01T03:00:00Z"),
                        author: human("U_b", "bob"),
                    },
                    Authored {
                        record: comment("IC_4", "2026-01-01T04:00:00Z"),
                        author: Author::Unmapped { id: "O_org".into() },
                    },
                ],
                invalid: 2,
                beyond_window: 3,
                history_unavailable: false,
                fetch_failed: 0,
            })
        }
        fn reviews(
            &mut self,
            _: u64,
            _: Window,
        ) -> Result<Listing<Authored<ReviewInput>>, ForgeError> {
            Ok(Listing::default())
        }
        fn review_threads(&mut self, _: u64, _: Window) -> Result<FetchedThreads, ForgeError> {
            if self.threads_fail {
                return Err(ForgeError::InputTooLarge {
                    what: "threads".into(),
                    limit: 1,
                });
            }
            Ok(FetchedThreads::default())
        }
        fn checks(&mut self, head: &str, _: Window) -> Result<Listing<FetchedCheck>, ForgeError> {
            assert_eq!(head, HEAD);
            Ok(Listing {
                items: vec![
                    // No creation time: the assembler cannot retain it,
                    // so it takes no place in the log window.
                    FetchedCheck {
                        check: CheckInput {
                            created_at: None,
                            ..check("CR_nodate", "2026-01-01T00:40:00Z", "failure").check
                        },
                        log: Some("log-CR_nodate".into()),
                    },
                    check("CR_old", "2026-01-01T00:10:00Z", "failure"),
                    check("CR_new", "2026-01-01T00:20:00Z", "failure"),
                    check("CR_ok", "2026-01-01T00:30:00Z", "success"),
                ],
                ..Listing::default()
            })
        }
        fn check_log(&mut self, log: &str, _: u64) -> Result<LogText, ForgeError> {
            self.logs_asked.push(log.to_owned());
            Ok(LogText {
                text: "boom\n".into(),
                oversized: false,
            })
        }
        fn permission(&mut self, a: &ActorRef) -> Result<ActorRole, ForgeError> {
            self.roles
                .get(a.login.as_deref().unwrap_or(""))
                .copied()
                .ok_or(ForgeError::NotFound {
                    what: "permission".into(),
                    status: 404,
                })
        }
    }

    fn fake() -> Fake {
        Fake {
            threads_fail: false,
            roles: BTreeMap::from([("alice".to_owned(), ActorRole::Write)]),
            logs_asked: vec![],
        }
    }

    fn request() -> CollectRequest {
        CollectRequest {
            forge: Forge::Github,
            host: "github.com".into(),
            entity: EntityRef {
                kind: EntityKind::ChangeProposal,
                number: 1,
            },
            bot_roles: BTreeMap::new(),
        }
    }

    fn gaps(input: &ContextInput) -> Vec<(String, String, i64)> {
        input
            .acquisition_gaps
            .iter()
            .map(|g| (g.scope.clone(), g.code.clone(), g.count))
            .collect()
    }

    #[test]
    fn collect_records_every_partial_fetch_as_a_gap() {
        let mut profile = default_profile(EntityKind::ChangeProposal);
        profile.included_sources.push("agent_runs".into());
        profile.bounds.max_records_per_source = 2;
        profile.record_selection = "newest".into();
        let mut port = Fake {
            threads_fail: true,
            ..fake()
        };
        let input = collect(&mut port, &request(), &profile).unwrap();
        let s = |a: &str, b: &str, n: i64| (a.to_owned(), b.to_owned(), n);
        assert_eq!(
            gaps(&input),
            [
                // The conflicting ID and the unmapped account type.
                s("actors", "invalid_metadata", 2),
                s("agent_runs", "unsupported", 1),
                s("comments", "invalid_metadata", 2),
                s("comments", "profile_bound", 3),
                // The review comments came with the failed threads.
                s("comments", "source_too_large", 1),
                s("reviews", "source_too_large", 1),
            ]
        );
        // The conflicting actor has no row; the unmapped one neither.
        let ids: Vec<_> = input.actors.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["U_a"]);
        assert_eq!(input.actors[0].role.as_deref(), Some("write"));
        assert_eq!(input.comments[3].author_id.as_deref(), Some("O_org"));
        // Logs only within the newest window of two (CR_new, CR_ok), and
        // only the failed one's: never CR_old's.
        assert_eq!(port.logs_asked, ["log-CR_new"]);
        let with_log: Vec<_> = input
            .checks
            .iter()
            .filter(|c| c.log.is_some())
            .map(|c| c.id.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(with_log, ["CR_new"]);
        assert_eq!(input.checks.len(), 4);
    }

    #[test]
    fn a_failed_permission_lookup_leaves_the_actor_unverified() {
        let mut port = Fake {
            roles: BTreeMap::new(),
            ..fake()
        };
        let input = collect(
            &mut port,
            &request(),
            &default_profile(EntityKind::ChangeProposal),
        )
        .unwrap();
        let alice = input.actors.iter().find(|a| a.id == "U_a").unwrap();
        assert_eq!((alice.role.as_deref(), alice.role_verified), (None, false));
    }

    #[test]
    fn the_input_document_reads_back_strictly_and_identically() {
        let mut port = fake();
        let input = collect(
            &mut port,
            &request(),
            &default_profile(EntityKind::ChangeProposal),
        )
        .unwrap();
        let doc = input_document(&input);
        let bytes = serde_json::to_vec(&doc).unwrap();
        let back: ContextInput = probity_core::canonical::from_slice_strict(&bytes).unwrap();
        assert_eq!(input_document(&back), doc);
        assert_eq!(doc["format"], INPUT_FORMAT);
        assert_eq!(doc["checks"].as_array().map(Vec::len), Some(4));
    }
}
