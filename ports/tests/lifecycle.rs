//! `status`, `invalidate`, `recover` and `submit_result` on in-memory
//! adapters.

mod common;

use common::*;
use probity_core::review::Applicability;
use probity_core::review::Lens;
use probity_core::review::{Disposition, RecoverError, RecoverRequest};
use probity_core::review::{LineageId, NonBlank};
use probity_core::review::{PreflightError, StateRecord};
use probity_ports::review::{
    self as drivers, ChainStore, ReviewError, StoreError, SubmitInput, Submitted,
};
use probity_testkit::documents;

fn text(s: &str) -> NonBlank {
    NonBlank::parse(s).unwrap()
}

fn request(pred: &StateRecord, disposition: Disposition, reason: &str) -> RecoverRequest {
    recover_request(pred, disposition, reason, "maintainer")
}

#[test]
fn status_relates_the_live_candidate_to_its_lineage() {
    let w = world();
    assert!(
        drivers::status(&w.git, &w.store, None).unwrap().is_none(),
        "nothing started"
    );
    let approved = w.approve();
    let l = approved.state().lineage_id().clone();
    let s = drivers::status(&w.git, &w.store, None).unwrap().unwrap();
    assert_eq!(s.record, approved);
    assert_eq!(s.applicability, Applicability::Current);
    assert!(s.receipt.is_some() && s.superseded_by.is_none());
    // An edit of the reviewed path: scope changed, the path named.
    w.git.write("src/a.rs", FIX).unwrap();
    let s = drivers::status(&w.git, &w.store, Some(&l))
        .unwrap()
        .unwrap();
    assert_eq!(s.applicability, Applicability::ScopeChanged);
    assert_eq!(s.differing_paths.len(), 1);
    // An unknown lineage is the store's NotFound.
    let unknown = LineageId::parse("review-0000000000000000").unwrap();
    let err = drivers::status(&w.git, &w.store, Some(&unknown)).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::NotFound(_)));
}

#[test]
fn only_a_pristine_review_is_invalidated_and_a_retry_answers_it() {
    let (w, l) = started();
    let inv = drivers::invalidate(&w.store, &l, text("wrong branch")).unwrap();
    assert_eq!(inv.state().stage().name(), "invalidated");
    let held = w.store.dump();
    assert_eq!(
        drivers::invalidate(&w.store, &l, text("wrong branch")).unwrap(),
        inv
    );
    assert_eq!(w.store.dump(), held);
    assert_eq!(w.gate(), says("deny", "review_invalidated"));

    let w = world();
    let judged = w.in_correction();
    let held = w.store.dump();
    let err = drivers::invalidate(&w.store, judged.state().lineage_id(), text("late")).unwrap_err();
    assert_err!(err, ReviewError::Transition(_));
    assert_eq!(w.store.dump(), held);
}

#[test]
fn recover_makes_one_audited_successor_and_never_forks() {
    let (w, l) = started();
    let inv = drivers::invalidate(&w.store, &l, text("wrong branch")).unwrap();
    let req = request(&inv, Disposition::Invalidated, "again");
    let s = w.recover(&l, req.clone()).unwrap();
    assert!(!s.resumed);
    let succ = s.record.state();
    assert_eq!(succ.generation(), 2);
    let link = succ.predecessor().unwrap();
    assert_eq!((&link.lineage_id, link.revision), (&l, inv.revision()));
    assert_eq!(
        w.store.successor_of(&l).unwrap(),
        Some(succ.lineage_id().clone())
    );
    assert_eq!(w.load(&l), inv, "the predecessor is never rewritten");
    // The same request is a retry; another would fork.
    let again = w.recover(&l, req).unwrap();
    assert!(again.resumed);
    assert_eq!(again.record, s.record);
    let held = w.store.dump();
    let err = w
        .recover(
            &l,
            request(&inv, Disposition::Invalidated, "another reason"),
        )
        .unwrap_err();
    assert_err!(
        err,
        ReviewError::Store(StoreError::AlreadySuperseded { .. })
    );
    assert_eq!(w.store.dump(), held);
    // The successor is what the live candidate's start now resumes.
    let resumed = w.try_start().unwrap();
    assert_eq!(resumed.record, s.record);
}

#[test]
fn recover_refuses_what_its_disposition_does_not_allow() {
    let (w, approved, l) = approved();
    let held = w.store.dump();
    // An approval recovered as scope-changed needs a reviewed path changed
    // (an unrelated new file is not one).
    w.git.write("src/other.rs", "fn other() {}\n").unwrap();
    let err = w
        .recover(&l, request(&approved, Disposition::ScopeChanged, "more"))
        .unwrap_err();
    assert_err!(
        err,
        ReviewError::Recover(RecoverError::ScopeUnchanged { .. })
    );
    // The wrong disposition.
    let err = w
        .recover(&l, request(&approved, Disposition::Invalidated, "x"))
        .unwrap_err();
    assert_err!(err, ReviewError::Recover(RecoverError::NotEligible { .. }));
    assert_eq!(w.store.dump(), held);
    // With the reviewed path edited, the successor reviews the new candidate.
    w.git.remove("src/other.rs").unwrap();
    w.git.write("src/a.rs", FIX).unwrap();
    let s = w
        .recover(&l, request(&approved, Disposition::ScopeChanged, "more"))
        .unwrap();
    assert_eq!(
        s.record.state().snapshot().candidate_tree,
        w.git.candidate_tree().unwrap()
    );
    // An escalation needs a maintainer's authorization.
    let w = world();
    let esc = w.escalate();
    let l = esc.state().lineage_id().clone();
    let err = w
        .recover(
            &l,
            request(&esc, Disposition::EscalationAuthorized, "reviewed by hand"),
        )
        .unwrap_err();
    assert_err!(
        err,
        ReviewError::Recover(RecoverError::AuthorizationRequired)
    );
    let mut authorized = request(&esc, Disposition::EscalationAuthorized, "reviewed by hand");
    authorized.authorization = Some(text("maintainer sign-off #1"));
    w.recover(&l, authorized).unwrap();
}

