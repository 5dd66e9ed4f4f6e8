//! Temp files that are their own owner lock: a store write's temp file is
//! locked (exclusive `File::lock`) from creation until it is renamed or
//! removed, so a pass over the store can tell a live writer's temp file
//! from a killed writer's by whether its lock can be taken, never by age.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::registry::{self, Registered};

/// How many times creation is retried when a scavenger removed the new
/// file between its creation and its locking.
const CREATE_ATTEMPTS: usize = 8;

/// A named temp file held locked by this process and registered for
/// removal if the run is interrupted. Dropping it removes the file.
#[derive(Debug)]
pub struct LockedTemp {
    file: tempfile::NamedTempFile,
    _registered: Registered,
}

impl LockedTemp {
    /// Creates `<dir>/<prefix><random>`, locked and registered.
    pub fn new_in(dir: &Path, prefix: &str) -> std::io::Result<LockedTemp> {
        for _ in 0..CREATE_ATTEMPTS {
            // Created and registered in one step: an interrupted run never
            // leaves a temp file it made while (or after) it cleaned up.
            let (file, registered) = registry::make(|| {
                let file = tempfile::Builder::new().prefix(prefix).tempfile_in(dir)?;
                file.as_file().lock()?;
                if !still_ours(file.as_file(), file.path()) {
                    // Removed by a scavenger before we held the lock; the
                    // handle dropped here finds nothing left to remove.
                    return Ok((None, Vec::new()));
                }
                let entry = registry::Entry::Artifact(file.path().to_path_buf());
                Ok((Some(file), vec![entry]))
            })?;
            let (Some(file), Some(registered)) = (file, registered.into_iter().next()) else {
                continue;
            };
            return Ok(LockedTemp {
                file,
                _registered: registered,
            });
        }
        Err(std::io::Error::other(
            "could not hold a temp file: other runs kept removing it",
        ))
    }

    /// The temp file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The open file.
    pub fn as_file(&self) -> &File {
        self.file.as_file()
    }

    /// Renames the temp file over `path` (the lock goes with the file and is
    /// released when the returned handle drops).
    pub fn persist(self, path: &Path) -> std::io::Result<File> {
        self.file.persist(path).map_err(|e| e.error)
    }
}

impl LockedTemp {
    /// Renames the temp file to `path` only if nothing is there (never over
    /// an existing file: `AlreadyExists`, and the temp file stays this
    /// guard's, removed when it drops).
    pub fn persist_new(self, path: &Path) -> std::io::Result<File> {
        // On an error the temp file comes back in the error and is removed
        // when it drops, as is this guard's registration.
        self.file.persist_noclobber(path).map_err(|e| e.error)
    }
}

/// A named temp file in `$TMPDIR` (`.tmp<random>`), registered for removal
/// if the run is interrupted. Dropping it removes the file.
#[derive(Debug)]
pub struct RegisteredTemp {
    file: tempfile::NamedTempFile,
    _registered: Vec<Registered>,
}

impl RegisteredTemp {
    /// Creates it and registers it in one step (as [`LockedTemp::new_in`]
    /// does): a signal between its creation and a later registration would
    /// leave it behind.
    pub fn new() -> std::io::Result<RegisteredTemp> {
        let (file, registered) = registry::make(|| {
            let file = tempfile::NamedTempFile::new()?;
            let entry = registry::Entry::Artifact(file.path().to_path_buf());
            Ok((file, vec![entry]))
        })?;
        Ok(RegisteredTemp {
            file,
            _registered: registered,
        })
    }

    /// The temp file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl Write for RegisteredTemp {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Write for LockedTemp {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Writes `bytes` to `path` atomically and durably, the one way Probity
/// replaces a file: a [`LockedTemp`] beside it (`<prefix><random>`, so an
/// orphan is scavenged by its lock), written and fsynced, given
/// `permissions` when asked, renamed over `path`, then the directory
/// fsynced. Readers see the old bytes or the new, never part. The
/// directory is created as needed, each new directory made durable in its
/// parent ([`create_dir_durable`]).
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    prefix: &str,
    permissions: Option<std::fs::Permissions>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        Some(_) => std::path::PathBuf::from("."),
        None => return Err(std::io::Error::other("no parent directory")),
    };
    create_dir_durable(&dir)?;
    let mut tmp = LockedTemp::new_in(&dir, prefix)?;
    tmp.write_all(bytes)?;
    sync_file(tmp.as_file())?;
    if let Some(p) = permissions {
        std::fs::set_permissions(tmp.path(), p)?;
    }
    tmp.persist(path)?;
    sync_dir(&dir)
}

