//! The agent's view of its sandbox copy (C5; issue 23 §4, D-R92, D-R93).
//!
//! File modes (0555/0444) do not stop an agent running as root or as the
//! copy's owner. Where the system allows it, the agent therefore runs in a
//! private mount namespace in which the copy is a read-only bind mount,
//! set up in the child between fork and exec: `unshare(CLONE_NEWNS)`,
//! mount propagation made private (`/`, recursively), the copy bound onto
//! itself (`MS_BIND`) and remounted read-only (`MS_REMOUNT | MS_BIND |
//! MS_RDONLY`, keeping the flags the file system carries, so that a
//! namespace whose flags are locked is not refused for them). The agent
//! then loses `CAP_SYS_ADMIN` (bounding, inheritable and ambient sets), so
//! even as root it cannot remount the copy writable or unmount it.
//!
//! Only a plain mount namespace is tried (D-R92): it needs `CAP_SYS_ADMIN`
//! (root, as a CI job or a container with that capability). A user
//! namespace would let an unprivileged user make one, but an agent keeps
//! every capability in it and could remount the bind it holds; Probity
//! does not use one. Where `unshare` is refused (an unprivileged user, a
//! container without `CAP_SYS_ADMIN`, a seccomp filter) or any later step
//! fails, the child reports it and the run goes on with the modes only,
//! and says so. In both cases the copy is hashed again after the run and a
//! run that changed it is refused (`context_run.rs`).
//!
//! The child reports which protection it set up through a close-on-exec
//! pipe: one byte, written before exec (`write(2)` is async-signal-safe),
//! read by the parent once the spawn has succeeded.

use std::path::Path;

/// Which protection kept the agent from changing its copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protection {
    /// A read-only bind mount in a private mount namespace, the agent
    /// without `CAP_SYS_ADMIN`.
    MountNamespace,
    /// File modes only (0555 directories, 0444 files), which an agent
    /// running as root or as the copy's owner can override.
    ModesOnly,
}

impl Protection {
    /// The answer's `protection` value.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Protection::MountNamespace => "mount_namespace_read_only_bind",
            Protection::ModesOnly => "modes_only",
        }
    }

    /// In words, for the text answer and messages.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Protection::MountNamespace => "a read-only bind mount in a private mount namespace",
            Protection::ModesOnly => {
                "file modes only (0555/0444; no private mount namespace could be made: this process lacks CAP_SYS_ADMIN or the system refused one)"
            }
        }
    }
}

const HELD: u8 = b'N';
const MODES: u8 = b'M';

/// What the parent keeps of an arranged child until it is spawned: the
/// pipe's read end and its own copy of the write end.
pub(crate) struct Arranged {
    #[cfg(target_os = "linux")]
    read: std::os::fd::OwnedFd,
    #[cfg(target_os = "linux")]
    write: Option<std::os::fd::OwnedFd>,
}

