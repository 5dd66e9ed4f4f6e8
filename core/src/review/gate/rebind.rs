//! R8.9, chained recovery rebind.
//!
//! A review approved and delivered (committed), whose candidate then changed
//! in its own scope, is recovered (`scope_changed`) into a successor that
//! reviews the next change on top of it: its base is the predecessor's final
//! candidate. Discovery then calls the predecessor history (R9.3), and a
//! publication of what the chain approved found no single standing receipt:
//! the first commit alone was `receipt_superseded`, and a squash of the
//! whole chain matched no one lineage. The rebind composes the chain
//! instead, only where a publication gate would deny, and only when every
//! part of it holds:
//!
//! - the segments are stitched, from where the walk starts to the chain's
//!   leaf: each successor's base tree is its predecessor's final candidate
//!   tree (a successor that reviewed the whole change again on the old base
//!   makes its predecessor history, as before);
//! - the delivery covers a contiguous run exactly: its base tree is the base
//!   of the first lineage of the run, and its tree is the final candidate of
//!   the last;
//! - every lineage of that run is approved, with the receipt its state
//!   derives. A lineage after the run (the leaf reviewing the next change,
//!   still in review or even escalated) must be stitched but need not be
//!   approved: it reviews a change on top of the run's last candidate and
//!   takes nothing from what the run approved, so committed, approved work
//!   can be pushed while the next change is reviewed.
//!
//! Anything else keeps the original denial, unchanged. The links themselves
//! (each successor names its predecessor at its exact revision) are checked
//! where the chain is read.

use crate::review::ids::{LineageId, TreeId};
use crate::review::rebase::{GateProof, ProofKind};
use crate::review::receipt::Receipt;
use crate::review::snapshot::LiveTarget;
use crate::review::state::{ReviewState, Stage};

use super::sentences::{RebindSaid, allow};
use super::{Decision, Gate, GateDecision};

/// At most this many lineages are composed (a longer chain keeps its
/// denial).
pub const MAX_REBIND_CHAIN: usize = 64;

/// One lineage of the chain, as the store holds it.
#[derive(Debug, Clone, Copy)]
pub struct ChainLink<'a> {
    /// The lineage's state as loaded.
    pub state: &'a ReviewState,
    /// Its receipt file's bytes; `None` when there is none.
    pub receipt_file: Option<&'a [u8]>,
}

fn approved_with_receipt(link: &ChainLink<'_>) -> bool {
    matches!(link.state.stage, Stage::Approved { .. })
        && Receipt::derive(link.state)
            .and_then(|r| r.to_bytes().ok())
            .is_some_and(|derived| Some(&derived[..]) == link.receipt_file)
}

/// Whether a denial is offered to the recovery rebind at all: only a
/// publication gate's denial (pre-commit judges the worktree against its
/// own lineage, never a chain), and only a denial. The driver asks this
/// before it reads the chain from the store.
pub fn rebind_offered(gate: Gate, denied: &GateDecision) -> bool {
    gate != Gate::PreCommit && denied.decision == Decision::Deny
}

