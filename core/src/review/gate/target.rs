//! The decision for one live target (issue 25 §8: `decide_target` split
//! into one decision per kind of authority discovery found; the sentences
//! each renders are beside it). Moved from `gate/mod.rs`; every decision
//! and sentence is unchanged.

use super::*;

/// The decision for one live target at any gate: the candidate a commit
/// would record (pre-commit) or the (parent tree, tree) of a delivered
/// commit (pre-push).
pub fn decide_target(gate: Gate, live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    if let Some(allow) = no_change(gate, live) {
        return allow;
    }
    match authority {
        Authority::None { changed_paths } => no_authority(gate, changed_paths),
        Authority::NonUtf8 { changed_paths } => non_utf8(gate, changed_paths),
        Authority::Exact { state, .. } if state.final_target() != live.target => {
            other_target(gate, live, state)
        }
        Authority::Exact {
            state,
            superseded_by: Some(leaf),
            ..
        } => superseded(gate, state, leaf),
        Authority::Exact {
            state,
            receipt_file,
            superseded_by: None,
        } => exact(gate, state, receipt_file),
        Authority::Rebased {
            state,
            superseded_by: Some(leaf),
            ..
        } => rebased_superseded(gate, state, leaf),
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

/// A denial at `gate`.
fn deny(
    gate: Gate,
    reason_code: ReasonCode,
    stage: GateStage,
    lineage: Option<&LineageId>,
    differing: Vec<RepoPath>,
    next: NextAction,
    message: String,
) -> GateDecision {
    GateDecision::deny(
        gate,
        reason_code,
        stage,
        lineage.cloned(),
        differing,
        next,
        message,
    )
}

/// No authority for this candidate or its base.
fn no_authority(gate: Gate, changed_paths: &[RepoPath]) -> GateDecision {
    deny(
        gate,
        ReasonCode::ReceiptMissing,
        GateStage::Discovery,
        None,
        changed_paths.to_vec(),
        NextAction::StartReview,
        "no review authority exists for this candidate: run `probity start`, the selected lenses, and `probity finalize`".into(),
    )
}

/// No authority, and a changed path is not UTF-8 (D-R32).
fn non_utf8(gate: Gate, changed_paths: &[RepoPath]) -> GateDecision {
    deny(
        gate,
        ReasonCode::ReceiptMissing,
        GateStage::Discovery,
        None,
        changed_paths.to_vec(),
        if gate == Gate::PreCommit {
            NextAction::StartReview
        } else {
            NextAction::StartCommitReview
        },
        non_utf8_sentence(gate, changed_paths),
    )
}

/// Discovery named a lineage that froze another target.
fn other_target(gate: Gate, live: &LiveTarget, state: &ReviewState) -> GateDecision {
    deny(
        gate,
        ReasonCode::ReceiptMismatch,
        GateStage::Discovery,
        Some(&state.lineage_id),
        Vec::new(),
        NextAction::Repair,
        format!(
            "discovery returned {}, which froze another target than the live candidate {}",
            state.lineage_id, live.candidate_tree
        ),
    )
}

/// The exact lineage is superseded: history, not authority.
fn superseded(gate: Gate, state: &ReviewState, leaf: &LineageId) -> GateDecision {
    deny(
        gate,
        ReasonCode::ReceiptSuperseded,
        GateStage::Authority,
        Some(&state.lineage_id),
        Vec::new(),
        NextAction::Recover,
        format!(
            "{} is superseded (its recovery chain ends at {leaf}): history, not authority; `probity status --lineage {leaf}` gives the leaf's next step: while it is in review, finish that review (what it approves on top of this candidate is then published with it); once it is approved or escalated, it prints the recover command that reviews this candidate again; a consumed leaf (`lineage_consumed`) authorizes nothing more",
            state.lineage_id
        ),
    )
}

/// The exact lineage, by its stage.
fn exact(gate: Gate, state: &ReviewState, receipt_file: Option<&[u8]>) -> GateDecision {
    let lineage = Some(&state.lineage_id);
    match &state.stage {
        Stage::Approved { .. } => approved(gate, state, receipt_file, None).unwrap_or_else(|| {
            deny(
                gate,
                ReasonCode::ReceiptMismatch,
                GateStage::Authority,
                lineage,
                Vec::new(),
                NextAction::Repair,
                receipt_mismatch(state),
            )
        }),
        Stage::Escalated { .. } => deny(
            gate,
            ReasonCode::ReviewEscalated,
            GateStage::Authority,
            lineage,
            Vec::new(),
            NextAction::HumanDecision,
            match state
                .record()
                .ok()
                .as_ref()
                .and_then(crate::review::recovery::recover_command)
            {
                Some(cmd) => format!(
                    "review {} escalated: a maintainer decides whether it goes on: `{cmd}` ({})",
                    state.lineage_id,
                    crate::review::recovery::PERSON_VALUES
                ),
                None => format!(
                    "review {} escalated: a maintainer decides whether it goes on (`probity status --lineage {}`)",
                    state.lineage_id, state.lineage_id
                ),
            },
        ),
        Stage::Invalidated { reason } => deny(
            gate,
            ReasonCode::ReviewInvalidated,
            GateStage::Authority,
            lineage,
            Vec::new(),
            NextAction::Recover,
            match state
                .record()
                .ok()
                .as_ref()
                .and_then(crate::review::recovery::recover_command)
            {
                Some(cmd) => format!(
                    "review {} of this candidate was invalidated ({reason}): start its successor with `{cmd}` ({})",
                    state.lineage_id,
                    crate::review::recovery::PERSON_VALUES
                ),
                None => format!(
                    "review {} of this candidate was invalidated ({reason}): `probity status --lineage {}` names its successor's recover command",
                    state.lineage_id, state.lineage_id
                ),
            },
        ),
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. } => deny(
            gate,
            ReasonCode::ReviewIncomplete,
            GateStage::Authority,
            lineage,
            Vec::new(),
            NextAction::Finalize,
            format!(
                "review {} of this candidate is `{}`: finish it with `probity finalize --lineage {}` (`probity status --lineage {} --next-transition` names the next input)",
                state.lineage_id,
                state.stage.name(),
                state.lineage_id,
                state.lineage_id
            ),
        ),
    }
}

/// The approval carried onto another base, from a superseded lineage.
fn rebased_superseded(gate: Gate, state: &ReviewState, leaf: &LineageId) -> GateDecision {
    deny(
        gate,
        ReasonCode::ReceiptSuperseded,
        GateStage::Authority,
        Some(&state.lineage_id),
        Vec::new(),
        NextAction::Recover,
        format!(
            "the live candidate is the change {} approved, carried onto another base, but {} is superseded (its recovery chain ends at {leaf}): history, not authority; recover from {leaf} (`probity status --lineage {leaf}`)",
            state.lineage_id, state.lineage_id
        ),
    )
}

/// The approval carried onto another base (the rebase proof).
fn rebased(
    gate: Gate,
    live: &LiveTarget,
    state: &ReviewState,
    receipt_file: Option<&[u8]>,
    check: &RebaseCheck,
) -> GateDecision {
    let lineage = Some(&state.lineage_id);
    if !matches!(state.stage, Stage::Approved { .. }) {
        // Only an approval is indexed by its delta.
        return deny(
            gate,
            ReasonCode::ReceiptMismatch,
            GateStage::Discovery,
            lineage,
            Vec::new(),
            NextAction::Repair,
            format!(
                "discovery by delta identity returned {}, which is `{}`, not approved",
                state.lineage_id,
                state.stage.name()
            ),
        );
    }
    match check {
        RebaseCheck::Differs(paths) => deny(
            gate,
            ReasonCode::ReceiptScopeChanged,
            GateStage::Scope,
            lineage,
            paths.clone(),
            NextAction::StartReview,
            format!(
                "the live candidate sits on base tree {} while {} approved its change on {}, and these paths differ from what it approved: {}; the result on the new base was never reviewed: review it with `probity start`",
                live.base_tree,
                state.lineage_id,
                state.snapshot.base_tree,
                join_paths(paths)
            ),
        ),
        RebaseCheck::Proven(proof) => {
            approved(gate, state, receipt_file, Some(Box::new(proof.clone()))).unwrap_or_else(
                || {
                    deny(
                        gate,
                        ReasonCode::ReceiptMismatch,
                        GateStage::Authority,
                        lineage,
                        Vec::new(),
                        NextAction::Repair,
                        receipt_mismatch(state),
                    )
                },
            )
        }
    }
}

/// An earlier review of this base, and new work on top of it.
fn prior(
    gate: Gate,
    live: &LiveTarget,
    state: &ReviewState,
    differing_paths: &[RepoPath],
    superseded_by: Option<&LineageId>,
) -> GateDecision {
    let history = superseded_by.map_or_else(String::new, |leaf| {
        format!(
            " ({} is superseded; its chain ends at {leaf})",
            state.lineage_id
        )
    });
    let touches_reviewed = differing_paths
        .iter()
        .any(|p| state.snapshot.paths.binary_search(p).is_ok());
    // The slice is committed when the live base is its final
    // candidate (R8.6); otherwise the live base is its own base.
    let committed = state.snapshot.base_tree != live.base_tree
        && *state.final_candidate_tree() == live.base_tree;
    if touches_reviewed {
        deny(
            gate,
            ReasonCode::ReceiptScopeChanged,
            GateStage::Scope,
            Some(&state.lineage_id),
            differing_paths.to_vec(),
            NextAction::StartReview,
            if committed {
                format!(
                    "the new work on top of the committed slice {} approved changes paths it reviewed{history}: review the new work with `probity start`",
                    state.lineage_id
                )
            } else {
                format!(
                    "the candidate changed inside the scope {} reviewed{history}: review the changed candidate with `probity start`",
                    state.lineage_id
                )
            },
        )
    } else {
        let (next, message) = match (superseded_by, committed) {
            (Some(_), _) => (
                NextAction::StartReview,
                format!(
                    "new work touches no path {} reviewed{history}: review the new work with `probity start`",
                    state.lineage_id
                ),
            ),
            (None, true) => (
                NextAction::StartReview,
                format!(
                    "new work on top of the committed slice {} approved touches no path it reviewed (its receipt still holds for what it approved): review the new work with `probity start`",
                    state.lineage_id
                ),
            ),
            (None, false) => (
                NextAction::CommitApproved,
                format!(
                    "new work touches no path {} reviewed (its receipt still holds for what it approved, which is not committed yet): commit the approved slice first (`{}`), then review the new work with `probity start`",
                    state.lineage_id,
                    commit_slice_command(state)
                ),
            ),
        };
        deny(
            gate,
            ReasonCode::ReceiptUnrelated,
            GateStage::Scope,
            Some(&state.lineage_id),
            differing_paths.to_vec(),
            next,
            message,
        )
    }
}

/// The denial of a candidate with a path that is not UTF-8: which path
/// (the changed paths git names with a `\xNN` escape) and the way out,
/// before the review a start then takes.
fn non_utf8_sentence(gate: Gate, changed_paths: &[RepoPath]) -> String {
    let escaped: Vec<&str> = changed_paths
        .iter()
        .map(RepoPath::as_str)
        .filter(|p| p.contains("\\x"))
        .collect();
    let named = if escaped.is_empty() {
        "a changed path".to_string()
    } else {
        escaped.join(", ")
    };
    if gate != Gate::PreCommit {
        // Committed work: the name is in the commit, so the way out is
        // there too (issue 26 §2).
        return format!(
            "no review covers this commit, and a review of it as committed is refused (`path_not_utf8`): {named} is not UTF-8 (shown with \\xNN escapes); rename it in the commit (`git mv` to a UTF-8 name, then `git commit --amend --no-edit`; in an older commit of a stack, `git rebase -i`), then review the commit with `probity start --commit HEAD`, the selected lenses and `probity finalize`, and push again"
        );
    }
    format!(
        "no review authority exists for this candidate, and `probity start` refuses it (`path_not_utf8`): {named} is not UTF-8 (shown with \\xNN escapes); rename it to a UTF-8 name (`git mv` if it is tracked) or keep it out of the candidate (untracked: add it to .git/info/exclude), then review with `probity start`, the selected lenses, and `probity finalize`"
    )
}

/// A target whose candidate tree is its base tree changes no reviewed
/// bytes (a clean worktree at pre-commit; a commit whose tree equals its
/// parent's: a message-only `--amend`, `--allow-empty`): every gate allows
/// it with `no_change`, before any discovery (D-R26). `None` otherwise.
pub fn no_change(gate: Gate, live: &LiveTarget) -> Option<GateDecision> {
    (live.base_tree == live.candidate_tree).then(|| GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code: ReasonCode::NoChange,
        stage: GateStage::Complete,
        lineage_id: None,
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message: format!(
            "the {} delivery changes no bytes (its tree {} is its base tree): there is nothing to review",
            gate.name(),
            live.candidate_tree
        ),
        deliveries: Vec::new(),
        proof: None,
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
    let message = match &proof {
        None => format!(
            "the live candidate is exactly what {} approved",
            state.lineage_id
        ),
        Some(p) => format!(
            "the live candidate is the change {} approved, carried from base tree {} onto {}: on every reviewed path the base and the candidate are the reviewed ones, and outside them nothing changes (rebase proof; the interaction of the new base with the change was not reviewed)",
            state.lineage_id, p.receipt_base, p.live_base
        ),
    };
    Some(GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code: ReasonCode::ReceiptValid,
        stage: GateStage::Complete,
        lineage_id: Some(state.lineage_id.clone()),
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message,
        deliveries: Vec::new(),
        proof,
    })
}

fn receipt_mismatch(state: &ReviewState) -> String {
    format!(
        "the receipt file of {} is missing or differs from the receipt its state derives; the state wins, so rewrite it with `probity finalize --lineage {}`",
        state.lineage_id, state.lineage_id
    )
}
