//! Tests of `worktree.rs` against git: every answer the in-process reader
//! gives is git's `add -A && write-tree` on a stand-in index, and what it
//! is not sure of it leaves to git.

use super::*;
use crate::fixture::Fixture;

/// git's candidate tree for the fixture (the stand-in path, never the
/// in-process one).
fn gits(f: &Fixture) -> String {
    let repo = f.repo().unwrap();
    let index = repo.git_dir().join("index");
    repo.index_tree_by_git(&index, true, None)
        .unwrap()
        .as_str()
        .to_string()
}

/// The in-process answer, checked against git's: equal when given;
/// given at all when `handled`.
fn check(f: &Fixture, handled: bool, what: &str) -> Option<String> {
    let ours = candidate_tree(&repo(f));
    let git = gits(f);
    match &ours {
        Some(id) => assert_eq!(id, &git, "{what}: another tree than git's"),
        None => assert!(!handled, "{what}: left to git"),
    }
    ours
}

/// The fixture's repository, its object format known (as discovery
/// knows it for a gate).
pub(super) fn repo(f: &Fixture) -> Repo {
    let repo = f.repo().unwrap();
    repo.object_format().unwrap();
    repo
}

/// A committed fixture with files, an executable, a link and names that
/// sort around `/`.
pub(super) fn base() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write_all(&[
        ("a.txt", "a\n"),
        ("a-b.txt", "ab\n"),
        ("a0", "0\n"),
        ("a/b/c.rs", "c\n"),
        ("a/b.d/e", "e\n"),
        ("z/y/x/w.txt", "w\n"),
        ("tool.sh", "echo\n"),
    ])
    .unwrap();
    f.set_mode("tool.sh", 0o755).unwrap();
    std::os::unix::fs::symlink("a.txt", f.root().join("link")).unwrap();
    f.commit_all("base").unwrap();
    f
}

#[test]
fn a_clean_and_a_changed_work_tree_are_gits() {
    let f = base();
    check(&f, true, "clean");
    f.write("a.txt", "changed\n").unwrap();
    f.write("a/b/new.rs", "n\n").unwrap();
    f.write("new/deep/er.txt", "d\n").unwrap();
    f.remove("a0").unwrap();
    std::fs::remove_dir_all(f.root().join("z")).unwrap();
    check(&f, true, "edited, added, removed");
    f.set_mode("tool.sh", 0o644).unwrap();
    f.set_mode("a-b.txt", 0o755).unwrap();
    check(&f, true, "modes");
    f.remove("link").unwrap();
    std::os::unix::fs::symlink("a-b.txt", f.root().join("link")).unwrap();
    std::os::unix::fs::symlink("nowhere", f.root().join("a/b/dangling")).unwrap();
    f.remove("a-b.txt").unwrap();
    std::os::unix::fs::symlink("a.txt", f.root().join("a-b.txt")).unwrap();
    check(&f, true, "links");
    f.remove("link").unwrap();
    f.write("link", "a file now\n").unwrap();
    check(&f, true, "a link become a file");
    // Staged and unstaged changes together, an empty directory, a file
    // staged then removed.
    f.git(&["add", "a.txt", "new"]).unwrap();
    f.write("a.txt", "changed again\n").unwrap();
    std::fs::create_dir_all(f.root().join("empty/dir")).unwrap();
    f.write("staged.txt", "s\n").unwrap();
    f.git(&["add", "staged.txt"]).unwrap();
    f.remove("staged.txt").unwrap();
    check(&f, true, "staged, unstaged, empty");
}

#[test]
fn names_sort_as_git_sorts_them() {
    let f = Fixture::new().unwrap();
    let dirs = ["a", "a-b", "a.b", "a0", "ab", "b", "b/c", "b/c/d", "bb"];
    for d in dirs {
        f.write(&format!("{d}/f.txt"), d).unwrap();
    }
    f.write("a.b.txt", "x").unwrap();
    f.commit_all("base").unwrap();
    for (i, d) in dirs.iter().enumerate() {
        f.write(&format!("{d}/g{i}.txt"), "g").unwrap();
        f.write(&format!("{d}-{i}"), "h").unwrap();
        check(&f, true, d);
    }
}

