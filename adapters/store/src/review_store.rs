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
use probity_core::review::ids::{LineageId, TreeId};
use probity_core::review::lens::Lens;
use probity_core::review::projection::{
    DeltaIndexing, Projection, claim_is_stale, delta_indexing, projections,
};
use probity_core::review::state::{StateRecord, Transition, check_successor};
use probity_core::review::submission::MAX_ROLE_DOCUMENT_BYTES;
use probity_ports::review::{Created, ReviewStore, StoreError, Submitted};

/// How long a writer waits for a lineage lock before reporting contention.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The file-backed store.
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    lock_wait: Duration,
    /// Test-only: called with the name of each step `create` reaches, so a
    /// crash test can stop the process there and end it by a real signal.
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
            probe: None,
        }
    }

    /// Sets the bounded wait for a lineage lock.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// For crash tests only: `probe` is called with the name of each step
    /// `create` reaches (`folder`: the lineage's folder exists, its state
    /// not yet; `state`: its state is durable, its target index not yet;
    /// `indexed`: the target index names it).
    pub fn with_probe(mut self, probe: fn(&str)) -> Self {
        self.probe = Some(probe);
        self
    }

    fn reached(&self, step: &str) {
        if let Some(probe) = self.probe {
            probe(step);
        }
    }

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

    /// The lineages above a successor, nearest first, as far as the store
    /// holds them (generations bound the walk).
    fn ancestors(&self, record: &StateRecord) -> Result<Vec<LineageId>, StoreError> {
        let mut out = Vec::new();
        let mut link = record.state().predecessor().cloned();
        while let Some(l) = link {
            if out.len() >= record.state().generation() as usize {
                break;
            }
            out.push(l.lineage_id.clone());
            link = self
                .load(&l.lineage_id)?
                .and_then(|r| r.state().predecessor().cloned());
        }
        Ok(out)
    }

    fn target_index(&self, target: &Sha256Digest) -> PathBuf {
        self.root.join("index").join("target").join(target.hex())
    }

    fn base_index(&self, base: &TreeId) -> PathBuf {
        self.root.join("index").join("base").join(base.as_str())
    }

    fn final_index(&self, tree: &TreeId) -> PathBuf {
        self.root.join("index").join("final").join(tree.as_str())
    }

    fn delta_index(&self, delta: &Sha256Digest) -> PathBuf {
        self.root.join("index").join("delta").join(delta.hex())
    }

    fn entry_index(&self, entry: &Sha256Digest) -> PathBuf {
        self.root.join("index").join("entry").join(entry.hex())
    }

    fn open_dir(&self, base: &TreeId) -> PathBuf {
        self.root.join("index").join("open").join(base.as_str())
    }

    fn escalated_dir(&self, base: &TreeId) -> PathBuf {
        self.root
            .join("index")
            .join("escalated")
            .join(base.as_str())
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

fn write_if_different(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if FileStore::read_optional(path)?.as_deref() != Some(bytes) {
        write_atomic(path, bytes)?;
    }
    Ok(())
}

/// The store is at most this deep (`index/open/<tree>/<lineage>`).
const STORE_DEPTH: usize = 4;
/// At most this many directory entries are visited by one scavenge.
const SCAVENGE_MAX_ENTRIES: usize = 200_000;

impl FileStore {
    /// Removes every `.tmp-*` regular file under the store that no live
    /// writer holds locked (what a writer killed between its temp file and
    /// its rename leaves). Best effort and bounded: symlinks are never
    /// followed, a failure only leaves the orphan for the next run.
    pub fn scavenge_orphan_temps(&self) {
        let mut budget = SCAVENGE_MAX_ENTRIES;
        let mut dirs = vec![(self.root.clone(), 0usize)];
        while let Some((dir, depth)) = dirs.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if budget == 0 {
                    return;
                }
                budget -= 1;
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() && depth < STORE_DEPTH {
                    dirs.push((entry.path(), depth + 1));
                } else if kind.is_file()
                    && entry.file_name().as_encoded_bytes().starts_with(b".tmp-")
                {
                    probity_scratch::remove_if_orphaned(&entry.path());
                }
            }
        }
    }
}

