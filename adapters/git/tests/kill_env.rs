//! A timed-out `ssh-keygen`'s process group is ended by kill(2) itself
//! (`probity_scratch::registry::kill_group`, the one group kill): no
//! `kill` program is looked up, so a `kill` earlier on the caller's `PATH`
//! is never run, and the group still dies.
//!
//! This is the only test in its binary: it changes the process's `PATH`,
//! which would race with any other test thread spawning a program.
#![cfg(target_os = "linux")]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use probity_git::sign::{SigningKey, SshKeygen};
use probity_ports::review::SshSignatures;

fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether `pid` is gone: no such process, or a zombie nobody reaped yet.
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S ...`: the state follows the command's `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

#[test]
fn a_timed_out_ssh_keygen_group_is_killed_by_a_kill_not_found_on_the_callers_path() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let ran = dir.path().join("planted-kill-ran");
    // A `kill` that only reports it was run, with its arguments and the
    // names (not the values) of the variables it was given.
    script(
        &bin.join("kill"),
        &format!(
            "{{ echo \"$@\"; env | cut -d= -f1; }} >> '{}'",
            ran.display()
        ),
    );
    // An `ssh-keygen` that leaves a descendant in its group and hangs.
    let pid_file = dir.path().join("descendant.pid");
    let keygen = dir.path().join("fake-ssh-keygen");
    script(
        &keygen,
        &format!("sleep 30 &\necho $! > '{}'\nwait", pid_file.display()),
    );
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A key file exists (the fake never reads it): the key is checked
    // before ssh-keygen runs.
    std::fs::write(dir.path().join("key"), b"key").unwrap();
    let k = SshKeygen::new(
        Some(keygen.into_os_string()),
        Some(SigningKey::Path(dir.path().join("key"))),
        tmp,
    )
    .with_timeouts(Duration::from_millis(500), Duration::from_millis(500));

    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut planted = bin.into_os_string();
    planted.push(":");
    planted.push(&path);
    // SAFETY: no other thread runs in this test binary.
    unsafe { std::env::set_var("PATH", &planted) };
    let signed = k.sign(b"message");
    unsafe { std::env::set_var("PATH", &path) };

    let e = signed.unwrap_err();
    assert!(e.to_string().contains("timed out"), "{e}");
    assert!(
        !ran.exists(),
        "the kill on the caller's PATH ran:\n{}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let pid = pid.trim();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(pid), "the descendant {pid} outlived its group's kill");
}
