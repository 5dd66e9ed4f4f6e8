//! Stacks: a delivered range judged commit by commit (D-R25).

use crate::review::ErrorClass;
use serde::Serialize;

use crate::review::ids::{CommitId, LineageId};

use super::sentences::{CommitSaid, Place, StackSaid, allow, deny};
use super::*;

/// The most commits one delivered range may hold: each is judged on its
/// own, so the bound keeps a gate's work (a lookup, and a diff for each
/// denial) bounded. A longer range is denied `delivery_too_large`.
pub const MAX_RANGE_COMMITS: usize = 1000;

/// Why a list of commits is not a stack a review can bind commit by commit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StackError {
    /// The range has no commit, or none was listed.
    #[error("the range holds no commit")]
    Empty,
    /// The range has more than [`MAX_RANGE_COMMITS`] commits.
    #[error(
        "the range holds {count} commits, more than the {limit} Probity reviews or judges one by one"
    )]
    TooLarge {
        /// How many commits the range has.
        count: usize,
        /// The bound, [`MAX_RANGE_COMMITS`].
        limit: usize,
    },
    /// A commit of the range has more than one parent.
    #[error(
        "{commit} is a merge commit ({parents} parents); a review binds a commit with one parent (its base): rebase the branch onto its base, or squash it, so that every commit has one parent"
    )]
    Merge {
        /// The first merge commit found.
        commit: CommitId,
        /// How many parents it has.
        parents: usize,
    },
    /// The listed commits are not one chain of only parents back from the
    /// tip, or not all of the range's `count` commits were listed.
    #[error(
        "the range's commits do not form one chain from {tip} ({listed} listed, {chained} chained)"
    )]
    NotLinear {
        /// The range's tip.
        tip: CommitId,
        /// How many commits were listed.
        listed: usize,
        /// How many of them the chain from the tip reached.
        chained: usize,
    },
}

impl StackError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            StackError::Merge { .. } => (ErrorClass::RejectedInput, "merge_commit"),
            StackError::Empty => (ErrorClass::RejectedInput, "empty_range"),
            StackError::TooLarge { .. } => (ErrorClass::RejectedInput, "range_too_large"),
            StackError::NotLinear { .. } => (ErrorClass::RejectedInput, "range_not_linear"),
        }
    }
}

/// Orders a range's commits oldest first, as one chain ending at `tip`:
/// each commit's only parent is the commit before it (the oldest's parent,
/// if any, is outside the range). `count` is how many commits the range
/// has (it may exceed what was listed). A merge anywhere refuses the whole
/// range.
pub fn stack_order<'a>(
    tip: &CommitId,
    commits: &'a [RangeCommit],
    count: usize,
) -> Result<Vec<&'a RangeCommit>, StackError> {
    if count > MAX_RANGE_COMMITS {
        return Err(StackError::TooLarge {
            count,
            limit: MAX_RANGE_COMMITS,
        });
    }
    if count == 0 || commits.is_empty() {
        return Err(StackError::Empty);
    }
    if let Some(m) = commits.iter().find(|c| c.parents.len() > 1) {
        return Err(StackError::Merge {
            commit: m.commit.clone(),
            parents: m.parents.len(),
        });
    }
    let by_id: std::collections::BTreeMap<&CommitId, &RangeCommit> =
        commits.iter().map(|c| (&c.commit, c)).collect();
    let mut chain = Vec::with_capacity(commits.len());
    let mut next = Some(tip);
    while let Some(c) = next.and_then(|id| by_id.get(id)) {
        if chain.len() == commits.len() {
            break;
        }
        chain.push(*c);
        next = c.parents.first();
    }
    if chain.len() != commits.len() || commits.len() != count || by_id.len() != commits.len() {
        return Err(StackError::NotLinear {
            tip: tip.clone(),
            listed: commits.len(),
            chained: chain.len(),
        });
    }
    chain.reverse();
    Ok(chain)
}

/// The commit the range builds on along first parents (the first parent
/// outside the range, walking from the tip): what the remote already holds.
fn first_parent_base(range: &DeliveredRange) -> Option<&CommitId> {
    let mut cur = range.commits.iter().find(|c| c.commit == range.tip)?;
    for _ in 0..=range.commits.len() {
        let parent = cur.parents.first()?;
        match range.commits.iter().find(|c| c.commit == *parent) {
            Some(c) => cur = c,
            None => return Some(parent),
        }
    }
    None
}

/// The commits of a delivered range to judge one by one, oldest first, or
/// the boundary denial when the range cannot be a stack of deliveries: a
/// rewind, not a commit, no commit, more than [`MAX_RANGE_COMMITS`], or a
/// merge commit anywhere (D-R25).
pub fn delivery_commits(
    gate: Gate,
    range: &DeliveredRange,
) -> Result<Vec<&RangeCommit>, GateDecision> {
    let refs = &range.refs;
    let error = match range_shape(range) {
        RangeShape::NotFastForward(_) | RangeShape::NotCommit | RangeShape::Empty => {
            return delivery_commit(gate, range).map(|c| vec![c]);
        }
        RangeShape::One(_) | RangeShape::Several(_) | RangeShape::Merge(_) => {
            match stack_order(&range.tip, &range.commits, range.count) {
                Ok(stack) => return Ok(stack),
                Err(error) => error,
            }
        }
    };
    let said = match &error {
        StackError::Empty => return delivery_commit(gate, range).map(|c| vec![c]),
        StackError::TooLarge { count, limit } => StackSaid::TooLarge {
            refs,
            count: *count,
            limit: *limit,
        },
        StackError::Merge { commit, parents } => StackSaid::Merge {
            refs,
            commit,
            parents: *parents,
            base: first_parent_base(range),
        },
        StackError::NotLinear { .. } => StackSaid::NotLinear {
            refs,
            error: &error,
        },
    };
    Err(deny(gate, None, &[], &said))
}

