//! The git invariant (docs/ARCHITECTURE.md): Probity never writes the
//! user's index or worktree, and writes refs only under `refs/probity/`
//! (when `probity.keepTrees` asks) and `refs/notes/probity` (`publish`).
//!
//! One review's whole life, in a real repository, through the binary:
//! `start`, `finalize`, every gate (pre-commit before the user commits;
//! pre-push by range and by remote, pre-pr, release after; pre-receive and
//! pre-pr from the notes after `publish`), `publish`, and `push` (twice).
//! Around each
//! Probity command (never around the user's own `git commit`) the test
//! takes every ref (`git for-each-ref`, and `HEAD`), every file under the
//! git dir but Probity's store (`.git/probity/`), the index as `git ls-files
//! -s` sees it, byte for byte and its mtime, and every worktree file's bytes
//! and mode; then it asserts:
//! - the worktree, `git ls-files -s` and the index file (bytes and mtime)
//!   are the same after every command, though a tracked file is stat-dirty
//!   (an index refresh on the way would write the index);
//! - without `probity.keepTrees`, no ref changes but `publish`'s new
//!   `refs/notes/probity` (pointing at a notes commit);
//! - with it, `start` adds exactly `refs/probity/<lineage>/base` and
//!   `.../candidate`, at the trees the start froze, and nothing else does
//!   but `publish` (as above);
//! - `push` moves locally only what `git push` itself records, the pushed
//!   branch's remote-tracking ref (`refs/remotes/origin/main`); on the
//!   remote it writes the branch, the notes and the review's trees under
//!   `refs/probity/trees/<lineage>/` (keepTrees or not); a second push
//!   moves nothing;
//! - in the git dir, the only files a command adds are new objects (never
//!   one changed or removed) and the files of the refs it wrote (their
//!   reflogs included); every other file (`HEAD`, `config`, `index`,
//!   `packed-refs`, hooks, ...) keeps its bytes, and nothing Probity made
//!   for the run (an index copy, a lock, a scratch notes ref) is left
//!   (`push`'s notes fetch leaves the user's `FETCH_HEAD` alone too).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use probity_core::digest::Sha256Digest;
use probity_git::fixture::Fixture;
use serde_json::Value;

/// What the test compares around each command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    /// `refname → oid`, `HEAD` included (as `HEAD → <symref> <oid>`).
    refs: BTreeMap<String, String>,
    /// Every file under the git dir but `probity/`, relative path → bytes.
    git_files: BTreeMap<PathBuf, Vec<u8>>,
    /// `git ls-files -s`.
    staged: Vec<u8>,
    /// The index file's bytes and modification time (an index written
    /// again with the same bytes is written all the same).
    index: Option<Vec<u8>>,
    index_mtime: Option<std::time::SystemTime>,
    /// Every worktree file (not under `.git`), path → (mode, bytes).
    worktree: BTreeMap<PathBuf, (u32, Vec<u8>)>,
}

fn git_text(f: &Fixture, args: &[&str]) -> String {
    String::from_utf8(f.git(args).unwrap()).unwrap()
}

fn files(root: &Path, dir: &Path, skip: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().to_path_buf();
        if skip(&rel) {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            files(root, &p, skip, out);
        } else {
            out.push(rel);
        }
    }
}

fn snapshot(f: &Fixture) -> Snapshot {
    let mut refs: BTreeMap<String, String> =
        git_text(f, &["for-each-ref", "--format=%(refname) %(objectname)"])
            .lines()
            .map(|l| {
                let (name, oid) = l.split_once(' ').unwrap();
                (name.to_string(), oid.to_string())
            })
            .collect();
    let head = format!(
        "{} {}",
        git_text(f, &["symbolic-ref", "HEAD"]).trim(),
        git_text(f, &["rev-parse", "HEAD"]).trim()
    );
    refs.insert("HEAD".into(), head);
    let git_dir = f.root().join(".git");
    let mut paths = Vec::new();
    files(
        &git_dir,
        &git_dir,
        &|rel| rel == Path::new("probity"),
        &mut paths,
    );
    let git_files = paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(git_dir.join(&p)).unwrap();
            (p, bytes)
        })
        .collect();
    let mut paths = Vec::new();
    files(
        f.root(),
        f.root(),
        &|rel| rel == Path::new(".git"),
        &mut paths,
    );
    let worktree = paths
        .into_iter()
        .map(|p| {
            let full = f.root().join(&p);
            let mode = std::fs::symlink_metadata(&full)
                .unwrap()
                .permissions()
                .mode();
            (p, (mode, std::fs::read(&full).unwrap()))
        })
        .collect();
    Snapshot {
        refs,
        git_files,
        staged: f.git(&["ls-files", "-s"]).unwrap(),
        index: f.index_bytes().unwrap(),
        index_mtime: std::fs::metadata(git_dir.join("index"))
            .and_then(|m| m.modified())
            .ok(),
        worktree,
    }
}

