//! The pre-commit gate over the worktree from where git's discovery finds
//! it: a subdirectory, a directory under a `.git` git passes by, a linked
//! worktree, a repository with no index yet. (Written for D-R99, a
//! discovery guess that let the gate's `git add -A` start early; measured
//! no faster and not kept, these stay as the gate's discovery tests.)

mod support;

use probity_git::fixture::Fixture;
use support::*;

fn gate(cwd: &std::path::Path) -> Run {
    probity(cwd, &["validate", "--gate", "pre-commit"])
}

/// No probity-index stand-in is left in `git_dir`.
fn no_stand_in_left(git_dir: &std::path::Path) {
    let left: Vec<_> = std::fs::read_dir(git_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("probity-index-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_gate_allows_the_approved_candidate_from_a_subdirectory() {
    let f = medium_change();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let r = gate(&f.root().join("src"));
    assert_eq!(r.json["decision"], "allow", "{}{}", r.stdout, r.stderr);
    f.write("src/parser.rs", "// edited after approval\n")
        .unwrap();
    let r = gate(&f.root().join("src"));
    assert_eq!(r.json["decision"], "deny", "{}{}", r.stdout, r.stderr);
    no_stand_in_left(&f.root().join(".git"));
}

#[test]
fn a_git_directory_git_does_not_take_is_not_the_gates_either() {
    // `sub/.git` has a HEAD but is no repository: git's discovery passes it
    // by and finds the outer one, whose candidate was approved.
    let f = medium_change();
    let inputs = tempfile::tempdir().unwrap();
    let sub = f.root().join("sub");
    std::fs::create_dir_all(sub.join(".git")).unwrap();
    std::fs::write(sub.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(sub.join("note.txt"), "in sub\n").unwrap();
    approve_live(f.root(), inputs.path());
    let r = gate(&sub);
    assert_eq!(r.json["decision"], "allow", "{}{}", r.stdout, r.stderr);
    assert!(!sub.join(".git/index").exists());
    no_stand_in_left(&sub.join(".git"));
    no_stand_in_left(&f.root().join(".git"));
}

#[test]
fn a_linked_worktree_is_discovered_by_git_alone() {
    let f = medium_change();
    f.commit_all("medium").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let wt = dir.path().join("wt");
    f.git(&["worktree", "add", "-q", wt.to_str().unwrap()])
        .unwrap();
    std::fs::write(wt.join("src/parser.rs"), "// in the worktree\nfn p() {}\n").unwrap();
    let inputs = tempfile::tempdir().unwrap();
    approve_live(&wt, inputs.path());
    assert_eq!(gate(&wt).json["decision"], "allow");
    // The main work tree's candidate is another one (no change at all).
    std::fs::write(f.root().join("src/parser.rs"), "// main\n").unwrap();
    assert_eq!(gate(f.root()).json["decision"], "deny");
}

#[test]
fn a_fresh_repository_without_an_index_is_judged() {
    let f = Fixture::new().unwrap();
    f.write("a.txt", "a\n").unwrap();
    let r = gate(f.root());
    assert_eq!(r.json["decision"], "deny", "{}{}", r.stdout, r.stderr);
    no_stand_in_left(&f.root().join(".git"));
}
