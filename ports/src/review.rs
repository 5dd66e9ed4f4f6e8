//! Review authority: ports and drivers for start, finalize, validate and
//! status.

use std::error::Error as StdError;

use probity_core::digest::Sha256Digest;
use probity_core::review::attest;
use probity_core::review::causality::{CausalFacts, Hunk};
use probity_core::review::correction::FixMeasurement;
use probity_core::review::export::{
    ContextExport, ExportError, MAX_DIFF_BYTES, ManifestEntry, build_export, over_budget,
};
use probity_core::review::finding::{RefuterResult, ReviewerResult, RoleDocError, ValidatorResult};
use probity_core::review::gate::Decision;
use probity_core::review::gate::{
    Authority, DeliveredRange, Gate, GateDecision, RangeCommit, RangeProblem, RefUpdate,
    combine_deliveries, decide_target, dedupe_ranges, delivery_commit,
};
use probity_core::review::ids::{
    CommitId, LineageId, NonBlank, Nonce, RepoPath, Timestamp, TreeId,
};
use probity_core::review::lens::{Lens, select_lenses};
use probity_core::review::pre_pr::{
    BaseAdvance, base_unavailable, check_base_advance, unrelated_history,
};
use probity_core::review::receipt::Receipt;
use probity_core::review::recovery::{
    self, Ancestor, ChainError, RecoverError, RecoverRequest, ScopeEvidence, check_chain,
    check_link,
};
use probity_core::review::release::{ExpectedArtifact, ObservedArtifact, check_artifacts};
use probity_core::review::risk::RiskPolicy;
use probity_core::review::snapshot::{
    CandidateObservation, ChangedFile, DiffAnchor, LiveTarget, Snapshot, SnapshotError,
    authored_lines,
};
use probity_core::review::state::{
    ReviewState, Stage, StartInput, StateError, StateRecord, TransitionError,
};

/// A boxed adapter error, kept whole for its message and source chain.
pub type AdapterError = Box<dyn StdError + Send + Sync + 'static>;

/// Observing the repository. Every method re-derives from live Git state; a
/// failure is an error, never a guess.
pub trait GitPort {
    /// Everything start needs: trees, changed files with line counts and
    /// leading content, and the intended untracked files.
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError>;
    /// The live base and candidate trees only (cheap: what a gate compares).
    fn live_target(&self) -> Result<LiveTarget, AdapterError>;
    /// The base tree and the tree the given index file would commit,
    /// unchanged (what a commit in progress delivers).
    fn staged_target(&self, index: &std::path::Path) -> Result<LiveTarget, AdapterError>;
    /// Paths whose entries differ between two trees (adds and removals too).
    fn differing_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RepoPath>, AdapterError>;
    /// The changed files between two trees, with modes, line counts and
    /// leading content (what a fix is measured with).
    fn diff_files(&self, from: &TreeId, to: &TreeId) -> Result<Vec<ChangedFile>, AdapterError>;
    /// The new-side hunks of one path between two trees (`diff -U0`).
    fn hunks(&self, from: &TreeId, to: &TreeId, path: &RepoPath)
    -> Result<Vec<Hunk>, AdapterError>;
    /// The number of lines of a path in a tree; `None` when absent.
    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError>;
    /// Keeps a lineage's frozen trees from garbage collection (R10.6), when
    /// the repository asks for it; idempotent. An adapter that keeps
    /// nothing may leave this as is.
    fn keep_trees(
        &self,
        lineage: &LineageId,
        trees: &[(&str, &TreeId)],
    ) -> Result<(), AdapterError> {
        let _ = (lineage, trees);
        Ok(())
    }
    /// Checks, before anything is written, that keeping trees is configured
    /// legibly (a bad setting fails the command with nothing changed).
    fn check_keep_trees(&self) -> Result<(), AdapterError> {
        Ok(())
    }
}

/// Asks the Git port to keep a record's trees: base, frozen candidate, and
/// the corrected candidate once there is one.
fn keep<G: GitPort>(git: &G, record: &StateRecord) -> Result<(), ReviewError> {
    let s = &record.state;
    let mut trees = vec![
        ("base", &s.snapshot.base_tree),
        ("candidate", &s.snapshot.candidate_tree),
    ];
    if s.final_candidate_tree() != &s.snapshot.candidate_tree {
        trees.push(("final", s.final_candidate_tree()));
    }
    git.keep_trees(&s.lineage_id, &trees)
        .map_err(ReviewError::Repository)
}

/// Time and nonces: the only non-determinism a start has.
pub trait Clock {
    fn now(&self) -> Timestamp;
    fn nonce(&self) -> Nonce;
}

/// Failures of the review store, classified for callers.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The stored revision is not the one the writer expected.
    #[error("stale write to {lineage}: expected revision {expected}, the store has {found}")]
    Conflict {
        lineage: LineageId,
        expected: Sha256Digest,
        found: Sha256Digest,
    },
    /// Another writer holds the lineage's lock beyond the bounded wait.
    #[error("lineage {lineage} is locked by another writer (waited {waited_ms} ms)")]
    Contention { lineage: LineageId, waited_ms: u64 },
    /// Stored authority failed validation: fail closed.
    #[error("stored authority at {path} is invalid: {source}")]
    Corrupted {
        path: String,
        #[source]
        source: StateError,
    },
    /// An index entry or receipt is malformed.
    #[error("store entry {path} is malformed: {detail}")]
    Malformed { path: String, detail: String },
    /// The proposed successor is not a legal transition.
    #[error(transparent)]
    Illegal(#[from] TransitionError),
    /// The lineage does not exist.
    #[error("no lineage {0} in the store")]
    NotFound(LineageId),
    /// A correction produced a candidate another lineage already owns.
    #[error("the candidate of lineage {lineage} is already owned by lineage {owner}")]
    TargetOwned {
        lineage: LineageId,
        owner: LineageId,
    },
    /// The predecessor already has another successor (recovery never forks).
    #[error("lineage {lineage} is already superseded by {successor}")]
    AlreadySuperseded {
        lineage: LineageId,
        successor: LineageId,
    },
    /// Another recovery of the predecessor is in progress or was
    /// interrupted: only the same request completes it.
    #[error(
        "a recovery of {lineage} (successor {successor}) is in progress or was interrupted; repeat that same request to complete it"
    )]
    RecoveryPending {
        lineage: LineageId,
        successor: LineageId,
    },
    #[error("store I/O at {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// How a create ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// The record is now stored and indexed by its target.
    New,
    /// Another lineage already owns this target; nothing was kept.
    Existing(LineageId),
}

