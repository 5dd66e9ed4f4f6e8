//! Gate decisions (R8): allow, or deny with a machine-readable reason, the
//! observed context needed to diagnose, and the next legal move.
//!
//! This module decides one live target; `push` derives what a
//! publication delivers (pre-push input, ranges, shapes, the combined
//! answer) and `stack` judges a range commit by commit.

use serde::Serialize;

use crate::review::ids::{LineageId, RepoPath};
use crate::review::rebase::{GateProof, RebaseCheck, shell_quote};
use crate::review::receipt::Receipt;
use crate::review::risk::RiskLevel;
use crate::review::snapshot::LiveTarget;
use crate::review::state::{ReviewState, Stage};

mod advice;
#[cfg(test)]
mod discovery_tests;
mod first;
#[cfg(test)]
mod first_tests;
mod push;
#[cfg(test)]
mod push_tests;
mod rebind;
#[cfg(test)]
mod rebind_tests;
mod recheck;
mod refs;
mod sentences;

/// The release gate's and the pre-PR boundary's sentence tables, for
/// `review::release` and `review::pre_pr`.
pub(crate) use sentences::{PrePrSaid, ReleaseSaid, deny as deny_row};
mod stack;
mod target;

#[cfg(test)]
pub(crate) use advice::point_at_escalation;
pub use advice::{
    advice_offered, for_amend, point_at_escalated_change, point_at_open_correction,
    start_blocked_by,
};
pub use first::*;
pub use push::*;
pub use rebind::*;
pub use recheck::*;
pub use refs::*;
pub use stack::*;
pub use target::{decide_target, hold_to_delivered_tier, no_change, rests_on_other_trees};

/// The delivery boundary being crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    /// The candidate a commit would record: worktree and index (R8.2).
    PreCommit,
    /// The commits a push delivers, each range judged commit by commit
    /// (R8.3).
    PrePush,
    /// A delivery against an explicit base, with no fallback (R8.4).
    PrePr,
    /// The exact revision released and its artifacts' digests (R8.5).
    Release,
}

impl Gate {
    /// The kebab-case name used on the command line and in JSON, e.g.
    /// `pre-commit`.
    pub const fn name(self) -> &'static str {
        match self {
            Gate::PreCommit => "pre-commit",
            Gate::PrePush => "pre-push",
            Gate::PrePr => "pre-pr",
            Gate::Release => "release",
        }
    }
}

/// How a lineage relates to the live candidate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Applicability {
    /// The lineage froze exactly the live candidate.
    Current,
    /// The live candidate differs only outside the reviewed paths.
    Unrelated,
    /// The live candidate differs inside the reviewed paths (or their set).
    ScopeChanged,
    /// The lineage's approved change, carried unchanged onto another base
    /// (the rebase proof holds): the gates allow it.
    Rebased,
}

impl Applicability {
    /// How a lineage that reviewed `reviewed` (sorted: its genesis paths)
    /// relates to a live candidate differing from it in `differing`:
    /// scope changed when any differing path is a reviewed one, else
    /// unrelated (R8.6).
    pub fn of_difference(reviewed: &[RepoPath], differing: &[RepoPath]) -> Applicability {
        if differing.iter().any(|p| reviewed.binary_search(p).is_ok()) {
            Applicability::ScopeChanged
        } else {
            Applicability::Unrelated
        }
    }
}

/// How a lineage relates to a live target, with what says so: the paths
/// its final candidate differs in, and the proof when its approved change
/// is carried onto another base. What `status` and `export-context`
/// report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// The classification.
    pub applicability: Applicability,
    /// The paths that differ (empty when current or rebased).
    pub differing_paths: Vec<RepoPath>,
    /// The rebase proof, when rebased.
    pub proof: Option<GateProof>,
}

impl Relation {
    /// The lineage's final target is the live target.
    pub fn current() -> Relation {
        Relation {
            applicability: Applicability::Current,
            differing_paths: Vec::new(),
            proof: None,
        }
    }

