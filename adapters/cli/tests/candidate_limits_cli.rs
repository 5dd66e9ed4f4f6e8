//! What `start` refuses in the candidate itself (issue 8 §7): a path whose
//! name is not UTF-8, and a file over the size limit (sized before it is
//! read). The gates still answer; the advice gets the user going again.

mod support;

use std::os::unix::ffi::OsStrExt;

use probity_core::review::MAX_REVIEWED_FILE_BYTES;
use probity_git::fixture::Fixture;
use support::*;

fn with_change() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/lib.rs", "fn a() {}\nfn b() {}\n").unwrap();
    f
}

fn bad_name(f: &Fixture) -> std::path::PathBuf {
    f.root()
        .join(std::ffi::OsStr::from_bytes(b"notes-\xff.txt"))
}

#[test]
fn a_non_utf8_name_is_refused_at_start_and_the_gate_still_answers() {
    let f = with_change();
    std::fs::write(bad_name(&f), "x\n").unwrap();
    let before = store_snapshot(&f);
    let s = probity(f.root(), &["start"]);
    s.assert_refused(3, "path_not_utf8");
    let msg = s.error_message();
    assert!(msg.contains(r"notes-\xff.txt"), "{msg}");
    assert_eq!(store_snapshot(&f), before);
    // The gate answers (a denial naming the path escaped), not an error.
    let g = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(g.code, 1, "{}", g.stdout);
    assert_eq!(g.json["decision"], "deny");
    assert!(
        g.json["differing_paths"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == r"notes-\xff.txt"),
        "{}",
        g.stdout
    );
    // The advice: keep it out of the candidate, start again.
    let next = s.next_action();
    assert!(next.contains(".git/info/exclude"), "{next}");
    let mut exclude = std::fs::read(f.root().join(".git/info/exclude")).unwrap_or_default();
    exclude.extend_from_slice(b"notes-\xff.txt\n");
    std::fs::write(f.root().join(".git/info/exclude"), exclude).unwrap();
    let ok = probity(f.root(), &["start"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn a_renamed_non_utf8_file_is_reviewed() {
    let f = with_change();
    std::fs::write(bad_name(&f), "x\n").unwrap();
    assert_eq!(probity(f.root(), &["start"]).code, 3);
    std::fs::rename(bad_name(&f), f.root().join("notes.txt")).unwrap();
    let ok = probity(f.root(), &["start"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

/// A sparse file of `len` bytes (no content to write or read).
fn sparse(path: &std::path::Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

#[test]
fn an_untracked_file_over_the_limit_is_refused_by_its_size() {
    let f = with_change();
    sparse(&f.root().join("big.bin"), MAX_REVIEWED_FILE_BYTES + 1);
    let before = store_snapshot(&f);
    let objects = f.git(&["count-objects", "-v"]).unwrap();
    let s = probity(f.root(), &["start"]);
    s.assert_refused(3, "file_too_large");
    let msg = s.error_message();
    assert!(msg.contains("big.bin") && msg.contains(&MAX_REVIEWED_FILE_BYTES.to_string()));
    assert_eq!(store_snapshot(&f), before);
    // Nothing of it kept in the object store either: git hashed it into a
    // quarantine that went with the refusal (D-R86).
    let incoming: Vec<_> = std::fs::read_dir(f.root().join(".git/objects"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("probity-incoming-")
        })
        .collect();
    assert!(incoming.is_empty(), "{incoming:?}");
    assert_eq!(f.git(&["count-objects", "-v"]).unwrap(), objects);
    // A file at the limit is taken.
    sparse(&f.root().join("big.bin"), MAX_REVIEWED_FILE_BYTES);
    assert_eq!(
        probity(f.root(), &["validate", "--gate", "pre-commit"]).code,
        1
    );
    sparse(&f.root().join("big.bin"), MAX_REVIEWED_FILE_BYTES + 1);
    // The advice: keep it out of the candidate.
    f.write(".gitignore", "big.bin\n").unwrap();
    let ok = probity(f.root(), &["start"]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn a_staged_blob_over_the_limit_is_refused_by_its_size() {
    let f = with_change();
    sparse(&f.root().join("big.bin"), MAX_REVIEWED_FILE_BYTES + 1);
    f.git(&["add", "big.bin"]).unwrap();
    let before = store_snapshot(&f);
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.json["error"]["code"], "file_too_large", "{}", s.stdout);
    assert_eq!(store_snapshot(&f), before);
}

/// `start` is refused `file_too_large`, naming `path`, and writes nothing
/// to the store.
fn start_refused_too_large(f: &Fixture, path: &str) {
    let before = store_snapshot(f);
    let s = probity(f.root(), &["start"]);
    s.assert_error("file_too_large");
    let msg = s.error_message();
    assert!(msg.contains(path), "{msg}");
    assert_eq!(store_snapshot(f), before);
}

#[test]
fn a_base_blob_over_the_limit_is_refused_by_its_size() {
    // The base side's sizes are asked before any content is read (D-R100).
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "fn a() {}\n").unwrap();
    sparse(&f.root().join("big.bin"), MAX_REVIEWED_FILE_BYTES + 1);
    f.commit_all("base").unwrap();
    f.write("big.bin", "small now\n").unwrap();
    start_refused_too_large(&f, "big.bin");
}

#[test]
fn a_blob_a_clean_filter_made_larger_than_its_file_is_refused_by_its_size() {
    // The file is small, so the work-tree check passes it; the blob git
    // stored is over the limit, and its size comes with its content
    // (D-R100): refused all the same, nothing written to the store. (Its
    // objects were moved out of the quarantine before the blobs were
    // sized, as before D-R100: unreferenced, they are git's to prune;
    // docs/perf.md.)
    let f = with_change();
    f.git(&[
        "config",
        "filter.grow.clean",
        &format!("cat; head -c {} /dev/zero", MAX_REVIEWED_FILE_BYTES + 1),
    ])
    .unwrap();
    f.write(".gitattributes", "*.grow filter=grow\n").unwrap();
    f.write("data.grow", "seed\n").unwrap();
    start_refused_too_large(&f, "data.grow");
}