/// The compact review store (R7).
pub trait ReviewStore {
    /// Loads and validates a lineage's record (fail closed).
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError>;
    /// Stores a new lineage and indexes it by target identity, unless another
    /// lineage owns the target already.
    fn create(&self, record: &StateRecord) -> Result<Created, StoreError>;
    /// Compare-and-swap: replaces the record whose revision is `expected`
    /// with `next`, under the lineage's lock, after checking the transition.
    /// An exact retry (the store already holds `next`) succeeds. A terminal
    /// record also writes its receipt; an approved one indexes its base tree.
    fn replace(&self, expected: &Sha256Digest, next: &StateRecord) -> Result<(), StoreError>;
    /// The lineage indexed for a target identity.
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError>;
    /// The latest approved lineage on a base tree.
    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError>;
    /// The lineages on a base tree that entered correction (callers check
    /// which are still in correction). Bounded by the corrections ever
    /// opened on that one base.
    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError>;
    /// Writes whatever the committed record projects (receipt, index
    /// entries) that a crash may have left unwritten; the record must be the
    /// stored one.
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError>;
    /// The bytes of a lineage's receipt file, if present.
    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError>;
    /// Where the receipt of a lineage lives, for people.
    fn receipt_location(&self, lineage: &LineageId) -> String;
    /// Stores a recovered successor (R9.2) under its predecessor's lock:
    /// the predecessor must still be at the revision the successor records
    /// and have no other successor; its record is never rewritten (a
    /// supersession marker names the successor), and the successor's target
    /// index is published, taking it over only from the predecessor. An
    /// exact retry (same predecessor, same link) answers the successor
    /// already stored as `Existing`.
    fn create_successor(&self, record: &StateRecord) -> Result<Created, StoreError>;
    /// The successor a lineage's supersession marker names, if any.
    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError>;
    /// The successor a recovery of `lineage` is creating (written, not yet
    /// marked), if any.
    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError>;
}

/// A named input document (a path, for messages).
#[derive(Debug, Clone)]
pub struct NamedInput {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Why a driver could not finish. Whatever the variant, a rejected input
/// left the store unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("could not observe the repository: {0}")]
    Repository(#[source] AdapterError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{name}: {source}")]
    MalformedInput {
        name: String,
        #[source]
        source: RoleDocError,
    },
    #[error(transparent)]
    Transition(#[from] TransitionError),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(transparent)]
    State(#[from] StateError),
    #[error("no review exists for the live candidate")]
    NoReview,
    #[error(
        "the live candidate is not the one lineage {lineage} froze; changed paths: {}",
        display_paths(differing_paths)
    )]
    CandidateChanged {
        lineage: LineageId,
        differing_paths: Vec<RepoPath>,
    },
    #[error("index entry for {0} points at a lineage with another target")]
    IndexMismatch(LineageId),
    #[error(
        "lineage {lineage} already judged this candidate and corrected it into tree {final_tree}; it is not reviewed again"
    )]
    Superseded {
        lineage: LineageId,
        final_tree: TreeId,
    },
    #[error(
        "lineage {lineage} is correcting these paths; a new review of them would open a fresh budget"
    )]
    CorrectionOpen { lineage: LineageId },
    #[error(
        "lineage {lineage} froze this candidate and was invalidated; a new generation is an audited successor: `probity recover --predecessor-lineage {lineage}`"
    )]
    Invalidated { lineage: LineageId },
    #[error(
        "lineage {lineage} froze (or corrected into) this candidate but is superseded; its recovery chain ends at {leaf}: to review this candidate, recover from {leaf}"
    )]
    SupersededLineage { lineage: LineageId, leaf: LineageId },
    #[error(transparent)]
    Recover(#[from] RecoverError),
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Only a terminal lineage has a receipt to attest.
    #[error("lineage {lineage} is `{state}`: only an approved or escalated review has a receipt")]
    NotTerminal {
        lineage: LineageId,
        state: &'static str,
    },
    /// R12.4: the candidate's diff does not fit the export budget.
    #[error(
        "the candidate's diff is over the {limit}-byte budget a reviewer's context can carry; split the change and review the parts"
    )]
    NotRepresentable { limit: u64 },
    #[error(
        "lineage {lineage}'s frozen objects are gone from the repository (pruned?): {}",
        objects.join(", ")
    )]
    ObjectsMissing {
        lineage: LineageId,
        objects: Vec<String>,
    },
    /// A predecessor chain that does not hold: fail closed (R9.3).
    #[error("the recovery chain does not hold: {0}")]
    Chain(#[from] ChainError),
    #[error(
        "the live candidate could be a fix of more than one correction ({}); name one with --lineage",
        lineages.iter().map(LineageId::as_str).collect::<Vec<_>>().join(", ")
    )]
    AmbiguousCorrection { lineages: Vec<LineageId> },
    #[error(
        "HEAD moved since lineage {lineage} froze its base tree {frozen}; a correction must keep the base"
    )]
    BaseChanged { lineage: LineageId, frozen: TreeId },
}

