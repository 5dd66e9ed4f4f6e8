//! The reference in-memory store passes the store conformance suite (the
//! file store runs the same suite in `adapters/store/tests/conformance.rs`;
//! that the suite notices a broken store is
//! `adapters/testkit/tests/conformance.rs`).

use probity_memstore::InMemoryStore;
use probity_testkit::store_conformance;

#[test]
fn the_in_memory_store_conforms() {
    if let Err(failures) = store_conformance::run(InMemoryStore::new) {
        panic!("{failures}");
    }
}

#[test]
fn an_interrupted_recovery_of_the_in_memory_store_is_completed_only_by_its_request() {
    let run = store_conformance::run_interrupted_recovery(InMemoryStore::new, |store, s| {
        store.interrupt_successor(s).map_err(|e| e.to_string())
    });
    if let Err(failures) = run {
        panic!("{failures}");
    }
}

#[test]
fn the_in_memory_store_keeps_attestations_and_evidence_as_the_file_store_does() {
    if let Err(failures) = store_conformance::run_attestations(&InMemoryStore::new()) {
        panic!("{failures}");
    }
}
