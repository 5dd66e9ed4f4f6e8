//! The stage's sub-states as types (issue 14 §4): each sub-state reads back
//! as itself from the wire form, and a fold no transition makes is refused
//! when read.

use probity_core::review::Forecast;
use probity_core::review::Lens;
use probity_core::review::RepoPath;
use probity_core::review::ReviewerResult;
use probity_core::review::fixtures::{self, fix, validation};
use probity_core::review::{CausalFacts, Hunk};
use probity_core::review::{Escalation, ReviewState, Stage, StateRecord, check_successor};

/// The state through its record's bytes and back.
/// `state`'s wire form, edited by `edit`, is refused (`what` names the
/// forgery) with an error that says `says`.
fn refused_when_forged(
    state: &ReviewState,
    what: &str,
    says: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) {
    let err = fixtures::forge(state, edit).expect_err(what);
    assert!(err.to_string().contains(says), "{err}");
}

fn round_trip(s: &ReviewState) -> ReviewState {
    let bytes = s.record().unwrap().to_bytes().unwrap();
    StateRecord::from_bytes(&bytes).unwrap().into_state()
}

#[test]
fn every_sub_state_reads_back_as_itself() {
    let budget = fixtures::budget_scenario().unwrap();
    assert!(matches!(budget.stage(), Stage::CorrectionRequired { .. }));
    let correcting = budget.accept_forecast(Forecast::new(5).unwrap()).unwrap();
    assert!(matches!(
        correcting.stage(),
        Stage::Correcting { forecast: 5, .. }
    ));
    let over = budget.accept_forecast(Forecast::new(61).unwrap()).unwrap();
    assert_eq!(
        over.stage().escalation(),
        Some(Escalation::ForecastOverBudget { forecast: 61 })
    );
    let failed_once = correcting
        .accept_validation(fix(1, 3), validation(false))
        .unwrap();
    assert!(matches!(
        failed_once.stage(),
        Stage::CorrectionRequired { .. }
    ));
    let pristine = pristine();
    assert_eq!(*pristine.stage(), Stage::Reviewing);
    // The other stages: validating after a passing fix, approved on its
    // evidence, invalidated by a person.
    let validating = fixtures::attempt(&budget, 5, (1, 3), true).unwrap();
    assert!(matches!(validating.stage(), Stage::Validating { .. }));
    let approved = validating.accept_evidence(b"ok").unwrap();
    assert!(matches!(approved.stage(), Stage::Approved { .. }));
    let invalidated = pristine
        .invalidate(probity_core::review::NonBlank::parse("the change was withdrawn").unwrap())
        .unwrap();
    assert!(matches!(invalidated.stage(), Stage::Invalidated { .. }));
    let refuter = awaiting_refuter();
    assert!(matches!(refuter.stage(), Stage::AwaitingRefuter { .. }));
    for s in [
        &budget,
        &correcting,
        &over,
        &failed_once,
        &pristine,
        &validating,
        &approved,
        &invalidated,
        &refuter,
    ] {
        assert_eq!(&round_trip(s), s, "{} did not read back", s.stage().name());
    }
    // The sub-states share their stage's wire name.
    assert_eq!(correcting.stage().name(), "correction_required");
    assert_eq!(
        serde_json::to_value(&correcting).unwrap()["stage"]["correction"]["forecast"],
        5
    );
}

#[test]
fn a_forecast_where_no_transition_leaves_one_is_refused() {
    let budget = fixtures::budget_scenario().unwrap();
    let passed = fixtures::attempt(&budget, 5, (1, 3), true).unwrap();
    assert!(matches!(passed.stage(), Stage::Validating { .. }));
    // A validating ledger with a pending forecast.
    refused_when_forged(
        &passed,
        "a validating stage with a forecast was read",
        "a forecast is pending only",
        |w| {
            w["stage"]["correction"]["forecast"] = 4.into();
        },
    );
    // An attempts-exhausted escalation with a forecast.
    let mut cur = budget.clone();
    for n in 1..=3 {
        cur = fixtures::attempt(&cur, 5, (n, 3), false).unwrap();
    }
    assert_eq!(
        cur.stage().escalation(),
        Some(Escalation::AttemptsExhausted)
    );
    refused_when_forged(
        &cur,
        "a ledger escalation with a forecast was read",
        "a forecast is pending only",
        |w| {
            w["stage"]["correction"]["forecast"] = 4.into();
        },
    );
}

