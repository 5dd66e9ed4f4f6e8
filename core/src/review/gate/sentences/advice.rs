//! The sentences of the advice on a denial (`gate/advice.rs`): the
//! lineage to go on with instead of a new review, and the way to review
//! what an amend delivers. Each keeps the denial's reason and stage.

use crate::review::gate::NextAction;
use crate::review::ids::LineageId;
use crate::review::recovery::PERSON_VALUES;

/// One piece of advice on a "start a review" denial, with what its
/// sentence names.
pub(in crate::review::gate) enum AdviceSaid<'a> {
    /// A correction of `lineage` is open on the denied paths: finish it.
    OpenCorrection {
        /// The lineage in correction.
        lineage: &'a LineageId,
    },
    /// `lineage` escalated over the denied paths: a maintainer decides,
    /// with `recover`.
    Escalated {
        /// The escalated lineage.
        lineage: &'a LineageId,
        /// Its authorized recovery command.
        recover: &'a str,
    },
    /// The commit amends HEAD: review what the amend delivers.
    Amend,
}

impl AdviceSaid<'_> {
    /// The lineage to go on with instead, if the advice names one.
    pub(in crate::review::gate) fn lineage(&self) -> Option<&LineageId> {
        match self {
            AdviceSaid::OpenCorrection { lineage } | AdviceSaid::Escalated { lineage, .. } => {
                Some(lineage)
            }
            AdviceSaid::Amend => None,
        }
    }

    /// The next legal move that replaces the denial's own, if any.
    pub(in crate::review::gate) fn next_action(&self) -> Option<NextAction> {
        match self {
            AdviceSaid::OpenCorrection { .. } => Some(NextAction::Finalize),
            AdviceSaid::Escalated { .. } => Some(NextAction::HumanDecision),
            AdviceSaid::Amend => None,
        }
    }

    /// The sentence for people.
    pub(in crate::review::gate) fn sentence(&self) -> String {
        match self {
            AdviceSaid::OpenCorrection { lineage: l } => format!(
                "a correction of {l} is open on these paths: finish it, not a new review (`probity status --lineage {l} --next-transition` names its next input: `probity finalize --lineage {l} --correction-lines N` before editing, `probity finalize --lineage {l} --validation F` after)"
            ),
            AdviceSaid::Escalated {
                lineage,
                recover: cmd,
            } => format!(
                "review {} escalated over these paths: a new review would side-step it; a maintainer decides whether it goes on: `{cmd}` ({PERSON_VALUES})",
                lineage
            ),
            AdviceSaid::Amend => "this commit amends HEAD, so it delivers HEAD's parent → the index, and pre-push judges that; `probity start` now would review HEAD → the worktree, which pre-push does not accept for the amended commit. Review what the amend delivers instead: `git reset --soft HEAD~1` (HEAD's changes stay staged), then `probity start` (with the worktree as staged), the selected lenses and `probity finalize`, then `git commit -C ORIG_HEAD` (HEAD's message)".to_string(),
        }
    }
}
