//! The rebind on plain values: a chain of two approvals, stitched or not.

use super::*;
use crate::review::fixtures::{self, text_change};
use crate::review::ids::{NonBlank, RepoPath, TreeId};
use crate::review::lens::Lens;
use crate::review::rebase::ProofKind;
use crate::review::receipt::Receipt;
use crate::review::recovery::{Disposition, RecoverRequest, ScopeEvidence, successor};
use crate::review::snapshot::{CandidateObservation, LiveTarget};
use crate::review::state::ReviewState;

const C2: &str = "2222222222222222222222222222222222222222";
const OTHER: &str = "3333333333333333333333333333333333333333";

fn t(hex: &str) -> TreeId {
    TreeId::parse(hex).unwrap()
}

fn approve(s: ReviewState) -> ReviewState {
    s.accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"tests passed\n")
        .unwrap()
}

fn l1() -> ReviewState {
    approve(fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap())
}

/// The change over `base` to C2: three more lines of the parser.
fn to_c2(base: TreeId) -> CandidateObservation {
    CandidateObservation {
        base_tree: base,
        candidate_tree: t(C2),
        unborn_head: false,
        changed: vec![text_change("src/parser.rs", 3, 1, "fn yet_more() {}\n")],
        intended_untracked: Vec::new(),
    }
}

/// The successor of `pred` over (`base`, C2): stitched when `base` is
/// `pred`'s final candidate.
fn l2(pred: &ReviewState, base: TreeId) -> ReviewState {
    let obs = to_c2(base);
    let record = pred.record().unwrap();
    let differing = [RepoPath::parse("src/parser.rs").unwrap()];
    let s = successor(
        &record,
        RecoverRequest {
            expected_revision: record.revision,
            disposition: Disposition::ScopeChanged,
            reason: NonBlank::parse("more work").unwrap(),
            actor: NonBlank::parse("dev").unwrap(),
            authorization: None,
        },
        ScopeEvidence {
            differing_paths: &differing,
            owned_by_chain: false,
        },
        fixtures::start_input(&obs, Lens::Reliability).unwrap(),
    )
    .unwrap();
    approve(s)
}

fn receipt(s: &ReviewState) -> Vec<u8> {
    Receipt::derive(s).unwrap().to_bytes().unwrap()
}

/// Asserts `d` is the denial the rebind was offered, unchanged.
#[track_caller]
fn still_denied(d: GateDecision) {
    assert_eq!(d, denied());
}

fn link<'a>(state: &'a ReviewState, receipt_file: Option<&'a [u8]>) -> ChainLink<'a> {
    ChainLink {
        state,
        receipt_file,
    }
}

fn denied() -> GateDecision {
    GateDecision::deny(
        Gate::PrePush,
        ReasonCode::ReceiptSuperseded,
        GateStage::Authority,
        None,
        Vec::new(),
        NextAction::Recover,
        "superseded".into(),
    )
}

#[test]
fn a_stitched_chain_covers_each_segment_and_their_union() {
    let a = l1();
    let b = l2(&a, a.final_candidate_tree().clone());
    let (ra, rb) = (receipt(&a), receipt(&b));
    let chain = [link(&a, Some(&ra)), link(&b, Some(&rb))];
    let b1 = a.snapshot.base_tree.clone();
    let c1 = a.final_candidate_tree().clone();
    for (live, lineages) in [
        (LiveTarget::new(b1.clone(), c1.clone()), vec![&a]),
        (LiveTarget::new(b1.clone(), t(C2)), vec![&a, &b]),
        (LiveTarget::new(c1.clone(), t(C2)), vec![&b]),
    ] {
        let d = rebind(Gate::PrePush, &live, denied(), &chain);
        assert_eq!(d.decision, Decision::Allow, "{}", d.message);
        let proof = d.proof.unwrap();
        assert_eq!(proof.kind, ProofKind::RecoveryChain);
        let ids: Vec<_> = lineages.iter().map(|s| s.lineage_id.clone()).collect();
        assert_eq!(proof.chain, ids);
        assert_eq!(d.lineage_id.as_ref(), ids.last());
    }
    // Nothing else is covered: another tree, or the chain's trees in the
    // wrong order.
    for live in [
        LiveTarget::new(b1.clone(), t(OTHER)),
        LiveTarget::new(c1.clone(), c1.clone()),
        LiveTarget::new(t(C2), c1.clone()),
    ] {
        still_denied(rebind(Gate::PrePush, &live, denied(), &chain));
    }
    // Pre-commit never rebinds, and an allow is left alone.
    let live = LiveTarget::new(b1, c1);
    still_denied(rebind(Gate::PreCommit, &live, denied(), &chain));
}

