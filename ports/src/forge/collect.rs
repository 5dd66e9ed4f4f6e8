//! The collection driver: [`collect`] sequences the port's calls into the
//! normalized context input, recording every partial fetch as its gap;
//! [`default_profile`] is the profile used when none is given.

use std::collections::BTreeMap;

use probity_core::context::{
    ActorInput, AdmissionInput, BoundsInput, CheckInput, CommentInput, ContextInput, GapInput,
    INPUT_FORMAT, ProfileInput, ReviewInput, SourceInput,
};
use probity_core::context::{CheckConclusion, EntityKind, Forge};
use probity_core::context::{GapCode, GapScope};
use probity_core::context::{LogSelection, Profile, ProfileError, RecordSelection, Source};

use super::{
    ActorKindRef, ActorRef, Author, Authored, EntityRef, FetchedCheck, ForgeError, ForgePort,
    Listing, Window,
};

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
        // Fetched trees use the current filter version.
        filter_version: None,
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
