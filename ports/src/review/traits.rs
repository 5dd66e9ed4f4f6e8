//! The ports: the traits through which the review drivers observe Git,
//! keep authority and read the clock, and the store's error classes.

use std::error::Error as StdError;

use probity_core::digest::Sha256Digest;
use probity_core::review::DeltaEntry;
use probity_core::review::Hunk;
use probity_core::review::Lens;
use probity_core::review::Listed;
use probity_core::review::ManifestEntry;
use probity_core::review::Matching;
use probity_core::review::RangeCommit;
use probity_core::review::Symlink;
use probity_core::review::{CandidateObservation, ChangedFile, FrozenCandidate, LiveTarget};
use probity_core::review::{CommitId, LineageId, Nonce, RepoPath, Timestamp, TreeId};
use probity_core::review::{ExpectedArtifact, ObservedArtifact};
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{QuarantinedFile, RepairClass, Survey};
use probity_core::review::{StateError, StateRecord, Transition, TransitionError};

/// A boxed adapter error, kept whole for its message and source chain.
pub type AdapterError = Box<dyn StdError + Send + Sync + 'static>;

/// Reading release artifacts (R8.5): each expected artifact's SHA-256 as
/// it is now, or `None` when it is absent or no regular file (a symlink, a
/// directory, a FIFO or a device is no artifact). The release gate reads
/// them twice, once to judge and once more just before it answers (R8.7).
pub trait ReleaseArtifacts {
    /// One observation per expected artifact, in the same order, named as
    /// expected; an artifact that exists but cannot be read is an error,
    /// not `None`.
    fn observe(&self, expected: &[ExpectedArtifact])
    -> Result<Vec<ObservedArtifact>, AdapterError>;
}

/// Two trees in order: a change goes `from` one `to` the other. What every
/// port method that compares two trees takes, so each side is named where
/// it is passed and the two cannot be swapped by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeSpan<'a> {
    /// The tree the change starts from (a base).
    pub from: &'a TreeId,
    /// The tree the change arrives at (a candidate).
    pub to: &'a TreeId,
}

impl<'a> From<&'a LiveTarget> for TreeSpan<'a> {
    /// The live change: the base tree to the candidate tree.
    fn from(live: &'a LiveTarget) -> Self {
        TreeSpan {
            from: &live.base_tree,
            to: &live.candidate_tree,
        }
    }
}

impl<'a> From<&'a FrozenCandidate> for TreeSpan<'a> {
    /// The frozen change: the base tree to the candidate tree start froze.
    fn from(frozen: &'a FrozenCandidate) -> Self {
        TreeSpan {
            from: &frozen.base_tree,
            to: &frozen.candidate_tree,
        }
    }
}

