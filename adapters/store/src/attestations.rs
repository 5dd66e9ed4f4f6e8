//! DSSE envelopes kept with imported authority (R11), so a bundle
//! re-exported from this store carries them unchanged.
//!
//! `<store>/attestations/<lineage>.json`: the canonical JSON array of the
//! lineage's envelopes, sorted and de-duplicated, plus LF; written
//! atomically. Envelopes are carried, never interpreted here.
//!
//! `<store>/evidence/<lineage>.json`, the same way: the command evidence
//! documents a lineage took (D-R69), which a v2 bundle carries.

use std::path::{Path, PathBuf};

use probity_core::canonical::canonical_bytes;
use probity_core::review::bundle::{DsseEnvelope, MAX_ATTESTATIONS, MAX_BUNDLE_BYTES};
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
        let kept = self.attestations(lineage)?;
        add_to_list(
            &self.attestations_path(lineage),
            kept,
            envelopes,
            MAX_ATTESTATIONS,
            "envelopes",
        )
    }

    fn attestations(&self, lineage: &LineageId) -> Result<Vec<DsseEnvelope>, StoreError> {
        read_list(&self.attestations_path(lineage), MAX_BUNDLE_BYTES as u64)
    }

    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        let kept = self.evidence(lineage)?;
        add_to_list(
            &self.evidence_path(lineage),
            kept,
            docs,
            MAX_EVIDENCE_PER_LINEAGE,
            "evidence documents",
        )
    }

    fn evidence(&self, lineage: &LineageId) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        read_list(&self.evidence_path(lineage), MAX_EVIDENCE_FILE_BYTES)
    }
}

/// Adds `added` to a lineage's `kept` list (sorted, de-duplicated) and
/// writes it atomically as canonical JSON and a LF, unless nothing new was
/// added; more than `max` entries is refused, nothing written.
fn add_to_list<T: Ord + Clone + serde::Serialize>(
    path: &Path,
    mut all: Vec<T>,
    added: &[T],
    max: usize,
    what: &str,
) -> Result<(), StoreError> {
    let before = all.clone();
    all.extend(added.iter().cloned());
    all.sort();
    all.dedup();
    if all == before {
        return Ok(());
    }
    if all.len() > max {
        return Err(malformed(
            path,
            format!("more than {max} {what} for one lineage"),
        ));
    }
    let mut bytes = canonical_bytes(&all).map_err(|e| malformed(path, e.to_string()))?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// A kept list, read under `limit` bytes; empty when there is no file.
fn read_list<T: serde::de::DeserializeOwned>(
    path: &Path,
    limit: u64,
) -> Result<Vec<T>, StoreError> {
    match read_bounded(path, limit)? {
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| malformed(path, e.to_string())),
        None => Ok(Vec::new()),
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
