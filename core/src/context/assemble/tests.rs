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

/// Assembly of `input` with `memo` is assembly of it without one.
fn assert_memo_changes_nothing(input: &ContextInput, memo: &FilterMemo<'_>) {
    assert_eq!(
        assemble_with(input, memo, &AcceptAll),
        assemble(input, &AcceptAll)
    );
}

/// The memo of every job of `plan`, each run.
fn full_memo<'a>(plan: &FilterPlan<'a>) -> FilterMemo<'a> {
    plan.memo((0..plan.jobs().len()).filter_map(|i| plan.run(i)))
}

/// `input` with `more` registered credentials.
fn with_credentials(input: &ContextInput, more: &[&str]) -> ContextInput {
    let mut out = input.clone();
    out.credentials.extend(more.iter().map(|c| (*c).to_owned()));
    out
}

#[test]
fn a_full_memo_gives_the_same_assembly() {
    for input in inputs() {
        let plan = FilterPlan::new(&input);
        assert!(!plan.jobs().is_empty());
        let memo = full_memo(&plan);
        assert!(!memo.is_empty());
        assert_memo_changes_nothing(&input, &memo);
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
        assert_memo_changes_nothing(&input, &odd);
    }
}

#[test]
fn a_memo_under_other_credentials_is_not_used() {
    for input in inputs() {
        // Results computed while `Opening` was a registered credential.
        let other = with_credentials(&input, &["Opening for early", "ci / test fails"]);
        let plan = FilterPlan::new(&other);
        let memo = full_memo(&plan);
        assert_memo_changes_nothing(&input, &memo);
        assert_memo_changes_nothing(&other, &memo);
    }
}

#[test]
fn an_invalid_input_plans_nothing_and_fails_the_same_way() {
    for input in inputs() {
        let bad = with_credentials(&input, &["short"]);
        let plan = FilterPlan::new(&bad);
        assert!(plan.jobs().is_empty());
        let memo = plan.memo(Vec::new());
        assert_memo_changes_nothing(&bad, &memo);
        assert!(assemble(&bad, &AcceptAll).is_err());
    }
}

/// A body holding a Databricks token (version 5 masks it, version 4 did
/// not), built from pieces so no token-shaped literal is stored.
fn with_token(mut input: ContextInput, version: Option<&str>) -> ContextInput {
    let token = format!("dapi{}", "0123456789abcdef".repeat(2));
    input.entity.body = Some(format!("workspace token {token}\n"));
    input.filter_version = version.map(str::to_owned);
    input
}

#[test]
fn a_memo_under_another_filter_version_is_not_used() {
    for input in inputs() {
        let v4 = with_token(input.clone(), Some("probity-filter/4"));
        let v5 = with_token(input, None);
        let plan = FilterPlan::new(&v4);
        let memo = full_memo(&plan);
        let (a4, a5) = (
            assemble(&v4, &AcceptAll).unwrap(),
            assemble(&v5, &AcceptAll).unwrap(),
        );
        assert_ne!(a4.tree, a5.tree);
        assert_eq!(assemble_with(&v5, &memo, &AcceptAll).unwrap(), a5);
        assert_eq!(assemble_with(&v4, &memo, &AcceptAll).unwrap(), a4);
    }
}

#[test]
fn the_input_chooses_the_filter_version() {
    for input in inputs() {
        for (asked, recorded, masked) in [
            (None, "probity-filter/6", true),
            (Some("probity-filter/6"), "probity-filter/6", true),
            (Some("probity-filter/5"), "probity-filter/5", true),
            (Some("probity-filter/4"), "probity-filter/4", false),
        ] {
            let a = assemble(&with_token(input.clone(), asked), &AcceptAll).unwrap();
            let index: serde_json::Value =
                serde_json::from_slice(a.tree.get("index.json").unwrap()).unwrap();
            assert_eq!(index["filter_version"], recorded);
            let bodies = a
                .tree
                .files()
                .iter()
                .filter(|(p, _)| p.starts_with("records/"))
                .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
                .collect::<String>();
            assert_eq!(
                bodies.contains("[REDACTED:secret.databricks]"),
                masked,
                "{asked:?}"
            );
            assert_eq!(bodies.contains("dapi0123"), !masked, "{asked:?}");
        }
        let bad = with_token(input, Some("probity-filter/3"));
        let err = assemble(&bad, &AcceptAll).unwrap_err();
        assert!(
            matches!(&err, AssembleError::Input(m) if m.contains("probity-filter/3")),
            "{err}"
        );
        let plan = FilterPlan::new(&bad);
        assert!(plan.jobs().is_empty());
    }
}
