//! The store side of repair ceremonies (R9.4): surveys and the two-phase,
//! byte-preserving quarantine.
//!
//! ```text
//! quarantine/<lineage>-<class>-<sha12>/audit.json   the audit record
//! quarantine/<...>/copy/<path>                      phase one: copies
//! quarantine/<...>/moved/<path>                     phase two: the originals
//! retired/<lineage>                                 the audit record's path
//! ```
//!
//! `<sha12>` is the first 12 hex digits of the anomalous file's SHA-256, so
//! the same request after a crash finds and completes the same quarantine.

use std::fs;
use std::path::{Path, PathBuf};

use probity_core::digest::Sha256Digest;
use probity_core::review::LineageId;
use probity_core::review::Receipt;
use probity_core::review::{QuarantinedFile, RepairClass, Survey};
use probity_ports::review::{
    AuditWriter, ChainStore, ReceiptStore, RecordStore, RepairStore, StoreError,
};

use crate::review_store::{FileStore, io, sync_dir, write_atomic};

/// At most this many lineages are surveyed (a larger store's survey is
/// incomplete, so no uniqueness is proven).
const MAX_SURVEY: u64 = 100_000;
/// At most this many index entries are examined for ones naming a retired
/// lineage.
const MAX_INDEX_ENTRIES: usize = 1_000_000;

fn malformed(path: &Path, detail: impl Into<String>) -> StoreError {
    StoreError::Malformed {
        path: path.display().to_string(),
        detail: detail.into(),
    }
}

impl FileStore {
    fn quarantine_root(&self) -> PathBuf {
        self.root().join("quarantine")
    }

    pub(crate) fn consumed_pointer(&self, l: &LineageId) -> PathBuf {
        self.root().join("consumed").join(l.as_str())
    }

    pub(crate) fn retired_pointer(&self, l: &LineageId) -> PathBuf {
        self.root().join("retired").join(l.as_str())
    }

    /// The audit record's path when `l` is retired.
    pub(crate) fn retired_audit(&self, l: &LineageId) -> Result<Option<String>, StoreError> {
        Ok(Self::read_optional(&self.retired_pointer(l))?
            .map(|b| String::from_utf8_lossy(&b).trim().to_string()))
    }

