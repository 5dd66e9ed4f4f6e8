//! Delivered ranges on in-memory adapters: `delivered_range` lists what a
//! push delivers and `judge_range` judges it commit by commit (a reviewed
//! stack, an unreviewed commit in one, a root commit, a first publication
//! of a whole history, a merge, an empty range, the range bound); the
//! gates' `_between` forms turn an allow into a denial when what they read
//! moves while they decide (R8.7); and the release gate with evidence read
//! through an in-test `ReleaseArtifacts`. Every gate writes nothing.

mod common;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

use common::*;
use probity_core::digest::Sha256Digest;
use probity_core::review::CommitId;
use probity_core::review::Disposition;
use probity_core::review::Lens;
use probity_core::review::ProofKind;
use probity_core::review::StateRecord;
use probity_core::review::{
    Decision, DeliveredRange, Gate, GateDecision, MAX_RANGE_COMMITS, NextAction, RangeCommit,
    RangeJudgment, ReasonCode,
};
use probity_core::review::{ExpectedArtifact, ObservedArtifact, parse_checksums};
use probity_ports::review::{
    self as drivers, AdapterError, Delivery, PushBoundary, ReceiptStore, ReleaseArtifacts,
    ReleaseDecision, ReleaseEvidence, RemoteScope, ReviewError,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents};

/// The second slice of work on `src/a.rs`: three more lines after CHANGE.
const SLICE2: &str =
    "fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\nfn e() {}\nfn f() {}\nfn g() {}\n";

/// Judges `record` clean (one result per selected lens, none for a
/// zero-lens review) and approves it on a passing check.
fn approve_lineage(w: &World, record: &StateRecord) -> StateRecord {
    let lenses = record.state().frozen().selected_lenses.clone();
    w.finalize_with(record.state().lineage_id(), |i| {
        i.results = lenses
            .iter()
            .map(|l| documents::result_for(*l, documents::CLEAN))
            .collect();
        i.evidence = Some(documents::passing_check());
    })
    .unwrap()
    .record
}

/// Reviews and approves the live candidate, then commits it: the commit
/// and the approved record.
fn reviewed_commit(w: &World, message: &str) -> (CommitId, StateRecord) {
    let started = w.start();
    let approved = approve_lineage(w, &started);
    (w.git.commit(message).unwrap(), approved)
}

fn delivered(w: &World, tip: &CommitId, exclude: &[CommitId]) -> DeliveredRange {
    drivers::delivered_range(
        &w.git,
        vec!["refs/heads/main".into()],
        tip.clone(),
        exclude.to_vec(),
        &RemoteScope::None,
    )
    .unwrap()
}

fn ids(range: &DeliveredRange) -> Vec<CommitId> {
    range.commits.iter().map(|c| c.commit.clone()).collect()
}

fn world_on(git: FakeGit) -> World {
    World {
        git,
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    }
}

fn typed(d: &GateDecision) -> (Decision, ReasonCode) {
    (d.decision(), d.reason_code())
}

/// Asserts `d`'s (decision, reason code), naming its message when it
/// differs.
#[track_caller]
fn assert_typed(d: &GateDecision, expected: (Decision, ReasonCode)) {
    assert_eq!(typed(d), expected, "{}", d.message());
}

/// Judges `range` at pre-push, and checks the judgment wrote nothing.
fn judge_push(w: &World, range: &DeliveredRange) -> RangeJudgment {
    let held = w.store.dump();
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, range).unwrap();
    assert_eq!(w.store.dump(), held, "judging a range wrote to the store");
    judged
}