    /// A lineage that reviewed `reviewed` and whose final candidate differs
    /// from the live one in `differing` ([`Applicability::of_difference`]).
    pub fn of_difference(reviewed: &[RepoPath], differing: Vec<RepoPath>) -> Relation {
        Relation {
            applicability: Applicability::of_difference(reviewed, &differing),
            differing_paths: differing,
            proof: None,
        }
    }

    /// What the rebase check found for an approved change whose delta the
    /// live target repeats on another base: rebased with its proof, or
    /// scope changed in the paths that differ.
    pub fn of_rebase(check: RebaseCheck) -> Relation {
        match check {
            RebaseCheck::Proven(p) => Relation {
                applicability: Applicability::Rebased,
                differing_paths: Vec::new(),
                proof: Some(p),
            },
            RebaseCheck::Differs(paths) => Relation {
                applicability: Applicability::ScopeChanged,
                differing_paths: paths,
                proof: None,
            },
        }
    }
}

/// The recovery a `status` answer offers from `record`, filled in
/// (`recover_command`): only
/// from a chain's leaf (`superseded` false: history is recovered from its
/// leaf), and from an approved lineage only when the live candidate
/// changed its scope (unrelated work gets its own `start`, and the
/// current candidate needs no recovery).
pub fn offered_recovery(
    record: &crate::review::state::StateRecord,
    superseded: bool,
    applicability: Applicability,
) -> Option<String> {
    if superseded {
        return None;
    }
    let approved = matches!(record.state().stage(), Stage::Approved { .. });
    if approved && applicability != Applicability::ScopeChanged {
        return None;
    }
    crate::review::recovery::recover_command(record)
}

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The delivery may cross the boundary.
    Allow,
    /// It may not: the reason code says why, the next action what to do.
    Deny,
}

/// Why the gate decided as it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// An approved receipt binds exactly the live candidate.
    ReceiptValid,
    /// No review authority exists for this candidate or its base.
    ReceiptMissing,
    /// A reviewed path changed, or the path set changed.
    ReceiptScopeChanged,
    /// New work touches no reviewed path; the old receipt is still valid for
    /// what it approved.
    ReceiptUnrelated,
    /// A review of exactly this candidate exists but is not terminal.
    ReviewIncomplete,
    /// The review of this candidate escalated to a human decision.
    ReviewEscalated,
    /// The review of this candidate was invalidated before any judgment.
    ReviewInvalidated,
    /// The lineage found for this candidate has a successor: history, not
    /// authority.
    ReceiptSuperseded,
    /// The receipt file is missing or differs from the one state derives.
    ReceiptMismatch,
    /// A pushed ref delivers no commit the remote lacks.
    DeliveryEmpty,
    /// A pushed ref delivers more than one commit, or a merge commit: only
    /// one commit whose parent tree is the reviewed base is a delivery.
    DeliveryPartial,
    /// No ref update delivers content (deletions only, or nothing to push).
    NothingDelivered,
    /// A pushed ref does not fast-forward the remote's tip.
    DeliveryNotFastForward,
    /// A pushed ref names something other than a commit.
    DeliveryNotCommit,
    /// pre-pr: the explicit base does not resolve here.
    BaseUnavailable,
    /// pre-pr: the base advanced since the reviewed base, over paths the
    /// delivery changed.
    BaseAdvanced,
    /// release: an artifact is missing or its digest is not the one the
    /// checksums file names.
    ReleaseEvidenceMismatch,
    /// release: an artifact changed while the gate was deciding.
    ReleaseEvidenceChanged,
    /// release: the revision moved to another commit while the gate was
    /// deciding.
    ReleaseRevisionMoved,
    /// The delivery changes no bytes: its tree equals its base tree (a
    /// clean worktree, a message-only `--amend`, `--allow-empty`), so there
    /// is nothing a review could bind (D-R26).
    NoChange,
    /// A pushed ref delivers more commits than a gate judges one by one
    /// ([`MAX_RANGE_COMMITS`]).
    DeliveryTooLarge,
    /// A first publication (a range from a root commit) carries blobs the
    /// tree its whole-history review approved does not hold (R8.8).
    HistoryNotReviewed,
    /// What the gate read changed while it decided (R8.7): run it again.
    AuthorityChanged,
    /// A rebase or a composition proof carries approvals onto a delivered
    /// change the newest built-in risk policy rates higher than they ran
    /// at (D-R171): the delivery needs its own review.
    RiskRaisedByRebase,
}

