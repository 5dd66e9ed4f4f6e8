//! The process-wide set of what an interrupted run must undo: artifact
//! paths to remove and child processes to stop. Each entry is held by a
//! [`Registered`] guard and leaves the set when the guard drops.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Something to undo if the run is interrupted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A file or directory to remove (with `<path>.lock`, which git keeps
    /// beside an index it is writing).
    Artifact(PathBuf),
    /// An owner lock file, removed after every artifact.
    Owner(PathBuf),
    /// A child process (a git) to stop before any removal, so it cannot
    /// write an artifact again after it was removed: asked first (SIGTERM,
    /// on which git removes the lock files it holds) and waited for,
    /// killed only when it outlives [`CHILD_GRACE`].
    Child(u32),
    /// A process group (a child spawned as its own group's leader) to kill.
    Group(u32),
    /// This process is the child subreaper of a run (a check,
    /// `PR_SET_CHILD_SUBREAPER`): every child of it that no `Child` or
    /// `Group` entry names was reparented to it from that run (a `setsid`
    /// daemon) and is killed, so nothing of the run outlives an interrupt
    /// (issue 20 §1).
    Reaper,
}

static NEXT: AtomicU64 = AtomicU64::new(0);
static ENTRIES: Mutex<BTreeMap<u64, Entry>> = Mutex::new(BTreeMap::new());

fn entries() -> MutexGuard<'static, BTreeMap<u64, Entry>> {
    // A panic while the set was held leaves it usable: it is only a map.
    ENTRIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps its entry in the set until dropped.
#[derive(Debug)]
#[must_use = "the entry leaves the set when this guard drops"]
pub struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        entries().remove(&self.0);
    }
}

/// Adds `entry` to the set until the returned guard drops.
pub fn register(entry: Entry) -> Registered {
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    entries().insert(key, entry);
    Registered(key)
}

/// Registers an artifact path.
pub fn artifact(path: &Path) -> Registered {
    register(Entry::Artifact(path.to_path_buf()))
}

/// Spawns `cmd` and registers the child (as a process group when it was
/// made its group's leader, `group`) in one step under the set's lock: an
/// interrupted run, which holds that lock from its cleanup until the
/// process ends, either sees the child or prevents its spawn, so no child
/// can start writing after the cleanup.
pub fn spawn(
    cmd: &mut std::process::Command,
    group: bool,
) -> std::io::Result<(std::process::Child, Registered)> {
    let mut set = entries();
    let child = cmd.spawn()?;
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    let entry = if group {
        Entry::Group(child.id())
    } else {
        Entry::Child(child.id())
    };
    set.insert(key, entry);
    Ok((child, Registered(key)))
}

/// The signals a sheltered child starts with blocked ([`spawn_sheltered`]).
pub const SHELTERED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// [`spawn`] (not as a group), with [`SHELTERED`] blocked in the child: a
/// short git that writes a ref (`update-ref`, `notes add`, `notes merge`)
/// is never ended between creating its lock file and installing the
/// handler that would remove it (git installs it only after its first
/// lock file exists, so a signal in that window leaves the lock for good,
/// as a terminal's Ctrl-C did for every git in the process group). The
/// signals stay pending: the child finishes its update and ends; an
/// interrupted run waits for it ([`CHILD_GRACE`]) and kills it only past
/// that. Its own children (a hook) inherit the blocked signals.
pub fn spawn_sheltered(
    cmd: &mut std::process::Command,
) -> std::io::Result<(std::process::Child, Registered)> {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls are made
    // (`block_sheltered`).
    unsafe {
        cmd.pre_exec(block_sheltered);
    }
    spawn(cmd, false)
}

/// Blocks [`SHELTERED`] in the calling thread; an `exec` keeps the mask.
/// Async-signal-safe (sigemptyset, sigaddset, pthread_sigmask on a set on
/// the stack), so it may run between fork and exec.
pub fn block_sheltered() -> std::io::Result<()> {
    // SAFETY: a zeroed sigset_t initialised by sigemptyset, on the stack;
    // pthread_sigmask with a null old-set pointer.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in SHELTERED {
            libc::sigaddset(&mut set, sig);
        }
        match libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) {
            0 => Ok(()),
            e => Err(std::io::Error::from_raw_os_error(e)),
        }
    }
}