fn display_paths(p: &[RepoPath]) -> String {
    if p.is_empty() {
        "(none listed)".into()
    } else {
        p.iter()
            .map(RepoPath::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What start returned.
#[derive(Debug, Clone)]
pub struct Started {
    pub record: StateRecord,
    /// True when an existing lineage for this candidate was resumed.
    pub resumed: bool,
}

/// `probity start`: freezes the live candidate, or resumes the lineage that
/// already froze it (R1.3).
pub fn start<G: GitPort + ExportGit, S: ReviewStore, C: Clock>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
) -> Result<Started, ReviewError> {
    keeping_trees(git, || start_or_resume(git, store, clock, focus))
}

/// Runs a start or recovery between the two halves of keeping trees: the
/// setting is checked before anything is written, the refs are written
/// once the record is.
fn keeping_trees<G: GitPort>(
    git: &G,
    run: impl FnOnce() -> Result<Started, ReviewError>,
) -> Result<Started, ReviewError> {
    git.check_keep_trees().map_err(ReviewError::Repository)?;
    let started = run()?;
    keep(git, &started.record)?;
    Ok(started)
}

fn start_or_resume<G: GitPort + ExportGit, S: ReviewStore, C: Clock>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
) -> Result<Started, ReviewError> {
    let obs = git.observe_candidate().map_err(ReviewError::Repository)?;
    let snapshot = Snapshot::freeze(&obs)?;
    if let Some(existing) = resume(store, &snapshot.target)? {
        if let Some(leaf) = supersession(store, &existing)? {
            return Err(ReviewError::SupersededLineage {
                lineage: existing.state.lineage_id.clone(),
                leaf,
            });
        }
        if let Stage::Invalidated { .. } = existing.state.stage {
            return Err(ReviewError::Invalidated {
                lineage: existing.state.lineage_id.clone(),
            });
        }
        if existing.state.final_target() != snapshot.target {
            // This lineage corrected the live candidate into another one.
            return Err(ReviewError::Superseded {
                lineage: existing.state.lineage_id.clone(),
                final_tree: existing.state.final_candidate_tree().clone(),
            });
        }
        return Ok(Started {
            record: existing,
            resumed: true,
        });
    }
    for open in open_corrections(store, &snapshot.base_tree)? {
        if snapshot
            .paths
            .iter()
            .any(|p| open.state.snapshot.paths.binary_search(p).is_ok())
        {
            return Err(ReviewError::CorrectionOpen {
                lineage: open.state.lineage_id.clone(),
            });
        }
    }

    let snapshot = anchor_diff(git, snapshot)?;
    let state = ReviewState::start(start_input(&obs, snapshot, clock, focus))?;
    let record = state.record()?;
    let created = store.create(&record)?;
    started(store, record, created)
}

/// Representability (R12.4) and the diff anchor (R10.4): the candidate's
/// diff, derived as an export derives it, must fit the export budget before
/// the candidate is accepted; its digest is frozen with the snapshot.
fn anchor_diff<G: ExportGit>(git: &G, mut snapshot: Snapshot) -> Result<Snapshot, ReviewError> {
    let diff = git
        .frozen_diff(
            &snapshot.base_tree,
            &snapshot.candidate_tree,
            MAX_DIFF_BYTES,
        )
        .map_err(ReviewError::Repository)?
        .ok_or(ReviewError::NotRepresentable {
            limit: MAX_DIFF_BYTES,
        })?;
    let version = git.version().map_err(ReviewError::Repository)?;
    snapshot.diff = Some(DiffAnchor::of(&diff, version));
    Ok(snapshot)
}

/// The answer to a create: the new record, or the lineage that already
/// held the target (resumed).
fn started<S: ReviewStore>(
    store: &S,
    record: StateRecord,
    created: Created,
) -> Result<Started, ReviewError> {
    match created {
        Created::New => Ok(Started {
            record,
            resumed: false,
        }),
        Created::Existing(other) => {
            let existing = store.load(&other)?.ok_or(StoreError::NotFound(other))?;
            Ok(Started {
                record: existing,
                resumed: true,
            })
        }
    }
}

/// What start (and recover) derive from the live observation.
fn start_input<C: Clock>(
    obs: &CandidateObservation,
    snapshot: Snapshot,
    clock: &C,
    focus: Lens,
) -> StartInput {
    let policy = RiskPolicy::v1();
    let lines = authored_lines(policy, &obs.changed);
    let assessment = policy.classify(&obs.changed, lines);
    let lenses = select_lenses(assessment.level(), focus);
    StartInput {
        snapshot,
        assessment,
        lenses,
        authored_lines: lines,
        created_at: clock.now(),
        nonce: clock.nonce(),
    }
}

/// `probity invalidate --lineage L --reason R` (R9.1): only a pristine
/// `reviewing` lineage; an exact retry returns the stored record.
pub fn invalidate<S: ReviewStore>(
    store: &S,
    lineage: &LineageId,
    reason: NonBlank,
) -> Result<StateRecord, ReviewError> {
    let record = store
        .load(lineage)?
        .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
    // A lineage whose chain does not hold takes no input (R9.3).
    supersession(store, &record)?;
    let next = record.state.invalidate(reason)?;
    if next == record.state {
        return Ok(record);
    }
    commit(store, &record, next)
}

/// `probity recover` (R9.2): an audited successor of a final lineage over
/// the live candidate, generation + 1, with a fresh budget. The predecessor
/// is never rewritten. A retry with the same request returns the successor
/// already stored.
pub fn recover<G: GitPort + ExportGit, S: ReviewStore, C: Clock>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    predecessor: &LineageId,
    request: RecoverRequest,
) -> Result<Started, ReviewError> {
    keeping_trees(git, || {
        create_or_resume_successor(git, store, clock, focus, predecessor, request)
    })
}

fn create_or_resume_successor<G: GitPort + ExportGit, S: ReviewStore, C: Clock>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    predecessor: &LineageId,
    request: RecoverRequest,
) -> Result<Started, ReviewError> {
    let pred = store
        .load(predecessor)?
        .ok_or_else(|| StoreError::NotFound(predecessor.clone()))?;
    // The predecessor's own chain must hold before anything follows it.
    supersession(store, &pred)?;
    if let Some(existing) = store.successor_of(predecessor)? {
        // Already recovered: the same request is a retry; anything else
        // would fork the chain.
        let record = store
            .load(&existing)?
            .ok_or_else(|| StoreError::NotFound(existing.clone()))?;
        let same = record.state.predecessor.as_ref().is_some_and(|l| {
            l.lineage_id == *predecessor
                && l.revision == request.expected_revision
                && l.disposition == request.disposition
                && l.reason == request.reason
                && l.actor == request.actor
                && l.authorization == request.authorization
        });
        if !same {
            return Err(StoreError::AlreadySuperseded {
                lineage: predecessor.clone(),
                successor: existing,
            }
            .into());
        }
        store.create_successor(&record)?;
        return Ok(Started {
            record,
            resumed: true,
        });
    }
    let obs = git.observe_candidate().map_err(ReviewError::Repository)?;
    let snapshot = Snapshot::freeze(&obs)?;
    let differing = git
        .differing_paths(pred.state.final_candidate_tree(), &snapshot.candidate_tree)
        .map_err(ReviewError::Repository)?;
    let owned_by_chain = match store.lookup_target(&snapshot.target)? {
        Some(owner) => chain_of(store, &pred)?.contains(&owner),
        None => false,
    };
    let scope = ScopeEvidence {
        differing_paths: &differing,
        owned_by_chain,
    };
    // Eligibility first, so a refusal names its own reason rather than the
    // diff's size; then the anchor the successor freezes.
    recovery::successor(
        &pred,
        request.clone(),
        scope,
        start_input(&obs, snapshot.clone(), clock, focus),
    )?;
    let snapshot = anchor_diff(git, snapshot)?;
    let state = recovery::successor(
        &pred,
        request,
        scope,
        start_input(&obs, snapshot, clock, focus),
    )?;
    let record = state.record()?;
    let created = store.create_successor(&record)?;
    started(store, record, created)
}

/// The leaf of the chain that supersedes `record` (if any), after checking
/// the chain that leads to `record` itself (R9.3): a superseded lineage is
/// history, not authority, and a chain that does not hold fails closed.
fn supersession<S: ReviewStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Option<LineageId>, ReviewError> {
    let mut ancestors = Vec::new();
    let mut link = record.state.predecessor.clone();
    let mut child = record.state.lineage_id.clone();
    // Generations decrease by one per step: at most generation - 1 loads.
    while let Some(l) = link {
        if ancestors.len() >= record.state.generation as usize {
            break;
        }
        match store.load(&l.lineage_id)? {
            Some(r) => {
                let successor = store.successor_of(&l.lineage_id)?;
                if successor.is_none()
                    && store.pending_successor_of(&l.lineage_id)?.as_ref() == Some(&child)
                {
                    // Written, indexed, not yet marked: a recovery running
                    // now (or interrupted), not a broken chain.
                    return Err(StoreError::RecoveryPending {
                        lineage: l.lineage_id.clone(),
                        successor: child,
                    }
                    .into());
                }
                child = l.lineage_id.clone();
                link = r.state.predecessor.clone();
                ancestors.push(Some(Ancestor {
                    record: r,
                    successor,
                }));
            }
            None => {
                ancestors.push(None);
                break;
            }
        }
    }
    check_chain(&record.state, &ancestors)?;
    leaf_of(store, record)
}