/// Refs that changed: name → (before, after).
type RefChanges = BTreeMap<String, (Option<String>, Option<String>)>;

/// What one review's life changed: each command's ref changes, in order,
/// and what its `start` froze.
struct Life {
    steps: Vec<(String, RefChanges)>,
    base: String,
    head: String,
    lineage: String,
    base_tree: String,
    candidate_tree: String,
}

/// The refs that differ between two snapshots.
fn changed_refs(a: &Snapshot, b: &Snapshot) -> RefChanges {
    let names: BTreeSet<&String> = a.refs.keys().chain(b.refs.keys()).collect();
    names
        .into_iter()
        .filter(|n| a.refs.get(*n) != b.refs.get(*n))
        .map(|n| (n.clone(), (a.refs.get(n).cloned(), b.refs.get(n).cloned())))
        .collect()
}

/// A repository under review, its bare origin, and what the review's
/// inputs are written to.
struct Review {
    f: Fixture,
    base: String,
    inputs: tempfile::TempDir,
    /// The bare origin (its directory kept alive by `_origin`).
    remote: PathBuf,
    _origin: tempfile::TempDir,
}

impl Review {
    fn new(keep_trees: bool) -> Self {
        let f = support::parser_base();
        let (origin, remote) = support::bare_origin(&f, "origin.git");
        if keep_trees {
            f.git(&["config", "probity.keepTrees", "true"]).unwrap();
        }
        let base = git_text(&f, &["rev-parse", "HEAD"]).trim().to_string();
        // An executable script too: its mode must stay.
        f.write("bin/run.sh", "#!/bin/sh\necho run\n").unwrap();
        let script = f.root().join("bin/run.sh");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        f.git(&["add", "bin/run.sh"]).unwrap();
        // The change: one file modified (unstaged), one staged, one
        // untracked.
        support::write_medium_change(&f);
        f.git(&["add", "src/parser_test.rs"]).unwrap();
        f.write("src/extra.rs", "fn extra() {}\n").unwrap();
        // A tracked file whose stat no longer matches its index entry (same
        // bytes written again): a git that refreshed the index on the way
        // (as a plain `git status` does) would write it.
        f.write("bin/run.sh", "#!/bin/sh\necho run\n").unwrap();
        Review {
            f,
            base,
            inputs: tempfile::tempdir().unwrap(),
            remote,
            _origin: origin,
        }
    }

    /// Runs `probity --json args...`, asserting it succeeded with exit 0,
    /// and what it changed: its answer and the refs it changed.
    fn step(&self, args: &[&str]) -> (Value, RefChanges) {
        let before = snapshot(&self.f);
        let run = support::probity(self.f.root(), args);
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        let after = snapshot(&self.f);
        assert_eq!(
            after.worktree, before.worktree,
            "{args:?} changed the worktree"
        );
        assert!(
            after.staged == before.staged,
            "{args:?} changed `git ls-files -s`:\n{}\n---\n{}",
            String::from_utf8_lossy(&before.staged),
            String::from_utf8_lossy(&after.staged)
        );
        assert!(
            after.index == before.index,
            "{args:?} rewrote the index file (its bytes changed)"
        );
        assert_eq!(
            after.index_mtime, before.index_mtime,
            "{args:?} wrote the index file (same bytes, new mtime)"
        );
        let refs = changed_refs(&before, &after);
        // The files of the refs written, and their reflogs.
        let ref_files: BTreeSet<PathBuf> = refs
            .keys()
            .flat_map(|r| [PathBuf::from(r), Path::new("logs").join(r)])
            .collect();
        let mut unexpected = Vec::new();
        let paths: BTreeSet<&PathBuf> = before
            .git_files
            .keys()
            .chain(after.git_files.keys())
            .collect();
        for p in paths {
            let (was, is) = (before.git_files.get(p), after.git_files.get(p));
            if was == is {
                continue;
            }
            let new_object = p.starts_with("objects") && was.is_none();
            if !new_object && !ref_files.contains(p) {
                let what = match (was, is) {
                    (None, _) => "added",
                    (_, None) => "removed",
                    _ => "changed",
                };
                unexpected.push(format!("{} {what}", p.display()));
            }
        }
        assert!(
            unexpected.is_empty(),
            "{args:?} wrote in the git dir outside its store:\n  {}",
            unexpected.join("\n  ")
        );
        (run.json, refs)
    }

