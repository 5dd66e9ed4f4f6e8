//! What a driver answers when it cannot finish.

use probity_core::digest::Sha256Digest;
use probity_core::review::CommandEvidenceError;
use probity_core::review::DiffTooLarge;
use probity_core::review::ErrorClass;
use probity_core::review::ExportError;
use probity_core::review::PlacementError;
use probity_core::review::RoleDocError;
use probity_core::review::SnapshotError;
use probity_core::review::StackError;
use probity_core::review::TreeMalformed;
use probity_core::review::{ChainError, RecoverError};
use probity_core::review::{CommitId, LineageId, RepoPath, TreeId};
use probity_core::review::{PreflightError, StateError, TransitionError};

use super::*;

/// The first error of type `T` in `e`'s chain of sources.
fn in_chain<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut at = Some(e);
    while let Some(e) = at {
        if let Some(d) = e.downcast_ref::<T>() {
            return Some(d);
        }
        at = e.source();
    }
    None
}

/// Core's refusal of a diff over its bound on diff work (D-R130) that a
/// driver's error carries, wherever in its chain of sources.
pub(crate) fn diff_too_large<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a DiffTooLarge> {
    in_chain(e)
}

/// Core's refusal of a tree git never writes (D-R160) that a driver's
/// error carries, wherever in its chain of sources.
pub(crate) fn tree_malformed<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a TreeMalformed> {
    in_chain(e)
}

/// The code of what core refused in a driver's repository error
/// (`diff_too_large`, D-R130; `tree_malformed`, D-R160), wherever in its
/// chain of sources.
pub(crate) fn refused_code(e: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    if diff_too_large(e).is_some() {
        Some("diff_too_large")
    } else if tree_malformed(e).is_some() {
        Some("tree_malformed")
    } else {
        None
    }
}

/// A named input document (a path, for messages).
#[derive(Debug, Clone)]
pub struct NamedInput {
    /// What messages call the input: its path as given, or a description
    /// (`submitted result for lens security`).
    pub name: String,
    /// The document's bytes, exactly as read.
    pub bytes: Vec<u8>,
}

