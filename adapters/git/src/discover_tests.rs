//! In-process discovery against git's own answers, on real repositories.

use std::path::{Path, PathBuf};

use super::*;
use crate::fixture::Fixture;

/// What `git rev-parse` answers in `cwd`: root, git dir, common dir,
/// object format.
fn git_says(f: &Fixture, cwd: &Path) -> Found {
    let out = f
        .git_in(
            cwd,
            &[
                "rev-parse",
                "--path-format=absolute",
                "--show-toplevel",
                "--git-dir",
                "--git-common-dir",
                "--show-object-format",
            ],
        )
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    Found {
        root: PathBuf::from(lines[0]),
        git_dir: PathBuf::from(lines[1]),
        common_dir: PathBuf::from(lines[2]),
        object_format: match lines[3] {
            "sha1" => "sha1",
            "sha256" => "sha256",
            other => panic!("{other}"),
        },
    }
}

fn git_tree(f: &Fixture, cwd: &Path, rev: &str) -> String {
    let out = f
        .git_in(cwd, &["rev-parse", &format!("{rev}^{{tree}}")])
        .unwrap();
    String::from_utf8(out).unwrap().trim().to_string()
}

fn git_head(f: &Fixture, cwd: &Path) -> String {
    let out = f.git_in(cwd, &["rev-parse", "HEAD"]).unwrap();
    String::from_utf8(out).unwrap().trim().to_string()
}

/// `find` answers in `cwd` exactly what git does, and HEAD's tree read
/// in-process is git's.
fn agrees(f: &Fixture, cwd: &Path) -> Found {
    let found = find(cwd).unwrap_or_else(|| panic!("no in-process answer in {}", cwd.display()));
    assert_eq!(found, git_says(f, cwd), "in {}", cwd.display());
    let head = git_head(f, cwd);
    let tree = commit_tree(&found.common_dir, found.object_format, &head)
        .unwrap_or_else(|| panic!("HEAD's tree not read in {}", cwd.display()));
    assert_eq!(tree.to_string(), git_tree(f, cwd, "HEAD"));
    found
}

fn committed() -> Fixture {
    Fixture::committed(&[("a.txt", "a\n"), ("src/lib/b.rs", "b\n")], "one").unwrap()
}

#[test]
fn a_repository_is_found_from_its_root_a_subdirectory_and_a_symlinked_path() {
    let f = committed();
    agrees(&f, f.root());
    agrees(&f, &f.root().join("src/lib"));
    let link_dir = tempfile::tempdir().unwrap();
    let link = link_dir.path().join("via");
    std::os::unix::fs::symlink(f.root().join("src"), &link).unwrap();
    agrees(&f, &link);
    // A directory git ignores or does not track is in the work tree too.
    std::fs::create_dir_all(f.root().join("untracked/deep")).unwrap();
    agrees(&f, &f.root().join("untracked/deep"));
}

#[test]
fn a_linked_worktree_a_separate_git_dir_and_a_submodule_are_found_as_git_finds_them() {
    let f = committed();
    let wt = f.root().join("wt");
    f.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()])
        .unwrap();
    std::fs::write(wt.join("c.txt"), "c\n").unwrap();
    f.git_in(&wt, &["add", "c.txt"]).unwrap();
    f.git_in(&wt, &["commit", "-q", "-m", "side"]).unwrap();
    let linked = agrees(&f, &wt.join("src"));
    assert_ne!(linked.git_dir, linked.common_dir);
    assert_ne!(
        git_tree(&f, &wt, "HEAD"),
        git_tree(&f, f.root(), "HEAD"),
        "each worktree's own HEAD"
    );

    let outer = tempfile::tempdir().unwrap();
    let work = outer.path().join("work");
    let store = outer.path().join("store.git");
    f.git_in(
        outer.path(),
        &[
            "init",
            "-q",
            "--separate-git-dir",
            store.to_str().unwrap(),
            work.to_str().unwrap(),
        ],
    )
    .unwrap();
    std::fs::write(work.join("x"), "x\n").unwrap();
    f.git_in(&work, &["add", "x"]).unwrap();
    f.git_in(&work, &["commit", "-q", "-m", "x"]).unwrap();
    let separate = agrees(&f, &work);
    assert_eq!(separate.git_dir, std::fs::canonicalize(&store).unwrap());

    f.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        work.to_str().unwrap(),
        "mods/sub",
    ])
    .unwrap();
    // A submodule's `core.worktree` names its own directory.
    let sub = agrees(&f, &f.root().join("mods/sub"));
    assert!(sub.git_dir.ends_with(".git/modules/mods/sub"), "{sub:?}");
    f.git(&["config", "core.worktree", f.root().to_str().unwrap()])
        .unwrap();
    agrees(&f, &f.root().join("src"));
}

