//! The golden review, shared by the tests that pin its bytes: the parser
//! observation started with the reliability lens, its clean result
//! accepted, then its evidence.

use probity_core::review::Lens;
use probity_core::review::ReviewState;
use probity_core::review::fixtures;

/// (started, results accepted, approved).
pub fn approved() -> (ReviewState, ReviewState, ReviewState) {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let r1 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap();
    let r2 = r1
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .unwrap();
    (r0, r1, r2)
}
