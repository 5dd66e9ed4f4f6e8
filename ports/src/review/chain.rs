//! Reading a lineage's recovery chain: supersession, leaves, ancestors,
//! and resuming the lineage indexed for a target.

use probity_core::digest::Sha256Digest;
use probity_core::review::LineageId;
use probity_core::review::StateRecord;
use probity_core::review::{Ancestor, ChainError, check_chain, check_link};

use super::*;

/// The leaf of the chain that supersedes `record` (if any), after checking
/// the chain that leads to `record` itself (R9.3): a superseded lineage is
/// history, not authority, and a chain that does not hold fails closed.
pub(super) fn supersession<S: RecordStore + ChainStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Option<LineageId>, ReviewError> {
    let mut ancestors = Vec::new();
    let mut link = record.state().predecessor().cloned();
    let mut child = record.state().lineage_id().clone();
    // Generations decrease by one per step: at most generation - 1 loads.
    while let Some(l) = link {
        if ancestors.len() >= record.state().generation() as usize {
            break;
        }
        match store.load(&l.lineage_id)? {
            Some(r) => {
                let successor = store.successor_of(&l.lineage_id)?;
                if successor.is_none()
                    && store.pending_successor_of(&l.lineage_id)?.as_ref() == Some(&child)
                {
                    // Written, indexed, not yet marked: a recovery running
                    // now (or interrupted), not a broken chain.
                    return Err(StoreError::RecoveryPending {
                        lineage: l.lineage_id.clone(),
                        successor: child,
                    }
                    .into());
                }
                child = l.lineage_id.clone();
                link = r.state().predecessor().cloned();
                ancestors.push(Some(Ancestor {
                    record: r,
                    successor,
                }));
            }
            None => {
                ancestors.push(None);
                break;
            }
        }
    }
    check_chain(record.state(), &ancestors)?;
    leaf_of(store, record)
}

/// The last lineage of the recovery chain below `record`, following
/// supersession markers and checking every link (the successor names its
/// predecessor at its revision, one generation on). `None`: not
/// superseded. Generations grow by one per link, so the walk ends.
fn leaf_of<S: RecordStore + ChainStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Option<LineageId>, ReviewError> {
    let mut current = record.clone();
    let mut leaf = None;
    while let Some(next_id) = store.successor_of(current.state().lineage_id())? {
        let next = match store.load(&next_id) {
            Ok(next) => linked(current, &next_id, next)?,
            // A successor burned once used (R10.5) or retired by a repair
            // (R9.4) still supersedes: the chain ends there, and its
            // ancestors stay history (their gates deny, never error).
            Err(StoreError::Consumed { .. } | StoreError::Retired { .. }) => {
                return Ok(Some(next_id));
            }
            Err(e) => return Err(e.into()),
        };
        leaf = Some(next_id);
        current = next;
    }
    Ok(leaf)
}

/// `next` as loaded, checked as the successor `next_id` of `current`: it
/// is there (else the chain dangles) and names `current` at its revision,
/// one generation on.
fn linked(
    current: StateRecord,
    next_id: &LineageId,
    next: Option<StateRecord>,
) -> Result<StateRecord, ReviewError> {
    let next = next.ok_or_else(|| ChainError::Dangling {
        lineage: current.state().lineage_id().clone(),
        predecessor: next_id.clone(),
    })?;
    check_link(
        next.state(),
        &Ancestor {
            record: current,
            successor: Some(next_id.clone()),
        },
    )?;
    Ok(next)
}

/// One lineage of a chain and its receipt file's bytes, if any.
pub(super) type ChainEntry = (StateRecord, Option<Vec<u8>>);

/// `record` and every successor to its chain's leaf, each link checked (the
/// successor names its predecessor at its revision, one generation on),
/// with each lineage's receipt file: what the recovery rebind composes
/// (R8.9). At most one lineage past [`MAX_REBIND_CHAIN`] is read.
///
/// [`MAX_REBIND_CHAIN`]: probity_core::review::MAX_REBIND_CHAIN
pub(super) fn forward_chain<S: RecordStore + ChainStore + ReceiptStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Vec<ChainEntry>, ReviewError> {
    use probity_core::review::MAX_REBIND_CHAIN;
    let mut out = vec![(
        record.clone(),
        store.read_receipt(record.state().lineage_id())?,
    )];
    let mut current = record.clone();
    while let Some(next_id) = store.successor_of(current.state().lineage_id())? {
        // One past the bound is read, never more: core's rebind refuses a
        // chain longer than the bound, so a long chain is never cut to one
        // whose last read lineage passes for its leaf.
        if out.len() > MAX_REBIND_CHAIN {
            break;
        }
        let next = linked(current, &next_id, store.load(&next_id)?)?;
        let receipt = store.read_receipt(&next_id)?;
        out.push((next.clone(), receipt));
        current = next;
    }
    Ok(out)
}

/// The lineages of `record`'s chain: itself and its ancestors.
pub(super) fn chain_of<S: RecordStore>(
    store: &S,
    record: &StateRecord,
) -> Result<Vec<LineageId>, ReviewError> {
    let mut out = vec![record.state().lineage_id().clone()];
    let mut link = record.state().predecessor().cloned();
    while let Some(l) = link {
        if out.len() > record.state().generation() as usize {
            break;
        }
        out.push(l.lineage_id.clone());
        link = store
            .load(&l.lineage_id)?
            .and_then(|r| r.state().predecessor().cloned());
    }
    Ok(out)
}

pub(super) fn resume<S: RecordStore + IndexStore>(
    store: &S,
    target: &Sha256Digest,
) -> Result<Option<StateRecord>, ReviewError> {
    let Some(lineage) = store.lookup_target(target)? else {
        return Ok(None);
    };
    let record = store.get(&lineage)?;
    // A corrected candidate's entry is claimed just before the state that
    // names it is written; if that write never landed, the claim is stale
    // and names nothing.
    if record.state().snapshot().target != *target && record.state().final_target() != *target {
        return Ok(None);
    }
    Ok(Some(record))
}