/// Rebinds `denied` (the decision for `live` at a publication gate) to the
/// recovery chain `chain`: the lineage discovery found first, then each
/// successor to the leaf. Returns an allow with a `recovery_chain` proof
/// when the chain covers the delivery as described above; otherwise
/// `denied` itself.
pub fn rebind(
    gate: Gate,
    live: &LiveTarget,
    denied: GateDecision,
    chain: &[ChainLink<'_>],
) -> GateDecision {
    if !rebind_offered(gate, &denied) || chain.len() < 2 || chain.len() > MAX_REBIND_CHAIN {
        return denied;
    }
    let stitched = chain.windows(2).all(|w| {
        w[1].state.snapshot.base_tree == *w[0].state.final_candidate_tree()
            && w[1]
                .state
                .predecessor
                .as_ref()
                .is_some_and(|p| p.lineage_id == w[0].state.lineage_id)
    });
    if !stitched {
        return denied;
    }
    let Some(start) = chain
        .iter()
        .position(|l| l.state.snapshot.base_tree == live.base_tree)
    else {
        return denied;
    };
    let Some(end) = chain[start..]
        .iter()
        .position(|l| *l.state.final_candidate_tree() == live.candidate_tree)
        .map(|i| start + i)
    else {
        return denied;
    };
    // The run delivered must be approved; a later link still in review (or
    // escalated, or invalidated) reviews a further change on top of the
    // run's last candidate, stitched, so it takes nothing from what the run
    // approved: what is done can be published while the next change is
    // reviewed.
    if !chain[start..=end].iter().all(approved_with_receipt) {
        return denied;
    }
    let run: Vec<LineageId> = chain[start..=end]
        .iter()
        .map(|l| l.state.lineage_id.clone())
        .collect();
    let first = chain[start].state;
    let last = chain[end].state;
    let leaf = &chain[chain.len() - 1].state.lineage_id;
    let said = RebindSaid::RecoveryChain {
        run: &run,
        from: &first.snapshot.base_tree,
        to: last.final_candidate_tree(),
        leaf,
    };
    let allowed = allow(gate, Some(&last.lineage_id), &said);
    GateDecision {
        proof: Some(Box::new(GateProof {
            kind: ProofKind::RecoveryChain,
            receipt_base: first.snapshot.base_tree.clone(),
            live_base: live.base_tree.clone(),
            chain: run,
        })),
        ..allowed
    }
}

/// At most this many approved reviews are composed into one squash.
pub const MAX_COMPOSED_REVIEWS: usize = 16;

/// Whether a delivery of `span` (its parent's tree, its tree) composed
/// `lineage`'s approval (D-R134): some run of `links` that
/// [`compose_reviews`] accepts for that span (each approved with the
/// receipt its state derives, each on the previous one's final candidate
/// tree, the first on the span's base and the last ending on its tree, at
/// most [`MAX_COMPOSED_REVIEWS`] long) passes through `lineage`. What the
/// replay rule asks of an earlier squash noted with an approval it did not
/// deliver alone: a squash spends every approval it composed, so one of
/// them re-applied alone after the squash was reverted is a replay (red
/// team round 5). Any such run counts, not only the one a gate's walk
/// would take: spending is the conservative side.
pub fn composes_approval(
    span: (&TreeId, &TreeId),
    links: &[ChainLink<'_>],
    lineage: &LineageId,
) -> bool {
    let edges: Vec<(&TreeId, &TreeId, &LineageId)> = links
        .iter()
        .filter(|l| approved_with_receipt(l))
        .map(|l| {
            (
                &l.state.snapshot.base_tree,
                l.state.final_candidate_tree(),
                &l.state.lineage_id,
            )
        })
        .collect();
    let from = fewest_links(span.0, &edges, false);
    let to = fewest_links(span.1, &edges, true);
    edges.iter().any(|(base, last, l)| {
        *l == lineage
            && matches!(
                (from.get(base), to.get(last)),
                (Some(a), Some(b)) if a + 1 + b <= MAX_COMPOSED_REVIEWS
            )
    })
}

/// The fewest `edges` (base tree, final candidate tree) stitched from
/// `start` to each tree they reach (`backwards`: from each tree to
/// `start`), at most [`MAX_COMPOSED_REVIEWS`] of them; `start` itself at 0.
fn fewest_links<'a>(
    start: &'a TreeId,
    edges: &[(&'a TreeId, &'a TreeId, &LineageId)],
    backwards: bool,
) -> std::collections::BTreeMap<&'a TreeId, usize> {
    let mut seen = std::collections::BTreeMap::from([(start, 0usize)]);
    let mut frontier = vec![start];
    for depth in 1..=MAX_COMPOSED_REVIEWS {
        let mut next = Vec::new();
        for (base, last, _) in edges {
            let (from, to) = if backwards {
                (last, base)
            } else {
                (base, last)
            };
            if frontier.contains(from) && !seen.contains_key(to) {
                seen.insert(*to, depth);
                next.push(*to);
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    seen
}

/// A squash of reviewed commits (issue 21 §3): rebinds `denied` (the
/// decision for `live` at a publication gate) to `links`, approved reviews
/// found one after the other (the first on `live`'s base tree, each next
/// one on the previous one's final candidate tree), when their
/// composition is exactly the delivered change: the first's base is the
/// live base, each is stitched to the previous (its base tree is the
/// previous one's final candidate), the last's final candidate is the live
/// candidate, and every one is approved with the receipt its state
/// derives. Unlike the recovery rebind, the reviews need not be linked:
/// each reviewed its own change on top of the last one's approved result,
/// so the squash delivers what the separate commits would have. Returns
/// an allow with a `composed_reviews` proof, or `denied` unchanged.
pub fn compose_reviews(
    gate: Gate,
    live: &LiveTarget,
    denied: GateDecision,
    links: &[ChainLink<'_>],
) -> GateDecision {
    if !rebind_offered(gate, &denied) || links.len() < 2 || links.len() > MAX_COMPOSED_REVIEWS {
        return denied;
    }
    let (Some(first), Some(last)) = (links.first(), links.last()) else {
        return denied;
    };
    let stitched = links
        .windows(2)
        .all(|w| w[1].state.snapshot.base_tree == *w[0].state.final_candidate_tree());
    if first.state.snapshot.base_tree != live.base_tree
        || *last.state.final_candidate_tree() != live.candidate_tree
        || !stitched
        || !links.iter().all(approved_with_receipt)
    {
        return denied;
    }
    let run: Vec<LineageId> = links.iter().map(|l| l.state.lineage_id.clone()).collect();
    let said = RebindSaid::Composed {
        run: &run,
        from: &first.state.snapshot.base_tree,
        to: last.state.final_candidate_tree(),
    };
    let allowed = allow(gate, Some(&last.state.lineage_id), &said);
    GateDecision {
        proof: Some(Box::new(GateProof {
            kind: ProofKind::ComposedReviews,
            receipt_base: first.state.snapshot.base_tree.clone(),
            live_base: live.base_tree.clone(),
            chain: run,
        })),
        ..allowed
    }
}
