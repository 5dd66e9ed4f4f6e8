//! The server's replay check (D-R56, D-R68): an approval is spent by its
//! first delivery into a protected ref's history. Core decides
//! (`server::check_approvals_not_replayed`); this driver reads the notes
//! that name each approval, their commits' trees and the imported records.

use probity_core::review::GateDecision;
use probity_core::review::LineageId;
use probity_core::review::{
    ApprovalHistory, ApprovedDelivery, PriorDelivery, ReceiveUpdate, approved_deliveries,
    check_approvals_not_replayed,
};
use probity_core::review::{CommitId, TreeId};

use super::*;

/// How many earlier commits noted with one lineage the replay check reads.
const MAX_PRIOR_NOTES: usize = 64;

/// How many commits that change something a CI form reads from a ref's
/// history for earlier deliveries ([`Priors::NotesAndHistory`]).
pub(super) const MAX_HISTORY_PRIORS: usize = 1_000;

/// How many commits of a ref's history a CI form lists to find them: empty
/// commits (which pass every gate as `no_change`) do not push a delivery
/// out of the window (red team round 3), up to this many.
pub(super) const MAX_HISTORY_LISTED: usize = 10_000;

/// Where the replay check learns of an approval's earlier deliveries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Priors {
    /// The notes that name the approval: the server hook, where the notes
    /// ref only grows, so a note once there stays.
    Notes,
    /// Those notes and the ref's own history (its newest
    /// [`MAX_HISTORY_PRIORS`] commits that change something): a CI form, where the notes ref is
    /// any pusher's to rewrite (a forge runs no hook guarding it), so a
    /// dropped note must not unspend an approval. A commit there that
    /// delivered the same trees, or exactly what the approval approved, is
    /// an earlier delivery whatever its note says (red team round 2).
    NotesAndHistory,
}

/// The newest [`MAX_HISTORY_PRIORS`] single-parent (or root) commits of
/// `old`'s history that change something (among its newest
/// [`MAX_HISTORY_LISTED`]), each with the trees it delivered, as earlier
/// deliveries in that ref's history.
fn history_priors<G: CommitGit + RangeGit>(
    git: &G,
    old: &CommitId,
) -> Result<Vec<PriorDelivery>, TransportError> {
    let listed = git.range(old, &[], &RemoteScope::None, MAX_HISTORY_LISTED)?;
    let trees: std::collections::BTreeMap<&CommitId, &TreeId> =
        listed.iter().map(|c| (&c.commit, &c.tree)).collect();
    let mut out = Vec::new();
    for c in &listed {
        let base = match c.parents[..] {
            [] => git.empty_tree()?,
            [ref p] => match trees.get(p) {
                Some(t) => (*t).clone(),
                None => git.commit_tree(p)?,
            },
            _ => continue,
        };
        if base == c.tree {
            continue;
        }
        out.push(PriorDelivery {
            commit: c.commit.clone(),
            in_ref_history: true,
            trees: (base, c.tree.clone()),
        });
        if out.len() == MAX_HISTORY_PRIORS {
            break;
        }
    }
    Ok(out)
}

/// The (base tree, tree) a commit delivers: its parent's tree (the empty
/// tree for a root commit) and its own; `None` for a merge, which delivers
/// no review.
pub(super) fn delivered_trees<G: CommitGit + RangeGit>(
    git: &G,
    commit: &CommitId,
) -> Result<Option<(TreeId, TreeId)>, TransportError> {
    let Some(c) = git
        .range(commit, &[], &RemoteScope::None, 1)?
        .into_iter()
        .next()
    else {
        return Ok(None);
    };
    let base = match c.parents[..] {
        [] => git.empty_tree()?,
        [ref p] => git.commit_tree(p)?,
        _ => return Ok(None),
    };
    Ok(Some((base, c.tree)))
}

