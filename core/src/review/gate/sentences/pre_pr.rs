//! The sentences of the pre-PR boundary's own decisions
//! (`review/pre_pr.rs`, R8.4): a base that is not there, a proposal with
//! no history on it, and a base that advanced over delivered paths.

use super::Row;
use crate::review::gate::{GateStage, NextAction, ReasonCode};
use crate::review::ids::CommitId;

/// One outcome of the pre-PR boundary, with what its sentence names.
pub(crate) enum PrePrSaid<'a> {
    /// The base does not resolve.
    BaseUnavailable { base: &'a str },
    /// The delivery commit has no parent.
    UnrelatedHistory { commit: &'a CommitId },
    /// The base advanced over paths the proposal changes.
    BaseAdvanced {
        reviewed_base: &'a CommitId,
        base_tip: &'a CommitId,
    },
}

impl Row for PrePrSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use NextAction::{CheckRange, StartReview};
        // Every pre-PR decision is the boundary's.
        let (reason, next) = match self {
            PrePrSaid::BaseUnavailable { .. } => (ReasonCode::BaseUnavailable, CheckRange),
            PrePrSaid::UnrelatedHistory { .. } => (ReasonCode::DeliveryPartial, CheckRange),
            PrePrSaid::BaseAdvanced { .. } => (ReasonCode::BaseAdvanced, StartReview),
        };
        (reason, GateStage::Boundary, next)
    }

    fn sentence(&self) -> String {
        match self {
            PrePrSaid::BaseUnavailable { base } => format!(
                "the base `{base}` is not available here: fetch it (for a fork, from the upstream the proposal targets) and name it exactly; the gate never falls back to another base"
            ),
            PrePrSaid::UnrelatedHistory { commit } => format!(
                "{commit} has no parent: the proposal shares no history with its base; build it on the base and review it there"
            ),
            PrePrSaid::BaseAdvanced {
                reviewed_base,
                base_tip,
            } => format!(
                "the base advanced from {reviewed_base} to {base_tip} over paths the proposal changes: the merge result was never reviewed; rebase the proposal onto it (`git rebase {base_tip}`) and review the rebased commits as committed (`probity start --range {base_tip}..HEAD`)"
            ),
        }
    }
}
