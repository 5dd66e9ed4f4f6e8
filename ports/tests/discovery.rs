//! The discovery drivers on in-memory adapters: `live_lineage` finds the
//! lineage the live candidate belongs to (the one that froze it, or the
//! open correction it is the fix of) and writes nothing; `index_rebase_delta`
//! indexes exactly the approved, unsuperseded lineages by their delta
//! identity, idempotently, and nothing else.

mod common;

use common::*;
use probity_core::review::TreeDelta;
use probity_ports::review::{self as drivers, GitPort, IndexStore, ReviewError, TreeSpan};

#[test]
fn the_live_lineage_is_the_one_that_froze_the_candidate_or_the_correction_it_fixes() {
    let w = world();
    // Nothing started: no lineage, and nothing written.
    let empty = w.store.dump();
    let none = drivers::live_lineage(&w.git, &w.store).unwrap_err();
    assert!(matches!(none, ReviewError::NoReview), "{none:?}");
    assert_eq!(w.store.dump(), empty);

    let started = w.start();
    let held = w.store.dump();
    let found = drivers::live_lineage(&w.git, &w.store).unwrap();
    assert_eq!(found, started);
    assert_eq!(w.store.dump(), held, "discovery wrote");

    // In correction, the edited worktree is that correction's fix.
    let w = world();
    let open = w.in_correction();
    w.git.write("src/a.rs", FIX).unwrap();
    let found = drivers::live_lineage(&w.git, &w.store).unwrap();
    assert_eq!(found.state().lineage_id(), open.state().lineage_id());

    // A change elsewhere than the correction's paths is none of it.
    w.git.write("docs/other.md", "x\n").unwrap();
    w.git.mark_untracked("docs/other.md").unwrap();
    let refused = drivers::live_lineage(&w.git, &w.store).unwrap_err();
    assert!(matches!(refused, ReviewError::NoReview), "{refused:?}");
}

fn delta_identity(w: &World, record: &probity_core::review::StateRecord) -> TreeDelta {
    let s = record.state();
    let entries = w
        .git
        .tree_delta(TreeSpan {
            from: &s.snapshot().base_tree,
            to: s.final_candidate_tree(),
        })
        .unwrap()
        .unwrap();
    TreeDelta::new(entries).unwrap()
}

#[test]
fn only_an_approved_lineage_is_indexed_by_its_delta_and_again_changes_nothing() {
    // Approved: finalize indexed it; indexing again writes nothing new.
    let w = world();
    let approved = w.approve();
    let delta = delta_identity(&w, &approved);
    assert_eq!(
        w.store.lookup_delta(&delta.identity()).unwrap().as_ref(),
        Some(approved.state().lineage_id())
    );
    let held = w.store.dump();
    drivers::index_rebase_delta(&w.git, &w.store, &approved).unwrap();
    assert_eq!(w.store.dump(), held, "a second index changed the store");

    // In correction: not indexed, and asking writes nothing.
    let w = world();
    let open = w.in_correction();
    let held = w.store.dump();
    drivers::index_rebase_delta(&w.git, &w.store, &open).unwrap();
    assert_eq!(w.store.dump(), held);
    let delta = delta_identity(&w, &open);
    assert_eq!(w.store.lookup_delta(&delta.identity()).unwrap(), None);
}
