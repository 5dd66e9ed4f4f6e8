//! Temporary artifacts a killed process cannot leak for long.
//!
//! A `probity` interrupted by Ctrl-C, SIGTERM or SIGKILL runs no destructor,
//! so a temporary index copy in the git dir (a full copy of the index) or a
//! scratch repository would stay forever. Every such artifact is therefore
//! guarded by an owner lock: `<name>.owner`, created first and held with an
//! exclusive `File::lock` for the artifact's whole life (the operating
//! system releases it when the process ends, however it ends). Cleanup
//! removes the artifact first and the lock last, so an artifact never
//! outlives its lock file.
//!
//! [`scavenge`] runs at the next use: every lock file of the kind that it
//! can lock belongs to a process that is gone, and its artifact and lock are
//! removed. A live owner's lock cannot be taken, so its artifact is never
//! touched, whatever its age.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

// Not `.lock`: git writes `<index>.lock` beside an index it updates.
const LOCK_SUFFIX: &str = ".owner";

/// An artifact path reserved under an owner lock held by this process.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    lock_path: PathBuf,
    // Held (locked) until drop.
    _lock: File,
}

impl Scratch {
    /// Reserves `<dir>/<prefix><random>` for an artifact the caller creates
    /// (a file or a directory), after scavenging what dead owners left in
    /// `dir` under the same prefix.
    pub fn reserve(dir: &Path, prefix: &str) -> std::io::Result<Scratch> {
        scavenge(dir, prefix);
        let (lock, lock_path) = tempfile::Builder::new()
            .prefix(prefix)
            .suffix(LOCK_SUFFIX)
            .tempfile_in(dir)?
            .keep()
            .map_err(|e| e.error)?;
        if let Err(e) = lock.lock() {
            let _ = fs::remove_file(&lock_path);
            return Err(e);
        }
        let path = artifact_of(&lock_path)
            .ok_or_else(|| std::io::Error::other("a scratch lock file name without its suffix"))?;
        Ok(Scratch {
            path,
            lock_path,
            _lock: lock,
        })
    }

    /// Where the artifact lives.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove_artifact(&self.path);
        let _ = fs::remove_file(&self.lock_path);
    }
}

fn artifact_of(lock_path: &Path) -> Option<PathBuf> {
    let name = lock_path.file_name()?.to_str()?;
    let stem = name.strip_suffix(LOCK_SUFFIX)?;
    Some(lock_path.with_file_name(stem))
}

fn remove_artifact(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Removes, in `dir`, every artifact named `<prefix>...` whose owner lock
/// can be taken (its owner is gone), and that lock. Best effort: an entry
/// that cannot be read or removed is left for the next pass. Returns how
/// many artifacts were removed.
pub fn scavenge(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(prefix) || !name.ends_with(LOCK_SUFFIX) {
            continue;
        }
        let lock_path = entry.path();
        let Ok(lock) = File::open(&lock_path) else {
            continue;
        };
        // Held by a live owner: not ours to touch.
        if lock.try_lock().is_err() {
            continue;
        }
        if let Some(artifact) = artifact_of(&lock_path) {
            remove_artifact(&artifact);
            // And the lock git keeps beside an index it writes, if git was
            // stopped with its owner.
            let mut git_lock = artifact.into_os_string();
            git_lock.push(".lock");
            let _ = fs::remove_file(git_lock);
        }
        let _ = fs::remove_file(&lock_path);
        removed += 1;
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_owners_artifact_is_scavenged_and_a_live_ones_is_not() {
        let dir = tempfile::tempdir().unwrap();
        // A live owner, however old: untouched.
        let live = Scratch::reserve(dir.path(), "probity-index-").unwrap();
        fs::write(live.path(), b"in use").unwrap();
        // A dead owner: its lock file exists but nobody holds it.
        fs::write(dir.path().join("probity-index-dead.owner"), b"").unwrap();
        fs::write(dir.path().join("probity-index-dead"), b"index copy").unwrap();
        // A dead owner's scratch directory.
        fs::write(dir.path().join("probity-index-deaddir.owner"), b"").unwrap();
        fs::create_dir(dir.path().join("probity-index-deaddir")).unwrap();
        fs::write(dir.path().join("probity-index-deaddir/x"), b"x").unwrap();
        // Another kind: untouched.
        fs::write(dir.path().join("other.lock"), b"").unwrap();
        assert_eq!(scavenge(dir.path(), "probity-index-"), 2);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let live_name = live
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(
            left,
            vec![
                "other.lock".to_string(),
                live_name.clone(),
                format!("{live_name}.owner")
            ]
        );
        drop(live);
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "dropping removes the artifact and its lock");
    }
}