/// The last lineage of the recovery chain below `record`, following
/// supersession markers and checking every link (the successor names its
/// predecessor at its revision, one generation on). `None`: not
/// superseded. Generations grow by one per link, so the walk ends.
fn leaf_of<S: ReviewStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Option<LineageId>, ReviewError> {
    let mut current = record.clone();
    let mut leaf = None;
    while let Some(next_id) = store.successor_of(&current.state.lineage_id)? {
        let next = store.load(&next_id)?.ok_or_else(|| ChainError::Dangling {
            lineage: current.state.lineage_id.clone(),
            predecessor: next_id.clone(),
        })?;
        check_link(
            &next.state,
            &Ancestor {
                record: current,
                successor: Some(next_id.clone()),
            },
        )?;
        leaf = Some(next_id);
        current = next;
    }
    Ok(leaf)
}

/// The lineages of `record`'s chain: itself and its ancestors.
fn chain_of<S: ReviewStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Vec<LineageId>, ReviewError> {
    let mut out = vec![record.state.lineage_id.clone()];
    let mut link = record.state.predecessor.clone();
    while let Some(l) = link {
        if out.len() > record.state.generation as usize {
            break;
        }
        out.push(l.lineage_id.clone());
        link = store.load(&l.lineage_id)?.and_then(|r| r.state.predecessor);
    }
    Ok(out)
}

fn resume<S: ReviewStore>(
    store: &S,
    target: &Sha256Digest,
) -> Result<Option<StateRecord>, ReviewError> {
    let Some(lineage) = store.lookup_target(target)? else {
        return Ok(None);
    };
    let record = store
        .load(&lineage)?
        .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
    // A corrected candidate's entry is claimed just before the state that
    // names it is written; if that write never landed, the claim is stale
    // and names nothing.
    if record.state.snapshot.target != *target && record.state.final_target() != *target {
        return Ok(None);
    }
    Ok(Some(record))
}

/// Inputs to finalize. Each present input is applied in this order, and each
/// valid intermediate state is committed before the next.
#[derive(Debug, Clone, Default)]
pub struct FinalizeInput {
    /// The lineage; discovered from the live candidate when absent.
    pub lineage: Option<LineageId>,
    /// Lens results in selected order.
    pub results: Vec<NamedInput>,
    /// The single refuter batch.
    pub refuter: Option<NamedInput>,
    /// The forecast of the next correction attempt, before editing.
    pub correction_lines: Option<u64>,
    /// The targeted validator's result, after editing.
    pub validation: Option<NamedInput>,
    /// Final independent evidence.
    pub evidence: Option<NamedInput>,
}

/// What finalize returned.
#[derive(Debug, Clone)]
pub struct Finalized {
    pub record: StateRecord,
    /// Where the receipt lives, in a terminal state only.
    pub receipt_location: Option<String>,
}

fn malformed(input: &NamedInput) -> impl FnOnce(RoleDocError) -> ReviewError + '_ {
    move |source| ReviewError::MalformedInput {
        name: input.name.clone(),
        source,
    }
}

/// `probity finalize`: turns judgment into authority (R4–R6). Every input is
/// parsed before anything is written; each valid intermediate state is
/// committed, so a crash resumes without re-running a lens or re-charging.
pub fn finalize<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    input: FinalizeInput,
) -> Result<Finalized, ReviewError> {
    git.check_keep_trees().map_err(ReviewError::Repository)?;
    let results = input
        .results
        .iter()
        .map(|r| ReviewerResult::parse(&r.bytes).map_err(malformed(r)))
        .collect::<Result<Vec<_>, _>>()?;
    let refuter = input
        .refuter
        .as_ref()
        .map(|r| RefuterResult::parse(&r.bytes).map_err(malformed(r)))
        .transpose()?;
    let validation = input
        .validation
        .as_ref()
        .map(|v| ValidatorResult::parse(&v.bytes).map_err(malformed(v)))
        .transpose()?;
    if input.correction_lines == Some(0) {
        return Err(TransitionError::ZeroForecast.into());
    }
    if let Some(ev) = &input.evidence
        && ev.bytes.is_empty()
    {
        return Err(TransitionError::EmptyEvidence.into());
    }
    let (live, record) = discover_for_finalize(git, store, input.lineage.as_ref())?;
    // Derive every transition in memory first: an input that is not legal
    // is refused before anything is written, whatever came before it.
    let mut states = Vec::new();
    let mut state = record.state.clone();
    let zero_lens = state.frozen.selected_lenses.is_empty();
    if !input.results.is_empty() || (zero_lens && state.stage.judgment().is_none()) {
        let facts = causal_facts(git, &state, &results)?;
        state = state.accept_results(results, &facts)?;
        states.push(state.clone());
    }
    if let Some(batch) = refuter {
        state = state.accept_refuter(batch)?;
        states.push(state.clone());
    }
    // An exact retry of a forecast and validation that already landed
    // answers unchanged instead of opening another attempt.
    let mut validation = validation;
    let mut correction_lines = input.correction_lines;
    if let Some(v) = &validation
        && state.is_last_attempt(correction_lines, &live.candidate_tree, v)
    {
        validation = None;
        correction_lines = None;
    }
    if let Some(lines) = correction_lines {
        state = state.accept_forecast(lines)?;
        states.push(state.clone());
    }
    if let Some(validation) = validation {
        let fix = measure_fix(git, &state, &live)?;
        state = state.accept_validation(fix, validation)?;
        states.push(state.clone());
    }
    if let Some(ev) = &input.evidence {
        state = state.accept_evidence(&ev.bytes)?;
        states.push(state.clone());
    }
    // Commit each valid intermediate state, so a crash resumes from the
    // last one without re-running a lens or re-charging budget.
    let mut record = record;
    for next in states {
        record = commit(store, &record, next)?;
    }
    // Finish whatever a crash left unwritten (receipt, index entries).
    store.ensure_projections(&record)?;
    keep(git, &record)?;
    let receipt_location = record
        .state
        .stage
        .is_terminal()
        .then(|| store.receipt_location(&record.state.lineage_id));
    Ok(Finalized {
        record,
        receipt_location,
    })
}

/// Hunks and line counts for the genesis paths severe causal claims name.
fn causal_facts<G: GitPort>(
    git: &G,
    state: &ReviewState,
    results: &[ReviewerResult],
) -> Result<CausalFacts, ReviewError> {
    let mut facts = CausalFacts::default();
    let (base, cand) = (&state.snapshot.base_tree, &state.snapshot.candidate_tree);
    for path in state.causal_paths_needed(results) {
        let hunks = git
            .hunks(base, cand, &path)
            .map_err(ReviewError::Repository)?;
        facts.hunks.insert(path.clone(), hunks);
        if let Some(n) = git
            .line_count(cand, &path)
            .map_err(ReviewError::Repository)?
        {
            facts.candidate_lines.insert(path, n);
        }
    }
    Ok(facts)
}

