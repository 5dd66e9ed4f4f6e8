//! `start`, `start_commit` and `start_range` on in-memory adapters: what is
//! frozen, what resumes, and what is refused with nothing written.

mod common;

use common::*;
use probity_core::review::Lens;
use probity_core::review::Stage;
use probity_core::review::{LineageId, StateRecord};
use probity_ports::review::{self as drivers, IndexStore, ReviewError};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore};

#[test]
fn start_freezes_the_live_candidate_and_a_second_start_resumes_it() {
    let w = world();
    let started = w.try_start().unwrap();
    assert!(!started.resumed);
    let s = started.record.state();
    assert_eq!(s.snapshot().base_tree, w.git.base_tree().unwrap());
    assert_eq!(s.snapshot().candidate_tree, w.git.candidate_tree().unwrap());
    assert_eq!(s.snapshot().paths.len(), 1);
    assert!(s.snapshot().diff.is_some(), "the diff anchor is frozen");
    assert_eq!(s.frozen().selected_lenses, vec![Lens::Reliability]);
    assert!(matches!(s.stage(), Stage::Reviewing));
    assert_eq!(*s.created_at(), probity_ports::review::Clock::now(&w.clock));
    assert_eq!(
        w.store.lookup_target(&s.snapshot().target).unwrap(),
        Some(s.lineage_id().clone())
    );
    let held = w.store.dump();
    // Another clock reading: the same candidate resumes its lineage.
    let later = FixedClock::at("2027-01-01T00:00:00Z", "ffffffffffffffffffffffffffffffff").unwrap();
    let again = drivers::start(&w.git, &w.store, &later, Lens::Risk).unwrap();
    assert!(again.resumed);
    assert_eq!(again.record, started.record);
    assert_eq!(w.store.dump(), held, "a resumed start writes nothing");
}

#[test]
fn a_clean_worktree_on_a_commit_points_at_start_commit() {
    let git = FakeGit::with_base(&[("src/a.rs", BASE)]).unwrap();
    let store = InMemoryStore::new();
    let err = drivers::start(&git, &store, &FixedClock::fixture(), Lens::Reliability).unwrap_err();
    assert_err!(err, ReviewError::NothingUncommitted { head } if Some(head) == git.head().as_ref());
    assert!(store.dump().is_empty());
}

#[test]
fn a_repository_failure_is_an_error_and_writes_nothing() {
    let w = world();
    w.git.fail("frozen_diff");
    let err = w.try_start().unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
    assert!(w.store.dump().is_empty());
    w.git.heal("frozen_diff");
    w.start();
}

#[test]
fn a_low_risk_change_selects_no_lens_and_a_high_risk_one_all_four() {
    let git = FakeGit::with_base(&[("docs/notes.md", "# notes\n")]).unwrap();
    git.write("docs/notes.md", "# notes\n\nmore\n").unwrap();
    let store = InMemoryStore::new();
    let low = drivers::start(&git, &store, &FixedClock::fixture(), Lens::Reliability).unwrap();
    assert!(low.record.state().frozen().selected_lenses.is_empty());

    let git = FakeGit::with_base(&[("src/auth/login.rs", BASE)]).unwrap();
    git.write("src/auth/login.rs", CHANGE).unwrap();
    let high = drivers::start(&git, &store, &FixedClock::fixture(), Lens::Reliability).unwrap();
    assert_eq!(
        high.record.state().frozen().selected_lenses,
        Lens::CANONICAL
    );
}

/// The refusal of a start of the live candidate, which writes nothing.
#[track_caller]
fn refused_start(w: &World) -> ReviewError {
    let held = w.store.dump();
    let err = w.try_start().unwrap_err();
    assert_eq!(w.store.dump(), held, "a refused start wrote: {err}");
    err
}

/// The live candidate started and escalated, and its lineage.
#[track_caller]
fn escalated(w: &World) -> (StateRecord, LineageId) {
    let escalated = w.escalate();
    assert_eq!(escalated.state().stage().name(), "escalated");
    let l = escalated.state().lineage_id().clone();
    (escalated, l)
}

