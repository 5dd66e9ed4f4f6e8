//! The vectors of the built-in risk policy v2 (D-R114): its document and
//! digest, and a state revision and receipt made under it. Emitted after
//! every earlier vector, so those keep their lines in the vector file.

use super::{Builder, VectorError, err, same_bytes, state_err, state_vector, to_value};
use crate::review::fixtures;
use crate::review::{Lens, POLICY_V2_DOMAIN, Receipt, ReviewState, RiskPolicy};

pub(super) fn vectors(b: &mut Builder) -> Result<(), VectorError> {
    let n = "risk-policy-v2";
    b.jcs(
        "policy_hash",
        n,
        Some(POLICY_V2_DOMAIN),
        to_value(n, RiskPolicy::v2())?,
        Some(RiskPolicy::v2_hash()),
        None,
    )?;

    // The parser scenario's approval, started under v2.
    let n = "parser-approved-policy-v2";
    let input = fixtures::start_input_under(
        RiskPolicy::v2(),
        RiskPolicy::v2_hash(),
        &fixtures::parser_observation(),
        Lens::Reliability,
    )
    .map_err(state_err(n))?;
    let approved = ReviewState::start(input)
        .map_err(state_err(n))?
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .map_err(|e| err(n, e.to_string()))?
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .map_err(|e| err(n, e.to_string()))?;
    state_vector(b, n, &approved)?;
    let receipt = Receipt::derive(&approved).ok_or_else(|| err(n, "no receipt"))?;
    if receipt.policy_hash != RiskPolicy::v2_hash() {
        return Err(err(n, "the receipt does not name policy v2"));
    }
    let bytes = receipt.to_bytes().map_err(state_err(n))?;
    let value = to_value(n, &receipt)?;
    let canonical = bytes
        .strip_suffix(b"\n")
        .ok_or_else(|| err(n, "the receipt file does not end with a newline"))?;
    same_bytes(n, &value, canonical)?;
    b.jcs("receipt", n, None, value, None, None)?;
    Ok(())
}
