//! A sheltered child (`registry::spawn_sheltered`) starts with SIGINT,
//! SIGTERM, SIGHUP and SIGQUIT blocked: a signal sent to it stays pending
//! and it finishes its work (a git writing a ref is never ended between
//! creating its lock file and installing its own cleanup); SIGKILL still
//! ends it.

use std::time::{Duration, Instant};

use probity_scratch::registry;

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

#[test]
fn a_sheltered_child_finishes_despite_interrupting_signals() {
    // `sleep` leaves its signal mask alone (a shell may reset it).
    let started = Instant::now();
    let (mut child, _g) =
        registry::spawn_sheltered(std::process::Command::new("sleep").arg("0.5")).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    for sig in registry::SHELTERED {
        signal(child.id(), sig);
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(started.elapsed() >= Duration::from_millis(500));
}

#[test]
fn a_sheltered_child_still_ends_by_sigkill() {
    use std::os::unix::process::ExitStatusExt;
    let (mut child, _g) =
        registry::spawn_sheltered(std::process::Command::new("sleep").arg("30")).unwrap();
    signal(child.id(), libc::SIGKILL);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
}