/// Measures the fix from Git: the live candidate against the tree the
/// previous attempt (or the review) left; every changed line counts.
fn measure_fix<G: GitPort>(
    git: &G,
    state: &ReviewState,
    live: &LiveTarget,
) -> Result<FixMeasurement, ReviewError> {
    if live.base_tree != state.snapshot.base_tree {
        return Err(ReviewError::BaseChanged {
            lineage: state.lineage_id.clone(),
            frozen: state.snapshot.base_tree.clone(),
        });
    }
    let from = state
        .stage
        .correction()
        .map(|c| c.current_tree(&state.snapshot.candidate_tree).clone())
        .unwrap_or_else(|| state.snapshot.candidate_tree.clone());
    let files = git
        .diff_files(&from, &live.candidate_tree)
        .map_err(ReviewError::Repository)?;
    // A fix is charged every line it changes, each file diffed as text:
    // no golden rule, binary marker or attribute can make an edit free.
    Ok(FixMeasurement {
        actual_lines: files
            .iter()
            // A mode change (e.g. `chmod +x`) is an effect too: one line.
            .map(|f| f.text_lines.max(u64::from(f.old_mode != f.new_mode)))
            .fold(0, u64::saturating_add),
        paths: files.into_iter().map(|f| f.path).collect(),
        to_tree: live.candidate_tree.clone(),
    })
}

fn commit<S: ReviewStore>(
    store: &S,
    current: &StateRecord,
    next: ReviewState,
) -> Result<StateRecord, ReviewError> {
    let next = next.record()?;
    store.replace(&current.revision, &next)?;
    Ok(next)
}

fn discover_for_finalize<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
) -> Result<(LiveTarget, StateRecord), ReviewError> {
    let live = git.live_target().map_err(ReviewError::Repository)?;
    let record = match lineage {
        Some(l) => {
            let record = store
                .load(l)?
                .ok_or_else(|| StoreError::NotFound(l.clone()))?;
            // A final lineage named explicitly answers retries whatever
            // the live candidate is (its chain must still hold).
            if record.state.stage.is_final() {
                supersession(store, &record)?;
                return Ok((live, record));
            }
            record
        }
        None => match resume(store, &live.target)? {
            Some(record) => record,
            // A correction in progress: the live candidate is the fix.
            None => open_correction_for(git, store, &live)?,
        },
    };
    // A successor whose chain does not hold takes no input (R9.3).
    supersession(store, &record)?;
    // Which live candidate the stage expects: the frozen one while
    // reviewing, the corrected one while validating or once approved
    // through discovery; during correction the fix itself is measured.
    let expected = match &record.state.stage {
        Stage::Reviewing { .. } => Some((
            record.state.snapshot.target,
            &record.state.snapshot.candidate_tree,
        )),
        Stage::Validating { .. } | Stage::Approved { .. } => Some((
            record.state.final_target(),
            record.state.final_candidate_tree(),
        )),
        Stage::CorrectionRequired { .. } | Stage::Escalated { .. } | Stage::Invalidated { .. } => {
            None
        }
    };
    if let Some((target, tree)) = expected
        && live.target != target
    {
        let differing = git
            .differing_paths(tree, &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        return Err(ReviewError::CandidateChanged {
            lineage: record.state.lineage_id.clone(),
            differing_paths: differing,
        });
    }
    Ok((live, record))
}

/// The lineages still in correction on this base.
fn open_corrections<S: ReviewStore>(
    store: &S,
    base: &TreeId,
) -> Result<Vec<StateRecord>, ReviewError> {
    let mut out = Vec::new();
    for lineage in store.lookup_open(base)? {
        let record = store.load(&lineage)?.ok_or(StoreError::NotFound(lineage))?;
        if record.state.snapshot.base_tree == *base
            && matches!(record.state.stage, Stage::CorrectionRequired { .. })
        {
            out.push(record);
        }
    }
    Ok(out)
}

/// The one correction the live candidate can be a fix of: still in
/// correction on this base, and every path the live candidate changed since
/// that lineage's current tree is one of its genesis paths.
fn open_correction_for<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
) -> Result<StateRecord, ReviewError> {
    let mut matching = Vec::new();
    for record in open_corrections(store, &live.base_tree)? {
        let state = &record.state;
        let current = state
            .stage
            .correction()
            .map(|c| c.current_tree(&state.snapshot.candidate_tree).clone());
        let current = current.unwrap_or_else(|| state.snapshot.candidate_tree.clone());
        let changed = git
            .differing_paths(&current, &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        if changed
            .iter()
            .all(|p| state.snapshot.paths.binary_search(p).is_ok())
        {
            matching.push(record);
        }
    }
    match matching.len() {
        0 => Err(ReviewError::NoReview),
        1 => Ok(matching.remove(0)),
        _ => Err(ReviewError::AmbiguousCorrection {
            lineages: matching.into_iter().map(|r| r.state.lineage_id).collect(),
        }),
    }
}

/// What a pre-commit gate compares with the approved candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The synthetic candidate: worktree content of tracked paths and the
    /// intended untracked files (what `git add -A && git commit` delivers).
    Worktree,
    /// Exactly what the given index file commits (inside a commit: the file
    /// git names in `GIT_INDEX_FILE`; `--staged`: the user's index).
    Index(std::path::PathBuf),
}

/// `probity validate --gate pre-commit` (R8.1, R8.2, R8.6): zero model calls;
/// discovery is a lookup by target identity, then by base tree.
pub fn validate_pre_commit<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    delivery: &Delivery,
) -> Result<GateDecision, ReviewError> {
    let live = match delivery {
        Delivery::Worktree => git.live_target(),
        Delivery::Index(index) => git.staged_target(index),
    }
    .map_err(ReviewError::Repository)?;
    decide_live(git, store, Gate::PreCommit, &live)
}

