//! The compact review store on disk (R7.1–R7.4, R12.2–R12.3).
//!
//! Layout under `<git-common-dir>/probity/reviews/v1/` (shared by every
//! linked worktree):
//!
//! ```text
//! <lineage>/LOCK            per-lineage writer lock (std::fs::File::lock)
//! <lineage>/state.json      the record: canonical JSON + LF
//! <lineage>/receipt.json    terminal only: canonical JSON + LF
//! <lineage>/superseded-by   the one successor recovery created (R9.2)
//! <lineage>/successor.pending  a successor being created (until the marker)
//! <lineage>/results/<lens>.json  a lens result `lens submit` kept (the
//!                           submitted bytes, at most 1 MiB; created once)
//! index/target/<hex>        target identity -> lineage (created exclusively)
//! index/open/<tree>/<lin>   lineages that entered correction on a base tree
//! index/base/<tree>         base tree -> latest approved lineage
//! index/escalated/<tree>/<lin>  lineages that escalated on a base tree
//! index/final/<tree>        final candidate tree -> latest approved lineage
//!                           (the next slice after a commit: R8.6)
//! index/delta/<hex>         delta identity -> latest approved lineage
//!                           (the rebase proof's lookup; written by
//!                           `index_delta`, its key derived from Git)
//! index/entry/<hex>         one delta entry's identity -> latest approved
//!                           lineage (diagnostic, first 64 entries)
//!                           (a passing correction also indexes its final
//!                           target under index/target/)
//! .new-<lineage>-<r>/       a new lineage's folder being made (LOCK and
//!                           state.json), renamed to <lineage>/ once whole
//! .new-<lineage>-<r>.owner  its owner lock, held by the start making it
//!                           until the target index names the lineage
//! ```
//!
//! Every file is written as temp file + fsync + rename + directory fsync, so
//! readers see the old or the new bytes, never half. A writer holds its
//! `.tmp-*` file locked from creation to rename (and an interrupted run
//! removes it before it ends); the one a killed writer leaves is removed by
//! the next new lineage, told from a live write by its lock, not its age.
//! A new lineage's folder appears only by the rename of a complete folder;
//! what a start stopped before its target index named the lineage leaves
//! (the folder being made, or the lineage moved into place that nothing
//! can discover) is undone by the next new lineage, told by its dead
//! owner's lock.
//! Writers of different
//! lineages take different locks and never block each other; a writer of
//! the same lineage waits with bounded backoff, then reports contention.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::MAX_ROLE_DOCUMENT_BYTES;
use probity_core::review::{
    DeltaIndexing, Projection, claim_is_stale, delta_indexing, projections,
};
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{StateRecord, Transition, check_successor};
use probity_ports::review::{
    ChainStore, Created, IndexStore, LineageListing, ReceiptStore, RecordStore, ResultStore,
    StoreError, Submitted,
};

mod creation;
mod durable;

pub(crate) use durable::sync_dir;
pub use durable::write_atomic;
use durable::*;

