//! Runs of `probity` that a test interrupts: started as their own process
//! group with default signal dispositions, signalled when an artifact
//! appears, and waited for with every process of their group.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::isolated;

/// `probity --cwd <cwd> args...` with a private temporary directory, as
/// the leader of its own process group (so the test can wait until every
/// git it started is gone too), with SIGINT and SIGHUP at their default
/// dispositions.
pub fn in_tmp(cwd: &std::path::Path, tmp: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = detached(cwd, args);
    cmd.env("TMPDIR", tmp);
    cmd
}

/// `probity --cwd <cwd> args...` with no stdio, as the leader of its own
/// process group, with SIGINT and SIGHUP at their default dispositions.
pub fn detached(cwd: &std::path::Path, args: &[&str]) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // SAFETY: signal(2) only, between fork and exec: a test started in the
    // background inherits an ignored SIGINT (under `nohup`, an ignored
    // SIGHUP), which exec would keep.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGHUP, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd
}

/// Waits (bounded) until no process of the group `pgid` is left running: a
/// killed Probity's git children hold its owner locks until they end. (A
/// zombie holds nothing, and here an orphan's zombie may wait a while for
/// its reaper: only running members count.)
pub fn wait_group_gone(pgid: u32) {
    for _ in 0..1000 {
        if !group_running(pgid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("process group {pgid} outlived its leader by 5 s");
}

/// Whether a process of group `pgid` runs (is not a zombie), from /proc.
pub fn group_running(pgid: u32) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold anything.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        pgrp == Some(pgid) && state != Some("Z") && state != Some("X")
    })
}

/// Runs `cmd` until `appeared` sees its artifact, then sends `signal` to
/// Probity alone and waits for it and its group. Returns the exit status
/// when the artifact was seen in time (None: the run ended first).
pub fn signal_when(
    cmd: &mut Command,
    appeared: impl Fn() -> bool,
    signal: &str,
) -> Option<std::process::ExitStatus> {
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    let mut seen = false;
    while child.try_wait().unwrap().is_none() {
        if appeared() {
            seen = true;
            break;
        }
        std::thread::yield_now();
    }
    if !seen {
        let _ = child.wait();
        wait_group_gone(pid);
        return None;
    }
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    wait_group_gone(pid);
    Some(status)
}

/// Signals runs at a moment, cycling over `signals` (its name, its
/// number), up to 60 runs or until each signal has ended `enough` of
/// them: `run(signal)` starts one and signals it at the moment (None: it
/// ended first, as [`signal_when`] answers), and `ended(signal)` checks
/// what a run its signal ended left. Each signal must end at least one
/// run while `moment` (say, "its scratch store existed").
pub fn signal_rounds(
    signals: &[(&str, i32)],
    enough: usize,
    moment: &str,
    mut run: impl FnMut(&str) -> Option<std::process::ExitStatus>,
    mut ended: impl FnMut(&str),
) {
    use std::os::unix::process::ExitStatusExt;
    let mut caught = vec![0; signals.len()];
    for i in 0..60 {
        let (signal, number) = signals[i % signals.len()];
        let Some(status) = run(signal) else {
            continue;
        };
        if status.signal() == Some(number) {
            caught[i % signals.len()] += 1;
            ended(signal);
        }
        if caught.iter().all(|c| *c >= enough) {
            break;
        }
    }
    for ((signal, _), caught) in signals.iter().zip(caught) {
        assert!(caught > 0, "no run was ended by {signal} while {moment}");
    }
}

/// The names in `dir` that start with `prefix`.
pub fn names_starting(dir: &std::path::Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

/// For SIGINT, then SIGTERM: up to 40 runs of `cmd()`, each signalled the
/// moment its artifact exists (`left()` is not empty; see
/// [`signal_when`]) until one is caught so; after each, `left()` must be
/// empty. At least one run must have been caught.
pub fn each_signal_leaves_nothing(
    mut cmd: impl FnMut() -> Command,
    left: impl Fn() -> Vec<String>,
    what: &str,
) {
    let mut caught = 0;
    for signal in ["-INT", "-TERM"] {
        for _ in 0..40 {
            // Signalled while the artifact existed (the run and its group
            // are gone when this returns).
            if signal_when(&mut cmd(), || !left().is_empty(), signal).is_some() {
                caught += 1;
                break;
            }
        }
        assert_eq!(left(), Vec::<String>::new(), "{signal} left {what}");
    }
    assert!(caught > 0, "no run was caught while {what} existed");
}
