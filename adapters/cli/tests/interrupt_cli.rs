//! Clean interruption (issue 12): a run killed at any moment (Ctrl-C of a
//! hook, SIGTERM, SIGKILL) used to leave a full copy of the Git index in
//! the git dir every time (hundreds of them, hundreds of MB). Every such
//! copy is now held under an owner lock, and the next run removes what a
//! dead owner left, never what a live one holds.

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

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

fn gate(cwd: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .args(["--cwd", cwd.to_str().unwrap()])
        .args(["validate", "--gate", "pre-commit"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

#[test]
fn runs_killed_at_any_moment_leave_nothing_after_the_next_run() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // Kill runs at staggered moments, with SIGKILL (no destructor runs).
    for i in 0..24u64 {
        let mut child = gate(f.root()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(i % 8 * 3));
        let _ = child.kill();
        let _ = child.wait();
    }
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}

#[test]
fn a_dead_owners_copy_is_removed_and_a_live_ones_is_kept() {
    let f = medium_change();
    let git_dir = f.root().join(".git");
    // What a killed run leaves: the copy and its (no longer held) lock.
    std::fs::write(git_dir.join("probity-index-killed"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(git_dir.join("probity-index-killed.owner"), b"").unwrap();
    // A run in progress: its lock is held (here by this test).
    std::fs::write(git_dir.join("probity-index-running"), b"copy").unwrap();
    let held = std::fs::File::create(git_dir.join("probity-index-running.owner")).unwrap();
    held.lock().unwrap();
    let status = gate(f.root()).status().unwrap();
    assert!(status.code().is_some());
    assert_eq!(
        leftovers(&git_dir),
        vec!["probity-index-running", "probity-index-running.owner"]
    );
    drop(held);
    gate(f.root()).status().unwrap();
    assert_eq!(leftovers(&git_dir), Vec::<String>::new());
}
