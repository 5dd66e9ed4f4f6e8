//! Causal admission, the refuter batch and bounded correction, on plain
//! values (no Git): every transition and its guards.

use probity_core::review::Forecast;
use probity_core::review::Lens;
use probity_core::review::MAX_FAILED_ATTEMPTS;
use probity_core::review::fixtures::{self, fix, validation};
use probity_core::review::{CausalFacts, DowngradeReason};
use probity_core::review::{
    Escalation, EscalationReason, NextInput, ReviewState, TransitionError, check_successor,
};
use probity_core::review::{Receipt, TerminalState};
use probity_core::review::{RefuterResult, ReviewerResult, Route};
use probity_core::review::{RiskLevel, StateRecord};

fn routes(s: &ReviewState) -> Vec<(String, Route)> {
    s.stage()
        .judgment()
        .unwrap()
        .routed()
        .map(|(f, r)| (f.id.to_string(), r))
        .collect()
}

fn reason(s: &ReviewState) -> Option<EscalationReason> {
    s.stage().escalation().map(Escalation::reason)
}

#[test]
fn the_payments_diff_takes_four_routes() {
    let (state, results, facts) = fixtures::payments_scenario().unwrap();
    assert_eq!(state.frozen().selected_lenses, Lens::CANONICAL.to_vec());
    let next = state.accept_results(results, &facts).unwrap();
    assert_eq!(
        routes(&next),
        vec![
            ("R1-001".into(), Route::Correction),
            ("R1-002".into(), Route::FollowUp),
            ("R1-003".into(), Route::Escalation),
            ("R1-004".into(), Route::Info),
        ]
    );
    // Any escalation makes the review escalated.
    assert_eq!(reason(&next), Some(EscalationReason::FindingEscalated));
    check_successor(&state, &next).unwrap();
    let receipt = Receipt::derive(&next).unwrap();
    assert_eq!(receipt.terminal_state, TerminalState::Escalated);
    assert!(receipt.resolved_finding_ids.is_empty());
}

fn medium() -> ReviewState {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap()
}

fn one(json: &str) -> Vec<ReviewerResult> {
    vec![ReviewerResult::parse(json.as_bytes()).unwrap()]
}

fn facts() -> CausalFacts {
    let mut f = CausalFacts::default();
    f.hunks.insert(
        probity_core::review::RepoPath::parse("src/parser.rs").unwrap(),
        vec![probity_core::review::Hunk {
            start: 1,
            count: 10,
        }],
    );
    f.candidate_lines.insert(
        probity_core::review::RepoPath::parse("src/parser.rs").unwrap(),
        30,
    );
    f
}

const INFERENTIAL: &str = r#"{"findings":[{"location":"src/parser.rs:4","severity":"CRITICAL","claim":"the mutex is never released on error","proof_refs":["src/parser.rs:4"],"evidence_class":"inferential","causal_disposition":"introduced"}],"evidence":["read the diff"]}"#;