impl Arranged {
    /// Once the child is spawned (its pre-exec step has run): which
    /// protection it set up. A child that reported nothing is taken to
    /// run with the modes only.
    pub(crate) fn held(mut self) -> Protection {
        #[cfg(target_os = "linux")]
        {
            use std::io::Read;
            // Our copy of the write end goes first: the child's closed at
            // its exec.
            self.write = None;
            let mut byte = [0u8; 1];
            let mut read = std::fs::File::from(self.read);
            match read.read(&mut byte) {
                Ok(1) if byte[0] == HELD => Protection::MountNamespace,
                _ => Protection::ModesOnly,
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = &mut self;
            Protection::ModesOnly
        }
    }
}

/// Arranges for `cmd`'s child to see `copy` through a read-only bind
/// mount in a private mount namespace, where the system allows it; the
/// answer tells, after the spawn, which protection held.
#[cfg(target_os = "linux")]
pub(crate) fn arrange(cmd: &mut std::process::Command, copy: &Path) -> std::io::Result<Arranged> {
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;

    let path = CString::new(copy.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let keep = kept_flags(&path);
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2(2) writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened and are owned by nothing
    // else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let report = write.as_raw_fd();
    // SAFETY: between fork and exec the closure makes only system calls
    // (unshare, mount, prctl, capget, capset, write), async-signal-safe,
    // on memory allocated before the fork (`path`) or on the stack; it
    // never allocates, locks or panics.
    unsafe {
        cmd.pre_exec(move || {
            let byte = [if enter(&path, keep) { HELD } else { MODES }];
            // A failed report leaves the parent reading nothing: modes
            // only, which is what it then claims.
            libc::write(report, byte.as_ptr().cast(), 1);
            Ok(())
        });
    }
    Ok(Arranged {
        read,
        write: Some(write),
    })
}

/// Off Linux: no mount namespace, the modes only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn arrange(_cmd: &mut std::process::Command, _copy: &Path) -> std::io::Result<Arranged> {
    Ok(Arranged {})
}

/// The mount flags of the file system holding `path` that a read-only
/// remount must keep (in a namespace a user namespace owns they are
/// locked, and a remount that drops one is refused); none if it cannot be
/// read.
#[cfg(target_os = "linux")]
fn kept_flags(path: &std::ffi::CStr) -> libc::c_ulong {
    // SAFETY: statvfs(3) fills the zeroed struct it is given from a
    // NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    let mut keep = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            keep |= ms_flag;
        }
    }
    keep
}

/// `CAP_SYS_ADMIN` (linux/capability.h).
#[cfg(target_os = "linux")]
const CAP_SYS_ADMIN: u32 = 21;

#[cfg(target_os = "linux")]
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[cfg(target_os = "linux")]
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// In the child, before exec: the private mount namespace with the copy
/// bound read-only, and `CAP_SYS_ADMIN` gone from what the agent can
/// have. True only when every step held; false leaves the agent the
/// modes only (a step that failed after `unshare` leaves the copy as
/// writable as before it, never less protected than the modes).
///
/// # Safety
///
/// Called between fork and exec: only system calls.
#[cfg(target_os = "linux")]
unsafe fn enter(copy: &std::ffi::CStr, keep: libc::c_ulong) -> bool {
    let none = std::ptr::null::<libc::c_char>();
    let root = c"/";
    // SAFETY: system calls on NUL-terminated strings and stack values.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return false;
        }
        if libc::mount(
            none,
            root.as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return false;
        }
        if libc::mount(
            copy.as_ptr(),
            copy.as_ptr(),
            none,
            libc::MS_BIND,
            std::ptr::null(),
        ) != 0
        {
            return false;
        }
        if libc::mount(
            none,
            copy.as_ptr(),
            none,
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | keep,
            std::ptr::null(),
        ) != 0
        {
            return false;
        }
        // Without CAP_SYS_ADMIN after exec, a root agent cannot remount
        // or unmount the copy: out of the bounding set (root's permitted
        // set after exec), the inheritable and the ambient sets.
        if libc::prctl(
            libc::PR_CAPBSET_DROP,
            libc::c_ulong::from(CAP_SYS_ADMIN),
            0,
            0,
            0,
        ) != 0
        {
            return false;
        }
        let mut header = CapHeader {
            version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
            pid: 0,
        };
        let mut data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(
            libc::SYS_capget,
            &mut header as *mut CapHeader,
            data.as_mut_ptr(),
        ) != 0
        {
            return false;
        }
        data[0].inheritable &= !(1u32 << CAP_SYS_ADMIN);
        if libc::syscall(
            libc::SYS_capset,
            &mut header as *mut CapHeader,
            data.as_ptr(),
        ) != 0
        {
            return false;
        }
        // Kernels before 4.3 have no ambient set (EINVAL): nothing to
        // clear there.
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
            && *libc::__errno_location() != libc::EINVAL
        {
            return false;
        }
    }
    true
}
