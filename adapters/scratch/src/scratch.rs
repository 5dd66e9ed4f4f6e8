//! Scratch artifacts under an owner lock.
//!
//! A `probity` killed by SIGKILL runs no destructor, so a temporary index
//! copy in the git dir (a full copy of the index) or a scratch repository
//! would stay forever. Every such artifact is therefore guarded by an owner
//! lock: `<name>.owner`, created first and held with an exclusive
//! `File::lock` for the artifact's whole life (the operating system releases
//! it when the process ends, however it ends). Cleanup removes the artifact
//! first and the lock last, so an artifact never outlives its lock file.
//! Both are registered (see [`crate::registry`]), so an interrupted run
//! removes them before it ends.
//!
//! [`scavenge`] runs at the next use: every lock file of the kind that it
//! can lock belongs to a process that is gone, and its artifact and lock are
//! removed. A live owner's lock cannot be taken, so its artifact is never
//! touched, whatever its age. The lock's descriptor is inherited by the
//! children spawned while the artifact lives (the git commands that write
//! it), so a git orphaned by a killed owner still holds the lock until it
//! ends too: it cannot write the artifact again after a scavenger removed
//! it.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use crate::registry::{self, Entry, Registered, remove_artifact};
use crate::temp::still_ours;

// Not `.lock`: git writes `<index>.lock` beside an index it updates.
const LOCK_SUFFIX: &str = ".owner";

/// How many times a reservation is retried when a scavenger removed the
/// lock file between its creation and its locking.
const RESERVE_ATTEMPTS: usize = 8;

/// An artifact path reserved under an owner lock held by this process.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    lock_path: PathBuf,
    // Held (locked) until drop.
    _lock: File,
    _artifact: Registered,
    /// The owner lock's entry in the interruption registry (none while the
    /// lock file is kept, see [`Scratch::keep_lock_file`]).
    owner: Option<Registered>,
    keep_lock_file: bool,
}

impl Scratch {
    /// Reserves `<dir>/<prefix><random>` for an artifact the caller creates
    /// (a file or a directory), after scavenging what dead owners left in
    /// `dir` under the same prefix.
    pub fn reserve(dir: &Path, prefix: &str) -> std::io::Result<Scratch> {
        scavenge(dir, prefix);
        Self::reserve_only(dir, prefix)
    }

    /// [`Scratch::reserve`] without the scavenging pass, for a caller that
    /// runs its own ([`scavenge_with`]) over a wider prefix.
    pub fn reserve_only(dir: &Path, prefix: &str) -> std::io::Result<Scratch> {
        for _ in 0..RESERVE_ATTEMPTS {
            // The lock file is made and registered in one step, so an
            // interrupted run never leaves one it made while it cleaned up.
            let (made, mut registered) = registry::make(|| {
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
                // Another run's scavenging pass may have taken the lock file
                // between its creation and our lock: then it is gone (or not
                // ours) and a new one is made.
                if !still_ours(&lock, &lock_path) {
                    return Ok((None, Vec::new()));
                }
                if let Err(e) = inherit_across_exec(&lock) {
                    let _ = fs::remove_file(&lock_path);
                    return Err(e);
                }
                let path = artifact_of(&lock_path).ok_or_else(|| {
                    let _ = fs::remove_file(&lock_path);
                    std::io::Error::other("a scratch lock file name without its suffix")
                })?;
                let entries = vec![
                    Entry::Artifact(path.clone()),
                    Entry::Owner(lock_path.clone()),
                ];
                Ok((Some((lock, lock_path, path)), entries))
            })?;
            let Some((lock, lock_path, path)) = made else {
                continue;
            };
            let (Some(owner), Some(artifact)) = (registered.pop(), registered.pop()) else {
                return Err(std::io::Error::other(
                    "a scratch reservation lost its entries",
                ));
            };
            return Ok(Scratch {
                path,
                lock_path,
                _lock: lock,
                _artifact: artifact,
                owner: Some(owner),
                keep_lock_file: false,
            });
        }
        Err(std::io::Error::other(
            "could not hold a scratch owner lock: other runs kept removing it",
        ))
    }

    /// Creates the artifact as a directory with `mode` (before the umask),
    /// never while an interrupted run cleans up nor after it (a directory
    /// made then would outlive its removed owner lock).
    pub fn create_dir(&self, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::DirBuilderExt;
        registry::exclusive(|| fs::DirBuilder::new().mode(mode).create(&self.path))
    }