#[test]
fn a_new_start_over_an_open_correction_is_refused() {
    let w = world();
    let open = w.in_correction();
    // Another candidate on the same base touching the same path.
    w.git
        .write("src/a.rs", "fn a() {}\nfn other() {}\n")
        .unwrap();
    let err = refused_start(&w);
    assert_err!(err, ReviewError::CorrectionOpen { lineage } if lineage == open.state().lineage_id());
}

#[test]
fn a_new_start_over_an_escalated_lineages_paths_is_refused_naming_its_revision() {
    let w = world();
    let (escalated, l) = escalated(&w);
    w.git
        .write("src/a.rs", "fn a() {}\nfn side_step() {}\n")
        .unwrap();
    let err = refused_start(&w);
    assert_err!(err, ReviewError::LineageEscalated { lineage, revision, .. }
            if *lineage == l && *revision == escalated.revision());
}

#[test]
fn an_invalidated_candidate_is_not_started_again() {
    let (w, l) = started();
    let reason = probity_core::review::NonBlank::parse("wrong branch").unwrap();
    drivers::invalidate(&w.store, &l, reason).unwrap();
    let err = w.try_start().unwrap_err();
    assert_err!(err, ReviewError::NotResumable(probity_core::review::ResumeRefused::Invalidated { lineage, .. }) if *lineage == l);
}

