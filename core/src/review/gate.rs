//! Gate decisions (R8): allow, or deny with a machine-readable reason, the
//! observed context needed to diagnose, and the next legal move.

use serde::Serialize;

use crate::review::ids::{LineageId, RepoPath};
use crate::review::receipt::Receipt;
use crate::review::snapshot::LiveTarget;
use crate::review::state::{ReviewState, Stage};

/// The delivery boundary being crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    PreCommit,
    PrePush,
    PrePr,
    Release,
}

impl Gate {
    pub const fn name(self) -> &'static str {
        match self {
            Gate::PreCommit => "pre-commit",
            Gate::PrePush => "pre-push",
            Gate::PrePr => "pre-pr",
            Gate::Release => "release",
        }
    }
}

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
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
    /// The receipt file is missing or differs from the one state derives.
    ReceiptMismatch,
}

/// Where in the derivation the decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStage {
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
    None,
    StartReview,
    Finalize,
    HumanDecision,
    Repair,
}

/// A gate decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateDecision {
    pub gate: Gate,
    pub decision: Decision,
    pub reason_code: ReasonCode,
    pub stage: GateStage,
    pub lineage_id: Option<LineageId>,
    pub differing_paths: Vec<RepoPath>,
    pub next_action: NextAction,
    /// One sentence for people.
    pub message: String,
}

/// What discovery found for the live target.
#[derive(Debug, Clone, Copy)]
pub enum Authority<'a> {
    /// Nothing for this candidate or its base; the live changed paths.
    None { changed_paths: &'a [RepoPath] },
    /// The lineage whose frozen target equals the live target, and the bytes
    /// of its receipt file if there is one.
    Exact {
        state: &'a ReviewState,
        receipt_file: Option<&'a [u8]>,
    },
    /// The latest approved lineage on the same base tree, and the paths in
    /// which its final candidate differs from the live candidate (including
    /// paths added or removed).
    Prior {
        state: &'a ReviewState,
        differing_paths: &'a [RepoPath],
    },
}

/// The pre-commit decision (R8.2, R8.6).
pub fn decide_pre_commit(live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    let gate = Gate::PreCommit;
    let deny = |reason_code,
                stage,
                lineage: Option<&LineageId>,
                differing: Vec<RepoPath>,
                next,
                message: String| {
        GateDecision {
            gate,
            decision: Decision::Deny,
            reason_code,
            stage,
            lineage_id: lineage.cloned(),
            differing_paths: differing,
            next_action: next,
            message,
        }
    };
    match authority {
        Authority::None { changed_paths } => deny(
            ReasonCode::ReceiptMissing,
            GateStage::Discovery,
            None,
            changed_paths.to_vec(),
            NextAction::StartReview,
            "no review authority exists for this candidate: run `probity start`, the selected lenses, and `probity finalize`".into(),
        ),
        Authority::Exact { state, .. } if state.final_target() != live.target => deny(
            ReasonCode::ReceiptMismatch,
            GateStage::Discovery,
            Some(&state.lineage_id),
            Vec::new(),
            NextAction::Repair,
            format!(
                "discovery returned {}, which froze another target than the live candidate {}",
                state.lineage_id, live.candidate_tree
            ),
        ),
        Authority::Exact { state, receipt_file } => {
            let lineage = Some(&state.lineage_id);
            match &state.stage {
                Stage::Approved { .. } => {
                    let derived = Receipt::derive(state).and_then(|r| r.to_bytes().ok());
                    match (derived, receipt_file) {
                        (Some(d), Some(f)) if d == f => GateDecision {
                            gate,
                            decision: Decision::Allow,
                            reason_code: ReasonCode::ReceiptValid,
                            stage: GateStage::Complete,
                            lineage_id: lineage.cloned(),
                            differing_paths: Vec::new(),
                            next_action: NextAction::None,
                            message: format!(
                                "the live candidate is exactly what {} approved",
                                state.lineage_id
                            ),
                        },
                        _ => deny(
                            ReasonCode::ReceiptMismatch,
                            GateStage::Authority,
                            lineage,
                            Vec::new(),
                            NextAction::Repair,
                            format!(
                                "the receipt file of {} is missing or differs from the receipt its state derives; the state wins, so re-run `probity finalize` to rewrite it",
                                state.lineage_id
                            ),
                        ),
                    }
                }
                Stage::Escalated { .. } => deny(
                    ReasonCode::ReviewEscalated,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::HumanDecision,
                    format!(
                        "review {} escalated: a human decision is needed; this build records none, so revise the candidate and start a new review",
                        state.lineage_id
                    ),
                ),
                Stage::Reviewing { .. } | Stage::CorrectionRequired { .. } | Stage::Validating { .. } => deny(
                    ReasonCode::ReviewIncomplete,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::Finalize,
                    format!(
                        "review {} of this candidate is `{}`: finish it with `probity finalize`",
                        state.lineage_id,
                        state.stage.name()
                    ),
                ),
            }
        }
        Authority::Prior { state, differing_paths } => {
            let touches_reviewed =
                differing_paths.iter().any(|p| state.snapshot.paths.binary_search(p).is_ok());
            if touches_reviewed {
                deny(
                    ReasonCode::ReceiptScopeChanged,
                    GateStage::Scope,
                    Some(&state.lineage_id),
                    differing_paths.to_vec(),
                    NextAction::StartReview,
                    format!(
                        "the candidate changed inside the scope {} reviewed: review the changed candidate with `probity start`",
                        state.lineage_id
                    ),
                )
            } else {
                deny(
                    ReasonCode::ReceiptUnrelated,
                    GateStage::Scope,
                    Some(&state.lineage_id),
                    differing_paths.to_vec(),
                    NextAction::StartReview,
                    format!(
                        "new work touches no path {} reviewed (its receipt still holds for what it approved): review the new work with `probity start`",
                        state.lineage_id
                    ),
                )
            }
        }
    }
}
