//! Cleanup when Probity is interrupted.
//!
//! [`install`] catches SIGINT, SIGTERM and SIGHUP (a signal ignored when the
//! process started, as a background job's SIGINT is, stays ignored). The
//! handler only writes the signal's number to a pipe (async-signal-safe); a
//! thread waiting on that pipe then undoes what the run registered (see
//! [`crate::registry::undo_all`]: children stopped, artifacts removed) and
//! ends the process by the same signal with its default disposition, so a
//! shell or Git sees "killed by SIGINT" as before. Nothing is deferred: the
//! process still ends at once, only without leaving its temporary files.
//!
//! The store's committed writes need no help here: each is a rename, and a
//! process that ends between two of them is a crash the store already
//! survives.

use std::io::Read;
use std::os::fd::IntoRawFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signals an interrupted run is cleaned up for.
pub const CAUGHT: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

static PIPE: AtomicI32 = AtomicI32::new(-1);
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

extern "C" fn on_signal(sig: libc::c_int) {
    let fd = PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = u8::try_from(sig).unwrap_or(0);
        // SAFETY: write(2) is async-signal-safe; one byte from the stack to
        // a pipe we own. A full pipe means a signal is already pending.
        unsafe {
            libc::write(fd, (&raw const byte).cast(), 1);
        }
    }
}

/// Installs the handlers and the cleanup thread (once per process; later
/// calls return the first result).
pub fn install() -> Result<(), String> {
    INSTALLED.get_or_init(install_once).clone()
}

fn install_once() -> Result<(), String> {
    let (mut reader, writer) =
        std::io::pipe().map_err(|e| format!("could not create the signal pipe: {e}"))?;
    PIPE.store(writer.into_raw_fd(), Ordering::SeqCst);
    std::thread::Builder::new()
        .name("probity-signals".into())
        .spawn(move || {
            let mut byte = [0u8; 1];
            if reader.read_exact(&mut byte).is_ok() {
                die_by(libc::c_int::from(byte[0]));
            }
        })
        .map_err(|e| format!("could not start the signal thread: {e}"))?;
    for sig in CAUGHT {
        // SAFETY: sigaction(2) with a zeroed struct, used first only to read
        // the current disposition, then to install a handler that writes
        // one byte to a pipe.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                continue;
            }
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            new.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(sig, &new, std::ptr::null_mut());
        }
    }
    Ok(())
}

/// Undoes what the run registered and ends the process by `sig` (default
/// disposition), as if the signal had ended it directly. Used by the signal
/// thread, and by code that caught a signal itself and has stopped its own
/// work.
pub fn die_by(sig: libc::c_int) -> ! {
    crate::registry::undo_all_and_freeze();
    // SAFETY: restores the default disposition of `sig`, unblocks it in
    // this thread and raises it: the process ends by it.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    // A signal whose default is not to end the process (not one of ours).
    std::process::exit(128 + sig)
}
