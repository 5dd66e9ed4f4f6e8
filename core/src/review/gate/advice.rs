//! Advice on a denial: a gate denial whose next step would be "start a
//! review" names the lineage that must go on instead (an open correction,
//! an escalation over the same paths). Decisions are rewritten after they
//! were derived only in core: here, by `GateDecision::overruled_by`, and by
//! the release and pre-PR sentences (`release::releasing_ancestor`,
//! `pre_pr::explain_advance`).

use crate::review::gate::GateDecision;
use crate::review::gate::sentences::AdviceSaid;
#[cfg(test)]
use crate::review::recovery::escalation_overlap;
use crate::review::recovery::recover_command;
use crate::review::state::StateRecord;

/// Whether a decision is one the advice here may rewrite: a denial whose
/// next step is "start a review". The driver asks this before it looks up
/// open corrections and escalations.
pub fn advice_offered(decision: &GateDecision) -> bool {
    use crate::review::gate::{Decision, NextAction};
    decision.decision == Decision::Deny && decision.next_action == NextAction::StartReview
}

/// During an open correction the right next step is the correction, not a
/// new review: a gate denial whose advice is "start a review" and whose
/// differing paths touch the genesis paths of a lineage in
/// `correction_required` on the live base (`open`, as the store lists them)
/// names that correction's next inputs instead (a `start` over those paths
/// is refused with `correction_open`, D-R13). Any other decision is
/// returned as it is.
pub fn point_at_open_correction(
    decision: GateDecision,
    open: &[crate::review::state::ReviewState],
) -> GateDecision {
    use crate::review::state::Stage;
    if !advice_offered(&decision) {
        return decision;
    }
    let Some(open) = open.iter().find(|s| {
        matches!(
            s.stage,
            Stage::CorrectionRequired { .. } | Stage::Correcting { .. }
        ) && decision
            .differing_paths
            .iter()
            .any(|p| s.snapshot.paths.binary_search(p).is_ok())
    }) else {
        return decision;
    };
    advised(
        decision,
        &AdviceSaid::OpenCorrection {
            lineage: &open.lineage_id,
        },
    )
}

/// A gate denial whose advice is "start a review" over paths an escalated
/// lineage on the same base reviewed names that lineage's authorized
/// recovery instead (such a start is refused with `lineage_escalated`).
/// `escalated` pairs each record with whether it is superseded. Any other
/// decision is returned as it is.
#[cfg(test)]
pub(crate) fn point_at_escalation(
    decision: GateDecision,
    base: &crate::review::ids::TreeId,
    escalated: &[(StateRecord, bool)],
) -> GateDecision {
    if !advice_offered(&decision) {
        return decision;
    }
    let found = escalated.iter().find_map(|(r, superseded)| {
        let overlap = escalation_overlap(&r.state, *superseded, base, &decision.differing_paths);
        if overlap.is_empty() {
            return None;
        }
        recover_command(r).map(|cmd| (r, cmd))
    });
    recovery_advised(decision, found)
}

/// `decision` naming the authorized recovery `found` names (the escalated
/// lineage's record and its recover command); `decision` as it was
/// without one.
fn recovery_advised(decision: GateDecision, found: Option<(&StateRecord, String)>) -> GateDecision {
    let Some((record, cmd)) = found else {
        return decision;
    };
    advised(
        decision,
        &AdviceSaid::Escalated {
            lineage: &record.state.lineage_id,
            recover: &cmd,
        },
    )
}

/// `point_at_escalation` keyed on the escalated change itself (issue 21
/// §8): a "start a review" denial of a live candidate on `base` whose
/// entries `live` (restricted to the decision's differing paths) cover an
/// escalated change ([`crate::review::recovery::escalation_covers`]), on
/// its base or a moved one, names that lineage's authorized recovery.
pub fn point_at_escalated_change(
    decision: GateDecision,
    base: &crate::review::ids::TreeId,
    live: &[crate::review::rebase::DeltaEntry],
    escalated: &[crate::review::recovery::EscalatedChange],
) -> GateDecision {
    if !advice_offered(&decision) {
        return decision;
    }
    let entries: Vec<_> = live
        .iter()
        .filter(|e| decision.differing_paths.contains(&e.path))
        .cloned()
        .collect();
    let found = escalated.iter().find_map(|change| {
        let covered = crate::review::recovery::escalation_covers(change, base, &entries);
        if covered.is_empty() {
            return None;
        }
        recover_command(&change.record).map(|cmd| (&change.record, cmd))
    });
    recovery_advised(decision, found)
}

/// When no lineage applies to the live candidate, whether a "start a
/// review" would be refused and the pre-commit gate's `decision` names the
/// lineage to go on with instead (an open correction on these paths, an
/// escalation of this change): `status` then gives that way on, not a
/// start (issue 21 §8). `None` for any other decision.
pub fn start_blocked_by(decision: &GateDecision) -> Option<&crate::review::ids::LineageId> {
    use crate::review::gate::{Decision, NextAction};
    if decision.decision != Decision::Deny {
        return None;
    }
    match decision.next_action {
        NextAction::Finalize | NextAction::HumanDecision => decision.lineage_id.as_ref(),
        NextAction::None
        | NextAction::StartReview
        | NextAction::Repair
        | NextAction::Recover
        | NextAction::Squash
        | NextAction::CheckRange
        | NextAction::StartCommitReview
        | NextAction::CommitApproved
        | NextAction::Retry => None,
    }
}

/// A pre-commit denial during `git commit --amend` (issue 26 §5): the
/// amended commit delivers HEAD's parent's tree → the index, which is what
/// pre-push judges; `probity start` reviews HEAD → the worktree instead, a
/// review pre-push does not accept for the amended commit. A denial whose
/// advice is "start a review" names the sequence that reviews what the
/// amend delivers: take HEAD back (its changes stay staged), review, then
/// commit with HEAD's message. Any other decision is returned as it is.
pub fn for_amend(decision: GateDecision) -> GateDecision {
    if !advice_offered(&decision) {
        return decision;
    }
    advised(decision, &AdviceSaid::Amend)
}

/// `decision` with the advice `said` (a row of the sentence table): the
/// lineage and next move the advice names, when it names them, and its
/// sentence; the reason and stage stay the denial's.
fn advised(mut decision: GateDecision, said: &AdviceSaid<'_>) -> GateDecision {
    if let Some(lineage) = said.lineage() {
        decision.lineage_id = Some(lineage.clone());
    }
    if let Some(next) = said.next_action() {
        decision.next_action = next;
    }
    decision.message = said.sentence();
    decision
}