/// Writes `bytes` durably to a temp file beside `path` (created with its
/// directory as needed) and returns the directory and the file.
fn durable_temp(
    path: &Path,
    bytes: &[u8],
) -> Result<(PathBuf, probity_scratch::LockedTemp), StoreError> {
    let dir = path.parent().ok_or_else(|| StoreError::Malformed {
        path: path.display().to_string(),
        detail: "no parent directory".into(),
    })?;
    fs::create_dir_all(dir).map_err(io(dir))?;
    let mut tmp = probity_scratch::LockedTemp::new_in(dir, ".tmp-").map_err(io(dir))?;
    tmp.write_all(bytes).map_err(io(tmp.path()))?;
    tmp.as_file().sync_all().map_err(io(path))?;
    Ok((dir.to_path_buf(), tmp))
}

/// Writes `bytes` to `path` atomically and durably: a temp file in the same
/// directory, fsync, rename over `path`, fsync of the directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    probity_scratch::write_atomic(path, bytes, ".tmp-", None).map_err(io(path))
}

/// Publishes `bytes` at `path` only if nothing is there yet: the bytes are
/// made durable in a temp file, then hard-linked into place (atomic and
/// exclusive). Returns false when `path` already existed.
fn publish_exclusive(path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
    let (dir, tmp) = durable_temp(path, bytes)?;
    let linked = match fs::hard_link(tmp.path(), path) {
        Ok(()) => true,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => false,
        Err(e) => return Err(io(path)(e)),
    };
    drop(tmp);
    sync_dir(&dir)?;
    Ok(linked)
}

pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    probity_scratch::sync_dir(dir).map_err(io(dir))
}

/// The temporary name a new lineage's folder is made under:
/// `.new-<lineage>-<random>`, beside its owner lock `<that>.owner`.
const NEW_PREFIX: &str = ".new-";

/// How many times a new lineage's folder is moved into place when the
/// lineage folder it found there vanished meanwhile.
const RENAME_ATTEMPTS: usize = 3;

/// Runs `f` outside an interrupted run's cleanup (see
/// [`probity_scratch::registry::exclusive`]).
fn exclusive<T>(f: impl FnOnce() -> T) -> T {
    probity_scratch::registry::exclusive(f)
}

/// Writes `bytes` durably to a new file at `path` (in a folder only this
/// run writes into).
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .open(path)
        .map_err(io(path))?;
    file.write_all(bytes).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}

/// Creates and takes the lock of the lineage folder being made at `made`
/// (it moves with the folder, still held).
fn new_lineage_lock(made: &Path) -> Result<File, StoreError> {
    let path = made.join("LOCK");
    let file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    file.lock().map_err(io(&path))?;
    Ok(file)
}

impl FileStore {
    /// The lineage folder a new lineage's rename found at `dir`: an exact
    /// retry of the same start (same candidate, nonce and time) when it
    /// holds the same state, answered with its lock held; None when it
    /// vanished meanwhile (a pass undid an earlier attempt stopped before
    /// any index named it: the rename is tried again). Any other content is
    /// refused before anything is written.
    fn retried_lineage(
        &self,
        lineage: &LineageId,
        dir: &Path,
        bytes: &[u8],
    ) -> Result<Option<File>, StoreError> {
        let other = || StoreError::Malformed {
            path: dir.display().to_string(),
            detail: "lineage directory exists with other content".into(),
        };
        let state = self.state_path(lineage);
        match Self::read_optional(&state)? {
            Some(current) if current == bytes => {}
            None if fs::symlink_metadata(dir).is_err() => return Ok(None),
            _ => return Err(other()),
        }
        let guard = match self.lock(lineage) {
            Ok(guard) => guard,
            Err(StoreError::Io { source, .. }) if source.kind() == ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        match Self::read_optional(&state)? {
            Some(current) if current == bytes => Ok(Some(guard)),
            None if fs::symlink_metadata(dir).is_err() => Ok(None),
            _ => Err(other()),
        }
    }

    /// Settles what a `start` stopped while creating its lineage left
    /// (SIGKILL, or a signal or failure after the rename): the folder it
    /// was making is removed, and the lineage it had moved into place but
    /// no index names yet (never discoverable, its start never answered) is
    /// undone. Told by the dead owner's lock, never by age; a live start's
    /// folder and lineage are never touched, nor is a lineage that an index
    /// names or that anyone worked on since.
    fn scavenge_unfinished_creations(&self) {
        probity_scratch::scavenge_with(&self.root, NEW_PREFIX, |made| self.settle_unfinished(made));
    }

    /// For the folder `made` whose owner is gone: undoes its lineage if it
    /// was moved into place and never reached; false leaves the folder and
    /// its owner lock for a later pass (its lineage's lock is busy).
    fn settle_unfinished(&self, made: &Path) -> bool {
        let Some(lineage) = made
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(NEW_PREFIX))
            .and_then(|n| n.rsplit_once('-'))
            .and_then(|(l, _)| LineageId::parse(l).ok())
        else {
            // Not a name create makes: only the folder and its lock go.
            return true;
        };
        let dir = self.lineage_dir(&lineage);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return true,
            Err(e) if e.kind() == ErrorKind::NotFound => return true,
            Err(_) => return false,
        }
        // Every writer of the lineage holds its lock: one at work (an exact
        // retry of the same start) finishes first.
        let Ok(lock) = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("LOCK"))
        else {
            return false;
        };
        if lock.try_lock().is_err() {
            return false;
        }
        if self.never_reached(&lineage, &dir) {
            if fs::remove_dir_all(&dir).is_err() {
                return false;
            }
            let _ = sync_dir(&self.root);
        }
        true
    }

    /// Whether the lineage at `dir` is only what create moved into place
    /// (its lock, its state, temp files) and no target index names it.
    /// Anything unexpected or unreadable answers false: it is kept.
    fn never_reached(&self, lineage: &LineageId, dir: &Path) -> bool {
        let Ok(entries) = fs::read_dir(dir) else {
            return false;
        };
        for entry in entries {
            let Ok(entry) = entry else {
                return false;
            };
            let name = entry.file_name();
            let name = name.as_encoded_bytes();
            if !(name == b"LOCK" || name == b"state.json" || name.starts_with(b".tmp-")) {
                return false;
            }
        }
        let Ok(Some(record)) = self.load(lineage) else {
            return false;
        };
        match self.lookup_target(&record.state().snapshot().target) {
            Ok(Some(owner)) => owner != *lineage,
            Ok(None) => true,
            Err(_) => false,
        }
    }
}

