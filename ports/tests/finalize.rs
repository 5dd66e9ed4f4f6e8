//! `finalize` on in-memory adapters: results, evidence, the bounded
//! correction, exact retries, and refusals that write nothing.

mod common;

use common::*;
use probity_core::review::Lens;
use probity_core::review::Receipt;
use probity_core::review::{Escalation, Stage, TransitionError};
use probity_ports::review::{
    self as drivers, FinalizeInput, ReceiptStore, RecordStore, ReviewError,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents};

#[test]
fn a_clean_result_then_evidence_approves_and_writes_the_receipt() {
    let (w, l) = started();
    let judged = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)]
        })
        .unwrap();
    assert_eq!(judged.record.state().stage().name(), "validating");
    assert_eq!(judged.receipt_location, None);
    assert_eq!(w.store.read_receipt(&l).unwrap(), None);
    let done = w
        .finalize_with(&l, |i| {
            i.evidence = Some(documents::evidence(documents::EVIDENCE))
        })
        .unwrap();
    assert_eq!(done.record.state().stage().name(), "approved");
    assert_eq!(
        done.receipt_location,
        Some(w.store.receipt_location(&l)),
        "a terminal answer names its receipt"
    );
    let derived = Receipt::derive(done.record.state())
        .unwrap()
        .to_bytes()
        .unwrap();
    assert_eq!(w.store.read_receipt(&l).unwrap(), Some(derived));
    // The judgment is the one the first call accepted.
    assert_eq!(
        done.record.state().stage().judgment(),
        judged.record.state().stage().judgment()
    );
}

#[test]
fn without_a_lineage_finalize_discovers_the_live_candidates() {
    let (w, l) = started();
    let done = w
        .finalize(FinalizeInput {
            results: vec![documents::result(documents::CLEAN)],
            evidence: Some(documents::passing_check()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(done.record.state().lineage_id(), &l);
    assert_eq!(done.record.state().stage().name(), "approved");
}

#[test]
fn an_exact_retry_answers_the_stored_record_and_writes_nothing() {
    let w = world();
    let approved = w.approve();
    let held = w.store.dump();
    let again = w
        .finalize_with(approved.state().lineage_id(), |i| {
            i.results = vec![documents::result(documents::CLEAN)];
            i.evidence = Some(documents::passing_check());
        })
        .unwrap();
    assert_eq!(again.record, approved);
    assert_eq!(w.store.dump(), held);
}

#[test]
fn a_failing_check_escalates_with_its_evidence_bound() {
    let (w, l) = started();
    let done = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)];
            i.evidence = Some(documents::failing_check());
        })
        .unwrap();
    match done.record.state().stage() {
        Stage::Escalated {
            reason: Escalation::EvidenceFailed { .. },
            ..
        } => {}
        other => panic!(
            "expected an escalation on the failed check, got {}",
            other.name()
        ),
    }
    assert!(w.store.read_receipt(&l).unwrap().is_some());
    assert_eq!(
        w.gate().0,
        "deny",
        "an escalation never lets the candidate through"
    );
}

