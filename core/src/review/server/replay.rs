//! The replay check's rules (D-R56, D-R125, D-R133, D-R134): which
//! approvals an allowing decision rests on, and whether an earlier
//! delivery into a protected ref's history already spent one. Moved out
//! of `server.rs` as it was (moves only).

use crate::review::gate::{Decision, GateDecision};
use crate::review::ids::{CommitId, LineageId, RepoPath, TreeId};

/// A delivery an allow rests on: the commit, the refs it reaches, and the
/// lineage whose approval allowed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovedDelivery {
    /// The destination refs that deliver it.
    pub refs: Vec<String>,
    /// The commit allowed.
    pub commit: CommitId,
    /// The lineage whose approval allowed it.
    pub lineage: LineageId,
    /// A squash (`composed_reviews`): every approval it composes, first to
    /// last (`lineage` is the last); empty otherwise. Each is spent by the
    /// delivery as a single approval would be.
    pub composed_of: Vec<LineageId>,
}

impl ApprovedDelivery {
    /// The approvals the delivery rests on: the composed ones, or its one
    /// lineage.
    pub fn approvals(&self) -> &[LineageId] {
        if self.composed_of.is_empty() {
            std::slice::from_ref(&self.lineage)
        } else {
            &self.composed_of
        }
    }
}

/// Every commit an allowing decision lets in on the strength of an
/// approval (a commit that changes no bytes names no lineage, and needs
/// none): each allowed commit of a stack, or a range's tip.
pub fn approved_deliveries(d: &GateDecision) -> Vec<ApprovedDelivery> {
    let mut out = Vec::new();
    for r in d.deliveries() {
        if r.decision != Decision::Allow {
            continue;
        }
        if r.stack.is_empty() {
            if let Some(l) = &r.lineage_id {
                out.push(ApprovedDelivery {
                    refs: r.refs.clone(),
                    commit: r.tip.clone(),
                    lineage: l.clone(),
                    composed_of: r
                        .proof
                        .as_deref()
                        .filter(|p| p.kind == crate::review::rebase::ProofKind::ComposedReviews)
                        .map(|p| p.chain.clone())
                        .unwrap_or_default(),
                });
            }
            continue;
        }
        for c in &r.stack {
            if let (Decision::Allow, Some(l)) = (c.decision, &c.lineage_id) {
                out.push(ApprovedDelivery {
                    refs: r.refs.clone(),
                    commit: c.commit.clone(),
                    lineage: l.clone(),
                    composed_of: c.composed_of.clone(),
                });
            }
        }
    }
    out
}

/// Each approved commit of an allowing decision's stacks whose parent the
/// same push brings (the commit before it in its stack), with that parent
/// (D-R172): its approvals are judged under the parent's repository
/// policy too. A stack's first commit sits on what the ref held (or on
/// published history), whose policy the push's bases give, and a
/// one-commit range has no stack: neither is listed.
pub fn over_pushed_parents(d: &GateDecision) -> Vec<(CommitId, ApprovedDelivery)> {
    let mut out = Vec::new();
    for r in d.deliveries() {
        if r.decision != Decision::Allow {
            continue;
        }
        for w in r.stack.windows(2) {
            if let (Decision::Allow, Some(l)) = (w[1].decision, &w[1].lineage_id) {
                out.push((
                    w[0].commit.clone(),
                    ApprovedDelivery {
                        refs: r.refs.clone(),
                        commit: w[1].commit.clone(),
                        lineage: l.clone(),
                        composed_of: w[1].composed_of.clone(),
                    },
                ));
            }
        }
    }
    out
}