#[test]
fn a_stack_of_reviewed_commits_is_listed_newest_first_and_allowed_commit_by_commit() {
    let w = world();
    let base = w.git.head().unwrap();
    let (first, one) = reviewed_commit(&w, "first slice");
    w.git.write("src/a.rs", SLICE2).unwrap();
    let (second, two) = reviewed_commit(&w, "second slice");

    let range = delivered(&w, &second, std::slice::from_ref(&base));
    assert_eq!(range.refs, vec!["refs/heads/main".to_string()]);
    assert_eq!((&range.tip, range.count), (&second, 2));
    assert_eq!(ids(&range), vec![second.clone(), first.clone()]);
    assert_eq!(range.commits[0].parents, vec![first.clone()]);
    assert_eq!(range.commits[1].parents, vec![base.clone()]);
    assert!(range.problem.is_none());

    let held = w.store.dump();
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    assert_typed(
        &judged.decision,
        (Decision::Allow, ReasonCode::ReceiptValid),
    );
    assert!(
        judged.decision.message().contains("each of the 2 commits"),
        "{}",
        judged.decision.message()
    );
    // Each commit bound by the review of exactly its (parent tree, tree).
    let reports: Vec<_> = judged
        .stack
        .iter()
        .map(|r| (r.commit.clone(), r.decision, r.lineage_id.clone()))
        .collect();
    assert_eq!(
        reports,
        vec![
            (
                first,
                Decision::Allow,
                Some(one.state().lineage_id().clone())
            ),
            (
                second,
                Decision::Allow,
                Some(two.state().lineage_id().clone())
            ),
        ]
    );
    assert_eq!(w.store.dump(), held, "judging a range wrote to the store");
}

#[test]
fn one_unreviewed_commit_in_a_stack_denies_the_range_naming_it_and_the_review_it_needs() {
    let w = world();
    let base = w.git.head().unwrap();
    let (first, _) = reviewed_commit(&w, "first slice");
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    let unreviewed = w.git.commit("not reviewed").unwrap();
    w.git.write("src/a.rs", SLICE2).unwrap();
    let (third, _) = reviewed_commit(&w, "third slice");

    let range = delivered(&w, &third, std::slice::from_ref(&base));
    assert_eq!(range.count, 3);
    let held = w.store.dump();
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    let d = &judged.decision;
    assert_eq!(d.decision(), Decision::Deny);
    assert_eq!(d.next_action(), NextAction::StartCommitReview);
    let message = d.message();
    assert!(
        message.contains(&format!("commit {unreviewed} (2 of 3)")),
        "{message}"
    );
    assert!(
        message.contains(&format!("probity start --commit {unreviewed}")),
        "{message}"
    );
    let decisions: Vec<_> = judged
        .stack
        .iter()
        .map(|r| (r.commit.clone(), r.decision))
        .collect();
    assert_eq!(
        decisions,
        vec![
            (first, Decision::Allow),
            (unreviewed.clone(), Decision::Deny),
            (third.clone(), Decision::Allow),
        ]
    );
    // The work below the first slice's approval is not what it reviewed.
    assert_eq!(judged.stack[1].reason_code, d.reason_code());
    assert!(
        matches!(
            d.reason_code(),
            ReasonCode::ReceiptMissing | ReasonCode::ReceiptUnrelated
        ),
        "{:?}",
        d.reason_code()
    );
    // The pre-push gate over the same range answers the same.
    let push = drivers::validate_pre_push(
        &w.git,
        &w.store,
        &PushBoundary::Range {
            base: base.to_string(),
            tip: third.to_string(),
        },
    )
    .unwrap();
    assert_eq!(typed(&push), typed(d));
    assert_eq!(w.store.dump(), held, "a gate wrote to the store");

    // The named next step: review the commit as committed, then the whole
    // stack is allowed.
    let started = drivers::start_commit(
        &w.git,
        &w.store,
        &w.clock,
        Lens::Reliability,
        unreviewed.as_str(),
    )
    .unwrap()
    .started
    .unwrap();
    assert!(!started.resumed);
    approve_lineage(&w, &started.record);
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    assert_typed(
        &judged.decision,
        (Decision::Allow, ReasonCode::ReceiptValid),
    );
}