#[test]
fn every_link_must_be_approved_stitched_and_consistent() {
    let a = l1();
    let b1 = a.snapshot.base_tree.clone();
    let live = LiveTarget::new(b1.clone(), a.final_candidate_tree().clone());
    // Recovered on the old base: the successor reviews the whole change
    // again, so its predecessor's candidate stays history.
    let unstitched = l2(&a, b1);
    let (ra, ru) = (receipt(&a), receipt(&unstitched));
    let chain = [link(&a, Some(&ra)), link(&unstitched, Some(&ru))];
    still_denied(rebind(Gate::PrePush, &live, denied(), &chain));
    // A receipt that is not the one the state derives.
    let b = l2(&a, a.final_candidate_tree().clone());
    let rb = receipt(&b);
    let missing = [link(&a, None), link(&b, Some(&rb))];
    still_denied(rebind(Gate::PrePush, &live, denied(), &missing));
    // A leaf that is not approved.
    let mut validating = b.clone();
    if let crate::review::state::Stage::Approved {
        judgment,
        correction,
        ..
    } = &b.stage
    {
        validating.stage = crate::review::state::Stage::Validating {
            judgment: judgment.clone(),
            correction: correction.clone(),
        };
    }
    let unfinished = [link(&a, Some(&ra)), link(&validating, None)];
    // The live delivery here is `a`'s own segment, so a leaf still in
    // review on top of it does not hold it back (a pushed commit's review
    // is done while the next change is reviewed).
    let allowed = rebind(Gate::PrePush, &live, denied(), &unfinished);
    assert_eq!(allowed.decision, Decision::Allow, "{}", allowed.message);
    // But the leaf's own segment, or the union of both, needs the leaf's
    // approval.
    let own = LiveTarget::new(
        a.final_candidate_tree().clone(),
        validating.final_candidate_tree().clone(),
    );
    still_denied(rebind(Gate::PrePush, &own, denied(), &unfinished));
    let union = LiveTarget::new(
        a.snapshot.base_tree.clone(),
        validating.final_candidate_tree().clone(),
    );
    still_denied(rebind(Gate::PrePush, &union, denied(), &unfinished));
    // One lineage is no chain.
    still_denied(rebind(Gate::PrePush, &live, denied(), &chain[..1]));
}

#[test]
fn only_a_publication_gates_denial_is_offered_to_the_rebind() {
    assert!(rebind_offered(Gate::PrePush, &denied()));
    for gate in [Gate::PrePr, Gate::Release] {
        let d = GateDecision { gate, ..denied() };
        assert!(rebind_offered(gate, &d), "{gate:?}");
    }
    let pre_commit = GateDecision {
        gate: Gate::PreCommit,
        ..denied()
    };
    assert!(!rebind_offered(Gate::PreCommit, &pre_commit));
    let allowed = GateDecision {
        decision: Decision::Allow,
        reason_code: ReasonCode::ReceiptValid,
        ..denied()
    };
    assert!(!rebind_offered(Gate::PrePush, &allowed));
}

