//! A `start` ended at any step of creating its lineage (issue 12): a real
//! child process (this test binary, re-run as `child_create`) creates a
//! lineage with a probe that stops it at a named step, and the test ends it
//! there by a real SIGKILL or SIGTERM. The store must never hold a lineage
//! folder without its state, and the next start must leave nothing of the
//! interrupted one but what a valid lineage is.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use probity_core::review::Lens;
use probity_core::review::fixtures;
use probity_core::review::{LineageId, Nonce};
use probity_core::review::{ReviewState, StateRecord};
use probity_ports::review::{Created, IndexStore, RecordStore, RepairStore};
use probity_store::FileStore;

mod common;
use common::{files, first};

const ROOT_VAR: &str = "PROBITY_TEST_CREATE_ROOT";
const STEP_VAR: &str = "PROBITY_TEST_CREATE_STEP";

/// The interrupted start's record (the parser candidate).
fn interrupted() -> StateRecord {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .record()
        .unwrap()
}

/// The next start: the same candidate at another nonce (another lineage).
fn next_start() -> StateRecord {
    let mut input =
        fixtures::start_input(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    input.nonce = Nonce::parse("fedcba9876543210fedcba9876543210").unwrap();
    ReviewState::start(input).unwrap().record().unwrap()
}

/// Another candidate altogether (its own target).
fn other_candidate() -> StateRecord {
    fixtures::payments_scenario().unwrap().0.record().unwrap()
}

static STOP: OnceLock<(String, PathBuf)> = OnceLock::new();

/// The probe: at the chosen step, tell the test and wait to be ended.
fn stop_here(step: &str) {
    if let Some((at, marker)) = STOP.get()
        && at == step
    {
        std::fs::write(marker, step).unwrap();
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// The child half: runs only when a test below re-runs this binary.
#[test]
fn child_create() {
    let (Ok(root), Ok(step)) = (std::env::var(ROOT_VAR), std::env::var(STEP_VAR)) else {
        return;
    };
    // As the CLI does first thing: SIGTERM cleans up, then ends the process.
    probity_scratch::signals::install().unwrap();
    STOP.set((step, marker(Path::new(&root)))).unwrap();
    FileStore::at(PathBuf::from(root))
        .with_probe(stop_here)
        .create(&first(&interrupted()))
        .unwrap();
}

fn marker(root: &Path) -> PathBuf {
    root.with_extension("reached")
}

/// A child creating [`interrupted`] in `root`, stopped at `step` (alive).
fn stopped_at(root: &Path, step: &str) -> Child {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_create", "--nocapture", "--test-threads=1"])
        .env(ROOT_VAR, root)
        .env(STEP_VAR, step)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !marker(root).exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child ended ({status}) before step {step}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the child never reached step {step}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

/// Ends `child` by `signal` (a real one, from `kill`) and waits for it.
fn end(mut child: Child, signal: &str) {
    use std::os::unix::process::ExitStatusExt;
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let expected = if signal == "-KILL" { 9 } else { 15 };
    assert_eq!(status.signal(), Some(expected), "{status}");
}

/// The store root's entries (names), sorted.
fn entries(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Lineage folders (named as a lineage) that hold no state.
fn folders_without_state(root: &Path) -> Vec<String> {
    entries(root)
        .into_iter()
        .filter(|n| LineageId::parse(n.clone()).is_ok())
        .filter(|n| !root.join(n).join("state.json").is_file())
        .collect()
}

/// Every path below `dir` whose name starts with `.` (the store's temp
/// files, folders being made and their owner locks).
fn hidden_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().starts_with('.') {
            out.push(e.path());
        }
        if e.file_type().unwrap().is_dir() {
            hidden_below(&e.path(), out);
        }
    }
}

fn hidden(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    hidden_below(root, &mut v);
    v
}

fn store(root: &Path) -> FileStore {
    FileStore::at(root.to_path_buf())
}

/// A fresh directory, and where a store goes in it (not made yet).
fn store_root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    (dir, root)
}

/// Creates `r`'s lineage in the store at `root`: a new one.
#[track_caller]
fn create_new(root: &Path, r: &StateRecord) {
    assert_eq!(store(root).create(&first(r)).unwrap(), Created::New);
}

/// The store at `root` finds `r`'s lineage by its target.
#[track_caller]
fn assert_target_indexed(root: &Path, r: &StateRecord) {
    assert_eq!(
        store(root)
            .lookup_target(&r.state().snapshot().target)
            .unwrap(),
        Some(r.state().lineage_id().clone())
    );
}

/// What a store holding `r`'s lineage alone lists: the index and it.
fn index_and(r: &StateRecord) -> Vec<String> {
    vec!["index".to_string(), r.state().lineage_id().to_string()]
}

/// Nothing of an interrupted start is left hidden in the store at `root`.
#[track_caller]
fn assert_nothing_hidden(root: &Path, why: &str) {
    assert_eq!(hidden(root), Vec::<PathBuf>::new(), "{why}");
}

#[test]
fn a_start_killed_before_its_state_leaves_no_lineage_folder() {
    for signal in ["-KILL", "-TERM"] {
        let (_dir, root) = store_root();
        end(stopped_at(&root, "folder"), signal);
        assert_eq!(
            folders_without_state(&root),
            Vec::<String>::new(),
            "{signal}: a lineage folder appears only with its state"
        );
        let lost = interrupted().state().lineage_id().clone();
        assert_eq!(store(&root).load(&lost).unwrap(), None);
        // The next start leaves the store holding its lineage and its index.
        let next = next_start();
        create_new(&root, &next);
        assert_eq!(entries(&root), index_and(&next), "{signal}");
        assert_nothing_hidden(&root, signal);
    }
}

/// Killed (or signalled) after its state is durable but before any index
/// names it: the lineage was never discoverable and its start never
/// answered, so the next start undoes it, told by its dead owner's lock.
#[test]
fn a_start_killed_before_its_index_is_undone_by_the_next_start() {
    for signal in ["-KILL", "-TERM"] {
        let (_dir, root) = store_root();
        end(stopped_at(&root, "state"), signal);
        let lost = interrupted();
        let target = lost.state().snapshot().target;
        assert_eq!(store(&root).lookup_target(&target).unwrap(), None);
        // The next start, of another candidate: the orphan is gone.
        let other = other_candidate();
        create_new(&root, &other);
        assert_eq!(
            entries(&root),
            index_and(&other),
            "{signal}: the unindexed lineage is removed"
        );
        assert_nothing_hidden(&root, signal);
        // The candidate can be started again.
        create_new(&root, &lost);
        assert_eq!(
            store(&root).lookup_target(&target).unwrap(),
            Some(lost.state().lineage_id().clone())
        );
    }
}

/// Killed after its target index names it (before it let go of its owner
/// lock): a valid lineage, kept whole by the next start.
#[test]
fn a_start_killed_after_its_index_keeps_its_lineage() {
    let (_dir, root) = store_root();
    end(stopped_at(&root, "indexed"), "-KILL");
    let kept = interrupted();
    let other = other_candidate();
    create_new(&root, &other);
    assert_eq!(
        store(&root).load(kept.state().lineage_id()).unwrap(),
        Some(kept.clone())
    );
    assert_target_indexed(&root, &kept);
    assert_nothing_hidden(&root, "");
    // The same candidate resumes it.
    assert_eq!(
        store(&root).create(&first(&next_start())).unwrap(),
        Created::Existing(kept.state().lineage_id().clone())
    );
}

/// A live start's folder is never touched by another start, however long
/// it takes; once its owner is gone, the next start undoes it.
#[test]
fn a_live_starts_lineage_is_never_scavenged() {
    let (_dir, root) = store_root();
    let live = stopped_at(&root, "state");
    let before = entries(&root);
    let hidden_before = hidden(&root);
    let other = other_candidate();
    create_new(&root, &other);
    let mut expected = before.clone();
    expected.extend(["index".to_string(), other.state().lineage_id().to_string()]);
    expected.sort();
    expected.dedup();
    assert_eq!(entries(&root), expected, "the live start's entries stay");
    for p in &hidden_before {
        assert!(p.exists(), "{} is a live start's", p.display());
    }
    end(live, "-KILL");
    let third = next_start();
    create_new(&root, &third);
    assert_eq!(entries(&root), {
        let mut v = vec![
            "index".to_string(),
            other.state().lineage_id().to_string(),
            third.state().lineage_id().to_string(),
        ];
        v.sort();
        v
    });
    assert_nothing_hidden(&root, "");
}

/// What an older Probity killed between the folder and its state left (a
/// lineage folder with a lock and a temp file, no owner lock): no read
/// takes it for corruption, and nothing removes it on age or shape alone
/// (a live recovery makes its successor's folder before its state too).
#[test]
fn a_folder_without_state_is_neither_corruption_nor_scavenged() {
    let (_dir, root) = store_root();
    let valid = other_candidate();
    create_new(&root, &valid);
    let orphan = LineageId::parse("review-00000000000000aa").unwrap();
    std::fs::create_dir(root.join(orphan.as_str())).unwrap();
    std::fs::write(root.join(orphan.as_str()).join("LOCK"), b"").unwrap();
    let s = store(&root);
    assert_eq!(s.load(&orphan).unwrap(), None);
    assert_eq!(
        s.load(valid.state().lineage_id()).unwrap(),
        Some(valid.clone())
    );
    for class in [
        probity_core::review::RepairClass::CorruptedRecord,
        probity_core::review::RepairClass::ReceiptMismatch,
    ] {
        let survey = s.survey(class).unwrap();
        assert_eq!(survey.anomalies, Vec::<LineageId>::new(), "{class:?}");
    }
    assert_eq!(s.create(&first(&interrupted())).unwrap(), Created::New);
    assert!(root.join(orphan.as_str()).join("LOCK").is_file());
}

/// `r`'s lineage folder, made by hand in the store at `root` with `files`
/// (name, bytes) in it.
fn lineage_folder(root: &Path, r: &StateRecord, files: &[(&str, Vec<u8>)]) {
    let l = root.join(r.state().lineage_id().as_str());
    std::fs::create_dir_all(&l).unwrap();
    for (name, bytes) in files {
        std::fs::write(l.join(name), bytes).unwrap();
    }
}

/// The same start retried (same candidate, nonce and time) over its own
/// lineage that no index names yet (what an older Probity killed between
/// the state and the index left): the retry indexes it.
#[test]
fn an_exact_retry_over_its_unindexed_lineage_indexes_it() {
    let (_dir, root) = store_root();
    let r = interrupted();
    lineage_folder(
        &root,
        &r,
        &[("LOCK", Vec::new()), ("state.json", r.to_bytes().unwrap())],
    );
    create_new(&root, &r);
    assert_target_indexed(&root, &r);
    assert_nothing_hidden(&root, "");
}

/// A folder of the new lineage's name holding another state: refused with
/// a typed error, and no byte of the store changes.
#[test]
fn a_lineage_folder_with_other_content_is_refused_unchanged() {
    let (_dir, root) = store_root();
    let r = interrupted();
    let other = other_candidate().to_bytes().unwrap();
    lineage_folder(&root, &r, &[("state.json", other)]);
    let before = files(&root);
    let err = store(&root).create(&first(&r)).unwrap_err();
    assert!(
        matches!(err, probity_ports::review::StoreError::Malformed { .. }),
        "{err}"
    );
    assert_eq!(files(&root), before);
    assert_nothing_hidden(&root, "");
}
