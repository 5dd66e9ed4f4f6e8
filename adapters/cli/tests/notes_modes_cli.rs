//! A notes tree read two ways (red team round 12, D-R163), on a real bare
//! remote with the server hook: the replay check finds an approval's
//! earlier deliveries with `git grep`, which skips symbolic links and
//! gitlinks, and read a commit's note by path lookup, which does not; the
//! notes rules compared blob ids only. A held note turned into a gitlink
//! (the same blob) hid a spent approval, and it was delivered again.

mod support;

use std::path::PathBuf;

use probity_git::fixture::Fixture;
use support::raw_tree::{entries_of, raw_tree};
use support::*;

/// A server hook with no signature policy, and a clone whose reviewed
/// change sits in its worktree.
fn plain_server() -> (Fixture, tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let (f, dir, server) = hooked_origin();
    write_medium_change(&f);
    (f, dir, server, tempfile::tempdir().unwrap())
}

/// A notes commit on top of `refs/notes/probity` whose tree holds
/// `entries` as given, and the notes ref moved to it.
fn notes_commit(f: &Fixture, entries: &[(String, String, String)]) -> String {
    let tree = raw_tree(f, entries);
    let parent = rev_parse(f, "refs/notes/probity");
    let args = [
        "commit-tree",
        tree.as_str(),
        "-p",
        parent.as_str(),
        "-m",
        "Notes",
    ];
    let commit = git_out(f.root(), &args, b"", &[]).trim().to_string();
    f.git(&["update-ref", "refs/notes/probity", &commit])
        .unwrap();
    commit
}

#[test]
fn a_spent_approval_whose_note_became_a_link_or_a_gitlink_stays_spent() {
    for mode in ["160000", "120000"] {
        let (f, _dir, server, inputs) = plain_server();
        let c1 = deliver_reviewed(&f, inputs.path());
        let revert = reviewed_revert(&f, inputs.path());
        probity_ok(f.root(), &["push", "origin", "main"]);
        // The revert of the revert, with the old note: refused as it is.
        let replay = revert_head(&f, "bring it back");
        f.git(&["notes", "--ref=probity", "copy", &c1, &replay])
            .unwrap();
        // And c1's note turned into `mode`, the same blob: git's notes and
        // `git grep` no longer read it; a path lookup still does.
        let tree = rev_parse(&f, "refs/notes/probity^{tree}");
        let entries: Vec<(String, String, String)> = entries_of(&f, &tree)
            .into_iter()
            .map(|(m, n, id)| {
                if n == c1 {
                    (mode.to_string(), n, id)
                } else {
                    (m, n, id)
                }
            })
            .collect();
        assert!(entries.iter().any(|(m, n, _)| m == mode && *n == c1));
        notes_commit(&f, &entries);
        let err =
            push_no_verify(&f, &["--atomic", "origin", "main", "refs/notes/probity"]).unwrap_err();
        assert!(err.contains("DENY"), "{mode}: {err}");
        assert!(err.contains(&c1), "{mode}: {err}");
        assert_eq!(rev(&f, &server, "main"), Some(revert), "{mode}");
    }
}

#[test]
fn a_notes_tree_out_of_order_is_refused_and_a_reviewed_push_lands_after() {
    let (f, _dir, server, inputs) = plain_server();
    let c1 = deliver_reviewed(&f, inputs.path());
    // A note listed before c1's that sorts after it: git's lookup of c1's
    // note stops there, while a diff of the trees sees no change to it.
    let junk = git_out(f.root(), &["hash-object", "-w", "--stdin"], b"junk\n", &[]);
    let tree = rev_parse(&f, "refs/notes/probity^{tree}");
    let mut entries = vec![(
        "100644".to_string(),
        "f".repeat(40),
        junk.trim().to_string(),
    )];
    entries.extend(entries_of(&f, &tree));
    let before = rev(&f, &server, "refs/notes/probity");
    notes_commit(&f, &entries);
    let err = push_no_verify(&f, &["origin", "refs/notes/probity"]).unwrap_err();
    assert!(err.contains("tree_malformed"), "{err}");
    assert!(
        err.contains(&format!("`{c1}` listed after `{}`", "f".repeat(40))),
        "{err}"
    );
    assert_eq!(rev(&f, &server, "refs/notes/probity"), before);
    // The clone's notes as the server holds them, then the next reviewed
    // change lands as usual.
    let held = before.unwrap();
    f.git(&["update-ref", "refs/notes/probity", &held]).unwrap();
    f.write("docs/next.md", "next\n").unwrap();
    approve_live(f.root(), inputs.path());
    let next = commit_all(&f, "next");
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(next));
}
