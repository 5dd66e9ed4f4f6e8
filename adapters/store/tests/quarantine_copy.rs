//! A quarantine's phase-one copies (R9.4) are written like every other store
//! file: temp file + fsync + rename + directory fsync. A copy cut short is
//! never seen partial at its path, so the same request retried completes
//! the quarantine instead of refusing "a quarantine copy differs".
//!
//! The cut is a real one: this test binary is re-run as `child_quarantine`
//! under a file-size limit (`ulimit -f`) smaller than the corrupted record,
//! so the copy's write fails half-way (`EFBIG`, SIGXFSZ ignored) or the
//! child is ended by SIGXFSZ in the middle of it (a crash).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use probity_core::review::LineageId;
use probity_core::review::RepairClass;
use probity_ports::review::{RecordStore, RepairStore, StoreError};
use probity_store::FileStore;

mod common;
use common::{first, started};

const ROOT_VAR: &str = "PROBITY_TEST_QUARANTINE_ROOT";
const LINEAGE_VAR: &str = "PROBITY_TEST_QUARANTINE_LINEAGE";

/// The corrupted record: far larger than the child's file-size limit
/// (`ulimit -f 8`: 4096 bytes in 512-byte blocks, 8192 in 1024-byte ones).
const CORRUPT_BYTES: usize = 64 * 1024;

fn audit(_: &[probity_core::review::QuarantinedFile]) -> Result<Vec<u8>, StoreError> {
    Ok(b"{\"audit\":true}\n".to_vec())
}

/// A store holding one lineage whose record is corrupted (large garbage),
/// in a fresh directory: (the directory, the store's root, the store, the
/// lineage, the garbage).
fn corrupted_store() -> (tempfile::TempDir, PathBuf, FileStore, LineageId, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    let store = FileStore::at(root.clone());
    let record = started();
    store.create(&first(&record)).unwrap();
    let lineage = record.state().lineage_id().clone();
    let garbage: Vec<u8> = (0..CORRUPT_BYTES).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(root.join(lineage.as_str()).join("state.json"), &garbage).unwrap();
    assert!(
        store.load(&lineage).is_err(),
        "the record must be corrupted"
    );
    (dir, root, store, lineage, garbage)
}

fn outcome(root: &Path) -> PathBuf {
    root.with_extension("outcome")
}

/// The child half: runs only when a test below re-runs this binary.
#[test]
fn child_quarantine() {
    let (Ok(root), Ok(lineage)) = (std::env::var(ROOT_VAR), std::env::var(LINEAGE_VAR)) else {
        return;
    };
    let root = PathBuf::from(root);
    let lineage = LineageId::parse(lineage).unwrap();
    let said = match FileStore::at(root.clone()).quarantine(
        &lineage,
        RepairClass::CorruptedRecord,
        &audit,
    ) {
        Ok(path) => format!("ok {path}"),
        Err(e) => format!("error {e}"),
    };
    std::fs::write(outcome(&root), said).unwrap();
}

/// Runs the quarantine of `lineage` in a child under a 8-block file-size
/// limit; with `ignore_xfsz` the oversized write fails, otherwise SIGXFSZ
/// ends the child in the middle of it.
fn quarantine_in_child(root: &Path, lineage: &LineageId, ignore_xfsz: bool) -> ExitStatus {
    let script = if ignore_xfsz {
        "trap '' XFSZ; ulimit -f 8 && exec \"$0\" \"$@\""
    } else {
        "ulimit -f 8 && exec \"$0\" \"$@\""
    };
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_quarantine",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROOT_VAR, root)
        .env(LINEAGE_VAR, lineage.as_str())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
}