/// The replay check (core's `check_approvals_not_replayed`, D-R56, D-R68)
/// over an allowing decision: for each commit it lets in, into each
/// updated ref with a history, every approval it rests on (each composed
/// review of a squash) is read: what it approved (its record in
/// `scratch`), and the earlier commits the notes name it on (their trees,
/// whether the ref's old tip reaches them); the first replay is the answer.
/// Every lineage is searched for at once (one search of the notes tree),
/// and a short answer is an error, never "named nowhere". With
/// [`Priors::NotesAndHistory`] the ref's own history counts too.
pub(super) fn replayed<G: CommitGit + RangeGit + NotesGit, S: RecordStore>(
    git: &G,
    scratch: &S,
    notes: &CommitId,
    judged: &[&ReceiveUpdate],
    decision: &GateDecision,
    priors_from: Priors,
) -> Result<Option<ReceiveDenial>, TransportError> {
    let olds_of = |delivery: &ApprovedDelivery| -> Vec<(&str, &CommitId)> {
        judged
            .iter()
            .filter(|u| delivery.refs.contains(&u.refname))
            .filter_map(|u| u.old.as_ref().map(|o| (u.refname.as_str(), o)))
            .collect()
    };
    let deliveries: Vec<ApprovedDelivery> = approved_deliveries(decision)
        .into_iter()
        .filter(|d| !olds_of(d).is_empty())
        .collect();
    let mut needles: Vec<&str> = deliveries
        .iter()
        .flat_map(|d| d.approvals().iter().map(LineageId::as_str))
        .collect();
    needles.sort_unstable();
    needles.dedup();
    let named_each = git.notes_naming_each(notes, &needles, MAX_PRIOR_NOTES)?;
    if named_each.len() != needles.len() {
        let short: AdapterError = format!(
            "the notes search answered for {} of {} lineages",
            named_each.len(),
            needles.len()
        )
        .into();
        return Err(short.into());
    }
    let named_by: std::collections::BTreeMap<&str, Vec<CommitId>> =
        needles.iter().copied().zip(named_each).collect();
    let mut histories: std::collections::BTreeMap<CommitId, Vec<PriorDelivery>> =
        std::collections::BTreeMap::new();
    for delivery in &deliveries {
        let mut named = Vec::new();
        for lineage in delivery.approvals() {
            let commits: Vec<CommitId> = named_by
                .get(lineage.as_str())
                .into_iter()
                .flatten()
                .filter(|c| **c != delivery.commit)
                .cloned()
                .collect();
            if !commits.is_empty() || priors_from == Priors::NotesAndHistory {
                let approved = scratch.load(lineage)?.map(|r| {
                    let s = r.state();
                    (
                        s.snapshot().base_tree.clone(),
                        s.final_candidate_tree().clone(),
                    )
                });
                named.push((lineage.clone(), approved, commits));
            }
        }
        if named.is_empty() {
            continue;
        }
        let Some(trees) = delivered_trees(git, &delivery.commit)? else {
            continue;
        };
        for (refname, old) in olds_of(delivery) {
            if priors_from == Priors::NotesAndHistory && !histories.contains_key(old) {
                histories.insert(old.clone(), history_priors(git, old)?);
            }
            let mut approvals = Vec::new();
            for (lineage, approved, commits) in &named {
                let mut priors = Vec::new();
                for c in commits {
                    let Some(prior_trees) = delivered_trees(git, c)? else {
                        continue;
                    };
                    priors.push(PriorDelivery {
                        commit: c.clone(),
                        in_ref_history: git.is_ancestor(c, old)?,
                        trees: prior_trees,
                    });
                }
                if let Some(history) = histories.get(old) {
                    priors.extend(history.iter().cloned());
                }
                approvals.push(ApprovalHistory {
                    lineage: lineage.clone(),
                    approved: approved.clone(),
                    priors,
                });
            }
            if let Err(e) =
                check_approvals_not_replayed(refname, &delivery.commit, &trees, &approvals)
            {
                return Ok(Some(ReceiveDenial {
                    reason_code: e.code().into(),
                    refname: refname.to_string(),
                    commit: Some(delivery.commit.clone()),
                    message: e.to_string(),
                    next_action: "start_commit_review",
                }));
            }
        }
    }
    Ok(None)
}