/// Where in the derivation the decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStage {
    /// Deriving what crosses the boundary (the delivered range).
    Boundary,
    /// Finding the authority for the live target.
    Discovery,
    /// Checking the authority's state and receipt.
    Authority,
    /// Comparing reviewed scope with the live target.
    Scope,
    /// Every check passed.
    Complete,
}

/// The next legal move after a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextAction {
    /// Nothing: the decision is an allow.
    None,
    /// Review the live candidate: `probity start`, the selected lenses,
    /// `probity finalize`.
    StartReview,
    /// Carry the open review of this candidate on: `probity finalize
    /// --lineage <id>` with its next input.
    Finalize,
    /// A maintainer decides whether an escalated review goes on
    /// (`probity recover --disposition escalation_authorized`).
    HumanDecision,
    /// The authority is inconsistent (a receipt file that is not the one
    /// state derives, discovery naming the wrong lineage): rewrite the
    /// receipt or run a repair ceremony (R9.4).
    Repair,
    /// `probity recover` from the named lineage (an audited successor).
    Recover,
    /// Squash the delivered range into one commit of the reviewed candidate.
    Squash,
    /// Check what is being pushed: the range delivers nothing new.
    CheckRange,
    /// Review committed work as committed: `probity start --commit <sha>`
    /// (or `--range <old>..<tip>` for several commits).
    StartCommitReview,
    /// Commit the approved slice on its own first (`git add <reviewed
    /// paths> && git commit`), then review the new work.
    CommitApproved,
    /// Run the same gate again (what it read changed while it decided).
    Retry,
}

/// A gate decision. Its fields are core's, and so are its constructors and
/// rewriters (`overruled_by`, the one way an allow becomes a denial, and
/// `explained`/`prefaced`, which add a sentence, are crate-private):
/// outside this crate a decision is only read through its accessors, so
/// no driver or frontend can make or rewrite what a gate derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateDecision {
    pub(crate) gate: Gate,
    pub(crate) decision: Decision,
    pub(crate) reason_code: ReasonCode,
    pub(crate) stage: GateStage,
    pub(crate) lineage_id: Option<LineageId>,
    pub(crate) differing_paths: Vec<RepoPath>,
    pub(crate) next_action: NextAction,
    /// One sentence for people.
    pub(crate) message: String,
    /// Publication gates: each distinct delivered range and how it was
    /// judged (absent for pre-commit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) deliveries: Vec<DeliveryReport>,
    /// An allow whose live base is not the receipt's names the proof that
    /// carried it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) proof: Option<Box<GateProof>>,
}

