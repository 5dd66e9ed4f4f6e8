//! `undo_all` acts on the whole process's set, so it runs alone in its own
//! test binary (other tests' live artifacts would be in the set otherwise).

use probity_scratch::registry::{self, Entry};

#[test]
fn undo_removes_artifacts_and_owners_and_kills_children() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("copy");
    std::fs::write(&file, b"index copy").unwrap();
    std::fs::write(dir.path().join("copy.lock"), b"git's lock").unwrap();
    let sub = dir.path().join("export");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("x"), b"x").unwrap();
    let owner = dir.path().join("copy.owner");
    std::fs::write(&owner, b"").unwrap();
    let (mut child, _c) =
        registry::spawn(std::process::Command::new("sleep").arg("30"), false).unwrap();
    let _a = registry::artifact(&file);
    let _b = registry::artifact(&sub);
    let _o = registry::register(Entry::Owner(owner.clone()));
    registry::undo_all();
    assert!(!file.exists(), "the artifact file is removed");
    assert!(!sub.exists(), "the artifact directory is removed");
    assert!(!owner.exists(), "the owner lock is removed");
    assert!(!dir.path().join("copy.lock").exists(), "git's lock too");
    // The child was killed (and possibly already reaped by undo_all).
    match child.try_wait() {
        Ok(Some(status)) => assert!(!status.success()),
        Ok(None) => panic!("the child outlived undo_all"),
        Err(e) => assert_eq!(e.raw_os_error(), Some(libc::ECHILD)),
    }
}
