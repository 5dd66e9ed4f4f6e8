//! DSSE envelopes (`parse_envelope`): `attest verify` input and the
//! envelopes a bundle carries. Beyond not panicking: every accepted
//! signature is its SSHSIG blob parsed again, armors and de-armors to
//! itself, and the envelope Probity would write for the payload and that
//! signature parses back to the same payload and signature.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::review::{dearmor, envelope_bytes, parse_envelope, parse_sshsig};

fuzz_target!(|data: &[u8]| {
    let Ok(env) = parse_envelope(data) else {
        return;
    };
    for sig in &env.signatures {
        assert_eq!(parse_sshsig(&sig.blob).as_ref(), Ok(sig));
        assert_eq!(dearmor(sig.armored().as_bytes()).as_ref(), Ok(sig));
        let written = envelope_bytes(&env.payload, sig).expect("an envelope is JSON");
        let back = parse_envelope(&written).expect("the envelope Probity writes parses");
        assert_eq!(back.payload, env.payload);
        assert_eq!(back.signatures.as_slice(), std::slice::from_ref(sig));
    }
});
