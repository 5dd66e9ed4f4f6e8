//! The sentences of a range judged commit by commit (`gate/stack.rs`):
//! the boundary denials of a range that cannot be a stack
//! (`delivery_commits`), the allow of a stack every commit of which is a
//! reviewed delivery, and what a stack's failing commit's denial says
//! (`judge_stack`).

use std::fmt;

use super::{Row, refs_named};
use crate::review::gate::{GateStage, NextAction, ReasonCode, StackError};
use crate::review::ids::{CommitId, LineageId};

/// One outcome of a stack's decision, with what its sentence names.
pub(in crate::review::gate) enum StackSaid<'a> {
    /// More commits than a gate judges one by one: a boundary denial.
    TooLarge {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// How many commits the range has.
        count: usize,
        /// The bound.
        limit: usize,
    },
    /// A merge commit in the range: a boundary denial; `base` is the
    /// commit the range builds on along first parents, when found.
    Merge {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The first merge commit found.
        commit: &'a CommitId,
        /// How many parents it has.
        parents: usize,
        /// What the remote already holds, along first parents.
        base: Option<&'a CommitId>,
    },
    /// The listed commits are not one chain: a boundary denial.
    NotLinear {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// What the chain check found.
        error: &'a StackError,
    },
    /// Every one of the `n` commits is a reviewed delivery, `approved` of
    /// them bound by an approved review: an allow.
    Reviewed {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// How many commits the stack has.
        n: usize,
        /// How many of them an approved review binds.
        approved: usize,
    },
}

impl Row for StackSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::{Boundary, Complete};
        use NextAction::{CheckRange, Squash};
        match self {
            StackSaid::TooLarge { .. } => (ReasonCode::DeliveryTooLarge, Boundary, CheckRange),
            StackSaid::Merge { .. } | StackSaid::NotLinear { .. } => {
                (ReasonCode::DeliveryPartial, Boundary, Squash)
            }
            StackSaid::Reviewed { approved, .. } => (
                if *approved == 0 {
                    ReasonCode::NoChange
                } else {
                    ReasonCode::ReceiptValid
                },
                Complete,
                NextAction::None,
            ),
        }
    }

    fn sentence(&self) -> String {
        match self {
            StackSaid::TooLarge { refs, count, limit } => format!(
                "{refs} delivers {count} commits, more than the {limit} a gate judges one by one: push the stack in parts, older commits first (a commit {limit} or fewer commits above what the remote holds, then the next part), or squash it",
                refs = refs_named(refs)
            ),
            StackSaid::Merge {
                refs,
                commit,
                parents,
                base,
            } => {
                let rebase = match base {
                    Some(base) => format!(
                        "rebase the branch onto what the remote holds (`git rebase {base}`), then review what is unreviewed (`probity start --range {base}..HEAD`)"
                    ),
                    None => "rebase the branch onto what the remote holds, or squash it into one commit, then review what is unreviewed (the next push names each `probity start --commit`)".to_string(),
                };
                format!(
                    "{refs} delivers the merge commit {commit} ({parents} parents); a review binds commits with one parent: {rebase}",
                    refs = refs_named(refs)
                )
            }
            StackSaid::NotLinear { refs, error: e } => format!(
                "{refs}: {e}; rebase or squash the branch into a chain of one-parent commits",
                refs = refs_named(refs)
            ),
            StackSaid::Reviewed { refs, n, approved } => format!(
                "each of the {n} commits {refs} delivers is a reviewed delivery ({approved} bound by an approved review, {} changing no bytes)",
                n - approved,
                refs = refs_named(refs)
            ),
        }
    }
}

/// Where a stack's failing commit sits, as its denial names it: the
/// commit, its 0-based `index` among the `n` commits, and the refs.
pub(in crate::review::gate) struct Place<'a> {
    /// The failing commit.
    pub(in crate::review::gate) commit: &'a CommitId,
    /// Its 0-based position, oldest first.
    pub(in crate::review::gate) index: usize,
    /// How many commits the stack has.
    pub(in crate::review::gate) n: usize,
    /// The refs that deliver the range.
    pub(in crate::review::gate) refs: &'a [String],
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n, refs) = (self.n, refs_named(self.refs));
        let place = if n > 1 {
            format!(
                "commit {} ({} of {n}) of {refs}",
                self.commit,
                self.index + 1
            )
        } else {
            format!("commit {} of {refs}", self.commit)
        };
        f.write_str(&place)
    }
}

/// What a stack's failing commit's denial says: its reason and stage stay
/// the commit's own.
pub(in crate::review::gate) enum CommitSaid<'a> {
    /// Committed work no review covers (the denial's `reason`, naming
    /// `lineage`): reviewed as committed with `command`; `unreviewed`
    /// commits of the range are.
    Unreviewed {
        /// Where the commit sits.
        place: Place<'a>,
        /// The commit's denial's reason.
        reason: ReasonCode,
        /// The lineage the commit's denial names, if any.
        lineage: Option<&'a LineageId>,
        /// How many commits of the range are unreviewed.
        unreviewed: usize,
        /// The command that reviews them as committed.
        command: &'a str,
    },
    /// Any other denial of a stack's commit: its own sentence, after where
    /// the commit sits.
    Placed {
        /// Where the commit sits.
        place: Place<'a>,
        /// The commit's denial's sentence.
        message: &'a str,
    },
}

impl CommitSaid<'_> {
    /// The next legal move that replaces the commit's own, if any.
    pub(in crate::review::gate) fn next_action(&self) -> Option<NextAction> {
        match self {
            CommitSaid::Unreviewed { .. } => Some(NextAction::StartCommitReview),
            CommitSaid::Placed { .. } => None,
        }
    }

    /// The sentence for people.
    pub(in crate::review::gate) fn sentence(&self) -> String {
        match self {
            CommitSaid::Unreviewed {
                place,
                reason,
                lineage,
                unreviewed,
                command,
            } => {
                let why = match (reason, lineage) {
                    (ReasonCode::ReceiptScopeChanged, Some(l)) => {
                        format!("it changes paths {l} reviewed differently than approved")
                    }
                    (ReasonCode::ReceiptUnrelated, Some(l)) => {
                        format!("it holds work {l} did not review")
                    }
                    _ => "no review covers its (parent tree, tree)".to_string(),
                };
                let others = if *unreviewed > 1 {
                    format!(" ({} commits of the range are unreviewed)", unreviewed)
                } else {
                    String::new()
                };
                format!(
                    "{place} is not a reviewed delivery: {why}{others}; review it as committed with `{command}`, run the selected lenses and `probity finalize`, then push again"
                )
            }
            CommitSaid::Placed { place, message } => format!("{place}: {}", message),
        }
    }
}