/// Observing the worktree and its trees: what start, finalize and the
/// pre-commit gate observe. Every method re-derives from live Git state; a
/// failure is an error, never a guess. (Commits are [`RevisionGit`],
/// [`CommitGit`] and [`RangeGit`].)
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
    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError>;
    /// The entries in which two trees differ (adds and removals too), with
    /// modes and object ids: what the delta identity and the rebase proof
    /// compare. `None` when a path is not UTF-8: no review froze such a
    /// path, so no reviewed delta can equal this one.
    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError>;
    /// The changed files between two trees, with modes, line counts and
    /// leading content (what a fix is measured with). An adapter whose
    /// line counts cost a line diff refuses a pair over core's bound on
    /// diff work before diffing it, with [`probity_core::review::DiffTooLarge`]
    /// in its error's chain of sources (`diff_too_large`, D-R130).
    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError>;
    /// The symbolic links (git mode `120000`) of each of `trees`, in the
    /// same order, each with its target (the link blob's bytes): what the
    /// risk policy follows (D-R131). An adapter whose trees never hold a
    /// link (its observations give no [`probity_core::review::FileMode::Symlink`])
    /// may leave this as is: no tree has one. One whose trees may hold
    /// links must list them, or a file reached through a link is rated by
    /// its own path only, as policies before v4 rated it.
    fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, AdapterError> {
        Ok(trees.iter().map(|_| Vec::new()).collect())
    }
    /// The new-side hunks of one path between two trees (`diff -U0`).
    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError>;
    /// The bytes of the blob at `path` in `tree`, at most `cap + 1` of
    /// them (a longer file is refused by its parser); `None` when the path
    /// is absent or not a blob. What the repository policy
    /// (`.probity/policy.json`) is read through, from a base tree.
    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError>;
    /// [`GitPort::read_path`] of each (tree, path), in order. An adapter
    /// that can ask them at once overrides it (the git adapter: one round
    /// trip of its object reader for the lookups, one for the contents).
    fn read_paths(
        &self,
        reads: &[(&TreeId, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, AdapterError> {
        reads
            .iter()
            .map(|(tree, path)| self.read_path(tree, path, cap))
            .collect()
    }
    /// [`GitPort::read_paths`] as a checkout shows each path: symbolic
    /// links inside the tree followed, as the tools that read the file
    /// follow them. What the risk policy's auto-run configurations are
    /// read through (`.vscode -> editor` puts `editor/tasks.json` where VS
    /// Code runs it, D-R166). An adapter whose trees never hold a link may
    /// leave this as is.
    fn read_paths_followed(
        &self,
        reads: &[(&TreeId, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, AdapterError> {
        self.read_paths(reads, cap)
    }
    /// The files in each (tree, directory), with `below` its
    /// subdirectories' too, as a checkout shows the directory (symbolic
    /// links inside the tree followed, as [`GitPort::read_paths_followed`]
    /// reads), each as the directory's path asked joined with the path
    /// below it; at most `limit` of them, else [`Listed::Unknown`]. What risk policy v12 lists where a
    /// command walks a directory (`run-parts tools/hooks`, `include
    /// tools/*.mk`; D-R174). An adapter that cannot list may leave this as
    /// is: every answer is unknown, so a change such a command may reach
    /// is rated as if the directory held anything (never lower).
    fn list_followed(
        &self,
        dirs: &[(&TreeId, &str)],
        below: bool,
        limit: usize,
    ) -> Result<Vec<Listed>, AdapterError> {
        let _ = (below, limit);
        Ok(dirs.iter().map(|_| Listed::Unknown).collect())
    }
    /// The files below each (tree, listing by name) that
    /// [`Matching::keeps`], as a checkout shows them (links inside the tree
    /// followed on the way to the listing's directory, as
    /// [`GitPort::list_followed`] walks; the root when its directory is
    /// empty), each as its path from the root; at most `limit` of them
    /// and at most [`Listed::MAX_TREES`] directories read, else
    /// [`Listed::Unknown`]. What risk policy v12 lists where `find .
    /// -name '*_test.sh'`, a test runner's discovery or `npm --workspaces`
    /// find files by name (red team round 27). An adapter that cannot list
    /// may leave this as is: every answer is unknown, so every file is
    /// rated as one such a command may run (never lower).
    fn list_matching(
        &self,
        asks: &[(&TreeId, &Matching)],
        limit: usize,
    ) -> Result<Vec<Listed>, AdapterError> {
        let _ = limit;
        Ok(asks.iter().map(|_| Listed::Unknown).collect())
    }
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
    /// Whether a commit among the last `MAX_RANGE_COMMITS` reachable from
    /// HEAD has tree `span.to` (the candidate) and a parent (none: the
    /// empty tree) with tree `span.from` (the base): the frozen target of
    /// a `start --commit` review, which no worktree holds once committed.
    /// An adapter that cannot tell answers `false` (finalize then requires
    /// the live candidate).
    fn committed_change(&self, span: TreeSpan<'_>) -> Result<bool, AdapterError> {
        let _ = span;
        Ok(false)
    }
    /// The commit among the last `MAX_RANGE_COMMITS` reachable from HEAD
    /// whose tree is `span.to` (the candidate) and whose one parent's tree
    /// (none: the empty tree) is `span.from` (the base): the commit a
    /// `start --commit` or `--range` review froze, which `recover` freezes
    /// again for its successor. An adapter that cannot tell answers `None`
    /// (recover then takes the live candidate).
    fn committed_commit(&self, span: TreeSpan<'_>) -> Result<Option<RangeCommit>, AdapterError> {
        let _ = span;
        Ok(None)
    }
    /// Checks, before anything is written, that keeping trees is configured
    /// legibly (a bad setting fails the command with nothing changed).
    fn check_keep_trees(&self) -> Result<(), AdapterError> {
        Ok(())
    }
}

/// Time and nonces: the only non-determinism a start has.
pub trait Clock {
    /// The current UTC time, to the second.
    fn now(&self) -> Timestamp;
    /// A fresh random 128-bit nonce; with the time and the target it
    /// derives a new lineage's id (R2.9).
    fn nonce(&self) -> Nonce;
}

/// Failures of the review store, classified for callers.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The stored revision is not the one the writer expected.
    #[error("stale write to {lineage}: expected revision {expected}, the store has {found}")]
    Conflict {
        /// The lineage written.
        lineage: LineageId,
        /// The revision the write was derived from (a transition's
        /// predecessor, or what a burn was decided on).
        expected: Sha256Digest,
        /// The revision the store holds now.
        found: Sha256Digest,
    },
    /// Another writer holds the lineage's lock beyond the bounded wait.
    #[error("lineage {lineage} is locked by another writer (waited {waited_ms} ms)")]
    Contention {
        /// The lineage whose lock is held.
        lineage: LineageId,
        /// How long this writer waited, in milliseconds.
        waited_ms: u64,
    },
    /// Stored authority failed validation: fail closed.
    #[error("stored authority at {path} is invalid: {source}")]
    Corrupted {
        /// The file that failed, as the store names it.
        path: String,
        /// Why its bytes are no valid record.
        #[source]
        source: StateError,
    },
    /// An index entry or receipt is malformed.
    #[error("store entry {path} is malformed: {detail}")]
    Malformed {
        /// The entry, as the store names it.
        path: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The proposed successor is not a legal transition.
    #[error(transparent)]
    Illegal(#[from] TransitionError),
    /// The lineage does not exist.
    #[error("no lineage {0} in the store")]
    NotFound(LineageId),
    /// The lineage was retired by a repair ceremony (R9.4): its bytes are
    /// in quarantine, and the audit record says who, why and on what proof.
    #[error(
        "lineage {lineage} is retired: quarantined by a repair ceremony (audit record {audit})"
    )]
    Retired {
        /// The retired lineage.
        lineage: LineageId,
        /// The audit record's path, relative to the store root.
        audit: String,
    },
    /// The lineage was burned once its authority was used (R10.5
    /// `consumed`): only its tombstone remains.
    #[error("lineage {lineage} is consumed: its authority was burned (tombstone {tombstone})")]
    Consumed {
        /// The burned lineage.
        lineage: LineageId,
        /// The tombstone's path, relative to the store root
        /// (`consumed/<lineage>`).
        tombstone: String,
    },
    /// A correction produced a candidate another lineage already owns.
    #[error("the candidate of lineage {lineage} is already owned by lineage {owner}")]
    TargetOwned {
        /// The lineage whose write was refused.
        lineage: LineageId,
        /// The lineage that holds the target's claim.
        owner: LineageId,
    },
    /// The predecessor already has another successor (recovery never forks).
    #[error("lineage {lineage} is already superseded by {successor}")]
    AlreadySuperseded {
        /// The predecessor named.
        lineage: LineageId,
        /// Its successor already stored (or the leaf of its chain).
        successor: LineageId,
    },
    /// Another recovery of the predecessor is in progress or was
    /// interrupted: only the same request completes it.
    #[error(
        "a recovery of {lineage} (successor {successor}) is in progress or was interrupted; repeat that same request to complete it"
    )]
    RecoveryPending {
        /// The predecessor being recovered.
        lineage: LineageId,
        /// The successor the pending recovery is creating.
        successor: LineageId,
    },
    /// A different result is already kept for this lens of the lineage.
    #[error(
        "lineage {lineage} already holds a different submitted result for lens `{lens}`; a resubmission must repeat the same bytes"
    )]
    ResultDiffers {
        /// The lineage the result was submitted to.
        lineage: LineageId,
        /// The lens's name.
        lens: &'static str,
    },
    /// Reading or writing a store file failed.
    #[error("store I/O at {path}: {source}")]
    Io {
        /// The file or directory, as the store names it.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

/// Core's refusal to make a [`FirstRecord`] or a [`Successor`]
/// (`recovery::NewLineageError`), as a store's error: a predecessor no
/// longer at the revision the link recorded is a conflict (the request is
/// retried from the predecessor as it is now); anything else is malformed
/// input, named by the record's lineage.
impl From<probity_core::review::NewLineageError> for StoreError {
    fn from(e: probity_core::review::NewLineageError) -> Self {
        use probity_core::review::{ChainError, NewLineageError as E};
        match e {
            E::Link(ChainError::RevisionMismatch {
                predecessor,
                recorded,
                found,
                ..
            }) => StoreError::Conflict {
                lineage: predecessor,
                expected: recorded,
                found,
            },
            E::Successor { ref lineage, .. } | E::NoPredecessor { ref lineage } => {
                StoreError::Malformed {
                    path: lineage.to_string(),
                    detail: e.to_string(),
                }
            }
            E::Link(ref chain) => StoreError::Malformed {
                path: chain_lineage(chain).to_string(),
                detail: e.to_string(),
            },
        }
    }
}

/// The lineage a chain fault is about (the successor whose link failed).
fn chain_lineage(e: &probity_core::review::ChainError) -> &LineageId {
    use probity_core::review::ChainError as C;
    match e {
        C::Dangling { lineage, .. }
        | C::RevisionMismatch { lineage, .. }
        | C::Fork { lineage, .. }
        | C::Generation { lineage, .. }
        | C::Cycle { lineage } => lineage,
    }
}

/// How a create ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// The record is now stored and indexed by its target.
    New,
    /// Another lineage already owns this target; nothing was kept.
    Existing(LineageId),
}

/// How a lens result submission ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submitted {
    /// The result is now kept for the lineage.
    New,
    /// The same bytes were already kept for that lens (an exact retry).
    Existing,
}