#[test]
fn ignore_rules_are_gits() {
    let f = base();
    f.write(
        ".gitignore",
        "# build output\ntarget/\n*.log\n/top.txt\ndocs/*.md\nbuild\nonly-dir/  \n",
    )
    .unwrap();
    f.write("a/.gitignore", "local.txt\n/anchored\n").unwrap();
    f.commit_all("ignores").unwrap();
    for p in [
        "target/debug/x",
        "x.log",
        "a/b/deep.log",
        "top.txt",
        "docs/readme.md",
        "build/out",
        "a/build",
        "a/local.txt",
        "a/b/local.txt",
        "a/anchored",
        "only-dir/f",
    ] {
        f.write(p, "ignored\n").unwrap();
    }
    for p in [
        "a/top.txt",
        "docs/sub/readme.md",
        "a/b/anchored",
        "z/only-dir",
        "x.logs",
        "local.txt",
    ] {
        f.write(p, "not ignored\n").unwrap();
    }
    check(&f, true, "ignored and not");
    // A tracked file under an ignored directory stays tracked; an
    // untracked one beside it is ignored.
    f.write("target/keep.txt", "k\n").unwrap();
    f.git(&["add", "-f", "target/keep.txt"]).unwrap();
    f.write("target/keep.txt", "k2\n").unwrap();
    f.write("target/other.txt", "o\n").unwrap();
    check(&f, true, "tracked under an ignored directory");
    // The rules of a removed ignore file no longer apply.
    f.remove("a/.gitignore").unwrap();
    check(&f, true, "an ignore file removed");
    std::fs::write(f.root().join(".git/info/exclude"), "*.md\n").unwrap();
    check(&f, true, "info/exclude");
}

