//! The store conformance suite notices each broken promise (the stores it
//! holds to it: `adapters/memstore/tests/conformance.rs` and
//! `adapters/store/tests/conformance.rs`).

use probity_testkit::{InMemoryStore, store_conformance};

/// A store that breaks one promise at a time: the suite must notice each.
mod broken {
    use probity_core::digest::Sha256Digest;
    use probity_core::review::Lens;
    use probity_core::review::{FirstRecord, Successor};
    use probity_core::review::{LineageId, TreeId};
    use probity_core::review::{StateRecord, Transition};
    use probity_ports::review::{
        ChainStore, Created, IndexStore, ReceiptStore, RecordStore, ResultStore, StoreError,
        Submitted,
    };
    use probity_testkit::InMemoryStore;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Flaw {
        /// A stale writer is told it succeeded.
        SwallowsConflicts,
        /// Receipts are never kept.
        NoReceipts,
        /// Different bytes for a kept lens result are accepted.
        OverwritesResults,
        /// Escalations are not listed.
        NoEscalatedIndex,
    }

    pub struct Broken(pub InMemoryStore, pub Flaw);

    impl RecordStore for Broken {
        fn load(&self, l: &LineageId) -> Result<Option<StateRecord>, StoreError> {
            self.0.load(l)
        }
        fn create(&self, r: &FirstRecord) -> Result<Created, StoreError> {
            self.0.create(r)
        }
        fn replace(&self, t: &Transition) -> Result<(), StoreError> {
            match self.0.replace(t) {
                Err(StoreError::Conflict { .. }) if self.1 == Flaw::SwallowsConflicts => Ok(()),
                other => other,
            }
        }
        fn under_lock(&self, l: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
            self.0.under_lock(l, f)
        }
    }

    impl ChainStore for Broken {
        fn create_successor(&self, r: &Successor) -> Result<Created, StoreError> {
            self.0.create_successor(r)
        }
        fn successor_of(&self, l: &LineageId) -> Result<Option<LineageId>, StoreError> {
            self.0.successor_of(l)
        }
        fn pending_successor_of(&self, l: &LineageId) -> Result<Option<LineageId>, StoreError> {
            self.0.pending_successor_of(l)
        }
    }

    impl IndexStore for Broken {
        fn lookup_target(&self, t: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
            self.0.lookup_target(t)
        }
        fn lookup_base(&self, b: &TreeId) -> Result<Option<LineageId>, StoreError> {
            self.0.lookup_base(b)
        }
        fn lookup_final(&self, t: &TreeId) -> Result<Option<LineageId>, StoreError> {
            self.0.lookup_final(t)
        }
        fn lookup_delta(&self, d: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
            self.0.lookup_delta(d)
        }
        fn index_delta(
            &self,
            r: &StateRecord,
            d: &Sha256Digest,
            e: &[Sha256Digest],
        ) -> Result<(), StoreError> {
            self.0.index_delta(r, d, e)
        }
        fn lookup_delta_entry(&self, e: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
            self.0.lookup_delta_entry(e)
        }
        fn lookup_open(&self, b: &TreeId) -> Result<Vec<LineageId>, StoreError> {
            self.0.lookup_open(b)
        }
        fn lookup_escalated(&self, b: &TreeId) -> Result<Vec<LineageId>, StoreError> {
            if self.1 == Flaw::NoEscalatedIndex {
                return Ok(Vec::new());
            }
            self.0.lookup_escalated(b)
        }
        fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
            if self.1 == Flaw::NoEscalatedIndex {
                return Ok(Vec::new());
            }
            self.0.lookup_escalations()
        }
    }

    impl ReceiptStore for Broken {
        fn ensure_projections(&self, r: &StateRecord) -> Result<(), StoreError> {
            self.0.ensure_projections(r)
        }
        fn read_receipt(&self, l: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
            if self.1 == Flaw::NoReceipts {
                return Ok(None);
            }
            self.0.read_receipt(l)
        }
        fn receipt_location(&self, l: &LineageId) -> String {
            self.0.receipt_location(l)
        }
    }

    impl ResultStore for Broken {
        fn submit_result(
            &self,
            l: &LineageId,
            lens: Lens,
            bytes: &[u8],
        ) -> Result<Submitted, StoreError> {
            match self.0.submit_result(l, lens, bytes) {
                Err(StoreError::ResultDiffers { .. }) if self.1 == Flaw::OverwritesResults => {
                    Ok(Submitted::New)
                }
                other => other,
            }
        }
        fn submitted_results(&self, l: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
            self.0.submitted_results(l)
        }
    }
}

#[test]
fn the_suite_notices_a_store_that_breaks_a_promise() {
    use broken::{Broken, Flaw};
    for (flaw, case) in [
        (Flaw::SwallowsConflicts, "stale_writers"),
        (Flaw::NoReceipts, "receipts_are_projections_of_state"),
        (Flaw::OverwritesResults, "submitted_results"),
        (Flaw::NoEscalatedIndex, "correction_and_escalation_indexes"),
    ] {
        let failures = store_conformance::run(|| Broken(InMemoryStore::new(), flaw))
            .expect_err("a broken store conformed");
        assert!(
            failures.0.iter().any(|f| f.case == case),
            "{case} did not fail: {failures}"
        );
    }
}