/// An independent review (no predecessor) of (`base`, C2).
fn independent(base: TreeId) -> ReviewState {
    let obs = to_c2(base);
    approve(fixtures::start(&obs, Lens::Reliability).unwrap())
}

#[test]
fn a_squash_composes_approved_reviews_each_on_the_last_ones_result() {
    let a = l1();
    let b = independent(a.final_candidate_tree().clone());
    let (ra, rb) = (receipt(&a), receipt(&b));
    let links = [link(&a, Some(&ra)), link(&b, Some(&rb))];
    let b1 = a.snapshot.base_tree.clone();
    let squash = LiveTarget::new(b1.clone(), t(C2));
    let d = compose_reviews(Gate::PrePush, &squash, denied(), &links);
    assert_eq!(d.decision, Decision::Allow, "{}", d.message);
    let proof = d.proof.unwrap();
    assert_eq!(proof.kind, ProofKind::ComposedReviews);
    assert_eq!(
        proof.chain,
        vec![a.lineage_id.clone(), b.lineage_id.clone()]
    );
    // Not the composition: another result, another base, the reviews in
    // the wrong order, one unstitched, one without its receipt, pre-commit.
    still_denied(compose_reviews(
        Gate::PrePush,
        &LiveTarget::new(b1.clone(), t(OTHER)),
        denied(),
        &links,
    ));
    still_denied(compose_reviews(
        Gate::PrePush,
        &LiveTarget::new(t(OTHER), t(C2)),
        denied(),
        &links,
    ));
    let reversed = [links[1], links[0]];
    still_denied(compose_reviews(Gate::PrePush, &squash, denied(), &reversed));
    let elsewhere = independent(t(OTHER));
    let re = receipt(&elsewhere);
    let unstitched = [links[0], link(&elsewhere, Some(&re))];
    still_denied(compose_reviews(
        Gate::PrePush,
        &squash,
        denied(),
        &unstitched,
    ));
    let no_receipt = [links[0], link(&b, None)];
    still_denied(compose_reviews(
        Gate::PrePush,
        &squash,
        denied(),
        &no_receipt,
    ));
    still_denied(compose_reviews(Gate::PreCommit, &squash, denied(), &links));
    still_denied(compose_reviews(
        Gate::PrePush,
        &squash,
        denied(),
        &links[..1],
    ));
}

/// D-R134: an earlier squash spent every approval a run of its note's
/// approved reviews composed, in whatever order the note lists them; a
/// review on no run from its base to its tree, one without its receipt,
/// or another span composes nothing.
#[test]
fn a_squash_composed_each_approval_on_a_run_over_its_span() {
    let a = l1();
    let b = independent(a.final_candidate_tree().clone());
    let elsewhere = independent(t(OTHER));
    let (ra, rb, re) = (receipt(&a), receipt(&b), receipt(&elsewhere));
    let links = [
        link(&elsewhere, Some(&re)),
        link(&b, Some(&rb)),
        link(&a, Some(&ra)),
    ];
    let b1 = a.snapshot.base_tree.clone();
    let c2 = t(C2);
    let span = (&b1, &c2);
    assert!(composes_approval(span, &links, &a.lineage_id));
    assert!(composes_approval(span, &links, &b.lineage_id));
    // On no run from the squash's base: C2 is its tree, OTHER no tree the
    // run passes through.
    assert!(!composes_approval(span, &links, &elsewhere.lineage_id));
    // The same reviews over another span.
    let other = t(OTHER);
    assert!(!composes_approval((&b1, &other), &links, &a.lineage_id));
    assert!(composes_approval(
        (&other, &c2),
        &links,
        &elsewhere.lineage_id
    ));
    // A link without the receipt its state derives breaks the run.
    let no_receipt = [link(&b, None), link(&a, Some(&ra))];
    assert!(!composes_approval(span, &no_receipt, &a.lineage_id));
    // Nothing composes a lineage the note does not hold.
    assert!(!composes_approval(span, &links[..2], &a.lineage_id));
}