/// `risk_raised_by_correction` holds only for an attempt that edited,
/// within budget (D-R132): relabelling a budget or no-edit escalation is
/// refused when read.
#[test]
fn a_raised_tier_escalation_is_only_read_where_it_can_hold() {
    let s = fixtures::budget_forecast(10).unwrap();
    let over = s.accept_validation(fix(9, 61), validation(true)).unwrap();
    let mut none = fix(0, 0);
    none.to_tree = s.snapshot().candidate_tree.clone();
    none.paths.clear();
    let no_edit = s.accept_validation(none, validation(true)).unwrap();
    for state in [&over, &no_edit] {
        refused_when_forged(
            state,
            "a relabelled escalation was read",
            "the escalation reason does not hold",
            |w| {
                w["stage"]["reason"] = "risk_raised_by_correction".into();
            },
        );
    }
}

#[test]
fn a_forecast_over_budget_records_its_forecast() {
    let over = fixtures::budget_forecast(61).unwrap();
    refused_when_forged(
        &over,
        "a forecast_over_budget escalation without its forecast was read",
        "records the refused forecast",
        |w| {
            w["stage"]["correction"]
                .as_object_mut()
                .unwrap()
                .remove("forecast");
        },
    );
    // The refused forecast is the one on record, and a retry of it answers
    // unchanged.
    assert_eq!(over.stage().forecast(), Some(61));
    assert_eq!(
        over.accept_forecast(Forecast::new(61).unwrap()).unwrap(),
        over
    );
}

const INFERENTIAL: &str = r#"{"findings":[{"location":"src/parser.rs:4","severity":"CRITICAL","claim":"the mutex is never released on error","proof_refs":["src/parser.rs:4"],"evidence_class":"inferential","causal_disposition":"introduced"}],"evidence":["read the diff"]}"#;

fn pristine() -> ReviewState {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap()
}

fn awaiting_refuter() -> ReviewState {
    let path = RepoPath::parse("src/parser.rs").unwrap();
    let mut facts = CausalFacts::default();
    facts.hunks.insert(
        path.clone(),
        vec![Hunk {
            start: 1,
            count: 10,
        }],
    );
    facts.candidate_lines.insert(path, 30);
    pristine()
        .accept_results(
            vec![ReviewerResult::parse(INFERENTIAL.as_bytes()).unwrap()],
            &facts,
        )
        .unwrap()
}

#[test]
fn a_judged_review_awaiting_the_refuter_is_not_pristine() {
    let judged = awaiting_refuter();
    assert!(matches!(judged.stage(), Stage::AwaitingRefuter { .. }));
    assert_eq!(judged.stage().name(), "reviewing", "the same wire name");
    assert_eq!(round_trip(&judged), judged);
    // Its judgment dropped from the wire, it is a pristine review that is
    // not this lineage's successor: reading it works, taking it as the
    // next state does not.
    let dropped = fixtures::forge(&judged, |w| {
        w["stage"].as_object_mut().unwrap().remove("judgment");
    })
    .unwrap();
    assert_eq!(*dropped.stage(), Stage::Reviewing);
    assert!(check_successor(&judged, &dropped).is_err());
    // A pristine review with a refuter batch already recorded beside the
    // pending findings is not a state any transition makes.
    refused_when_forged(
        &judged,
        "a refuted judgment was read as awaiting the refuter",
        "waits only for the refuter batch",
        |w| {
            w["stage"]["judgment"]["refutation"] = serde_json::json!({
                "outcomes": [{"finding_id": "R3-001", "outcome": "corroborated", "evidence": ["x"]}]
            });
        },
    );
}

/// Every escalation reason's `name()` is its wire spelling, and each has a
/// sentence to report it with (issue 22 §5).
#[test]
fn escalation_reasons_name_their_wire_spelling_and_explain_themselves() {
    use probity_core::review::EscalationReason as R;
    for r in [
        R::FindingEscalated,
        R::ForecastOverBudget,
        R::BudgetExceeded,
        R::AttemptsExhausted,
        R::NoEditAttempt,
        R::EvidenceFailed,
        R::RiskRaisedByCorrection,
    ] {
        assert_eq!(
            serde_json::to_value(r).unwrap(),
            serde_json::Value::String(r.name().to_string())
        );
        assert!(!r.explain().is_empty());
    }
}