fn submit(lens: Lens, binding: Option<String>, text: &str) -> SubmitInput {
    SubmitInput {
        lineage: None,
        lens,
        binding,
        result: documents::named("r.json", text),
    }
}

#[test]
fn submit_result_keeps_one_result_per_lens_and_finalize_takes_it() {
    let w = world();
    let started = w.start();
    let l = started.state().lineage_id().clone();
    let binding = started.state().lens_bindings()[0].clone();
    let token = Some(binding.token.clone());
    let first = drivers::submit_result(
        &w.git,
        &w.store,
        submit(Lens::Reliability, token.clone(), documents::CLEAN),
    )
    .unwrap();
    assert_eq!(first.outcome, Submitted::New);
    assert_eq!(first.submitted, vec![Lens::Reliability]);
    assert_eq!(first.binding, binding);
    assert_eq!(w.load(&l), started, "a submission changes no state");
    let again = drivers::submit_result(
        &w.git,
        &w.store,
        submit(
            Lens::Reliability,
            Some(binding.binding.clone()),
            documents::CLEAN,
        ),
    )
    .unwrap();
    assert_eq!(again.outcome, Submitted::Existing);
    let held = w.store.dump();
    for (name, input) in [
        (
            "different bytes",
            submit(Lens::Reliability, token.clone(), documents::BLOCKER),
        ),
        (
            "another binding",
            submit(Lens::Reliability, Some("nope".into()), documents::CLEAN),
        ),
        (
            "a lens not selected",
            submit(Lens::Risk, None, documents::CLEAN),
        ),
        (
            "malformed",
            submit(Lens::Reliability, None, "{\"findings\":"),
        ),
    ] {
        let err = drivers::submit_result(&w.git, &w.store, input).unwrap_err();
        assert_eq!(w.store.dump(), held, "{name} ({err}) wrote");
        match name {
            "different bytes" => {
                assert_err!(err, ReviewError::Store(StoreError::ResultDiffers { .. }))
            }
            "another binding" => assert_err!(
                err,
                ReviewError::Submission {
                    source: PreflightError::BindingMismatch { .. },
                    ..
                }
            ),
            "a lens not selected" => assert_err!(
                err,
                ReviewError::Submission {
                    source: PreflightError::NotSelected { .. },
                    ..
                }
            ),
            _ => assert_err!(err, ReviewError::MalformedInput { .. }),
        }
    }
    // Finalize with no results given takes the submitted one.
    let judged = w.finalize_with(&l, |_| {}).unwrap();
    assert_eq!(judged.record.state().stage().name(), "validating");
    // A resubmission after it was accepted is answered, not refused.
    let late = drivers::submit_result(
        &w.git,
        &w.store,
        SubmitInput {
            lineage: Some(l.clone()),
            ..submit(Lens::Reliability, token, documents::CLEAN)
        },
    )
    .unwrap();
    assert_eq!(late.outcome, Submitted::Existing);
    // Different bytes given to finalize than the submitted ones: refused.
    let err = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::BLOCKER)];
            i.evidence = Some(documents::passing_check());
        })
        .unwrap_err();
    assert_err!(err, ReviewError::SubmittedDiffers { .. });
}

#[test]
fn evidence_alone_lands_once_every_selected_lens_has_a_kept_result() {
    let w = world();
    let started = w.start();
    let token = Some(started.state().lens_bindings()[0].token.clone());
    // Nothing kept yet: evidence is no input now.
    assert!(lands(&w.git, &w.store, None).is_err());
    drivers::submit_result(
        &w.git,
        &w.store,
        submit(Lens::Reliability, token, documents::CLEAN),
    )
    .unwrap();
    // Finalize takes the kept result first, then the evidence: the
    // pre-check of an evidence command agrees.
    lands(&w.git, &w.store, None).unwrap();
    let done = w
        .finalize(probity_ports::review::FinalizeInput {
            evidence: Some(documents::passing_check()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(done.record.state().stage().name(), "approved");
}

/// Issue 21 §8: an invalidated `start --commit` review is recovered over
/// the commit that holds its change when nothing is uncommitted, not over
/// the clean worktree.
#[test]
fn a_commit_review_is_recovered_over_its_commit() {
    let w = world();
    w.git.commit("the change").unwrap();
    let started = drivers::start_commit(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD")
        .unwrap()
        .started
        .unwrap()
        .record;
    let inv = drivers::invalidate(
        &w.store,
        started.state().lineage_id(),
        NonBlank::parse("wrong lens").unwrap(),
    )
    .unwrap();
    let s = w
        .recover(
            started.state().lineage_id(),
            recover_request(&inv, Disposition::Invalidated, "again", "me"),
        )
        .unwrap();
    assert_eq!(s.record.state().generation(), 2);
    assert_eq!(
        s.record.state().snapshot().target,
        started.state().snapshot().target
    );
}
