//! Discovery: which lineage governs a live target, by lookups only (R12.2),
//! shared by the gates and `status` so that both always relate the live
//! target to the same lineage in the same way.
//!
//! Order: the target identity (the exact candidate, or a candidate
//! corrected since), the delta identity (the approved change carried onto
//! another base: the rebase proof), the live base as a reviewed base (an
//! approved slice not committed yet), the live base as a final candidate
//! (an approved slice committed: R8.6). Each step is one index read.

use probity_core::review::LiveTarget;
use probity_core::review::Relation;
use probity_core::review::RepoPath;
use probity_core::review::StateRecord;
use probity_core::review::{DeltaIndexing, IndexLookup, delta_indexing, index_holds};
use probity_core::review::{RebaseCheck, TreeDelta, check_rebase, reviewed_outside_delta};

use super::*;

/// What discovery found for a live target.
#[derive(Debug, Clone)]
pub(super) enum Found {
    /// The lineage whose final target is the live target.
    Exact(StateRecord),
    /// A lineage the live target relates to without being its final
    /// target, and the paths in which its final candidate differs from the
    /// live candidate: its frozen candidate corrected since, the latest
    /// approval on the live base (its slice not committed), or the latest
    /// approval whose final candidate is the live base (committed).
    Prior(StateRecord, Vec<RepoPath>),
    /// The approved lineage whose change has the live target's delta
    /// identity, on another base, and what the rebase proof found.
    Rebased(StateRecord, RebaseCheck),
    /// Nothing; the live changed paths.
    None(Vec<RepoPath>),
    /// Nothing, and a live changed path is not UTF-8 (no review can freeze
    /// it); the live changed paths, that one escaped.
    NonUtf8(Vec<RepoPath>),
}

impl Found {
    /// How the found lineage relates to the live target (what `status`
    /// reports; core classifies), the paths that differ, and the proof of
    /// a rebase.
    pub(super) fn applicability(&self) -> Option<(&StateRecord, Relation)> {
        match self {
            Found::Exact(r) => Some((r, Relation::current())),
            Found::Prior(r, differing) => Some((
                r,
                Relation::of_difference(&r.state().snapshot().paths, differing.clone()),
            )),
            Found::Rebased(r, check) => Some((r, Relation::of_rebase(check.clone()))),
            Found::None(_) | Found::NonUtf8(_) => None,
        }
    }
}

fn repo<E: std::error::Error + Send + Sync + 'static>(e: E) -> ReviewError {
    ReviewError::Repository(Box::new(e))
}

/// The delta between two trees, as Git reports it; `None` when a path is
/// not UTF-8 (no reviewed delta can hold one).
pub(super) fn tree_delta<G: GitPort>(
    git: &G,
    from: &probity_core::review::TreeId,
    to: &probity_core::review::TreeId,
) -> Result<Option<TreeDelta>, ReviewError> {
    match git.tree_delta(TreeSpan { from, to })? {
        Some(entries) => TreeDelta::new(entries).map(Some).map_err(repo),
        None => Ok(None),
    }
}

/// The delta of a lineage's own change (receipt base to final candidate).
fn reviewed_delta<G: GitPort>(git: &G, record: &StateRecord) -> Result<TreeDelta, ReviewError> {
    let state = record.state();
    tree_delta(
        git,
        &state.snapshot().base_tree,
        state.final_candidate_tree(),
    )?
    .ok_or_else(|| ReviewError::IndexMismatch(state.lineage_id().clone()))
}

fn load<S: RecordStore>(
    store: &S,
    lineage: &probity_core::review::LineageId,
) -> Result<StateRecord, ReviewError> {
    Ok(store.get(lineage)?)
}

fn prior<G: GitPort>(
    git: &G,
    record: StateRecord,
    live: &LiveTarget,
) -> Result<Found, ReviewError> {
    let differing = git.differing_paths(TreeSpan {
        from: record.state().final_candidate_tree(),
        to: &live.candidate_tree,
    })?;
    Ok(Found::Prior(record, differing))
}

/// The rebase proof for an approved lineage against the live target whose
/// delta is `live_delta`, derived from the trees: `reviewed` is the
/// lineage's own delta (receipt base to final candidate) re-derived from
/// Git, never taken from the index.
fn rebase_check<G: GitPort>(
    git: &G,
    record: &StateRecord,
    live: &LiveTarget,
    reviewed: &TreeDelta,
    live_delta: &TreeDelta,
) -> Result<RebaseCheck, ReviewError> {
    let state = record.state();
    let base = &state.snapshot().base_tree;
    let outside = reviewed_outside_delta(&state.snapshot().paths, reviewed);
    let moved = if outside.is_empty() {
        Vec::new()
    } else {
        git.differing_paths(TreeSpan {
            from: base,
            to: &live.base_tree,
        })?
    };
    Ok(check_rebase(
        &state.snapshot().paths,
        base,
        reviewed,
        &live.base_tree,
        live_delta,
        &moved,
    ))
}

