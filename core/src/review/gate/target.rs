//! The decision for one live target (issue 25 §8: `decide_target` split
//! into one decision per kind of authority discovery found). Each decision
//! picks a row of the table in `sentences`, which holds the reason, stage,
//! next move and words it renders. Moved from `gate/mod.rs`; every
//! decision and sentence is unchanged.

use super::sentences::{Said, allow, deny, non_utf8_named, superseded_note};
use super::*;

/// The decision for one live target at any gate: the candidate a commit
/// would record (pre-commit) or the (parent tree, tree) of a delivered
/// commit (pre-push).
pub fn decide_target(gate: Gate, live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    if let Some(allow) = no_change(gate, live) {
        return allow;
    }
    match authority {
        Authority::None { changed_paths } => deny(gate, None, changed_paths, &Said::NoAuthority),
        Authority::NonUtf8 { changed_paths } => deny(
            gate,
            None,
            changed_paths,
            &Said::NonUtf8 {
                gate,
                named: non_utf8_named(changed_paths),
            },
        ),
        Authority::Exact { state, .. } if state.final_target() != live.target => deny(
            gate,
            Some(&state.lineage_id),
            &[],
            &Said::OtherTarget {
                lineage: &state.lineage_id,
                candidate_tree: &live.candidate_tree,
            },
        ),
        Authority::Exact {
            state,
            superseded_by: Some(leaf),
            ..
        } => deny(
            gate,
            Some(&state.lineage_id),
            &[],
            &Said::Superseded {
                lineage: &state.lineage_id,
                leaf,
            },
        ),
        Authority::Exact {
            state,
            receipt_file,
            superseded_by: None,
        } => exact(gate, state, receipt_file),
        Authority::Rebased {
            state,
            superseded_by: Some(leaf),
            ..
        } => deny(
            gate,
            Some(&state.lineage_id),
            &[],
            &Said::RebasedSuperseded {
                lineage: &state.lineage_id,
                leaf,
            },
        ),
        Authority::Rebased {
            state,
            receipt_file,
            superseded_by: None,
            check,
        } => rebased(gate, live, state, receipt_file, check),
        Authority::Prior {
            state,
            differing_paths,
            superseded_by,
        } => prior(gate, live, state, differing_paths, superseded_by),
    }
}

/// The exact lineage, by its stage.
fn exact(gate: Gate, state: &ReviewState, receipt_file: Option<&[u8]>) -> GateDecision {
    let lineage = &state.lineage_id;
    let recover = || {
        state
            .record()
            .ok()
            .as_ref()
            .and_then(crate::review::recovery::recover_command)
    };
    let said = match &state.stage {
        Stage::Approved { .. } => {
            return approved(gate, state, receipt_file, None).unwrap_or_else(|| {
                deny(gate, Some(lineage), &[], &Said::ReceiptMismatch { lineage })
            });
        }
        Stage::Escalated { .. } => Said::Escalated {
            lineage,
            recover: recover(),
        },
        Stage::Invalidated { reason } => Said::Invalidated {
            lineage,
            reason,
            recover: recover(),
        },
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. } => Said::Incomplete {
            lineage,
            stage: state.stage.name(),
        },
    };
    deny(gate, Some(lineage), &[], &said)
}

/// The approval carried onto another base (the rebase proof).
fn rebased(
    gate: Gate,
    live: &LiveTarget,
    state: &ReviewState,
    receipt_file: Option<&[u8]>,
    check: &RebaseCheck,
) -> GateDecision {
    let lineage = &state.lineage_id;
    if !matches!(state.stage, Stage::Approved { .. }) {
        // Only an approval is indexed by its delta.
        return deny(
            gate,
            Some(lineage),
            &[],
            &Said::RebasedNotApproved {
                lineage,
                stage: state.stage.name(),
            },
        );
    }
    match check {
        RebaseCheck::Differs(paths) => deny(
            gate,
            Some(lineage),
            paths,
            &Said::RebasedScopeChanged {
                lineage,
                live_base: &live.base_tree,
                receipt_base: &state.snapshot.base_tree,
                paths,
            },
        ),
        RebaseCheck::Proven(proof) => {
            approved(gate, state, receipt_file, Some(Box::new(proof.clone()))).unwrap_or_else(
                || deny(gate, Some(lineage), &[], &Said::ReceiptMismatch { lineage }),
            )
        }
    }
}

