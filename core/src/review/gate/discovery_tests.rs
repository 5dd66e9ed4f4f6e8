use super::*;
use crate::review::fixtures;
use crate::review::ids::{CommitId, TreeId};
use crate::review::lens::Lens;
use crate::review::rebase::ProofKind;

const OTHER: &str = "9999999999999999999999999999999999999999";
const NEW: &str = "8888888888888888888888888888888888888888";

fn approved() -> ReviewState {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"cargo test: ok\n")
        .unwrap()
}

fn t(s: &str) -> TreeId {
    TreeId::parse(s).unwrap()
}

fn receipt(s: &ReviewState) -> Vec<u8> {
    Receipt::derive(s).unwrap().to_bytes().unwrap()
}

/// The proof that `s`'s change was rebased onto OTHER.
fn onto_other(s: &ReviewState) -> GateProof {
    GateProof {
        kind: ProofKind::RebasedOnto,
        receipt_base: s.snapshot.base_tree.clone(),
        live_base: t(OTHER),
        chain: Vec::new(),
    }
}

/// `gate`'s decision on `live` with `state`'s authority rebased as `check`
/// says.
fn rebased(
    gate: Gate,
    live: &LiveTarget,
    state: &ReviewState,
    receipt_file: Option<&[u8]>,
    superseded_by: Option<&LineageId>,
    check: &RebaseCheck,
) -> GateDecision {
    decide_target(
        gate,
        live,
        Authority::Rebased {
            state,
            receipt_file,
            superseded_by,
            check,
        },
    )
}

#[test]
fn a_proven_rebase_allows_and_names_its_proof() {
    let s = approved();
    let file = receipt(&s);
    let live = LiveTarget::new(t(OTHER), t(NEW));
    let proof = onto_other(&s);
    let check = RebaseCheck::Proven(proof.clone());
    let d = rebased(Gate::PrePush, &live, &s, Some(&file), None, &check);
    assert_eq!(d.decision, Decision::Allow);
    assert_eq!(d.reason_code, ReasonCode::ReceiptValid);
    assert_eq!(d.proof, Some(Box::new(proof.clone())));
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["proof"]["kind"], "rebased_onto");
    // The receipt file must still match what the state derives.
    let d = rebased(Gate::PreCommit, &live, &s, Some(b"{}\n"), None, &check);
    assert_eq!(d.reason_code, ReasonCode::ReceiptMismatch);
    assert_eq!(d.proof, None);
    // A superseded lineage is history, proof or not.
    let leaf = LineageId::parse("review-00000000000000aa").unwrap();
    let d = rebased(Gate::PreCommit, &live, &s, Some(&file), Some(&leaf), &check);
    assert_eq!(d.reason_code, ReasonCode::ReceiptSuperseded);
    // An allow without a proof serializes no proof field (golden bytes).
    let exact = decide_target(
        Gate::PreCommit,
        &LiveTarget::new(
            s.snapshot.base_tree.clone(),
            s.snapshot.candidate_tree.clone(),
        ),
        Authority::Exact {
            state: &s,
            receipt_file: Some(&file),
            superseded_by: None,
        },
    );
    assert_eq!(exact.decision, Decision::Allow);
    assert!(serde_json::to_value(&exact).unwrap().get("proof").is_none());
}

#[test]
fn a_push_carries_the_proof_of_its_range() {
    let s = approved();
    let file = receipt(&s);
    let check = RebaseCheck::Proven(onto_other(&s));
    let live = LiveTarget::new(t(OTHER), t(NEW));
    let d = rebased(Gate::PrePush, &live, &s, Some(&file), None, &check);
    let c = CommitId::parse("4444444444444444444444444444444444444444").unwrap();
    let range = DeliveredRange {
        refs: vec!["refs/heads/main".into()],
        tip: c.clone(),
        commits: vec![RangeCommit {
            commit: c,
            tree: t(NEW),
            parents: vec![CommitId::parse(OTHER).unwrap()],
        }],
        count: 1,
        problem: None,
    };
    let all = combine_deliveries(Gate::PrePush, vec![(range, d.clone())]);
    assert_eq!(all.decision, Decision::Allow);
    assert_eq!(all.proof, d.proof);
    assert_eq!(all.deliveries[0].proof, d.proof);
    assert!(
        all.message.starts_with("refs/heads/main: "),
        "{}",
        all.message
    );
    assert!(all.message.contains("was not reviewed"), "{}", all.message);
}

#[test]
fn a_failed_rebase_proof_denies_with_the_paths_that_differ() {
    let s = approved();
    let file = receipt(&s);
    let paths = vec![RepoPath::parse("src/parser.rs").unwrap()];
    let check = RebaseCheck::Differs(paths.clone());
    let live = LiveTarget::new(t(OTHER), t(NEW));
    let d = rebased(Gate::PreCommit, &live, &s, Some(&file), None, &check);
    assert_eq!(d.decision, Decision::Deny);
    assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
    assert_eq!(d.differing_paths, paths);
    assert_eq!(d.next_action, NextAction::StartReview);
    assert!(d.message.contains(OTHER), "{}", d.message);
}

#[test]
fn the_next_slice_is_classified_against_the_committed_lineage() {
    let s = approved();
    let reviewed = s.snapshot.paths.clone();
    let unrelated = vec![RepoPath::parse("docs/notes.md").unwrap()];
    // Committed: the live base is the approved final candidate.
    let committed = LiveTarget::new(s.final_candidate_tree().clone(), t(NEW));
    // Not committed: the live base is the reviewed base.
    let pending = LiveTarget::new(s.snapshot.base_tree.clone(), t(NEW));
    let decide = |live: &LiveTarget, differing: &[RepoPath]| {
        decide_target(
            Gate::PreCommit,
            live,
            Authority::Prior {
                state: &s,
                differing_paths: differing,
                superseded_by: None,
            },
        )
    };
    let d = decide(&committed, &unrelated);
    assert_eq!(d.reason_code, ReasonCode::ReceiptUnrelated);
    assert_eq!(d.next_action, NextAction::StartReview);
    assert!(d.message.contains("committed slice"), "{}", d.message);
    let d = decide(&committed, &reviewed);
    assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
    assert_eq!(d.next_action, NextAction::StartReview);
    let d = decide(&pending, &unrelated);
    assert_eq!(d.reason_code, ReasonCode::ReceiptUnrelated);
    assert_eq!(d.next_action, NextAction::CommitApproved);
    let add = format!(
        "git add -- {} && git commit",
        reviewed
            .iter()
            .map(RepoPath::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(d.message.contains(&add), "{}", d.message);
    let d = decide(&pending, &reviewed);
    assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
}

#[test]
fn the_commit_command_quotes_paths() {
    let mut s = approved();
    s.snapshot.paths = vec![
        RepoPath::parse("a b.rs").unwrap(),
        RepoPath::parse("src/x.rs").unwrap(),
    ];
    assert_eq!(
        commit_slice_command(&s),
        "git add -- 'a b.rs' src/x.rs && git commit"
    );
}
