//! Tests of `notes.rs` (moved out of it: moves only).

use super::*;
use crate::fixture::Fixture;

#[test]
fn a_scratch_ref_that_cannot_be_deleted_keeps_its_owner_lock_for_the_next_pass() {
    let (f, repo, head) = fixture();
    let common = repo.common_dir().to_path_buf();
    let owners = || -> Vec<String> {
        std::fs::read_dir(&common)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(OWNER_PREFIX))
            .collect()
    };
    let scratch = repo.scratch_ref("write").unwrap();
    repo.run(["update-ref", scratch.name.as_str(), head.as_str()])
        .unwrap();
    // Another writer holds the ref's lock: the delete fails.
    let lock = common.join(format!("{}.lock", scratch.name));
    std::fs::write(&lock, b"").unwrap();
    let name = scratch.name.clone();
    drop(scratch);
    assert!(
        repo.find_commit(&name).unwrap().is_some(),
        "the ref is still there"
    );
    assert_eq!(owners().len(), 1, "its owner lock was kept");
    // Once the lock is gone, the next scratch ref's pass deletes it.
    // The owner lock is inherited by git children by design, so a git
    // another test of this process spawns at that moment holds it for
    // as long as that git runs: a pass then (rightly) leaves the ref,
    // and a later one takes it. Bounded: at most 100 passes.
    std::fs::remove_file(&lock).unwrap();
    let mut gone = false;
    for _ in 0..100 {
        let next = repo.scratch_ref("write").unwrap();
        gone = repo.find_commit(&name).unwrap().is_none();
        drop(next);
        if gone {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(gone, "no pass deleted the scratch ref");
    assert!(owners().is_empty(), "{:?}", owners());
    drop(f);
}

/// A git of a run killed outright (its grace spent, D-R66) may leave
/// the lock of the run's private scratch ref. No other process ever
/// locks that ref, and the dead owner's lock, inherited by every git
/// the run started, proves none of them lives: the next pass removes
/// the stale lock with the ref, where `update-ref -d` alone fails.
#[test]
fn a_dead_runs_scratch_ref_lock_is_removed_with_its_ref() {
    let (f, repo, head) = fixture();
    let common = repo.common_dir().to_path_buf();
    // What a run killed while its git held the scratch ref's lock
    // leaves: the ref, its lock file and its (unheld) owner lock.
    let owner = common.join(format!("{OWNER_PREFIX}incoming-dead.owner"));
    std::fs::write(&owner, b"").unwrap();
    let name = "refs/notes/probity-incoming-dead";
    repo.run(["update-ref", name, head.as_str()]).unwrap();
    let lock = common.join(format!("{name}.lock"));
    std::fs::write(&lock, b"").unwrap();
    repo.settle_scratch_notes();
    assert!(!lock.exists(), "the stale lock is left");
    assert!(repo.find_commit(name).unwrap().is_none(), "the ref is left");
    assert!(!owner.exists(), "the owner lock is left");
    drop(f);
}

fn fixture() -> (Fixture, Repo, CommitId) {
    // The fixture is returned so its directory lives as long as the test.
    let f = Fixture::committed(&[("a", "a\n")], "a").unwrap();
    let repo = f.repo().unwrap();
    let head = repo.resolve_commit("HEAD").unwrap();
    (f, repo, head)
}

/// Runs git in `repo` with `stdin`, answering its trimmed stdout.
fn git_out(repo: &Repo, args: &[&str], stdin: Option<&[u8]>) -> String {
    String::from_utf8(repo.run_with(args, &[], stdin).unwrap())
        .unwrap()
        .trim()
        .to_string()
}

/// A notes tree holding `blob` as the note of `commit` fanned out one
/// level (`ab/cdef...`): the inner tree and the outer one, both written.
fn fanned_out(repo: &Repo, commit: &CommitId, blob: &str) -> (String, String) {
    let hex = commit.as_str();
    let inner = format!("100644 blob {blob}\t{}\n", &hex[2..]);
    let inner = git_out(repo, &["mktree"], Some(inner.as_bytes()));
    let outer = format!("040000 tree {inner}\t{}\n", &hex[..2]);
    let outer = git_out(repo, &["mktree"], Some(outer.as_bytes()));
    (inner, outer)
}

/// Writes the first note, of `head`, where no notes ref exists yet, and
/// answers the notes ref's new tip.
fn first_note(repo: &Repo, head: &CommitId, note: &[u8]) -> CommitId {
    assert_eq!(repo.notes_tip().unwrap(), None);
    repo.write_notes(None, &[(head.clone(), note.to_vec())])
        .unwrap();
    repo.notes_tip().unwrap().unwrap()
}

#[test]
fn anchored_notes_reach_the_trees_they_name_and_keep_their_tree() {
    let (f, repo, head) = fixture();
    // A tree no commit or ref reaches (what a rebase leaves behind).
    f.write("b", "b\n").unwrap();
    f.git(&["add", "b"]).unwrap();
    let loose = String::from_utf8(f.git(&["write-tree"]).unwrap()).unwrap();
    let loose = TreeId::parse(loose.trim()).unwrap();
    let absent = TreeId::parse("1111111111111111111111111111111111111111").unwrap();
    repo.write_notes_anchored(
        None,
        &[(head.clone(), b"n\n".to_vec())],
        &[loose.clone(), absent],
    )
    .unwrap();
    let tip = repo.notes_tip().unwrap().unwrap();
    let text = |args: &[&str]| String::from_utf8(f.git(args).unwrap()).unwrap();
    // Two parents: the notes commit, and a root whose tree lists the
    // held tree (the absent one is left out).
    let parents = text(&["rev-list", "--parents", "-n", "1", tip.as_str()]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");
    let keep = text(&["ls-tree", &format!("{}^2", tip)]);
    assert_eq!(keep.trim(), format!("040000 tree {loose}\t{loose}"));
    assert_eq!(
        text(&["rev-parse", &format!("{tip}^{{tree}}")]),
        text(&["rev-parse", &format!("{tip}^1^{{tree}}")])
    );
    assert_eq!(
        repo.read_note(&tip, &head, 1024).unwrap().as_deref(),
        Some(&b"n\n"[..])
    );
    // Reachable from the notes ref: what a push sends and gc keeps.
    let reach = text(&["rev-list", "--objects", "refs/notes/probity"]);
    assert!(reach.contains(loose.as_str()), "{reach}");
    // Nothing held to anchor: a plain notes commit.
    let other = TreeId::parse("2222222222222222222222222222222222222222").unwrap();
    repo.write_notes_anchored(Some(&tip), &[(head.clone(), b"m\n".to_vec())], &[other])
        .unwrap();
    let next = repo.notes_tip().unwrap().unwrap();
    let parents = text(&["rev-list", "--parents", "-n", "1", next.as_str()]);
    assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
}

#[test]
fn notes_are_written_by_compare_and_swap_and_read_back_exactly() {
    let (_f, repo, head) = fixture();
    let tip = first_note(&repo, &head, b"{\"x\":1}\n");
    assert_eq!(
        repo.read_note(&tip, &head, 1024).unwrap().as_deref(),
        Some(&b"{\"x\":1}\n"[..])
    );
    // A writer that read before this write: refused, nothing lost.
    let stale = repo.write_notes(None, &[(head.clone(), b"{\"y\":2}\n".to_vec())]);
    assert!(stale.is_err());
    assert_eq!(repo.notes_tip().unwrap(), Some(tip.clone()));
    // No scratch ref is left behind.
    let refs = repo.run(["for-each-ref", "refs/notes/"]).unwrap();
    assert_eq!(String::from_utf8_lossy(&refs).lines().count(), 1);
    // The current writer succeeds; the read is capped.
    repo.write_notes(Some(&tip), &[(head.clone(), b"{\"y\":2}\n".to_vec())])
        .unwrap();
    let tip2 = repo.notes_tip().unwrap().unwrap();
    assert_eq!(repo.read_note(&tip2, &head, 3).unwrap().unwrap().len(), 4);
    assert_eq!(repo.protected_refs().unwrap(), Vec::<String>::new());
}

#[test]
fn another_commit_has_no_note_and_protected_refs_are_multi_valued() {
    let (f, repo, head) = fixture();
    repo.write_notes(None, &[(head, b"n\n".to_vec())]).unwrap();
    f.write("b", "b\n").unwrap();
    f.commit_all("b").unwrap();
    let other = repo.resolve_commit("HEAD").unwrap();
    let tip = repo.notes_tip().unwrap().unwrap();
    assert_eq!(repo.read_note(&tip, &other, 10).unwrap(), None);
    f.git(&[
        "config",
        "--add",
        "probity.protectedRefs",
        "refs/heads/main",
    ])
    .unwrap();
    f.git(&["config", "--add", "probity.protectedRefs", "refs/tags/v*"])
        .unwrap();
    assert_eq!(
        repo.protected_refs().unwrap(),
        vec!["refs/heads/main".to_string(), "refs/tags/v*".to_string()]
    );
}

#[test]
fn changed_notes_lists_changed_and_removed_notes_only() {
    let (f, repo, head) = fixture();
    f.write("b", "b\n").unwrap();
    f.commit_all("b").unwrap();
    let other = repo.resolve_commit("HEAD").unwrap();
    repo.write_notes(
        None,
        &[
            (head.clone(), b"1\n".to_vec()),
            (other.clone(), b"2\n".to_vec()),
        ],
    )
    .unwrap();
    let first = repo.notes_tip().unwrap().unwrap();
    // A note added elsewhere is no change of a held note.
    f.write("c", "c\n").unwrap();
    f.commit_all("c").unwrap();
    let third = repo.resolve_commit("HEAD").unwrap();
    repo.write_notes(Some(&first), &[(third, b"3\n".to_vec())])
        .unwrap();
    let second = repo.notes_tip().unwrap().unwrap();
    assert_eq!(repo.changed_notes(&first, &second).unwrap(), vec![]);
    // One changed, one removed.
    repo.write_notes(Some(&second), &[(head.clone(), b"1\n1b\n".to_vec())])
        .unwrap();
    repo.run(["notes", "--ref=probity", "remove", other.as_str()])
        .unwrap();
    let last = repo.notes_tip().unwrap().unwrap();
    let mut want = vec![head.clone(), other.clone()];
    want.sort();
    assert_eq!(repo.changed_notes(&first, &last).unwrap(), want);
    // The same blob moved to a fanned-out path: no change.
    let run = |args: &[&str], stdin: Option<&[u8]>| git_out(&repo, args, stdin);
    let hex = head.as_str();
    let blob = run(&["hash-object", "-w", "--stdin"], Some(b"n\n"));
    let flat = run(
        &["mktree"],
        Some(format!("100644 blob {blob}\t{hex}\n").as_bytes()),
    );
    let (inner, fanned) = fanned_out(&repo, &head, &blob);
    let a = CommitId::parse(run(&["commit-tree", &flat, "-m", "a"], None)).unwrap();
    let b = CommitId::parse(run(
        &["commit-tree", &fanned, "-p", a.as_str(), "-m", "b"],
        None,
    ))
    .unwrap();
    assert_eq!(repo.changed_notes(&a, &b).unwrap(), vec![]);
    let empty = run(&["mktree"], Some(b""));
    let gone = CommitId::parse(run(
        &["commit-tree", &empty, "-p", b.as_str(), "-m", "c"],
        None,
    ))
    .unwrap();
    assert_eq!(repo.changed_notes(&b, &gone).unwrap(), vec![head.clone()]);
    // A second path for the held note, beside the unchanged fanned-out
    // one: git reads both blobs as the note, so the note changed.
    let junk = run(&["hash-object", "-w", "--stdin"], Some(b"junk\n"));
    let both = run(
        &["mktree"],
        Some(
            format!(
                "100644 blob {junk}\t{hex}\n040000 tree {inner}\t{}\n",
                &hex[..2]
            )
            .as_bytes(),
        ),
    );
    let shadowed = CommitId::parse(run(
        &["commit-tree", &both, "-p", b.as_str(), "-m", "d"],
        None,
    ))
    .unwrap();
    assert_eq!(
        repo.changed_notes(&b, &shadowed).unwrap(),
        vec![head.clone()]
    );
    let read = repo.read_note(&shadowed, &head, 1024).unwrap().unwrap();
    assert_eq!(read, b"junk\nn\n", "every path's blob, in path order");
    // Up to `cap + 1` bytes in all.
    assert_eq!(
        repo.read_note(&shadowed, &head, 5).unwrap().unwrap(),
        b"junk\nn"
    );
}

#[test]
fn a_fanned_out_note_is_found() {
    let (f, repo, head) = fixture();
    let run = |args: &[&str], stdin: Option<&[u8]>| git_out(&repo, args, stdin);
    let blob = run(&["hash-object", "-w", "--stdin"], Some(b"fanned\n"));
    let (_, outer) = fanned_out(&repo, &head, &blob);
    let commit = run(&["commit-tree", &outer, "-m", "notes"], None);
    let _keep = &f;
    let notes = CommitId::parse(commit).unwrap();
    assert_eq!(
        repo.read_note(&notes, &head, 100).unwrap().as_deref(),
        Some(&b"fanned\n"[..])
    );
}

/// The notes tip comes from the long-lived object reader (issue 24): a
/// move of the ref by another process, as a loose ref and as a packed one,
/// is seen at the next read; a branch spelled like the notes ref is not
/// taken for it; a notes ref naming a non-commit is no tip.
#[test]
fn the_notes_tip_is_read_afresh_from_the_object_reader() {
    let (f, repo, head) = fixture();
    let first = first_note(&repo, &head, b"a\n");
    // Another process writes a note: the same reader sees the new tip.
    f.git(&[
        "notes",
        "--ref=probity",
        "add",
        "-f",
        "-m",
        "b",
        head.as_str(),
    ])
    .unwrap();
    let second = repo.notes_tip().unwrap().unwrap();
    assert_ne!(second, first);
    // Packed, then moved back as a loose ref, then deleted.
    f.git(&["pack-refs", "--all"]).unwrap();
    assert_eq!(repo.notes_tip().unwrap(), Some(second.clone()));
    f.git(&["update-ref", "refs/notes/probity", first.as_str()])
        .unwrap();
    assert_eq!(repo.notes_tip().unwrap(), Some(first.clone()));
    f.git(&["update-ref", "-d", "refs/notes/probity"]).unwrap();
    assert_eq!(repo.notes_tip().unwrap(), None);
    // A branch `refs/heads/refs/notes/probity` is not the notes ref.
    f.git(&["update-ref", "refs/heads/refs/notes/probity", head.as_str()])
        .unwrap();
    assert_eq!(repo.notes_tip().unwrap(), None);
    f.git(&["update-ref", "refs/notes/probity", first.as_str()])
        .unwrap();
    assert_eq!(repo.notes_tip().unwrap(), Some(first.clone()));
    // A notes ref naming a blob has no commit to peel to.
    let blob = String::from_utf8(f.git(&["rev-parse", "HEAD:a"]).unwrap()).unwrap();
    f.git(&["update-ref", "refs/notes/probity", blob.trim()])
        .unwrap();
    assert_eq!(repo.notes_tip().unwrap(), None);
}

/// `notes_history` exempts Probity's anchor roots (a tree listing only
/// trees, each named by its own id in lowercase hex), asked once per tree
/// however many roots share it; a root whose tree names a tree otherwise
/// (upper case, another id) or holds a file is listed as any commit is.
#[test]
fn notes_history_exempts_anchor_roots_once_per_tree_and_no_look_alike() {
    let (f, repo, head) = fixture();
    let tree_of_head = String::from_utf8(f.git(&["rev-parse", "HEAD^{tree}"]).unwrap()).unwrap();
    let tree_of_head = tree_of_head.trim();
    let mktree = |listing: String| -> String {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("listing");
        std::fs::write(&p, listing).unwrap();
        let out = repo
            .run_with(["mktree"], &[], Some(&std::fs::read(&p).unwrap()))
            .unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    };
    let root = |tree: &str, message: &str| -> String {
        let out = repo.run(["commit-tree", tree, "-m", message]).unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    };
    let anchor = mktree(format!("040000 tree {tree_of_head}\t{tree_of_head}\n"));
    let upper = mktree(format!(
        "040000 tree {tree_of_head}\t{}\n",
        tree_of_head.to_uppercase()
    ));
    let other_name = mktree(format!("040000 tree {tree_of_head}\t{}\n", "1".repeat(40)));
    let notes = first_note(&repo, &head, b"n\n");
    let mut parents = vec![notes.to_string()];
    for i in 0..3 {
        parents.push(root(&anchor, &format!("anchor {i}")));
    }
    let look_alikes = [root(&upper, "upper"), root(&other_name, "other")];
    parents.extend(look_alikes.iter().cloned());
    let mut args = vec!["commit-tree".to_string(), format!("{notes}^{{tree}}")];
    for p in &parents {
        args.extend(["-p".to_string(), p.clone()]);
    }
    args.extend(["-m".to_string(), "merge".to_string()]);
    let merge = String::from_utf8(repo.run(&args).unwrap()).unwrap();
    let merge = CommitId::parse(merge.trim()).unwrap();
    let history = repo.notes_history(Some(&notes), &merge, true, &[]).unwrap();
    assert_eq!(history.commits, 1 + 3 + 2, "{history:?}");
    let listed: Vec<&str> = history.files.iter().map(|(c, _, _)| c.as_str()).collect();
    for look_alike in &look_alikes {
        assert!(listed.contains(&look_alike.as_str()), "{history:?}");
    }
    assert_eq!(
        listed.len(),
        2,
        "only the look-alikes list files: {history:?}"
    );
}

/// D-R144: `NoteTrees` answers a commit's note paths as git's own
/// `<notes>:<path>` look-up does: every fan-out level, a path through a
/// file names nothing, a missing one nothing.
#[test]
fn note_trees_look_paths_up_as_git_does() {
    let (_f, repo, _head) = fixture();
    let mktree = |listing: &str| -> String {
        let out = repo
            .run_with(["mktree"], &[], Some(listing.as_bytes()))
            .unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    };
    let blob = |body: &str| -> String {
        let out = repo
            .run_with(["hash-object", "-w", "--stdin"], &[], Some(body.as_bytes()))
            .unwrap();
        String::from_utf8(out).unwrap().trim().to_string()
    };
    let mut ids: Vec<String> = (1..=4u8).map(|i| format!("ab{:038x}", i)).collect();
    ids[2] = format!("cd{}", &ids[2][2..]);
    let (b1, b2, b3) = (blob("one\n"), blob("two\n"), blob("three\n"));
    // ids[0] flat and at one level; ids[1] at two levels; ids[2] under a
    // file named `cd` (nothing); ids[3] nowhere.
    let deep = mktree(&format!("100644 blob {b2}\t{}\n", &ids[1][4..]));
    let level1 = mktree(&format!(
        "100644 blob {b1}\t{}\n040000 tree {deep}\t{}\n",
        &ids[0][2..],
        &ids[1][2..4]
    ));
    let root = mktree(&format!(
        "100644 blob {b3}\t{}\n040000 tree {level1}\tab\n100644 blob {b3}\tcd\n",
        ids[0]
    ));
    let commit = String::from_utf8(repo.run(["commit-tree", &root, "-m", "n"]).unwrap()).unwrap();
    let notes = CommitId::parse(commit.trim()).unwrap();
    let mut trees = NoteTrees::new(&repo);
    for id in &ids {
        let id = CommitId::parse(id).unwrap();
        let ours = trees.note_entries(&notes, &id).unwrap();
        let git: Vec<(String, String)> = note_paths(&id)
            .into_iter()
            .filter_map(|p| {
                repo.object_info(&format!("{notes}:{p}"))
                    .unwrap()
                    .map(|i| (p, i.oid))
            })
            .collect();
        assert_eq!(ours, git, "{id}");
    }
    assert_eq!(
        trees
            .note_entries(&notes, &CommitId::parse(&ids[0]).unwrap())
            .unwrap()
            .len(),
        2
    );
}
