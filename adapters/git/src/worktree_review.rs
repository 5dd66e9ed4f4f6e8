//! Review probes of `worktree.rs` (D-R152): each compares the in-process
//! live candidate with git's `add -A && write-tree` on a stand-in. A probe
//! that fails names an input where the in-process answer is `Some` and is
//! not git's (or git refuses the work tree altogether).

use super::against_git::{base, repo};
use super::*;
use crate::fixture::Fixture;
use std::os::unix::fs::symlink;

/// git's candidate tree for the fixture, or git's error.
fn gits_res(repo: &Repo) -> Result<String, String> {
    let index = repo.git_dir().join("index");
    repo.index_tree_by_git(&index, true, None)
        .map(|t| t.as_str().to_string())
        .map_err(|e| e.to_string())
}

/// The in-process answer beside git's, for a repository.
fn both_repo(repo: &Repo) -> (Option<String>, Result<String, String>) {
    let ours = candidate_tree(repo);
    (ours, gits_res(repo))
}

/// Asserts the contract: `None`, or exactly git's tree (git must answer).
fn check(f: &Fixture, handled: bool, what: &str) -> Option<String> {
    check_repo(&repo(f), handled, what)
}

/// The contract's verdict without panicking: `Err` describes a wrong
/// `Some`.
fn probe(f: &Fixture, what: &str) -> Result<Option<String>, String> {
    let (ours, git) = both_repo(&repo(f));
    eprintln!("{what}: ours {ours:?}, git {git:?}");
    match &ours {
        Some(id) if Ok(id.clone()) != git => Err(format!("{what}: ours {id}, git {git:?}")),
        _ => Ok(ours),
    }
}

fn check_repo(repo: &Repo, handled: bool, what: &str) -> Option<String> {
    let (ours, git) = both_repo(repo);
    match &ours {
        Some(id) => assert_eq!(
            Ok(id.clone()),
            git,
            "{what}: ours is Some({id}) but git says {git:?}"
        ),
        None => assert!(!handled, "{what}: left to git"),
    }
    ours
}

