//! The sentences of the decision for one live target (`decide_target`,
//! in `gate/target.rs`): one row per outcome.

use super::Row;
use crate::review::gate::*;
use crate::review::ids::{NonBlank, TreeId};

/// One outcome of a live target's decision, with what its sentence names.
pub(in crate::review::gate) enum Said<'a> {
    /// The candidate's tree is its base tree (D-R26): an allow.
    NoChange { gate: Gate, tree: &'a TreeId },
    /// An approved lineage binds exactly the live candidate: an allow.
    Approved { lineage: &'a LineageId },
    /// An approved change carried onto another base (the rebase proof):
    /// an allow.
    ApprovedRebased {
        lineage: &'a LineageId,
        receipt_base: &'a TreeId,
        live_base: &'a TreeId,
    },
    /// Nothing for this candidate or its base.
    NoAuthority,
    /// Nothing for this candidate, and a changed path is not UTF-8
    /// (D-R32); `named` lists the escaped paths.
    NonUtf8 { gate: Gate, named: String },
    /// Discovery named a lineage that froze another target.
    OtherTarget {
        lineage: &'a LineageId,
        candidate_tree: &'a TreeId,
    },
    /// The exact lineage is superseded.
    Superseded {
        lineage: &'a LineageId,
        leaf: &'a LineageId,
    },
    /// The receipt file is missing or is not the one state derives.
    ReceiptMismatch { lineage: &'a LineageId },
    /// The exact lineage escalated; `recover` is its recover command when
    /// its record offers one.
    Escalated {
        lineage: &'a LineageId,
        recover: Option<String>,
    },
    /// The exact lineage was invalidated for `reason`.
    Invalidated {
        lineage: &'a LineageId,
        reason: &'a NonBlank,
        recover: Option<String>,
    },
    /// The exact lineage is still open at `stage`.
    Incomplete {
        lineage: &'a LineageId,
        stage: &'static str,
    },
    /// The approval carried onto another base comes from a superseded
    /// lineage.
    RebasedSuperseded {
        lineage: &'a LineageId,
        leaf: &'a LineageId,
    },
    /// Discovery by delta identity named a lineage that is not approved.
    RebasedNotApproved {
        lineage: &'a LineageId,
        stage: &'static str,
    },
    /// An approval carried onto another base, or several composed, and
    /// the delivered change rates higher there than the review ran at
    /// (D-R171).
    RiskRaisedOnNewBase {
        gate: Gate,
        lineage: &'a LineageId,
        reviewed: &'static str,
        derived: &'static str,
    },
    /// The change carried onto another base differs in `paths`.
    RebasedScopeChanged {
        lineage: &'a LineageId,
        live_base: &'a TreeId,
        receipt_base: &'a TreeId,
        paths: &'a [RepoPath],
    },
    /// New work on top of a committed slice changes paths it reviewed;
    /// `history` is the superseded note (empty when none).
    PriorCommittedScopeChanged {
        lineage: &'a LineageId,
        history: &'a str,
    },
    /// The candidate changed inside the scope a prior lineage reviewed.
    PriorScopeChanged {
        lineage: &'a LineageId,
        history: &'a str,
    },
    /// New work touches no reviewed path of a superseded prior lineage.
    PriorUnrelatedSuperseded {
        lineage: &'a LineageId,
        history: &'a str,
    },
    /// New work touches no reviewed path of a committed slice.
    PriorUnrelatedCommitted { lineage: &'a LineageId },
    /// New work touches no reviewed path of an approved slice that is not
    /// committed yet; `commit` commits it.
    PriorUnrelatedUncommitted {
        lineage: &'a LineageId,
        commit: String,
    },
}

impl Row for Said<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::{Authority, Complete, Discovery, Scope};
        use NextAction::{
            CommitApproved, Finalize, HumanDecision, Recover, Repair, StartCommitReview,
            StartReview,
        };
        match self {
            Said::NoChange { .. } => (ReasonCode::NoChange, Complete, NextAction::None),
            Said::Approved { .. } | Said::ApprovedRebased { .. } => {
                (ReasonCode::ReceiptValid, Complete, NextAction::None)
            }
            Said::NoAuthority => (ReasonCode::ReceiptMissing, Discovery, StartReview),
            Said::NonUtf8 { gate, .. } => (
                ReasonCode::ReceiptMissing,
                Discovery,
                if *gate == Gate::PreCommit {
                    StartReview
                } else {
                    StartCommitReview
                },
            ),
            Said::OtherTarget { .. } => (ReasonCode::ReceiptMismatch, Discovery, Repair),
            Said::Superseded { .. } | Said::RebasedSuperseded { .. } => {
                (ReasonCode::ReceiptSuperseded, Authority, Recover)
            }
            Said::ReceiptMismatch { .. } => (ReasonCode::ReceiptMismatch, Authority, Repair),
            Said::Escalated { .. } => (ReasonCode::ReviewEscalated, Authority, HumanDecision),
            Said::Invalidated { .. } => (ReasonCode::ReviewInvalidated, Authority, Recover),
            Said::Incomplete { .. } => (ReasonCode::ReviewIncomplete, Authority, Finalize),
            Said::RebasedNotApproved { .. } => (ReasonCode::ReceiptMismatch, Discovery, Repair),
            Said::RiskRaisedOnNewBase { gate, .. } => (
                ReasonCode::RiskRaisedByRebase,
                Scope,
                if *gate == Gate::PreCommit {
                    StartReview
                } else {
                    StartCommitReview
                },
            ),
            Said::RebasedScopeChanged { .. }
            | Said::PriorCommittedScopeChanged { .. }
            | Said::PriorScopeChanged { .. } => {
                (ReasonCode::ReceiptScopeChanged, Scope, StartReview)
            }
            Said::PriorUnrelatedSuperseded { .. } | Said::PriorUnrelatedCommitted { .. } => {
                (ReasonCode::ReceiptUnrelated, Scope, StartReview)
            }
            Said::PriorUnrelatedUncommitted { .. } => {
                (ReasonCode::ReceiptUnrelated, Scope, CommitApproved)
            }
        }
    }

    fn sentence(&self) -> String {
        match self {
            Said::NoChange { gate, tree } => format!(
                "the {} delivery changes no bytes (its tree {tree} is its base tree): there is nothing to review",
                gate.name()
            ),
            Said::Approved { lineage } => {
                format!("the live candidate is exactly what {lineage} approved")
            }
            Said::ApprovedRebased {
                lineage,
                receipt_base,
                live_base,
            } => format!(
                "the live candidate is the change {lineage} approved, carried from base tree {receipt_base} onto {live_base}: on every reviewed path the base and the candidate are the reviewed ones, and outside them nothing changes (rebase proof; the interaction of the new base with the change was not reviewed)"
            ),
            Said::NoAuthority => "no review authority exists for this candidate: run `probity start`, the selected lenses, and `probity finalize`".into(),
            // Committed work: the name is in the commit, so the way out is
            // there too (issue 26 §2).
            Said::NonUtf8 { gate, named } if *gate != Gate::PreCommit => format!(
                "no review covers this commit, and a review of it as committed is refused (`path_not_utf8`): {named} is not UTF-8 (shown with \\xNN escapes); rename it in the commit (`git mv` to a UTF-8 name, then `git commit --amend --no-edit`; in an older commit of a stack, `git rebase -i`), then review the commit with `probity start --commit HEAD`, the selected lenses and `probity finalize`, and push again"
            ),
            Said::NonUtf8 { named, .. } => format!(
                "no review authority exists for this candidate, and `probity start` refuses it (`path_not_utf8`): {named} is not UTF-8 (shown with \\xNN escapes); rename it to a UTF-8 name (`git mv` if it is tracked) or keep it out of the candidate (untracked: add it to .git/info/exclude), then review with `probity start`, the selected lenses, and `probity finalize`"
            ),
            Said::OtherTarget {
                lineage,
                candidate_tree,
            } => format!(
                "discovery returned {lineage}, which froze another target than the live candidate {candidate_tree}"
            ),
            Said::Superseded { lineage, leaf } => format!(
                "{lineage} is superseded (its recovery chain ends at {leaf}): history, not authority; `probity status --lineage {leaf}` gives the leaf's next step: while it is in review, finish that review (what it approves on top of this candidate is then published with it); once it is approved or escalated, it prints the recover command that reviews this candidate again; a consumed leaf (`lineage_consumed`) authorizes nothing more"
            ),
            Said::ReceiptMismatch { lineage } => format!(
                "the receipt file of {lineage} is missing or differs from the receipt its state derives; the state wins, so rewrite it with `probity finalize --lineage {lineage}`"
            ),
            Said::Escalated {
                lineage,
                recover: Some(cmd),
            } => format!(
                "review {lineage} escalated: a maintainer decides whether it goes on: `{cmd}` ({})",
                crate::review::recovery::PERSON_VALUES
            ),
            Said::Escalated {
                lineage,
                recover: None,
            } => format!(
                "review {lineage} escalated: a maintainer decides whether it goes on (`probity status --lineage {lineage}`)"
            ),
            Said::Invalidated {
                lineage,
                reason,
                recover: Some(cmd),
            } => format!(
                "review {lineage} of this candidate was invalidated ({reason}): start its successor with `{cmd}` ({})",
                crate::review::recovery::PERSON_VALUES
            ),
            Said::Invalidated {
                lineage,
                reason,
                recover: None,
            } => format!(
                "review {lineage} of this candidate was invalidated ({reason}): `probity status --lineage {lineage}` names its successor's recover command"
            ),
            Said::Incomplete { lineage, stage } => format!(
                "review {lineage} of this candidate is `{stage}`: finish it with `probity finalize --lineage {lineage}` (`probity status --lineage {lineage} --next-transition` names the next input)"
            ),
            Said::RebasedSuperseded { lineage, leaf } => format!(
                "the live candidate is the change {lineage} approved, carried onto another base, but {lineage} is superseded (its recovery chain ends at {leaf}): history, not authority; recover from {leaf} (`probity status --lineage {leaf}`)"
            ),
            Said::RebasedNotApproved { lineage, stage } => format!(
                "discovery by delta identity returned {lineage}, which is `{stage}`, not approved"
            ),
            Said::RiskRaisedOnNewBase {
                gate,
                lineage,
                reviewed,
                derived,
            } => format!(
                "the live candidate carries the change {lineage} approved at {reviewed} risk onto another base, where the newest built-in risk policy rates the delivered change {derived} (the new base holds what makes it riskier, such as a task that runs a changed file): the approval does not cover it; review it as it is with `{}`",
                if *gate == Gate::PreCommit {
                    "probity start"
                } else {
                    "probity start --commit <commit>"
                }
            ),
            Said::RebasedScopeChanged {
                lineage,
                live_base,
                receipt_base,
                paths,
            } => format!(
                "the live candidate sits on base tree {live_base} while {lineage} approved its change on {receipt_base}, and these paths differ from what it approved: {}; the result on the new base was never reviewed: review it with `probity start`",
                join_paths(paths)
            ),
            Said::PriorCommittedScopeChanged { lineage, history } => format!(
                "the new work on top of the committed slice {lineage} approved changes paths it reviewed{history}: review the new work with `probity start`"
            ),
            Said::PriorScopeChanged { lineage, history } => format!(
                "the candidate changed inside the scope {lineage} reviewed{history}: review the changed candidate with `probity start`"
            ),
            Said::PriorUnrelatedSuperseded { lineage, history } => format!(
                "new work touches no path {lineage} reviewed{history}: review the new work with `probity start`"
            ),
            Said::PriorUnrelatedCommitted { lineage } => format!(
                "new work on top of the committed slice {lineage} approved touches no path it reviewed (its receipt still holds for what it approved): review the new work with `probity start`"
            ),
            Said::PriorUnrelatedUncommitted { lineage, commit } => format!(
                "new work touches no path {lineage} reviewed (its receipt still holds for what it approved, which is not committed yet): commit the approved slice first (`{commit}`), then review the new work with `probity start`"
            ),
        }
    }
}

/// The paths a sentence names, as one list.
fn join_paths(paths: &[RepoPath]) -> String {
    paths
        .iter()
        .map(RepoPath::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The "superseded" note a prior lineage's sentences carry (empty when it
/// is a chain's leaf).
pub(in crate::review::gate) fn superseded_note(
    lineage: &LineageId,
    leaf: Option<&LineageId>,
) -> String {
    leaf.map_or_else(String::new, |leaf| {
        format!(" ({lineage} is superseded; its chain ends at {leaf})")
    })
}

/// The paths a non-UTF-8 denial names: the changed paths git names with
/// a `\xNN` escape, or "a changed path" when none does.
pub(in crate::review::gate) fn non_utf8_named(changed_paths: &[RepoPath]) -> String {
    let escaped: Vec<&str> = changed_paths
        .iter()
        .map(RepoPath::as_str)
        .filter(|p| p.contains("\\x"))
        .collect();
    if escaped.is_empty() {
        "a changed path".to_string()
    } else {
        escaped.join(", ")
    }
}
