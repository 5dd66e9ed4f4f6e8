//! Burning a lineage (R10.5 `consumed`): the store checks again, under the
//! lock a recovery takes, what the burn was decided on, and a refused burn
//! changes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use probity_core::review::Lens;
use probity_core::review::StateRecord;
use probity_core::review::fixtures;
use probity_ports::review::{RecordStore, RepairStore, StoreError};
use probity_store::FileStore;

mod common;

fn approved() -> StateRecord {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"tests passed")
        .unwrap()
        .record()
        .unwrap()
}

/// A file store in a new directory holding only the started record of
/// [`approved`]'s lineage: (the directory, the store, the approved record).
fn started_store() -> (tempfile::TempDir, FileStore, StateRecord) {
    let (dir, store, _) = common::created();
    (dir, store, approved())
}

/// Every file below `root` but the lock files (a refused burn may take a
/// lineage's lock), relative path → bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    common::files(root)
        .into_iter()
        .filter(|(p, _)| !p.ends_with("LOCK") && !p.to_string_lossy().ends_with(".lock"))
        .map(|(p, bytes)| (p.strip_prefix(root).unwrap().into(), bytes))
        .collect()
}

#[test]
fn a_burn_decided_on_a_stale_revision_is_refused_and_changes_nothing() {
    let (dir, store, r) = started_store();
    let lineage = r.state().lineage_id().clone();
    let started = store.load(&lineage).unwrap().unwrap();
    // The store still holds the started record: a burn decided on the
    // approved revision is stale.
    let before = snapshot(dir.path());
    let stale = store
        .consume(&lineage, &r.revision(), b"tombstone")
        .unwrap_err();
    assert!(matches!(stale, StoreError::Conflict { .. }), "{stale}");
    assert_eq!(snapshot(dir.path()), before, "a refused burn wrote");

    // At the right revision, the burn lands and the lineage answers
    // `consumed` from then on.
    let path = store
        .consume(&lineage, &started.revision(), b"tombstone")
        .unwrap();
    assert_eq!(path, format!("consumed/{lineage}"));
    assert!(matches!(
        store.load(&lineage),
        Err(StoreError::Consumed { .. })
    ));
}

/// A burn or a quarantine that a crash cut short after its pointer was
/// written leaves the lineage's files behind: the pointer wins, so the
/// authority never comes back (found by audit: the record loaded as
/// approved until its directory was gone).
#[test]
fn a_pointer_written_before_a_crash_wins_over_the_files_left_behind() {
    let (dir, store, r) = started_store();
    let lineage = r.state().lineage_id().clone();
    assert!(store.load(&lineage).unwrap().is_some());
    // The tombstone landed; the crash came before the directory went.
    std::fs::create_dir_all(dir.path().join("consumed")).unwrap();
    std::fs::write(
        dir.path().join("consumed").join(lineage.as_str()),
        b"tombstone",
    )
    .unwrap();
    assert!(
        dir.path()
            .join(lineage.as_str())
            .join("state.json")
            .is_file()
    );
    assert!(matches!(
        store.load(&lineage),
        Err(StoreError::Consumed { .. })
    ));
    std::fs::remove_file(dir.path().join("consumed").join(lineage.as_str())).unwrap();
    // Likewise a retired pointer (its audit record's path).
    std::fs::create_dir_all(dir.path().join("retired")).unwrap();
    std::fs::write(
        dir.path().join("retired").join(lineage.as_str()),
        b"quarantine/x/audit.json\n",
    )
    .unwrap();
    assert!(matches!(
        store.load(&lineage),
        Err(StoreError::Retired { ref audit, .. }) if audit == "quarantine/x/audit.json"
    ));
}
