//! The synthetic candidate on real repositories.

use probity_core::review::{CandidateObservation, RepoPath};
use probity_core::review::{FileMode, LineCount};
use probity_git::fixture::Fixture;

fn p(s: &str) -> RepoPath {
    RepoPath::parse(s).unwrap()
}

/// The paths an observation found changed, in its order.
fn changed_paths(obs: &CandidateObservation) -> Vec<RepoPath> {
    obs.changed.iter().map(|c| c.path.clone()).collect()
}

fn base_fixture() -> Fixture {
    Fixture::committed(
        &[
            ("src/lib.rs", "fn a() {}\n"),
            (".gitignore", "target/\n*.log\n"),
        ],
        "base",
    )
    .unwrap()
}

#[test]
fn untracked_included_ignored_excluded_index_and_status_untouched() {
    let f = base_fixture();
    f.write_all(&[
        ("src/lib.rs", "fn a() {}\nfn b() {}\n"),
        ("src/new.rs", "fn c() {}\n"),
        ("target/out.bin", "build"),
        ("debug.log", "log"),
    ])
    .unwrap();
    let index_before = f.index_bytes().unwrap();
    let status_before = f.status().unwrap();

    let obs = f.repo().unwrap().observe_candidate().unwrap();
    let paths = changed_paths(&obs);
    assert_eq!(paths, vec![p("src/lib.rs"), p("src/new.rs")]);
    assert_eq!(obs.intended_untracked, vec![p("src/new.rs")]);
    assert!(!obs.unborn_head);

    assert_eq!(
        f.index_bytes().unwrap(),
        index_before,
        "the user's index must not change"
    );
    assert_eq!(
        f.status().unwrap(),
        status_before,
        "git status must not change"
    );
    let leftovers: Vec<_> = std::fs::read_dir(f.root().join(".git"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("probity-index-")
        })
        .collect();
    assert!(leftovers.is_empty(), "temporary index left behind");
}

#[test]
fn staged_new_file_is_not_untracked_but_is_changed() {
    let f = base_fixture();
    f.write("src/staged.rs", "x\n").unwrap();
    f.git(&["add", "src/staged.rs"]).unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    assert_eq!(obs.changed.len(), 1);
    assert!(obs.intended_untracked.is_empty());
}

#[test]
fn tracked_file_matching_an_ignore_rule_stays_in_scope() {
    let f = base_fixture();
    f.write("keep.log", "v1\n").unwrap();
    f.git(&["add", "-f", "keep.log"]).unwrap();
    f.git(&["commit", "-q", "-m", "track a log"]).unwrap();
    f.write("keep.log", "v2\n").unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    assert_eq!(changed_paths(&obs), vec![p("keep.log")]);
}

