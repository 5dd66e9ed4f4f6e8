//! The sentences of a publication's decisions (`gate/push.rs`): the
//! boundary denials of a range that is not exactly one delivery commit
//! (`delivery_commit`), and the combined answer of a push
//! (`combine_judged`).

use super::{Row, refs_named};
use crate::review::gate::{GateStage, NextAction, RangeCommit, ReasonCode};
use crate::review::ids::{CommitId, LineageId};

/// One outcome of a publication's decision, with what its sentence names.
pub(in crate::review::gate) enum PushSaid<'a> {
    /// The range delivers no commit the remote lacks: a boundary denial.
    Empty {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The tip they would point at.
        tip: &'a CommitId,
    },
    /// The range delivers `n` commits where one is judged: a boundary
    /// denial.
    Several {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// How many commits it delivers.
        n: usize,
    },
    /// The range's one commit is a merge: a boundary denial.
    Merge {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The merge commit.
        commit: &'a RangeCommit,
    },
    /// The update does not fast-forward the remote ref's tip `old`: a
    /// boundary denial.
    NotFastForward {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The remote ref's current tip.
        old: &'a CommitId,
        /// The pushed tip.
        tip: &'a CommitId,
    },
    /// The pushed object is not a commit: a boundary denial.
    NotCommit {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The pushed object as named.
        tip: &'a CommitId,
    },
    /// No ref update delivers content: an allow.
    NothingDelivered,
    /// The one range's allow says so itself (a stack, or a delivery that
    /// changes no bytes): its `message`, an allow `unchanged` when it
    /// changes no bytes.
    Carried {
        /// The range's own sentence.
        message: &'a str,
        /// Whether the range changes no bytes.
        unchanged: bool,
    },
    /// The one range delivers exactly what `lineage` approved: an allow.
    OneApproved {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The lineage its allow names, if any.
        lineage: Option<&'a LineageId>,
    },
    /// None of the `ranges` delivered ranges changes any bytes: an allow.
    ManyUnchanged {
        /// How many ranges were delivered.
        ranges: usize,
    },
    /// Each of the `ranges` delivered ranges is approved (or changes no
    /// bytes): an allow.
    ManyApproved {
        /// How many ranges were delivered.
        ranges: usize,
    },
    /// The one range's allow is carried by a proof: its refs, then its
    /// own sentence.
    Proven {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The range's own sentence.
        message: &'a str,
        /// Whether the range changes no bytes.
        unchanged: bool,
    },
}

impl Row for PushSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::{Boundary, Complete};
        use NextAction::{CheckRange, Squash};
        let valid = |unchanged: bool| {
            if unchanged {
                ReasonCode::NoChange
            } else {
                ReasonCode::ReceiptValid
            }
        };
        match self {
            PushSaid::Empty { .. } => (ReasonCode::DeliveryEmpty, Boundary, CheckRange),
            PushSaid::Several { .. } | PushSaid::Merge { .. } => {
                (ReasonCode::DeliveryPartial, Boundary, Squash)
            }
            PushSaid::NotFastForward { .. } => {
                (ReasonCode::DeliveryNotFastForward, Boundary, CheckRange)
            }
            PushSaid::NotCommit { .. } => (ReasonCode::DeliveryNotCommit, Boundary, CheckRange),
            PushSaid::NothingDelivered => {
                (ReasonCode::NothingDelivered, Complete, NextAction::None)
            }
            PushSaid::Carried { unchanged, .. } | PushSaid::Proven { unchanged, .. } => {
                (valid(*unchanged), Complete, NextAction::None)
            }
            PushSaid::OneApproved { .. } | PushSaid::ManyApproved { .. } => {
                (ReasonCode::ReceiptValid, Complete, NextAction::None)
            }
            PushSaid::ManyUnchanged { .. } => (ReasonCode::NoChange, Complete, NextAction::None),
        }
    }

    fn sentence(&self) -> String {
        match self {
            PushSaid::Empty { refs, tip } => format!(
                "{refs} would point at {} but deliver no commit the remote lacks; a ref move without a delivery commit is not bound to any review",
                tip,
                refs = refs_named(refs)
            ),
            PushSaid::Several { refs, n } => format!(
                "{refs} delivers {n} commits; a review binds exactly one delivery commit whose parent is the reviewed base: squash them into one commit of the reviewed candidate, or push each reviewed commit on its own",
                refs = refs_named(refs)
            ),
            PushSaid::Merge { refs, commit: c } => format!(
                "{refs} delivers the merge commit {} with {} parents; a review binds one commit with one parent (the reviewed base)",
                c.commit,
                c.parents.len(),
                refs = refs_named(refs)
            ),
            PushSaid::NotFastForward { refs, old, tip } => format!(
                "{refs} would move from {old} to {} without fast-forwarding it (a forced push, a rewind, or a remote tip this clone has not fetched): what it drops or replaces was never reviewed; put your commits on the remote's tip (`git fetch`, then `git rebase {old}`) and push again: a reviewed commit rebased onto work that touches none of its paths stays approved (the rebase proof), anything else names the `probity start --commit` to run",
                tip,
                refs = refs_named(refs)
            ),
            PushSaid::NotCommit { refs, tip } => format!(
                "{refs} would point at {}, which is not a commit: only a commit is a delivery a review binds",
                tip,
                refs = refs_named(refs)
            ),
            PushSaid::NothingDelivered => {
                "no ref update delivers content (deletions only, or nothing to push)".into()
            }
            PushSaid::Carried { message, .. } => (*message).to_string(),
            PushSaid::OneApproved { refs, lineage } => format!(
                "{} delivers exactly the candidate {} approved",
                refs_named(refs),
                lineage.map_or_else(|| "a review".to_string(), ToString::to_string)
            ),
            PushSaid::ManyUnchanged { ranges } => {
                format!("none of the {} delivered ranges changes any bytes", ranges)
            }
            PushSaid::ManyApproved { ranges } => format!(
                "each of the {} delivered ranges consists of commits approved reviews cover (or that change no bytes)",
                ranges
            ),
            PushSaid::Proven { refs, message, .. } => {
                format!("{}: {}", refs_named(refs), message)
            }
        }
    }
}