fn set_mtime(path: &std::path::Path, when: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// The index's mtime pushed 5 s past now: every entry surely clean.
fn index_later(f: &Fixture) {
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    set_mtime(&f.root().join(".git/index"), later);
}

/// Rewrites the index's trailing SHA-1 checksum after a byte patch.
fn rehash_index(bytes: &mut [u8]) {
    let n = bytes.len() - 20;
    let mut h = sha1_checked::Sha1::new();
    sha1_checked::digest::Update::update(&mut h, &bytes[..n]);
    let sum = h.try_finalize().hash().to_vec();
    bytes[n..].copy_from_slice(&sum);
}

fn hex_to_bytes(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

fn git_str(f: &Fixture, args: &[&str]) -> String {
    String::from_utf8(f.git(args).unwrap())
        .unwrap()
        .trim()
        .to_string()
}

// ---------------------------------------------------------------------
// Probes that find a wrong `Some`.
// ---------------------------------------------------------------------

/// An entry whose cached size is 0 but whose id is not the empty blob
/// (git's "racily smudged" mark) is always looked at by git
/// (`ce_match_stat_basic`: DATA_CHANGED), even with every stat field
/// equal and the entry not racy. The in-process shortcut takes its cached
/// id: the tree names content the work tree does not hold.
#[test]
fn closed_smudged_entry_with_equal_stat_is_hashed_by_git() {
    let f = base();
    f.write("e.txt", "").unwrap();
    f.git(&["add", "e.txt"]).unwrap();
    // The reviewed content's blob, in the store.
    let secret = f.write("secret.tmp", "approved content\n").unwrap();
    let blob = git_str(&f, &["hash-object", "-w", secret.to_str().unwrap()]);
    std::fs::remove_file(secret).unwrap();
    // The entry of e.txt: its stat data kept (size 0), its id the blob's.
    let index = f.root().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let name = b"e.txt\0";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap();
    let oid_at = at - 2 - 20;
    bytes[oid_at..oid_at + 20].copy_from_slice(&hex_to_bytes(&blob));
    rehash_index(&mut bytes);
    std::fs::write(&index, &bytes).unwrap();
    index_later(&f);
    assert!(f.git(&["ls-files", "-s", "e.txt"]).is_ok());
    check(&f, false, "size-0 entry whose id is not the empty blob");
}

/// git's `verify_path` (core.protectNTFS, on by default everywhere)
/// refuses `.git` followed by spaces or dots and then a colon; the
/// in-process check only knows `.git` + spaces/dots, or `.git:`.
#[test]
fn closed_ntfs_dotgit_with_dots_then_colon() {
    let mut wrong = Vec::new();
    for name in [".git.:x", ".git :x", ".GIT. :alt", ".git..:"] {
        let f = base();
        f.write(name, "x\n").unwrap();
        wrong.extend(probe(&f, name).err());
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// git refuses a symbolic link named `.gitmodules` in any case, or with
/// NTFS's trailing dots and spaces or short names (`verify_dotfile`,
/// `is_ntfs_dotgitmodules`); only the exact `.gitmodules` is unsure here.
#[test]
fn closed_symlinked_gitmodules_variants() {
    let mut wrong = Vec::new();
    for name in [
        ".GITMODULES",
        ".gitModules",
        ".gitmodules.",
        ".gitmodules ",
        "gitmod~1",
        "GI7EBA~1",
    ] {
        let f = base();
        symlink("a.txt", f.root().join(name)).unwrap();
        wrong.extend(probe(&f, name).err());
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// `attr.tree` (git 2.42+) makes git read attributes from a tree instead
/// of the work tree: `text` normalizes CRLF at `add`. Not a `core.*` key,
/// so the in-process reader never sees it.
#[test]
fn closed_attr_tree_attributes_apply() {
    let f = base();
    // A branch whose tree holds a .gitattributes; main's does not.
    f.git(&["checkout", "-q", "-b", "attrs"]).unwrap();
    f.write(".gitattributes", "*.txt text\n").unwrap();
    f.commit_all("attrs").unwrap();
    f.git(&["checkout", "-q", "main"]).unwrap();
    assert!(!f.root().join(".gitattributes").exists());
    f.git(&["config", "attr.tree", "attrs"]).unwrap();
    f.write("crlf.txt", "one\r\ntwo\r\n").unwrap();
    check(&f, false, "attr.tree with text");
}

/// An index whose mtime is the epoch (second 0): git's `is_racy_stat`
/// is false whenever the index timestamp's second is 0, so a rewrite
/// with the same size within the cached ctime second (git here compares
/// seconds only) keeps the cached id; the in-process reader calls every
/// entry "surely racy" and reads the new content.
#[test]
fn closed_index_at_the_epoch_is_never_racy_for_git() {
    for attempt in 0..20 {
        let f = base();
        let path = f.root().join("a.txt");
        // Wait for the start of a second, then write, add and rewrite
        // within it. 20 ms past it: file times come from the kernel's
        // coarse clock, which lags the precise one by up to a tick (with
        // 1 ms, every attempt could see the first write stamped in the
        // second before).
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        std::thread::sleep(std::time::Duration::from_nanos(
            1_000_000_000 - u64::from(now.subsec_nanos()) + 20_000_000,
        ));
        f.write("a.txt", "A\n").unwrap();
        f.git(&["update-index", "a.txt"]).unwrap();
        let cached = std::fs::metadata(&path).unwrap();
        f.write("a.txt", "B\n").unwrap();
        set_mtime(&path, cached.modified().unwrap());
        let after = std::fs::metadata(&path).unwrap();
        if after.ctime() != cached.ctime() || after.mtime() != cached.mtime() {
            eprintln!("attempt {attempt}: crossed a second, again");
            continue;
        }
        set_mtime(&f.root().join(".git/index"), std::time::UNIX_EPOCH);
        check(&f, false, "index mtime at the epoch");
        return;
    }
    panic!("no attempt stayed within one second");
}

/// A cache tree naming a tree the store does not hold: git's
/// `update_one` reuses a cached subtree only when `has_object_file`; the
/// in-process reader takes any valid cached id.
#[test]
fn closed_cache_tree_naming_a_missing_tree() {
    let f = base();
    f.git(&["write-tree"]).unwrap();
    let sub = git_str(&f, &["rev-parse", "HEAD:z"]);
    let index = f.root().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let raw = hex_to_bytes(&sub);
    let at = bytes
        .windows(20)
        .rposition(|w| w == raw.as_slice())
        .unwrap();
    bytes[at] ^= 0xff;
    rehash_index(&mut bytes);
    std::fs::write(&index, &bytes).unwrap();
    index_later(&f);
    // Invalidate the root only (a top-level change).
    f.write("a.txt", "top change\n").unwrap();
    check(&f, false, "cache tree names a missing subtree");
}

/// Not worktree.rs's: with `core.splitIndex=true`, git's own path
/// (`index_tree_by_git`: `git -c index.skipHash=true add -A` on the
/// stand-in) writes a split index whose shared index is named by the null
/// hash (`sharedindex.0000…`, skipHash), which git then reads as no shared
/// index at all: `write-tree` names the empty tree, whatever the work
/// tree holds. The in-process answer (when the user's index is not split
/// yet) is the right tree, so the contract "equal to git's" fails the
/// other way.
#[test]
fn closed_git_path_split_index_gives_the_empty_tree() {
    let f = base();
    f.git(&["config", "core.splitIndex", "true"]).unwrap();
    f.write("a/b/c.rs", "C\n").unwrap();
    let r = repo(&f);
    let git = gits_res(&r).unwrap();
    let ours = candidate_tree(&r);
    eprintln!("ours {ours:?}, git {git}");
    assert_ne!(
        git, "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "git's path names the empty tree for a non-empty work tree"
    );
}

// ---------------------------------------------------------------------
// Probes that pass (evidence).

/// `core.fsmonitor` is accepted as known: every git run here has
/// `-c core.fsmonitor=false` (cmd.rs), so a monitor that reports nothing
/// changed is never trusted by git either.
#[test]
fn ok_fsmonitor_hook_is_not_trusted() {
    let f = base();
    let hook = f.root().join(".git/fsmon.sh");
    std::fs::write(&hook, "#!/bin/sh\nprintf 'tok\\0'\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    f.git(&["config", "core.fsmonitor", hook.to_str().unwrap()])
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    f.git(&["update-index", "--fsmonitor"]).unwrap();
    f.git(&["status", "--porcelain"]).unwrap();
    f.write("a.txt", "edited after the monitor's token, longer\n")
        .unwrap();
    check(&f, true, "fsmonitor says nothing changed");
}
// ---------------------------------------------------------------------

#[test]
fn ok_ignore_pattern_shapes() {
    let f = base();
    f.write(
        ".gitignore",
        concat!(
            "trail   \n", // trailing spaces trimmed
            "tab\t\n",    // a tab is kept
            " lead\n",    // a leading space is kept
            "*mid*x\n",
            "pre*\n",
            "*.o\n",
            "?q\n",
            "d*/f*.md\n", // anchored, stars per part
            "/anch\n",
            "deep/er/\n", // anchored dir-only
            "dironly/\n",
            "a/b/x?\n",
            "/*.top\n",
            "#notcomment is a comment\n",
            "   \n",
        ),
    )
    .unwrap();
    f.write("a/.gitignore", "*.loc\n/only-here\nsub/\n")
        .unwrap();
    f.write("a/b/.gitignore", "c2.rs\n").unwrap();
    for p in [
        "trail",
        "tab\t",
        " lead",
        "tab",
        "lead",
        "trail ",
        "AmidBx",
        "midx",
        "prefix",
        "xpre",
        "k.o",
        "a/k.o",
        "zq",
        "q",
        "a/zq",
        "dx/fy.md",
        "dx/y/fy.md",
        "e/dx/fy.md",
        "anch",
        "a/anch",
        "deep/er/f",
        "a/deep/er/f",
        "dironly/f",
        "a/dironly/f",
        "a/b/x1",
        "a/b/x12",
        "q.top",
        "a/q.top",
        "a/x.loc",
        "a/b/y.loc",
        "x.loc",
        "a/only-here",
        "a/b/only-here",
        "a/sub/f",
        "a/b/sub/f",
        "sub/f",
        "a/b/c2.rs",
        "c2.rs",
        "#notcomment is a comment",
    ] {
        f.write(p, "u\n").unwrap();
    }
    // dir-only against a symlink to a directory, and against a file.
    symlink("a", f.root().join("z/dironly")).unwrap();
    f.write("z/y/dironly", "file\n").unwrap();
    check(&f, true, "pattern shapes");
}

#[test]
fn ok_tracked_dir_matched_by_pattern() {
    let f = base();
    f.write(".gitignore", "b\ny\n").unwrap();
    f.commit_all("ign").unwrap();
    f.write("a/b/untracked.rs", "u").unwrap();
    f.write("a/b/new/deeper", "u").unwrap();
    f.write("z/y/x/u", "u").unwrap();
    f.write("a/b/c.rs", "changed\n").unwrap();
    check(&f, true, "tracked dir matched");
}

#[test]
fn ok_gitignore_odd_files() {
    // A symlinked .gitignore: git does not follow it.
    let f = base();
    f.write("rules", "*.txt\n").unwrap();
    symlink("rules", f.root().join(".gitignore")).unwrap();
    f.write("new.txt", "n").unwrap();
    assert_eq!(check(&f, false, "symlinked .gitignore"), None);
    // A .gitignore directory.
    let f = base();
    f.write(".gitignore/x", "*.txt\n").unwrap();
    f.write("new.txt", "n").unwrap();
    check(&f, false, ".gitignore dir");
    // A tracked .gitignore deleted from the work tree.
    let f = base();
    f.write("a/.gitignore", "*.rs\n").unwrap();
    f.commit_all("g").unwrap();
    f.remove("a/.gitignore").unwrap();
    f.write("a/n.rs", "n").unwrap();
    check(&f, true, ".gitignore deleted");
    // info/exclude anchored, and the excludes file by absolute path.
    let f = base();
    std::fs::write(f.root().join(".git/info/exclude"), "/a/b/*.rs\n").unwrap();
    let ex = f.root().join(".git/my-excludes");
    std::fs::write(&ex, "*.q\nz/y\n").unwrap();
    f.git(&["config", "core.excludesFile", ex.to_str().unwrap()])
        .unwrap();
    for p in ["a/b/n.rs", "a/n.rs", "r.q", "a/r.q", "z/y/n", "a/z/y/n"] {
        f.write(p, "n").unwrap();
    }
    check(&f, true, "info/exclude and core.excludesFile");
}

#[test]
fn ok_names_and_bytes() {
    let f = base();
    for p in [
        "sp ace",
        "new\nline",
        "tab\tx",
        "*star",
        "?q",
        "[br]",
        "#hash",
        "-dash",
        "a.b",
        "a/b-c",
        "a/b0",
        "a/b.",
        "a/b/-",
        "!bang",
        "a'q\"",
        "\x01ctl",
    ] {
        f.write(p, "n\n").unwrap();
    }
    check(&f, true, "odd ascii names");
    f.commit_all("odd").unwrap();
    for p in ["sp ace", "new\nline", "[br]", "a/b-c"] {
        f.write(p, "changed!\n").unwrap();
    }
    check(&f, true, "odd names changed");
}

#[test]
fn ok_type_changes_and_symlinks() {
    let f = base();
    // A tracked directory replaced by a symlink to a directory holding
    // the same files.
    std::fs::rename(f.root().join("z"), f.root().join("zz")).unwrap();
    symlink("zz", f.root().join("z")).unwrap();
    assert_eq!(check(&f, false, "dir -> symlink to dir"), None);
    let f = base();
    f.remove("link").unwrap();
    std::fs::create_dir(f.root().join("link")).unwrap();
    f.write("link/in", "i").unwrap();
    check(&f, false, "symlink -> dir");
    let f = base();
    f.remove("a.txt").unwrap();
    symlink("z", f.root().join("a.txt")).unwrap();
    f.remove("link").unwrap();
    symlink("../../nowhere/at/all", f.root().join("link")).unwrap();
    symlink("a/b", f.root().join("dirlink")).unwrap();
    check(&f, true, "file -> symlink, dangling, link to dir");
    // Same target length, new target.
    f.commit_all("c").unwrap();
    f.remove("link").unwrap();
    symlink("../../nowhere/at/alX", f.root().join("link")).unwrap();
    check(&f, false, "same length target");
}

#[test]
fn ok_staged_deleted_and_modes() {
    let f = base();
    f.write("s.txt", "s").unwrap();
    f.git(&["add", "s.txt"]).unwrap();
    f.remove("s.txt").unwrap();
    f.git(&["rm", "-q", "--cached", "a0"]).unwrap();
    f.set_mode("a.txt", 0o700).unwrap();
    f.set_mode("tool.sh", 0o600).unwrap();
    f.set_mode("a/b/c.rs", 0o644 | 0o010).unwrap();
    check(&f, true, "staged, deleted, modes");
}

#[test]
fn ok_index_shapes() {
    for v in ["2", "3", "4"] {
        let f = base();
        f.git(&["update-index", "--index-version", v]).unwrap();
        f.write("a/b/c.rs", "c2\n").unwrap();
        f.write("new/x", "x").unwrap();
        check(&f, true, &format!("version {v}"));
        // No cache tree.
        f.git(&["read-tree", "HEAD"]).unwrap();
        f.git(&["update-index", "--index-version", v]).unwrap();
        check(&f, true, &format!("version {v}, read-tree"));
        // Remove the cache tree entirely (read-tree --empty then add).
        f.git(&["read-tree", "--empty"]).unwrap();
        f.git(&["add", "a", "z"]).unwrap();
        check(&f, true, &format!("version {v}, partial index"));
    }
    let f = base();
    f.git(&["update-index", "--split-index"]).unwrap();
    f.write("x", "x").unwrap();
    f.git(&["add", "x"]).unwrap();
    assert_eq!(check(&f, false, "split"), None);
    let f = base();
    f.write("ita", "i").unwrap();
    f.git(&["add", "-N", "ita"]).unwrap();
    assert_eq!(check(&f, false, "ita"), None);
}

#[test]
fn ok_racy_variants() {
    // File rewritten (same size) with the index's exact mtime.
    let f = base();
    let path = f.root().join("a.txt");
    f.write("a.txt", "Q\n").unwrap();
    f.git(&["update-index", "a.txt"]).unwrap();
    let when = std::fs::metadata(&path).unwrap().modified().unwrap();
    set_mtime(&f.root().join(".git/index"), when);
    f.write("a.txt", "R\n").unwrap();
    set_mtime(&path, when);
    check(&f, true, "racy exact");
    // Index one nanosecond after the file, same second.
    let f = base();
    f.write("a.txt", "Q\n").unwrap();
    f.git(&["update-index", "a.txt"]).unwrap();
    let when = std::fs::metadata(&path).unwrap().modified().unwrap();
    let ns = when.duration_since(std::time::UNIX_EPOCH).unwrap();
    if ns.subsec_nanos() < 999_999_000 {
        set_mtime(
            &f.root().join(".git/index"),
            when + std::time::Duration::from_nanos(1),
        );
        f.write("a.txt", "R\n").unwrap();
        set_mtime(&f.root().join("a.txt"), when);
        check(&f, false, "index a nanosecond later");
    }
    // Index in the past of every entry.
    let f = base();
    set_mtime(
        &f.root().join(".git/index"),
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1),
    );
    f.write("a.txt", "S\n").unwrap();
    check(&f, true, "index older than its entries");
}

#[test]
fn ok_submodule_nested_and_worktrees() {
    let f = base();
    f.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},sub", "1".repeat(40)),
    ])
    .unwrap();
    assert_eq!(candidate_tree(&repo(&f)), None, "gitlink");
    // A nested repository under an ignored directory: git skips it.
    let f = base();
    f.write(".gitignore", "vendor/\n").unwrap();
    f.write("vendor/inner/x", "x").unwrap();
    f.git_in(&f.root().join("vendor/inner"), &["init", "-q"])
        .unwrap();
    check(&f, true, "nested repo, ignored");
    // A linked worktree outside the main one.
    let f = base();
    let wt = tempfile::tempdir().unwrap();
    let wt_path = wt.path().join("wt");
    f.git(&["worktree", "add", "-q", wt_path.to_str().unwrap()])
        .unwrap();
    std::fs::write(wt_path.join("a.txt"), "in wt\n").unwrap();
    std::fs::write(wt_path.join("new"), "n").unwrap();
    std::fs::write(f.root().join(".git/info/exclude"), "new\n").unwrap();
    let r = Repo::discover(crate::GitCli::default(), &wt_path).unwrap();
    r.object_format().unwrap();
    check_repo(&r, true, "linked worktree");
    // A linked worktree inside the main one.
    let inner = f.root().join("inwt");
    f.git(&["worktree", "add", "-q", inner.to_str().unwrap()])
        .unwrap();
    assert_eq!(check(&f, false, "main with a worktree inside"), None);
    let r = Repo::discover(crate::GitCli::default(), &inner).unwrap();
    r.object_format().unwrap();
    check_repo(&r, true, "worktree inside main");
}

#[test]
fn ok_core_settings() {
    for (k, v) in [
        ("core.checkStat", "minimal"),
        ("core.trustctime", "false"),
        ("core.untrackedCache", "true"),
        ("core.protectHFS", "true"),
        ("core.preloadIndex", "false"),
    ] {
        let f = base();
        f.git(&["config", k, v]).unwrap();
        f.git(&["status", "--porcelain"]).unwrap();
        f.write("a/b/c.rs", "C\n").unwrap();
        f.write("n/new", "n").unwrap();
        f.write(".gitignore", "*.log\n").unwrap();
        f.write("n/x.log", "l").unwrap();
        check(&f, false, &format!("{k}={v}"));
    }
    // protectHFS: a case variant of .git with ignorable code points is
    // non-ASCII (left to git); .GIT itself is unsure.
    let f = base();
    f.git(&["config", "core.protectHFS", "true"]).unwrap();
    f.write(".Git/x", "x").unwrap();
    assert_eq!(check(&f, false, ".Git dir"), None);
}

#[test]
fn ok_empty_and_deep_dirs() {
    let f = base();
    std::fs::create_dir_all(f.root().join("e1/e2/e3")).unwrap();
    f.write("e1/.gitignore", "*\n").unwrap();
    let deep: String = (0..200).map(|i| format!("d{i}/")).collect();
    f.write(&format!("{deep}leaf"), "l").unwrap();
    check(&f, true, "empty and 200 deep");
    let deeper: String = (0..300).map(|_| "e/".to_string()).collect();
    f.write(&format!("{deeper}leaf"), "l").unwrap();
    assert_eq!(check(&f, false, "300 deep"), None);
}

#[test]
fn ok_many_entries_bounded() {
    let f = base();
    for d in 0..100 {
        for i in 0..100 {
            f.write(&format!("many/d{d}/f{i}"), format!("{d}{i}"))
                .unwrap();
        }
    }
    f.commit_all("many").unwrap();
    for d in (0..100).step_by(7) {
        f.write(&format!("many/d{d}/f3"), "changed").unwrap();
        f.write(&format!("many/d{d}/new"), "new").unwrap();
    }
    std::fs::remove_dir_all(f.root().join("many/d50")).unwrap();
    let t = std::time::Instant::now();
    check(&f, true, "10k entries");
    eprintln!("10k entries: {:?}", t.elapsed());
}

#[test]
fn ok_ahead_out_of_order_and_skips() {
    // The walk's pattern: increasing, with gaps, each once; and a wide
    // jump back (an out-of-order take must not hang).
    let items: Vec<u64> = (0..2000).collect();
    for _ in 0..20 {
        let got = crate::par::ahead(
            &items,
            2,
            |x| {
                if x % 97 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                *x
            },
            |take| {
                let mut got = Vec::new();
                for k in (0..2000).filter(|k| k % 3 != 0) {
                    got.push(take(k));
                }
                got.push(take(1999));
                got.push(take(3));
                got
            },
        );
        assert_eq!(got[got.len() - 2], None);
        assert_eq!(got[got.len() - 1], Some(3));
    }
}