/// An earlier commit whose note names the lineage a delivery rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorDelivery {
    /// The commit the note annotates.
    pub commit: CommitId,
    /// What it delivered: its parent's tree (the empty tree for a root
    /// commit) and its tree.
    pub trees: (TreeId, TreeId),
    /// Whether it comes before the delivery in the history of the ref the
    /// delivery updates, after the update (D-R125): reachable from the
    /// ref's new or old tip, and neither the delivered commit nor one of
    /// its descendants (an earlier commit of the same push counts).
    pub in_ref_history: bool,
    /// Whether its note names the approval and it delivered the approval's
    /// change on a base of its own ([`delivers_the_approved_change`]): a
    /// delivery through a rebase proof spends the approval as one with
    /// its own trees does (red team round 5, D-R133).
    pub carries_approved_change: bool,
    /// Whether its note names the approval and it delivered a squash that
    /// composed it ([`crate::review::composes_approval`], over the note's
    /// approved reviews as this server verified them): a squash spends
    /// every approval it composed (red team round 5, D-R134).
    pub composed_approval: bool,
}

/// Whether an earlier delivery noted with an approval delivered that
/// approval's change on a base of its own (D-R133): it changed exactly
/// the paths the approval changed (`prior_paths`; `approved_paths`, its
/// base to its final candidate), and none of them differs between its
/// tree and the approved final tree (`differing`, every path that does).
/// What a rebase proof lets in, so such a delivery spends the approval
/// whatever trees it had.
pub fn delivers_the_approved_change(
    prior_paths: &[RepoPath],
    approved_paths: &[RepoPath],
    differing: &[RepoPath],
) -> bool {
    let sorted = |p: &[RepoPath]| {
        let mut v = p.to_vec();
        v.sort();
        v.dedup();
        v
    };
    let approved = sorted(approved_paths);
    !approved.is_empty()
        && sorted(prior_paths) == approved
        && !differing.iter().any(|p| approved.binary_search(p).is_ok())
}

/// The change a bundle's leaf approved, its (base tree, final candidate
/// tree), when that leaf is approved; `None` for a bundle that approves
/// nothing (in review, escalated, empty). What a commit noted with it may
/// have delivered (D-R141: a CI form asks whether a commit's note holds
/// an approval it delivered).
pub fn approved_change(b: &crate::review::bundle::Bundle) -> Option<(TreeId, TreeId)> {
    let s = b.records.last()?.state();
    matches!(s.stage(), crate::review::state::Stage::Approved { .. }).then(|| {
        (
            s.snapshot().base_tree.clone(),
            s.final_candidate_tree().clone(),
        )
    })
}

/// An approval delivered again into a ref whose history it already
/// delivered (`approval_spent`): a revert of its revert with the old note
/// copied onto it, for example.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "commit {commit} delivers exactly what {prior} already delivered into {refname}, on the approval of {lineage}: an approval is spent by its first delivery into a protected ref's history. The same bytes on the same base cannot be reviewed again yet (`probity start` finds the spent review): deliver the change with other bytes (amend it together with the next change), review that commit (`probity start --commit <sha>`), then push"
)]
pub struct ApprovalSpent {
    /// The protected ref updated.
    pub refname: String,
    /// The commit delivered again.
    pub commit: CommitId,
    /// The lineage whose approval it replays.
    pub lineage: LineageId,
    /// The commit in the ref's history that spent it.
    pub prior: CommitId,
}

impl ApprovalSpent {
    /// The stable reason code, `approval_spent`.
    pub fn code(&self) -> &'static str {
        "approval_spent"
    }
}

/// The replay rule (issue 20 §3, D-R56): an approval delivers its change
/// into each protected ref's history once. A delivery of `commit` (with
/// `trees`, its parent's tree and its tree) into `refname` on `lineage`'s
/// approval is refused when another commit before it in that ref's
/// history (D-R125: the history after the update, so an earlier commit of
/// the same push counts), noted with the same lineage, delivered the same
/// trees, the approval's change on a base of its own (D-R133), or a squash
/// composing it (D-R134). The same commit pushed again, the same approval
/// delivered into another protected ref (a backport), a rebased or stacked
/// delivery of a change not yet in the ref all pass.
pub(crate) fn check_not_replayed(
    refname: &str,
    commit: &CommitId,
    trees: &(TreeId, TreeId),
    lineage: &LineageId,
    priors: &[PriorDelivery],
) -> Result<(), ApprovalSpent> {
    match priors.iter().find(|p| {
        p.commit != *commit
            && p.in_ref_history
            && (p.trees == *trees || p.carries_approved_change || p.composed_approval)
    }) {
        Some(p) => Err(ApprovalSpent {
            refname: refname.to_string(),
            commit: commit.clone(),
            lineage: lineage.clone(),
            prior: p.commit.clone(),
        }),
        None => Ok(()),
    }
}

