//! A lineage's kept lists: its signed statements and its command evidence
//! documents, as the file store keeps them (core's `merged_bounded`).

use probity_core::review::LineageId;
use probity_core::review::{
    CommandEvidenceDocument, DsseEnvelope, MAX_ATTESTATIONS, MAX_EVIDENCE_PER_LINEAGE,
    merged_bounded,
};
use probity_ports::review::{AttestationStore, StoreError};
use std::collections::BTreeMap;

use crate::InMemoryStore;

/// Merges `added` into `kept`'s list for `lineage` (core's
/// [`merged_bounded`]), refusing more than `max` with nothing changed.
fn keep_listed<T: Ord + Clone>(
    kept: &mut BTreeMap<LineageId, Vec<T>>,
    lineage: &LineageId,
    added: &[T],
    max: usize,
    what: &str,
) -> Result<(), StoreError> {
    let held = kept.get(lineage).map_or(&[][..], Vec::as_slice);
    match merged_bounded(held, added, max) {
        Ok(Some(all)) => {
            kept.insert(lineage.clone(), all);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(_) => Err(StoreError::Malformed {
            path: format!("memory:{what}/{lineage}.json"),
            detail: format!("more than {max} {what} for one lineage"),
        }),
    }
}

impl AttestationStore for InMemoryStore {
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[DsseEnvelope],
    ) -> Result<(), StoreError> {
        let mut mem = self.mem();
        keep_listed(
            &mut mem.attestations,
            lineage,
            envelopes,
            MAX_ATTESTATIONS,
            "attestations",
        )
    }

    fn attestations(&self, lineage: &LineageId) -> Result<Vec<DsseEnvelope>, StoreError> {
        Ok(self
            .mem()
            .attestations
            .get(lineage)
            .cloned()
            .unwrap_or_default())
    }

    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        let mut mem = self.mem();
        keep_listed(
            &mut mem.evidence,
            lineage,
            docs,
            MAX_EVIDENCE_PER_LINEAGE,
            "evidence",
        )
    }

    fn evidence(&self, lineage: &LineageId) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        Ok(self
            .mem()
            .evidence
            .get(lineage)
            .cloned()
            .unwrap_or_default())
    }
}
