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

/// `kept` with `added` merged in, sorted and without duplicates (how a
/// store keeps a lineage's attestations and command evidence), or `None`
/// when that is `kept` as it is: nothing new, nothing to write.
pub fn merged<T: Ord + Clone>(kept: &[T], added: &[T]) -> Option<Vec<T>> {
    let mut all: Vec<T> = kept.iter().chain(added).cloned().collect();
    all.sort();
    all.dedup();
    (all != kept).then_some(all)
}

#[cfg(test)]
mod tests {
    use super::merged;

    #[test]
    fn merged_sorts_drops_duplicates_and_says_when_nothing_is_new() {
        assert_eq!(merged(&[1, 3], &[2, 3, 2]), Some(vec![1, 2, 3]));
        assert_eq!(merged(&[1, 3], &[3]), None, "nothing new");
        assert_eq!(merged::<u8>(&[], &[]), None);
        // A kept list that is not in order is written again, in order.
        assert_eq!(merged(&[3, 1], &[]), Some(vec![1, 3]));
    }
}