#[test]
fn a_root_commit_reviewed_on_an_unborn_head_is_a_delivery_of_its_own() {
    let w = world_on(FakeGit::unborn());
    w.git.write("src/a.rs", CHANGE).unwrap();
    let (root, approved) = reviewed_commit(&w, "root");
    let empty = drivers::CommitGit::empty_tree(&w.git).unwrap();
    assert_eq!(approved.state().snapshot().base_tree, empty);

    let range = delivered(&w, &root, &[]);
    assert_eq!(range.count, 1);
    assert!(range.commits[0].parents.is_empty());
    let judged = judge_push(&w, &range);
    assert_typed(
        &judged.decision,
        (Decision::Allow, ReasonCode::ReceiptValid),
    );
    assert_eq!(
        judged.decision.lineage_id(),
        Some(approved.state().lineage_id())
    );
    // Its own review binds it: no whole-history proof is needed.
    assert!(judged.decision.proof().is_none());
}

/// Two commits from a root: `src/a.rs`, then `src/b.rs` added (and, with
/// `secret`, a file committed first and removed later).
fn history(secret: bool) -> (World, CommitId) {
    let w = world_on(FakeGit::unborn());
    w.git.write("src/a.rs", CHANGE).unwrap();
    if secret {
        w.git
            .write("src/secret.rs", "const KEY: &str = \"k\";\n")
            .unwrap();
    }
    w.git.commit("root").unwrap();
    if secret {
        w.git.remove("src/secret.rs").unwrap();
    }
    w.git.write("src/b.rs", "fn b() {}\nfn c() {}\n").unwrap();
    let tip = w.git.commit("more").unwrap();
    (w, tip)
}

/// `start --history HEAD`, approved.
fn review_history(w: &World) -> StateRecord {
    let started = drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD")
        .unwrap()
        .started
        .unwrap();
    approve_lineage(w, &started.record)
}

#[test]
fn a_first_publication_is_covered_by_one_review_of_the_whole_history_of_reviewed_blobs() {
    let (w, tip) = history(false);
    let range = delivered(&w, &tip, &[]);
    assert_eq!(range.count, 2);
    let root = range.commits[1].clone();
    assert!(root.parents.is_empty(), "the range starts at a root");

    // Unreviewed: denied commit by commit, naming the whole-history review.
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    assert_eq!(judged.decision.decision(), Decision::Deny);
    assert!(
        judged
            .decision
            .message()
            .contains(&format!("probity start --history {tip}")),
        "{}",
        judged.decision.message()
    );

    let approved = review_history(&w);
    let empty = drivers::CommitGit::empty_tree(&w.git).unwrap();
    assert_eq!(approved.state().snapshot().base_tree, empty);
    let judged = judge_push(&w, &range);
    let d = &judged.decision;
    assert_typed(d, (Decision::Allow, ReasonCode::ReceiptValid));
    assert_eq!(d.lineage_id(), Some(approved.state().lineage_id()));
    let proof = d.proof().expect("a first publication names its proof");
    assert_eq!(proof.kind, ProofKind::FirstPublication);
    assert_eq!((&proof.receipt_base, &proof.live_base), (&empty, &empty));
    assert!(
        d.message()
            .contains(&format!("from the root {}", root.commit)),
        "{}",
        d.message()
    );
    // The commits are still reported as judged one by one: unreviewed.
    assert_eq!(judged.stack.len(), 2);
    assert!(judged.stack.iter().all(|r| r.decision == Decision::Deny));
}

#[test]
fn a_first_publication_carrying_an_overwritten_blob_is_denied_naming_it() {
    let (w, tip) = history(true);
    review_history(&w);
    let range = delivered(&w, &tip, &[]);
    let judged = judge_push(&w, &range);
    let d = &judged.decision;
    assert_typed(d, (Decision::Deny, ReasonCode::HistoryNotReviewed));
    assert_eq!(d.next_action(), NextAction::Squash);
    assert!(d.message().contains("src/secret.rs"), "{}", d.message());
}

