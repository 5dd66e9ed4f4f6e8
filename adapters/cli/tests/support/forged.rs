//! Records written by hand, as an agent with its own key can write them:
//! core's own API, every hash right, the trees real.

use probity_core::review::{Bundle, CandidateObservation, FrozenCandidate, PromptSet, RangeCommit};
use probity_core::review::{CommitId, Nonce, Timestamp, TreeId};
use probity_core::review::{ReviewState, RiskAssessment, StartInput, authored_lines};
use probity_core::review::{RiskLevel, RiskPolicy};
use probity_git::fixture::Fixture;

use super::rev;

/// A bundle (its bytes and a newline) of one approved record of `commit`
/// against its first parent: frozen as rated by `rate` (given the
/// commit's changed files and authored lines) under the built-in policy
/// v1's digest, with no lens (so `rate` must give `low`), approved on a
/// line of evidence.
pub fn low_v1_bundle(
    f: &Fixture,
    commit: &str,
    rate: impl FnOnce(&[probity_core::review::ChangedFile], u64) -> RiskAssessment,
) -> Vec<u8> {
    low_bundle_under(f, commit, RiskPolicy::v1(), RiskPolicy::v1_hash(), rate)
}

/// [`low_v1_bundle`] under the built-in `policy` (whose digest is `hash`):
/// its authored lines, its digest.
pub fn low_bundle_under(
    f: &Fixture,
    commit: &str,
    policy: &RiskPolicy,
    hash: probity_core::digest::Sha256Digest,
    rate: impl FnOnce(&[probity_core::review::ChangedFile], u64) -> RiskAssessment,
) -> Vec<u8> {
    let tree =
        |r: &str| TreeId::parse(rev(f, f.root(), &format!("{r}^{{tree}}")).unwrap()).unwrap();
    let c = RangeCommit {
        commit: CommitId::parse(commit).unwrap(),
        tree: tree(commit),
        parents: vec![CommitId::parse(rev(f, f.root(), &format!("{commit}~1")).unwrap()).unwrap()],
    };
    let obs = f.repo().unwrap().observe_commit(&c).unwrap();
    low_bundle_of(&obs, policy, hash, rate)
}

/// [`low_bundle_under`] of an observation made by hand (as an agent can
/// write one, whatever git would say of its trees).
pub fn low_bundle_of(
    obs: &CandidateObservation,
    policy: &RiskPolicy,
    hash: probity_core::digest::Sha256Digest,
    rate: impl FnOnce(&[probity_core::review::ChangedFile], u64) -> RiskAssessment,
) -> Vec<u8> {
    let lines = authored_lines(policy, &obs.changed);
    let assessment = rate(&obs.changed, lines);
    assert_eq!(assessment.level(), RiskLevel::Low, "a record with no lens");
    let state = ReviewState::start(StartInput {
        snapshot: FrozenCandidate::freeze(obs).unwrap(),
        assessment,
        lenses: Vec::new(),
        authored_lines: lines,
        created_at: Timestamp::parse("2026-12-01T00:00:00Z").unwrap(),
        nonce: Nonce::parse("ffeeddccbbaa99887766554433221100").unwrap(),
        prompts: Some(PromptSet::builtin().freeze(&[])),
        policy_hash: hash,
    })
    .unwrap()
    .accept_results(Vec::new(), &Default::default())
    .unwrap()
    .accept_evidence(b"trust me\n")
    .unwrap();
    let mut bytes = Bundle::build(vec![state.record().unwrap()], Vec::new())
        .unwrap()
        .to_bytes()
        .unwrap();
    bytes.push(b'\n');
    bytes
}