#[test]
fn unborn_head_uses_the_empty_tree() {
    let f = Fixture::new().unwrap();
    f.write("a.txt", "hello\n").unwrap();
    let repo = f.repo().unwrap();
    let obs = repo.observe_candidate().unwrap();
    assert!(obs.unborn_head);
    assert_eq!(obs.base_tree, repo.empty_tree().unwrap());
    assert_eq!(
        obs.base_tree.as_str(),
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
    assert_eq!(obs.intended_untracked, vec![p("a.txt")]);
    assert_eq!(
        obs.changed[0].lines,
        LineCount::Text {
            added: 1,
            removed: 0
        }
    );
}

#[test]
fn binary_and_mode_only_changes_count_zero_lines() {
    let f = base_fixture();
    f.write("tool.sh", "echo hi\n").unwrap();
    f.write("img.bin", [0u8, 1, 2, 0, 255]).unwrap();
    f.commit_all("more").unwrap();
    f.write("img.bin", [0u8, 9, 9, 0, 255, 7]).unwrap();
    f.set_mode("tool.sh", 0o755).unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    let img = obs.changed.iter().find(|c| c.path == p("img.bin")).unwrap();
    assert_eq!(img.lines, LineCount::Binary);
    let tool = obs.changed.iter().find(|c| c.path == p("tool.sh")).unwrap();
    assert_eq!(
        tool.lines,
        LineCount::Text {
            added: 0,
            removed: 0
        }
    );
    assert_eq!(
        (tool.old_mode, tool.new_mode),
        (Some(FileMode::Regular), Some(FileMode::Executable))
    );
}

#[test]
fn deletions_and_content_are_observed() {
    let f = base_fixture();
    f.remove("src/lib.rs").unwrap();
    f.write("README.md", "# hi\n").unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    let lib = obs
        .changed
        .iter()
        .find(|c| c.path == p("src/lib.rs"))
        .unwrap();
    assert_eq!(lib.new_mode, None);
    assert_eq!(
        lib.lines,
        LineCount::Text {
            added: 0,
            removed: 1
        }
    );
    let readme = obs
        .changed
        .iter()
        .find(|c| c.path == p("README.md"))
        .unwrap();
    assert_eq!(readme.content.bytes(), Some(&b"# hi\n"[..]));
}

#[test]
fn discovery_from_a_subdirectory_and_a_linked_worktree() {
    let f = base_fixture();
    let sub = f.root().join("src");
    let repo = probity_git::Repo::discover(probity_git::GitCli::default(), &sub).unwrap();
    assert_eq!(
        repo.root().canonicalize().unwrap(),
        f.root().canonicalize().unwrap()
    );

    let wt = tempfile::tempdir().unwrap();
    let wt_path = wt.path().join("wt");
    f.git(&[
        "worktree",
        "add",
        "-q",
        wt_path.to_str().unwrap(),
        "-b",
        "side",
    ])
    .unwrap();
    let linked = probity_git::Repo::discover(probity_git::GitCli::default(), &wt_path).unwrap();
    assert_eq!(
        linked.common_dir().canonicalize().unwrap(),
        repo.common_dir().canonicalize().unwrap()
    );
    assert_ne!(
        linked.git_dir().canonicalize().unwrap(),
        repo.git_dir().canonicalize().unwrap()
    );
    // The worktree's own candidate is derived from its own index.
    std::fs::write(wt_path.join("wt.txt"), "w\n").unwrap();
    let obs = linked.observe_candidate().unwrap();
    assert_eq!(obs.intended_untracked, vec![p("wt.txt")]);
}

#[test]
fn a_branch_whose_commit_is_missing_is_an_error_never_an_unborn_head() {
    let f = base_fixture();
    let head = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    let head = head.trim();
    // The branch still names its commit; the object is gone (a damaged
    // or partial clone). The whole worktree must not look added.
    let loose = f
        .root()
        .join(".git/objects")
        .join(&head[..2])
        .join(&head[2..]);
    std::fs::remove_file(&loose).unwrap();
    let err = f.repo().unwrap().observe_candidate().unwrap_err();
    assert!(matches!(err, probity_git::GitError::Failed { .. }), "{err}");
    assert!(err.to_string().contains("has no tree"), "{err}");
}

#[test]
fn a_configured_fsmonitor_is_never_run_nor_trusted() {
    let f = base_fixture();
    // A monitor that would tell git what changed (here: nothing): trusting
    // it could leave an edit out of the candidate, and running it runs a
    // program the repository names.
    let marker = f.root().join("fsmonitor-ran");
    let hook = f.home().join("fsmonitor.sh");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\ntouch '{}'\nprintf '\\0'\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    f.git(&["config", "core.fsmonitor", hook.to_str().unwrap()])
        .unwrap();
    f.write("src/lib.rs", "fn a() { 1 }\n").unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    assert!(!marker.exists(), "the repository's fsmonitor ran");
    assert_eq!(changed_paths(&obs), vec![p("src/lib.rs")]);
}

#[test]
fn not_a_repository_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = probity_git::Repo::discover(probity_git::GitCli::default(), dir.path()).unwrap_err();
    assert!(
        matches!(err, probity_git::GitError::NotARepository { .. }),
        "{err}"
    );
}