/// A rebase proof carries an approval made on another base, and a
/// composition several approvals each made on its own pair: the delivered
/// change, rated by the newest built-in risk policy with everything its
/// two trees hold (`derived`), may rate higher than they ran at when the
/// new base holds what makes the same change riskier (a folder-open task
/// that runs the changed script; red team round 16's 02, D-R171). An allow
/// is kept only when `derived` is at most the highest tier among
/// `approvals`; otherwise the delivery is denied `risk_raised_by_rebase`,
/// naming the last approval's lineage. A denial is returned as it is.
pub fn hold_to_delivered_tier(
    gate: Gate,
    approvals: &[&ReviewState],
    derived: RiskLevel,
    decision: GateDecision,
) -> GateDecision {
    if !rests_on_other_trees(&decision) {
        return decision;
    }
    let Some(last) = approvals.last() else {
        return decision;
    };
    let reviewed = approvals
        .iter()
        .map(|s| s.frozen().risk_level)
        .max_by_key(|l| l.rank())
        .unwrap_or(last.frozen().risk_level);
    if derived.rank() <= reviewed.rank() {
        return decision;
    }
    let lineage = &last.lineage_id;
    let denial = deny(
        gate,
        Some(lineage),
        &[],
        &Said::RiskRaisedOnNewBase {
            gate,
            lineage,
            reviewed: reviewed.name(),
            derived: derived.name(),
        },
    );
    decision.overruled_by(denial)
}

/// Whether `decision` is an allow resting on approvals made on other
/// trees (it carries a proof: a rebase, a composition, a recovery chain),
/// which [`hold_to_delivered_tier`] holds to the delivered change's tier.
pub fn rests_on_other_trees(decision: &GateDecision) -> bool {
    decision.decision == Decision::Allow && decision.proof.is_some()
}

/// An earlier review of this base, and new work on top of it.
fn prior(
    gate: Gate,
    live: &LiveTarget,
    state: &ReviewState,
    differing_paths: &[RepoPath],
    superseded_by: Option<&LineageId>,
) -> GateDecision {
    let lineage = &state.lineage_id;
    let history = &superseded_note(lineage, superseded_by);
    let touches_reviewed = differing_paths
        .iter()
        .any(|p| state.snapshot.paths.binary_search(p).is_ok());
    // The slice is committed when the live base is its final
    // candidate (R8.6); otherwise the live base is its own base.
    let committed = state.snapshot.base_tree != live.base_tree
        && *state.final_candidate_tree() == live.base_tree;
    let said = match (touches_reviewed, superseded_by, committed) {
        (true, _, true) => Said::PriorCommittedScopeChanged { lineage, history },
        (true, _, false) => Said::PriorScopeChanged { lineage, history },
        (false, Some(_), _) => Said::PriorUnrelatedSuperseded { lineage, history },
        (false, None, true) => Said::PriorUnrelatedCommitted { lineage },
        (false, None, false) => Said::PriorUnrelatedUncommitted {
            lineage,
            commit: commit_slice_command(state),
        },
    };
    deny(gate, Some(lineage), differing_paths, &said)
}

/// A target whose candidate tree is its base tree changes no reviewed
/// bytes (a clean worktree at pre-commit; a commit whose tree equals its
/// parent's: a message-only `--amend`, `--allow-empty`): every gate allows
/// it with `no_change`, before any discovery (D-R26). `None` otherwise.
pub fn no_change(gate: Gate, live: &LiveTarget) -> Option<GateDecision> {
    (live.base_tree == live.candidate_tree).then(|| {
        allow(
            gate,
            None,
            &Said::NoChange {
                gate,
                tree: &live.candidate_tree,
            },
        )
    })
}

/// The allow for an approved lineage whose receipt file is the one its
/// state derives; `None` when the file is missing or differs.
fn approved(
    gate: Gate,
    state: &ReviewState,
    receipt_file: Option<&[u8]>,
    proof: Option<Box<GateProof>>,
) -> Option<GateDecision> {
    let derived = Receipt::derive(state).and_then(|r| r.to_bytes().ok())?;
    if Some(&derived[..]) != receipt_file {
        return None;
    }
    let lineage = &state.lineage_id;
    let said = match &proof {
        None => Said::Approved { lineage },
        Some(p) => Said::ApprovedRebased {
            lineage,
            receipt_base: &p.receipt_base,
            live_base: &p.live_base,
        },
    };
    let mut allowed = allow(gate, Some(lineage), &said);
    allowed.proof = proof;
    Some(allowed)
}