#[test]
fn a_range_over_the_bound_is_denied_delivery_too_large_and_one_at_the_bound_is_judged() {
    // A clean worktree: every commit changes no bytes.
    let w = world_on(FakeGit::with_base(&[("src/a.rs", BASE)]).unwrap());
    let base = w.git.head().unwrap();
    let mut tip = base.clone();
    for i in 0..MAX_RANGE_COMMITS {
        tip = w.git.commit(&format!("empty {i}")).unwrap();
    }
    let at_bound = delivered(&w, &tip, std::slice::from_ref(&base));
    assert_eq!(
        (at_bound.count, at_bound.commits.len()),
        (MAX_RANGE_COMMITS, MAX_RANGE_COMMITS)
    );
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &at_bound).unwrap();
    assert_typed(&judged.decision, (Decision::Allow, ReasonCode::NoChange));
    assert_eq!(judged.stack.len(), MAX_RANGE_COMMITS);

    let over = w.git.commit("one more").unwrap();
    let range = delivered(&w, &over, std::slice::from_ref(&base));
    // Listed one past the bound; counted in full.
    assert_eq!(
        (range.count, range.commits.len()),
        (MAX_RANGE_COMMITS + 1, MAX_RANGE_COMMITS + 1)
    );
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    assert_typed(
        &judged.decision,
        (Decision::Deny, ReasonCode::DeliveryTooLarge),
    );
    assert_eq!(judged.decision.next_action(), NextAction::CheckRange);
    assert!(judged.stack.is_empty(), "no commit was judged");
    assert!(w.store.dump().is_empty());
}

#[test]
fn a_merge_or_an_empty_range_is_refused_at_the_boundary_before_any_commit_is_judged() {
    let w = world();
    let base = w.git.head().unwrap();
    let (first, _) = reviewed_commit(&w, "reviewed");
    // The fake's history is linear: the merge a server would receive is
    // described as its range lists it, on top of the reviewed commit.
    let merge = CommitId::parse("1".repeat(40)).unwrap();
    let side = CommitId::parse("2".repeat(40)).unwrap();
    let tree = drivers::CommitGit::commit_tree(&w.git, &first).unwrap();
    let listed = delivered(&w, &first, std::slice::from_ref(&base));
    let mut commits = vec![RangeCommit {
        commit: merge.clone(),
        tree,
        parents: vec![first.clone(), side],
    }];
    commits.extend(listed.commits);
    let range = DeliveredRange {
        refs: vec!["refs/heads/main".into()],
        tip: merge.clone(),
        commits,
        count: 2,
        problem: None,
    };
    // Nothing past the boundary may be asked of Git.
    const FAILING: [&str; 5] = [
        "commit_tree",
        "empty_tree",
        "tree_delta",
        "differing_paths",
        "history_deltas",
    ];
    for method in FAILING {
        w.git.fail(method);
    }
    let held = w.store.dump();
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &range).unwrap();
    let d = &judged.decision;
    assert_typed(d, (Decision::Deny, ReasonCode::DeliveryPartial));
    assert_eq!(d.next_action(), NextAction::Squash);
    assert!(
        d.message().contains(&format!("merge commit {merge}")),
        "{}",
        d.message()
    );
    assert!(
        d.message().contains(&format!("git rebase {base}")),
        "{}",
        d.message()
    );
    assert!(judged.stack.is_empty());

    // A tip the remote already holds delivers nothing.
    for method in FAILING {
        w.git.heal(method);
    }
    let empty = delivered(&w, &first, std::slice::from_ref(&first));
    assert_eq!(empty.count, 0);
    let judged = drivers::judge_range(&w.git, &w.store, Gate::PrePush, &empty).unwrap();
    assert_typed(
        &judged.decision,
        (Decision::Deny, ReasonCode::DeliveryEmpty),
    );
    assert_eq!(w.store.dump(), held);
}

/// A `between` writer: runs `write`, then keeps the store as it left it
/// (what the gate after it must not change).
fn writer<'a>(
    store: &'a InMemoryStore,
    left: &'a RefCell<Option<BTreeMap<String, Vec<u8>>>>,
    mut write: impl FnMut() + 'a,
) -> impl FnMut() + 'a {
    move || {
        write();
        *left.borrow_mut() = Some(store.dump());
    }
}

fn left_as_is(store: &InMemoryStore, left: &RefCell<Option<BTreeMap<String, Vec<u8>>>>) {
    let left = left.borrow();
    let left = left.as_ref().expect("the writer ran");
    assert!(*left == store.dump(), "the gate wrote after the writer");
}

