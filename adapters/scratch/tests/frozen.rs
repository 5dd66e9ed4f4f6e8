//! Once an interrupted run's cleanup has begun (the set is frozen until the
//! process ends by its signal), no thread makes a temp file, an owner lock
//! or a scratch directory any more: each would outlive the cleanup (a temp
//! file made then was left behind by a SIGTERM). This freezes the
//! process-wide set, so it runs alone in its own test binary.

use std::time::Duration;

use probity_scratch::registry;
use probity_scratch::{LockedTemp, Scratch};

#[test]
fn nothing_is_made_once_an_interrupted_runs_cleanup_began() {
    let dir = tempfile::tempdir().unwrap();
    // Reserved before the interruption: its directory is created after.
    let reserved = Scratch::reserve(dir.path(), "probity-t-").unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(before.len(), 1, "the owner lock");
    registry::undo_all_and_freeze();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "the cleanup removed the owner lock"
    );
    let root = dir.path().to_path_buf();
    let r = root.clone();
    std::thread::spawn(move || {
        let _ = LockedTemp::new_in(&r, ".tmp-");
    });
    let r = root.clone();
    std::thread::spawn(move || {
        let _ = Scratch::reserve(&r, "probity-u-");
    });
    std::thread::spawn(move || {
        let _ = reserved.create_dir(0o700);
    });
    std::thread::sleep(Duration::from_millis(300));
    let left: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "made during the cleanup: {left:?}");
}