/// Why a driver could not finish. Whatever the variant, a rejected input
/// left the store unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// A Git port call failed (the repository could not be read, an object
    /// or revision is unknown, keeping trees is misconfigured). A port
    /// error becomes this by `?` alone; the one other port whose errors are
    /// an [`AdapterError`], the release artifacts, maps to
    /// [`ReviewError::Artifacts`] by name.
    #[error("could not observe the repository: {0}")]
    Repository(#[from] AdapterError),
    /// The store refused or failed (see [`StoreError`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A role document is not a valid document of its schema.
    #[error("{name}: {source}")]
    MalformedInput {
        /// The input's name ([`NamedInput::name`]).
        name: String,
        /// The role document it was read as: `reviewer`, `refuter` or
        /// `validator` (what `probity schema` names).
        role: &'static str,
        /// What the strict document check refused.
        #[source]
        source: RoleDocError,
    },
    /// Core refused the transition an input asks for (a wrong stage, an
    /// illegal or empty input).
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// The observation cannot be frozen (nothing changed) or its frozen
    /// fields disagree.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// A state, record or receipt core derived or read is not valid
    /// authority.
    #[error(transparent)]
    State(#[from] StateError),
    /// No lineage was named, none froze the live candidate, and it is the
    /// fix of no open correction.
    #[error("no review exists for the live candidate")]
    NoReview,
    /// The live candidate is not the one the lineage's stage expects (the
    /// frozen candidate, or the correction's tree), nor a recent commit of
    /// it when the lineage was named.
    #[error(
        "the live candidate is not the one lineage {lineage} froze; changed paths: {}",
        display_paths(differing_paths)
    )]
    CandidateChanged {
        /// The lineage the input was for.
        lineage: LineageId,
        /// The paths in which the live candidate differs from the expected
        /// tree.
        differing_paths: Vec<RepoPath>,
    },
    /// An index lookup answered a lineage that does not hold what it was
    /// indexed under (another target, base, final tree or delta, or not
    /// approved): the index and the records disagree, so discovery fails
    /// closed.
    #[error("index entry for {0} points at a lineage with another target")]
    IndexMismatch(LineageId),
    /// `start` on a candidate whose lineage cannot be resumed: it
    /// corrected the candidate into another tree, or it was invalidated
    /// (R9.1).
    #[error(transparent)]
    NotResumable(#[from] probity_core::review::ResumeRefused),
    /// `start` on a candidate that touches a path a lineage on the same
    /// base is still correcting.
    #[error(
        "lineage {lineage} is correcting these paths; a new review of them would open a fresh budget"
    )]
    CorrectionOpen {
        /// The lineage in correction.
        lineage: LineageId,
    },
    /// `start` on a candidate whose lineage a recovery superseded.
    #[error(
        "lineage {lineage} froze (or corrected into) this candidate but is superseded; its recovery chain ends at {leaf}: to review this candidate, recover from {leaf}"
    )]
    SupersededLineage {
        /// The superseded lineage that froze the candidate.
        lineage: LineageId,
        /// The last successor of its recovery chain.
        leaf: LineageId,
    },
    /// A new start would side-step an escalation (issue 8 §5).
    #[error(
        "lineage {lineage} escalated on this base and reviewed {}; a new review of them would open a fresh budget without the maintainer's authorization",
        display_paths(paths)
    )]
    LineageEscalated {
        /// The escalated lineage on the same base.
        lineage: LineageId,
        /// Its current revision (what an authorized recovery names).
        revision: Sha256Digest,
        /// The candidate's paths that lineage reviewed.
        paths: Vec<RepoPath>,
    },
    /// Core refused the successor a recovery asks for (R9.2).
    #[error(transparent)]
    Recover(#[from] RecoverError),
    /// The lineage's frozen context cannot be exported (R10.5).
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Only a terminal lineage has a receipt to attest.
    #[error("lineage {lineage} is `{state}`: only an approved or escalated review has a receipt")]
    NotTerminal {
        /// The lineage named.
        lineage: LineageId,
        /// Its stage's name (`reviewing`, `correction_required`,
        /// `validating`, `invalidated`).
        state: &'static str,
    },
    /// The repository policy in the base (`.probity/policy.json`) is not a
    /// valid `probity-policy/v1` document (`policy_invalid`).
    #[error("the repository policy (.probity/policy.json) in the base tree {base}: {source}")]
    Policy {
        /// The base tree it was read from.
        base: probity_core::review::TreeId,
        /// Why it is refused.
        #[source]
        source: probity_core::review::PolicyError,
    },
    /// R12.4: the candidate's diff does not fit the export budget.
    #[error(
        "the candidate's diff is over the {limit}-byte budget a reviewer's context can carry; split the change and review the parts"
    )]
    NotRepresentable {
        /// The bound in bytes (`MAX_DIFF_BYTES` at start, `MAX_FIX_DIFF_BYTES`
        /// for a correction's fix).
        limit: u64,
    },
    /// Objects a lineage froze (its trees or their blobs) are no longer in
    /// the repository.
    #[error(
        "lineage {lineage}'s frozen objects are gone from the repository (pruned?): {}",
        objects.join(", ")
    )]
    ObjectsMissing {
        /// The lineage whose objects are gone.
        lineage: LineageId,
        /// The missing object ids, as hex.
        objects: Vec<String>,
    },
    /// A predecessor chain that does not hold: fail closed (R9.3).
    #[error("the recovery chain does not hold: {0}")]
    Chain(#[from] ChainError),
    /// No lineage was named and the live candidate is a possible fix of
    /// more than one open correction on its base.
    #[error(
        "the live candidate could be a fix of more than one correction ({}); name one with --lineage",
        lineages.iter().map(LineageId::as_str).collect::<Vec<_>>().join(", ")
    )]
    AmbiguousCorrection {
        /// The open corrections it could be a fix of.
        lineages: Vec<LineageId>,
    },
    /// Lens results that do not match the selected lenses by name.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// A submitted result that has nowhere legal to land, or whose binding
    /// is not the one start prepared for its lens.
    #[error("{lineage}: {source}")]
    Submission {
        /// The lineage submitted to.
        lineage: LineageId,
        /// What the preflight refused (not selected, a binding mismatch,
        /// not awaiting results).
        #[source]
        source: PreflightError,
    },
    /// A result given on the command line differs from the one submitted
    /// for the same lens.
    #[error(
        "lineage {lineage} holds a different submitted result for lens `{lens}`; give the same bytes or leave --result out"
    )]
    SubmittedDiffers {
        /// The lineage holding the submitted result.
        lineage: LineageId,
        /// The lens's name.
        lens: &'static str,
    },
    /// A preserved-result artifact given where a result is taken (R3.6):
    /// it is replayed, never taken as stored.
    #[error(
        "{name} is a preserved-result artifact (schema `probity.preserved-result/v1`), not a lens result"
    )]
    PreservedNotAResult {
        /// The input's name ([`NamedInput::name`]).
        name: String,
    },
    /// A preserved-result artifact that cannot be replayed here.
    #[error("{name}: {source}")]
    Preserved {
        /// The artifact's name ([`NamedInput::name`]).
        name: String,
        /// Why it is refused: malformed, altered, too large, or preserved
        /// for another lineage or candidate.
        #[source]
        source: Box<probity_core::review::PreservedError>,
    },
    /// A repair ceremony refused (R9.4).
    #[error(transparent)]
    Repair(#[from] probity_core::review::RepairError),
    /// A burn refused (R10.5 `consumed`).
    #[error(transparent)]
    Burn(#[from] probity_core::review::BurnError),
    /// A tombstone that could not be encoded (a bug).
    #[error("could not encode the tombstone: {0}")]
    Tombstone(String),
    /// An input document over its documented bound.
    #[error("{name} is larger than the {limit}-byte limit for this document")]
    InputTooLarge {
        /// The input's name ([`NamedInput::name`]).
        name: String,
        /// The bound in bytes.
        limit: u64,
    },
    /// The independent check Probity ran is not evidence.
    #[error(transparent)]
    CommandEvidence(#[from] CommandEvidenceError),
    /// The evidence would approve a review whose paths the required checks
    /// of its base (`.probity/checks.json`) hold to another check (D-R69);
    /// nothing was written.
    #[error(transparent)]
    ChecksUnmet(#[from] probity_core::review::ChecksUnmet),
    /// The lens results are not the model runs the base's policy asks for
    /// at the review's tier (`transcripts`, D-R103); nothing was written.
    #[error(transparent)]
    TranscriptsUnmet(#[from] probity_core::review::TranscriptsUnmet),
    /// The required checks at the review's base do not parse; nothing was
    /// written.
    #[error("the required checks (.probity/checks.json) at the review's base: {0}")]
    ChecksInvalid(#[from] probity_core::review::ChecksError),
    /// A validation was given after `HEAD` moved: the live base tree is not
    /// the one the lineage froze, so the fix cannot be measured.
    #[error(
        "HEAD moved since lineage {lineage} froze its base tree {frozen}; a correction must keep the base"
    )]
    BaseChanged {
        /// The lineage in correction.
        lineage: LineageId,
        /// The base tree it froze.
        frozen: TreeId,
    },
    /// `start --commit` / `--range`: the commits are no stack a review can
    /// bind commit by commit (a merge, empty, too many).
    #[error(transparent)]
    Stack(#[from] StackError),
    /// `start --commit`: the commit's tree is its parent's; it changes no
    /// bytes, and every gate allows it `no_change`.
    #[error(
        "commit {commit} changes no bytes (its tree is its parent's tree): there is nothing to review, and every gate allows it as `no_change`"
    )]
    CommitNoChange {
        /// The commit named.
        commit: CommitId,
    },
    /// The release artifacts could not be read (not: they differ).
    #[error("could not read the release artifacts: {0}")]
    Artifacts(#[source] AdapterError),
    /// `start` on a clean worktree: the live candidate equals HEAD. Work
    /// that is already committed is reviewed with `start --commit`.
    #[error(
        "the candidate equals HEAD ({head}): nothing uncommitted to review; to review the change HEAD committed, run `probity start --commit {head}`"
    )]
    NothingUncommitted {
        /// The commit `HEAD` names.
        head: CommitId,
    },
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

/// Core's refusal of a new lineage, as a driver's error: the store's
/// class (see `From<NewLineageError> for StoreError`).
impl From<probity_core::review::NewLineageError> for ReviewError {
    fn from(e: probity_core::review::NewLineageError) -> Self {
        ReviewError::Store(e.into())
    }
}

impl ReviewError {
    /// Its stable, machine-readable code (docs/errors.md) and the class of
    /// step that follows (issue 25 §5), from the error itself: the
    /// command line's `--json`, the MCP tools and a library consumer get
    /// the same code. (The command line refines one case it can see in the
    /// Git adapter's error: a path that is not UTF-8 and a file over the
    /// size limit, which `repository_error` covers here.)
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        use ErrorClass::*;
        match self {
            ReviewError::Repository(e) => match refused_code(e.as_ref()) {
                Some(code) => (RejectedInput, code),
                None => (Repository, "repository_error"),
            },
            ReviewError::Artifacts(_) => (Io, "artifact_io"),
            ReviewError::Store(s) => s.classify(),
            ReviewError::MalformedInput { .. } => (RejectedInput, "malformed_input"),
            ReviewError::Transition(t) => t.classify(),
            ReviewError::Snapshot(s) => s.classify(),
            ReviewError::State(_) => (Integrity, "invalid_state"),
            ReviewError::NoReview => (RejectedInput, "no_review"),
            ReviewError::CandidateChanged { .. } => (Conflict, "candidate_changed"),
            ReviewError::IndexMismatch(_) => (Integrity, "index_mismatch"),
            ReviewError::AmbiguousCorrection { .. } => (RejectedInput, "ambiguous_correction"),
            ReviewError::CorrectionOpen { .. } => (Conflict, "correction_open"),
            ReviewError::NotResumable(r) => r.classify(),
            ReviewError::SupersededLineage { .. } => (Conflict, "lineage_superseded"),
            ReviewError::LineageEscalated { .. } => (Conflict, "lineage_escalated"),
            ReviewError::Recover(r) => r.classify(),
            ReviewError::Export(e) => e.classify(),
            ReviewError::NotTerminal { .. } => (RejectedInput, "not_terminal"),
            ReviewError::Policy { .. } => (RejectedInput, "policy_invalid"),
            ReviewError::NotRepresentable { .. } => (RejectedInput, "not_representable"),
            ReviewError::ObjectsMissing { .. } => (Repository, "objects_missing"),
            ReviewError::Chain(_) => (Integrity, "chain_broken"),
            ReviewError::Placement(p) => p.classify(),
            ReviewError::Submission { source, .. } => source.classify(),
            ReviewError::SubmittedDiffers { .. } => (Conflict, "result_differs"),
            ReviewError::PreservedNotAResult { .. } => (RejectedInput, "preserved_result"),
            ReviewError::Preserved { source, .. } => source.classify(),
            ReviewError::Repair(r) => r.classify(),
            ReviewError::Burn(b) => b.classify(),
            ReviewError::Tombstone(_) => (Integrity, "tombstone_unencodable"),
            ReviewError::InputTooLarge { .. } => (RejectedInput, "input_too_large"),
            ReviewError::CommandEvidence(c) => c.classify(),
            ReviewError::ChecksUnmet(_) => (RejectedInput, "checks_unmet"),
            ReviewError::TranscriptsUnmet(_) => (RejectedInput, "transcripts_unmet"),
            ReviewError::ChecksInvalid(_) => (RejectedInput, "policy_invalid"),
            ReviewError::BaseChanged { .. } => (Conflict, "base_changed"),
            ReviewError::Stack(s) => s.classify(),
            ReviewError::NothingUncommitted { .. } => (RejectedInput, "nothing_to_review"),
            ReviewError::CommitNoChange { .. } => (RejectedInput, "no_change"),
        }
    }

    /// Its stable code: [`ReviewError::classify`]'s.
    pub fn code(&self) -> &'static str {
        self.classify().1
    }
}