#[test]
fn a_blocker_is_corrected_within_its_budget_and_then_approved() {
    let w = world();
    let record = w.in_correction();
    let l = record.state().lineage_id().clone();
    assert_eq!(record.state().stage().name(), "correction_required");
    let budget = record.state().frozen().correction_budget;
    assert!(budget >= 2, "budget {budget}");
    // The forecast comes before the edit.
    let forecast = w
        .finalize_with(&l, |i| i.correction_lines = Some(2))
        .unwrap();
    assert_eq!(forecast.record.state().stage().forecast(), Some(2));
    w.git.write("src/a.rs", FIX).unwrap();
    // The fix is the live candidate: discovered through the open correction.
    let fixed = w
        .finalize(FinalizeInput {
            validation: Some(documents::named("v.json", documents::VALIDATOR_PASS)),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(fixed.record.state().lineage_id(), &l);
    assert_validating_after_one_fix(&w.git, &fixed.record);
    approve_on_evidence(&w.git, &w.store, l.clone());
    assert_eq!(w.gate(), says("allow", "receipt_valid"));
}

#[test]
fn a_failed_validation_is_an_attempt_charged_once() {
    let w = world();
    let l = w.in_correction().state().lineage_id().clone();
    w.git.write("src/a.rs", FIX).unwrap();
    let input = |i: &mut FinalizeInput| {
        i.correction_lines = Some(2);
        i.validation = Some(documents::named("v.json", documents::VALIDATOR_FAIL));
    };
    let first = w.finalize_with(&l, input).unwrap();
    let c = first.record.state().stage().correction().unwrap();
    assert_eq!((c.attempts.len(), c.charged_lines()), (1, 2));
    // The same command again is an exact retry: no second attempt.
    let held = w.store.dump();
    let again = w.finalize_with(&l, input).unwrap();
    assert_eq!(again.record, first.record);
    assert_eq!(w.store.dump(), held);
}

#[test]
fn refused_inputs_write_nothing() {
    let (w, l) = started();
    let held = w.store.dump();
    let cases: Vec<(&str, FinalizeInput)> = vec![
        (
            "malformed",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result("{not json")],
                ..Default::default()
            },
        ),
        (
            "oversized",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result(&" ".repeat((1 << 20) + 1))],
                ..Default::default()
            },
        ),
        (
            "zero forecast",
            FinalizeInput {
                lineage: Some(l.clone()),
                correction_lines: Some(0),
                ..Default::default()
            },
        ),
        (
            "evidence before results",
            FinalizeInput {
                lineage: Some(l.clone()),
                evidence: Some(documents::passing_check()),
                ..Default::default()
            },
        ),
        (
            "results then a validation nobody asked for",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result(documents::CLEAN)],
                validation: Some(documents::named("v.json", documents::VALIDATOR_PASS)),
                ..Default::default()
            },
        ),
        (
            "empty evidence",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result(documents::CLEAN)],
                evidence: Some(documents::evidence("")),
                ..Default::default()
            },
        ),
        (
            "a result for a lens not selected",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result_for(Lens::Risk, documents::CLEAN)],
                ..Default::default()
            },
        ),
        (
            "a binding of another lineage",
            FinalizeInput {
                lineage: Some(l.clone()),
                results: vec![documents::result(documents::CLEAN)],
                bindings: vec![(Lens::Reliability, "not the binding".into())],
                ..Default::default()
            },
        ),
    ];
    for (name, input) in cases {
        let err = w.finalize(input).unwrap_err();
        assert_eq!(w.store.dump(), held, "{name} ({err}) wrote");
    }
    // Specific answers for the first few.
    let err = w
        .finalize_with(&l, |i| i.results = vec![documents::result("{not json")])
        .unwrap_err();
    assert_err!(
        err,
        ReviewError::MalformedInput {
            role: "reviewer",
            ..
        }
    );
    let err = w
        .finalize_with(&l, |i| i.correction_lines = Some(0))
        .unwrap_err();
    assert_err!(err, ReviewError::Transition(TransitionError::ZeroForecast));
    let err = w
        .finalize_with(&l, |i| i.evidence = Some(documents::passing_check()))
        .unwrap_err();
    assert_err!(
        err,
        ReviewError::Transition(TransitionError::WrongStage { .. })
    );
}

#[test]
fn a_changed_candidate_takes_no_result_and_an_unknown_one_has_no_review() {
    let (w, l) = started();
    w.git
        .write("src/a.rs", "fn a() {}\nfn b() { 1 }\n")
        .unwrap();
    let err = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)]
        })
        .unwrap_err();
    assert_err!(err, ReviewError::CandidateChanged { lineage, .. } if *lineage == l);
    let err = w
        .finalize(FinalizeInput {
            results: vec![documents::result(documents::CLEAN)],
            ..Default::default()
        })
        .unwrap_err();
    assert_err!(err, ReviewError::NoReview);
}

#[test]
fn a_zero_lens_review_takes_evidence_alone() {
    let git = FakeGit::with_base(&[("docs/notes.md", "# notes\n")]).unwrap();
    git.write("docs/notes.md", "# notes\n\nmore\n").unwrap();
    let store = InMemoryStore::new();
    let l = drivers::start(&git, &store, &FixedClock::fixture(), Lens::Reliability)
        .unwrap()
        .record
        .state()
        .lineage_id()
        .clone();
    lands(&git, &store, Some(&l)).unwrap();
    approve_on_evidence(&git, &store, l);
}

#[test]
fn check_evidence_lands_refuses_before_the_check_runs() {
    let (w, l) = started();
    let err = lands(&w.git, &w.store, Some(&l)).unwrap_err();
    assert_err!(
        err,
        ReviewError::Transition(TransitionError::WrongStage { .. })
    );
    w.finalize_with(&l, |i| {
        i.results = vec![documents::result(documents::CLEAN)]
    })
    .unwrap();
    lands(&w.git, &w.store, Some(&l)).unwrap();
    // Once final evidence is taken, a check no kept run matches cannot
    // land: refused before it runs (issue 26 §7).
    w.finalize_with(&l, |i| i.evidence = Some(documents::passing_check()))
        .unwrap();
    let err = lands(&w.git, &w.store, Some(&l)).unwrap_err();
    assert_err!(
        err,
        ReviewError::Transition(TransitionError::DifferentRetry { .. })
    );
}

#[test]
fn a_store_failure_mid_finalize_leaves_the_last_committed_state() {
    use probity_testkit::{Crash, Faulty, is_injected};
    let (w, l) = started();
    let crashing = Faulty::new(w.store, 1, Crash::BeforeReplace);
    let err = drivers::finalize(
        &w.git,
        &crashing,
        FinalizeInput {
            lineage: Some(l.clone()),
            results: vec![documents::result(documents::CLEAN)],
            evidence: Some(documents::passing_check()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_err!(err, ReviewError::Store(e) if is_injected(e));
    assert_eq!(crashing.replaces(), 2);
    let store = crashing.into_inner();
    let validating = store.load(&l).unwrap().unwrap();
    assert_eq!(validating.state().stage().name(), "validating");
    approve_on_evidence(&w.git, &store, l);
}