#[test]
fn a_sha256_repository_a_detached_head_and_a_packed_history_are_read_as_git_reads_them() {
    let f = Fixture::new().unwrap();
    let dir = f.sha256_repo("s256").unwrap();
    std::fs::write(dir.join("x"), "x\n").unwrap();
    f.git_in(&dir, &["add", "x"]).unwrap();
    f.git_in(&dir, &["commit", "-q", "-m", "x"]).unwrap();
    assert_eq!(agrees(&f, &dir).object_format, "sha256");
    f.git_in(&dir, &["gc", "-q"]).unwrap();
    agrees(&f, &dir);

    let f = committed();
    let first = git_head(&f, f.root());
    f.write("a.txt", "a2\n").unwrap();
    f.commit_all("two").unwrap();
    f.git(&["checkout", "-q", "--detach", &first]).unwrap();
    agrees(&f, f.root());
    f.git(&["checkout", "-q", "main"]).unwrap();

    // Thirty commits packed with deltas allowed: every commit the reader
    // answers for is answered as git does, the whole-stored ones at least.
    for i in 0..30 {
        f.write("a.txt", format!("{}\n", "line\n".repeat(i)))
            .unwrap();
        f.commit_all(&format!("commit {i} with a message long enough to delta"))
            .unwrap();
    }
    f.git(&[
        "repack",
        "-q",
        "-a",
        "-d",
        "-f",
        "--window=250",
        "--depth=50",
    ])
    .unwrap();
    f.git(&["prune-packed"]).unwrap();
    let found = agrees(&f, f.root());
    let all = String::from_utf8(f.git(&["rev-list", "HEAD"]).unwrap()).unwrap();
    let mut answered = 0;
    for c in all.lines() {
        if let Some(tree) = commit_tree(&found.common_dir, "sha1", c) {
            assert_eq!(tree.to_string(), git_tree(&f, f.root(), c));
            answered += 1;
        }
    }
    assert!(answered > 0);
    // HEAD's commit is in the pack alone: `agrees` above read it there.
    let head = git_head(&f, f.root());
    assert!(
        !f.root()
            .join(".git/objects")
            .join(&head[..2])
            .join(&head[2..])
            .exists()
    );
}

#[test]
fn an_unborn_head_is_found_without_a_tree() {
    let f = Fixture::new().unwrap();
    let found = find(f.root()).unwrap();
    assert_eq!(found, git_says(&f, f.root()));
    let repo = crate::Repo::discover_reading_head(crate::GitCli::default(), f.root()).unwrap();
    assert_eq!(repo.exact_commit("HEAD").unwrap(), None);
    let (tree, unborn) = repo.base_tree().unwrap();
    assert!(unborn);
    assert_eq!(
        tree.to_string(),
        crate::objects::empty_tree_of("sha1").unwrap()
    );
}

/// Makes a layout in a fixture; the directory to discover from.
type SetUp = Box<dyn Fn(&Fixture) -> PathBuf>;

/// Each layout git must be asked about: `find` gives up, and
/// [`crate::Repo::discover_reading_head`] still answers what git does.
#[test]
fn what_only_git_can_answer_is_left_to_git() {
    let cases: Vec<(&str, SetUp)> = vec![
        (
            "core.worktree naming another directory",
            Box::new(|f: &Fixture| {
                let elsewhere = f.root().join("src");
                f.git(&["config", "core.worktree", elsewhere.to_str().unwrap()])
                    .unwrap();
                f.root().join("src/lib")
            }),
        ),
        (
            "include",
            Box::new(|f: &Fixture| {
                f.git(&["config", "include.path", "/dev/null"]).unwrap();
                f.root().to_path_buf()
            }),
        ),
        (
            "worktree configuration",
            Box::new(|f: &Fixture| {
                f.git(&["config", "core.repositoryformatversion", "1"])
                    .unwrap();
                f.git(&["config", "extensions.worktreeConfig", "true"])
                    .unwrap();
                f.root().to_path_buf()
            }),
        ),
        (
            "a symbolic link at .git",
            Box::new(|f: &Fixture| {
                let moved = f.root().join("real-git");
                std::fs::rename(f.root().join(".git"), &moved).unwrap();
                std::os::unix::fs::symlink(&moved, f.root().join(".git")).unwrap();
                f.root().join("src")
            }),
        ),
        (
            "a bare repository",
            Box::new(|f: &Fixture| {
                let bare = f.root().join("bare.git");
                f.git(&["init", "-q", "--bare", bare.to_str().unwrap()])
                    .unwrap();
                bare
            }),
        ),
    ];
    for (what, set_up) in cases {
        let f = committed();
        let cwd = set_up(&f);
        assert_eq!(find(&cwd), None, "{what}");
    }
    let outside = tempfile::tempdir().unwrap();
    assert_eq!(find(outside.path()), None, "outside any repository");
    assert_eq!(find(&outside.path().join("missing")), None, "no directory");

    // Git still answers through the fallback.
    let f = committed();
    f.git(&["config", "include.path", "/dev/null"]).unwrap();
    let repo = crate::Repo::discover_reading_head(crate::GitCli::default(), f.root()).unwrap();
    let git = git_says(&f, f.root());
    assert_eq!(repo.root(), git.root);
    assert_eq!(
        repo.base_tree().unwrap().0.to_string(),
        git_tree(&f, f.root(), "HEAD")
    );
}

