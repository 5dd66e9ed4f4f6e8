//! The publication gates on in-memory adapters: `validate_pre_push` over an
//! explicit range, `validate_pre_pr` and `validate_release` judge each
//! delivered commit against the review that approved exactly its change,
//! deny what no review covers (naming the next step), and write nothing.

mod common;

use common::*;
use probity_core::review::{CommitId, GateDecision};
use probity_ports::review::{self as drivers, PrDecision, PushBoundary};
use probity_testkit::verdict;

/// The pre-push gate's decision on the range `base..tip`.
fn push_decision(w: &World, base: &str, tip: &str) -> GateDecision {
    let boundary = PushBoundary::Range {
        base: base.into(),
        tip: tip.into(),
    };
    drivers::validate_pre_push(&w.git, &w.store, &boundary).unwrap()
}

fn push(w: &World, base: &str, tip: &str) -> (String, String) {
    verdict(&push_decision(w, base, tip))
}

/// The base, and the approved change committed on it with `message`.
fn approved_commit(w: &World, message: &str) -> (CommitId, CommitId) {
    let base = w.git.head().unwrap();
    w.approve();
    (base, w.git.commit(message).unwrap())
}

/// The pre-push and pre-PR gates on `base..tip`, which write nothing: the
/// pre-push verdict and the pre-PR decision.
fn push_and_pr(w: &World, base: &str, tip: &str) -> ((String, String), PrDecision) {
    let held = w.store.dump();
    let push = push(w, base, tip);
    let pr = drivers::validate_pre_pr(&w.git, &w.store, base, tip).unwrap();
    assert_eq!(w.store.dump(), held, "a gate wrote to the store");
    (push, pr)
}

#[test]
fn a_reviewed_commit_is_allowed_at_pre_push_and_pre_pr_and_the_gates_write_nothing() {
    let w = world();
    let (base, tip) = approved_commit(&w, "the reviewed change");
    let (push, pr) = push_and_pr(&w, base.as_str(), tip.as_str());
    assert_eq!(push, says("allow", "receipt_valid"));
    assert_eq!(verdict(&pr.decision), says("allow", "receipt_valid"));
    assert!(pr.base_advance.is_none());
}

#[test]
fn an_unreviewed_commit_and_an_amended_one_are_denied_with_a_next_step() {
    let w = world();
    let base = w.git.head().unwrap();
    // Committed before any review: the next step reviews the commit.
    let unreviewed = w.git.commit("not reviewed").unwrap();
    let d = push_decision(&w, base.as_str(), unreviewed.as_str());
    assert_eq!(verdict(&d), says("deny", "receipt_missing"));
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["next_action"], "start_commit_review", "{json}");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains(&format!("probity start --commit {unreviewed}")),
        "{json}"
    );
    // Approved, then amended with an edit of a reviewed path: denied.
    let w = world();
    let base = w.git.head().unwrap();
    w.approve();
    w.git.write("src/a.rs", FIX).unwrap();
    let amended = w.git.commit("the change, edited after review").unwrap();
    let (push, pr) = push_and_pr(&w, base.as_str(), amended.as_str());
    assert_eq!(push, says("deny", "receipt_scope_changed"));
    assert_eq!(verdict(&pr.decision), says("deny", "receipt_scope_changed"));
}

#[test]
fn a_stack_is_judged_commit_by_commit_and_names_the_first_it_cannot_vouch_for() {
    let w = world();
    let (base, first) = approved_commit(&w, "first slice");
    // The second slice is not reviewed.
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    let second = w.git.commit("second slice").unwrap();
    assert_eq!(
        push(&w, base.as_str(), first.as_str()),
        says("allow", "receipt_valid")
    );
    let d = push_decision(&w, base.as_str(), second.as_str());
    assert_eq!(verdict(&d).0, "deny");
    let message = serde_json::to_value(&d).unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("2 of 2"), "{message}");
    assert!(message.contains(second.as_str()), "{message}");
}

#[test]
fn a_release_of_a_reviewed_revision_is_allowed_and_of_an_unreviewed_one_denied() {
    let w = world();
    w.approve();
    w.git.commit("the reviewed change").unwrap();
    let held = w.store.dump();
    let release = drivers::validate_release(&w.git, &w.store, "HEAD", None).unwrap();
    assert_eq!(verdict(&release.decision), says("allow", "receipt_valid"));
    // An unreviewed change on top: the release of HEAD is denied, and the
    // reviewed revision below it still releases.
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    w.git.commit("not reviewed").unwrap();
    let denied = drivers::validate_release(&w.git, &w.store, "HEAD", None).unwrap();
    assert_eq!(verdict(&denied.decision).0, "deny");
    let below = drivers::validate_release(&w.git, &w.store, "HEAD~1", None).unwrap();
    assert_eq!(verdict(&below.decision), says("allow", "receipt_valid"));
    assert_eq!(w.store.dump(), held, "a gate wrote to the store");
}