/// A lineage's record (R7): loading it fail-closed, creating it, its
/// compare-and-swap, and reads under its writer lock. Every driver that
/// touches authority needs this one.
pub trait RecordStore {
    /// Loads and validates a lineage's record (fail closed).
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError>;
    /// Loads a lineage's record that must exist: [`RecordStore::load`],
    /// with a lineage the store does not hold answered
    /// [`StoreError::NotFound`].
    fn get(&self, lineage: &LineageId) -> Result<StateRecord, StoreError> {
        self.load(lineage)?
            .ok_or_else(|| StoreError::NotFound(lineage.clone()))
    }
    /// Stores a new lineage and indexes it by target identity, unless another
    /// lineage owns the target already. A [`FirstRecord`] exists only once
    /// core checked it (`FirstRecord::check`: it names no predecessor), so
    /// no caller can create a successor beside its predecessor.
    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError>;
    /// Compare-and-swap: replaces the record whose revision is the
    /// transition's expected one with its successor, under the lineage's
    /// lock. A [`Transition`] exists only once core checked it
    /// (`check_successor`), so no caller can write an unchecked successor.
    /// An exact retry (the store already holds the successor) succeeds. A
    /// terminal record also writes its receipt; an approved one indexes its
    /// base tree.
    fn replace(&self, transition: &Transition) -> Result<(), StoreError>;
    /// Runs `f` while holding the lineage's writer lock, so nothing `f`
    /// reads is half-way through a writer's change (a gate's final recheck,
    /// R8.7). Writes nothing; a lineage that was never written is not
    /// locked.
    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError>;
}

