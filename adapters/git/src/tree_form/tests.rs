use super::*;
use probity_core::review::TreeId;

fn tree(list: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (mode, name) in list {
        out.extend_from_slice(mode.as_bytes());
        out.push(b' ');
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(&[7u8; 20]);
    }
    out
}

#[test]
fn entries_are_read_as_git_writes_them() {
    let bytes = tree(&[("100644", "a"), ("40000", "d"), ("160000", "m")]);
    let list = entries(&bytes, 20).unwrap();
    let named: Vec<(bool, &[u8])> = list.iter().map(|e| (e.is_dir(), e.name)).collect();
    assert_eq!(
        named,
        vec![(false, &b"a"[..]), (true, &b"d"[..]), (false, &b"m"[..])]
    );
    assert_eq!(list[0].mode, 0o100644);
    assert!(list.iter().all(|e| e.id == [7u8; 20]));
}

#[test]
fn bytes_that_are_no_tree_are_refused() {
    let mut cut = tree(&[("100644", "a")]);
    cut.pop();
    assert!(entries(&cut, 20).is_err());
    assert!(entries(b"100644 a", 20).is_err());
    assert!(entries(b"10064x a\0", 20).is_err());
    assert!(entries(b" a\0", 20).is_err());
}

/// A tree written as given, as anyone with git can.
fn literal_tree(f: &crate::fixture::Fixture, list: &[(&str, &str, &str)]) -> String {
    let mut bytes = Vec::new();
    for (mode, name, id) in list {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        bytes.extend_from_slice(&crate::loose::raw_id(crate::loose::Format::Sha1, id).unwrap());
    }
    let path = f.root().join("tree.bin");
    std::fs::write(&path, bytes).unwrap();
    let out = f
        .git(&["hash-object", "-t", "tree", "-w", "--literally", "tree.bin"])
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    String::from_utf8(out).unwrap().trim().to_string()
}

fn id(f: &crate::fixture::Fixture, spec: &str) -> String {
    let out = f.git(&["rev-parse", spec]).unwrap();
    String::from_utf8(out).unwrap().trim().to_string()
}

fn problem_of(e: GitError) -> TreeMalformed {
    match e {
        GitError::TreeMalformed(m) => m,
        other => panic!("not a malformed tree: {other}"),
    }
}

/// On a real repository: a changed directory holding a duplicate is
/// refused with its path, an unchanged one is never read, a tree out
/// of order is refused, and the lookups through a malformed tree fail
/// where git's answer would have been none.
#[test]
fn the_trees_a_candidate_brings_and_a_lookup_passes_are_checked() {
    let f = crate::fixture::Fixture::new().unwrap();
    f.write("src/a.rs", "a\n").unwrap();
    f.write("docs/guide.md", "g\n").unwrap();
    f.write(".probity/policy.json", "{}\n").unwrap();
    f.commit_all("base").unwrap();
    let repo = f.repo().unwrap();
    let base = id(&f, "HEAD^{tree}");
    let blob = id(&f, "HEAD:src/a.rs");
    let (src, docs, dot) = (
        id(&f, "HEAD:src"),
        id(&f, "HEAD:docs"),
        id(&f, "HEAD:.probity"),
    );
    // `src/` with `a.rs` twice: found at `src`, the changed directory.
    let dup_src = literal_tree(&f, &[("100644", "a.rs", &blob), ("100644", "a.rs", &blob)]);
    let root = |src: &str| {
        literal_tree(
            &f,
            &[
                ("40000", ".probity", &dot),
                ("40000", "docs", &docs),
                ("40000", "src", src),
            ],
        )
    };
    let bad = root(&dup_src);
    let m = problem_of(repo.check_candidate_trees(&base, &bad).unwrap_err());
    assert_eq!(
        (m.path.as_str(), m.tree.as_str()),
        ("src", dup_src.as_str())
    );
    assert!(
        m.problem.contains("two entries named `a.rs`"),
        "{}",
        m.problem
    );
    // The same candidate as a diff: refused before git diffs it.
    let (from, to) = (TreeId::parse(&base).unwrap(), TreeId::parse(&bad).unwrap());
    let r = repo.diff_files(&from, &to);
    assert!(matches!(r, Err(GitError::TreeMalformed(_))), "{r:?}");
    // A well-formed candidate passes; the base against itself reads nothing.
    repo.check_candidate_trees(&base, &root(&src)).unwrap();
    repo.check_candidate_trees(&bad, &bad).unwrap();
    // The root out of order.
    let unsorted = literal_tree(
        &f,
        &[
            ("40000", "src", &src),
            ("40000", ".probity", &dot),
            ("40000", "docs", &docs),
        ],
    );
    let m = problem_of(repo.check_candidate_trees(&base, &unsorted).unwrap_err());
    assert_eq!(m.path, "/");
    assert!(
        m.problem.contains("`.probity` listed after `src`"),
        "{}",
        m.problem
    );
    // A blob `.probity` before its directory: git's lookup answers
    // nothing; ours refuses.
    let hidden = literal_tree(
        &f,
        &[
            ("100644", ".probity", &blob),
            ("40000", ".probity", &dot),
            ("40000", "docs", &docs),
            ("40000", "src", &src),
        ],
    );
    assert!(
        f.git(&["cat-file", "-e", &format!("{hidden}:.probity/policy.json")])
            .is_err()
    );
    let m = problem_of(
        repo.read_path(&hidden, ".probity/policy.json", 64)
            .unwrap_err(),
    );
    assert!(
        m.problem.contains("two entries named `.probity`"),
        "{}",
        m.problem
    );
    // Well formed, the same lookups answer as git does.
    assert_eq!(
        repo.read_path(&base, ".probity/policy.json", 64)
            .unwrap()
            .as_deref(),
        Some(&b"{}\n"[..])
    );
    assert_eq!(repo.read_path(&base, "docs/none.md", 64).unwrap(), None);
    assert_eq!(repo.read_path(&base, "nowhere/x", 64).unwrap(), None);
}