/// How long a writer waits for a lineage lock before reporting contention.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The file-backed store.
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    lock_wait: Duration,
    /// Test-only (feature `crash-probe`): called with the name of each step
    /// `create` reaches, so a crash test can stop the process there and end
    /// it by a real signal.
    #[cfg(feature = "crash-probe")]
    probe: Option<fn(&str)>,
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl FileStore {
    /// The store of the repository whose common git dir is `common_dir`.
    pub fn for_common_dir(common_dir: &Path) -> Self {
        Self::at(common_dir.join("probity").join("reviews").join("v1"))
    }

    /// A store rooted at `root` (the `reviews/v1` directory).
    pub fn at(root: PathBuf) -> Self {
        Self {
            root,
            lock_wait: LOCK_WAIT,
            #[cfg(feature = "crash-probe")]
            probe: None,
        }
    }

    /// Sets the bounded wait for a lineage lock.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// For crash tests only (feature `crash-probe`, which only this crate's
    /// tests turn on): `probe` is called with the name of each step
    /// `create` reaches (`folder`: the lineage's folder exists, its state
    /// not yet; `state`: its state is durable, its target index not yet;
    /// `indexed`: the target index names it).
    #[cfg(feature = "crash-probe")]
    pub fn with_probe(mut self, probe: fn(&str)) -> Self {
        self.probe = Some(probe);
        self
    }

    /// Tells the crash tests' probe which step `create` reached.
    #[cfg(feature = "crash-probe")]
    fn reached(&self, step: &str) {
        if let Some(probe) = self.probe {
            probe(step);
        }
    }

    /// Without the `crash-probe` feature the shipped store has no hook.
    #[cfg(not(feature = "crash-probe"))]
    fn reached(&self, _step: &str) {}

    /// The store root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn lineage_dir(&self, l: &LineageId) -> PathBuf {
        self.root.join(l.as_str())
    }

    fn state_path(&self, l: &LineageId) -> PathBuf {
        self.lineage_dir(l).join("state.json")
    }

    fn receipt_path(&self, l: &LineageId) -> PathBuf {
        self.lineage_dir(l).join("receipt.json")
    }

    /// The supersession marker: the successor recovery created (R9.2).
    fn successor_path(&self, l: &LineageId) -> PathBuf {
        self.lineage_dir(l).join("superseded-by")
    }

    /// A successor being created: its full record, until the marker lands.
    fn pending_successor_path(&self, l: &LineageId) -> PathBuf {
        self.lineage_dir(l).join("successor.pending")
    }

    /// A submitted lens result.
    fn result_path(&self, l: &LineageId, lens: Lens) -> PathBuf {
        self.lineage_dir(l)
            .join("results")
            .join(format!("{}.json", lens.name()))
    }

    /// Reads a submitted result, bounded: a file over the role-document
    /// limit was not written by `submit_result` and is refused unread.
    fn read_result(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        use std::io::Read;
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(path)(e)),
        };
        let mut bytes = Vec::new();
        file.take(MAX_ROLE_DOCUMENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io(path))?;
        if bytes.len() as u64 > MAX_ROLE_DOCUMENT_BYTES {
            return Err(StoreError::Malformed {
                path: path.display().to_string(),
                detail: format!("larger than {MAX_ROLE_DOCUMENT_BYTES} bytes"),
            });
        }
        Ok(Some(bytes))
    }

    fn drop_pending(&self, path: &Path, pred: &LineageId) -> Result<(), StoreError> {
        match fs::remove_file(path) {
            Ok(()) => sync_dir(&self.lineage_dir(pred)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(path)(e)),
        }
    }

    /// An index entry (or, for `open` and `escalated`, a directory of
    /// them): `index/<kind>/<key>`.
    fn index_path(&self, kind: &str, key: &str) -> PathBuf {
        self.root.join("index").join(kind).join(key)
    }

    fn target_index(&self, target: &Sha256Digest) -> PathBuf {
        self.index_path("target", &target.hex())
    }

    fn base_index(&self, base: &TreeId) -> PathBuf {
        self.index_path("base", base.as_str())
    }

    fn final_index(&self, tree: &TreeId) -> PathBuf {
        self.index_path("final", tree.as_str())
    }

    fn delta_index(&self, delta: &Sha256Digest) -> PathBuf {
        self.index_path("delta", &delta.hex())
    }

    fn entry_index(&self, entry: &Sha256Digest) -> PathBuf {
        self.index_path("entry", &entry.hex())
    }

    fn open_dir(&self, base: &TreeId) -> PathBuf {
        self.index_path("open", base.as_str())
    }

    fn escalated_dir(&self, base: &TreeId) -> PathBuf {
        self.index_path("escalated", base.as_str())
    }

    /// The record held for `lineage`, and the path it was read from (a
    /// writer reads it under the lineage's lock); a lineage with no state
    /// file is [`StoreError::NotFound`].
    fn held_record(&self, lineage: &LineageId) -> Result<(PathBuf, StateRecord), StoreError> {
        let path = self.state_path(lineage);
        let bytes =
            Self::read_optional(&path)?.ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        let record = Self::parse_record(&path, &bytes)?;
        Ok((path, record))
    }

    /// The lineage pointers in one index directory, sorted.
    fn list_pointers(dir: &Path) -> Result<Vec<LineageId>, StoreError> {
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io(dir))?;
            // Temp files of an interrupted write are not entries.
            if entry.file_name().to_string_lossy().starts_with(".tmp-") {
                continue;
            }
            if let Some(l) = Self::read_lineage_pointer(&entry.path())? {
                out.push(l);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Claims the corrected candidate's own target for this lineage, before
    /// the state that names it is written: exclusive, so a candidate another
    /// lineage already owns is never taken over.
    fn claim_final_target(&self, record: &StateRecord) -> Result<(), StoreError> {
        let state = record.state();
        let final_target = state.final_target();
        if final_target == state.snapshot().target {
            return Ok(());
        }
        let path = self.target_index(&final_target);
        let line = format!("{}\n", state.lineage_id());
        if publish_exclusive(&path, line.as_bytes())? {
            return Ok(());
        }
        match Self::read_lineage_pointer(&path)? {
            Some(owner) if owner == *state.lineage_id() => Ok(()),
            Some(owner) => {
                // Owned only if the owner's committed state names this
                // target; a claim whose state write never landed is stale
                // (core's take-over rule).
                let owns = self
                    .load(&owner)?
                    .is_some_and(|r| !claim_is_stale(&final_target, r.state()));
                if owns {
                    Err(StoreError::TargetOwned {
                        lineage: state.lineage_id().clone(),
                        owner,
                    })
                } else {
                    write_atomic(&path, line.as_bytes())
                }
            }
            None => Err(StoreError::Malformed {
                path: path.display().to_string(),
                detail: "vanished while being read".into(),
            }),
        }
    }

    /// Takes the lineage's lock with bounded exponential backoff.
    pub(crate) fn lock(&self, l: &LineageId) -> Result<File, StoreError> {
        let path = self.lineage_dir(l).join("LOCK");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(fs::TryLockError::WouldBlock) => {
                    if started.elapsed() >= self.lock_wait {
                        return Err(StoreError::Contention {
                            lineage: l.clone(),
                            waited_ms: started.elapsed().as_millis() as u64,
                        });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
            }
        }
    }

    pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        match fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(path)(e)),
        }
    }

    fn parse_record(path: &Path, bytes: &[u8]) -> Result<StateRecord, StoreError> {
        StateRecord::from_bytes(bytes).map_err(|source| StoreError::Corrupted {
            path: path.display().to_string(),
            source,
        })
    }

    fn read_lineage_pointer(path: &Path) -> Result<Option<LineageId>, StoreError> {
        let Some(bytes) = Self::read_optional(path)? else {
            return Ok(None);
        };
        let malformed = |detail: String| StoreError::Malformed {
            path: path.display().to_string(),
            detail,
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| malformed("not UTF-8".into()))?;
        let id = text
            .strip_suffix('\n')
            .ok_or_else(|| malformed("missing trailing LF".into()))?;
        LineageId::parse(id)
            .map(Some)
            .map_err(|e| malformed(e.to_string()))
    }

    /// Writes what a committed record projects: the receipt of a terminal
    /// state, the corrected candidate's own target index once a correction
    /// passed, and the base index of an approval. Idempotent, so an exact
    /// retry finishes whatever a crash left unwritten.
    fn write_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        let state = record.state();
        let line = format!("{}\n", state.lineage_id());
        // A superseded lineage is history (core's projection rules); a
        // retry of it never re-claims a target nor points an index back.
        let superseded = Self::read_optional(&self.successor_path(state.lineage_id()))?.is_some();
        for projection in projections(state, superseded) {
            match projection {
                Projection::Receipt(receipt) => {
                    let path = self.receipt_path(state.lineage_id());
                    let bytes = receipt.to_bytes().map_err(|source| StoreError::Corrupted {
                        path: path.display().to_string(),
                        source,
                    })?;
                    write_if_different(&path, &bytes)?;
                }
                // Claimed before the state was written; re-claimed here for
                // a retry after a crash.
                Projection::FinalTarget(_) => self.claim_final_target(record)?,
                Projection::Base(tree) => {
                    write_if_different(&self.base_index(&tree), line.as_bytes())?
                }
                Projection::Final(tree) => {
                    write_if_different(&self.final_index(&tree), line.as_bytes())?
                }
                Projection::Open(base) => write_if_different(
                    &self.open_dir(&base).join(state.lineage_id().as_str()),
                    line.as_bytes(),
                )?,
                Projection::Escalated(base) => write_if_different(
                    &self.escalated_dir(&base).join(state.lineage_id().as_str()),
                    line.as_bytes(),
                )?,
            }
        }
        Ok(())
    }
}