/// Recovery chains (R9.2): which successor supersedes a lineage (or is
/// being created), and storing a recovered successor. Start, finalize and
/// the gates read the chain (a superseded lineage takes no input and
/// vouches for nothing); only recovery and import write it.
pub trait ChainStore {
    /// The successor a lineage's supersession marker names, if any.
    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError>;
    /// The successor a recovery of `lineage` is creating (written, not yet
    /// marked), if any.
    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError>;
    /// Stores a recovered successor (R9.2) under its predecessor's lock. A
    /// [`Successor`] exists only once core checked its link against the
    /// predecessor (`Successor::check`: that lineage, at its revision, one
    /// generation on); what the store checks is the compare-and-swap: the
    /// predecessor it holds must still be at [`Successor::expected`] (a
    /// `Conflict` otherwise) and have no other successor; its record is never rewritten (a
    /// supersession marker names the successor), and the successor's target
    /// index is published, taking it over only from the predecessor. An
    /// exact retry (same predecessor, same link) answers the successor
    /// already stored as `Existing`.
    fn create_successor(&self, successor: &Successor) -> Result<Created, StoreError>;
}

/// The identity indexes (R12.2: discovery is lookups, never a scan): by
/// target, base tree, final tree, delta and delta entry, the open
/// corrections and the escalations, and indexing an approved lineage's
/// delta.
pub trait IndexStore {
    /// The lineage indexed for a target identity.
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError>;
    /// The latest approved lineage on a base tree.
    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError>;
    /// The latest approved lineage whose final candidate tree is `tree`
    /// (projected on approval): after that slice is committed, the live
    /// base is this tree and the next slice is classified against it
    /// (R8.6).
    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError>;
    /// The latest approved lineage indexed under a delta identity (the
    /// digest of the entries in which its base and final candidate differ).
    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError>;
    /// Indexes an approved, not superseded lineage under the delta identity
    /// its trees derive and under the identities of its first delta
    /// entries (the caller derives them from Git); idempotent, and a record
    /// that is not the stored approved one is refused.
    fn index_delta(
        &self,
        record: &StateRecord,
        delta: &Sha256Digest,
        entries: &[Sha256Digest],
    ) -> Result<(), StoreError>;
    /// The latest approved lineage whose delta holds the entry with this
    /// identity (diagnostic: it names the review a partly matching rebase
    /// came from).
    fn lookup_delta_entry(&self, entry: &Sha256Digest) -> Result<Option<LineageId>, StoreError>;
    /// The lineages on a base tree that entered correction (callers check
    /// which are still in correction). Bounded by the corrections ever
    /// opened on that one base.
    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError>;
    /// The lineages on a base tree that escalated (a projection written
    /// when a record becomes escalated). Bounded by the escalations ever
    /// recorded on that one base; callers check supersession.
    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError>;
    /// Every lineage the escalation index names, whatever its base (issue
    /// 21 §8: the guard keys on the escalated change, which a moved base no
    /// longer finds by its base tree). A listing of that one index, bounded
    /// by the escalations ever recorded, sorted; callers check supersession.
    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError>;
}