/// On a real repository: a directory's files as a checkout shows it
/// (through a directory link), its subdirectories' too;
/// a file, an absent path and a link out of the tree are no
/// directory; more files than asked is unknown (D-R174).
#[test]
fn a_directory_is_listed_as_a_checkout_shows_it() {
    let f = crate::fixture::Fixture::new().unwrap();
    f.write("tools/hooks/a", "a\n").unwrap();
    f.write("tools/hooks/b.sh", "b\n").unwrap();
    f.write("tools/hooks/deep/c", "c\n").unwrap();
    std::os::unix::fs::symlink("tools/hooks", f.root().join("hooks")).unwrap();
    std::os::unix::fs::symlink("/etc", f.root().join("abs")).unwrap();
    f.commit_all("hooks").unwrap();
    let repo = f.repo().unwrap();
    let list = |path: &str, limit: usize| {
        repo.list_followed(&[("HEAD", path)], true, limit)
            .unwrap()
            .pop()
            .unwrap()
    };
    let files = |l: &[&str]| Listed::Files(l.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        list("tools/hooks", 8),
        files(&["tools/hooks/a", "tools/hooks/b.sh", "tools/hooks/deep/c"])
    );
    assert_eq!(
        list("hooks", 8),
        files(&["hooks/a", "hooks/b.sh", "hooks/deep/c"])
    );
    for none in ["tools/hooks/a", "nowhere", "abs"] {
        assert_eq!(list(none, 8), Listed::NotADirectory, "{none}");
    }
    assert_eq!(list("tools/hooks", 2), Listed::Unknown);
    // A directory's own files only.
    assert_eq!(
        repo.list_followed(&[("HEAD", "tools/hooks")], false, 2)
            .unwrap(),
        [files(&["tools/hooks/a", "tools/hooks/b.sh"])]
    );
    // Each read of the files listed answers as the directory showed.
    let read = repo
        .read_paths_followed(&[("HEAD", "hooks/a")], 64)
        .unwrap();
    assert_eq!(read, [Some(b"a\n".to_vec())]);
}

