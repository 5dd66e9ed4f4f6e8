//! The repository policy `probity-policy/v1` (`RepoPolicy::parse`), read
//! from the base a server or CI gate judges against. Beyond not panicking:
//! an accepted policy's canonical bytes read back to the same document,
//! and every role a tier or `authorize` requires is declared with a
//! principal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::canonical_bytes;
use probity_core::review::RepoPolicy;
use probity_core::review::RiskLevel;

fuzz_target!(|data: &[u8]| {
    let Ok(policy) = RepoPolicy::parse(data) else {
        return;
    };
    let bytes = canonical_bytes(policy.document()).expect("a policy has canonical bytes");
    let again = RepoPolicy::parse(&bytes).expect("a policy's canonical bytes read back");
    assert_eq!(again.document(), policy.document());
    for level in [RiskLevel::Low, RiskLevel::Medium, RiskLevel::High] {
        for after in [false, true] {
            for role in policy.roles_for(level, after) {
                assert!(
                    !policy.holders(&role).is_empty(),
                    "`{role}` is required but held by no one"
                );
            }
        }
    }
});
