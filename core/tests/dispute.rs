//! R12.6, the dispute edge, on plain values: a finding admitted to
//! correction that a maintainer holds a false positive is disputed, bound to
//! evidence and an authorization, before any edit; it is kept (`disputed`),
//! counted, listed with the receipt's resolved findings, and never a silent
//! dismissal.

use probity_core::digest::Sha256Digest;
use probity_core::review::Forecast;
use probity_core::review::Receipt;
use probity_core::review::Route;
use probity_core::review::fixtures;
use probity_core::review::{
    DISPUTE_DOMAIN, Dispute, ReviewState, StateRecord, TransitionError, check_successor,
};
use probity_core::review::{FindingId, NonBlank, Timestamp};

fn dispute(id: &str) -> Dispute {
    Dispute {
        finding_id: FindingId::parse(id).unwrap(),
        evidence_hash: Sha256Digest::of(DISPUTE_DOMAIN, b"TestExpiry is flaky on CI; see run 812"),
        reason: NonBlank::parse("the test that proves it is known flaky").unwrap(),
        actor: NonBlank::parse("maintainer").unwrap(),
        authorization: NonBlank::parse("lead approved in OPS-7").unwrap(),
        disputed_at: Timestamp::from_unix_seconds(1_796_000_100),
    }
}

fn correction_required() -> ReviewState {
    let s = fixtures::budget_scenario().unwrap();
    assert_eq!(s.stage().name(), "correction_required");
    s
}

#[test]
fn the_only_correction_finding_disputed_goes_to_validating_and_is_resolved() {
    let s = correction_required();
    let id = s.stage().judgment().unwrap().correction_ids()[0];
    let d = s.accept_dispute(dispute(&id.to_string())).unwrap();
    check_successor(&s, &d).unwrap();
    assert_eq!(d.stage().name(), "validating");
    let j = d.stage().judgment().unwrap();
    assert_eq!(j.disputes.len(), 1, "counted");
    let routes: Vec<Route> = j.routed().map(|(_, r)| r).collect();
    assert!(routes.contains(&Route::Disputed), "kept, as disputed");
    // The record round-trips and validates.
    let bytes = d.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &d);
    // Then evidence approves, and the receipt lists the disputed finding.
    let a = d.accept_evidence(b"cargo test: 80 passed\n").unwrap();
    let receipt = Receipt::derive(&a).unwrap();
    assert_eq!(receipt.resolved_finding_ids, vec![id]);
}

#[test]
fn a_dispute_is_refused_after_an_edit_for_another_route_and_when_different() {
    let s = correction_required();
    let id = s.stage().judgment().unwrap().correction_ids()[0].to_string();
    // After a forecast (the correction has begun).
    let forecast = s.accept_forecast(Forecast::new(10).unwrap()).unwrap();
    assert!(matches!(
        forecast.accept_dispute(dispute(&id)),
        Err(TransitionError::DisputeAfterCorrection { .. })
    ));
    // A finding that does not exist.
    assert!(matches!(
        s.accept_dispute(dispute("R3-009")),
        Err(TransitionError::NotDisputable { .. })
    ));
    // The same dispute again is unchanged; another for the same finding is
    // a different retry.
    let d = s.accept_dispute(dispute(&id)).unwrap();
    assert_eq!(d.accept_dispute(dispute(&id)).unwrap(), d);
    let mut other = dispute(&id);
    other.reason = NonBlank::parse("another reason").unwrap();
    assert!(matches!(
        d.accept_dispute(other),
        Err(TransitionError::DifferentRetry { .. })
    ));
    // Reviewing takes no dispute.
    let r0 = fixtures::start(
        &fixtures::parser_observation(),
        probity_core::review::Lens::Reliability,
    )
    .unwrap();
    assert!(matches!(
        r0.accept_dispute(dispute(&id)),
        Err(TransitionError::WrongStage { .. })
    ));
}

/// A dispute cannot be forged into a record: one naming a finding not
/// admitted to correction, or the same finding twice, fails validation; a
/// dispute added alongside another transition is not a legal successor.
#[test]
fn forged_disputes_fail_validation() {
    let s = correction_required();
    let id = s.stage().judgment().unwrap().correction_ids()[0].to_string();
    let d = s.accept_dispute(dispute(&id)).unwrap();
    let again = serde_json::to_value(dispute(&id)).unwrap();
    let twice = fixtures::forge(&d, |w| {
        let disputes = w["stage"]["judgment"]["disputes"].as_array_mut().unwrap();
        disputes.push(again.clone());
    });
    let err = twice.expect_err("the same finding disputed twice was read");
    assert!(
        err.to_string()
            .contains("a dispute must name a distinct finding"),
        "{err}"
    );
    // A dispute smuggled in with a forecast: with its only admitted finding
    // disputed, a correction stage is not even a valid record (and so no
    // successor of anything).
    let forecast = s.accept_forecast(Forecast::new(10).unwrap()).unwrap();
    let smuggled = fixtures::forge(&forecast, |w| {
        w["stage"]["judgment"]["disputes"] = serde_json::json!([again]);
    });
    let err = smuggled.expect_err("a dispute smuggled in with a forecast was read");
    assert!(
        err.to_string()
            .contains("no finding is admitted to correction"),
        "{err}"
    );
}
