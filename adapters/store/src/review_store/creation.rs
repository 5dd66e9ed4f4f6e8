//! Making a lineage: a new lineage's folder made whole under a temporary
//! name and renamed into place, a recovered generation staged as a pending
//! successor, and the undoing of what an interrupted start left.

use super::*;
use probity_core::review::ancestors;
use probity_core::review::{FirstRecord, Successor};

/// The temporary name a new lineage's folder is made under:
/// `.new-<lineage>-<random>`, beside its owner lock `<that>.owner`.
pub(super) const NEW_PREFIX: &str = ".new-";

/// How many times a new lineage's folder is moved into place when the
/// lineage folder it found there vanished meanwhile.
pub(super) const RENAME_ATTEMPTS: usize = 3;

/// Runs `f` outside an interrupted run's cleanup (see
/// [`probity_scratch::registry::exclusive`]).
pub(super) fn exclusive<T>(f: impl FnOnce() -> T) -> T {
    probity_scratch::registry::exclusive(f)
}

/// Writes `bytes` durably to a new file at `path` (in a folder only this
/// run writes into).
pub(super) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .open(path)
        .map_err(io(path))?;
    file.write_all(bytes).map_err(io(path))?;
    probity_scratch::sync_file(&file).map_err(io(path))
}

/// Creates and takes the lock of the lineage folder being made at `made`
/// (it moves with the folder, still held).
pub(super) fn new_lineage_lock(made: &Path) -> Result<File, StoreError> {
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
    pub(super) fn retried_lineage(
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
    pub(super) fn scavenge_unfinished_creations(&self) {
        probity_scratch::scavenge_with(&self.root, NEW_PREFIX, |made| self.settle_unfinished(made));
    }

    /// For the folder `made` whose owner is gone: undoes its lineage if it
    /// was moved into place and never reached; false leaves the folder and
    /// its owner lock for a later pass (its lineage's lock is busy).
    pub(super) fn settle_unfinished(&self, made: &Path) -> bool {
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
    pub(super) fn never_reached(&self, lineage: &LineageId, dir: &Path) -> bool {
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

impl FileStore {
    /// [`ReviewStore::create`]: a new lineage's folder made whole under a
    /// temporary name, then renamed into place and claimed in the target
    /// index.
    pub(super) fn create_lineage(&self, first: &FirstRecord) -> Result<Created, StoreError> {
        let record = first.record();
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
        probity_scratch::create_dir_durable(&self.root).map_err(io(&self.root))?;
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

    /// [`ReviewStore::create_successor`]: a recovered generation, staged as
    /// its predecessor's pending successor until the marker names it.
    pub(super) fn create_successor_lineage(
        &self,
        successor: &Successor,
    ) -> Result<Created, StoreError> {
        let record = successor.record();
        let pred = successor.predecessor().clone();
        // The predecessor's lock orders recoveries of one predecessor (and
        // any writer of it) against each other.
        let _guard = self.lock(&pred)?;
        let (_, current) = self.held_record(&pred)?;
        // Compare-and-swap: core checked the link against the predecessor
        // at `expected`; it must still be there.
        StoreError::check_revision(&pred, *successor.expected(), current.revision())?;
        let link = record.state().predecessor();
        let same_link = |r: &StateRecord| r.state().predecessor() == link;
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
        let ancestors = ancestors(&record, |l| self.load(l))?;
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