    /// Every lineage directory of the store, sorted (at most `MAX_SURVEY`
    /// + 1 are listed).
    fn lineage_ids(&self) -> Result<Vec<LineageId>, StoreError> {
        let mut out = Vec::new();
        let entries = match fs::read_dir(self.root()) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(io(self.root())(e)),
        };
        for entry in entries {
            let entry = entry.map_err(io(self.root()))?;
            let Some(name) = entry.file_name().to_str().map(String::from) else {
                continue;
            };
            if let Ok(l) = LineageId::parse(name)
                && entry.file_type().map_err(io(&entry.path()))?.is_dir()
            {
                out.push(l);
                if out.len() as u64 > MAX_SURVEY {
                    break;
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The anomalous file of `class` for `l`, when it has one.
    fn anomalous_file(
        &self,
        l: &LineageId,
        class: RepairClass,
    ) -> Result<Option<PathBuf>, StoreError> {
        match class {
            RepairClass::CorruptedRecord => match self.load(l) {
                Err(StoreError::Corrupted { .. } | StoreError::Malformed { .. }) => {
                    Ok(Some(self.lineage_dir(l).join("state.json")))
                }
                Err(e) => Err(e),
                Ok(_) => Ok(None),
            },
            RepairClass::ReceiptMismatch => {
                let Ok(Some(record)) = self.load(l) else {
                    return Ok(None);
                };
                let Some(derived) = Receipt::derive(record.state()) else {
                    return Ok(None);
                };
                let derived = derived
                    .to_bytes()
                    .map_err(|e| malformed(&self.lineage_dir(l), e.to_string()))?;
                match self.read_receipt(l)? {
                    Some(bytes) if bytes != derived => {
                        Ok(Some(self.lineage_dir(l).join("receipt.json")))
                    }
                    _ => Ok(None),
                }
            }
        }
    }

    /// Regular files below `dir`, never following a link, as paths.
    fn files_below(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), StoreError> {
        if depth > 8 {
            return Err(malformed(dir, "deeper than a lineage is"));
        }
        for entry in fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let kind = entry.file_type().map_err(io(&entry.path()))?;
            if kind.is_dir() {
                Self::files_below(&entry.path(), out, depth + 1)?;
            } else if kind.is_file() {
                out.push(entry.path());
            } else {
                return Err(malformed(&entry.path(), "not a regular file or directory"));
            }
        }
        Ok(())
    }

    /// The index entries whose content names `l`.
    fn index_entries_naming(&self, l: &LineageId) -> Result<Vec<PathBuf>, StoreError> {
        let mut all = Vec::new();
        let index = self.root().join("index");
        if index.is_dir() {
            Self::files_below(&index, &mut all, 0)?;
        }
        if all.len() > MAX_INDEX_ENTRIES {
            return Err(malformed(
                &index,
                "more index entries than a repair examines",
            ));
        }
        let mut out = Vec::new();
        for p in all {
            // An `open/<tree>/<lineage>` entry is named by its lineage.
            let named = p.file_name().and_then(|n| n.to_str()) == Some(l.as_str());
            let holds = Self::read_optional(&p)?
                .is_some_and(|b| String::from_utf8_lossy(&b).trim() == l.as_str());
            if named || holds {
                out.push(p);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Copies `from` to `to` exactly, through the store's atomic write
    /// (temp file + fsync + rename + directory fsync): a copy cut short is
    /// never seen at `to`, only whole. A copy already there (a retry after
    /// a crash) must hold the same bytes; a different one is refused. Not
    /// exclusive: the caller holds the lineage's lock and the quarantine
    /// folder is the lineage's own, so nothing else writes `to` between the
    /// check and the write.
    fn copy_exact(&self, from: &Path, to: &Path) -> Result<QuarantinedFile, StoreError> {
        let bytes = fs::read(from).map_err(io(from))?;
        match Self::read_optional(to)? {
            // Phase one already copied it (a crash after): it must be the
            // same.
            Some(existing) if existing == bytes => {}
            Some(_) => {
                return Err(malformed(to, "a quarantine copy differs from its original"));
            }
            None => write_atomic(to, &bytes)?,
        }
        Ok(QuarantinedFile {
            path: String::new(),
            sha256: Sha256Digest::plain(&bytes),
            bytes: bytes.len() as u64,
        })
    }

    /// Moves `from` to `to` (a rename), durable in both folders: the
    /// destination first, so a crash never loses the original from both.
    fn move_into(&self, from: &Path, to: &Path) -> Result<(), StoreError> {
        let parent = to
            .parent()
            .ok_or_else(|| malformed(to, "no parent directory"))?;
        probity_scratch::create_dir_durable(parent).map_err(io(parent))?;
        fs::rename(from, to).map_err(io(from))?;
        sync_dir(parent)?;
        if let Some(source) = from.parent() {
            sync_dir(source)?;
        }
        Ok(())
    }

    fn relative(&self, p: &Path) -> Result<String, StoreError> {
        p.strip_prefix(self.root())
            .map(|r| r.to_string_lossy().into_owned())
            .map_err(|_| malformed(p, "outside the store"))
    }
}

impl RepairStore for FileStore {
    fn consume(
        &self,
        lineage: &LineageId,
        expected: &Sha256Digest,
        tombstone: &[u8],
    ) -> Result<String, StoreError> {
        let dir = self.lineage_dir(lineage);
        let _guard = self.lock(lineage)?;
        // What the burn was decided on, checked again under the lock a
        // recovery of this lineage takes: no successor can land between
        // this check and the tombstone.
        let current = self
            .load(lineage)?
            .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        StoreError::check_revision(lineage, *expected, current.revision())?;
        StoreError::check_unsuperseded(lineage, self.successor_of(lineage)?, || {
            self.pending_successor_of(lineage)
        })?;
        // The tombstone first: from then on the lineage answers `consumed`
        // whatever a crash leaves of the rest (a retry completes it).
        write_atomic(&self.consumed_pointer(lineage), tombstone)?;
        for entry in self.index_entries_naming(lineage)? {
            fs::remove_file(&entry).map_err(io(&entry))?;
            if let Some(parent) = entry.parent() {
                sync_dir(parent)?;
            }
        }
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&dir)(e)),
        }
        sync_dir(self.root())?;
        Ok(format!("consumed/{lineage}"))
    }

    fn survey(&self, class: RepairClass) -> Result<Survey, StoreError> {
        let ids = self.lineage_ids()?;
        let complete = ids.len() as u64 <= MAX_SURVEY;
        let mut anomalies = Vec::new();
        for l in ids.iter().take(MAX_SURVEY as usize) {
            if self.anomalous_file(l, class)?.is_some() {
                anomalies.push(l.clone());
            }
        }
        Ok(Survey {
            class,
            scanned: ids.len().min(MAX_SURVEY as usize) as u64,
            anomalies,
            complete,
        })
    }

    fn quarantine(
        &self,
        lineage: &LineageId,
        class: RepairClass,
        audit: &AuditWriter<'_>,
    ) -> Result<String, StoreError> {
        let dir = self.lineage_dir(lineage);
        // Under the lineage's lock: the file is anomalous still (a writer
        // that repaired or replaced it in the meantime wins), and no writer
        // moves it while the two phases run.
        let _guard = self.lock(lineage)?;
        let anomalous = self
            .anomalous_file(lineage, class)?
            .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        let digest = Sha256Digest::plain(&fs::read(&anomalous).map_err(io(&anomalous))?);
        let qdir = self.quarantine_root().join(format!(
            "{}-{}-{}",
            lineage,
            class.name(),
            &digest.hex()[..12]
        ));
        // What the ceremony moves: the whole lineage and the index entries
        // naming it, or the one receipt file.
        let mut files = Vec::new();
        let mut moves: Vec<PathBuf> = Vec::new();
        match class {
            RepairClass::CorruptedRecord => {
                Self::files_below(&dir, &mut files, 0)?;
                let index = self.index_entries_naming(lineage)?;
                files.extend(index.iter().cloned());
                moves.extend(index);
                moves.push(dir.clone());
            }
            RepairClass::ReceiptMismatch => {
                files.push(anomalous.clone());
                moves.push(anomalous.clone());
            }
        }
        files.sort();
        // Phase one: exact copies, then the audit record naming them.
        let mut listed = Vec::new();
        for f in &files {
            let rel = self.relative(f)?;
            let mut q = self.copy_exact(f, &qdir.join("copy").join(&rel))?;
            q.path = rel;
            listed.push(q);
        }
        let audit_path = qdir.join("audit.json");
        if Self::read_optional(&audit_path)?.is_none() {
            write_atomic(&audit_path, &audit(&listed)?)?;
        }
        // Phase two: the originals leave the live store (moved, never
        // deleted). A retired lineage's pointer is written first, so from
        // the moment its directory is gone it answers `retired`.
        let audit_rel = self.relative(&audit_path)?;
        if class == RepairClass::CorruptedRecord {
            write_atomic(
                &self.retired_pointer(lineage),
                format!("{audit_rel}\n").as_bytes(),
            )?;
        }
        for m in &moves {
            let rel = self.relative(m)?;
            self.move_into(m, &qdir.join("moved").join(rel))?;
        }
        Ok(audit_rel)
    }
}
