//! DSSE envelopes kept beside a review store: [`WithAttestations`] adds
//! [`AttestationStore`] to a store it borrows (an [`InMemoryStore`], or any
//! [`ReviewStore`]), with the file store's semantics: a lineage's envelopes
//! sorted and de-duplicated, at most [`MAX_ATTESTATIONS`], never
//! interpreted. Every other call passes through unchanged.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::CommandEvidenceDocument;
use probity_core::review::Lens;
use probity_core::review::{DsseEnvelope, MAX_ATTESTATIONS};
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{StateRecord, Transition};
use probity_ports::review::{
    AttestationStore, ChainStore, Created, IndexStore, ReceiptStore, RecordStore, ResultStore,
    ReviewStore, StoreError, Submitted, TranscriptStore,
};

use crate::InMemoryStore;

/// A review store with attestations kept in memory beside it.
#[derive(Debug)]
pub struct WithAttestations<'s, S: ?Sized> {
    inner: &'s S,
    envelopes: Mutex<BTreeMap<LineageId, Vec<DsseEnvelope>>>,
    evidence: Mutex<BTreeMap<LineageId, Vec<CommandEvidenceDocument>>>,
}

impl<'s, S: ?Sized> WithAttestations<'s, S> {
    /// `inner` with no envelopes kept.
    pub fn new(inner: &'s S) -> Self {
        Self {
            inner,
            envelopes: Mutex::new(BTreeMap::new()),
            evidence: Mutex::new(BTreeMap::new()),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &'s S {
        self.inner
    }

    fn kept(&self) -> MutexGuard<'_, BTreeMap<LineageId, Vec<DsseEnvelope>>> {
        self.envelopes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn kept_evidence(&self) -> MutexGuard<'_, BTreeMap<LineageId, Vec<CommandEvidenceDocument>>> {
        self.evidence.lock().unwrap_or_else(|p| p.into_inner())
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

impl WithAttestations<'_, InMemoryStore> {
    /// Every byte held: the in-memory store's [`InMemoryStore::dump`] and
    /// the envelope files. Equal dumps mean no byte changed.
    pub fn dump(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = self.inner.dump();
        out.extend(self.attestation_files());
        out
    }
}

impl<S: ?Sized> AttestationStore for WithAttestations<'_, S> {
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[DsseEnvelope],
    ) -> Result<(), StoreError> {
        let mut kept = self.kept();
        let mut all = kept.get(lineage).cloned().unwrap_or_default();
        let before = all.clone();
        all.extend(envelopes.iter().cloned());
        all.sort();
        all.dedup();
        if all == before {
            return Ok(());
        }
        if all.len() > MAX_ATTESTATIONS {
            return Err(StoreError::Malformed {
                path: format!("attestations/{lineage}.json"),
                detail: format!("more than {MAX_ATTESTATIONS} envelopes for one lineage"),
            });
        }
        kept.insert(lineage.clone(), all);
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
        all.extend(docs.iter().cloned());
        all.sort();
        all.dedup();
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

impl<S: ReviewStore + ?Sized> RecordStore for WithAttestations<'_, S> {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        self.inner.load(lineage)
    }

    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError> {
        self.inner.create(record)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        self.inner.replace(transition)
    }

    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        self.inner.under_lock(lineage, f)
    }
}

impl<S: ReviewStore + ?Sized> ChainStore for WithAttestations<'_, S> {
    fn create_successor(&self, record: &Successor) -> Result<Created, StoreError> {
        self.inner.create_successor(record)
    }

    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.successor_of(lineage)
    }

    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.pending_successor_of(lineage)
    }
}

impl<S: ReviewStore + ?Sized> IndexStore for WithAttestations<'_, S> {
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_target(target)
    }

    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_base(base)
    }

    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_final(tree)
    }

    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_delta(delta)
    }

    fn index_delta(
        &self,
        record: &StateRecord,
        delta: &Sha256Digest,
        entries: &[Sha256Digest],
    ) -> Result<(), StoreError> {
        self.inner.index_delta(record, delta, entries)
    }

    fn lookup_delta_entry(&self, entry: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_delta_entry(entry)
    }

    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_open(base)
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalated(base)
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalations()
    }
}

impl<S: ReviewStore + ?Sized> ReceiptStore for WithAttestations<'_, S> {
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        self.inner.ensure_projections(record)
    }

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.read_receipt(lineage)
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        self.inner.receipt_location(lineage)
    }
}

impl<S: ReviewStore + ?Sized> ResultStore for WithAttestations<'_, S> {
    fn submit_result(
        &self,
        lineage: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError> {
        self.inner.submit_result(lineage, lens, bytes)
    }

    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        self.inner.submitted_results(lineage)
    }
}

impl<S: TranscriptStore + ?Sized> TranscriptStore for WithAttestations<'_, S> {
    fn keep_transcript(
        &self,
        lineage: &LineageId,
        role: &str,
        digest: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        self.inner.keep_transcript(lineage, role, digest, bytes)
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
