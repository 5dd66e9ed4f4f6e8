//! An interrupted run asks its children to stop before it kills them
//! (issue 21 §7): a git killed while it holds a ref's lock leaves the lock
//! file behind, while a git asked with SIGTERM removes it and ends. Alone
//! in its own test binary: `undo_all` acts on the whole process's set.

use std::path::Path;
use std::time::{Duration, Instant};

use probity_scratch::registry;

/// Waits (bounded) until `path` exists.
fn wait_for(path: &Path) {
    let started = Instant::now();
    while !path.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn children_are_asked_to_stop_first_and_killed_only_past_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    // A child that cleans up on SIGTERM, as git removes its lock files.
    let polite = format!(
        "trap 'kill $!; echo asked > {d}/asked; exit 0' TERM; : > {d}/polite-ready; sleep 30 & wait"
    );
    // A child that ignores SIGTERM (inherited by the sleep it becomes).
    let stubborn = format!("trap '' TERM; : > {d}/stubborn-ready; exec sleep 30");
    let spawn = |script: &str| {
        registry::spawn(
            std::process::Command::new("/bin/sh").args(["-c", script]),
            false,
        )
        .unwrap()
    };
    let (mut polite_child, _p) = spawn(&polite);
    let (mut stubborn_child, _s) = spawn(&stubborn);
    wait_for(&dir.path().join("polite-ready"));
    wait_for(&dir.path().join("stubborn-ready"));
    let started = Instant::now();
    registry::undo_all();
    let took = started.elapsed();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("asked"))
            .ok()
            .as_deref(),
        Some("asked\n"),
        "the child was asked to stop (SIGTERM) and could clean up"
    );
    // The stubborn child was killed once the grace ran out, not before.
    assert!(took >= registry::CHILD_GRACE, "killed after {took:?}");
    assert!(took < registry::CHILD_GRACE * 3, "undo took {took:?}");
    for child in [&mut polite_child, &mut stubborn_child] {
        match child.try_wait() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("a child outlived undo_all"),
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::ECHILD)),
        }
    }
}