/// An object store with alternates, or a commit a pack holds as a delta or
/// a corrupt loose object, leaves HEAD's tree to git.
#[test]
fn heads_tree_is_left_to_git_when_the_reader_is_not_sure() {
    let f = committed();
    let found = find(f.root()).unwrap();
    let head = git_head(&f, f.root());
    let alternates = found.common_dir.join("objects/info/alternates");
    std::fs::create_dir_all(alternates.parent().unwrap()).unwrap();
    std::fs::write(&alternates, "/nonexistent\n").unwrap();
    assert_eq!(commit_tree(&found.common_dir, "sha1", &head), None);
    std::fs::remove_file(&alternates).unwrap();
    assert!(commit_tree(&found.common_dir, "sha1", &head).is_some());

    let loose = found
        .common_dir
        .join("objects")
        .join(&head[..2])
        .join(&head[2..]);
    let mut perms = std::fs::metadata(&loose).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&loose, perms).unwrap();
    std::fs::write(&loose, b"not zlib").unwrap();
    assert_eq!(commit_tree(&found.common_dir, "sha1", &head), None);
    // A wrong-length or non-hex id is no object.
    assert_eq!(commit_tree(&found.common_dir, "sha1", "abc"), None);
    assert_eq!(commit_tree(&found.common_dir, "sha256", &head), None);
}

/// Through the repository: the pre-commit gate's discovery answers as git
/// does, with HEAD's tree preloaded.
#[test]
fn discovery_reading_head_in_process_is_discovery_by_git() {
    let f = committed();
    let cwd = f.root().join("src");
    let fast = crate::Repo::discover_reading_head(crate::GitCli::default(), &cwd).unwrap();
    let slow = crate::Repo::discover(crate::GitCli::default(), &cwd).unwrap();
    assert_eq!(fast.root(), slow.root());
    assert_eq!(fast.git_dir(), slow.git_dir());
    assert_eq!(fast.common_dir(), slow.common_dir());
    assert_eq!(fast.object_format().unwrap(), "sha1");
    assert_eq!(
        fast.shared().take_head_tree().map(|t| t.to_string()),
        Some(git_tree(&f, f.root(), "HEAD"))
    );
}

#[test]
fn presence_is_git_cat_file_e_for_loose_packed_and_missing_objects() {
    let f = committed();
    f.write("later.txt", "written after the pack\n").unwrap();
    let git_dir = f.root().join(".git");
    let ask = |rev: &str| {
        let id = String::from_utf8(f.git(&["rev-parse", rev]).unwrap()).unwrap();
        hex_bytes(id.trim()).unwrap()
    };
    let said = |raw: &[u8]| {
        let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
        f.git(&["cat-file", "-e", &hex]).is_ok()
    };
    let head_tree = ask("HEAD^{tree}");
    let missing = vec![0x5au8; 20];
    // Loose, then packed (the loose copies pruned), then a new loose one.
    for stage in ["loose", "packed"] {
        let p = Presence::of(&git_dir, 20).unwrap();
        for raw in [&head_tree, &ask("HEAD"), &missing] {
            assert_eq!(p.has(raw), Some(said(raw)), "{stage}");
        }
        f.git(&["gc", "-q", "--prune=now"]).unwrap();
    }
    assert!(
        f.root()
            .join(".git/objects/pack")
            .read_dir()
            .unwrap()
            .count()
            > 0
    );
    let blob = String::from_utf8(f.git(&["hash-object", "-w", "later.txt"]).unwrap()).unwrap();
    let blob = hex_bytes(blob.trim()).unwrap();
    let p = Presence::of(&git_dir, 20).unwrap();
    assert_eq!(p.has(&blob), Some(true));
    assert_eq!(p.has(&head_tree), Some(true));
    assert_eq!(p.has(&missing), Some(false));
    assert_eq!(p.has(&[0u8; 32]), None, "another hash's length");
    // An alternate store: not this reader's to answer.
    std::fs::write(git_dir.join("objects/info/alternates"), "/nowhere\n").unwrap();
    assert!(Presence::of(&git_dir, 20).is_none());
}