/// Receipts (R7.5): a terminal record's receipt file, where it lives, and
/// writing what a committed record projects (receipt, index entries) that
/// a crash left unwritten.
pub trait ReceiptStore {
    /// Writes whatever the committed record projects (receipt, index
    /// entries) that a crash may have left unwritten; the record must be the
    /// stored one.
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError>;
    /// The bytes of a lineage's receipt file, if present.
    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError>;
    /// Where the receipt of a lineage lives, for people.
    fn receipt_location(&self, lineage: &LineageId) -> String;
}

/// Lens results submitted for a lineage (`lens submit`), kept once.
pub trait ResultStore {
    /// Keeps a lens result submitted for a stored lineage (`lens submit`),
    /// atomically and under the lineage's lock: an exact resubmission is
    /// `Existing`, different bytes for a lens already kept are refused
    /// (`ResultDiffers`). The caller validated the result and its binding.
    fn submit_result(
        &self,
        lineage: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError>;
    /// The results submitted for a lineage, by lens (canonical lens order).
    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError>;
}

/// The whole compact review store (R7): every store trait at once, for an
/// adapter or a caller that needs them all (implemented for every type
/// that implements the five; a driver names only the ones it calls).
pub trait ReviewStore: RecordStore + ChainStore + IndexStore + ReceiptStore + ResultStore {}

impl<T: RecordStore + ChainStore + IndexStore + ReceiptStore + ResultStore + ?Sized> ReviewStore
    for T
{
}

/// Every lineage a store holds (`probity list`, issue 21 §8): a walk of
/// the store's lineages, the one listing outside the repair survey and the
/// creation scavenges, and never a gate's or a start's discovery.
pub trait LineageListing {
    /// The ids of every lineage the store holds, sorted (a folder being
    /// made or an index entry is not a lineage).
    fn lineages(&self) -> Result<Vec<LineageId>, StoreError>;
}

/// The store side of a repair ceremony (R9.4): surveying the whole store
/// for one class of anomaly, and quarantining one entry in two
/// byte-preserving phases. The rules (uniqueness, the audit record) are
/// core's.
pub trait RepairStore {
    /// Examines every lineage for anomalies of `class` (bounded: a survey
    /// that stopped early says so).
    fn survey(&self, class: RepairClass) -> Result<Survey, StoreError>;
    /// Quarantines the entry of `class` of `lineage`: phase one copies each
    /// of its files (a whole lineage with the index entries naming it, or
    /// one receipt file) into the quarantine and writes the audit record
    /// `audit` makes from their digests; phase two moves the originals
    /// there (a retired lineage then answers [`StoreError::Retired`]).
    /// Nothing is deleted. A crash between the phases is completed by the
    /// same request. Returns the audit record's path.
    fn quarantine(
        &self,
        lineage: &LineageId,
        class: RepairClass,
        audit: &AuditWriter<'_>,
    ) -> Result<String, StoreError>;
    /// Burns a lineage whose authority was consumed. Under the lineage's
    /// lock (the one a recovery of it takes) it checks again what the burn
    /// was decided on: the record is still at `expected` ([`StoreError::
    /// Conflict`] otherwise) and no recovery superseded it or is pending
    /// ([`StoreError::AlreadySuperseded`], [`StoreError::RecoveryPending`]).
    /// Then it writes `tombstone` first, and removes the index entries
    /// naming the lineage and its directory (Git objects are untouched).
    /// The lineage then answers [`StoreError::Consumed`]. Returns the
    /// tombstone's path.
    fn consume(
        &self,
        lineage: &LineageId,
        expected: &Sha256Digest,
        tombstone: &[u8],
    ) -> Result<String, StoreError>;
}

/// Makes the audit record's bytes from the files a quarantine copied.
pub type AuditWriter<'a> = dyn Fn(&[QuarantinedFile]) -> Result<Vec<u8>, StoreError> + 'a;

/// Which local refs count as already published, besides the explicit
/// exclusions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteScope {
    /// None: only the explicit exclusions.
    None,
    /// Every remote-tracking ref (`--remotes`): this clone's last view of
    /// its remotes, an approximation used only when no remote is named.
    All,
    /// The remote-tracking refs of one remote (`--remotes=<name>`): what a
    /// push to that remote publishes against. A teammate's branch fetched
    /// under another remote's name is not published to this one.
    Of(String),
}