/// Every regular file below `dir`, recursively.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let e = e.unwrap();
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            out.extend(files_below(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

fn is_temp(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(".tmp-"))
}

/// The one quarantine folder of the store.
fn qdir(root: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("quarantine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.remove(0)
}

/// What a cut leaves may be incomplete, never wrong: every copy at its own
/// path holds its original's bytes exactly (the originals are untouched
/// until phase two), and the big record's copy is not there at all.
fn assert_only_complete_copies(root: &Path, lineage: &LineageId, garbage: &[u8]) {
    let q = qdir(root);
    let copy = q.join("copy");
    for p in files_below(&copy).into_iter().filter(|p| !is_temp(p)) {
        let rel = p.strip_prefix(&copy).unwrap();
        let (held, original) = (
            std::fs::read(&p).unwrap(),
            std::fs::read(root.join(rel)).unwrap(),
        );
        assert!(
            held == original,
            "a partial copy at {}: {} of {} bytes",
            p.display(),
            held.len(),
            original.len()
        );
    }
    assert!(
        !copy.join(lineage.as_str()).join("state.json").exists(),
        "the record's copy was cut short, so it must not exist"
    );
    assert!(!q.join("audit.json").exists(), "no audit before the copies");
    assert!(
        std::fs::read(root.join(lineage.as_str()).join("state.json")).unwrap() == garbage,
        "the original is untouched"
    );
}

/// The same request retried completes the quarantine, byte-preserving.
fn assert_retry_completes(store: &FileStore, root: &Path, lineage: &LineageId, garbage: &[u8]) {
    let audit_rel = store
        .quarantine(lineage, RepairClass::CorruptedRecord, &audit)
        .unwrap();
    let q = root.join(&audit_rel).parent().unwrap().to_path_buf();
    let rel = Path::new(lineage.as_str()).join("state.json");
    for phase in ["copy", "moved"] {
        let held = std::fs::read(q.join(phase).join(&rel)).unwrap();
        assert!(held == garbage, "{phase}: {} bytes", held.len());
    }
    assert!(matches!(
        store.load(lineage),
        Err(StoreError::Retired { .. })
    ));
}

#[test]
fn a_copy_cut_short_by_a_failed_write_leaves_no_partial_file_and_the_retry_completes() {
    let (_dir, root, store, lineage, garbage) = corrupted_store();

    let status = quarantine_in_child(&root, &lineage, true);
    assert!(status.success(), "{status}");
    let said = std::fs::read_to_string(outcome(&root)).unwrap();
    assert!(said.starts_with("error "), "the write must fail: {said}");

    assert_only_complete_copies(&root, &lineage, &garbage);
    // A failed write removes its temp file: nothing of it is left.
    let temps: Vec<_> = files_below(&root.join("quarantine"))
        .into_iter()
        .filter(|p| is_temp(p))
        .collect();
    assert!(temps.is_empty(), "temp files left: {temps:?}");

    assert_retry_completes(&store, &root, &lineage, &garbage);
}

#[test]
fn a_copy_cut_short_by_a_crash_is_never_seen_partial_and_the_retry_completes() {
    use std::os::unix::process::ExitStatusExt;
    let (_dir, root, store, lineage, garbage) = corrupted_store();

    let status = quarantine_in_child(&root, &lineage, false);
    assert_eq!(status.signal(), Some(libc::SIGXFSZ), "{status}");
    assert!(!outcome(&root).exists(), "the child ended mid-copy");

    assert_only_complete_copies(&root, &lineage, &garbage);
    // What the killed writer left of the record's copy is its temp file,
    // an orphan told by its lock: nobody holds it.
    let temps: Vec<_> = files_below(&root.join("quarantine"))
        .into_iter()
        .filter(|p| is_temp(p))
        .collect();
    assert_eq!(temps.len(), 1, "{temps:?}");
    let f = std::fs::File::open(&temps[0]).unwrap();
    assert!(f.try_lock().is_ok(), "{} is held", temps[0].display());
    drop(f);

    assert_retry_completes(&store, &root, &lineage, &garbage);
    // The next scavenge removes the orphan.
    store.scavenge_orphan_temps();
    let temps: Vec<_> = files_below(&root.join("quarantine"))
        .into_iter()
        .filter(|p| is_temp(p))
        .collect();
    assert!(temps.is_empty(), "orphans left: {temps:?}");
}

/// The retry semantics the atomic copy keeps: an exact copy already in
/// place (a crash after it) is accepted; a different one is refused and
/// nothing moves.
#[test]
fn an_exact_copy_in_place_is_accepted_and_a_different_one_is_refused() {
    let (_dir, root, store, lineage, garbage) = corrupted_store();
    let digest = probity_core::digest::Sha256Digest::plain(&garbage);
    let q = root.join("quarantine").join(format!(
        "{lineage}-{}-{}",
        RepairClass::CorruptedRecord.name(),
        &digest.hex()[..12]
    ));
    let copy = q.join("copy").join(lineage.as_str()).join("state.json");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();

    std::fs::write(&copy, &garbage[..100]).unwrap();
    let refused = store
        .quarantine(&lineage, RepairClass::CorruptedRecord, &audit)
        .unwrap_err();
    assert!(
        matches!(&refused, StoreError::Malformed { detail, .. } if detail.contains("differs")),
        "{refused}"
    );
    assert!(
        std::fs::read(root.join(lineage.as_str()).join("state.json")).unwrap() == garbage,
        "a refused quarantine moves nothing"
    );
    assert!(!q.join("audit.json").exists());

    std::fs::write(&copy, &garbage).unwrap();
    assert_retry_completes(&store, &root, &lineage, &garbage);
}