/// One approval a delivery rests on, for the replay rule: its lineage, the
/// (base tree, final candidate tree) it approved when known (the review
/// record the bundle carried), and the earlier commits noted with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalHistory {
    /// The approval's lineage.
    pub lineage: LineageId,
    /// What it approved, base tree to final candidate tree.
    pub approved: Option<(TreeId, TreeId)>,
    /// Earlier commits whose notes name it.
    pub priors: Vec<PriorDelivery>,
}

/// The replay rule over every approval a delivery rests on (D-R56, and
/// D-R68 for squashes and proofs): the delivery of `commit` (`delivered`:
/// its parent's tree and its tree) is refused when, for any approval, an
/// earlier commit in the ref's history noted with it delivered either the
/// same trees or exactly what that approval approved. So a squash that
/// composes an approval already delivered, and a rebase of a delivered
/// (then reverted) commit carrying its old note, are replays as the revert
/// of a revert is; a stack, a rebase proof for a change not yet in the
/// ref, a backport and the same commit pushed again still pass.
pub fn check_approvals_not_replayed(
    refname: &str,
    commit: &CommitId,
    delivered: &(TreeId, TreeId),
    approvals: &[ApprovalHistory],
) -> Result<(), ApprovalSpent> {
    for a in approvals {
        check_not_replayed(refname, commit, delivered, &a.lineage, &a.priors)?;
        if let Some(approved) = &a.approved {
            check_not_replayed(refname, commit, approved, &a.lineage, &a.priors)?;
        }
    }
    Ok(())
}

/// An approval a delivery rests on that the delivering commit's own note
/// does not carry (`approval_not_on_commit`, D-R146): its bundle sat on
/// another commit's note, or a line of its own note that would carry it
/// gave no authority.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "commit {commit} is allowed into {refname} by the approval of {lineage}, which its own note does not carry (the bundle sits on another commit's note): an approval travels on the note of the commit it delivers, where the server finds it spent. Publish the review on that commit (`probity publish` writes each approval on the note of the commit it delivers), then push the commit with refs/notes/probity"
)]
pub struct ApprovalNotOnCommit {
    /// The protected ref the delivery updates.
    pub refname: String,
    /// The delivering commit.
    pub commit: CommitId,
    /// The approval its note lacks.
    pub lineage: LineageId,
}

impl ApprovalNotOnCommit {
    /// The stable reason code, `approval_not_on_commit`.
    pub fn code(&self) -> &'static str {
        "approval_not_on_commit"
    }
}

/// The binding rule of the notes gates (D-R146, red team round 7): every
/// approval a delivery rests on ([`ApprovedDelivery::approvals`], each
/// review a squash composes) is carried by a bundle imported from the
/// delivering commit's own note (`notes`, what each note gave). So each
/// delivery is named by the notes that name its approval, which only
/// grow at the server, and the replay check finds it there whatever the
/// history window holds. Publication writes each approval there already
/// (`probity publish`); a bundle moved to an empty commit on top (red
/// team round 6) authorises nothing.
pub fn check_approvals_on_own_notes(
    deliveries: &[ApprovedDelivery],
    notes: &[crate::review::NoteAuthority],
) -> Result<(), ApprovalNotOnCommit> {
    for d in deliveries {
        let own = notes.iter().find(|n| *n.commit() == d.commit);
        if let Some(l) = d
            .approvals()
            .iter()
            .find(|l| !own.is_some_and(|n| n.carries(l)))
        {
            return Err(ApprovalNotOnCommit {
                refname: d.refs.first().cloned().unwrap_or_default(),
                commit: d.commit.clone(),
                lineage: l.clone(),
            });
        }
    }
    Ok(())
}
