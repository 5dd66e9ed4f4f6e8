//! The sentences of a first publication of a history (`gate/first.rs`,
//! R8.8).

use super::{Row, refs_named};
use crate::review::gate::{BlobsOutside, GateStage, NextAction, ReasonCode};
use crate::review::ids::{CommitId, LineageId, TreeId};

/// One outcome of a first publication's decision, with what its sentence
/// names.
pub(in crate::review::gate) enum FirstSaid<'a> {
    /// The whole history is covered by one approved review of the empty
    /// tree to the tip's tree, and carries only blobs of that tree: an
    /// allow.
    Covered {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// How many commits the history has.
        n: usize,
        /// Its root commit.
        root: &'a CommitId,
        /// The review that covers it, if named.
        lineage: Option<&'a LineageId>,
        /// The tip's tree, which that review approved.
        tree: &'a TreeId,
    },
    /// The history carries blobs the reviewed tree does not hold: a
    /// denial.
    Outside {
        /// The refs that deliver the range.
        refs: &'a [String],
        /// The reviewed tree (the tip's).
        tree: &'a TreeId,
        /// The blobs outside it.
        outside: &'a BlobsOutside,
        /// The history's root commit.
        root: &'a CommitId,
    },
}

impl Row for FirstSaid<'_> {
    fn row(&self) -> (ReasonCode, GateStage, NextAction) {
        use GateStage::{Complete, Scope};
        use NextAction::Squash;
        match self {
            FirstSaid::Covered { .. } => (ReasonCode::ReceiptValid, Complete, NextAction::None),
            FirstSaid::Outside { .. } => (ReasonCode::HistoryNotReviewed, Scope, Squash),
        }
    }

    fn sentence(&self) -> String {
        match self {
            FirstSaid::Covered {
                refs,
                n,
                root,
                lineage,
                tree,
            } => {
                let reviewed = lineage.map_or_else(|| "the review".to_string(), |l| l.to_string());
                format!(
                    "a first publication of {refs}: the whole history ({n} commit(s) from the root {}) is covered by {reviewed}, which approved the empty tree to {}, and every blob the history carries is a blob of that tree (by object ID); commit and tag metadata are not covered by any review",
                    root,
                    tree,
                    refs = refs_named(refs)
                )
            }
            FirstSaid::Outside {
                refs,
                tree,
                outside,
                root,
            } => {
                let listed = outside
                    .blobs
                    .iter()
                    .map(|(blob, path)| {
                        format!(
                            "{path} (blob {})",
                            &blob.as_str()[..12.min(blob.as_str().len())]
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let more = if outside.more { ", and more" } else { "" };
                format!(
                    "a first publication of {refs} transfers the whole history, and it carries content the reviewed tree {} does not hold: {listed}{more}. Content overwritten later (an old secret, say) still travels with the history. Squash the history into one root commit whose tree is the reviewed one (`git reset --soft {} && git commit --amend --no-edit`, on a branch of your choosing), then push again",
                    tree,
                    root,
                    refs = refs_named(refs)
                )
            }
        }
    }
}

/// What a denied first publication no review of the whole change covers
/// adds to the commit-by-commit denial (its row stays that denial's): the
/// whole-history review as another way on.
pub(in crate::review::gate) struct HistoryOffered<'a> {
    /// The commit-by-commit denial's sentence.
    pub(in crate::review::gate) message: &'a str,
    /// The command that reviews the whole history as one change.
    pub(in crate::review::gate) command: &'a str,
}

impl HistoryOffered<'_> {
    /// The sentence for people.
    pub(in crate::review::gate) fn sentence(&self) -> String {
        format!(
            "{}. Or, as this is a first publication of the whole history, review everything it carries as one change: `{}`",
            self.message.trim_end_matches('.'),
            self.command
        )
    }
}
