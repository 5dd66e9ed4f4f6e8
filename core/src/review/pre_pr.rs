//! The pre-PR boundary (R8.4): a change proposal's one delivery commit
//! against an explicit base. An unavailable base denies at boundary
//! selection, never falls back; a base that advanced since the reviewed
//! base is accepted only with a native ancestry proof that its advance
//! touches none of the delivered paths.

use serde::Serialize;

use crate::review::gate::{Decision, Gate, GateDecision, PrePrSaid, deny_row};
use crate::review::ids::{CommitId, RepoPath};

/// Proof that the base advanced compatibly: the reviewed base is an
/// ancestor of the base tip (the delivered range is exactly one commit on
/// it), and the paths the base changed since are disjoint from the paths
/// the delivery changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaseAdvance {
    /// The delivery commit's parent: the base the review saw.
    pub reviewed_base: CommitId,
    /// The base branch's tip now.
    pub base_tip: CommitId,
    /// What the base changed between the two.
    pub base_changed_paths: Vec<RepoPath>,
}

/// The denial for a base that does not resolve.
pub fn base_unavailable(base: &str) -> GateDecision {
    deny_row(Gate::PrePr, None, &[], &PrePrSaid::BaseUnavailable { base })
}

/// The denial for a delivery commit without a parent: the proposal shares
/// no history with its base.
pub fn unrelated_history(commit: &CommitId) -> GateDecision {
    deny_row(
        Gate::PrePr,
        None,
        &[],
        &PrePrSaid::UnrelatedHistory { commit },
    )
}

/// Checks how the reviewed base relates to the base tip. `None`: they are
/// the same commit. `Some`: the base advanced compatibly. A denial: it
/// advanced over delivered paths (the merge result was never reviewed).
/// The caller has established that `reviewed_base` is an ancestor of
/// `base_tip` (the delivered range `base_tip..head` is one commit whose
/// parent is `reviewed_base`).
pub fn check_base_advance(
    reviewed_base: &CommitId,
    base_tip: &CommitId,
    base_changed_paths: Vec<RepoPath>,
    delivered_paths: &[RepoPath],
) -> Result<Option<BaseAdvance>, GateDecision> {
    if reviewed_base == base_tip {
        return Ok(None);
    }
    let overlap: Vec<RepoPath> = base_changed_paths
        .iter()
        .filter(|p| delivered_paths.binary_search(p).is_ok())
        .cloned()
        .collect();
    if !overlap.is_empty() {
        return Err(deny_row(
            Gate::PrePr,
            None,
            &overlap,
            &PrePrSaid::BaseAdvanced {
                reviewed_base,
                base_tip,
            },
        ));
    }
    Ok(Some(BaseAdvance {
        reviewed_base: reviewed_base.clone(),
        base_tip: base_tip.clone(),
        base_changed_paths,
    }))
}

/// The pre-PR answer once the base advanced compatibly: an allow says how
/// the base moved; any other decision is returned as it is.
pub fn explain_advance(decision: GateDecision, advance: Option<&BaseAdvance>) -> GateDecision {
    match (advance, decision.decision) {
        (Some(a), Decision::Allow) => decision.explained(&format!(
            "the base advanced from {} to {} without touching a delivered path",
            a.reviewed_base, a.base_tip
        )),
        _ => decision,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::gate::{GateStage, ReasonCode};

    fn c(s: &str) -> CommitId {
        CommitId::parse(s.repeat(40)).unwrap()
    }

    fn p(s: &str) -> RepoPath {
        RepoPath::parse(s).unwrap()
    }

    #[test]
    fn same_base_needs_no_proof() {
        assert_eq!(
            check_base_advance(&c("1"), &c("1"), vec![], &[p("a")]),
            Ok(None)
        );
    }

    #[test]
    fn a_disjoint_advance_is_proved_and_an_overlapping_one_denied() {
        let ok = check_base_advance(&c("1"), &c("2"), vec![p("docs/x.md")], &[p("src/a.rs")])
            .unwrap()
            .unwrap();
        assert_eq!(ok.base_tip, c("2"));
        assert_eq!(ok.base_changed_paths, vec![p("docs/x.md")]);
        let d = check_base_advance(
            &c("1"),
            &c("2"),
            vec![p("docs/x.md"), p("src/a.rs")],
            &[p("src/a.rs"), p("src/b.rs")],
        )
        .unwrap_err();
        assert_eq!(d.reason_code, ReasonCode::BaseAdvanced);
        assert_eq!(d.stage, GateStage::Boundary);
        assert_eq!(d.differing_paths, vec![p("src/a.rs")]);
    }

    #[test]
    fn an_unavailable_base_denies_at_boundary_selection() {
        let d = base_unavailable("upstream/main");
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, ReasonCode::BaseUnavailable);
        assert_eq!(d.stage, GateStage::Boundary);
        assert!(d.message.contains("upstream/main"));
    }

    #[test]
    fn only_an_allow_says_how_the_base_advanced() {
        let advance = check_base_advance(&c("1"), &c("2"), vec![p("docs/x.md")], &[p("src/a.rs")])
            .unwrap()
            .unwrap();
        let allow =
            GateDecision::allowed_for_tests(Gate::PrePr, "review-0123456789abcdef", "reviewed");
        assert_eq!(explain_advance(allow.clone(), None), allow);
        let said = explain_advance(allow.clone(), Some(&advance));
        assert_eq!(
            said.message,
            format!(
                "reviewed; the base advanced from {} to {} without touching a delivered path",
                c("1"),
                c("2")
            )
        );
        let denied = base_unavailable("main");
        assert_eq!(explain_advance(denied.clone(), Some(&advance)), denied);
    }
}
