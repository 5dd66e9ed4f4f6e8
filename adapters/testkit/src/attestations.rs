//! DSSE envelopes kept beside a review store: [`WithAttestations`] adds
//! [`AttestationStore`] to a store it borrows (an [`InMemoryStore`], or any
//! [`ReviewStore`](probity_ports::review::ReviewStore)), with the file
//! store's semantics: a lineage's envelopes sorted and de-duplicated, at
//! most [`MAX_ATTESTATIONS`], never interpreted. Every other call passes
//! through unchanged.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use probity_core::canonical::canonical_bytes;
use probity_core::review::CommandEvidenceDocument;
use probity_core::review::LineageId;
use probity_core::review::{DsseEnvelope, MAX_ATTESTATIONS};
use probity_core::review::{MAX_EVIDENCE_PER_LINEAGE, merged_bounded};
use probity_ports::review::{AttestationStore, StoreError};

use crate::InMemoryStore;
use crate::faulty::{Layered, OnReplace};

/// A review store with attestations kept in memory beside it: every other
/// call passes through to it (the testkit's one pass-through wrapper).
pub type WithAttestations<'s, S> = Layered<&'s S, Kept>;

/// [`WithAttestations`]'s layer: the envelopes and the command evidence
/// kept, per lineage.
#[derive(Debug, Default)]
pub struct Kept {
    envelopes: Mutex<BTreeMap<LineageId, Vec<DsseEnvelope>>>,
    evidence: Mutex<BTreeMap<LineageId, Vec<CommandEvidenceDocument>>>,
}

impl OnReplace for Kept {}

impl<'s, S: ?Sized> Layered<&'s S, Kept> {
    /// `inner` with no envelopes kept.
    pub fn new(inner: &'s S) -> Self {
        Self {
            inner,
            layer: Kept::default(),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &'s S {
        self.inner
    }

    fn kept(&self) -> MutexGuard<'_, BTreeMap<LineageId, Vec<DsseEnvelope>>> {
        self.layer
            .envelopes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn kept_evidence(&self) -> MutexGuard<'_, BTreeMap<LineageId, Vec<CommandEvidenceDocument>>> {
        self.layer
            .evidence
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The envelope files as the file store names and writes them
    /// (`attestations/<lineage>.json`: the canonical JSON array and a LF).
    pub fn attestation_files(&self) -> BTreeMap<String, Vec<u8>> {
        self.kept()
            .iter()
            .map(|(l, list)| {
                // Strings only: an envelope list always has canonical bytes.
                let mut bytes = canonical_bytes(list).unwrap_or_default();
                bytes.push(b'\n');
                (format!("attestations/{l}.json"), bytes)
            })
            .chain(self.kept_evidence().iter().map(|(l, list)| {
                let mut bytes = canonical_bytes(list).unwrap_or_default();
                bytes.push(b'\n');
                (format!("evidence/{l}.json"), bytes)
            }))
            .collect()
    }
}

impl Layered<&InMemoryStore, Kept> {
    /// Every byte held: the in-memory store's [`InMemoryStore::dump`] and
    /// the envelope files. Equal dumps mean no byte changed.
    pub fn dump(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = self.inner.dump();
        out.extend(self.attestation_files());
        out
    }
}

impl<S: ?Sized> AttestationStore for Layered<&S, Kept> {
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[DsseEnvelope],
    ) -> Result<(), StoreError> {
        let mut kept = self.kept();
        let held = kept.get(lineage).map_or(&[][..], Vec::as_slice);
        let all = merged_bounded(held, envelopes, MAX_ATTESTATIONS).map_err(|_| {
            StoreError::Malformed {
                path: format!("attestations/{lineage}.json"),
                detail: format!("more than {MAX_ATTESTATIONS} envelopes for one lineage"),
            }
        })?;
        if let Some(all) = all {
            kept.insert(lineage.clone(), all);
        }
        Ok(())
    }

    fn attestations(&self, lineage: &LineageId) -> Result<Vec<DsseEnvelope>, StoreError> {
        Ok(self.kept().get(lineage).cloned().unwrap_or_default())
    }

    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        let mut kept = self.kept_evidence();
        let all = kept.entry(lineage.clone()).or_default();
        let merged = merged_bounded(all, docs, MAX_EVIDENCE_PER_LINEAGE).map_err(|_| {
            StoreError::Malformed {
                path: format!("evidence/{lineage}.json"),
                detail: format!(
                    "more than {MAX_EVIDENCE_PER_LINEAGE} evidence documents for one lineage"
                ),
            }
        })?;
        if let Some(more) = merged {
            *all = more;
        }
        Ok(())
    }

    fn evidence(&self, lineage: &LineageId) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        Ok(self
            .kept_evidence()
            .get(lineage)
            .cloned()
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::DsseSignature;

    fn envelope(sig: &str) -> DsseEnvelope {
        DsseEnvelope {
            payload_type: "application/vnd.in-toto+json".into(),
            payload: "eyJhIjoxfQ==".into(),
            signatures: vec![DsseSignature {
                keyid: None,
                sig: sig.into(),
            }],
        }
    }

    #[test]
    fn envelopes_are_kept_sorted_unique_and_bounded() {
        let store = InMemoryStore::new();
        let s = WithAttestations::new(&store);
        let l = LineageId::parse("review-0000000000000000").unwrap();
        assert!(s.attestations(&l).unwrap().is_empty());
        assert!(s.dump().is_empty());
        s.add_attestations(&l, &[envelope("BBBB"), envelope("AAAA"), envelope("BBBB")])
            .unwrap();
        assert_eq!(
            s.attestations(&l).unwrap(),
            [envelope("AAAA"), envelope("BBBB")]
        );
        let held = s.dump();
        assert_eq!(held.len(), 1);
        assert!(held[&format!("attestations/{l}.json")].ends_with(b"]\n"));
        let many: Vec<DsseEnvelope> = (0..MAX_ATTESTATIONS)
            .map(|i| envelope(&format!("{i:04}")))
            .collect();
        let err = s.add_attestations(&l, &many).unwrap_err();
        assert!(matches!(err, StoreError::Malformed { .. }), "{err}");
        assert_eq!(s.dump(), held, "a refused add keeps what was held");
    }
}