impl GateDecision {
    /// The gate that decided.
    pub fn gate(&self) -> Gate {
        self.gate
    }
    /// Allow or deny.
    pub fn decision(&self) -> Decision {
        self.decision
    }
    /// Why.
    pub fn reason_code(&self) -> ReasonCode {
        self.reason_code
    }
    /// Where in the derivation it was decided.
    pub fn stage(&self) -> GateStage {
        self.stage
    }
    /// The lineage it names, if any.
    pub fn lineage_id(&self) -> Option<&LineageId> {
        self.lineage_id.as_ref()
    }
    /// The paths that differ from what was reviewed.
    pub fn differing_paths(&self) -> &[RepoPath] {
        &self.differing_paths
    }
    /// The next legal move.
    pub fn next_action(&self) -> NextAction {
        self.next_action
    }
    /// One sentence for people.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// Publication gates: each delivered range and how it was judged.
    pub fn deliveries(&self) -> &[DeliveryReport] {
        &self.deliveries
    }
    /// The proof that carried an allow on another base, if any.
    pub fn proof(&self) -> Option<&GateProof> {
        self.proof.as_deref()
    }
    /// Whether the answer allows. What a driver may ask before it reads
    /// more (a recheck, an object walk): only an allow is rechecked or
    /// looked at further.
    pub fn allows(&self) -> bool {
        self.decision == Decision::Allow
    }
    /// The lineage whose approval an allow carries by a proof (onto
    /// another base, or along a recovery chain): what delivers the target
    /// when no lineage's final target is the target itself.
    pub fn proven_by(&self) -> Option<&LineageId> {
        match (self.decision, &self.proof) {
            (Decision::Allow, Some(_)) => self.lineage_id.as_ref(),
            _ => None,
        }
    }

    /// The approved reviews an allow composes (a squash of reviewed
    /// commits, `composed_reviews`), first to last; empty otherwise. Each
    /// travels on the squash's note, since none of them alone delivers it.
    pub fn composed_of(&self) -> &[LineageId] {
        match (self.decision, &self.proof) {
            (Decision::Allow, Some(p))
                if p.kind == crate::review::rebase::ProofKind::ComposedReviews =>
            {
                &p.chain
            }
            _ => &[],
        }
    }

    /// The same decision with `note` after its sentence (`{message}; {note}`)
    /// — what a rule here knows that the decision does not (which ancestor
    /// a release stands for, how the base advanced). Nothing else changes.
    /// Core's only: a driver never rewrites a decision.
    pub(crate) fn explained(mut self, note: &str) -> GateDecision {
        self.message = format!("{}; {note}", self.message);
        self
    }

    /// The same decision with `note` before its sentence (`{note}: {message}`).
    pub(crate) fn prefaced(mut self, note: &str) -> GateDecision {
        self.message = format!("{note}: {}", self.message);
        self
    }

    /// An allow of `gate` by `lineage` with `message`, for core's unit
    /// tests only (no code path makes an allow from nothing).
    #[cfg(test)]
    pub(crate) fn allowed_for_tests(gate: Gate, lineage: &str, message: &str) -> GateDecision {
        GateDecision {
            gate,
            decision: Decision::Allow,
            reason_code: ReasonCode::ReceiptValid,
            stage: GateStage::Complete,
            lineage_id: LineageId::parse(lineage).ok(),
            differing_paths: Vec::new(),
            next_action: NextAction::None,
            message: message.into(),
            deliveries: Vec::new(),
            proof: None,
        }
    }

    /// A denial: every denial at every gate is built here.
    pub(crate) fn deny(
        gate: Gate,
        reason_code: ReasonCode,
        stage: GateStage,
        lineage_id: Option<LineageId>,
        differing_paths: Vec<RepoPath>,
        next_action: NextAction,
        message: String,
    ) -> Self {
        GateDecision {
            gate,
            decision: Decision::Deny,
            reason_code,
            stage,
            lineage_id,
            differing_paths,
            next_action,
            message,
            deliveries: Vec::new(),
            proof: None,
        }
    }

    /// This answer overruled by a later check's `denial` (the one way an
    /// allow becomes a denial after it was derived): the denial's reason,
    /// stage, paths, next action and message, with this answer's lineage
    /// and deliveries, so the report still names what was judged. Core's
    /// only, like every constructor: an adapter or a driver can read a
    /// decision, never make or rewrite one.
    pub(crate) fn overruled_by(self, denial: GateDecision) -> GateDecision {
        GateDecision {
            lineage_id: self.lineage_id,
            deliveries: self.deliveries,
            ..denial
        }
    }
}

