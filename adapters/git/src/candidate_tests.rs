//! Tests of `candidate.rs`: the index stand-in and the errors of a candidate run (moved out of it: moves only).

use std::os::unix::fs::MetadataExt;

use super::*;
use crate::fixture::Fixture;

#[test]
fn a_stand_in_is_a_link_to_a_regular_index_and_a_copy_of_a_symlinked_one() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    std::fs::write(&index, b"index bytes").unwrap();
    let linked = dir.path().join("linked");
    assert!(stand_in(&index, &linked).unwrap());
    assert_eq!(
        std::fs::metadata(&linked).unwrap().ino(),
        std::fs::metadata(&index).unwrap().ino()
    );
    // A symlink is followed: the stand-in is a copy of its target with
    // the target's mtime, not a link to the symlink.
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, b"target bytes").unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    std::fs::File::options()
        .write(true)
        .open(&target)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let symlink = dir.path().join("symlinked-index");
    std::os::unix::fs::symlink(&target, &symlink).unwrap();
    let copied = dir.path().join("copied");
    assert!(stand_in(&symlink, &copied).unwrap());
    let meta = std::fs::symlink_metadata(&copied).unwrap();
    assert!(meta.file_type().is_file());
    assert_ne!(meta.ino(), std::fs::metadata(&target).unwrap().ino());
    assert_eq!(std::fs::read(&copied).unwrap(), b"target bytes");
    assert_eq!(meta.modified().unwrap(), old);
    // No index: nothing is made.
    let none = dir.path().join("none");
    assert!(!stand_in(&dir.path().join("missing"), &none).unwrap());
    assert!(!none.exists());
}