/// On a real repository: a listing by name counts only what it
/// matches, from the root or a directory (through a link), named from
/// the root; more matches than the limit are unknown.
#[test]
fn a_listing_by_name_counts_its_matches() {
    let f = crate::fixture::Fixture::new().unwrap();
    f.write("tools/lint_check.sh", "a\n").unwrap();
    f.write("tests/deep/cli_check.sh", "b\n").unwrap();
    for i in 0..40 {
        f.write(&format!("docs/page{i}.md"), "text\n").unwrap();
    }
    std::os::unix::fs::symlink("tests", f.root().join("t")).unwrap();
    f.commit_all("checks").unwrap();
    let repo = f.repo().unwrap();
    let list = |dir: &str, name: &str, limit: usize| {
        let m = Matching::new(dir, name).unwrap();
        repo.list_matching(&[("HEAD", &m)], limit)
            .unwrap()
            .pop()
            .unwrap()
    };
    let files = |l: &[&str]| Listed::Files(l.iter().map(|s| s.to_string()).collect());
    assert_eq!(
        list("", "*_CHECK.sh", 2),
        files(&["tests/deep/cli_check.sh", "tools/lint_check.sh"])
    );
    assert_eq!(list("t", "*_check.sh", 2), files(&["t/deep/cli_check.sh"]));
    assert_eq!(list("", "*_check.sh", 1), Listed::Unknown);
    assert_eq!(list("", "*.rs", 1), files(&[]));
    assert_eq!(list("nowhere", "*.sh", 1), Listed::NotADirectory);
    // Several listings of one directory, walked once, each answered as
    // if alone: one past the limit leaves the other whole.
    let checks = Matching::new("", "*_check.sh").unwrap();
    let pages = Matching::new("", "*.md").unwrap();
    let both = repo
        .list_matching(&[("HEAD", &checks), ("HEAD", &pages)], 2)
        .unwrap();
    assert_eq!(
        both,
        [
            files(&["tests/deep/cli_check.sh", "tools/lint_check.sh"]),
            Listed::Unknown
        ]
    );
}

/// A run keeps the trees it has read ([`crate::tree_memo`]): a listing
/// of a commit that shares all but one directory with one listed before
/// reads only that directory's trees, and answers as a fresh run does; a
/// malformed tree is never kept, and refused again.
#[test]
fn a_run_reads_each_tree_once() {
    let f = crate::fixture::Fixture::new().unwrap();
    for i in 0..20 {
        // Each directory's own content: no two trees alike.
        f.write(&format!("d{i}/sub/a_check.sh"), format!("{i}\n"))
            .unwrap();
    }
    f.commit_all("one").unwrap();
    f.write("d3/sub/b_check.sh", "b\n").unwrap();
    f.commit_all("two").unwrap();
    let repo = f.repo().unwrap();
    let m = Matching::new("", "*_check.sh").unwrap();
    let first = repo.list_matching(&[("HEAD~1", &m)], 64).unwrap();
    assert_eq!(first[0].files().len(), 20);
    // The root, each `d*` and each `d*/sub`.
    let kept = repo.kept_tree_count();
    assert_eq!(kept, 41);
    let second = repo.list_matching(&[("HEAD", &m)], 64).unwrap();
    // Only the new root, `d3` and `d3/sub` were read.
    assert_eq!(repo.kept_tree_count(), kept + 3);
    let fresh = f
        .repo()
        .unwrap()
        .list_matching(&[("HEAD", &m)], 64)
        .unwrap();
    assert_eq!(second, fresh);
    assert_eq!(second[0].files().len(), 21);
    // A name-only listing and one over whole paths in one walk, twice
    // (the second from the kept listings), as a fresh run answers.
    let path = Matching::new("", "d3/sub/*.sh").unwrap();
    let asks = [("HEAD", &m), ("HEAD", &path), ("HEAD~1", &path)];
    let once = repo.list_matching(&asks, 64).unwrap();
    let again = repo.list_matching(&asks, 64).unwrap();
    let fresh = f.repo().unwrap().list_matching(&asks, 64).unwrap();
    assert_eq!((&once, &again), (&fresh, &fresh));
    assert_eq!(fresh[1].files(), ["d3/sub/a_check.sh", "d3/sub/b_check.sh"]);
    assert_eq!(fresh[2].files(), ["d3/sub/a_check.sh"]);
    // A smaller limit over a kept listing.
    assert_eq!(
        repo.list_matching(&[("HEAD", &m)], 20).unwrap(),
        [Listed::Unknown]
    );
    // A tree with a duplicate entry below the root: refused each time.
    let blob = id(&f, "HEAD:d0/sub/a_check.sh");
    let dup = literal_tree(&f, &[("100644", "a.sh", &blob), ("100644", "a.sh", &blob)]);
    let root = literal_tree(&f, &[("40000", "bad", &dup)]);
    let before = repo.kept_tree_count();
    for _ in 0..2 {
        let e = repo.list_matching(&[(root.as_str(), &m)], 64).unwrap_err();
        assert_eq!(problem_of(e).path, "bad");
    }
    assert_eq!(repo.kept_tree_count(), before + 1, "the root only");
}