fn authority_changed(d: &GateDecision, what: &str) {
    assert_typed(d, (Decision::Deny, ReasonCode::AuthorityChanged));
    assert_eq!(d.next_action(), NextAction::Retry);
    assert!(d.message().contains(what), "{what}: {}", d.message());
}

/// Runs a `_between` gate whose seam does `write` while it decides: the
/// gate's answer (`decision` of it) is `authority_changed` naming `what`,
/// and nothing is written after the writer. Returns the answer.
fn moved_mid_gate<T>(
    store: &InMemoryStore,
    write: impl FnMut(),
    gate: impl FnOnce(&mut dyn FnMut()) -> Result<T, ReviewError>,
    decision: impl Fn(&T) -> &GateDecision,
    what: &str,
) -> T {
    let left = RefCell::new(None);
    let answer = gate(&mut writer(store, &left, write)).unwrap();
    authority_changed(decision(&answer), what);
    left_as_is(store, &left);
    answer
}

#[test]
fn pre_commit_between_denies_an_allow_whose_receipt_or_staged_tree_moved() {
    let (w, approved, l) = approved();
    w.git.stage();
    let index = Delivery::Index("index".into());
    let calls = Cell::new(0);
    let d = drivers::validate_pre_commit_between(&w.git, &w.store, &index, &mut || {
        calls.set(calls.get() + 1)
    })
    .unwrap();
    assert_typed(&d, (Decision::Allow, ReasonCode::ReceiptValid));
    assert_eq!(calls.get(), 1, "an allow runs the writer seam once");

    // The receipt goes while the gate decides.
    let pre_commit = |between: &mut dyn FnMut()| {
        drivers::validate_pre_commit_between(&w.git, &w.store, &index, between)
    };
    moved_mid_gate(
        &w.store,
        || assert!(w.store.remove_receipt(&l)),
        pre_commit,
        |d| d,
        &format!("the receipt file of {l} changed"),
    );
    w.store.ensure_projections(&approved).unwrap();

    // The index being committed is staged again with other bytes.
    moved_mid_gate(
        &w.store,
        || {
            w.git.write("src/a.rs", FIX).unwrap();
            w.git.stage();
        },
        pre_commit,
        |d| d,
        "the live target changed",
    );

    // The worktree candidate is not rebuilt (the commit's own hook judges
    // the index it commits): an edit of it mid-gate leaves the allow.
    let w = world();
    w.approve();
    let d =
        drivers::validate_pre_commit_between(&w.git, &w.store, &Delivery::Worktree, &mut || {
            w.git.write("src/a.rs", FIX).unwrap()
        })
        .unwrap();
    assert_typed(&d, (Decision::Allow, ReasonCode::ReceiptValid));
}

#[test]
fn a_denial_is_answered_without_running_the_writer_seam() {
    let w = world();
    let calls = Cell::new(0);
    let mut count = || calls.set(calls.get() + 1);
    // The unreviewed worktree candidate.
    let d = drivers::validate_pre_commit_between(&w.git, &w.store, &Delivery::Worktree, &mut count)
        .unwrap();
    assert_typed(&d, (Decision::Deny, ReasonCode::ReceiptMissing));
    // Committed: the clean worktree changes no bytes (allowed with no
    // authority read, so nothing to recheck), and the commit is denied at
    // every publication gate.
    let base = w.git.head().unwrap();
    let tip = w.git.commit("not reviewed").unwrap();
    let d = drivers::validate_pre_commit_between(&w.git, &w.store, &Delivery::Worktree, &mut count)
        .unwrap();
    assert_typed(&d, (Decision::Allow, ReasonCode::NoChange));
    let boundary = PushBoundary::Range {
        base: base.to_string(),
        tip: tip.to_string(),
    };
    let d = drivers::validate_pre_push_between(&w.git, &w.store, &boundary, &mut count).unwrap();
    assert_typed(&d, (Decision::Deny, ReasonCode::ReceiptMissing));
    let pr =
        drivers::validate_pre_pr_between(&w.git, &w.store, base.as_str(), tip.as_str(), &mut count)
            .unwrap();
    assert_typed(&pr.decision, (Decision::Deny, ReasonCode::ReceiptMissing));
    let release =
        drivers::validate_release_between(&w.git, &w.store, "HEAD", None, &mut count).unwrap();
    assert_typed(
        &release.decision,
        (Decision::Deny, ReasonCode::ReceiptMissing),
    );
    assert_eq!(
        calls.get(),
        0,
        "the seam runs only before an allow's recheck"
    );
    assert!(w.store.dump().is_empty());
}

