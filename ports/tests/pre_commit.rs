//! `validate_pre_commit` on in-memory adapters: allow only what an approved
//! receipt binds exactly, deny everything else, and write nothing.

mod common;

use common::*;
use probity_ports::review::{self as drivers, Delivery, ReceiptStore, ReviewError};
use probity_testkit::{documents, verdict};

#[test]
fn no_review_denies_and_a_review_in_progress_denies() {
    let w = world();
    assert_eq!(w.gate(), says("deny", "receipt_missing"));
    w.start();
    assert_eq!(w.gate(), says("deny", "review_incomplete"));
    assert!(
        w.store.dump().len() == 2,
        "the gates wrote: {:?}",
        w.store.dump().keys()
    );
}

#[test]
fn an_approved_candidate_is_allowed_and_the_gate_writes_nothing() {
    let w = world();
    let approved = w.approve();
    let held = w.store.dump();
    let decision = drivers::validate_pre_commit(&w.git, &w.store, &Delivery::Worktree).unwrap();
    assert_eq!(verdict(&decision), says("allow", "receipt_valid"));
    let json = serde_json::to_value(&decision).unwrap();
    assert_eq!(json["lineage_id"], approved.state().lineage_id().as_str());
    assert_eq!(w.store.dump(), held);
}

#[test]
fn the_staged_index_is_judged_as_what_the_commit_delivers() {
    let w = world();
    w.approve();
    w.git.stage();
    // The worktree moves on after staging; the index still delivers the
    // approved candidate.
    w.git.write("src/a.rs", FIX).unwrap();
    let index = Delivery::Index("index".into());
    assert_eq!(
        verdict(&drivers::validate_pre_commit(&w.git, &w.store, &index).unwrap()),
        says("allow", "receipt_valid")
    );
    assert_eq!(w.gate(), says("deny", "receipt_scope_changed"));
}

#[test]
fn an_edit_of_a_reviewed_path_and_unrelated_new_work_are_denied() {
    let w = world();
    w.approve();
    w.git
        .write("src/a.rs", format!("{CHANGE}// a comment\n"))
        .unwrap();
    assert_eq!(w.gate(), says("deny", "receipt_scope_changed"));
    w.git.write("src/a.rs", CHANGE).unwrap();
    w.git.write("src/other.rs", "fn other() {}\n").unwrap();
    assert_eq!(w.gate(), says("deny", "receipt_unrelated"));
}

#[test]
fn after_the_approved_candidate_is_committed_a_clean_worktree_changes_nothing() {
    let w = world();
    w.approve();
    w.git.commit("add b, c, d").unwrap();
    assert_eq!(w.gate(), says("allow", "no_change"));
}

#[test]
fn a_receipt_lost_before_its_projection_denies_until_finalize_writes_it() {
    let w = world();
    let approved = w.approve();
    let l = approved.state().lineage_id();
    assert!(w.store.remove_receipt(l));
    assert_eq!(w.gate(), says("deny", "receipt_mismatch"));
    w.finalize_with(l, |_| {}).unwrap();
    assert_eq!(w.gate(), says("allow", "receipt_valid"));
}

#[test]
fn an_escalated_review_is_denied() {
    let (w, l) = started();
    w.finalize_with(&l, |i| {
        i.results = vec![documents::result(documents::ESCALATING)]
    })
    .unwrap();
    assert_eq!(w.gate(), says("deny", "review_escalated"));
}

#[test]
fn a_fix_in_progress_is_denied_and_pointed_at_its_correction() {
    let w = world();
    let open = w.in_correction();
    w.git.write("src/a.rs", FIX).unwrap();
    let decision = drivers::validate_pre_commit(&w.git, &w.store, &Delivery::Worktree).unwrap();
    assert_eq!(verdict(&decision).0, "deny");
    let json = serde_json::to_value(&decision).unwrap();
    assert_eq!(
        json["lineage_id"],
        open.state().lineage_id().as_str(),
        "{json}"
    );
}

#[test]
fn a_repository_failure_is_an_error_never_a_decision() {
    let w = world();
    w.approve();
    w.git.fail("live_target");
    let err = drivers::validate_pre_commit(&w.git, &w.store, &Delivery::Worktree).unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
}

#[test]
fn a_writer_between_the_derivation_and_the_recheck_turns_the_allow_into_a_denial() {
    let (w, _, l) = approved();
    let decision =
        drivers::validate_pre_commit_between(&w.git, &w.store, &Delivery::Worktree, &mut || {
            w.store.remove_receipt(&l);
        })
        .unwrap();
    assert_eq!(verdict(&decision).0, "deny", "{decision:?}");
    assert!(w.store.read_receipt(&l).unwrap().is_none());
}
