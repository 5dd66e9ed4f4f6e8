//! Assembly from precomputed filter results is assembly without them.

use super::*;
use crate::context::schema::AcceptAll;

const INPUTS: &[&str] = &[
    include_str!("../../../../examples/context/work-item.json"),
    include_str!("../../../../examples/context/change-proposal.json"),
];

fn inputs() -> Vec<ContextInput> {
    INPUTS
        .iter()
        .map(|raw| serde_json::from_str(raw).expect("example input parses"))
        .collect()
}

#[test]
fn a_full_memo_gives_the_same_assembly() {
    for input in inputs() {
        let plan = FilterPlan::new(&input);
        assert!(!plan.jobs().is_empty());
        let memo = plan.memo((0..plan.jobs().len()).filter_map(|i| plan.run(i)));
        assert!(!memo.is_empty());
        assert_eq!(
            assemble_with(&input, &memo, &AcceptAll),
            assemble(&input, &AcceptAll)
        );
    }
}

#[test]
fn a_partial_or_reordered_memo_gives_the_same_assembly() {
    for input in inputs() {
        let plan = FilterPlan::new(&input);
        let n = plan.jobs().len();
        let odd = plan.memo(
            (0..n)
                .rev()
                .filter(|i| i % 2 == 1)
                .filter_map(|i| plan.run(i)),
        );
        assert_eq!(
            assemble_with(&input, &odd, &AcceptAll),
            assemble(&input, &AcceptAll)
        );
    }
}

#[test]
fn a_memo_under_other_credentials_is_not_used() {
    for input in inputs() {
        // Results computed while `Opening` was a registered credential.
        let mut other = input.clone();
        other.credentials.push("Opening for early".to_owned());
        other.credentials.push("ci / test fails".to_owned());
        let plan = FilterPlan::new(&other);
        let memo = plan.memo((0..plan.jobs().len()).filter_map(|i| plan.run(i)));
        assert_eq!(
            assemble_with(&input, &memo, &AcceptAll),
            assemble(&input, &AcceptAll)
        );
        assert_eq!(
            assemble_with(&other, &memo, &AcceptAll),
            assemble(&other, &AcceptAll)
        );
    }
}

#[test]
fn an_invalid_input_plans_nothing_and_fails_the_same_way() {
    for input in inputs() {
        let mut bad = input.clone();
        bad.credentials.push("short".to_owned());
        let plan = FilterPlan::new(&bad);
        assert!(plan.jobs().is_empty());
        let memo = plan.memo(Vec::new());
        assert_eq!(
            assemble_with(&bad, &memo, &AcceptAll),
            assemble(&bad, &AcceptAll)
        );
        assert!(assemble(&bad, &AcceptAll).is_err());
    }
}