    fn input(&self, name: &str, text: &str) -> String {
        support::input(self.inputs.path(), name, text)
    }

    /// The whole life of one review; every ref each step changed, in order.
    fn life(&self) -> Life {
        let mut log = Vec::new();
        let mut record = |name: &str, args: &[&str]| -> Value {
            let (answer, refs) = self.step(args);
            log.push((name.to_string(), refs));
            answer
        };
        let started = record("start", &["start"]);
        let lineage = support::string_at(&started, "lineage_id");
        let clean = self.input("r.json", support::CLEAN_RESULT);
        let evidence = self.input("ev.txt", "tests passed\n");
        let mut finalize = vec!["finalize", "--lineage", lineage.as_str()];
        let results: Vec<String> = started["selected_lenses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| format!("{}={clean}", l.as_str().unwrap()))
            .collect();
        for r in &results {
            finalize.extend(["--result", r.as_str()]);
        }
        finalize.extend(["--evidence", evidence.as_str()]);
        let done = record("finalize", &finalize);
        assert_eq!(done["state"], "approved", "{done}");
        let allow = |name: &str, v: &Value| {
            assert_eq!(v["decision"], "allow", "{name}: {v}");
        };
        let v = record("validate pre-commit", &["validate", "--gate", "pre-commit"]);
        allow("pre-commit", &v);
        // The user commits exactly the reviewed candidate.
        self.f.commit_all("reviewed").unwrap();
        let range = format!("{}..HEAD", self.base);
        let v = record(
            "validate pre-push --range",
            &["validate", "--gate", "pre-push", "--range", &range],
        );
        allow("pre-push --range", &v);
        let v = record(
            "validate pre-push --remote",
            &["validate", "--gate", "pre-push", "--remote", "origin"],
        );
        allow("pre-push --remote", &v);
        let v = record(
            "validate pre-pr",
            &["validate", "--gate", "pre-pr", "--base", &self.base],
        );
        allow("pre-pr", &v);
        let dist = self.inputs.path().join("dist");
        std::fs::create_dir(&dist).unwrap();
        std::fs::write(dist.join("app.tar.gz"), b"tarball").unwrap();
        let sums = format!("{}  app.tar.gz\n", Sha256Digest::plain(b"tarball").hex());
        std::fs::write(dist.join("SHA256SUMS"), sums).unwrap();
        let sums = dist.join("SHA256SUMS").display().to_string();
        let v = record(
            "validate release",
            &[
                "validate",
                "--gate",
                "release",
                "--revision",
                "HEAD",
                "--checksums",
                &sums,
            ],
        );
        allow("release", &v);
        record("publish", &["publish", "--range", &range]);
        let v = record(
            "validate pre-receive",
            &support::pre_receive_args(&range, "refs/heads/main"),
        );
        allow("pre-receive", &v);
        let v = record(
            "validate pre-pr --authority notes",
            &support::notes_pre_pr_args(&self.base, &[]),
        );
        allow("pre-pr notes", &v);
        // `probity push`: the branch, the notes and the review trees go to
        // the remote; here only git's own record of what the remote now
        // has (`refs/remotes/origin/main`) moves.
        record("push", &["push", "origin", "main"]);
        // Again: the remote's notes are now fetched (into a scratch ref of
        // Probity's, gone again) and found merged already; nothing moves.
        record("push again", &["push", "origin", "main"]);
        assert_eq!(log.len(), 12);
        let tree = |key: &str| started[key].as_str().unwrap().to_string();
        Life {
            steps: log,
            base: self.base.clone(),
            head: git_text(&self.f, &["rev-parse", "HEAD"]).trim().to_string(),
            lineage,
            base_tree: tree("base_tree"),
            candidate_tree: tree("candidate_tree"),
        }
    }
}

/// `publish`'s one ref: `refs/notes/probity`, new, at a commit.
fn assert_publish_wrote_only_the_notes_ref(f: &Fixture, refs: &RefChanges) {
    assert_eq!(
        refs.keys().collect::<Vec<_>>(),
        ["refs/notes/probity"],
        "publish changed {refs:?}"
    );
    let (was, is) = &refs["refs/notes/probity"];
    assert_eq!(was, &None, "the notes ref was new");
    let is = is.as_deref().unwrap();
    assert_eq!(git_text(f, &["cat-file", "-t", is]).trim(), "commit");
}

/// `push`'s one local ref: the remote-tracking ref of the branch pushed,
/// from the base to the reviewed commit. On the remote: the branch and the
/// notes, and no other ref: the review's trees travel inside the notes
/// history (issue 21 §4).
fn assert_push_moved_only_the_tracking_ref(r: &Review, life: &Life, refs: &RefChanges) {
    let expected: RefChanges = [(
        "refs/remotes/origin/main".to_string(),
        (Some(life.base.clone()), Some(life.head.clone())),
    )]
    .into_iter()
    .collect();
    assert_eq!(refs, &expected, "push");
    let remote = r.remote.to_str().unwrap();
    let at_remote = git_text(
        &r.f,
        &[
            "--git-dir",
            remote,
            "for-each-ref",
            "--format=%(refname) %(objectname)",
        ],
    );
    let notes = git_text(&r.f, &["rev-parse", "refs/notes/probity"]);
    let l = &life.lineage;
    let mut expected = vec![
        format!("refs/heads/main {}", life.head),
        format!("refs/notes/probity {}", notes.trim()),
    ];
    expected.sort();
    assert_eq!(at_remote.lines().collect::<Vec<_>>(), expected, "{l}");
    for tree in [&life.base_tree, &life.candidate_tree] {
        let kept = git_text(
            &r.f,
            &["--git-dir", remote, "cat-file", "-t", tree.as_str()],
        );
        assert_eq!(kept.trim(), "tree", "{tree} travelled with the notes");
    }
}

#[test]
fn without_keep_trees_only_publish_writes_a_ref_and_only_the_notes_ref() {
    let r = Review::new(false);
    let life = r.life();
    assert!(life.lineage.starts_with("review-"), "{}", life.lineage);
    for (step, refs) in &life.steps {
        match step.as_str() {
            "publish" => assert_publish_wrote_only_the_notes_ref(&r.f, refs),
            "push" => assert_push_moved_only_the_tracking_ref(&r, &life, refs),
            _ => assert!(refs.is_empty(), "{step} changed refs: {refs:?}"),
        }
    }
    let probity_refs = git_text(&r.f, &["for-each-ref", "refs/probity/"]);
    assert_eq!(probity_refs, "", "no keepTrees, no refs/probity/");
}

#[test]
fn with_keep_trees_start_adds_its_trees_under_refs_probity_and_nothing_else() {
    let r = Review::new(true);
    let life = r.life();
    let Life {
        lineage,
        base_tree,
        candidate_tree,
        ..
    } = &life;
    for (step, refs) in &life.steps {
        match step.as_str() {
            "start" => {
                let expected: RefChanges = [
                    (format!("refs/probity/{lineage}/base"), base_tree.clone()),
                    (
                        format!("refs/probity/{lineage}/candidate"),
                        candidate_tree.clone(),
                    ),
                ]
                .into_iter()
                .map(|(name, tree)| (name, (None, Some(tree))))
                .collect();
                assert_eq!(refs, &expected, "start");
                for tree in [base_tree, candidate_tree] {
                    assert_eq!(git_text(&r.f, &["cat-file", "-t", tree]).trim(), "tree");
                }
            }
            "publish" => assert_publish_wrote_only_the_notes_ref(&r.f, refs),
            "push" => assert_push_moved_only_the_tracking_ref(&r, &life, refs),
            _ => assert!(refs.is_empty(), "{step} changed refs: {refs:?}"),
        }
    }
    // What stays: the two kept trees, and the notes.
    let all = git_text(
        &r.f,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/probity/",
            "refs/notes/",
        ],
    );
    assert_eq!(
        all.lines().collect::<Vec<_>>(),
        [
            "refs/notes/probity".to_string(),
            format!("refs/probity/{lineage}/base"),
            format!("refs/probity/{lineage}/candidate"),
        ]
    );
}