impl ReviewStore for FileStore {
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

    fn create(&self, record: &StateRecord) -> Result<Created, StoreError> {
        let lineage = record.state().lineage_id();
        let target = record.state().snapshot().target;
        if let Some(existing) = self.lookup_target(&target)? {
            return Ok(Created::Existing(existing));
        }
        let bytes = record.to_bytes().map_err(|source| StoreError::Corrupted {
            path: lineage.to_string(),
            source,
        })?;
        // A new lineage is rare and never on a gate's path: the place to
        // clear what killed writers left behind.
        self.scavenge_orphan_temps();
        self.scavenge_unfinished_creations();
        fs::create_dir_all(&self.root).map_err(io(&self.root))?;
        // The lineage's folder is made whole under a name of its own, held
        // by this run's owner lock, and appears under the lineage's name
        // only by a rename: a lineage folder never exists without its state.
        let mut folder =
            probity_scratch::Scratch::reserve_only(&self.root, &format!("{NEW_PREFIX}{lineage}-"))
                .map_err(io(&self.root))?;
        let made = folder.path().to_path_buf();
        // Each write into the folder is one step an interrupted run's
        // cleanup (which removes the folder) never overlaps.
        folder.create_dir(0o777).map_err(io(&made))?;
        let own_lock = exclusive(|| new_lineage_lock(&made))?;
        self.reached("folder");
        // No temp file here: the folder is this run's alone until the
        // rename, which is what makes the state appear whole.
        let state = made.join("state.json");
        exclusive(|| write_new(&state, &bytes))?;
        sync_dir(&made)?;
        // From the rename until an index names the lineage, what the folder
        // became is settled by this run or, if it is stopped first (or
        // fails), by the next run's pass, told by the owner lock: its file
        // stays until then.
        let dir = self.lineage_dir(lineage);
        let mut own_lock = Some(own_lock);
        let mut attempts = 0;
        let _guard = loop {
            attempts += 1;
            folder.keep_lock_file(true);
            match exclusive(|| fs::rename(&made, &dir)) {
                Ok(()) => {
                    sync_dir(&self.root)?;
                    if let Some(own) = own_lock.take() {
                        break own;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::AlreadyExists | ErrorKind::DirectoryNotEmpty
                    ) =>
                {
                    // Not moved: what is there is not this run's to settle.
                    folder.keep_lock_file(false);
                }
                Err(e) => {
                    folder.keep_lock_file(false);
                    return Err(io(&dir)(e));
                }
            }
            if let Some(guard) = self.retried_lineage(lineage, &dir, &bytes)? {
                break guard;
            }
            if attempts >= RENAME_ATTEMPTS {
                return Err(StoreError::Malformed {
                    path: dir.display().to_string(),
                    detail: "lineage directory kept vanishing while it was moved into place".into(),
                });
            }
        };
        self.reached("state");
        let line = format!("{lineage}\n");
        if publish_exclusive(&self.target_index(&target), line.as_bytes())? {
            self.reached("indexed");
            folder.keep_lock_file(false);
            return Ok(Created::New);
        }
        // Another start of the same candidate won: withdraw ours, resume theirs.
        let winner = self
            .lookup_target(&target)?
            .ok_or_else(|| StoreError::Malformed {
                path: self.target_index(&target).display().to_string(),
                detail: "vanished while being read".into(),
            })?;
        if winner == *lineage {
            folder.keep_lock_file(false);
            return Ok(Created::New);
        }
        if fs::remove_dir_all(&dir).is_ok() {
            folder.keep_lock_file(false);
        }
        Ok(Created::Existing(winner))
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        let (expected, next) = (transition.expected(), transition.next());
        let lineage = next.state().lineage_id();
        let _guard = self.lock(lineage)?;
        let path = self.state_path(lineage);
        let bytes =
            Self::read_optional(&path)?.ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        let current = Self::parse_record(&path, &bytes)?;
        if current.revision() == next.revision() {
            // Exact retry: the same successor is already durable. Finish any
            // projection a crash may have left unwritten.
            return self.write_projections(next);
        }
        if current.revision() != *expected {
            return Err(StoreError::Conflict {
                lineage: lineage.clone(),
                expected: *expected,
                found: current.revision(),
            });
        }
        check_successor(current.state(), next.state())?;
        self.claim_final_target(next)?;
        let new_bytes = next.to_bytes().map_err(|source| StoreError::Corrupted {
            path: path.display().to_string(),
            source,
        })?;
        write_atomic(&path, &new_bytes)?;
        self.write_projections(next)
    }

    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        let _guard = self.lock(record.state().lineage_id())?;
        let path = self.state_path(record.state().lineage_id());
        let bytes = Self::read_optional(&path)?
            .ok_or_else(|| StoreError::NotFound(record.state().lineage_id().clone()))?;
        let current = Self::parse_record(&path, &bytes)?;
        if current.revision() != record.revision() {
            return Err(StoreError::Conflict {
                lineage: record.state().lineage_id().clone(),
                expected: record.revision(),
                found: current.revision(),
            });
        }
        self.write_projections(&current)
    }

    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Self::list_pointers(&self.open_dir(base))
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Self::list_pointers(&self.escalated_dir(base))
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
        let path = self.state_path(lineage);
        let bytes =
            Self::read_optional(&path)?.ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        let current = Self::parse_record(&path, &bytes)?;
        if current.revision() != record.revision() {
            return Err(StoreError::Conflict {
                lineage: lineage.clone(),
                expected: record.revision(),
                found: current.revision(),
            });
        }
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

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        Self::read_optional(&self.receipt_path(lineage))
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        self.receipt_path(lineage).display().to_string()
    }

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

    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        let mut out = Vec::new();
        for lens in Lens::CANONICAL {
            if let Some(bytes) = Self::read_result(&self.result_path(lineage, lens))? {
                out.push((lens, bytes));
            }
        }
        Ok(out)
    }

    fn create_successor(&self, record: &StateRecord) -> Result<Created, StoreError> {
        let link = record
            .state()
            .predecessor()
            .ok_or_else(|| StoreError::Malformed {
                path: record.state().lineage_id().to_string(),
                detail: "a successor must name its predecessor".into(),
            })?;
        let pred = link.lineage_id.clone();
        // The predecessor's lock orders recoveries of one predecessor (and
        // any writer of it) against each other.
        let _guard = self.lock(&pred)?;
        let pred_path = self.state_path(&pred);
        let pred_bytes =
            Self::read_optional(&pred_path)?.ok_or_else(|| StoreError::NotFound(pred.clone()))?;
        let current = Self::parse_record(&pred_path, &pred_bytes)?;
        if current.revision() != link.revision {
            return Err(StoreError::Conflict {
                lineage: pred.clone(),
                expected: link.revision,
                found: current.revision(),
            });
        }
        let same_link = |r: &StateRecord| r.state().predecessor() == Some(link);
        // A successor whose creation a crash interrupted is adopted by the
        // same request, never minted twice (R1.3).
        let pending_path = self.pending_successor_path(&pred);
        let (record, adopted) = match Self::read_optional(&pending_path)? {
            Some(bytes) => {
                let pending = Self::parse_record(&pending_path, &bytes)?;
                if !same_link(&pending) {
                    return Err(StoreError::RecoveryPending {
                        lineage: pred.clone(),
                        successor: pending.state().lineage_id().clone(),
                    });
                }
                let adopted = pending.state().lineage_id() != record.state().lineage_id();
                (pending, adopted)
            }
            None => (record.clone(), false),
        };
        let lineage = record.state().lineage_id().clone();
        let retry = match Self::read_lineage_pointer(&self.successor_path(&pred))? {
            Some(s) if s == lineage => true,
            Some(s) => {
                // The same request, raced or retried, answers the successor
                // it created; any other request would fork the chain.
                return match self.load(&s)? {
                    Some(existing) if same_link(&existing) => Ok(Created::Existing(s)),
                    _ => Err(StoreError::AlreadySuperseded {
                        lineage: pred.clone(),
                        successor: s,
                    }),
                };
            }
            None => false,
        };
        let target = record.state().snapshot().target;
        let index = self.target_index(&target);
        let line = format!("{lineage}\n");
        let ancestors = self.ancestors(&record)?;
        // Who may the successor take its target from: nobody yet, itself,
        // or a lineage of its own chain. A later generation that owns it
        // already (a retry after the chain moved on) keeps it.
        let take_over = match self.lookup_target(&target)? {
            None => None,
            Some(owner) if owner == lineage || ancestors.contains(&owner) => Some(owner),
            Some(_) if retry => {
                // The chain moved on past this successor (a later
                // generation owns the target): leave the index as it is.
                self.drop_pending(&pending_path, &pred)?;
                return Ok(Created::Existing(lineage));
            }
            Some(owner) => {
                if adopted || Self::read_optional(&pending_path)?.is_some() {
                    // An interrupted recovery that can no longer complete:
                    // its candidate went to someone else. Drop it (it was
                    // never marked nor indexed) so the predecessor can be
                    // recovered again.
                    self.drop_pending(&pending_path, &pred)?;
                    let _ = fs::remove_dir_all(self.lineage_dir(&lineage));
                }
                return Err(StoreError::TargetOwned {
                    lineage: pred.clone(),
                    owner,
                });
            }
        };
        let bytes = record.to_bytes().map_err(|source| StoreError::Corrupted {
            path: lineage.to_string(),
            source,
        })?;
        // 1. The pending record: from here on a retry completes this
        //    successor instead of minting another.
        if !retry && !adopted {
            publish_exclusive(&pending_path, &bytes)?;
        }
        // 2. The successor's record (unreferenced until steps 3 and 4).
        let dir = self.lineage_dir(&lineage);
        match fs::create_dir(&dir) {
            Ok(()) => sync_dir(&self.root)?,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(&dir)(e)),
        }
        // Written before a crash, or moved on since (a retry): keep it.
        if Self::read_optional(&self.state_path(&lineage))?.is_none() {
            write_atomic(&self.state_path(&lineage), &bytes)?;
        }
        // 3. Discovery by target: published exclusively when nobody owns
        //    it, so a concurrent `start` of the same candidate is never
        //    overwritten; taken over only from its own chain.
        match take_over {
            None => {
                if !publish_exclusive(&index, line.as_bytes())? {
                    let owner = Self::read_lineage_pointer(&index)?;
                    if owner.as_ref() != Some(&lineage) {
                        // Lost to a concurrent start: withdraw.
                        let _ = fs::remove_file(&pending_path);
                        let _ = fs::remove_dir_all(&dir);
                        return Err(StoreError::TargetOwned {
                            lineage: pred.clone(),
                            owner: owner.unwrap_or(pred),
                        });
                    }
                }
            }
            Some(_) => write_if_different(&index, line.as_bytes())?,
        }
        // 4. The marker: exclusive, so one predecessor never has two
        //    successors.
        let marker = self.successor_path(&pred);
        if !publish_exclusive(&marker, line.as_bytes())? {
            match Self::read_lineage_pointer(&marker)? {
                Some(s) if s == lineage => {}
                Some(s) => {
                    return Err(StoreError::AlreadySuperseded {
                        lineage: pred,
                        successor: s,
                    });
                }
                None => {
                    return Err(StoreError::Malformed {
                        path: marker.display().to_string(),
                        detail: "vanished while being read".into(),
                    });
                }
            }
        }
        // 5. Done: the pending record is no longer needed.
        self.drop_pending(&pending_path, &pred)?;
        Ok(if retry || adopted {
            Created::Existing(lineage)
        } else {
            Created::New
        })
    }
}
