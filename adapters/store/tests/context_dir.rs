//! The file-system side of entity-context-snapshot trees.

use std::fs;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt, symlink};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use probity_core::context::Assembly;
use probity_core::context::ContextInput;
use probity_core::context::{VerifiedTree, VerifyError};
use probity_ports::context::assemble;
use probity_store::context_dir::{
    ContextDirError, check_sealed_copy, copy_verified, observe_dir, verify_dir, write_tree,
};

const EXAMPLE: &str = include_str!("../../../examples/context/change-proposal.json");

fn assembled() -> Assembly {
    let input: ContextInput = serde_json::from_str(EXAMPLE).unwrap();
    assemble(&input).unwrap()
}

fn written() -> (tempfile::TempDir, std::path::PathBuf, Assembly) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("context");
    let a = assembled();
    write_tree(&root, &a.tree).unwrap();
    (tmp, root, a)
}

/// Why `verify_dir` refuses the tree at `root` as `a`'s: a verification
/// error (an answer of any other kind fails the test).
#[track_caller]
fn refusal(root: &Path, a: &Assembly) -> VerifyError {
    match verify_dir(root, &a.index_digest).unwrap_err() {
        ContextDirError::Verify(e) => e,
        other => panic!("not a verification refusal: {other}"),
    }
}

/// The file at `p` rewritten with `change` made to its bytes.
fn edit(p: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut b = fs::read(p).unwrap();
    change(&mut b);
    fs::write(p, b).unwrap();
}

/// The tree at `root` verified as `a`'s and copied to `sandbox` in `tmp`:
/// the verified tree and the copy's path.
fn sandbox(tmp: &tempfile::TempDir, root: &Path, a: &Assembly) -> (VerifiedTree, PathBuf) {
    let v = verify_dir(root, &a.index_digest).unwrap();
    let dest = tmp.path().join("sandbox");
    copy_verified(&v, &dest).unwrap();
    (v, dest)
}

/// Whether `r` is the refusal of a path that exists already.
fn is_exists<T>(r: Result<T, ContextDirError>) -> bool {
    matches!(r, Err(ContextDirError::Exists(_)))
}

fn mode(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn writes_0700_dirs_and_0600_files_and_verifies() {
    let (_tmp, root, a) = written();
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("state")), 0o700);
    assert_eq!(mode(&root.join("index.json")), 0o600);
    assert_eq!(mode(&root.join("state/actors.json")), 0o600);
    let v = verify_dir(&root, &a.index_digest).unwrap();
    assert_eq!(v.files(), a.tree.files());
}

#[test]
fn refuses_to_write_over_an_existing_path() {
    let (_tmp, root, a) = written();
    assert!(is_exists(write_tree(&root, &a.tree)));
}

#[test]
fn refuses_a_changed_byte() {
    let (_tmp, root, a) = written();
    edit(&root.join("views/timeline.order"), |b| b[0] ^= 1);
    assert!(matches!(refusal(&root, &a), VerifyError::Digest(_)));
}

#[test]
fn refuses_extra_and_missing_files() {
    let (_tmp, root, a) = written();
    fs::write(root.join("state/extra.json"), b"{}").unwrap();
    assert!(matches!(refusal(&root, &a), VerifyError::ExtraFile(p) if p == "state/extra.json"));
    fs::remove_file(root.join("state/extra.json")).unwrap();
    fs::remove_file(root.join("state/threads.json")).unwrap();
    assert!(matches!(refusal(&root, &a), VerifyError::MissingFile(p) if p == "state/threads.json"));
}

#[test]
fn refuses_symlinks_at_every_component() {
    // A file replaced by a link to identical bytes.
    let (tmp, root, a) = written();
    let target = tmp.path().join("copy.json");
    fs::copy(root.join("state/actors.json"), &target).unwrap();
    fs::remove_file(root.join("state/actors.json")).unwrap();
    symlink(&target, root.join("state/actors.json")).unwrap();
    assert!(matches!(refusal(&root, &a), VerifyError::Symlink(p) if p == "state/actors.json"));

    // A directory replaced by a link to an identical directory.
    let (tmp, root, a) = written();
    let moved = tmp.path().join("state-real");
    fs::rename(root.join("state"), &moved).unwrap();
    symlink(&moved, root.join("state")).unwrap();
    assert!(matches!(refusal(&root, &a), VerifyError::Symlink(p) if p == "state"));

    // The root itself.
    let (tmp, root, a) = written();
    let link = tmp.path().join("link");
    symlink(&root, &link).unwrap();
    assert!(matches!(
        verify_dir(&link, &a.index_digest),
        Err(ContextDirError::RootSymlink(_))
    ));
}

#[test]
fn refuses_special_files() {
    let (_tmp, root, a) = written();
    let _sock = UnixListener::bind(root.join("state/sock")).unwrap();
    assert!(matches!(refusal(&root, &a), VerifyError::SpecialFile(p) if p == "state/sock"));
}

#[test]
fn refuses_a_rewritten_root_index() {
    let (_tmp, root, a) = written();
    edit(&root.join("index.json"), |b| {
        b.pop();
        b.extend_from_slice(b",\"x\":1}");
    });
    assert!(matches!(
        refusal(&root, &a),
        VerifyError::RootIndexMismatch { .. }
    ));
}

