//! Durable writes: temp file + fsync + rename + directory fsync, exclusive
//! publication by hard link, and the scavenge of the temp files a killed
//! writer left.

use super::*;

pub(super) fn write_if_different(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if FileStore::read_optional(path)?.as_deref() != Some(bytes) {
        write_atomic(path, bytes)?;
    }
    Ok(())
}

/// The store is at most this deep (`index/open/<tree>/<lineage>`).
pub(super) const STORE_DEPTH: usize = 4;
/// At most this many directory entries are visited by one scavenge.
pub(super) const SCAVENGE_MAX_ENTRIES: usize = 200_000;

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
pub(super) fn durable_temp(
    path: &Path,
    bytes: &[u8],
) -> Result<(PathBuf, probity_scratch::LockedTemp), StoreError> {
    let dir = path.parent().ok_or_else(|| StoreError::Malformed {
        path: path.display().to_string(),
        detail: "no parent directory".into(),
    })?;
    probity_scratch::create_dir_durable(dir).map_err(io(dir))?;
    let mut tmp = probity_scratch::LockedTemp::new_in(dir, ".tmp-").map_err(io(dir))?;
    tmp.write_all(bytes).map_err(io(tmp.path()))?;
    probity_scratch::sync_file(tmp.as_file()).map_err(io(path))?;
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
pub(super) fn publish_exclusive(path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
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
