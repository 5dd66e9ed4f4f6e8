//! The file store passes the store conformance suite (the in-memory store
//! runs the same suite in `adapters/testkit/tests/conformance.rs`).

use std::path::Path;

use probity_core::review::StateRecord;
use probity_store::FileStore;
use probity_testkit::store_conformance;

#[test]
fn the_file_store_conforms() {
    let mut dirs = Vec::new();
    let run = store_conformance::run(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::at(dir.path().to_path_buf());
        dirs.push(dir);
        store
    });
    if let Err(failures) = run {
        panic!("{failures}");
    }
}

/// What a recovery interrupted after its first steps leaves on disk: the
/// predecessor's `successor.pending` and the successor's own folder, with
/// neither the target index nor the supersession marker.
fn interrupt(root: &Path, successor: &StateRecord) -> Result<(), String> {
    let pred = successor.state().predecessor().ok_or("not a successor")?;
    let bytes = successor.to_bytes().map_err(|e| e.to_string())?;
    std::fs::write(
        root.join(pred.lineage_id.as_str())
            .join("successor.pending"),
        &bytes,
    )
    .map_err(|e| e.to_string())?;
    let dir = root.join(successor.state().lineage_id().as_str());
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("state.json"), &bytes).map_err(|e| e.to_string())
}

#[test]
fn an_interrupted_recovery_of_the_file_store_is_completed_only_by_its_request() {
    let mut dirs = Vec::new();
    let run = store_conformance::run_interrupted_recovery(
        || {
            let dir = tempfile::tempdir().unwrap();
            let store = FileStore::at(dir.path().to_path_buf());
            dirs.push(dir);
            store
        },
        |store, s| interrupt(store.root(), s),
    );
    if let Err(failures) = run {
        panic!("{failures}");
    }
}

#[test]
fn the_file_store_keeps_attestations_and_evidence_as_the_in_memory_store_does() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    if let Err(failures) = store_conformance::run_attestations(&store) {
        panic!("{failures}");
    }
}