#[test]
fn pre_push_between_denies_when_a_revision_moves_or_a_recovery_lands() {
    let w = world();
    let base = w.git.head().unwrap();
    reviewed_commit(&w, "reviewed");
    let boundary = PushBoundary::Range {
        base: base.to_string(),
        tip: "HEAD".into(),
    };
    let d = drivers::validate_pre_push_between(&w.git, &w.store, &boundary, &mut || {}).unwrap();
    assert_typed(&d, (Decision::Allow, ReasonCode::ReceiptValid));

    // HEAD moves while the gate decides.
    let held = w.store.dump();
    let d = drivers::validate_pre_push_between(&w.git, &w.store, &boundary, &mut || {
        w.git.commit("moved on").unwrap();
    })
    .unwrap();
    authority_changed(&d, "`HEAD` now names another commit");
    assert_eq!(w.store.dump(), held);

    // A recovery of the approving lineage lands while the gate decides.
    let w = world();
    let base = w.git.head().unwrap();
    let (tip, approved) = reviewed_commit(&w, "reviewed");
    let l2 = approved.state().lineage_id().clone();
    let boundary = PushBoundary::Range {
        base: base.to_string(),
        tip: tip.to_string(),
    };
    moved_mid_gate(
        &w.store,
        || {
            w.git.write("src/a.rs", FIX).unwrap();
            w.recover(
                &l2,
                recover_request(&approved, Disposition::ScopeChanged, "more work", "dev"),
            )
            .unwrap();
        },
        |between| drivers::validate_pre_push_between(&w.git, &w.store, &boundary, between),
        |d| d,
        &format!("a recovery of {l2} started or landed"),
    );
}

#[test]
fn pre_pr_between_denies_when_the_record_it_read_is_replaced() {
    let w = world();
    let base = w.git.head().unwrap();
    let l = w.start().state().lineage_id().clone();
    let validating = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)]
        })
        .unwrap()
        .record;
    w.finalize_with(&l, |i| i.evidence = Some(documents::passing_check()))
        .unwrap();
    w.git.commit("reviewed").unwrap();
    let pr = drivers::validate_pre_pr_between(&w.git, &w.store, base.as_str(), "HEAD", &mut || {})
        .unwrap();
    assert_typed(&pr.decision, (Decision::Allow, ReasonCode::ReceiptValid));

    // The stored record is replaced by an earlier revision of it.
    let pr = moved_mid_gate(
        &w.store,
        || w.store.overwrite_state(&l, validating.to_bytes().unwrap()),
        |between| {
            drivers::validate_pre_pr_between(&w.git, &w.store, base.as_str(), "HEAD", between)
        },
        |pr| &pr.decision,
        &format!("the record of {l} changed"),
    );
    assert!(pr.base_advance.is_none());
    assert_eq!(w.load(&l), validating);
}

/// Release artifacts held in memory: each read counted, a name made
/// unreadable on demand.
#[derive(Default)]
struct Artifacts {
    files: RefCell<BTreeMap<String, Vec<u8>>>,
    unreadable: RefCell<BTreeSet<String>>,
    reads: Cell<usize>,
}

impl Artifacts {
    fn with(files: &[(&str, &[u8])]) -> Self {
        let a = Self::default();
        for (name, bytes) in files {
            a.put(name, bytes);
        }
        a
    }

    fn put(&self, name: &str, bytes: &[u8]) {
        self.files
            .borrow_mut()
            .insert(name.to_string(), bytes.to_vec());
    }
}