#[test]
fn verified_copy_is_read_only_and_exact() {
    let (tmp, root, a) = written();
    let (v, dest) = sandbox(&tmp, &root, &a);
    assert_eq!(mode(&dest), 0o555);
    assert_eq!(mode(&dest.join("state")), 0o555);
    assert_eq!(mode(&dest.join("index.json")), 0o444);
    assert_eq!(mode(&dest.join("state/actors.json")), 0o444);
    let observed = observe_dir(&dest).unwrap();
    let again = probity_ports::context::verify(&observed, &a.index_digest).unwrap();
    assert_eq!(again.files(), a.tree.files());
    // An existing destination is refused.
    assert!(is_exists(copy_verified(&v, &dest)));
    // Let the temporary directory be removed.
    for entry in [
        "",
        "state",
        "records",
        "views",
        "views/reviews",
        "threads",
        "checks",
        "relations",
        "history",
        "entity",
    ] {
        let p = dest.join(entry);
        if p.exists() {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    for d in fs::read_dir(dest.join("checks")).unwrap() {
        fs::set_permissions(d.unwrap().path(), fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn copy_to_an_existing_directory_is_refused_untouched() {
    let (tmp, root, a) = written();
    let v = verify_dir(&root, &a.index_digest).unwrap();
    let dest = tmp.path().join("copy");
    fs::create_dir(&dest).unwrap();
    assert!(is_exists(copy_verified(&v, &dest)));
    assert!(fs::read_dir(&dest).unwrap().next().is_none());
}

fn sparse(path: &Path, len: u64) {
    let f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .unwrap();
    f.set_len(len).unwrap();
}

/// Regression (issue 13 audit): every file up to 64 MiB was read whole
/// before the manifest was looked at (30 sparse 63 MiB extra files peaked
/// near 2 GB). A file the manifest does not list is refused from its name
/// alone, whatever its size: never read, never the size limit's refusal.
#[test]
fn an_unlisted_file_is_refused_by_the_manifest_without_being_read() {
    let (_tmp, root, a) = written();
    sparse(&root.join("records/extra1.md"), 63 * 1024 * 1024);
    sparse(&root.join("records/extra2.md"), 1 << 40);
    let err = refusal(&root, &a);
    assert!(
        matches!(&err, VerifyError::ExtraFile(p) if p == "records/extra1.md"),
        "{err}"
    );
    fs::remove_file(root.join("records/extra1.md")).unwrap();
    let err = refusal(&root, &a);
    assert!(
        matches!(&err, VerifyError::ExtraFile(p) if p == "records/extra2.md"),
        "{err}"
    );
    fs::remove_file(root.join("records/extra2.md")).unwrap();
    verify_dir(&root, &a.index_digest).unwrap();
}

/// Regression (issue 13 audit): sizes were compared only after each file
/// was read. Every listed file's size is now compared with the manifest's
/// from its metadata before any listed file is read: a later file grown
/// by one byte is refused by its size even though an earlier one has a
/// flipped byte (which reading would find first).
#[test]
fn sizes_are_checked_from_metadata_before_any_file_is_read() {
    let (_tmp, root, a) = written();
    edit(&root.join("collection.json"), |b| b[1] ^= 1);
    let later = root.join("state/threads.json");
    let mut before = 0;
    edit(&later, |b| {
        before = b.len() as u64;
        b.push(b'\n');
    });
    let err = refusal(&root, &a);
    assert!(
        matches!(&err, VerifyError::Size { path, expected, actual }
            if path == "state/threads.json" && *expected == before && *actual == before + 1),
        "{err}"
    );
    // A listed file over the limit keeps the limit's refusal (never read).
    fs::remove_file(&later).unwrap();
    sparse(&later, 1 << 40);
    let err = refusal(&root, &a);
    assert!(
        matches!(&err, VerifyError::TooLarge { path, .. } if path == "state/threads.json"),
        "{err}"
    );
}

/// Issue 23 §4 (D-R93): the check `context run` makes after the agent ran
/// finds a mode changed back even when no byte changed (a file made
/// writable, a directory made writable), and a changed byte; a copy left
/// alone passes.
#[test]
fn a_sealed_copy_with_a_mode_or_a_byte_changed_is_found() {
    let (tmp, root, a) = written();
    let (v, dest) = sandbox(&tmp, &root, &a);
    check_sealed_copy(&v, &dest).unwrap();
    let set = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    // A mode the verifier refuses anyway, then the writer's modes, which
    // verify but are not the seal: each found.
    let file = dest.join("state/actors.json");
    set(&file, 0o644);
    assert!(check_sealed_copy(&v, &dest).is_err());
    set(&file, 0o600);
    assert!(
        matches!(check_sealed_copy(&v, &dest), Err(ContextDirError::Changed(p)) if p == file),
        "0600 verifies but is not sealed"
    );
    set(&file, 0o444);
    let dir = dest.join("state");
    set(&dir, 0o700);
    assert!(matches!(check_sealed_copy(&v, &dest), Err(ContextDirError::Changed(p)) if p == dir));
    set(&dir, 0o555);
    set(&dest, 0o700);
    assert!(
        matches!(check_sealed_copy(&v, &dest), Err(ContextDirError::Changed(p)) if p == dest),
        "the root too"
    );
    let index = dest.join("index.json");
    set(&index, 0o644);
    let mut b = fs::read(&index).unwrap();
    b[1] ^= 1;
    fs::write(&index, &b).unwrap();
    set(&index, 0o444);
    set(&dest, 0o555);
    assert!(matches!(
        check_sealed_copy(&v, &dest),
        Err(ContextDirError::Verify(_))
    ));
    // Let the temporary directory be removed.
    set(&dest, 0o755);
    for d in fs::read_dir(&dest).unwrap() {
        let p = d.unwrap().path();
        if p.is_dir() {
            set(&p, 0o755);
            for e in fs::read_dir(&p).unwrap() {
                let q = e.unwrap().path();
                if q.is_dir() {
                    set(&q, 0o755);
                }
            }
        }
    }
}
