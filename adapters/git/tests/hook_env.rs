//! A hook runs with `GIT_DIR` and `GIT_INDEX_FILE` pointing elsewhere; every
//! git Probity spawns must ignore them.
//!
//! This is the only test in its binary: it changes the process environment,
//! which would race with any other test thread spawning git.

use probity_git::fixture::Fixture;

#[test]
fn git_environment_from_a_hook_does_not_redirect_observation() {
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/lib.rs", "changed\n").unwrap();
    let other = Fixture::new().unwrap();
    let vars = [
        ("GIT_DIR", other.root().join(".git")),
        ("GIT_INDEX_FILE", other.root().join("nope")),
    ];
    // SAFETY: no other thread runs in this test binary.
    for (k, v) in &vars {
        unsafe { std::env::set_var(k, v) };
    }
    let obs = f.repo().and_then(|r| r.observe_candidate());
    for (k, _) in &vars {
        unsafe { std::env::remove_var(k) };
    }
    let obs = obs.unwrap();
    assert_eq!(obs.changed.len(), 1);
    assert_eq!(obs.changed[0].path.as_str(), "src/lib.rs");
}