/// Naming commits: what a revision the user named is here. All `start`
/// asks of commits (is there a HEAD to name when nothing is uncommitted).
pub trait RevisionGit {
    /// Resolves a revision to a commit: `None` when it names none here (a
    /// failure to find out is an error, never `None`).
    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError>;
    /// Resolves a revision the user named to a commit; an unknown revision
    /// is an error.
    ///
    /// The default is [`Self::find_commit`] with a revision that names no
    /// commit here answered [`UnknownRevision`]; an adapter may name it
    /// more precisely.
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError> {
        match self.find_commit(rev)? {
            Some(commit) => Ok(commit),
            None => Err(Box::new(UnknownRevision {
                rev: rev.to_string(),
            })),
        }
    }
}

/// A revision that names no commit in this repository: what
/// [`RevisionGit::resolve_commit`] answers by default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown revision `{rev}`: it names no commit in this repository")]
pub struct UnknownRevision {
    /// The revision as the user named it.
    pub rev: String,
}

/// Commits as changes: a commit's tree, the empty tree (a root commit's
/// base) and a commit observed as a candidate (what `start --commit`,
/// `--range` and `--history`, `recover` and the amend gate derive).
pub trait CommitGit {
    /// A commit as a candidate: base = its parent's tree (a root commit:
    /// the empty tree), candidate = its tree, changed files as
    /// [`GitPort::observe_candidate`] derives them, no intended untracked
    /// files. A merge commit is an error (callers refuse it first).
    fn observe_commit(&self, commit: &RangeCommit) -> Result<CandidateObservation, AdapterError>;
    /// A commit's tree.
    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError>;
    /// The empty tree in this repository's hash (a root commit's base).
    fn empty_tree(&self) -> Result<TreeId, AdapterError>;
}

/// Histories and what remotes hold: the ranges, ancestry, peeled tags,
/// advertised tips and transferred blobs the publication gates observe.
pub trait RangeGit {
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
    /// For each of `trees`, in order, the entries in which it differs from
    /// `reviewed` (as [`GitPort::tree_delta`] from `reviewed` to it;
    /// `None` when a path is not UTF-8): what each commit of a first
    /// publication's history holds beyond the reviewed tree (R8.8). An
    /// adapter may derive them all in one pass.
    fn history_deltas(
        &self,
        reviewed: &TreeId,
        trees: &[TreeId],
    ) -> Result<Vec<Option<Vec<DeltaEntry>>>, AdapterError>;
}

/// Reading commits and ranges: what the publication gates observe, every
/// commit trait at once ([`RevisionGit`], [`CommitGit`], [`RangeGit`];
/// implemented for every type that implements the three).
pub trait DeliveryGit: RevisionGit + CommitGit + RangeGit {}

impl<T: RevisionGit + CommitGit + RangeGit + ?Sized> DeliveryGit for T {}