impl ReleaseArtifacts for Artifacts {
    fn observe(
        &self,
        expected: &[ExpectedArtifact],
    ) -> Result<Vec<ObservedArtifact>, AdapterError> {
        self.reads.set(self.reads.get() + 1);
        let files = self.files.borrow();
        expected
            .iter()
            .map(|e| {
                if self.unreadable.borrow().contains(&e.name) {
                    return Err(format!("{} cannot be read", e.name).into());
                }
                Ok(ObservedArtifact {
                    name: e.name.clone(),
                    sha256: files.get(&e.name).map(|b| Sha256Digest::plain(b)),
                })
            })
            .collect()
    }
}

/// A `sha256sum` checksums file for `files`, parsed by core.
fn checksums(files: &[(&str, &[u8])]) -> Vec<ExpectedArtifact> {
    let text: String = files
        .iter()
        .map(|(name, bytes)| format!("{}  {name}\n", Sha256Digest::plain(bytes).hex()))
        .collect();
    parse_checksums(&text).unwrap()
}

const APP: (&str, &[u8]) = ("dist/app.tar.gz", b"the app\n");
const SIG: (&str, &[u8]) = ("dist/app.sig", b"signed\n");

/// The release gate at `HEAD` with `expected` checksums over `artifacts`.
fn release_with(
    w: &World,
    expected: &[ExpectedArtifact],
    artifacts: &Artifacts,
) -> Result<ReleaseDecision, ReviewError> {
    drivers::validate_release(
        &w.git,
        &w.store,
        "HEAD",
        Some(ReleaseEvidence {
            expected,
            artifacts,
        }),
    )
}

#[test]
fn release_evidence_is_read_twice_and_must_match_its_checksums() {
    let w = world();
    let (released, _) = reviewed_commit(&w, "reviewed");
    let held = w.store.dump();
    let expected = checksums(&[APP, SIG]);
    let artifacts = Artifacts::with(&[APP, SIG]);
    let evidence = ReleaseEvidence {
        expected: &expected,
        artifacts: &artifacts,
    };
    let r = drivers::validate_release(&w.git, &w.store, "HEAD", Some(evidence)).unwrap();
    assert_typed(&r.decision, (Decision::Allow, ReasonCode::ReceiptValid));
    assert!(
        r.decision
            .message()
            .contains("2 release artifact(s) match their checksums"),
        "{}",
        r.decision.message()
    );
    assert_eq!(r.revision_commit, Some(released.clone()));
    let observed = r.observed.unwrap();
    assert_eq!(observed.len(), 2);
    assert!(
        observed
            .iter()
            .zip(&expected)
            .all(|(o, e)| o.name == e.name && o.sha256 == Some(e.sha256))
    );
    assert_eq!(artifacts.reads.get(), 2, "judged, then read again");

    // One missing, one whose bytes are not the ones the checksums name.
    let expected = checksums(&[APP, SIG, ("dist/missing.zip", b"x")]);
    let artifacts = Artifacts::with(&[APP, (SIG.0, b"tampered\n")]);
    let r = release_with(&w, &expected, &artifacts).unwrap();
    assert_typed(
        &r.decision,
        (Decision::Deny, ReasonCode::ReleaseEvidenceMismatch),
    );
    let message = r.decision.message();
    assert!(message.contains("missing: dist/missing.zip"), "{message}");
    assert!(
        message.contains("digest differs: dist/app.sig"),
        "{message}"
    );
    assert_eq!(artifacts.reads.get(), 1, "a denial is not read again");

    // An artifact that cannot be read is an error, not a mismatch.
    let expected = checksums(&[APP]);
    let artifacts = Artifacts::with(&[APP]);
    artifacts.unreadable.borrow_mut().insert(APP.0.to_string());
    let err = release_with(&w, &expected, &artifacts).unwrap_err();
    assert_err!(err, ReviewError::Artifacts(_));

    // Matching evidence never releases an unreviewed revision.
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    w.git.commit("not reviewed").unwrap();
    let artifacts = Artifacts::with(&[APP]);
    let r = release_with(&w, &expected, &artifacts).unwrap();
    assert_eq!(r.decision.decision(), Decision::Deny);
    assert_ne!(
        r.decision.reason_code(),
        ReasonCode::ReleaseEvidenceMismatch
    );
    assert_eq!(artifacts.reads.get(), 1);
    assert_eq!(w.store.dump(), held, "the release gate wrote to the store");
}

