//! Clean interruption of the gate's index copy (issue 12; moved out of
//! `interrupt_cli.rs`: moves only). A run killed at any moment (Ctrl-C of a
//! hook, SIGTERM, SIGKILL) used to leave a full copy of the Git index in
//! the git dir every time. Every such copy is now held under an owner lock,
//! and the next run removes what a dead owner left, never what a live one
//! holds; a run ended by SIGINT, SIGTERM or SIGHUP removes its own before
//! it goes.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::signals::{signal_rounds, signal_when, wait_group_gone};
use support::{isolated, medium_change};

fn leftovers(git_dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(git_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("probity-index-"))
        .collect();
    v.sort();
    v
}

/// A repository whose index is large enough (3,000 files) that a gate's
/// copy of it lives for a moment a test can catch.
fn large_change() -> probity_git::fixture::Fixture {
    let f = support::parser_base();
    for d in 0..30 {
        for i in 0..100 {
            f.write(&format!("d{d}/f{i}.txt"), format!("{d}/{i}\n"))
                .unwrap();
        }
    }
    f.commit_all("many files").unwrap();
    support::write_medium_change(&f);
    f
}

/// `probity --cwd <cwd> validate --gate pre-commit`, quiet, with SIGHUP
/// at its default disposition (a test run under `nohup` inherits an
/// ignored SIGHUP, which exec would keep and Probity rightly keeps
/// ignoring).
fn gate(cwd: &std::path::Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .args(["--cwd", cwd.to_str().unwrap()])
        .args(["validate", "--gate", "pre-commit"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: signal(2) only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_DFL);
            Ok(())
        });
    }
    cmd
}

#[test]
fn runs_killed_at_any_moment_leave_nothing_after_the_next_run() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // Kill runs at staggered moments, with SIGKILL (no destructor runs).
    // A git the killed run started goes on and holds the copy's owner lock
    // until it ends (so it cannot write the copy after a scavenger removed
    // it): the next run is the one after every such orphan ended.
    for i in 0..24u64 {
        use std::os::unix::process::CommandExt;
        let mut child = gate(f.root()).process_group(0).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(i % 8 * 3));
        let _ = child.kill();
        let _ = child.wait();
        wait_group_gone(child.id());
    }
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}

/// SIGTERM or SIGHUP (a closed terminal; Ctrl-C takes the same path)
/// while the gate's index copy exists: the run stops its git child, removes
/// the copy and its owner lock, and ends by the signal; nothing is left for
/// a next run to find. Each of the two signals is caught at least once.
#[test]
fn a_signalled_run_removes_its_index_copy_before_it_ends() {
    let f = large_change();
    let git_dir = f.root().join(".git");
    signal_rounds(
        &[("-TERM", 15), ("-HUP", 1)],
        3,
        "its index copy existed",
        // Once the copy appears (not only its owner lock, made first),
        // Probity alone is signalled (not its group: its git child must be
        // stopped by Probity itself).
        |signal| {
            let appeared = || leftovers(&git_dir).iter().any(|n| !n.ends_with(".owner"));
            signal_when(&mut gate(f.root()), appeared, signal)
        },
        |signal| {
            assert_eq!(
                leftovers(&git_dir),
                Vec::<String>::new(),
                "a run ended by {signal} leaves nothing, at once"
            );
        },
    );
    assert!(!git_dir.join("index.lock").exists());
}

#[test]
fn a_dead_owners_copy_is_removed_and_a_live_ones_is_kept() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // What a killed run leaves: the copy and its (no longer held) lock.
    std::fs::write(git_dir.join("probity-index-killed"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(git_dir.join("probity-index-killed.owner"), b"").unwrap();
    // A run in progress: its lock is held, by another process (`flock`,
    // its command not holding it). Held by this test process, the lock
    // would also be held for a moment by every child another test thread
    // forks (a forked child shares the open file until it execs), so
    // releasing it here would not release it for certain.
    std::fs::write(git_dir.join("probity-index-running"), b"copy").unwrap();
    let owner = git_dir.join("probity-index-running.owner");
    std::fs::write(&owner, b"").unwrap();
    use std::os::unix::process::CommandExt;
    let mut holder = Command::new("flock")
        .args(["--close", "--exclusive"])
        .arg(&owner)
        .args(["sleep", "60"])
        .process_group(0)
        .spawn()
        .expect("flock (util-linux) runs");
    let probe = std::fs::File::open(&owner).unwrap();
    for _ in 0..1000 {
        if probe.try_lock().is_err() {
            break;
        }
        probe.unlock().unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(probe.try_lock().is_err(), "flock holds the owner lock");
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(
        leftovers(&git_dir),
        vec!["probity-index-running", "probity-index-running.owner"]
    );
    // The run dies: its lock goes with it.
    let pgid = holder.id();
    // SAFETY: killpg(2) of the group this test made for `flock`.
    assert_eq!(unsafe { libc::killpg(pgid as i32, libc::SIGKILL) }, 0);
    holder.wait().unwrap();
    wait_group_gone(pgid);
    gate(f.root()).status().unwrap();
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}
