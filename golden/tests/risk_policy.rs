//! The built-in risk policies, pinned: v1's digest (every record made
//! before D-R114 names it) and v2's document, digest, and a state record
//! and receipt made under v2. The v1 snapshots in `review.rs` keep their
//! bytes: their fixtures still start under v1.

use probity_core::canonical::canonical_bytes;
use probity_core::review::fixtures;
use probity_core::review::{Lens, Receipt, ReviewState, RiskPolicy, StateRecord};

fn text(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap()
}

/// The digest every record made under v1 names: unchanged by v2.
const V1_HASH: &str = "sha256:f34b674667cf4869e9c425145d2b9b296c85dc97aacf8e6c7b8f918778d36170";

#[test]
fn the_builtin_policies_and_their_digests() {
    assert_eq!(RiskPolicy::v1_hash().to_string(), V1_HASH);
    let v2 = canonical_bytes(RiskPolicy::v2()).unwrap();
    insta::assert_snapshot!(
        "risk_policy_v2",
        format!("{}\n{}", RiskPolicy::v2_hash(), text(v2))
    );
}

/// Starts `obs` under v2 at the fixtures' fixed time and nonce.
fn start_v2(obs: &probity_core::review::CandidateObservation) -> ReviewState {
    let input = fixtures::start_input_under(
        RiskPolicy::v2(),
        RiskPolicy::v2_hash(),
        obs,
        Lens::Reliability,
    )
    .unwrap();
    ReviewState::start(input).unwrap()
}

/// The parser scenario under v2: the same tier as under v1, v2's digest.
#[test]
fn a_state_record_and_receipt_made_under_v2() {
    let r0 = start_v2(&fixtures::parser_observation());
    assert_eq!(r0.frozen().policy_hash, RiskPolicy::v2_hash());
    let r2 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .unwrap();
    let bytes = r2.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &r2);
    insta::assert_snapshot!("state_record_approved_policy_v2", text(bytes));
    let receipt = Receipt::derive(&r2).unwrap().to_bytes().unwrap();
    insta::assert_snapshot!("receipt_approved_policy_v2", text(receipt));
}

/// A v2 reason on the wire: a Claude Code command is medium
/// (`agent_instructions`).
#[test]
fn a_state_record_of_agent_instructions_under_v2() {
    let mut obs = fixtures::parser_observation();
    obs.changed = vec![fixtures::text_change(
        ".claude/commands/deploy.md",
        2,
        0,
        "Run the deploy script.\n",
    )];
    obs.intended_untracked = Vec::new();
    let s = start_v2(&obs);
    let bytes = s.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &s);
    insta::assert_snapshot!("state_record_agent_instructions_policy_v2", text(bytes));
}