/// Discovers the lineage for a live target (see the module docs).
pub(super) fn discover<G: GitPort, S: RecordStore + IndexStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
) -> Result<Found, ReviewError> {
    if let Some(record) = resume(store, &live.target)? {
        if record.state().final_target() == live.target {
            return Ok(Found::Exact(record));
        }
        // The live candidate is what this lineage froze, but a correction
        // has since moved it on: compare with the corrected candidate.
        return prior(git, record, live);
    }
    let live_delta = tree_delta(git, &live.base_tree, &live.candidate_tree)?;
    let indexed = match &live_delta {
        Some(d) => store.lookup_delta(&d.identity())?,
        None => None,
    };
    if let (Some(l), Some(live_delta)) = (indexed, &live_delta) {
        let record = load(store, &l)?;
        if !index_holds(IndexLookup::Delta, record.state()) {
            return Err(ReviewError::IndexMismatch(l));
        }
        // The index is a lookup, not evidence: a lineage whose own trees
        // derive another delta was indexed wrongly.
        let reviewed = reviewed_delta(git, &record)?;
        if reviewed.identity() != live_delta.identity() {
            return Err(ReviewError::IndexMismatch(l));
        }
        let check = rebase_check(git, &record, live, &reviewed, live_delta)?;
        return Ok(Found::Rebased(record, check));
    }
    if let Some(l) = store.lookup_base(&live.base_tree)? {
        let record = load(store, &l)?;
        if !index_holds(IndexLookup::Base(&live.base_tree), record.state()) {
            return Err(ReviewError::IndexMismatch(l));
        }
        return prior(git, record, live);
    }
    if let Some(l) = store.lookup_final(&live.base_tree)? {
        let record = load(store, &l)?;
        if !index_holds(IndexLookup::Final(&live.base_tree), record.state()) {
            return Err(ReviewError::IndexMismatch(l));
        }
        return prior(git, record, live);
    }
    // Diagnostic: an approved change some of whose exact edits the live
    // target repeats on another base (a rebase onto upstream work that
    // touched a reviewed path). Never an allow: its delta differs.
    if let Some(live_delta) = &live_delta {
        for (key, entry) in live_delta.entry_identities() {
            let Some(l) = store.lookup_delta_entry(&key)? else {
                continue;
            };
            let record = load(store, &l)?;
            if !index_holds(IndexLookup::Delta, record.state()) {
                return Err(ReviewError::IndexMismatch(l));
            }
            let reviewed = reviewed_delta(git, &record)?;
            if !reviewed.contains(entry) {
                return Err(ReviewError::IndexMismatch(l));
            }
            let check = rebase_check(git, &record, live, &reviewed, live_delta)?;
            return Ok(Found::Rebased(record, check));
        }
    }
    Ok(match live_delta {
        Some(d) => Found::None(d.paths()),
        // A non-UTF-8 path: named lossily, for the denial only.
        None => Found::NonUtf8(git.differing_paths(TreeSpan::from(live))?),
    })
}

/// How a given lineage relates to the live target (`status --lineage`,
/// `export-context`): current, the rebase proof when its approved change
/// sits on another base with the same delta, else unrelated or
/// scope-changed by the paths its final candidate differs in.
pub(super) fn relate<G: GitPort>(
    git: &G,
    record: &StateRecord,
    live: &LiveTarget,
) -> Result<Relation, ReviewError> {
    if record.state().final_target() == live.target {
        return Ok(Relation::current());
    }
    if record.state().may_carry_onto(&live.base_tree) {
        let live_delta = tree_delta(git, &live.base_tree, &live.candidate_tree)?;
        let reviewed = reviewed_delta(git, record)?;
        if let Some(live_delta) = live_delta.filter(|d| d.identity() == reviewed.identity()) {
            return Ok(Relation::of_rebase(rebase_check(
                git,
                record,
                live,
                &reviewed,
                &live_delta,
            )?));
        }
    }
    let differing = git.differing_paths(TreeSpan {
        from: record.state().final_candidate_tree(),
        to: &live.candidate_tree,
    })?;
    Ok(Relation::of_difference(
        &record.state().snapshot().paths,
        differing,
    ))
}

/// Indexes an approved, not superseded lineage under its delta identity
/// (the rebase proof's lookup), derived from its trees in Git: the base
/// tree and the final candidate tree must be in the object store.
/// Idempotent; `finalize` calls it after every approval and every retry of
/// one, and whatever imports a record (a bundle) should call it too: the
/// store cannot derive the key alone (it reads no Git objects).
pub fn index_rebase_delta<G: GitPort, S: ChainStore + IndexStore>(
    git: &G,
    store: &S,
    record: &StateRecord,
) -> Result<(), ReviewError> {
    let state = record.state();
    // A lineage not approved, or superseded, is not indexed (core's rule;
    // the store refuses the first, and this caller never asks it). The
    // successor marker is read only for an approved lineage.
    if !index_holds(IndexLookup::Delta, state)
        || delta_indexing(state, store.successor_of(state.lineage_id())?.is_some())
            != Ok(DeltaIndexing::Index)
    {
        return Ok(());
    }
    let delta = reviewed_delta(git, record)?;
    let entries: Vec<_> = delta
        .entry_identities()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    store.index_delta(record, &delta.identity(), &entries)?;
    Ok(())
}