#[test]
fn racily_clean_entries_are_read() {
    let f = base();
    // The entry's mtime at the index's: git looks at the contents.
    f.write("a.txt", "A\n").unwrap();
    let index = f.root().join(".git/index");
    let when = std::fs::metadata(f.root().join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    f.git(&["update-index", "a.txt"]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&index)
        .unwrap()
        .set_modified(when)
        .unwrap();
    f.write("a.txt", "B\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(f.root().join("a.txt"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    check(&f, true, "racily clean");
}

#[test]
fn a_rewrite_with_the_old_size_and_time_is_left_to_git() {
    let f = base();
    let path = f.root().join("a.txt");
    let when = std::fs::metadata(&path).unwrap().modified().unwrap();
    // The index written well after the file: its entry is clean.
    let later = when + std::time::Duration::from_secs(5);
    f.git(&["update-index", "--refresh"]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(f.root().join(".git/index"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    check(&f, true, "clean entry");
    f.write("a.txt", "X\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    assert_eq!(check(&f, false, "same size and mtime"), None);
}

#[test]
fn what_git_alone_knows_is_left_to_it() {
    type Setup = fn(&Fixture);
    let cases: [(&str, Setup); 17] = [
        ("negation", |f| {
            f.write(".gitignore", "*.log\n!keep.log\n")
                .map(drop)
                .unwrap()
        }),
        ("bracket", |f| {
            f.write(".gitignore", "[ab].txt\n").map(drop).unwrap()
        }),
        ("attributes", |f| {
            f.write(".gitattributes", "*.txt text\n").map(drop).unwrap()
        }),
        ("attributes below", |f| {
            f.write("a/b/.gitattributes", "*.rs -text\n")
                .map(drop)
                .unwrap()
        }),
        ("info/attributes", |f| {
            std::fs::create_dir_all(f.root().join(".git/info")).unwrap();
            std::fs::write(f.root().join(".git/info/attributes"), "*.txt eol=crlf\n").unwrap();
        }),
        ("nested repository", |f| {
            f.write("inner/x.txt", "x").unwrap();
            f.git_in(&f.root().join("inner"), &["init", "-q"])
                .map(drop)
                .unwrap();
        }),
        ("autocrlf", |f| {
            f.git(&["config", "core.autocrlf", "true"])
                .map(drop)
                .unwrap()
        }),
        ("ignorecase", |f| {
            f.git(&["config", "core.ignorecase", "true"])
                .map(drop)
                .unwrap()
        }),
        ("unknown core key", |f| {
            f.git(&["config", "core.newthing", "1"]).map(drop).unwrap()
        }),
        ("non-ASCII untracked name", |f| {
            f.write("caf\u{e9}.txt", "c").map(drop).unwrap()
        }),
        ("a file become a directory", |f| {
            f.remove("a0").unwrap();
            f.write("a0/inside", "i").map(drop).unwrap();
        }),
        ("assume unchanged", |f| {
            f.git(&["update-index", "--assume-unchanged", "a.txt"])
                .map(drop)
                .unwrap()
        }),
        ("skip worktree", |f| {
            f.git(&["update-index", "--skip-worktree", "a.txt"])
                .map(drop)
                .unwrap()
        }),
        ("an untracked file over 64 MiB", |f| {
            // Sparse: its length is what counts.
            let file = std::fs::File::create(f.root().join("big.bin")).unwrap();
            file.set_len((64 << 20) + 1).unwrap();
        }),
        ("a tracked file become a socket", |f| {
            f.remove("a0").unwrap();
            std::os::unix::net::UnixListener::bind(f.root().join("a0"))
                .map(drop)
                .unwrap();
        }),
        ("info/exclude a directory", |f| {
            let exclude = f.root().join(".git/info/exclude");
            let _ = std::fs::remove_file(&exclude);
            std::fs::create_dir_all(exclude).unwrap();
        }),
        ("socket", |f| {
            std::os::unix::net::UnixListener::bind(f.root().join("sock"))
                .map(drop)
                .unwrap();
        }),
    ];
    for (what, setup) in cases {
        let f = base();
        check(&f, true, &format!("{what}, before"));
        setup(&f);
        assert_eq!(candidate_tree(&repo(&f)), None, "{what}");
    }
}

#[test]
fn sha256_repositories_are_read_too() {
    let f = Fixture::new().unwrap();
    std::fs::remove_dir_all(f.root().join(".git")).unwrap();
    f.git(&["init", "-q", "-b", "main", "--object-format=sha256"])
        .unwrap();
    f.write_all(&[("a.txt", "a"), ("d/b.txt", "b")]).unwrap();
    f.commit_all("base").unwrap();
    f.write("d/b.txt", "bb").unwrap();
    f.write("d/c.txt", "c").unwrap();
    check(&f, true, "sha256");
}

/// Random edits (fixed seed), each state checked: every answer given is
/// git's, and most states are answered.
#[test]
fn random_work_trees_are_gits() {
    let f = base();
    f.write(".gitignore", "*.tmp\nout/\n").unwrap();
    f.commit_all("ignores").unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let paths = [
        "a.txt",
        "a-b.txt",
        "a0",
        "a/b/c.rs",
        "a/b.d/e",
        "a/x.tmp",
        "out/o",
        "n/m.txt",
        "n-1",
        "z/y/x/w.txt",
        "z/out",
        "tool.sh",
        "link",
        "q.tmp/inner",
    ];
    let mut answered = 0;
    for round in 0..80 {
        for _ in 0..1 + next(4) {
            let p = paths[next(paths.len() as u64) as usize];
            let full = f.root().join(p);
            match next(8) {
                0 | 1 => {
                    if std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
                        continue;
                    }
                    let _ = std::fs::remove_file(&full);
                    let _ = f.write(p, format!("{round}\n"));
                }
                2 => {
                    let _ = std::fs::remove_file(&full);
                }
                3 => {
                    let _ = f.set_mode(p, if next(2) == 0 { 0o755 } else { 0o644 });
                }
                4 => {
                    if std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
                        continue;
                    }
                    let _ = std::fs::remove_file(&full);
                    if let Some(d) = full.parent() {
                        let _ = std::fs::create_dir_all(d);
                    }
                    let _ = std::os::unix::fs::symlink(format!("t{round}"), &full);
                }
                5 => {
                    let _ = f.git(&["add", "-A", "--", p]);
                }
                6 => {
                    // An ignore rule, at the top or in a directory.
                    let rules = [
                        "*.txt", "x*", "/a0", "b/", "c.rs", "y/x", "?.tmp", "n-?", "z",
                    ];
                    let dirs = ["", "a/", "z/y/", "n/"];
                    let d = dirs[next(dirs.len() as u64) as usize];
                    let rule = rules[next(rules.len() as u64) as usize];
                    let _ = f.write(&format!("{d}.gitignore"), format!("{rule}\n"));
                }
                _ => {
                    if next(3) == 0 {
                        f.commit_all(&format!("r{round}")).unwrap();
                    }
                }
            }
        }
        if check(&f, false, &format!("round {round}")).is_some() {
            answered += 1;
        }
    }
    assert!(
        answered >= 70,
        "only {answered} of 80 states answered in-process"
    );
}

#[test]
fn settings_are_read_only_when_known() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let local = dir.path().join("config");
    let src = crate::config::Sources {
        system_candidates: vec![dir.path().join("no-system")],
        global: Some(vec![
            home.join(".config/git/config"),
            home.join(".gitconfig"),
        ]),
        local: local.clone(),
        env_config: false,
    };
    let run = |text: &str| {
        std::fs::write(&local, text).unwrap();
        let settings = crate::config::core_settings(&src)?;
        core_check(&settings, &src)
    };
    assert_eq!(run(""), Some(Some(home.join(".config/git/ignore"))));
    assert_eq!(
        run("[core]\n\tfilemode = true\n\texcludesfile = ~/ig\n"),
        Some(Some(home.join("ig")))
    );
    assert_eq!(
        run("[core]\n\texcludesFile = /abs/ig\n\tautocrlf = false\n"),
        Some(Some(PathBuf::from("/abs/ig")))
    );
    for text in [
        "[core]\n\tfilemode = false\n",
        "[core]\n\tsymlinks = false\n",
        "[core]\n\tautocrlf = input\n",
        "[core]\n\teol = crlf\n",
        "[core]\n\tattributesFile = /x\n",
        "[core]\n\tworktree = /x\n",
        "[core]\n\texcludesfile = relative\n",
        "[core]\n\tignorecase = 2\n",
        "[include]\n\tpath = other\n",
    ] {
        assert_eq!(run(text), None, "{text}");
    }
    // The environment's configuration: git's to read.
    let env = crate::config::Sources {
        env_config: true,
        ..src.clone()
    };
    assert_eq!(crate::config::core_settings(&env), None);
}