    /// Creates the artifact as a new file with `mode` (before the umask)
    /// holding `bytes`, never while an interrupted run cleans up nor after
    /// it (see [`Scratch::create_dir`]).
    pub fn create_file(&self, bytes: &[u8], mode: u32) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = registry::exclusive(|| {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(&self.path)
        })?;
        file.write_all(bytes)?;
        file.flush()
    }

    /// Where the artifact lives. A caller that creates it should do so in
    /// [`registry::exclusive`] (or by [`Scratch::create_dir`]): made while
    /// an interrupted run cleans up, it would outlive its removed owner
    /// lock.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where its owner lock lives.
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }

    /// With `keep`, neither an interrupted run nor a drop removes the owner
    /// lock file (the artifact still goes): the lock is released when this
    /// process ends or the guard drops, and the next [`scavenge_with`] pass
    /// decides what the artifact became (an artifact moved into place
    /// under another name, say, before the move was complete). Without
    /// `keep`, both remove it again.
    pub fn keep_lock_file(&mut self, keep: bool) {
        self.keep_lock_file = keep;
        self.owner = if keep {
            None
        } else {
            Some(registry::register(Entry::Owner(self.lock_path.clone())))
        };
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove_artifact(&self.path);
        if !self.keep_lock_file {
            let _ = fs::remove_file(&self.lock_path);
        }
    }
}

/// Clears close-on-exec, so every child spawned from now on shares the
/// locked open file (the lock is released when the last holder ends).
fn inherit_across_exec(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl(2) F_SETFD on a descriptor this function borrows, open
    // for its whole call; it only changes the descriptor's flags.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFD, 0) };
    if r == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn artifact_of(lock_path: &Path) -> Option<PathBuf> {
    let name = lock_path.file_name()?.to_str()?;
    let stem = name.strip_suffix(LOCK_SUFFIX)?;
    Some(lock_path.with_file_name(stem))
}

/// Removes, in `dir`, every artifact named `<prefix>...` whose owner lock
/// can be taken (its owner is gone), and that lock. Best effort: an entry
/// that cannot be read or removed is left for the next pass. Returns how
/// many artifacts were removed.
pub fn scavenge(dir: &Path, prefix: &str) -> usize {
    scavenge_with(dir, prefix, |_| true)
}

/// [`scavenge`], asking `settle` first, for each artifact whose owner is
/// gone (with the owner's lock held by this pass, so no other pass acts on
/// it meanwhile), whether it may go now: `settle` can undo what the dead
/// owner did beyond the artifact, and answers false to leave the artifact
/// and its lock for a later pass.
pub fn scavenge_with(dir: &Path, prefix: &str, mut settle: impl FnMut(&Path) -> bool) -> usize {
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
            if !settle(&artifact) {
                continue;
            }
            // With git's `<artifact>.lock`, if git was stopped with its
            // owner.
            remove_artifact(&artifact);
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

    #[test]
    fn a_scratch_file_is_written_and_goes_with_its_guard() {
        let dir = tempfile::tempdir().unwrap();
        let s = Scratch::reserve(dir.path(), "probity-f-").unwrap();
        s.create_file(b"armored", 0o600).unwrap();
        assert_eq!(fs::read(s.path()).unwrap(), b"armored");
        assert!(registry::snapshot().contains(&Entry::Artifact(s.path().to_path_buf())));
        // Made once only.
        assert!(s.create_file(b"again", 0o600).is_err());
        drop(s);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_kept_lock_file_is_left_for_the_next_pass_to_settle() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Scratch::reserve(dir.path(), "probity-t-").unwrap();
        fs::create_dir(s.path()).unwrap();
        let lock_path = s.lock_path().to_path_buf();
        s.keep_lock_file(true);
        assert!(
            !registry::snapshot().contains(&Entry::Owner(lock_path.clone())),
            "an interrupted run leaves a kept lock file"
        );
        // Live: no pass asks about it.
        assert_eq!(scavenge_with(dir.path(), "probity-t-", |_| panic!()), 0);
        drop(s);
        assert!(lock_path.exists(), "a kept lock file outlives its guard");
        // Gone owner: asked; a "not yet" leaves it, a yes removes it.
        assert_eq!(scavenge_with(dir.path(), "probity-t-", |_| false), 0);
        assert!(lock_path.exists());
        let mut asked = Vec::new();
        let removed = scavenge_with(dir.path(), "probity-t-", |a| {
            asked.push(a.to_path_buf());
            true
        });
        assert_eq!(removed, 1);
        assert_eq!(asked, vec![artifact_of(&lock_path).unwrap()]);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        // Kept, then released again: removed on drop as usual.
        let mut s = Scratch::reserve(dir.path(), "probity-t-").unwrap();
        s.keep_lock_file(true);
        s.keep_lock_file(false);
        assert!(registry::snapshot().contains(&Entry::Owner(s.lock_path().to_path_buf())));
        drop(s);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
