//! What a driver answers when it cannot finish.

use probity_core::digest::Sha256Digest;
use probity_core::review::evidence::CommandEvidenceError;
use probity_core::review::export::ExportError;
use probity_core::review::finding::RoleDocError;
use probity_core::review::gate::StackError;
use probity_core::review::ids::{CommitId, LineageId, RepoPath, TreeId};
use probity_core::review::recovery::{ChainError, RecoverError};
use probity_core::review::snapshot::SnapshotError;
use probity_core::review::state::{PreflightError, StateError, TransitionError};
use probity_core::review::submission::PlacementError;

use super::*;

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
        /// The role document it was read as: `reviewer`, `refuter` or
        /// `validator` (what `probity schema` names).
        role: &'static str,
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
        "lineage {lineage} froze this candidate and was invalidated; a new generation is an audited successor"
    )]
    Invalidated {
        lineage: LineageId,
        /// Its current revision (what a recovery must name).
        revision: Sha256Digest,
    },
    #[error(
        "lineage {lineage} froze (or corrected into) this candidate but is superseded; its recovery chain ends at {leaf}: to review this candidate, recover from {leaf}"
    )]
    SupersededLineage { lineage: LineageId, leaf: LineageId },
    /// A new start would side-step an escalation (issue 8 §5).
    #[error(
        "lineage {lineage} escalated on this base and reviewed {}; a new review of them would open a fresh budget without the maintainer's authorization",
        display_paths(paths)
    )]
    LineageEscalated {
        lineage: LineageId,
        revision: Sha256Digest,
        paths: Vec<RepoPath>,
    },
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
    /// Lens results that do not match the selected lenses by name.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// A submitted result that has nowhere legal to land, or whose binding
    /// is not the one start prepared for its lens.
    #[error("{lineage}: {source}")]
    Submission {
        lineage: LineageId,
        #[source]
        source: PreflightError,
    },
    /// A result given on the command line differs from the one submitted
    /// for the same lens.
    #[error(
        "lineage {lineage} holds a different submitted result for lens `{lens}`; give the same bytes or leave --result out"
    )]
    SubmittedDiffers {
        lineage: LineageId,
        lens: &'static str,
    },
    /// A preserved-result artifact given where a result is taken (R3.6):
    /// it is replayed, never taken as stored.
    #[error(
        "{name} is a preserved-result artifact (schema `probity.preserved-result/v1`), not a lens result"
    )]
    PreservedNotAResult { name: String },
    /// A preserved-result artifact that cannot be replayed here.
    #[error("{name}: {source}")]
    Preserved {
        name: String,
        #[source]
        source: Box<probity_core::review::preserved::PreservedError>,
    },
    /// A repair ceremony refused (R9.4).
    #[error(transparent)]
    Repair(#[from] probity_core::review::repair::RepairError),
    /// A burn refused (R10.5 `consumed`).
    #[error(transparent)]
    Burn(#[from] probity_core::review::repair::BurnError),
    /// A tombstone that could not be encoded (a bug).
    #[error("could not encode the tombstone: {0}")]
    Tombstone(String),
    /// An input document over its documented bound.
    #[error("{name} is larger than the {limit}-byte limit for this document")]
    InputTooLarge { name: String, limit: u64 },
    /// The independent check Probity ran is not evidence.
    #[error(transparent)]
    CommandEvidence(#[from] CommandEvidenceError),
    #[error(
        "HEAD moved since lineage {lineage} froze its base tree {frozen}; a correction must keep the base"
    )]
    BaseChanged { lineage: LineageId, frozen: TreeId },
    /// `start --commit` / `--range`: the commits are no stack a review can
    /// bind commit by commit (a merge, empty, too many).
    #[error(transparent)]
    Stack(#[from] StackError),
    /// `start --commit`: the commit's tree is its parent's; it changes no
    /// bytes, and every gate allows it `no_change`.
    #[error(
        "commit {commit} changes no bytes (its tree is its parent's tree): there is nothing to review, and every gate allows it as `no_change`"
    )]
    CommitNoChange { commit: CommitId },
    /// The release artifacts could not be read (not: they differ).
    #[error("could not read the release artifacts: {0}")]
    Artifacts(#[source] AdapterError),
    /// `start` on a clean worktree: the live candidate equals HEAD. Work
    /// that is already committed is reviewed with `start --commit`.
    #[error(
        "the candidate equals HEAD ({head}): nothing uncommitted to review; to review the change HEAD committed, run `probity start --commit {head}`"
    )]
    NothingUncommitted { head: CommitId },
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