/// Runs `f`, one change this process makes to a registered artifact
/// itself (a directory or a file created inside it, a rename out of it),
/// with the set locked. An interrupted run's cleanup holds the same lock
/// from its start until the process ends, so it runs wholly before or
/// wholly after `f`, never while `f` writes: a removal never races a write
/// that would make it fail (a directory no longer empty) or that would
/// move a half-removed tree into place. After such a cleanup `f` never
/// runs; the caller waits here until the process ends by the signal.
///
/// `f` must not register, spawn or reserve (the lock is not reentrant),
/// and should be one short step: the cleanup waits for it.
pub fn exclusive<T>(f: impl FnOnce() -> T) -> T {
    let _set = entries();
    f()
}

/// Makes something and registers the entries `make` answers with it, in
/// one step under the set's lock (as [`spawn`] does for a child): an
/// interrupted run's cleanup, which holds that lock from its start until
/// the process ends, either sees what `make` made or runs first, and then
/// `make` never runs. So nothing is made, unregistered, while the cleanup
/// runs or after it. `make` must not touch the set itself (nor drop a
/// [`Registered`]), and undoes its own work when it fails.
pub fn make<T>(
    make: impl FnOnce() -> std::io::Result<(T, Vec<Entry>)>,
) -> std::io::Result<(T, Vec<Registered>)> {
    let mut set = entries();
    let (made, list) = make()?;
    let guards = list
        .into_iter()
        .map(|entry| {
            let key = NEXT.fetch_add(1, Ordering::Relaxed);
            set.insert(key, entry);
            Registered(key)
        })
        .collect();
    Ok((made, guards))
}

/// What the set holds now (for tests and diagnostics).
pub fn snapshot() -> Vec<Entry> {
    entries().values().cloned().collect()
}

/// How long an interrupted run waits for a child it asked to stop before
/// it kills it, and then for the killed child to be gone.
pub const CHILD_GRACE: Duration = Duration::from_secs(2);

/// Undoes everything registered: asks children to stop (SIGTERM) and kills
/// groups, waits (bounded) for the children, kills those still running and
/// waits for them too, then removes artifacts and, last, owner locks. The
/// set is left as it was.
///
/// A child is never killed first: a git killed while it holds a lock
/// (`refs/notes/probity.lock`, `packed-refs.lock`, a remote-tracking ref's)
/// leaves the lock file behind and every later git that needs the ref
/// fails "cannot lock ref"; asked with SIGTERM, git removes its lock files
/// and ends. Only a child still running after [`CHILD_GRACE`] is killed
/// (D-R66).
pub fn undo_all() {
    let set = entries();
    undo(&set);
}

/// [`undo_all`], keeping the set locked for the rest of the process: no
/// child is spawned and no artifact reserved after the cleanup (the caller
/// ends the process next).
pub fn undo_all_and_freeze() {
    let set = entries();
    undo(&set);
    std::mem::forget(set);
}

fn undo(set: &BTreeMap<u64, Entry>) {
    let all: Vec<&Entry> = set.values().collect();
    for e in &all {
        match e {
            Entry::Child(pid) => signal(*pid, false, libc::SIGTERM),
            Entry::Group(pid) => signal(*pid, true, libc::SIGKILL),
            _ => {}
        }
    }
    let asked = Instant::now() + CHILD_GRACE;
    for e in &all {
        if let Entry::Child(pid) = e
            && !wait_gone(*pid, asked)
        {
            signal(*pid, false, libc::SIGKILL);
            wait_gone(*pid, Instant::now() + CHILD_GRACE);
        }
    }
    if all.iter().any(|e| matches!(e, Entry::Reaper)) {
        // A group's leader hands its children to us as it exits: wait for
        // it (it is our child) before looking for them.
        for e in &all {
            if let Entry::Group(pid) = e {
                wait_gone(*pid, Instant::now() + CHILD_GRACE);
            }
        }
        let ours: Vec<i32> = all
            .iter()
            .filter_map(|e| match e {
                Entry::Child(p) | Entry::Group(p) => i32::try_from(*p).ok(),
                _ => None,
            })
            .collect();
        end_orphans(&ours, Instant::now() + CHILD_GRACE);
    }
    for e in &all {
        if let Entry::Artifact(p) = e {
            remove_artifact(p);
        }
    }
    for e in &all {
        if let Entry::Owner(p) = e {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Kills and reaps every child of this process but `ours`, until none is
/// left (three looks in a row, 10 ms apart: a process killed a moment ago
/// may still be handing its children over) or `deadline` passes: each one
/// killed hands its own children to this process (a subreaper), so it
/// repeats.
pub fn end_orphans(ours: &[i32], deadline: Instant) {
    let mut quiet = 0;
    loop {
        let left: Vec<i32> = children()
            .into_iter()
            .filter(|p| !ours.contains(p))
            .collect();
        if Instant::now() >= deadline {
            return;
        }
        if left.is_empty() {
            quiet += 1;
            if quiet >= 3 {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        quiet = 0;
        for pid in &left {
            // SAFETY: kill(2) and waitpid(2) on a child of this process
            // (/proc names us its parent, and only we reap it), with a
            // valid status pointer.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
                let mut status = 0;
                libc::waitpid(*pid, &mut status, 0);
            }
        }
    }
}

/// The pids whose parent is this process (from `/proc/<pid>/stat`; empty
/// where there is no `/proc`).
pub fn children() -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| parent_of(&stat))
                == Some(me)
        })
        .collect()
}