#[test]
fn an_edit_racing_the_index_write_is_still_observed() {
    // The file changes, keeping its size, right after the index was
    // written (usually within the same second): only git's racy-entry check
    // can see it, and that check compares with the index file's mtime.
    let f = Fixture::committed(&[("a.txt", "a\nb\n")], "base").unwrap();
    f.write("a.txt", "a\nc\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    let paths = changed_paths(&obs);
    assert_eq!(paths, vec![p("a.txt")]);
}

/// git's own candidate: `add -A` on a copy of the index, then
/// `write-tree` (the reference every candidate tree must equal).
fn git_candidate(f: &Fixture) -> String {
    let copy = f.root().join(".git/reference-index");
    let index = f.root().join(".git/index");
    if index.exists() {
        std::fs::copy(&index, &copy).unwrap();
    }
    let run = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(f.root())
            .env("GIT_INDEX_FILE", &copy)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    run(&["add", "-A"]);
    let tree = String::from_utf8(run(&["write-tree"])).unwrap();
    std::fs::remove_file(&copy).unwrap();
    tree.trim().to_string()
}

/// Names under `objects/` that a run left (a quarantine, its lock).
fn incoming_left(f: &Fixture) -> Vec<String> {
    std::fs::read_dir(f.root().join(".git/objects"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("probity-incoming-"))
        .collect()
}

#[test]
fn a_new_starts_tree_is_gits_and_its_objects_are_kept_in_the_store() {
    let f = base_fixture();
    f.write_all(&[
        ("src/deep/er/x.rs", "fn x() {}\n"),
        ("tool.sh", "echo\n"),
        ("gone.txt", "bye\n"),
    ])
    .unwrap();
    f.commit_all("more").unwrap();
    // Modified, added in a new directory, removed, mode changed, a
    // symlink, a staged new file changed again, ignored files.
    f.write("src/lib.rs", "fn a() {}\nfn b() {}\n").unwrap();
    f.write("src/deep/new/y.rs", "fn y() {}\n").unwrap();
    f.remove("gone.txt").unwrap();
    f.set_mode("tool.sh", 0o755).unwrap();
    std::os::unix::fs::symlink("src/lib.rs", f.root().join("link")).unwrap();
    f.write("staged.rs", "v1\n").unwrap();
    f.git(&["add", "staged.rs"]).unwrap();
    f.write_all(&[
        ("staged.rs", "v2\n"),
        ("target/out.bin", "build"),
        ("debug.log", "log"),
    ])
    .unwrap();

    let expected = git_candidate(&f);
    let repo = f.repo().unwrap();
    let obs = repo.observe_candidate().unwrap();
    assert_eq!(obs.candidate_tree.as_str(), expected);
    // Once, under the whole suite's load, the second answer differed from
    // git's (session 17): on a difference, both trees are printed whole.
    let again = repo.trees().unwrap().candidate_tree;
    if again.as_str() != expected {
        let list =
            |t: &str| String::from_utf8_lossy(&f.git(&["ls-tree", "-r", t]).unwrap()).into_owned();
        let index =
            String::from_utf8_lossy(&f.git(&["ls-files", "-s", "--debug"]).unwrap()).into_owned();
        panic!(
            "in-process {again}:\n{}\ngit's {expected}:\n{}\nindex:\n{index}",
            list(again.as_str()),
            list(&expected)
        );
    }
    // Every object of the candidate is in the repository's own store (out
    // of the quarantine), and the quarantine is gone.
    let listed = f.git(&["ls-tree", "-r", "-t", &expected]).unwrap();
    let mut ids: Vec<String> = String::from_utf8(listed)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(2).unwrap().to_string())
        .collect();
    ids.push(expected.clone());
    for id in ids {
        f.git(&["cat-file", "-e", &id]).unwrap();
    }
    assert!(incoming_left(&f).is_empty(), "{:?}", incoming_left(&f));
    assert_eq!(
        obs.intended_untracked,
        vec![p("link"), p("src/deep/new/y.rs")]
    );
}

#[test]
fn a_refused_start_keeps_none_of_the_candidates_objects() {
    let f = base_fixture();
    f.write("data.txt", "small\n").unwrap();
    f.commit_all("data").unwrap();
    // A tracked file grown over the limit (sparse: no content written), and
    // a small new file beside it.
    std::fs::File::options()
        .write(true)
        .open(f.root().join("data.txt"))
        .unwrap()
        .set_len(probity_core::review::MAX_REVIEWED_FILE_BYTES + 1)
        .unwrap();
    f.write("new.rs", "fn n() {}\n").unwrap();
    let objects = f.git(&["count-objects", "-v"]).unwrap();
    match f.repo().unwrap().observe_candidate() {
        Err(probity_git::cmd::GitError::FileTooLarge { path, size, .. }) => {
            assert_eq!(path, "data.txt");
            assert_eq!(size, probity_core::review::MAX_REVIEWED_FILE_BYTES + 1);
        }
        other => panic!("file_too_large, not {other:?}"),
    }
    assert_eq!(f.git(&["count-objects", "-v"]).unwrap(), objects);
    assert!(incoming_left(&f).is_empty(), "{:?}", incoming_left(&f));
}

#[test]
fn added_paths_with_an_index_entry_of_any_kind_are_not_untracked() {
    let f = base_fixture();
    let blob = String::from_utf8(f.git(&["rev-parse", "HEAD:src/lib.rs"]).unwrap()).unwrap();
    // Intent to add, a staged submodule pointer (its commit is not an
    // object here), an unmerged new path (stages 2 and 3 only), a path
    // with a space, and a truly untracked file.
    f.write("ita.rs", "fn i() {}\n").unwrap();
    f.git(&["add", "-N", "ita.rs"]).unwrap();
    let sub = f.root().join("sub");
    std::fs::create_dir(&sub).unwrap();
    f.git_in(&sub, &["init", "-q"]).unwrap();
    f.git_in(&sub, &["commit", "-q", "--allow-empty", "-m", "s"])
        .unwrap();
    f.git(&["add", "sub"]).unwrap();
    let info = format!(
        "100644 {b} 2\tboth.rs\n100644 {b} 3\tboth.rs\n",
        b = blob.trim()
    );
    let out = std::process::Command::new("git")
        .args(["update-index", "--index-info"])
        .current_dir(f.root())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(info.as_bytes())?;
            c.wait()
        })
        .unwrap();
    assert!(out.success());
    f.write("both.rs", "fn a() {}\n").unwrap();
    f.write("with space.rs", "fn s() {}\n").unwrap();
    f.git(&["add", "with space.rs"]).unwrap();
    f.write("untracked.rs", "fn u() {}\n").unwrap();
    let ls = String::from_utf8(f.git(&["ls-files", "-s"]).unwrap()).unwrap();
    assert!(ls.contains(" 2\tboth.rs") && ls.contains("160000"), "{ls}");
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    assert_eq!(obs.intended_untracked, vec![p("untracked.rs")]);
    let changed = changed_paths(&obs);
    for path in ["ita.rs", "sub", "both.rs", "with space.rs", "untracked.rs"] {
        assert!(changed.contains(&p(path)), "{path}: {changed:?}");
    }
}

