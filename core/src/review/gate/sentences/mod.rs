//! The sentences of the gate's decisions, in tables (issue 25 §8). Each
//! table names the outcomes of one deciding module, one row per outcome,
//! and holds everything a row renders: the machine reason, the stage, the
//! next legal move and the words for people. The deciding functions only
//! pick a row and fill in what it names, so each reason's words live here
//! and nowhere else.

use super::{Decision, Gate, GateDecision, GateStage, NextAction, ReasonCode};
use crate::review::ids::{LineageId, RepoPath};

mod advice;
mod first;
mod push;
mod rebind;
mod recheck;
mod stack;
mod target;

pub(super) use advice::AdviceSaid;
pub(super) use first::{FirstSaid, HistoryOffered};
pub(super) use push::PushSaid;
pub(super) use rebind::RebindSaid;
pub(super) use recheck::RecheckSaid;
pub(super) use stack::{CommitSaid, Place, StackSaid};
pub(super) use target::{Said, non_utf8_named, superseded_note};

/// The refs a delivery's sentence names, as one list.
fn refs_named(refs: &[String]) -> String {
    refs.join(", ")
}

/// A row of a sentence table: one outcome of a gate decision.
pub(super) trait Row {
    /// The machine reason, the stage and the next legal move of this
    /// outcome.
    fn row(&self) -> (ReasonCode, GateStage, NextAction);
    /// The sentence for people.
    fn sentence(&self) -> String;
}

/// A denial at `gate`: the row `said` of a sentence table, naming
/// `lineage` and `differing`.
pub(super) fn deny(
    gate: Gate,
    lineage: Option<&LineageId>,
    differing: &[RepoPath],
    said: &impl Row,
) -> GateDecision {
    let (reason_code, stage, next) = said.row();
    GateDecision::deny(
        gate,
        reason_code,
        stage,
        lineage.cloned(),
        differing.to_vec(),
        next,
        said.sentence(),
    )
}

/// An allow at `gate`: the row `said` of a sentence table, naming
/// `lineage` (the proof, if any, is the caller's to add).
pub(super) fn allow(gate: Gate, lineage: Option<&LineageId>, said: &impl Row) -> GateDecision {
    let (reason_code, stage, next_action) = said.row();
    GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code,
        stage,
        lineage_id: lineage.cloned(),
        differing_paths: Vec::new(),
        next_action,
        message: said.sentence(),
        deliveries: Vec::new(),
        proof: None,
    }
}
