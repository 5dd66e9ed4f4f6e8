//! One scenario for the driver tests: a repository whose base holds
//! `src/a.rs` and whose worktree adds three lines to it (medium risk: one
//! lens, `reliability`), on the testkit's in-memory adapters.

#![allow(dead_code)]

use probity_core::review::ids::LineageId;
use probity_core::review::lens::Lens;
use probity_core::review::state::StateRecord;
use probity_ports::review::{
    self as drivers, Delivery, FinalizeInput, Finalized, RecordStore, ReviewError,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents, verdict};

pub const BASE: &str = "fn a() {}\n";
/// Three lines added: line 2 is what the blocker names.
pub const CHANGE: &str = "fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n";
/// The fix of the blocker: one line changed.
pub const FIX: &str = "fn a() {}\nfn b() { 2 }\nfn c() {}\nfn d() {}\n";

pub struct World {
    pub git: FakeGit,
    pub store: InMemoryStore,
    pub clock: FixedClock,
}

/// The base committed and the change in the worktree; nothing started.
pub fn world() -> World {
    let git = FakeGit::with_base(&[("src/a.rs", BASE)]).unwrap();
    git.write("src/a.rs", CHANGE).unwrap();
    World {
        git,
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    }
}

impl World {
    pub fn start(&self) -> StateRecord {
        drivers::start(&self.git, &self.store, &self.clock, Lens::Reliability)
            .unwrap()
            .record
    }

    pub fn finalize(&self, input: FinalizeInput) -> Result<Finalized, ReviewError> {
        drivers::finalize(&self.git, &self.store, input)
    }

    /// Finalizes `lineage` with one input set.
    pub fn finalize_with(
        &self,
        lineage: &LineageId,
        f: impl FnOnce(&mut FinalizeInput),
    ) -> Result<Finalized, ReviewError> {
        let mut input = FinalizeInput {
            lineage: Some(lineage.clone()),
            ..Default::default()
        };
        f(&mut input);
        self.finalize(input)
    }

    /// Started, judged clean and approved on passing evidence.
    pub fn approve(&self) -> StateRecord {
        let l = self.start().state().lineage_id().clone();
        self.finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)];
            i.evidence = Some(documents::passing_check());
        })
        .unwrap()
        .record
    }

    /// Started and judged with the blocker: in correction.
    pub fn in_correction(&self) -> StateRecord {
        let l = self.start().state().lineage_id().clone();
        self.finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::BLOCKER)]
        })
        .unwrap()
        .record
    }

    pub fn load(&self, lineage: &LineageId) -> StateRecord {
        self.store.load(lineage).unwrap().unwrap()
    }

    /// The pre-commit gate over the worktree: (decision, reason code).
    pub fn gate(&self) -> (String, String) {
        verdict(&drivers::validate_pre_commit(&self.git, &self.store, &Delivery::Worktree).unwrap())
    }
}

/// `(decision, reason)` as owned strings.
pub fn says(decision: &str, reason: &str) -> (String, String) {
    (decision.to_string(), reason.to_string())
}