impl StoreError {
    /// A store write's compare-and-swap, the same in every store: `Ok`
    /// when the revision the store holds for `lineage` (`found`) is the
    /// one the writer derived its write from (`expected`), else
    /// [`StoreError::Conflict`].
    pub fn check_revision(
        lineage: &LineageId,
        expected: Sha256Digest,
        found: Sha256Digest,
    ) -> Result<(), StoreError> {
        if found == expected {
            return Ok(());
        }
        Err(StoreError::Conflict {
            lineage: lineage.clone(),
            expected,
            found,
        })
    }

    /// What a burn refuses besides a stale revision, the same in every
    /// store: a lineage a recovery superseded (its `successor`,
    /// [`StoreError::AlreadySuperseded`]) or is superseding (`pending`,
    /// asked only when there is no successor: [`StoreError::RecoveryPending`]).
    pub fn check_unsuperseded(
        lineage: &LineageId,
        successor: Option<LineageId>,
        pending: impl FnOnce() -> Result<Option<LineageId>, StoreError>,
    ) -> Result<(), StoreError> {
        if let Some(successor) = successor {
            return Err(StoreError::AlreadySuperseded {
                lineage: lineage.clone(),
                successor,
            });
        }
        match pending()? {
            Some(successor) => Err(StoreError::RecoveryPending {
                lineage: lineage.clone(),
                successor,
            }),
            None => Ok(()),
        }
    }

    /// Its stable code and class (issue 25 §5), as [`ReviewError::classify`].
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        use ErrorClass::*;
        match self {
            StoreError::Conflict { .. } => (Conflict, "stale_revision"),
            StoreError::Contention { .. } => (Conflict, "contention"),
            StoreError::Corrupted { .. } | StoreError::Malformed { .. } => {
                (Integrity, "store_corrupted")
            }
            StoreError::Illegal(_) => (RejectedInput, "illegal_transition"),
            StoreError::TargetOwned { .. } => (Conflict, "candidate_owned"),
            StoreError::NotFound(_) => (RejectedInput, "lineage_not_found"),
            StoreError::Consumed { .. } => (RejectedInput, "lineage_consumed"),
            StoreError::Retired { .. } => (RejectedInput, "lineage_retired"),
            StoreError::RecoveryPending { .. } => (Conflict, "recovery_pending"),
            StoreError::AlreadySuperseded { .. } => (Conflict, "already_superseded"),
            StoreError::ResultDiffers { .. } => (Conflict, "result_differs"),
            StoreError::Io { .. } => (Io, "store_io"),
        }
    }
}