/// Reading the frozen trees (R10.2–R10.5): whether they are still here,
/// the pinned patch between two of them and the derivation fingerprint
/// (what `start` anchors, an export shows and the escalation guard checks).
pub trait ExportGit {
    /// The object ids among `ids` this repository does not have (pruned).
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError>;
    /// The patch between two trees under the pinned derivation
    /// ([`probity_core::review::export_command`]): a function of
    /// the two trees and the git version only; `None` when it is longer
    /// than `cap` bytes (at most `cap + 1` bytes are read).
    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError>;
    /// `git --version`, for the derivation fingerprint.
    fn version(&self) -> Result<String, AdapterError>;
    /// Announces tree pairs whose changes ([`ManifestGit::manifest`],
    /// [`GitPort::diff_files`]) will be asked next, so an adapter can derive
    /// them all at once (issue 24: one `diff-tree --stdin` per push instead
    /// of one process per pair). A hint: what is asked later is answered
    /// the same with or without it.
    fn announce_diffs(&self, pairs: &[(TreeId, TreeId)]) -> Result<(), AdapterError> {
        let _ = pairs;
        Ok(())
    }
    /// Announces tree pairs whose changed paths
    /// ([`GitPort::differing_paths`]) will be asked next, so an adapter can
    /// list them all at once with no blob read (red team round 7: the
    /// replay check asks them of a ref's whole history window once per
    /// push, not once per delivery). Whether every pair's paths are now
    /// answered without a process of its own: `false` (the default, and
    /// an adapter's answer over its bound) tells the caller to ask
    /// otherwise.
    fn announce_paths(&self, pairs: &[(TreeId, TreeId)]) -> Result<bool, AdapterError> {
        let _ = pairs;
        Ok(false)
    }
    /// The object id at each of `paths` in `tree` (`None` where the tree
    /// holds nothing), or `None` when the adapter cannot tell cheaply. A
    /// prefilter only: what it rules out is what a diff would rule out,
    /// and `None` leaves the question to the diff.
    fn path_objects(
        &self,
        tree: &TreeId,
        paths: &[RepoPath],
    ) -> Result<Option<Vec<Option<String>>>, AdapterError> {
        let _ = (tree, paths);
        Ok(None)
    }
}