/// Discovers the authority for one live target and decides it: a lookup by
/// target identity, then by base tree (R12.2), never a scan.
fn decide_live<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    gate: Gate,
    live: &LiveTarget,
) -> Result<GateDecision, ReviewError> {
    if let Some(record) = resume(store, &live.target)? {
        if record.state.final_target() == live.target {
            let superseded_by = supersession(store, &record)?;
            let receipt = store.read_receipt(&record.state.lineage_id)?;
            return Ok(decide_target(
                gate,
                live,
                Authority::Exact {
                    state: &record.state,
                    receipt_file: receipt.as_deref(),
                    superseded_by: superseded_by.as_ref(),
                },
            ));
        }
        // The live candidate is what this lineage froze, but a correction
        // has since moved it on: compare with the corrected candidate.
        let differing = git
            .differing_paths(record.state.final_candidate_tree(), &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        let superseded_by = supersession(store, &record)?;
        return Ok(decide_target(
            gate,
            live,
            Authority::Prior {
                state: &record.state,
                differing_paths: &differing,
                superseded_by: superseded_by.as_ref(),
            },
        ));
    }
    let Some(prior) = store.lookup_base(&live.base_tree)? else {
        let changed = git
            .differing_paths(&live.base_tree, &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        return Ok(decide_target(
            gate,
            live,
            Authority::None {
                changed_paths: &changed,
            },
        ));
    };
    let record = store
        .load(&prior)?
        .ok_or_else(|| StoreError::NotFound(prior.clone()))?;
    if record.state.snapshot.base_tree != live.base_tree {
        return Err(ReviewError::IndexMismatch(prior));
    }
    let differing = git
        .differing_paths(record.state.final_candidate_tree(), &live.candidate_tree)
        .map_err(ReviewError::Repository)?;
    let superseded_by = supersession(store, &record)?;
    Ok(decide_target(
        gate,
        live,
        Authority::Prior {
            state: &record.state,
            differing_paths: &differing,
            superseded_by: superseded_by.as_ref(),
        },
    ))
}

/// Which local refs count as already published, besides the explicit
/// exclusions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteScope {
    /// None: only the explicit exclusions.
    None,
    /// Every remote-tracking ref (`--remotes`): this clone's last view of
    /// its remotes, an approximation used only when no remote is named.
    All,
}

/// Reading commits and ranges: what the publication gates observe.
pub trait DeliveryGit {
    /// Resolves a revision the user named to a commit; an unknown revision
    /// is an error.
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError>;
    /// Resolves a revision to a commit: `None` when it names none here (a
    /// failure to find out is an error, never `None`).
    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError>;
    /// The commit an object names once tags are peeled; `None` when this
    /// clone does not have it or it is not a commit (a tree or a blob). A
    /// failure to find out is an error, never `None`.
    fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, AdapterError>;
    /// Whether `ancestor` is `descendant` or one of its ancestors.
    fn is_ancestor(&self, ancestor: &CommitId, descendant: &CommitId)
    -> Result<bool, AdapterError>;
    /// The branch and tag tips a remote advertises now (`git ls-remote
    /// --heads --tags`, tags peeled) that this clone has, with their ref
    /// names: what the remote certainly holds on its named branches and
    /// tags, with history.
    fn remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, AdapterError>;
    /// Commits reachable from `tip` and from none of `exclude` nor the
    /// remote-tracking refs in `remotes`, newest first, at most `limit`.
    fn range(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
        limit: usize,
    ) -> Result<Vec<RangeCommit>, AdapterError>;
    /// The number of commits in the same range.
    fn range_len(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
    ) -> Result<usize, AdapterError>;
    /// A commit's tree.
    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError>;
    /// The empty tree in this repository's hash (a root commit's base).
    fn empty_tree(&self) -> Result<TreeId, AdapterError>;
}

/// What a pre-push gate is asked to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushBoundary {
    /// The lines git gives a pre-push hook, and the remote it named (a
    /// configured remote's name, or a URL).
    Updates {
        remote: String,
        updates: Vec<RefUpdate>,
    },
    /// `HEAD`, minus what the named remote advertises now, or (no remote
    /// named) what the remote-tracking refs last saw.
    Head { remote: Option<String> },
    /// An explicit range for CI: commits reachable from `tip`, not `base`.
    Range { base: String, tip: String },
}

/// Counts a range, listing at most its first two commits: past one commit
/// only the count matters.
fn count_range<G: DeliveryGit>(
    git: &G,
    tip: &CommitId,
    exclude: &[CommitId],
    remotes: &RemoteScope,
) -> Result<(Vec<RangeCommit>, usize), ReviewError> {
    let commits = git
        .range(tip, exclude, remotes, 2)
        .map_err(ReviewError::Repository)?;
    let count = if commits.len() > 1 {
        git.range_len(tip, exclude, remotes)
            .map_err(ReviewError::Repository)?
    } else {
        commits.len()
    };
    Ok((commits, count))
}

fn delivered<G: DeliveryGit>(
    git: &G,
    refs: Vec<String>,
    tip: CommitId,
    exclude: Vec<CommitId>,
    remotes: &RemoteScope,
) -> Result<DeliveredRange, ReviewError> {
    let (commits, count) = count_range(git, &tip, &exclude, remotes)?;
    Ok(DeliveredRange {
        refs,
        tip,
        commits,
        count,
        problem: None,
    })
}

/// The range one hook line delivers. An existing remote ref must be
/// fast-forwarded by exactly the delivered commits from its current tip
/// (`old`), never past other history; a new remote ref may build only on
/// what the remote advertises now (`published`, fetched once per push).
/// One hook line's objects, peeled once: the pushed commit (`None`: not a
/// commit), the remote's old tip as a commit here (`None`: absent or
/// unknown), and whether the push fast-forwards it.
struct Peeled {
    tip: Option<CommitId>,
    old: Option<CommitId>,
    fast_forward: bool,
}

fn peel_update<G: DeliveryGit>(
    git: &G,
    local: &CommitId,
    update: &RefUpdate,
) -> Result<Peeled, ReviewError> {
    let tip = git.peel_commit(local).map_err(ReviewError::Repository)?;
    let old = match &update.remote_oid {
        Some(o) => git.peel_commit(o).map_err(ReviewError::Repository)?,
        None => None,
    };
    let fast_forward = match (&old, &tip) {
        (Some(o), Some(t)) => git.is_ancestor(o, t).map_err(ReviewError::Repository)?,
        _ => false,
    };
    Ok(Peeled {
        tip,
        old,
        fast_forward,
    })
}

fn update_range<G: DeliveryGit>(
    git: &G,
    remote: &str,
    update: &RefUpdate,
    local: &CommitId,
    peeled: Peeled,
    touched: &[&str],
    published: &mut Option<Vec<CommitId>>,
) -> Result<DeliveredRange, ReviewError> {
    let refs = vec![update.remote_ref.clone()];
    let Some(tip) = peeled.tip else {
        return Ok(DeliveredRange {
            refs,
            tip: local.clone(),
            commits: Vec::new(),
            count: 0,
            problem: Some(RangeProblem::NotCommit),
        });
    };
    match &update.remote_oid {
        Some(old) => {
            let rewind = |tip: CommitId| DeliveredRange {
                refs: refs.clone(),
                tip,
                commits: Vec::new(),
                count: 0,
                problem: Some(RangeProblem::NotFastForward { old: old.clone() }),
            };
            // A remote tip this clone never saw proves nothing; one the
            // push does not fast-forward is a rewind.
            let (Some(old_commit), true) = (peeled.old, peeled.fast_forward) else {
                return Ok(rewind(tip));
            };
            let (commits, count) = count_range(
                git,
                &tip,
                std::slice::from_ref(&old_commit),
                &RemoteScope::None,
            )?;
            Ok(DeliveredRange {
                refs,
                tip,
                commits,
                count,
                problem: None,
            })
        }
        None => {
            if published.is_none() {
                let tips = git.remote_tips(remote).map_err(ReviewError::Repository)?;
                *published = Some(
                    tips.into_iter()
                        .filter(|(name, _)| !touched.contains(&name.as_str()))
                        .map(|(_, c)| c)
                        .collect(),
                );
            }
            let exclude = published.clone().unwrap_or_default();
            let mut range = delivered(git, refs, tip, exclude, &RemoteScope::None)?;
            if range.count == 0 {
                // A new ref at a commit the remote already holds (a release
                // tag, a copy of a branch): the ref's content is that
                // commit, judged as a delivery of it.
                let own = git
                    .range(&range.tip, &[], &RemoteScope::None, 1)
                    .map_err(ReviewError::Repository)?;
                range.count = own.len();
                range.commits = own;
            }
            Ok(range)
        }
    }
}

