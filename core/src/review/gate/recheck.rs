//! R8.7, the final recheck (TOCTOU).
//!
//! A gate derives its answer from several reads: records, supersession
//! markers, receipts, Git's trees and refs. A writer may change any of them
//! while the gate derives. So after the full derivation, an allow is checked
//! once more: under each lineage's lock, every record the derivation read is
//! reloaded and must be at the same revision, with the same successor (none
//! for a leaf), the same pending recovery and the same receipt bytes; and
//! every index lookup must answer the same lineages; the target and
//! refs the gate resolved must resolve the same. Any change
//! denies (`authority_changed`): the gate is run again, never answered from
//! a mix of old and new reads. A denial needs no recheck (it never grants).

use crate::review::ids::LineageId;

use super::sentences::{RecheckSaid, deny};
use super::{Decision, GateDecision};

/// What the final recheck found different from what the derivation read
/// (its words, `Display`, are in the sentence table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    /// The record is at another revision (or gone, or new).
    Record(LineageId),
    /// A recovery superseded the lineage, or a pending one appeared or went.
    Successor(LineageId),
    /// The receipt file's bytes changed.
    Receipt(LineageId),
    /// The live target (the candidate, or the index being committed)
    /// resolves to other trees.
    Target,
    /// A revision the gate resolved now names another commit.
    Revision(String),
    /// An index lookup of the store (target, base, final tree, delta, open
    /// corrections, escalations) now answers another lineage, or none.
    Index(String),
}

/// The answer after the final recheck: `decision` itself when it is a
/// denial or nothing moved; otherwise a denial, `authority_changed`.
pub fn final_recheck(decision: GateDecision, moved: &[Moved]) -> GateDecision {
    if decision.decision != Decision::Allow || moved.is_empty() {
        return decision;
    }
    let said = RecheckSaid::AuthorityChanged { moved };
    deny(decision.gate, decision.lineage_id.as_ref(), &[], &said)
}

#[cfg(test)]
mod tests {
    use super::super::{Gate, GateStage, NextAction, ReasonCode};
    use super::*;

    fn allow() -> GateDecision {
        GateDecision::allowed_for_tests(Gate::PreCommit, "review-0123456789abcdef", "exactly")
    }

    #[test]
    fn nothing_moved_keeps_the_answer_and_anything_moved_denies_an_allow() {
        assert_eq!(final_recheck(allow(), &[]), allow());
        let l = LineageId::parse("review-0123456789abcdef").unwrap();
        let d = final_recheck(allow(), &[Moved::Successor(l.clone()), Moved::Target]);
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, ReasonCode::AuthorityChanged);
        assert_eq!(d.next_action, NextAction::Retry);
        assert_eq!(d.lineage_id, Some(l));
        assert!(d.message.contains("a recovery of review-0123456789abcdef"));
        assert!(d.message.contains("the live target changed"));
    }

    #[test]
    fn a_denial_is_never_rechecked() {
        let deny = GateDecision::deny(
            Gate::PrePush,
            ReasonCode::ReceiptMissing,
            GateStage::Discovery,
            None,
            Vec::new(),
            NextAction::StartReview,
            "none".into(),
        );
        assert_eq!(final_recheck(deny.clone(), &[Moved::Target]), deny);
    }
}
