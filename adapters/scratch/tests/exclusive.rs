//! `registry::exclusive` against `undo_all`, alone in its own test binary
//! (`undo_all` acts on the whole process's set).

use std::sync::mpsc;
use std::time::Duration;

use probity_scratch::registry;

/// An in-process writer's step and an interrupted run's cleanup never
/// overlap: the cleanup waits for the step, then removes what the step
/// wrote too.
#[test]
fn the_cleanup_never_runs_while_an_exclusive_step_writes() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("partial");
    std::fs::create_dir(&tree).unwrap();
    let _registered = registry::artifact(&tree);
    let (inside, step_started) = mpsc::channel();
    let in_step = tree.clone();
    let writer = std::thread::spawn(move || {
        registry::exclusive(|| {
            inside.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            std::fs::write(in_step.join("late"), b"x").unwrap();
            // Still there: no removal ran during the step.
            in_step.join("late").exists()
        })
    });
    step_started.recv().unwrap();
    registry::undo_all();
    assert!(writer.join().unwrap(), "the cleanup ran during the step");
    assert!(
        !tree.exists(),
        "the cleanup removed the tree, the step's file too"
    );
}