/// An export's manifest (R10.3): the changed paths between two trees.
pub trait ManifestGit {
    /// The changed paths between two trees with modes and blobs.
    fn manifest(&self, span: TreeSpan<'_>) -> Result<Vec<ManifestEntry>, AdapterError>;
}

/// What the bytes a notes update stores are measured against
/// ([`NotesGit::notes_history`]): objects these hold are not counted.
#[derive(Debug, Clone, Copy)]
pub enum NotesHolds<'a> {
    /// Every ref of this repository, and these tips (a CI form: every
    /// update it is given).
    EveryRef(&'a [CommitId]),
    /// These tips alone (the hook: the protected refs' tips the push
    /// leaves, and its judged new tips). What an unprotected ref holds is
    /// counted: a tag pushed beside the notes, or before them, may be
    /// deleted, and the notes would then hold it alone (red team round 7,
    /// finding 04, D-R147).
    Only(&'a [CommitId]),
}

/// Review bundles carried as Git notes under `refs/notes/probity` (R11).
pub trait NotesGit {
    /// The commit `refs/notes/probity` names here, if any.
    fn notes_tip(&self) -> Result<Option<CommitId>, AdapterError>;
    /// The note of `commit` in the notes commit `notes` (any fan-out), read
    /// up to `cap + 1` bytes (a longer note is refused by its parser).
    fn read_note(
        &self,
        notes: &CommitId,
        commit: &CommitId,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError>;
    /// The commits whose note in the notes commit `notes` holds `needle`
    /// (a fixed string, e.g. a lineage id), at most `cap` of them.
    fn notes_naming(
        &self,
        notes: &CommitId,
        needle: &str,
        cap: usize,
    ) -> Result<Vec<CommitId>, AdapterError>;
    /// [`Self::notes_naming`] for each of `needles`, in their order (an
    /// adapter may ask them all at once: one search of the notes tree per
    /// push instead of one per needle, issue 24). The default asks them one
    /// by one.
    fn notes_naming_each(
        &self,
        notes: &CommitId,
        needles: &[&str],
        cap: usize,
    ) -> Result<Vec<Vec<CommitId>>, AdapterError> {
        needles
            .iter()
            .map(|n| self.notes_naming(notes, n, cap))
            .collect()
    }
    /// Writes every `(commit, note)` in one compare-and-swap of
    /// `refs/notes/probity` against `expected` (the tip the notes were read
    /// at; `None`: the ref must not exist yet), and makes every tree of
    /// `anchor` this repository holds reachable from the new notes tip (a
    /// Git adapter: a merge parent whose tree lists them), so the review
    /// trees a bundle needs travel with `refs/notes/probity` and no other
    /// ref (issue 21 §4).
    fn write_notes(
        &self,
        expected: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
        anchor: &[TreeId],
    ) -> Result<(), AdapterError>;
    /// The `probity.protectedRefs` values (multi-valued; empty when unset).
    fn protected_refs(&self) -> Result<Vec<String>, AdapterError>;
    /// Whether a push may delete a protected ref
    /// (`probity.allowProtectedDeletion`; `false` when unset).
    fn allows_protected_deletion(&self) -> Result<bool, AdapterError>;
    /// The annotated commits that hold a note in the notes commit `old`
    /// whose note is not the same blob in the notes commit `new` (changed
    /// or removed), sorted. Only the paths that differ between the two
    /// notes trees are read (git: `diff-tree -r`); a note that only moved
    /// between fan-out levels is not a change.
    fn changed_notes(&self, old: &CommitId, new: &CommitId) -> Result<Vec<CommitId>, AdapterError>;
    /// Every file the notes commit `new` holds that `old` (none: the empty
    /// notes tree) does not hold as it is (a new path, or another blob at
    /// a path), sorted by path: its path in the notes tree, whatever it
    /// names, its size, what it adds to its commit's note (what the note
    /// grew by; nothing when `old` held the same blobs for that commit at
    /// other paths: a note git re-fanned), and, for a new path, the other
    /// paths of `new` holding that commit's note
    /// ([`probity_core::review::AddedNoteFile`]). Only the differing paths
    /// are read (git: `diff-tree -r`, or `ls-tree -r -l` of a new notes
    /// ref), then the fan-out paths of the commits they name; sizes
    /// without reading the blobs.
    fn added_note_files(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
    ) -> Result<Vec<probity_core::review::AddedNoteFile>, AdapterError>;
    /// What the commits the notes update from `old` (none: a new notes
    /// ref) to `new` brings hold besides `new`'s notes tree
    /// ([`probity_core::review::NotesHistory`]): the commits `new` reaches
    /// and `old` does not (at most one more than
    /// [`probity_core::review::MAX_NOTES_UPDATE_COMMITS`] read), the files
    /// each adds to the tree it is listed against
    /// ([`probity_core::review::notes_listing_base`]: a parent the server
    /// holds, when there is one, else its first parent; Probity's anchor
    /// commits aside), and the bytes stored for the objects that none of
    /// `holds` reach ([`NotesHolds`]).
    fn notes_history(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
        holds: NotesHolds<'_>,
    ) -> Result<probity_core::review::NotesHistory, AdapterError>;
    /// This repository's own branch and tag tips that are commits (an
    /// annotated tag peeled), with their ref names: what the server hook's
    /// repository holds, read with no transport (git: `for-each-ref`).
    fn own_tips(&self) -> Result<Vec<(String, CommitId)>, AdapterError>;
    /// The bytes git stores for the objects the notes commit `notes`
    /// reaches and `dropped` (the old tips a push deletes or rewinds)
    /// reach, that no ref reaches once the push is applied: `updated`
    /// names each ref the push updates with its new tip (`None`: deleted),
    /// every other ref keeping its own (the notes ref is never a hold).
    /// What the push would leave only the notes holding (D-R136).
    fn left_to_notes(
        &self,
        notes: &CommitId,
        dropped: &[CommitId],
        updated: &[(&str, Option<&CommitId>)],
    ) -> Result<u64, AdapterError>;
}

/// Where imported DSSE envelopes are kept, so a bundle re-exported from
/// this store carries them unchanged.
pub trait AttestationStore {
    /// Adds envelopes to a lineage's set (sorted, de-duplicated).
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[probity_core::review::DsseEnvelope],
    ) -> Result<(), StoreError>;
    /// The envelopes kept for a lineage.
    fn attestations(
        &self,
        lineage: &LineageId,
    ) -> Result<Vec<probity_core::review::DsseEnvelope>, StoreError>;
    /// Keeps command evidence documents for a lineage (sorted,
    /// de-duplicated): what `finalize --evidence-cmd` ran for it, or what
    /// an imported bundle carried (D-R69), so an export carries them on.
    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[probity_core::review::CommandEvidenceDocument],
    ) -> Result<(), StoreError>;
    /// The command evidence documents kept for a lineage.
    fn evidence(
        &self,
        lineage: &LineageId,
    ) -> Result<Vec<probity_core::review::CommandEvidenceDocument>, StoreError>;
}
