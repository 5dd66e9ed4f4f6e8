//! The vectors of the built-in risk policies after v1, each emitted after
//! every earlier vector (so those keep their lines in the vector file):
//! v2's (D-R114), then v3's (D-R122), then v4's (D-R131), then v5's
//! (D-R135), then v6's (D-R143), then v7's (D-R165), then v8's
//! (D-R167), then v9's (D-R168), then v10's (D-R169), then v11's (D-R170), then v12's (D-R174), each its
//! document and digest, and a state revision and receipt made under it.

use super::{Builder, VectorError, err, receipt_vector, state_err, state_vector, to_value};
use crate::digest::Sha256Digest;
use crate::review::fixtures;
use crate::review::{
    Lens, POLICY_V2_DOMAIN, POLICY_V3_DOMAIN, POLICY_V4_DOMAIN, POLICY_V5_DOMAIN, POLICY_V6_DOMAIN,
    POLICY_V7_DOMAIN, POLICY_V8_DOMAIN, POLICY_V9_DOMAIN, POLICY_V10_DOMAIN, POLICY_V11_DOMAIN,
    POLICY_V12_DOMAIN, Receipt, RiskPolicy,
};

pub(super) fn vectors(b: &mut Builder) -> Result<(), VectorError> {
    for (version, domain, policy, hash) in [
        (
            "v2",
            POLICY_V2_DOMAIN,
            RiskPolicy::v2(),
            RiskPolicy::v2_hash(),
        ),
        (
            "v3",
            POLICY_V3_DOMAIN,
            RiskPolicy::v3(),
            RiskPolicy::v3_hash(),
        ),
        (
            "v4",
            POLICY_V4_DOMAIN,
            RiskPolicy::v4(),
            RiskPolicy::v4_hash(),
        ),
        (
            "v5",
            POLICY_V5_DOMAIN,
            RiskPolicy::v5(),
            RiskPolicy::v5_hash(),
        ),
        (
            "v6",
            POLICY_V6_DOMAIN,
            RiskPolicy::v6(),
            RiskPolicy::v6_hash(),
        ),
        (
            "v7",
            POLICY_V7_DOMAIN,
            RiskPolicy::v7(),
            RiskPolicy::v7_hash(),
        ),
        (
            "v8",
            POLICY_V8_DOMAIN,
            RiskPolicy::v8(),
            RiskPolicy::v8_hash(),
        ),
        (
            "v9",
            POLICY_V9_DOMAIN,
            RiskPolicy::v9(),
            RiskPolicy::v9_hash(),
        ),
        (
            "v10",
            POLICY_V10_DOMAIN,
            RiskPolicy::v10(),
            RiskPolicy::v10_hash(),
        ),
        (
            "v11",
            POLICY_V11_DOMAIN,
            RiskPolicy::v11(),
            RiskPolicy::v11_hash(),
        ),
        (
            "v12",
            POLICY_V12_DOMAIN,
            RiskPolicy::v12(),
            RiskPolicy::v12_hash(),
        ),
    ] {
        let n = format!("risk-policy-{version}");
        b.jcs(
            "policy_hash",
            &n,
            Some(domain),
            to_value(&n, policy)?,
            Some(hash),
            None,
        )?;
        // The parser scenario's approval, started under the policy.
        approved_under(
            b,
            &format!("parser-approved-policy-{version}"),
            policy,
            hash,
        )?;
    }
    Ok(())
}

/// The parser scenario's approval started under `policy` (whose digest is
/// `hash`): its state revision and receipt vectors, named `n`.
fn approved_under(
    b: &mut Builder,
    n: &str,
    policy: &RiskPolicy,
    hash: Sha256Digest,
) -> Result<(), VectorError> {
    let approved = fixtures::start_under(
        policy,
        hash,
        &fixtures::parser_observation(),
        Lens::Reliability,
    )
    .map_err(state_err(n))?
    .accept_results(vec![fixtures::clean_result()], &Default::default())
    .map_err(|e| err(n, e.to_string()))?
    .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
    .map_err(|e| err(n, e.to_string()))?;
    state_vector(b, n, &approved)?;
    let receipt = Receipt::derive(&approved).ok_or_else(|| err(n, "no receipt"))?;
    if receipt.policy_hash != hash {
        return Err(err(n, "the receipt does not name its policy"));
    }
    receipt_vector(b, n, n, &receipt)
}
