//! DSSE envelopes kept with imported authority (R11), so a bundle
//! re-exported from this store carries them unchanged.
//!
//! `<store>/attestations/<lineage>.json`: the canonical JSON array of the
//! lineage's envelopes, sorted and de-duplicated, plus LF; written
//! atomically. Envelopes are carried, never interpreted here.
//!
//! `<store>/evidence/<lineage>.json`, the same way: the command evidence
//! documents a lineage took (D-R69), which a v2 bundle carries.
//!
//! `<store>/evidence/<lineage>.pending.json`: the one document of a check
//! Probity ran that the lineage is about to take, kept before the
//! transition (so a kill between the two never strands an approval whose
//! bundle cannot prove its check), then settled into the list or removed.
//! [`AttestationStore::evidence`] reads it too: it is inert until a record
//! takes it, since a bundle carries only the documents a record took.

use std::path::{Path, PathBuf};

use probity_core::canonical::canonical_bytes;
use probity_core::review::CommandEvidenceDocument;
use probity_core::review::LineageId;
use probity_core::review::{DsseEnvelope, MAX_ATTESTATIONS, MAX_BUNDLE_BYTES};
use probity_core::review::{MAX_EVIDENCE_PER_LINEAGE, merged_bounded};
use probity_ports::review::{AttestationStore, StoreError};

use crate::review_store::{FileStore, write_atomic};

impl FileStore {
    fn evidence_path(&self, lineage: &LineageId) -> PathBuf {
        self.root().join("evidence").join(format!("{lineage}.json"))
    }

    fn pending_evidence_path(&self, lineage: &LineageId) -> PathBuf {
        self.root()
            .join("evidence")
            .join(format!("{lineage}.pending.json"))
    }

    /// Keeps `doc` as the lineage's pending document (replacing any): the
    /// document of the check a transition is about to hand the lineage.
    pub fn keep_pending_evidence(
        &self,
        lineage: &LineageId,
        doc: &CommandEvidenceDocument,
    ) -> Result<(), StoreError> {
        let path = self.pending_evidence_path(lineage);
        let mut bytes = canonical_bytes(&[doc]).map_err(|e| malformed(&path, e.to_string()))?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes)
    }

    /// Settles the pending document: it joins the lineage's kept documents
    /// when `taken` (the transition that was handed it landed), and is
    /// removed either way. No pending document: nothing to do.
    pub fn settle_pending_evidence(
        &self,
        lineage: &LineageId,
        taken: bool,
    ) -> Result<(), StoreError> {
        let path = self.pending_evidence_path(lineage);
        let pending = self.pending_evidence(lineage)?;
        if taken && !pending.is_empty() {
            let kept = read_list(&self.evidence_path(lineage), MAX_EVIDENCE_FILE_BYTES)?;
            add_to_list(
                &self.evidence_path(lineage),
                kept,
                &pending,
                MAX_EVIDENCE_PER_LINEAGE,
                "evidence documents",
            )?;
        }
        remove_durably(&path)
    }

    /// The pending document, if any. One that does not read back (a file
    /// written by hand: Probity writes it atomically) is no document: it is
    /// inert, so it never blocks an export, and settling removes it.
    fn pending_evidence(
        &self,
        lineage: &LineageId,
    ) -> Result<Vec<CommandEvidenceDocument>, StoreError> {
        let path = self.pending_evidence_path(lineage);
        match read_list(
            &path,
            probity_core::review::MAX_COMMAND_EVIDENCE_BYTES + 4096,
        ) {
            Ok(docs) => Ok(docs),
            Err(StoreError::Malformed { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
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
        let mut docs: Vec<CommandEvidenceDocument> =
            read_list(&self.evidence_path(lineage), MAX_EVIDENCE_FILE_BYTES)?;
        docs.extend(self.pending_evidence(lineage)?);
        Ok(docs)
    }
}

/// Adds `added` to a lineage's `kept` list (sorted, de-duplicated) and
/// writes it atomically as canonical JSON and a LF, unless nothing new was
/// added; more than `max` entries is refused, nothing written.
fn add_to_list<T: Ord + Clone + serde::Serialize>(
    path: &Path,
    kept: Vec<T>,
    added: &[T],
    max: usize,
    what: &str,
) -> Result<(), StoreError> {
    let all = match merged_bounded(&kept, added, max) {
        Ok(Some(all)) => all,
        Ok(None) => return Ok(()),
        Err(_) => {
            return Err(malformed(
                path,
                format!("more than {max} {what} for one lineage"),
            ));
        }
    };
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

/// The largest evidence file read back.
const MAX_EVIDENCE_FILE_BYTES: u64 =
    MAX_EVIDENCE_PER_LINEAGE as u64 * probity_core::review::MAX_COMMAND_EVIDENCE_BYTES + 4096;

/// Removes `path` (gone already is fine) and syncs its directory.
fn remove_durably(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(StoreError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    }
    match path.parent() {
        Some(dir) => crate::review_store::sync_dir(dir),
        None => Ok(()),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::digest::Sha256Digest;
    use probity_core::review::TreeId;
    use probity_core::review::{CommandRun, ExitOutcome, command_evidence_on};

    fn doc(argv: &str) -> CommandEvidenceDocument {
        let run = CommandRun {
            argv: vec![argv.into()],
            exit: ExitOutcome::Code(0),
            output_sha256: Sha256Digest::plain(b""),
            output_bytes: 0,
        };
        let tree = TreeId::parse("4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap();
        CommandEvidenceDocument::parse(&command_evidence_on(&run, &tree).unwrap().bytes).unwrap()
    }

    #[test]
    fn a_pending_document_is_read_with_the_kept_ones_and_settles_into_them_or_away() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::at(tmp.path().to_path_buf());
        let l = LineageId::parse("review-0123456789abcdef").unwrap();
        let dir = tmp.path().join("evidence");
        // Pending: read with the kept ones (export carries it once a record
        // took it, even if Probity died before filing it).
        store.keep_pending_evidence(&l, &doc("a")).unwrap();
        assert_eq!(store.evidence(&l).unwrap(), vec![doc("a")]);
        // Not taken: gone, nothing filed.
        store.settle_pending_evidence(&l, false).unwrap();
        assert_eq!(store.evidence(&l).unwrap(), vec![]);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        // Taken: filed with the kept ones, and no pending file is left.
        store.add_evidence(&l, &[doc("a")]).unwrap();
        store.keep_pending_evidence(&l, &doc("b")).unwrap();
        store.settle_pending_evidence(&l, true).unwrap();
        let mut both = vec![doc("a"), doc("b")];
        both.sort();
        assert_eq!(store.evidence(&l).unwrap(), both);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(format!("{l}.json"))]);
        // Settling with nothing pending changes nothing.
        store.settle_pending_evidence(&l, true).unwrap();
        assert_eq!(store.evidence(&l).unwrap(), both);
        // A pending file that is no document blocks nothing, and goes.
        let pending = dir.join(format!("{l}.pending.json"));
        std::fs::write(&pending, b"not json").unwrap();
        assert_eq!(store.evidence(&l).unwrap(), both);
        store.settle_pending_evidence(&l, true).unwrap();
        assert!(!pending.exists());
        assert_eq!(store.evidence(&l).unwrap(), both);
    }
}
