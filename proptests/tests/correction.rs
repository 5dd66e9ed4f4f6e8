//! Properties of causal admission and bounded correction.

use probity_core::review::Forecast;
use proptest::prelude::*;

use probity_core::review::CausalFacts;
use probity_core::review::Lens;
use probity_core::review::fixtures::{self, fix, validation};
use probity_core::review::{RefuterResult, ReviewerResult, Route};
use probity_core::review::{ReviewState, Stage};

const SEVERITIES: [&str; 4] = ["BLOCKER", "CRITICAL", "WARNING", "SUGGESTION"];
const CLASSES: [&str; 3] = ["deterministic", "inferential", "insufficient"];
const DISPOSITIONS: [&str; 6] = [
    "introduced",
    "activated",
    "worsened",
    "pre_existing",
    "base_only",
    "unknown",
];
const OUTCOMES: [&str; 3] = ["corroborated", "refuted", "inconclusive"];

fn finding_json(sev: usize, class: usize, disp: usize) -> String {
    format!(
        r#"{{"location":"src/parser.rs:1","severity":"{}","claim":"c","proof_refs":["p"],"evidence_class":"{}","causal_disposition":"{}"}}"#,
        SEVERITIES[sev], CLASSES[class], DISPOSITIONS[disp]
    )
}

fn facts() -> CausalFacts {
    let mut f = CausalFacts::default();
    let p = probity_core::review::RepoPath::parse("src/parser.rs").unwrap();
    f.hunks.insert(
        p.clone(),
        vec![probity_core::review::Hunk { start: 1, count: 5 }],
    );
    f.candidate_lines.insert(p, 5);
    f
}

fn medium() -> ReviewState {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap()
}

fn is_terminal(s: &ReviewState) -> bool {
    s.stage().is_terminal()
}

proptest! {
    /// Every severe finding ends with exactly one final route, never one
    /// left waiting; WARNING and SUGGESTION are info; the stage follows.
    #[test]
    fn every_severe_finding_has_exactly_one_route(
        findings in prop::collection::vec((0usize..4, 0usize..3, 0usize..6), 0..8),
        outcomes in prop::collection::vec(0usize..3, 8),
    ) {
        let doc = format!(
            r#"{{"findings":[{}],"evidence":["read"]}}"#,
            findings.iter().map(|(s, c, d)| finding_json(*s, *c, *d)).collect::<Vec<_>>().join(",")
        );
        let result = ReviewerResult::parse(doc.as_bytes()).unwrap();
        let mut s = medium().accept_results(vec![result], &facts()).unwrap();
        if let Stage::AwaitingRefuter { judgment: j } = s.stage() {
            let pending: Vec<String> = j.findings().filter(|f| f.route == Route::Refuter).map(|f| f.id.to_string()).collect();
            let batch = format!(
                r#"{{"outcomes":[{}]}}"#,
                pending.iter().enumerate().map(|(i, id)| format!(
                    r#"{{"finding_id":"{id}","outcome":"{}","evidence":["e"]}}"#, OUTCOMES[outcomes[i]]
                )).collect::<Vec<_>>().join(",")
            );
            s = s.accept_refuter(RefuterResult::parse(batch.as_bytes()).unwrap()).unwrap();
        }
        let j = s.stage().judgment().unwrap();
        for (f, route) in j.routed() {
            if f.severity.is_severe() {
                prop_assert!(matches!(route, Route::Correction | Route::FollowUp | Route::Escalation | Route::Refuted), "{route:?}");
            } else {
                prop_assert_eq!(route, Route::Info);
            }
        }
        let expected = if j.has_route(Route::Escalation) {
            "escalated"
        } else if j.has_route(Route::Correction) {
            "correction_required"
        } else {
            "validating"
        };
        prop_assert_eq!(s.stage().name(), expected);
    }

    /// The ledger charges exactly the measurements it is given, attempt by
    /// attempt, never loses one, and terminal states stay terminal. (That
    /// the measurements are Git's is `git_properties.rs`.)
    #[test]
    fn the_ledger_charges_what_was_measured_and_terminal_states_stay_terminal(steps in prop::collection::vec((1u64..40, 0u64..40, any::<bool>()), 1..6)) {
        let mut s = fixtures::budget_scenario().unwrap();
        let mut measured = Vec::new();
        for (i, (forecast, actual, pass)) in steps.into_iter().enumerate() {
            if is_terminal(&s) || s.stage().name() != "correction_required" {
                break;
            }
            s = s.accept_forecast(Forecast::new(forecast).unwrap()).unwrap();
            if is_terminal(&s) {
                break;
            }
            let n = u32::try_from(i + 1).unwrap();
            // A zero-line fix still changes the tree (a binary or golden edit).
            s = s.accept_validation(fix(n, actual), validation(pass)).unwrap();
            measured.push(actual);
            let c = s.stage().correction().unwrap();
            prop_assert_eq!(c.charged_lines(), measured.iter().sum::<u64>());
            prop_assert_eq!(c.attempts.iter().map(|a| a.actual_lines).collect::<Vec<_>>(), measured.clone());
        }
        if is_terminal(&s) {
            prop_assert!(s.accept_forecast(Forecast::new(1).unwrap()).map(|n| n == s).unwrap_or(true));
            prop_assert!(s.accept_validation(fix(99, 1), validation(true)).is_err());
            prop_assert!(s.accept_results(vec![fixtures::clean_result()], &facts()).map(|n| n == s).unwrap_or(true));
            if s.stage().name() == "escalated" {
                prop_assert!(s.accept_evidence(b"late").is_err());
            }
        }
    }

}