/// A listing reads at most [`Listed::MAX_TREES`] directories of a
/// tree, however few files it takes.
#[test]
fn a_listing_reads_a_bounded_number_of_directories() {
    let f = crate::fixture::Fixture::new().unwrap();
    for i in 0..Listed::MAX_TREES {
        f.write(&format!("d{i}/a.md"), "").unwrap();
    }
    f.commit_all("many directories").unwrap();
    let repo = f.repo().unwrap();
    let m = Matching::new("", "*_check.sh").unwrap();
    let listed = repo.list_matching(&[("HEAD", &m)], 8).unwrap();
    assert_eq!(listed, [Listed::Unknown]);
    // Below one of them, the walk is short.
    let m = Matching::new("d7", "*.md").unwrap();
    let listed = repo.list_matching(&[("HEAD", &m)], 8).unwrap();
    assert_eq!(listed, [Listed::Files(vec!["d7/a.md".to_string()])]);
}

/// On a real repository: a configuration read as a checkout shows
/// it, through a directory link and a file link; a link leaving the
/// tree, a loop and a dangling link read as absent.
#[test]
fn paths_are_read_through_the_trees_links() {
    let f = crate::fixture::Fixture::new().unwrap();
    f.write("editor/tasks.json", "{\"tasks\":[]}\n").unwrap();
    f.write("conf/envrc", "use nix\n").unwrap();
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(target, f.root().join(at)).unwrap();
    };
    link("editor", ".vscode");
    link("conf/envrc", ".envrc");
    link("/etc", "abs");
    link("../../x", "up");
    link("loop", "loop");
    link("missing", "dangling");
    // Red team round 14: out of the clone and back in by its name.
    let name = f.root().file_name().unwrap().to_str().unwrap().to_string();
    link(&format!("../{name}/editor"), "back");
    // Red team round 13: `..` after a link leaves the link's target.
    f.write("tools/deep/er/README", "r\n").unwrap();
    f.write("tools/deep/vscode/tasks.json", "deep\n").unwrap();
    f.write("tools/vscode/tasks.json", "decoy\n").unwrap();
    link("deep/er", "tools/cur");
    link("tools/cur/../vscode", "linked");
    f.commit_all("links").unwrap();
    let repo = f.repo().unwrap();
    let read = |path: &str| {
        repo.read_paths_followed(&[("HEAD", path)], 64)
            .unwrap()
            .pop()
            .flatten()
    };
    assert_eq!(
        read(".vscode/tasks.json").as_deref(),
        Some(&b"{\"tasks\":[]}\n"[..])
    );
    assert_eq!(read(".envrc").as_deref(), Some(&b"use nix\n"[..]));
    assert_eq!(read("linked/tasks.json").as_deref(), Some(&b"deep\n"[..]));
    assert_eq!(
        read("back/tasks.json").as_deref(),
        Some(&b"{\"tasks\":[]}\n"[..])
    );
    assert_eq!(
        read("tools/cur/../../editor/tasks.json").as_deref(),
        None,
        "tools/deep/../editor holds nothing"
    );
    // git's own lookup stops at the directory link.
    assert_eq!(
        repo.read_path("HEAD", ".vscode/tasks.json", 64).unwrap(),
        None
    );
    for absent in [
        "abs/passwd",
        "up/y",
        "loop/z",
        "loop",
        "dangling",
        "editor",
        "none",
    ] {
        assert_eq!(read(absent), None, "{absent}");
    }
}