impl LineageListing for FileStore {
    /// The folders under the store root named as lineages, holding a state
    /// record, and neither retired by a repair nor consumed by a burn (a
    /// `.new-*` folder being made, the index and the quarantine are not
    /// lineages).
    fn lineages(&self) -> Result<Vec<LineageId>, StoreError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.root)(e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io(&self.root))?;
            let Ok(lineage) = LineageId::parse(entry.file_name().to_string_lossy().as_ref()) else {
                continue;
            };
            if !self.state_path(&lineage).is_file()
                || self.consumed_pointer(&lineage).is_file()
                || self.retired_audit(&lineage)?.is_some()
            {
                continue;
            }
            out.push(lineage);
        }
        out.sort();
        Ok(out)
    }
}

impl RecordStore for FileStore {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        // A lineage a repair ceremony quarantined, or one burned once used,
        // answers so (R9.4, R10.5) before anything else is read: the
        // pointer is written first, so a crash that left the lineage's
        // files behind never brings its authority back.
        if let Some(audit) = self.retired_audit(lineage)? {
            return Err(StoreError::Retired {
                lineage: lineage.clone(),
                audit,
            });
        }
        if self.consumed_pointer(lineage).is_file() {
            return Err(StoreError::Consumed {
                lineage: lineage.clone(),
                tombstone: format!("consumed/{lineage}"),
            });
        }
        let path = self.state_path(lineage);
        let Some(bytes) = Self::read_optional(&path)? else {
            return Ok(None);
        };
        let record = Self::parse_record(&path, &bytes)?;
        if record.state().lineage_id() != lineage {
            return Err(StoreError::Malformed {
                path: path.display().to_string(),
                detail: format!("holds lineage {}", record.state().lineage_id()),
            });
        }
        Ok(Some(record))
    }

    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError> {
        self.create_lineage(record)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        let (expected, next) = (transition.expected(), transition.next());
        let lineage = next.state().lineage_id();
        let _guard = self.lock(lineage)?;
        let (path, current) = self.held_record(lineage)?;
        if current.revision() == next.revision() {
            // Exact retry: the same successor is already durable. Finish any
            // projection a crash may have left unwritten.
            return self.write_projections(next);
        }
        StoreError::check_revision(lineage, *expected, current.revision())?;
        check_successor(current.state(), next.state())?;
        self.claim_final_target(next)?;
        let new_bytes = next.to_bytes().map_err(|source| StoreError::Corrupted {
            path: path.display().to_string(),
            source,
        })?;
        write_atomic(&path, &new_bytes)?;
        self.write_projections(next)
    }

    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        // Every writer of a lineage holds its LOCK file; one that was never
        // made belongs to no lineage a reader could have read.
        if !self.lineage_dir(lineage).join("LOCK").is_file() {
            f();
            return Ok(());
        }
        let _guard = self.lock(lineage)?;
        f();
        Ok(())
    }
}