/// Creates `dir` and whichever of its ancestors are missing, fsyncing each
/// new directory's parent once it is there, so a file later renamed into
/// `dir` survives a crash together with its path (`create_dir_all` alone
/// leaves the new directories' entries in no durable state).
pub fn create_dir_durable(dir: &Path) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut at = dir;
    loop {
        match std::fs::symlink_metadata(at) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(at);
                match at.parent() {
                    Some(p) if !p.as_os_str().is_empty() => at = p,
                    _ => break,
                }
            }
            Err(e) => return Err(e),
        }
    }
    for d in missing.into_iter().rev() {
        match std::fs::create_dir(d) {
            Ok(()) => {}
            // Made meanwhile by another writer: its parent is synced below
            // all the same.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        // A relative path's first directory is an entry of `.`.
        match d.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => sync_dir(parent)?,
            None => sync_dir(Path::new("."))?,
        }
    }
    if std::fs::metadata(dir)?.is_dir() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "{} is not a directory",
            dir.display()
        )))
    }
}

/// fsyncs a directory (a rename in it is durable once this returns).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir).and_then(|d| d.sync_all())?;
        FSYNCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(())
}

/// fsyncs `file`.
pub fn sync_file(file: &File) -> std::io::Result<()> {
    file.sync_all()?;
    FSYNCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// How many fsyncs [`sync_file`] and [`sync_dir`] made in this process
/// (a count tests pin, issue 24).
pub fn fsyncs() -> u64 {
    FSYNCS.load(std::sync::atomic::Ordering::Relaxed)
}

static FSYNCS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Whether `path` still names the file `file` has open (a scavenger can
/// remove a file between its creation and its locking).
pub(crate) fn still_ours(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes the regular file at `path` when nobody holds its lock (the
/// process that made it is gone). Returns whether it was removed. A file
/// held by a live writer is never touched, whatever its age.
pub fn remove_if_orphaned(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    if file.try_lock().is_err() {
        return false;
    }
    std::fs::remove_file(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_directories_are_made_level_by_level_and_a_file_in_the_way_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        create_dir_durable(&deep).unwrap();
        assert!(deep.is_dir());
        // Again: nothing to make, no error.
        create_dir_durable(&deep).unwrap();
        write_atomic(&dir.path().join("x/y/file"), b"bytes", ".tmp-", None).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("x/y/file")).unwrap(),
            b"bytes"
        );
        std::fs::write(dir.path().join("plain"), b"").unwrap();
        assert!(create_dir_durable(&dir.path().join("plain")).is_err());
        assert!(create_dir_durable(&dir.path().join("plain/below")).is_err());
    }

    #[test]
    fn a_live_temp_is_kept_and_a_dead_ones_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mut live = LockedTemp::new_in(dir.path(), ".tmp-").unwrap();
        live.write_all(b"being written").unwrap();
        assert!(
            !remove_if_orphaned(live.path()),
            "a held temp is never removed"
        );
        assert!(live.path().exists());
        // What a killed writer leaves: a temp file nobody holds.
        let dead = dir.path().join(".tmp-killed");
        std::fs::write(&dead, b"half").unwrap();
        assert!(remove_if_orphaned(&dead));
        assert!(!dead.exists());
        // Persisting moves it; the temp name is gone.
        let target = dir.path().join("state.json");
        let tmp_path = live.path().to_path_buf();
        drop(live.persist(&target).unwrap());
        assert!(!tmp_path.exists());
        assert_eq!(std::fs::read(&target).unwrap(), b"being written");
    }

    #[test]
    fn persist_new_never_writes_over_a_file_and_removes_its_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("input.json");
        std::fs::write(&target, b"theirs").unwrap();
        let mut t = LockedTemp::new_in(dir.path(), ".tmp-").unwrap();
        t.write_all(b"ours").unwrap();
        let tmp_path = t.path().to_path_buf();
        let e = t.persist_new(&target).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).unwrap(), b"theirs");
        assert!(!tmp_path.exists(), "the temp file is removed");
        std::fs::remove_file(&target).unwrap();
        let mut t = LockedTemp::new_in(dir.path(), ".tmp-").unwrap();
        t.write_all(b"ours").unwrap();
        drop(t.persist_new(&target).unwrap());
        assert_eq!(std::fs::read(&target).unwrap(), b"ours");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_temp_removed_before_it_was_locked_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let t = LockedTemp::new_in(dir.path(), ".tmp-").unwrap();
        let f = File::open(t.path()).unwrap();
        assert!(still_ours(t.as_file(), t.path()));
        std::fs::remove_file(t.path()).unwrap();
        assert!(!still_ours(t.as_file(), t.path()));
        drop(f);
    }

    #[test]
    fn a_registered_temp_is_in_the_set_from_its_creation_and_leaves_with_its_file() {
        let mut t = RegisteredTemp::new().unwrap();
        t.write_all(b"verdict").unwrap();
        let path = t.path().to_path_buf();
        assert_eq!(std::fs::read(&path).unwrap(), b"verdict");
        let listed = || registry::snapshot().contains(&registry::Entry::Artifact(path.clone()));
        assert!(listed(), "an interrupted run would remove it");
        drop(t);
        assert!(!path.exists());
        assert!(!listed());
    }
}
