//! DSSE envelopes kept beside a review store: [`WithAttestations`] adds
//! [`AttestationStore`] to a store it borrows (an [`InMemoryStore`], or any
//! [`ReviewStore`](probity_ports::review::ReviewStore)), with the file
//! store's semantics: a lineage's envelopes sorted and de-duplicated, at
//! most [`MAX_ATTESTATIONS`], never interpreted. Every other call passes
//! through unchanged.

use std::collections::BTreeMap;

use probity_core::review::CommandEvidenceDocument;
use probity_core::review::DsseEnvelope;
use probity_core::review::LineageId;
use probity_ports::review::{AttestationStore, StoreError};

use crate::InMemoryStore;
use crate::faulty::{Layered, OnReplace};

/// A review store with attestations kept in memory beside it: every other
/// call passes through to it (the testkit's one pass-through wrapper).
pub type WithAttestations<'s, S> = Layered<&'s S, Kept>;

/// [`WithAttestations`]'s layer: the envelopes and the command evidence
/// kept, per lineage, by an in-memory store of its own (the reference
/// store's kept lists, so the rule is core's one `merged_bounded`).
#[derive(Debug, Default)]
pub struct Kept(InMemoryStore);

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

    /// The envelope and evidence files as the file store names and writes
    /// them (`attestations/<lineage>.json`, `evidence/<lineage>.json`: the
    /// canonical JSON array and a LF). The layer's own store holds nothing
    /// else.
    pub fn attestation_files(&self) -> BTreeMap<String, Vec<u8>> {
        self.layer.0.dump()
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
        self.layer.0.add_attestations(lineage, envelopes)
    }

    fn attestations(&self, lineage: &LineageId) -> Result<Vec<DsseEnvelope>, StoreError> {
        self.layer.0.attestations(lineage)
    }

    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        self.layer.0.add_evidence(lineage, docs)
    }

    fn evidence(&self, lineage: &LineageId) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        self.layer.0.evidence(lineage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::{DsseSignature, MAX_ATTESTATIONS};

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