impl ChainStore for FileStore {
    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.successor_path(lineage))
    }

    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        let path = self.pending_successor_path(lineage);
        match Self::read_optional(&path)? {
            Some(bytes) => Ok(Some(
                Self::parse_record(&path, &bytes)?
                    .state()
                    .lineage_id()
                    .clone(),
            )),
            None => Ok(None),
        }
    }

    fn create_successor(&self, successor: &Successor) -> Result<Created, StoreError> {
        self.create_successor_lineage(successor)
    }
}

impl IndexStore for FileStore {
    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Self::list_pointers(&self.open_dir(base))
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Self::list_pointers(&self.escalated_dir(base))
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        let dir = self.root.join("index").join("escalated");
        let bases = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&dir)(e)),
        };
        let mut out = Vec::new();
        for base in bases {
            let base = base.map_err(io(&dir))?;
            // Only base-tree directories; a temp file is not one.
            let Ok(tree) = TreeId::parse(base.file_name().to_string_lossy().as_ref()) else {
                continue;
            };
            out.extend(Self::list_pointers(&self.escalated_dir(&tree))?);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.target_index(target))
    }

    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.base_index(base))
    }

    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.final_index(tree))
    }

    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.delta_index(delta))
    }

    fn lookup_delta_entry(&self, entry: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Self::read_lineage_pointer(&self.entry_index(entry))
    }

    fn index_delta(
        &self,
        record: &StateRecord,
        delta: &Sha256Digest,
        entries: &[Sha256Digest],
    ) -> Result<(), StoreError> {
        let lineage = record.state().lineage_id();
        let _guard = self.lock(lineage)?;
        let (path, current) = self.held_record(lineage)?;
        StoreError::check_revision(lineage, record.revision(), current.revision())?;
        let superseded = Self::read_optional(&self.successor_path(lineage))?.is_some();
        match delta_indexing(current.state(), superseded) {
            Err(refused) => {
                return Err(StoreError::Malformed {
                    path: path.display().to_string(),
                    detail: refused.to_string(),
                });
            }
            // A superseded lineage is history: never (re)indexed.
            Ok(DeltaIndexing::Skip) => return Ok(()),
            Ok(DeltaIndexing::Index) => {}
        }
        let line = format!("{lineage}\n");
        for e in entries {
            write_if_different(&self.entry_index(e), line.as_bytes())?;
        }
        // The exact key last: its presence means every entry key landed.
        write_if_different(&self.delta_index(delta), line.as_bytes())
    }
}