#[test]
fn start_commit_freezes_a_commit_against_its_parent_and_refuses_an_empty_one() {
    let w = world();
    let parent_tree = w.git.base_tree().unwrap();
    let commit = w.git.commit("change").unwrap();
    let started =
        drivers::start_commit(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD").unwrap();
    assert_eq!(started.commit, commit);
    let record = started.started.unwrap().record;
    assert_eq!(record.state().snapshot().base_tree, parent_tree);
    assert_eq!(
        record.state().snapshot().candidate_tree,
        w.git.base_tree().unwrap()
    );
    // A commit that changes no bytes has nothing to review.
    w.git.commit("empty").unwrap();
    let err =
        drivers::start_commit(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD").unwrap_err();
    assert_err!(err, ReviewError::CommitNoChange { .. });
    // An unknown revision is the repository's error.
    let err =
        drivers::start_commit(&w.git, &w.store, &w.clock, Lens::Reliability, "nope").unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
}

#[test]
fn start_range_starts_one_lineage_per_commit_oldest_first() {
    let w = world();
    let base = w.git.head().unwrap();
    let first = w.git.commit("one").unwrap();
    w.git.write("src/a.rs", FIX).unwrap();
    let second = w.git.commit("two").unwrap();
    w.git.commit("empty").unwrap();
    let starts = drivers::start_range(
        &w.git,
        &w.store,
        &w.clock,
        Lens::Reliability,
        base.as_str(),
        "HEAD",
    )
    .unwrap();
    let commits: Vec<_> = starts.iter().map(|s| s.commit.clone()).collect();
    assert_eq!(commits[..2], [first, second]);
    assert!(starts[0].started.is_some() && starts[1].started.is_some());
    assert!(
        starts[2].started.is_none(),
        "an empty commit gets no lineage"
    );
}

/// Issue 21 §8: moving the base under an escalated change (the change set
/// aside, something else committed, the change put back) does not let a
/// fresh start cover it; unrelated work on the moved base starts.
#[test]
fn moving_the_base_does_not_side_step_an_escalation() {
    let w = world();
    let (escalated, l) = escalated(&w);
    // stash; commit something else; stash pop.
    w.git.write("src/a.rs", BASE).unwrap();
    w.git.write("docs/other.md", "elsewhere\n").unwrap();
    w.git.commit("unrelated").unwrap();
    w.git.write("src/a.rs", CHANGE).unwrap();
    assert_ne!(
        w.git.base_tree().unwrap(),
        escalated.state().snapshot().base_tree
    );
    let err = refused_start(&w);
    assert_err!(err, ReviewError::LineageEscalated { lineage, revision, .. }
            if lineage == &l && *revision == escalated.revision());
    // Work elsewhere on the moved base is another review.
    w.git.write("src/a.rs", BASE).unwrap();
    w.git.write("docs/other.md", "elsewhere, again\n").unwrap();
    w.try_start().unwrap();
}

#[test]
fn start_range_refuses_an_empty_or_unknown_range_with_nothing_written() {
    let w = world();
    w.git.commit("one").unwrap();
    let held = w.store.dump();
    let range = |base: &str, tip: &str| {
        drivers::start_range(&w.git, &w.store, &w.clock, Lens::Reliability, base, tip)
    };
    // A range with no commit in it.
    let err = range("HEAD", "HEAD").unwrap_err();
    assert_err!(err, ReviewError::Stack(_));
    // A revision that names no commit, at either end.
    for (base, tip) in [("nope", "HEAD"), ("HEAD", "nope")] {
        let err = range(base, tip).unwrap_err();
        assert_err!(err, ReviewError::Repository(_));
    }
    assert_eq!(w.store.dump(), held);
}

/// A new review and a recovery's successor freeze under the newest
/// built-in risk policy, v12 (D-R114, D-R122, D-R131, D-R135, D-R143,
/// D-R165, D-R167, D-R168, D-R169, D-R170, D-R174).
#[test]
fn start_and_recover_freeze_under_the_newest_risk_policy() {
    use probity_core::review::{Disposition, RiskPolicy};
    let w = world();
    let started = w.try_start().unwrap();
    assert_eq!(
        started.record.state().frozen().policy_hash,
        RiskPolicy::v12_hash()
    );
    assert_eq!(RiskPolicy::newest_hash(), RiskPolicy::v12_hash());
    let approved = w.approve();
    w.git.write("src/a.rs", FIX).unwrap();
    let successor = w
        .recover(
            approved.state().lineage_id(),
            recover_request(&approved, Disposition::ScopeChanged, "more work", "dev"),
        )
        .unwrap()
        .record;
    assert_eq!(
        successor.state().frozen().policy_hash,
        RiskPolicy::v12_hash()
    );
}

/// Risk policy v12 (D-R174, D-R175): an adapter that cannot list a
/// directory a task walks, or list one by name (the defaults of
/// `GitPort::list_followed` and `GitPort::list_matching` answer unknown), rates
/// a change the walker may reach as if the directory held anything:
/// higher, never lower. The same change with a task that walks nothing is
/// medium.
#[test]
fn an_adapter_that_cannot_list_rates_what_a_walker_may_reach_high() {
    let rate = |command: &str| {
        let tasks = format!(r#"{{"tasks":[{{"command":"{command}"}}]}}"#);
        let git = FakeGit::with_base(&[("src/a.rs", BASE), (".vscode/tasks.json", tasks.as_str())])
            .unwrap();
        git.write("src/a.rs", CHANGE).unwrap();
        let w = World {
            git,
            store: InMemoryStore::new(),
            clock: FixedClock::fixture(),
        };
        let started = w.start();
        let frozen = started.state().frozen();
        (frozen.risk_level, frozen.risk_reasons.clone())
    };
    let (level, reasons) = rate("run-parts tools/hooks");
    assert_eq!(level, probity_core::review::RiskLevel::High, "{reasons:?}");
    assert!(
        reasons.contains(&probity_core::review::RiskReason::AutoRunConfig),
        "{reasons:?}"
    );
    let (level, _) = rate("echo ready");
    assert_eq!(level, probity_core::review::RiskLevel::Medium);
    // A listing by name (D-R175): the `GitPort::list_matching` default
    // answers unknown too.
    let (level, reasons) = rate("find . -name '*_test.sh' -exec bash {} \\\\;");
    assert_eq!(level, probity_core::review::RiskLevel::High, "{reasons:?}");
}
