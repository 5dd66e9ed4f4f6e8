//! The fake Git answers what it models consistently and refuses the rest
//! with a typed error.

use probity_core::review::Hunk;
use probity_core::review::LineCount;
use probity_core::review::{RepoPath, TreeId};
use probity_ports::review::{
    CommitGit, ExportGit, GitPort, ManifestGit, RangeGit, RemoteScope, RevisionGit, TreeSpan,
};
use probity_testkit::{FakeGit, FakeGitError};

fn path(p: &str) -> RepoPath {
    RepoPath::parse(p).unwrap()
}

fn fake_error(e: &probity_ports::review::AdapterError) -> &FakeGitError {
    e.downcast_ref::<FakeGitError>().expect("a FakeGitError")
}

#[test]
fn an_observation_counts_lines_and_names_intended_untracked_files() {
    let git = FakeGit::with_base(&[("src/a.rs", "one\ntwo\nthree\n")]).unwrap();
    git.write("src/a.rs", "one\n2\n2b\nthree\n").unwrap();
    git.write("src/new.rs", "fn new() {}\n").unwrap();
    git.mark_untracked("src/new.rs").unwrap();
    let obs = git.observe_candidate().unwrap();
    assert_eq!(obs.base_tree, git.base_tree().unwrap());
    assert_eq!(obs.candidate_tree, git.candidate_tree().unwrap());
    assert!(!obs.unborn_head);
    assert_eq!(obs.intended_untracked, vec![path("src/new.rs")]);
    let a = obs
        .changed
        .iter()
        .find(|c| c.path == path("src/a.rs"))
        .unwrap();
    assert_eq!(
        a.lines,
        LineCount::Text {
            added: 2,
            removed: 1
        }
    );
    assert_eq!(a.text_lines, 3);
    assert_eq!(
        git.hunks(
            TreeSpan {
                from: &obs.base_tree,
                to: &obs.candidate_tree,
            },
            &path("src/a.rs")
        )
        .unwrap(),
        vec![Hunk { start: 2, count: 2 }]
    );
    assert_eq!(
        git.line_count(&obs.candidate_tree, &path("src/a.rs"))
            .unwrap(),
        Some(4)
    );
    assert_eq!(
        git.differing_paths(TreeSpan {
            from: &obs.base_tree,
            to: &obs.candidate_tree,
        })
        .unwrap(),
        vec![path("src/a.rs"), path("src/new.rs")]
    );
    let delta = git
        .tree_delta(TreeSpan {
            from: &obs.base_tree,
            to: &obs.candidate_tree,
        })
        .unwrap()
        .unwrap();
    assert_eq!(delta.len(), 2);
    assert!(delta[1].base.is_none());
    let manifest = git
        .manifest(TreeSpan {
            from: &obs.base_tree,
            to: &obs.candidate_tree,
        })
        .unwrap();
    assert_eq!(manifest.len(), 2);
    let diff = git
        .frozen_diff(
            TreeSpan {
                from: &obs.base_tree,
                to: &obs.candidate_tree,
            },
            1 << 20,
        )
        .unwrap()
        .unwrap();
    assert!(String::from_utf8(diff).unwrap().contains("+2b\n"));
    assert_eq!(
        git.frozen_diff(
            TreeSpan {
                from: &obs.base_tree,
                to: &obs.candidate_tree,
            },
            3
        )
        .unwrap(),
        None,
        "over the cap"
    );
    // A file in the base is never intended untracked.
    assert!(matches!(
        git.mark_untracked("src/a.rs"),
        Err(FakeGitError::Tracked { .. })
    ));
}

#[test]
fn equal_content_has_equal_ids_and_commits_form_a_linear_history() {
    let a = FakeGit::with_base(&[("x", "1\n")]).unwrap();
    let b = FakeGit::with_base(&[("x", "1\n")]).unwrap();
    assert_eq!(a.base_tree().unwrap(), b.base_tree().unwrap());
    let first = a.head().unwrap();
    a.write("x", "2\n").unwrap();
    a.stage();
    a.write("x", "3\n").unwrap();
    // The staged index, not the worktree, is what a commit delivers.
    let staged = a.staged_target(std::path::Path::new("index")).unwrap();
    let second = a.commit("two").unwrap();
    assert_eq!(a.commit_tree(&second).unwrap(), staged.candidate_tree);
    assert!(a.is_ancestor(&first, &second).unwrap());
    assert!(!a.is_ancestor(&second, &first).unwrap());
    assert_eq!(a.resolve_commit("HEAD~1").unwrap(), first);
    let range = a
        .range(
            &second,
            std::slice::from_ref(&first),
            &RemoteScope::None,
            10,
        )
        .unwrap();
    assert_eq!(range.len(), 1);
    assert_eq!(range[0].parents, vec![first.clone()]);
    let obs = a.observe_commit(&range[0]).unwrap();
    assert_eq!(obs.changed.len(), 1);
    assert!(
        a.committed_change(TreeSpan {
            from: &obs.base_tree,
            to: &obs.candidate_tree,
        })
        .unwrap()
    );
    assert_eq!(a.range_len(&second, &[], &RemoteScope::All).unwrap(), 2);
}

#[test]
fn what_the_fake_cannot_answer_is_a_typed_error() {
    let git = FakeGit::unborn();
    assert_eq!(git.find_commit("HEAD").unwrap(), None);
    let e = git.resolve_commit("HEAD").unwrap_err();
    assert!(matches!(fake_error(&e), FakeGitError::UnknownRevision(_)));
    let e = git.remote_tips("origin").unwrap_err();
    assert_eq!(fake_error(&e), &FakeGitError::Unsupported("remote_tips"));
    let unknown = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    let e = git
        .differing_paths(TreeSpan {
            from: &unknown,
            to: &unknown,
        })
        .unwrap_err();
    assert!(matches!(fake_error(&e), FakeGitError::UnknownTree(_)));
    git.fail("live_target");
    let e = git.live_target().unwrap_err();
    assert_eq!(fake_error(&e), &FakeGitError::Injected("live_target"));
    git.heal("live_target");
    let live = git.live_target().unwrap();
    assert_eq!(live.base_tree, git.empty_tree().unwrap());
    assert!(matches!(git.write("../x", "y"), Err(FakeGitError::Id(_))));
    assert!(matches!(
        git.remove("nothing"),
        Err(FakeGitError::NoSuchFile { .. })
    ));
    assert_eq!(
        git.missing_objects(&[unknown.to_string()]).unwrap(),
        vec![unknown.to_string()]
    );
}
