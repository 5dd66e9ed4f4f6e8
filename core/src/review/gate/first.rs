//! R8.8, first publication of a history.
//!
//! An ordinary push delivers a bounded range: the commits between what the
//! remote holds and what is pushed. A range whose oldest commit is a root
//! (a push to an empty remote, or of an unrelated history) has no such
//! bound: Git transfers every object reachable from it, the whole history,
//! every blob any commit ever referenced. "Nothing unreviewed is published"
//! then applies to everything the history ever contained, not to a diff.
//!
//! A first publication is therefore authorized, when its commits are not
//! each reviewed, by one approved review of the whole change (the empty tree
//! to the tip's tree, `probity start --history <tip>`) and only when:
//!
//! - the range is the history the remote really lacks, computed from what
//!   it really holds (the same derivation as every push: no approximation),
//!   linear, within the range bound;
//! - every entry of every delivered commit's tree is an entry of the
//!   reviewed tree: the same blob at the same path with the same mode.
//!   Content overwritten later, such as a secret committed and then
//!   replaced, still travels, so it fails closed with guidance to squash
//!   the history; so do reviewed bytes that sat at another path or mode in
//!   an older commit (D-R111: a document's bytes as a workflow, or a test
//!   as `build.rs`, is other content, and a tag on that commit would
//!   deliver nothing).
//!
//! Commit and tag metadata (messages, authors, dates, signatures) is outside
//! this contract, as it is outside every receipt: no review binds the text
//! of a commit message. A test pins that exclusion, so extending the
//! contract to metadata means changing that test on purpose.

use crate::review::ids::{ObjectId, TreeId};
use crate::review::rebase::{DeltaEntry, GateProof, ProofKind};
use crate::review::snapshot::FileMode;

use super::sentences::{FirstSaid, HistoryOffered, allow, deny};
use super::{Decision, DeliveredRange, Gate, GateDecision, NextAction, RangeCommit, RangeJudgment};

/// At most this many blobs outside the reviewed tree are listed; past it
/// the observation says there are more.
pub const MAX_LISTED_BLOBS: usize = 32;

/// The entries a history carries that the reviewed tree does not hold (the
/// same blob at the same path with the same mode), each as its blob and
/// path, and whether more were left unread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlobsOutside {
    /// Up to [`MAX_LISTED_BLOBS`] such blobs, each with a repository path
    /// it had in the history.
    pub blobs: Vec<(ObjectId, String)>,
    /// Whether more were found (or left unread) beyond those listed.
    pub more: bool,
}

impl BlobsOutside {
    /// No blob outside the reviewed tree, and none unread: the history
    /// carries only reviewed content.
    pub fn is_empty(&self) -> bool {
        self.blobs.is_empty() && !self.more
    }

    /// Adds what one commit's tree holds beyond the reviewed tree, given
    /// `delta` from the reviewed tree to it: every entry it holds at a
    /// path where the reviewed tree holds nothing, another blob or another
    /// mode (a gitlink names a commit, whose objects a push does not
    /// carry); `None` (a path no review can hold) is unread content.
    /// Returns whether the listing is full, so the history need not be
    /// read further.
    pub fn add_tree(&mut self, delta: Option<&[DeltaEntry]>) -> bool {
        let Some(delta) = delta else {
            self.more = true;
            return true;
        };
        for e in delta {
            let Some(held) = &e.candidate else { continue };
            if held.mode == FileMode::Gitlink {
                continue;
            }
            let entry = (held.object.clone(), e.path.as_str().to_string());
            if self.blobs.contains(&entry) {
                continue;
            }
            if self.blobs.len() == MAX_LISTED_BLOBS {
                self.more = true;
                return true;
            }
            self.blobs.push(entry);
        }
        self.more
    }
}

/// Whether the range (oldest first) delivers a whole history: its oldest
/// commit is a root.
pub(crate) fn delivers_history(commits: &[&RangeCommit]) -> bool {
    commits.first().is_some_and(|c| c.parents.is_empty())
}

/// Whether a commit-by-commit judgment is offered to the first-publication
/// rule (R8.8) at all: only a denial of a range that delivers a whole
/// history. The driver asks this before it looks up the whole-history
/// review.
pub fn first_publication_offered(stack: &RangeJudgment, commits: &[&RangeCommit]) -> bool {
    stack.decision.decision == Decision::Deny && delivers_history(commits)
}

/// The command that reviews a whole history as one change.
pub(crate) fn history_review_command(tip: &RangeCommit) -> String {
    format!("probity start --history {}", tip.commit)
}

/// Judges a first publication that the commit-by-commit judgment `stack`
/// denied: `whole` is the decision for (empty tree, tip's tree), `outside`
/// what the history carries beyond the reviewed tree (observed only when
/// `whole` allows). Returns the allow with a `first_publication` proof, a
/// denial naming the blobs and the squash, or `stack` itself (with the
/// whole-history review named as another way on) when no review covers the
/// whole change.
pub fn judge_first_publication(
    gate: Gate,
    range: &DeliveredRange,
    commits: &[&RangeCommit],
    stack: RangeJudgment,
    whole: GateDecision,
    empty_tree: &TreeId,
    outside: Option<&BlobsOutside>,
) -> RangeJudgment {
    let (Some(root), Some(tip)) = (commits.first(), commits.last()) else {
        return stack;
    };
    if !first_publication_offered(&stack, commits) {
        return stack;
    }
    let refs = &range.refs;
    let n = commits.len();
    let outside = match (whole.decision, outside) {
        (Decision::Allow, Some(o)) => o,
        _ => {
            let mut stack = stack;
            if stack.decision.next_action == NextAction::StartCommitReview {
                stack.decision.message = HistoryOffered {
                    message: &stack.decision.message,
                    command: &history_review_command(tip),
                }
                .sentence();
            }
            return stack;
        }
    };
    let lineage = whole.lineage_id.as_ref();
    if outside.is_empty() {
        let said = FirstSaid::Covered {
            refs,
            n,
            root: &root.commit,
            lineage,
            tree: &tip.tree,
        };
        return RangeJudgment {
            decision: GateDecision {
                proof: Some(Box::new(GateProof {
                    kind: ProofKind::FirstPublication,
                    receipt_base: empty_tree.clone(),
                    live_base: empty_tree.clone(),
                    chain: Vec::new(),
                })),
                ..allow(gate, lineage, &said)
            },
            stack: stack.stack,
        };
    }
    let said = FirstSaid::Outside {
        refs,
        tree: &tip.tree,
        outside,
        root: &root.commit,
    };
    RangeJudgment {
        decision: deny(gate, lineage, &[], &said),
        stack: stack.stack,
    }
}
