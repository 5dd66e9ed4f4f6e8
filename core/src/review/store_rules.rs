//! Rules every review store follows alike, whatever holds its bytes (the
//! file store, the in-memory store): pure, over what the store read.

use super::{LineageId, StateRecord};

/// The lineages above a successor `record`, nearest first, as far as the
/// store holds them: each predecessor link is followed through `load` (the
/// store's read of a lineage's record), and the walk stops at a lineage
/// the store does not hold, at a first record, or after as many links as
/// the record's generation (so a cycle cannot hold it).
pub fn ancestors<E>(
    record: &StateRecord,
    mut load: impl FnMut(&LineageId) -> Result<Option<StateRecord>, E>,
) -> Result<Vec<LineageId>, E> {
    let bound = record.state().generation() as usize;
    let mut out: Vec<LineageId> = Vec::new();
    let mut link = record.state().predecessor().cloned();
    while let Some(above) = link.filter(|_| out.len() < bound) {
        link = load(&above.lineage_id)?.and_then(|r| r.state().predecessor().cloned());
        out.push(above.lineage_id);
    }
    Ok(out)
}