fn refuter(outcome: &str) -> RefuterResult {
    RefuterResult::parse(
        format!(r#"{{"outcomes":[{{"finding_id":"R3-001","outcome":"{outcome}","evidence":["defer unlocks on every return"]}}]}}"#)
            .as_bytes(),
    )
    .unwrap()
}

#[test]
fn inferential_severe_findings_go_to_one_refuter_batch() {
    let s = medium().accept_results(one(INFERENTIAL), &facts()).unwrap();
    assert_eq!(s.stage().name(), "reviewing");
    assert_eq!(s.next_action(), NextInput::ProvideRefuter);
    assert_eq!(routes(&s), vec![("R3-001".into(), Route::Refuter)]);

    let corroborated = s.accept_refuter(refuter("corroborated")).unwrap();
    assert_eq!(corroborated.stage().name(), "correction_required");
    assert_eq!(corroborated.next_action(), NextInput::ForecastCorrection);
    let refuted = s.accept_refuter(refuter("refuted")).unwrap();
    assert_eq!(
        (refuted.stage().name(), routes(&refuted)[0].1),
        ("validating", Route::Refuted)
    );
    // The refuted finding is kept.
    assert_eq!(refuted.stage().judgment().unwrap().findings().count(), 1);
    let inconclusive = s.accept_refuter(refuter("inconclusive")).unwrap();
    assert_eq!(
        reason(&inconclusive),
        Some(EscalationReason::FindingEscalated)
    );
    for next in [&corroborated, &refuted, &inconclusive] {
        check_successor(&s, next).unwrap();
    }
    // The same batch again is an idempotent retry; another is refused.
    assert_eq!(
        corroborated
            .accept_refuter(refuter("corroborated"))
            .unwrap(),
        corroborated
    );
    assert!(matches!(
        corroborated.accept_refuter(refuter("refuted")),
        Err(TransitionError::DifferentRetry { .. })
    ));
}

#[test]
fn refuter_batches_must_name_exactly_the_pending_findings() {
    let s = medium().accept_results(one(INFERENTIAL), &facts()).unwrap();
    let unknown = RefuterResult::parse(
        br#"{"outcomes":[{"finding_id":"R3-002","outcome":"refuted","evidence":["x"]}]}"#,
    )
    .unwrap();
    assert!(matches!(
        s.accept_refuter(unknown),
        Err(TransitionError::RefuterUnknownFinding(_))
    ));
    let dup = br#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]},{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]}]}"#;
    assert!(RefuterResult::parse(dup).is_err());
    for bad in [
        &br#"{"outcomes":[]}"#[..],
        br#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":[]}]}"#,
        br#"{"outcomes":[{"finding_id":"R3-001","outcome":"maybe","evidence":["x"]}]}"#,
    ] {
        assert!(RefuterResult::parse(bad).is_err());
    }
    // No batch is legal when no finding awaits one.
    let clean = medium()
        .accept_results(vec![fixtures::clean_result()], &facts())
        .unwrap();
    assert!(matches!(
        clean.accept_refuter(refuter("refuted")),
        Err(TransitionError::WrongStage { .. })
    ));
}

#[test]
fn causal_claims_outside_the_change_are_downgraded_and_escalate() {
    let json = INFERENTIAL
        .replace("inferential", "deterministic")
        .replace("src/parser.rs:4", "src/parser.rs:25");
    let s = medium().accept_results(one(&json), &facts()).unwrap();
    let f = s
        .stage()
        .judgment()
        .unwrap()
        .findings()
        .next()
        .unwrap()
        .clone();
    assert_eq!(
        f.causal_downgrade.map(|d| d.reason),
        Some(DowngradeReason::OutsideChangedHunks)
    );
    assert_eq!(reason(&s), Some(EscalationReason::FindingEscalated));
}

/// R6.8: 120 lines → budget 60; 18 then 22 charged; a forecast of 25
/// escalates before the edit; a forecast of 15 may proceed and, failing,
/// escalates as the third failure.
#[test]
fn the_120_line_budget_example() {
    let s = fixtures::budget_scenario().unwrap();
    assert_eq!(
        (s.frozen().authored_lines, s.frozen().correction_budget),
        (120, 60)
    );
    assert_eq!(s.stage().name(), "correction_required");
    let s1 = s.accept_forecast(Forecast::new(20).unwrap()).unwrap();
    assert_eq!(s1.next_action(), NextInput::ProvideValidation);
    let s2 = s1.accept_validation(fix(1, 18), validation(false)).unwrap();
    assert_eq!(
        (
            s2.stage().name(),
            s2.stage().correction().unwrap().charged_lines()
        ),
        ("correction_required", 18)
    );
    let s3 = fixtures::attempt(&s2, 25, (2, 22), false).unwrap();
    assert_eq!(s3.stage().correction().unwrap().charged_lines(), 40);
    let over = s3.accept_forecast(Forecast::new(25).unwrap()).unwrap();
    assert_eq!(reason(&over), Some(EscalationReason::ForecastOverBudget));
    let third = fixtures::attempt(&s3, 15, (3, 14), false).unwrap();
    assert_eq!(reason(&third), Some(EscalationReason::AttemptsExhausted));
    assert_eq!(
        third.stage().correction().unwrap().failed_attempts(),
        MAX_FAILED_ATTEMPTS
    );
    for (a, b) in [(&s, &s1), (&s1, &s2), (&s3, &over)] {
        check_successor(a, b).unwrap();
    }
}

#[test]
fn a_passing_correction_is_approved_with_its_fix_in_the_receipt() {
    let s = fixtures::budget_scenario().unwrap();
    let fixed = fixtures::attempt(&s, 10, (7, 9), true).unwrap();
    assert_eq!(fixed.stage().name(), "validating");
    assert_eq!(fixed.final_candidate_tree().as_str(), format!("{:040x}", 7));
    let approved = fixed.accept_evidence(b"all tests pass\n").unwrap();
    let r = Receipt::derive(&approved).unwrap();
    assert_ne!(r.initial_review_tree, r.final_candidate_tree);
    assert_ne!(r.fix_delta_hash, probity_core::review::empty_fix_delta());
    assert_eq!(
        r.resolved_finding_ids
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["R3-001"]
    );
}

#[test]
fn no_edit_and_over_budget_attempts_escalate() {
    let s = fixtures::budget_forecast(10).unwrap();
    let mut none = fix(0, 0);
    none.to_tree = s.snapshot().candidate_tree.clone();
    none.paths.clear();
    assert_eq!(
        reason(&s.accept_validation(none, validation(true)).unwrap()),
        Some(EscalationReason::NoEditAttempt)
    );
    let big = s.accept_validation(fix(9, 61), validation(true)).unwrap();
    assert_eq!(reason(&big), Some(EscalationReason::BudgetExceeded));
}

/// A fix that leaves a change of a higher tier than the review ran at
/// escalates (D-R132), passing or not, and the record reads back as the
/// same state; a fix that keeps the tier goes on to `validating`.
#[test]
fn a_fix_that_raises_the_tier_escalates() {
    let s = fixtures::budget_forecast(10).unwrap();
    assert_eq!(s.frozen().risk_level, RiskLevel::Medium);
    let mut raising = fix(9, 3);
    raising.tier = RiskLevel::High;
    for passed in [true, false] {
        let raised = s
            .accept_validation(raising.clone(), validation(passed))
            .unwrap();
        assert_eq!(
            reason(&raised),
            Some(EscalationReason::RiskRaisedByCorrection)
        );
        check_successor(&s, &raised).unwrap();
        let bytes = raised.record().unwrap().to_bytes().unwrap();
        let again = StateRecord::from_bytes(&bytes).unwrap().into_state();
        assert_eq!(again, raised);
    }
    let mut kept = fix(9, 3);
    kept.tier = RiskLevel::Medium;
    let fixed = s.accept_validation(kept, validation(true)).unwrap();
    assert_eq!(fixed.stage().name(), "validating");
}

#[test]
fn fixes_outside_genesis_and_bad_inputs_change_nothing() {
    let s = fixtures::budget_scenario().unwrap();
    // A zero forecast is no `Forecast`: it cannot reach the transition.
    assert_eq!(Forecast::new(0), Err(TransitionError::ZeroForecast));
    assert!(matches!(
        s.accept_validation(fix(1, 3), validation(true)),
        Err(TransitionError::WrongStage { .. })
    ));
    let f = s.accept_forecast(Forecast::new(10).unwrap()).unwrap();
    let mut outside = fix(1, 3);
    outside
        .paths
        .push(probity_core::review::RepoPath::parse("src/other.rs").unwrap());
    assert!(matches!(
        f.accept_validation(outside, validation(true)),
        Err(TransitionError::OutsideGenesis(_))
    ));
    assert!(matches!(
        f.accept_evidence(b"x"),
        Err(TransitionError::WrongStage { .. })
    ));
    // A second, different forecast for the same attempt is refused.
    assert!(matches!(
        f.accept_forecast(Forecast::new(11).unwrap()),
        Err(TransitionError::DifferentRetry { .. })
    ));
    assert_eq!(f.accept_forecast(Forecast::new(10).unwrap()).unwrap(), f);
}

#[test]
fn state_with_more_attempts_than_allowed_does_not_load() {
    // Three failures escalate; a fourth attempt can never be recorded.
    let s = fixtures::budget_scenario().unwrap();
    let mut cur = s;
    for n in 1..=2 {
        cur = fixtures::attempt(&cur, 5, (n, 3), false).unwrap();
    }
    let third = fixtures::attempt(&cur, 5, (3, 3), false).unwrap();
    // A fourth, passing attempt forged into an approval.
    let passing = serde_json::to_value(
        fixtures::attempt(&fixtures::budget_scenario().unwrap(), 5, (9, 3), true).unwrap(),
    )
    .unwrap()["stage"]["correction"]["attempts"][0]
        .clone();
    let forged = fixtures::forge(&third, |w| {
        let stage = &mut w["stage"];
        stage["correction"]["attempts"]
            .as_array_mut()
            .unwrap()
            .push(passing);
        stage["state"] = "approved".into();
        stage.as_object_mut().unwrap().remove("reason");
        stage["evidence_hash"] =
            serde_json::to_value(probity_core::digest::Sha256Digest::plain(b"x")).unwrap();
    });
    let err = forged.expect_err("a fourth attempt was read as an approval");
    assert!(err.to_string().contains("correction attempt"), "{err}");
}

#[test]
fn successors_cannot_rewrite_history() {
    let s = fixtures::budget_scenario().unwrap();
    let s2 = fixtures::attempt(&s, 20, (1, 18), false).unwrap();
    let s2f = s2.accept_forecast(Forecast::new(10).unwrap()).unwrap();
    let s3 = s2f.accept_validation(fix(2, 5), validation(true)).unwrap();
    check_successor(&s2, &s2f).unwrap();
    check_successor(&s2f, &s3).unwrap();
    // Every transition is one step: skipping the forecast is refused.
    assert!(matches!(
        check_successor(&s2, &s3),
        Err(TransitionError::IllegalEdge { .. })
    ));
    // An appended attempt must carry the pending forecast.
    let other_forecast = fixtures::forge(&s3, |w| {
        w["stage"]["correction"]["attempts"][1]["forecast_lines"] = 11.into();
    })
    .unwrap();
    assert!(check_successor(&s2f, &other_forecast).is_err());
    // Dropping an attempt (a re-charge dodge) is refused: the remaining
    // attempt no longer starts from the candidate.
    let forged = fixtures::forge(&s3, |w| {
        w["stage"]["correction"]["attempts"]
            .as_array_mut()
            .unwrap()
            .remove(0);
    });
    let err = forged.expect_err("a ledger without its first attempt was read");
    assert!(
        err.to_string()
            .contains("does not start from the previous attempt's tree"),
        "{err}"
    );
    // Skipping validating (reviewing → approved) is refused.
    let fresh = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let validating = fresh
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap();
    let approved_early = validating.accept_evidence(b"ok").unwrap();
    assert!(matches!(
        check_successor(&fresh, &approved_early),
        Err(TransitionError::IllegalEdge { .. })
    ));
    // Going back from terminal is refused.
    let approved = s3.accept_evidence(b"ok").unwrap();
    assert!(matches!(
        check_successor(&approved, &s3),
        Err(TransitionError::IllegalEdge { .. })
    ));
}

/// A final state's next step is a command that leads somewhere: deliver
/// an approval, recover an escalation or an invalidation; never a bare
/// "nothing" (the routing token stays `none`).
#[test]
fn final_states_name_a_next_step_that_works() {
    let s = fixtures::budget_scenario().unwrap();
    let lineage = s.lineage_id().to_string();
    let approved = fixtures::attempt(&s, 10, (7, 9), true)
        .unwrap()
        .accept_evidence(b"all tests pass\n")
        .unwrap();
    assert_eq!(approved.next_action(), NextInput::None);
    let say = approved.next_sentence();
    assert!(say.contains("probity push <remote>"), "{say}");
    assert!(say.contains("probity validate --gate"), "{say}");

    let escalated = fixtures::attempt(&s, 10, (9, 61), true).unwrap();
    assert_eq!(reason(&escalated), Some(EscalationReason::BudgetExceeded));
    let say = escalated.next_sentence();
    assert!(
        say.contains("`probity recover` command (disposition `escalation_authorized`)"),
        "{say}"
    );
    assert!(!say.contains('<'), "no placeholder the tool knows: {say}");
    assert!(
        say.contains(&format!("probity status --lineage {lineage}")),
        "{say}"
    );

    let fresh = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let gone = fresh
        .invalidate(probity_core::review::NonBlank::parse("wrong base").unwrap())
        .unwrap();
    let say = gone.next_sentence();
    assert!(say.contains("probity start"), "{say}");
    assert!(
        say.contains("`probity recover` command (disposition `invalidated`)"),
        "{say}"
    );
}