/// What discovery found for the live target.
#[derive(Debug, Clone, Copy)]
pub enum Authority<'a> {
    /// Nothing for this candidate or its base; the live changed paths.
    None {
        /// The live candidate's changed paths (what a new review would
        /// freeze).
        changed_paths: &'a [RepoPath],
    },
    /// Nothing for this candidate, and a changed path is not UTF-8 (D-R32):
    /// no review can freeze it, so `probity start` refuses the candidate
    /// until the path is renamed or kept out (issue 26 §2).
    NonUtf8 {
        /// The live candidate's changed paths, a non-UTF-8 one escaped
        /// (`\xNN` for each byte that is not UTF-8).
        changed_paths: &'a [RepoPath],
    },
    /// The lineage whose frozen target equals the live target, and the bytes
    /// of its receipt file if there is one.
    Exact {
        /// The lineage's state as loaded.
        state: &'a ReviewState,
        /// Its receipt file's bytes; `None` when there is none.
        receipt_file: Option<&'a [u8]>,
        /// The leaf of the recovery chain that supersedes this lineage, if
        /// any (R9.3).
        superseded_by: Option<&'a LineageId>,
    },
    /// The approved lineage whose change (base to final candidate) has the
    /// same delta identity as the live target's, on another base, and what
    /// the rebase proof found.
    Rebased {
        /// The lineage's state as loaded.
        state: &'a ReviewState,
        /// Its receipt file's bytes; `None` when there is none.
        receipt_file: Option<&'a [u8]>,
        /// The leaf of the recovery chain that supersedes this lineage, if
        /// any.
        superseded_by: Option<&'a LineageId>,
        /// The rebase proof's outcome for the live target.
        check: &'a RebaseCheck,
    },
    /// The latest approved lineage on the same base tree (its slice is not
    /// committed), or the one whose final candidate is the live base (its
    /// slice is committed: R8.6), and the paths in which its final
    /// candidate differs from the live candidate (including paths added or
    /// removed).
    Prior {
        /// The approved lineage's state.
        state: &'a ReviewState,
        /// Sorted paths in which its final candidate and the live
        /// candidate differ.
        differing_paths: &'a [RepoPath],
        /// The leaf of the recovery chain that supersedes this lineage, if
        /// any: its receipt is then history, not a standing approval.
        superseded_by: Option<&'a LineageId>,
    },
}

/// The pre-commit decision (R8.2, R8.6).
///
/// A pure function of what discovery found: the live target (base tree,
/// candidate tree) and the authority for it. The crate documentation
/// drives a review from start to the allow; here, the denial a candidate
/// nobody reviewed gets, with the next legal move:
///
/// ```
/// use probity_core::review::{Authority, Decision, NextAction, ReasonCode, decide_pre_commit};
/// use probity_core::review::{RepoPath, TreeId};
/// use probity_core::review::LiveTarget;
///
/// let live = LiveTarget::new(
///     TreeId::parse("b4ffa93cdbcb161f9005528d69dc3cc646506c3f")?,
///     TreeId::parse("ea87f48da7c3ea941866d92c1795b7dacf2f4ded")?,
/// );
/// let changed = [RepoPath::parse("src/parser.rs")?];
/// let d = decide_pre_commit(&live, Authority::None { changed_paths: &changed });
/// assert_eq!(d.decision(), Decision::Deny);
/// assert_eq!(d.reason_code(), ReasonCode::ReceiptMissing);
/// assert_eq!(d.next_action(), NextAction::StartReview);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decide_pre_commit(live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    decide_target(Gate::PreCommit, live, authority)
}

/// The command that commits exactly an approved slice: its reviewed paths,
/// quoted for a POSIX shell.
pub(crate) fn commit_slice_command(state: &ReviewState) -> String {
    let paths: Vec<String> = state
        .snapshot
        .paths
        .iter()
        .map(|p| shell_quote(p.as_str()))
        .collect();
    format!("git add -- {} && git commit", paths.join(" "))
}