#[test]
fn the_users_index_keeps_its_file_bytes_and_single_name() {
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/lib.rs", "fn a() {}\nfn b() {}\n").unwrap();
    f.write("src/new.rs", "fn c() {}\n").unwrap();
    let index = f.root().join(".git").join("index");
    let before = std::fs::metadata(&index).unwrap();
    let bytes = std::fs::read(&index).unwrap();
    let repo = f.repo().unwrap();
    let live = repo.trees().unwrap();
    let staged = repo.staged_trees(&index).unwrap();
    assert_ne!(live.candidate_tree, staged.candidate_tree);
    assert_eq!(live.base_tree, staged.base_tree);
    let after = std::fs::metadata(&index).unwrap();
    assert_eq!(after.ino(), before.ino(), "the same file");
    assert_eq!(after.nlink(), 1, "no other name left on it");
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert_eq!(std::fs::read(&index).unwrap(), bytes);
    let left: Vec<String> = std::fs::read_dir(f.root().join(".git"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("probity-index-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn heads_error_comes_first_and_no_stand_in_is_left() {
    let f = Fixture::new().unwrap();
    f.write("a.txt", "a\n").unwrap();
    f.commit_all("base").unwrap();
    // The branch names a blob: HEAD has no tree, and reading it fails
    // while the index is being written as a tree.
    let blob = f.git(&["hash-object", "-w", "a.txt"]).unwrap();
    let mut line = blob.clone();
    line.push(b'\n');
    std::fs::write(f.root().join(".git/refs/heads/main"), line).unwrap();
    let repo = f.repo().unwrap();
    match repo.trees() {
        Err(GitError::Failed { stderr, .. }) => {
            assert!(stderr.contains("has no tree"), "{stderr}")
        }
        other => panic!("HEAD's error, not {other:?}"),
    }
    let left = std::fs::read_dir(f.root().join(".git"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("probity-index-")
        })
        .count();
    assert_eq!(left, 0);
}

#[test]
fn read_paths_answers_as_read_path_does_for_each() {
    let f = Fixture::new().unwrap();
    f.write("a.txt", "alpha\n").unwrap();
    f.write("dir/b.txt", "beta beta beta\n").unwrap();
    f.commit_all("base").unwrap();
    let tree = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap())
        .unwrap()
        .trim()
        .to_string();
    f.write("a.txt", "changed\n").unwrap();
    f.commit_all("second").unwrap();
    let repo = f.repo().unwrap();
    let reads = [
        (tree.as_str(), "a.txt"),
        ("HEAD", "a.txt"),
        (tree.as_str(), "dir"),
        (tree.as_str(), "absent"),
        (tree.as_str(), "dir/b.txt"),
        (tree.as_str(), "a\nb"),
        ("HEAD", "dir/b.txt"),
    ];
    for cap in [0, 3, 1024] {
        let each: Vec<_> = reads
            .iter()
            .map(|(rev, path)| repo.read_path(rev, path, cap).unwrap())
            .collect();
        assert_eq!(repo.read_paths(&reads, cap).unwrap(), each, "cap {cap}");
        // git's own bytes, at most cap + 1 of them, for every blob found.
        for ((rev, path), read) in reads.iter().zip(&each) {
            if let Some(bytes) = read {
                let mut git = f
                    .git(&["cat-file", "blob", &format!("{rev}:{path}")])
                    .unwrap();
                git.truncate(cap + 1);
                assert_eq!(bytes, &git, "{rev}:{path}");
            }
        }
        assert_eq!(
            each[4].as_deref(),
            Some(&b"beta beta beta\n"[..(cap + 1).min(15)])
        );
        assert_eq!(each[0].as_deref(), Some(&b"alpha\n"[..(cap + 1).min(6)]));
        assert_eq!(each[1].as_deref(), Some(&b"changed\n"[..(cap + 1).min(8)]));
        assert_eq!((&each[2], &each[3], &each[5]), (&None, &None, &None));
    }
    assert!(repo.read_paths(&[], 10).unwrap().is_empty());
}

/// A start's one diff reads the changed blobs ahead while git writes the
/// patch (`crate::ahead`): the new side's loose blobs, still in the
/// quarantine, and the base side's packed ones are git's bytes and are
/// taken once. Where the packs are not read in-process (an alternate
/// store), the base side is asked of git's reader then, and not again.
#[test]
fn the_one_diff_reads_the_changed_blobs_ahead_as_git_answers_them() {
    for alternate in [false, true] {
        let f = Fixture::new().unwrap();
        for i in 0..40 {
            f.write(&format!("d/f{i}.rs"), format!("fn f{i}() {{}}\n"))
                .unwrap();
        }
        f.commit_all("base").unwrap();
        f.git(&["repack", "-adq"]).unwrap();
        let empty = tempfile::tempdir().unwrap();
        if alternate {
            std::fs::write(
                f.root().join(".git/objects/info/alternates"),
                format!("{}\n", empty.path().display()),
            )
            .unwrap();
        }
        for i in 0..40 {
            f.write(&format!("d/f{i}.rs"), format!("fn f{i}() {{ {i} }}\n"))
                .unwrap();
        }
        for i in 0..5 {
            f.write(&format!("new/n{i}.rs"), format!("fn n{i}() {{}}\n"))
                .unwrap();
        }
        let repo = f.repo().unwrap();
        assert_eq!(repo.object_format().unwrap(), "sha1");
        let incoming = Incoming::new(&repo).unwrap();
        let index = repo.git_dir().join("index");
        let trees = repo
            .trees_from_index(&index, true, Some(&incoming))
            .unwrap();
        let diff = repo
            .one_diff(
                &trees.base_tree,
                &trees.candidate_tree,
                Some(&incoming),
                MAX_DIFF_BYTES,
            )
            .unwrap();
        let (old, new) = crate::ahead::raw_blobs(&diff.raw);
        assert_eq!((old.len(), new.len()), (40, 45));
        let all: Vec<&str> = old.iter().chain(&new).map(String::as_str).collect();
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let taken = repo.take_ahead(&all, CONTENT_CAP);
        assert!(
            repo.take_ahead(&all, CONTENT_CAP)
                .iter()
                .all(Option::is_none)
        );
        incoming.migrate().unwrap();
        for (i, (id, read)) in all.iter().zip(&taken).enumerate() {
            let git = f.git(&["cat-file", "blob", id]).unwrap();
            if alternate {
                // With an alternate store git decides where an object is:
                // nothing is read in-process.
                let _ = i;
                assert_eq!(read, &None, "{id}: left to git");
            } else {
                assert_eq!(read.as_deref(), Some(git.as_slice()), "{id}");
            }
        }
        if alternate {
            let asked = repo.object_requests();
            let old_heads = repo.object_heads_sized(&old, CONTENT_CAP).unwrap();
            assert_eq!(
                repo.object_requests(),
                asked,
                "the base side was read ahead"
            );
            for (id, (_, head, complete)) in old.iter().zip(&old_heads) {
                assert!(complete);
                assert_eq!(head, &f.git(&["cat-file", "blob", id]).unwrap(), "{id}");
            }
        }
    }
}

/// Which added paths the user's index holds, read in-process, is the
/// object reader's answer (`:<stage>:<path>`) on the same index; an index
/// the parser does not read (intent to add, a conflict) is left to it.
#[test]
fn the_index_membership_read_in_process_is_the_readers() {
    let f = Fixture::new().unwrap();
    f.write("kept.rs", "fn a() {}\n").unwrap();
    f.write("src/old.rs", "fn b() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/staged.rs", "fn c() {}\n").unwrap();
    f.git(&["add", "src/staged.rs"]).unwrap();
    f.write("src/untracked.rs", "fn d() {}\n").unwrap();
    f.git(&["rm", "-q", "--cached", "src/old.rs"]).unwrap();
    f.write("kept.rs", "fn a() { 1 }\n").unwrap();
    let repo = f.repo().unwrap();
    assert_eq!(repo.object_format().unwrap(), "sha1");
    let paths: Vec<RepoPath> = [
        "kept.rs",
        "src/old.rs",
        "src/staged.rs",
        "src/untracked.rs",
        "src",
        "absent.rs",
        "kept.r",
        "kept.rs.x",
    ]
    .iter()
    .map(|p| RepoPath::parse(*p).unwrap())
    .collect();
    let refs: Vec<&RepoPath> = paths.iter().collect();
    let mine = repo.in_index_in_process(&refs).expect("read in-process");
    let git = repo.in_index_by_reader(refs.clone()).unwrap();
    assert_eq!(mine, git);
    let names: std::collections::BTreeSet<&str> = mine.iter().map(RepoPath::as_str).collect();
    assert_eq!(names, ["kept.rs", "src/staged.rs"].into_iter().collect());
    // Intent to add: the parser does not read the index; git answers.
    f.git(&["add", "-N", "src/untracked.rs"]).unwrap();
    assert!(repo.in_index_in_process(&refs).is_none());
    let left: std::collections::BTreeSet<String> = repo
        .in_index_read(&refs, &HashSet::new())
        .unwrap()
        .iter()
        .map(|p| p.as_str().to_string())
        .collect();
    let by_reader: std::collections::BTreeSet<String> = repo
        .in_index_by_reader(refs.clone())
        .unwrap()
        .iter()
        .map(|p| p.as_str().to_string())
        .collect();
    assert_eq!(left, by_reader);
}
