//! DSSE envelopes kept with imported authority (R11), so a bundle
//! re-exported from this store carries them unchanged.
//!
//! `<store>/attestations/<lineage>.json`: the canonical JSON array of the
//! lineage's envelopes, sorted and de-duplicated, plus LF; written
//! atomically. Envelopes are carried, never interpreted here.
//!
//! `<store>/evidence/<lineage>.json`, the same way: the command evidence
//! documents a lineage took (D-R69), which a v2 bundle carries.

use std::path::PathBuf;

use probity_core::canonical::canonical_bytes;
use probity_core::review::bundle::{DsseEnvelope, MAX_ATTESTATIONS};
use probity_core::review::evidence::CommandEvidenceDocument;
use probity_core::review::ids::LineageId;
use probity_ports::review::{AttestationStore, StoreError};

use crate::review_store::{FileStore, write_atomic};

impl FileStore {
    fn evidence_path(&self, lineage: &LineageId) -> PathBuf {
        self.root().join("evidence").join(format!("{lineage}.json"))
    }

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

    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        let mut all = self.evidence(lineage)?;
        let before = all.clone();
        all.extend(docs.iter().cloned());
        all.sort();
        all.dedup();
        if all == before {
            return Ok(());
        }
        let path = self.evidence_path(lineage);
        if all.len() > MAX_EVIDENCE_PER_LINEAGE {
            return Err(malformed(
                &path,
                format!("more than {MAX_EVIDENCE_PER_LINEAGE} evidence documents for one lineage"),
            ));
        }
        let mut bytes = canonical_bytes(&all).map_err(|e| malformed(&path, e.to_string()))?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes)
    }

    fn evidence(&self, lineage: &LineageId) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        let path = self.evidence_path(lineage);
        let bytes = match read_bounded(&path, MAX_EVIDENCE_FILE_BYTES) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let list: Vec<CommandEvidenceDocument> =
            serde_json::from_slice(&bytes).map_err(|e| malformed(&path, e.to_string()))?;
        Ok(list)
    }
}

/// At most this many command evidence documents are kept per lineage (a
/// lineage takes one; a retry of the same check adds none).
const MAX_EVIDENCE_PER_LINEAGE: usize = 8;

/// The largest evidence file read back.
const MAX_EVIDENCE_FILE_BYTES: u64 = MAX_EVIDENCE_PER_LINEAGE as u64
    * probity_core::review::evidence::MAX_COMMAND_EVIDENCE_BYTES
    + 4096;

/// Reads a file of at most `limit` bytes; `None` when it does not exist.
fn read_bounded(path: &std::path::Path, limit: u64) -> Result<Option<Vec<u8>>, StoreError> {
    use std::io::Read;
    let io = |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(malformed(path, format!("over its {limit}-byte bound")));
    }
    Ok(Some(bytes))
}