/// Judges one delivered range at a publication gate: the boundary denial
/// when it is not exactly one delivery commit, else the (parent tree, tree)
/// of that commit — the empty tree for a root commit — decided as
/// pre-commit decides a candidate.
fn judge_delivery<G: GitPort + DeliveryGit, S: ReviewStore>(
    git: &G,
    store: &S,
    gate: Gate,
    range: &DeliveredRange,
) -> Result<GateDecision, ReviewError> {
    match delivery_commit(gate, range) {
        Err(denial) => Ok(denial),
        Ok(c) => {
            let base = match c.parents.first() {
                Some(p) => git.commit_tree(p),
                None => git.empty_tree(),
            }
            .map_err(ReviewError::Repository)?;
            let live = LiveTarget::new(base, c.tree.clone());
            decide_live(git, store, gate, &live)
        }
    }
}

/// `probity validate --gate pre-push` (R8.3): derive every delivered range
/// (de-duplicated across refs), require exactly one delivery commit per
/// range whose parent is what the remote already holds, and judge its
/// (parent tree, tree) exactly as pre-commit judges a candidate. Zero model
/// calls.
pub fn validate_pre_push<G: GitPort + DeliveryGit, S: ReviewStore>(
    git: &G,
    store: &S,
    boundary: &PushBoundary,
) -> Result<GateDecision, ReviewError> {
    let ranges = match boundary {
        PushBoundary::Updates { remote, updates } => {
            let mut published = None;
            // Refs this push deletes or rewinds stop vouching for the
            // history they held; a fast-forward keeps its old tip reachable.
            let mut touched: Vec<&str> = Vec::new();
            let mut pushed = Vec::new();
            for u in updates {
                match &u.local_oid {
                    // A deletion delivers nothing, and vouches for nothing.
                    None => touched.push(u.remote_ref.as_str()),
                    Some(local) => {
                        let peeled = peel_update(git, local, u)?;
                        if u.remote_oid.is_some() && !peeled.fast_forward {
                            touched.push(u.remote_ref.as_str());
                        }
                        pushed.push((u, local, peeled));
                    }
                }
            }
            let mut out = Vec::new();
            for (u, local, peeled) in pushed {
                out.push(update_range(
                    git,
                    remote,
                    u,
                    local,
                    peeled,
                    &touched,
                    &mut published,
                )?);
            }
            out
        }
        PushBoundary::Head { remote } => {
            let tip = git
                .resolve_commit("HEAD")
                .map_err(ReviewError::Repository)?;
            match remote {
                Some(r) => {
                    let tips = git.remote_tips(r).map_err(ReviewError::Repository)?;
                    let tips = tips.into_iter().map(|(_, c)| c).collect();
                    vec![delivered(
                        git,
                        vec!["HEAD".into()],
                        tip,
                        tips,
                        &RemoteScope::None,
                    )?]
                }
                None => vec![delivered(
                    git,
                    vec!["HEAD".into()],
                    tip,
                    Vec::new(),
                    &RemoteScope::All,
                )?],
            }
        }
        PushBoundary::Range { base, tip } => {
            let base_c = git.resolve_commit(base).map_err(ReviewError::Repository)?;
            let tip_c = git.resolve_commit(tip).map_err(ReviewError::Repository)?;
            vec![delivered(
                git,
                vec![tip.clone()],
                tip_c,
                vec![base_c],
                &RemoteScope::None,
            )?]
        }
    };
    let mut judged = Vec::new();
    for range in dedupe_ranges(ranges) {
        let decision = judge_delivery(git, store, Gate::PrePush, &range)?;
        judged.push((range, decision));
    }
    Ok(combine_deliveries(Gate::PrePush, judged))
}

pub use probity_core::review::gate::Applicability;

/// `probity validate --gate release --revision R` (R8.5): the exact
/// revision (tags peeled) must be one reviewed delivery commit, judged as
/// pre-push judges one, and, when release evidence is given, every artifact
/// must match the digest its checksums file names. The adapter rechecks the
/// artifacts once more before answering (R8.7).
pub fn validate_release<G: GitPort + DeliveryGit, S: ReviewStore>(
    git: &G,
    store: &S,
    revision: &str,
    evidence: Option<(&[ExpectedArtifact], &[ObservedArtifact])>,
) -> Result<GateDecision, ReviewError> {
    let tip = git
        .resolve_commit(revision)
        .map_err(ReviewError::Repository)?;
    let commits = git
        .range(&tip, &[], &RemoteScope::None, 1)
        .map_err(ReviewError::Repository)?;
    let range = DeliveredRange {
        refs: vec![revision.to_string()],
        tip,
        count: commits.len(),
        commits,
        problem: None,
    };
    let d = judge_delivery(git, store, Gate::Release, &range)?;
    let decision = match (d.decision, evidence) {
        (Decision::Allow, Some((expected, observed))) => {
            match check_artifacts(expected, observed) {
                Ok(()) => d,
                Err(denial) => GateDecision {
                    lineage_id: d.lineage_id,
                    ..denial
                },
            }
        }
        _ => d,
    };
    Ok(combine_deliveries(Gate::Release, vec![(range, decision)]))
}

/// What the pre-PR gate answers: the decision, and the ancestry proof when
/// the base advanced compatibly.
#[derive(Debug, Clone)]
pub struct PrDecision {
    pub decision: GateDecision,
    pub base_advance: Option<BaseAdvance>,
}

/// `probity validate --gate pre-pr --base B [--head H]` (R8.4): the change
/// proposal `B..H` must be one delivery commit; its parent is the reviewed
/// base. The explicit base must resolve (else `base_unavailable`, no
/// fallback); when it advanced past the reviewed base, its advance must
/// touch no delivered path (native ancestry proof) or the gate denies
/// `base_advanced`. The delivery is then judged as pre-push judges one.
pub fn validate_pre_pr<G: GitPort + DeliveryGit, S: ReviewStore>(
    git: &G,
    store: &S,
    base: &str,
    head: &str,
) -> Result<PrDecision, ReviewError> {
    let Some(base_tip) = git.find_commit(base).map_err(ReviewError::Repository)? else {
        return Ok(PrDecision {
            decision: base_unavailable(base),
            base_advance: None,
        });
    };
    let head_c = git.resolve_commit(head).map_err(ReviewError::Repository)?;
    let range = delivered(
        git,
        vec![head.to_string()],
        head_c,
        vec![base_tip.clone()],
        &RemoteScope::None,
    )?;
    let (decision, base_advance) = match delivery_commit(Gate::PrePr, &range) {
        Err(denial) => (denial, None),
        Ok(RangeCommit { parents, .. }) if parents.is_empty() => {
            (unrelated_history(&range.tip), None)
        }
        Ok(c) => {
            // One commit in `base..head`: every parent is on the base.
            let parent = &c.parents[0];
            let parent_tree = git.commit_tree(parent).map_err(ReviewError::Repository)?;
            let mut delivered_paths = git
                .differing_paths(&parent_tree, &c.tree)
                .map_err(ReviewError::Repository)?;
            delivered_paths.sort();
            let base_changed = if *parent == base_tip {
                Vec::new()
            } else {
                let base_tree = git
                    .commit_tree(&base_tip)
                    .map_err(ReviewError::Repository)?;
                git.differing_paths(&parent_tree, &base_tree)
                    .map_err(ReviewError::Repository)?
            };
            match check_base_advance(parent, &base_tip, base_changed, &delivered_paths) {
                Err(denial) => (denial, None),
                Ok(advance) => {
                    let live = LiveTarget::new(parent_tree, c.tree.clone());
                    (decide_live(git, store, Gate::PrePr, &live)?, advance)
                }
            }
        }
    };
    let mut decision = combine_deliveries(Gate::PrePr, vec![(range, decision)]);
    if let (Some(a), Decision::Allow) = (&base_advance, decision.decision) {
        decision.message = format!(
            "{}; the base advanced from {} to {} without touching a delivered path",
            decision.message, a.reviewed_base, a.base_tip
        );
    }
    Ok(PrDecision {
        decision,
        base_advance,
    })
}