/// The parent pid in a `/proc/<pid>/stat` line: the field after the
/// state, after the command name's last `)` (a name may hold any byte).
fn parent_of(stat: &[u8]) -> Option<i32> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// Kills (SIGKILL) the process group `pid` leads: a child spawned as its
/// group's leader (`process_group(0)`) and everything still in its group.
/// The one group kill of Probity (the evidence check, an agent model
/// command, `ssh-keygen`, an interrupted run's groups).
pub fn kill_group(pid: u32) {
    signal(pid, true, libc::SIGKILL);
}

fn signal(pid: u32, group: bool, sig: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    let target = if group { -pid } else { pid };
    // SAFETY: kill(2) sends a signal to our own child (or the group it
    // leads); no memory is shared.
    unsafe {
        libc::kill(target, sig);
    }
}

/// Waits until `pid` has exited: reaped here, or already reaped by the
/// thread that spawned it (then waitpid reports no such child). False
/// when it still runs at `deadline`.
fn wait_gone(pid: u32, deadline: Instant) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) on our own child, non-blocking, with a valid
        // out-pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r != 0 {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Removes a file or a directory tree, and git's `<path>.lock` beside it.
/// Best effort: what cannot be removed is left for the next scavenging.
pub fn remove_artifact(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            if std::fs::remove_dir_all(path).is_err() {
                // A read-only tree (a sealed copy, 0555 directories): make
                // its directories writable by their owner, then again.
                make_writable(path, 0);
                let _ = std::fs::remove_dir_all(path);
            }
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
    let mut git_lock = path.as_os_str().to_owned();
    git_lock.push(".lock");
    let _ = std::fs::remove_file(PathBuf::from(git_lock));
}

/// How deep [`make_writable`] descends (context trees and scratch
/// repositories are far shallower).
const MAX_DEPTH: usize = 64;

/// Adds the owner's write and search bits to `dir` and every directory
/// below it, never following a link. Best effort.
fn make_writable(dir: &Path, depth: usize) {
    use std::os::unix::fs::PermissionsExt;
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(m) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !m.is_dir() {
        return;
    }
    let mode = m.permissions().mode() | 0o700;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                make_writable(&e.path(), depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_tree_is_removed() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("copy");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f"), b"x").unwrap();
        for d in ["a/b", "a", ""] {
            std::fs::set_permissions(root.join(d), std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        remove_artifact(&root);
        assert!(std::fs::symlink_metadata(&root).is_err());
    }

    #[test]
    fn the_parent_is_read_after_the_last_parenthesis() {
        assert_eq!(super::parent_of(b"12 (a) b) S 34 12 12 0"), Some(34));
        assert_eq!(super::parent_of(b"garbage"), None);
    }

    #[test]
    fn guards_add_and_remove_their_entries() {
        let p = PathBuf::from("/nonexistent/probity-registry-test");
        let g = artifact(&p);
        assert!(snapshot().contains(&Entry::Artifact(p.clone())));
        drop(g);
        assert!(!snapshot().contains(&Entry::Artifact(p)));
    }
}