impl ReceiptStore for FileStore {
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        let lineage = record.state().lineage_id();
        let _guard = self.lock(lineage)?;
        let (_, current) = self.held_record(lineage)?;
        StoreError::check_revision(lineage, record.revision(), current.revision())?;
        self.write_projections(&current)
    }

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        Self::read_optional(&self.receipt_path(lineage))
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        self.receipt_path(lineage).display().to_string()
    }
}

impl ResultStore for FileStore {
    fn submit_result(
        &self,
        lineage: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError> {
        if !self.state_path(lineage).is_file() {
            return Err(StoreError::NotFound(lineage.clone()));
        }
        let _lock = self.lock(lineage)?;
        let path = self.result_path(lineage, lens);
        let differs = || StoreError::ResultDiffers {
            lineage: lineage.clone(),
            lens: lens.name(),
        };
        match Self::read_result(&path)? {
            Some(kept) if kept == bytes => return Ok(Submitted::Existing),
            Some(_) => return Err(differs()),
            None => {}
        }
        if publish_exclusive(&path, bytes)? {
            return Ok(Submitted::New);
        }
        // Another writer got there first (without the lock: not ours).
        match Self::read_result(&path)? {
            Some(kept) if kept == bytes => Ok(Submitted::Existing),
            _ => Err(differs()),
        }
    }

    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        let mut out = Vec::new();
        for lens in Lens::CANONICAL {
            if let Some(bytes) = Self::read_result(&self.result_path(lineage, lens))? {
                out.push((lens, bytes));
            }
        }
        Ok(out)
    }
}