/// How one commit of a stack was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitReport {
    /// The commit judged.
    pub commit: CommitId,
    /// How its (parent tree, tree) was judged.
    pub decision: Decision,
    /// The reason code of that decision.
    pub reason_code: ReasonCode,
    /// The lineage that decision names, if any.
    pub lineage_id: Option<LineageId>,
    /// A squash: the approved reviews its allow composes, first to last.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub composed_of: Vec<LineageId>,
}

/// A delivered range's decision and, for a stack of several commits, how
/// each commit was judged (oldest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeJudgment {
    /// The range's decision.
    pub decision: GateDecision,
    /// How each commit of a stack was judged, oldest first; empty for a
    /// one-commit range or a boundary denial.
    pub stack: Vec<CommitReport>,
}

impl RangeJudgment {
    /// A range denied at the boundary, before any commit was judged.
    pub fn boundary(decision: GateDecision) -> Self {
        Self {
            decision,
            stack: Vec::new(),
        }
    }
}

/// Whether a denial means "this committed change was never reviewed": the
/// work is done and committed, so the next step is a review of the commit
/// as committed (never a `probity start` of a clean worktree).
fn needs_commit_review(d: &GateDecision) -> bool {
    d.decision == Decision::Deny
        && matches!(
            d.reason_code,
            ReasonCode::ReceiptMissing
                | ReasonCode::ReceiptScopeChanged
                | ReasonCode::ReceiptUnrelated
        )
}

/// The command that reviews the unreviewed commits of a stack (oldest
/// first): `--commit` for one, `--range <parent of the oldest>..<newest>`
/// for several (commits in between that are reviewed are resumed, not
/// reviewed again).
fn commit_review_command(unreviewed: &[&RangeCommit]) -> String {
    match unreviewed {
        [] => "probity start --commit <sha>".into(),
        [one] => format!("probity start --commit {}", one.commit),
        [oldest, .., newest] => match oldest.parents.first() {
            Some(p) => format!("probity start --range {p}..{}", newest.commit),
            // A root commit has no parent to name as the range's base.
            None => format!(
                "probity start --commit {} && probity start --range {}..{}",
                oldest.commit, oldest.commit, newest.commit
            ),
        },
    }
}

/// Combines the per-commit decisions of one delivered range, oldest first
/// (R8.3, D-R25): the range is allowed only when every commit is (an
/// approved review binds its (parent tree, tree), or it changes no bytes);
/// otherwise the first failing commit answers, named. A denial for
/// committed, unreviewed work names the command that reviews it as
/// committed (`probity start --commit <sha>`, or `--range` for several).
/// A one-commit range answers exactly as that commit's decision (only its
/// next step changes).
pub fn judge_stack(
    gate: Gate,
    range: &DeliveredRange,
    judged: Vec<(&RangeCommit, GateDecision)>,
) -> RangeJudgment {
    let n = judged.len();
    let refs = &range.refs;
    let stack: Vec<CommitReport> = if n > 1 {
        judged
            .iter()
            .map(|(c, d)| CommitReport {
                commit: c.commit.clone(),
                decision: d.decision,
                reason_code: d.reason_code,
                lineage_id: d.lineage_id.clone(),
                composed_of: d.composed_of().to_vec(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let unreviewed: Vec<&RangeCommit> = judged
        .iter()
        .filter(|(_, d)| needs_commit_review(d))
        .map(|(c, _)| *c)
        .collect();
    let mut judged = judged;
    let Some(pos) = judged
        .iter()
        .position(|(_, d)| d.decision == Decision::Deny)
    else {
        let decision = match judged.pop() {
            Some((_, only)) if n == 1 => only,
            _ => {
                let approved = stack
                    .iter()
                    .filter(|r| r.reason_code != ReasonCode::NoChange)
                    .count();
                allow(gate, None, &StackSaid::Reviewed { refs, n, approved })
            }
        };
        return RangeJudgment { decision, stack };
    };
    // `pos` is an index `position` found: in bounds.
    let (commit, mut denial) = judged.swap_remove(pos);
    let place = Place {
        commit: &commit.commit,
        index: pos,
        n,
        refs,
    };
    // A denial that already names its way out for committed work (a
    // non-UTF-8 path, which `start --commit` refuses) keeps its sentence.
    let said = if needs_commit_review(&denial)
        && gate != Gate::PreCommit
        && denial.next_action != NextAction::StartCommitReview
    {
        Some(CommitSaid::Unreviewed {
            place,
            reason: denial.reason_code,
            lineage: denial.lineage_id.as_ref(),
            unreviewed: unreviewed.len(),
            command: &commit_review_command(&unreviewed),
        })
    } else if n > 1 {
        Some(CommitSaid::Placed {
            place,
            message: &denial.message,
        })
    } else {
        None
    };
    if let Some((next, message)) = said.map(|s| (s.next_action(), s.sentence())) {
        denial.next_action = next.unwrap_or(denial.next_action);
        denial.message = message;
    }
    RangeJudgment {
        decision: denial,
        stack,
    }
}