#[test]
fn a_release_of_an_empty_commit_releases_the_bytes_below_it() {
    let w = world();
    let (reviewed, _) = reviewed_commit(&w, "reviewed");
    let tag = w.git.commit("release 1.0 (no change)").unwrap();
    let r = drivers::validate_release(&w.git, &w.store, "HEAD", None).unwrap();
    assert_typed(&r.decision, (Decision::Allow, ReasonCode::ReceiptValid));
    assert!(
        r.decision.message().contains(&format!(
            "{tag} changes no bytes, so it releases the bytes of {reviewed}"
        )),
        "{}",
        r.decision.message()
    );
    assert_eq!(r.revision_commit, Some(tag));
    assert!(r.observed.is_none());
    // An empty commit never launders an unreviewed change below it.
    w.git.write("src/b.rs", "fn b2() {}\n").unwrap();
    w.git.commit("not reviewed").unwrap();
    w.git.commit("release 1.1 (no change)").unwrap();
    let r = drivers::validate_release(&w.git, &w.store, "HEAD", None).unwrap();
    assert_eq!(r.decision.decision(), Decision::Deny);
}

#[test]
fn release_between_denies_a_moved_revision_changed_artifacts_or_a_changed_receipt() {
    let w = world();
    let (released, approved) = reviewed_commit(&w, "reviewed");
    let l = approved.state().lineage_id().clone();
    let expected = checksums(&[APP]);
    let artifacts = Artifacts::with(&[APP]);
    let evidence = || ReleaseEvidence {
        expected: &expected,
        artifacts: &artifacts,
    };
    let held = w.store.dump();

    // The revision moves while the gate decides.
    let r =
        drivers::validate_release_between(&w.git, &w.store, "HEAD", Some(evidence()), &mut || {
            w.git.commit("moved on").unwrap();
        })
        .unwrap();
    assert_typed(
        &r.decision,
        (Decision::Deny, ReasonCode::ReleaseRevisionMoved),
    );
    assert!(
        r.decision
            .message()
            .contains(&format!("`HEAD` moved from {released}")),
        "{}",
        r.decision.message()
    );
    assert_eq!(r.revision_commit, Some(released.clone()));
    assert_eq!(w.store.dump(), held);

    // The artifact is rewritten while the gate decides (the revision is
    // named by its id now, so it cannot move).
    let rev = released.to_string();
    artifacts.reads.set(0);
    let r =
        drivers::validate_release_between(&w.git, &w.store, &rev, Some(evidence()), &mut || {
            artifacts.put(APP.0, b"rebuilt\n")
        })
        .unwrap();
    assert_typed(
        &r.decision,
        (Decision::Deny, ReasonCode::ReleaseEvidenceChanged),
    );
    assert!(
        r.decision.message().contains(APP.0),
        "{}",
        r.decision.message()
    );
    assert_eq!(artifacts.reads.get(), 2);
    // The answer carries the artifacts as judged (the first reading).
    assert_eq!(
        r.observed.unwrap()[0].sha256,
        Some(Sha256Digest::plain(APP.1))
    );
    artifacts.put(APP.0, APP.1);

    // The receipt is rewritten while the gate decides.
    moved_mid_gate(
        &w.store,
        || w.store.overwrite_receipt(&l, b"{}\n".to_vec()),
        |between| {
            drivers::validate_release_between(&w.git, &w.store, &rev, Some(evidence()), between)
        },
        |r| &r.decision,
        &format!("the receipt file of {l} changed"),
    );
    // With nothing moving, the same release is allowed.
    w.store
        .overwrite_receipt(&l, held[&format!("{l}/receipt.json")].clone());
    let r = drivers::validate_release_between(&w.git, &w.store, &rev, Some(evidence()), &mut || {})
        .unwrap();
    assert_typed(&r.decision, (Decision::Allow, ReasonCode::ReceiptValid));
    assert_eq!(w.store.dump(), held);
}