#[test]
fn objects_git_packs_while_adding_are_moved_into_the_store_too() {
    let f = base_fixture();
    // Over core.bigFileThreshold, `git add` streams a file into a pack of
    // the quarantine instead of a loose object.
    f.git(&["config", "core.bigFileThreshold", "1k"]).unwrap();
    f.write("big.txt", "line of text\n".repeat(400)).unwrap();
    f.write("small.rs", "fn s() {}\n").unwrap();
    let obs = f.repo().unwrap().observe_candidate().unwrap();
    // Moved in: a pack and its index in the store, the blob readable.
    let packs: Vec<String> = std::fs::read_dir(f.root().join(".git/objects/pack"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(packs.iter().any(|p| p.ends_with(".pack")), "{packs:?}");
    assert!(packs.iter().any(|p| p.ends_with(".idx")), "{packs:?}");
    let tree = obs.candidate_tree.as_str();
    let blob =
        String::from_utf8(f.git(&["rev-parse", &format!("{tree}:big.txt")]).unwrap()).unwrap();
    f.git(&["cat-file", "-e", blob.trim()]).unwrap();
    assert!(incoming_left(&f).is_empty(), "{:?}", incoming_left(&f));
    // git's own candidate is the same tree.
    assert_eq!(tree, git_candidate(&f));
    f.git(&["fsck", "--no-dangling"]).unwrap();
}
