//! DSSE envelopes kept with imported authority (R11), so a bundle
//! re-exported from this store carries them unchanged.
//!
//! `<store>/attestations/<lineage>.json`: the canonical JSON array of the
//! lineage's envelopes, sorted and de-duplicated, plus LF; written
//! atomically. Envelopes are carried, never interpreted here.

use std::path::PathBuf;

use probity_core::canonical::canonical_bytes;
use probity_core::review::bundle::{DsseEnvelope, MAX_ATTESTATIONS};
use probity_core::review::ids::LineageId;
use probity_ports::review::{AttestationStore, StoreError};

use crate::review_store::{FileStore, write_atomic};

impl FileStore {
    fn attestations_path(&self, lineage: &LineageId) -> PathBuf {
        self.root()
            .join("attestations")
            .join(format!("{lineage}.json"))
    }
}

fn malformed(path: &std::path::Path, detail: impl Into<String>) -> StoreError {
    StoreError::Malformed {
        path: path.display().to_string(),
        detail: detail.into(),
    }
}

impl AttestationStore for FileStore {
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[DsseEnvelope],
    ) -> Result<(), StoreError> {
        let mut all = self.attestations(lineage)?;
        let before = all.clone();
        all.extend(envelopes.iter().cloned());
        all.sort();
        all.dedup();
        if all == before {
            return Ok(());
        }
        let path = self.attestations_path(lineage);
        if all.len() > MAX_ATTESTATIONS {
            return Err(malformed(
                &path,
                format!("more than {MAX_ATTESTATIONS} envelopes for one lineage"),
            ));
        }
        let mut bytes = canonical_bytes(&all).map_err(|e| malformed(&path, e.to_string()))?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes)
    }

    fn attestations(&self, lineage: &LineageId) -> Result<Vec<DsseEnvelope>, StoreError> {
        let path = self.attestations_path(lineage);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        let list: Vec<DsseEnvelope> =
            serde_json::from_slice(&bytes).map_err(|e| malformed(&path, e.to_string()))?;
        Ok(list)
    }
}