/// What status reports.
#[derive(Debug, Clone)]
pub struct Status {
    pub record: StateRecord,
    pub applicability: Applicability,
    pub differing_paths: Vec<RepoPath>,
    pub receipt: Option<Receipt>,
    /// The successor that supersedes this lineage, if any.
    pub superseded_by: Option<LineageId>,
}

/// How `record` relates to the live target, and the paths in which its
/// final candidate differs from the live one.
fn applicability<G: GitPort>(
    git: &G,
    record: &StateRecord,
    live: &LiveTarget,
) -> Result<(Applicability, Vec<RepoPath>), ReviewError> {
    if record.state.final_target() == live.target {
        return Ok((Applicability::Current, Vec::new()));
    }
    let differing = git
        .differing_paths(record.state.final_candidate_tree(), &live.candidate_tree)
        .map_err(ReviewError::Repository)?;
    let touches = differing
        .iter()
        .any(|p| record.state.snapshot.paths.binary_search(p).is_ok());
    let a = if touches {
        Applicability::ScopeChanged
    } else {
        Applicability::Unrelated
    };
    Ok((a, differing))
}

/// Reading the frozen trees for an export (R10.2–R10.5).
pub trait ExportGit {
    /// The object ids among `ids` this repository does not have (pruned).
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError>;
    /// The patch between two trees under the pinned derivation
    /// ([`probity_core::review::export::export_command`]): a function of
    /// the two trees and the git version only; `None` when it is longer
    /// than `cap` bytes (at most `cap + 1` bytes are read).
    fn frozen_diff(
        &self,
        from: &TreeId,
        to: &TreeId,
        cap: u64,
    ) -> Result<Option<Vec<u8>>, AdapterError>;
    /// The changed paths between two trees with modes and blobs.
    fn manifest(&self, from: &TreeId, to: &TreeId) -> Result<Vec<ManifestEntry>, AdapterError>;
    /// `git --version`, for the derivation fingerprint.
    fn version(&self) -> Result<String, AdapterError>;
}

/// `probity export-context --lineage L` (R10.2): read-only, for any lineage
/// the store holds (current or not, from any worktree of the clone). Fails
/// closed with a distinct reason: `not_found`, `corrupted` (the store's
/// load), `objects_missing`, `budget_exceeded`, or a manifest that does not
/// match the record.
pub fn export_context<G: GitPort + ExportGit, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Exported, ReviewError> {
    let record = store
        .load(lineage)?
        .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
    let snap = &record.state.snapshot;
    let (base, cand) = (&snap.base_tree, &snap.candidate_tree);
    let trees = vec![base.to_string(), cand.to_string()];
    let missing = git
        .missing_objects(&trees)
        .map_err(ReviewError::Repository)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let manifest = git.manifest(base, cand).map_err(ReviewError::Repository)?;
    let blobs: Vec<String> = manifest
        .iter()
        .flat_map(|m| [&m.old_blob, &m.new_blob])
        .flatten()
        .map(ToString::to_string)
        .collect();
    let missing = git
        .missing_objects(&blobs)
        .map_err(ReviewError::Repository)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let version = git.version().map_err(ReviewError::Repository)?;
    let diff = git
        .frozen_diff(base, cand, MAX_DIFF_BYTES)
        .map_err(ReviewError::Repository)?
        .ok_or_else(|| over_budget(&record, MAX_DIFF_BYTES + 1, &version))?;
    let live = git.live_target().map_err(ReviewError::Repository)?;
    let (applicability, _) = applicability(git, &record, &live)?;
    let envelope = build_export(&record, applicability, &diff, manifest, version)?;
    Ok(Exported { envelope, diff })
}

/// An attestation: the in-toto statement's canonical bytes and the
/// canonical candidate manifest its subject names.
#[derive(Debug, Clone)]
pub struct Attested {
    pub statement: Vec<u8>,
    pub manifest: Vec<u8>,
}

/// `probity attest --lineage L` (R12.7): a terminal lineage's receipt as an
/// in-toto Statement v1 whose subject is the canonical candidate manifest
/// (base tree to final candidate tree) and the final tree's `gitTree`
/// digest. Read-only; the receipt is derived from state, as the gate does.
pub fn attest<G: GitPort + ExportGit, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Attested, ReviewError> {
    let record = store
        .load(lineage)?
        .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
    supersession(store, &record)?;
    let receipt = Receipt::derive(&record.state).ok_or_else(|| ReviewError::NotTerminal {
        lineage: lineage.clone(),
        state: record.state.stage.name(),
    })?;
    let trees = vec![
        receipt.base_tree.to_string(),
        receipt.final_candidate_tree.to_string(),
    ];
    let missing = git
        .missing_objects(&trees)
        .map_err(ReviewError::Repository)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let entries = git
        .manifest(&receipt.base_tree, &receipt.final_candidate_tree)
        .map_err(ReviewError::Repository)?;
    let manifest = attest::manifest_bytes(&receipt, entries).map_err(StateError::from)?;
    let statement = attest::statement_bytes(&attest::statement(&receipt, &manifest))
        .map_err(StateError::from)?;
    Ok(Attested {
        statement,
        manifest,
    })
}

/// An export: the envelope, and the diff bytes it carries in base64.
#[derive(Debug, Clone)]
pub struct Exported {
    pub envelope: ContextExport,
    pub diff: Vec<u8>,
}

/// `probity status [--lineage L]`: a lineage (given, or the live candidate's,
/// or the latest approved on the live base) and its applicability.
pub fn status<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
) -> Result<Option<Status>, ReviewError> {
    let live = git.live_target().map_err(ReviewError::Repository)?;
    let record = match lineage {
        Some(l) => Some(
            store
                .load(l)?
                .ok_or_else(|| StoreError::NotFound(l.clone()))?,
        ),
        None => match resume(store, &live.target)? {
            Some(r) => Some(r),
            None => match store.lookup_base(&live.base_tree)? {
                Some(l) => Some(store.load(&l)?.ok_or(StoreError::NotFound(l))?),
                None => None,
            },
        },
    };
    let Some(record) = record else {
        return Ok(None);
    };
    let (applicability, differing_paths) = applicability(git, &record, &live)?;
    let receipt = Receipt::derive(&record.state);
    // Fails closed on a broken chain; reports the immediate successor.
    supersession(store, &record)?;
    let superseded_by = store.successor_of(&record.state.lineage_id)?;
    Ok(Some(Status {
        record,
        applicability,
        differing_paths,
        receipt,
        superseded_by,
    }))
}
