//! The signed attestation's bytes, pinned: the DSSE envelope around the
//! golden in-toto statement (`review__in_toto_statement.snap`), with a real
//! SSH signature made once by a throwaway key. To check it by hand:
//!
//! ```sh
//! echo "golden@probity.invalid ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICLbFo3A92KSPeZ2ZoQrIlA+D378Bh9r1w58mjOgKhbB" > allowed
//! # write SIGNATURE below to sig, the statement's PAE to pae, then:
//! ssh-keygen -Y verify -f allowed -I golden@probity.invalid -n probity -s sig < pae
//! ```

#[path = "support/approved.rs"]
mod golden_review;

use golden_review::approved;
use probity_core::review::Receipt;
use probity_core::review::fixtures;
use probity_core::review::{dearmor, envelope_bytes, parse_envelope, statement_pae};
use probity_core::review::{manifest_bytes, statement, statement_bytes};

/// `ssh-keygen -Y sign -n probity` over the golden statement's PAE.
const SIGNATURE: &str = "-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgItsWjcD3YpI95nZmhCsiUD4Pfv
wGH2vXDnyaM6AqFsEAAAAHcHJvYml0eQAAAAAAAAAGc2hhNTEyAAAAUwAAAAtzc2gtZWQy
NTUxOQAAAEDKZC0EXAj8fYPAGXIzfLfQZ4mDxoVrZoTEOCGNlEZH2s7PMgNU0n6/GyLO6s
EuJacNYgGqCAXD6u6n6Vf/WVoD
-----END SSH SIGNATURE-----
";

/// The golden statement, built exactly as `review.rs` builds it.
fn golden_statement() -> Vec<u8> {
    let (_, _, r2) = approved();
    let receipt = Receipt::derive(&r2).unwrap();
    let entries = fixtures::parser_manifest_entries();
    let manifest = manifest_bytes(&receipt, entries).unwrap();
    statement_bytes(&statement(&receipt, &manifest)).unwrap()
}

#[test]
fn a_signed_attestation_as_a_dsse_envelope() {
    let stmt = golden_statement();
    // The statement the signature was made over is the pinned one.
    let snap = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/review__in_toto_statement.snap"
    ))
    .unwrap();
    let pinned = snap
        .splitn(3, "---\n")
        .nth(2)
        .unwrap()
        .trim_end_matches('\n');
    assert_eq!(stmt, pinned.as_bytes());
    let pae = statement_pae(&stmt);
    let header = format!("DSSEv1 28 application/vnd.in-toto+json {} ", stmt.len());
    assert_eq!(&pae[..header.len()], header.as_bytes());
    assert_eq!(&pae[header.len()..], stmt.as_slice());

    let sig = dearmor(SIGNATURE.as_bytes()).unwrap();
    // What `ssh-keygen -l` printed for the key that made it.
    assert_eq!(
        sig.fingerprint(),
        "SHA256:Qb5RtKJSbUM9tnH97RaCEw4OdIVG0Lvqc426ERs19jw"
    );
    assert_eq!(sig.armored(), SIGNATURE, "re-armored byte for byte");
    let env = envelope_bytes(&stmt, &sig).unwrap();
    let parsed = parse_envelope(&env).unwrap();
    assert_eq!(parsed.payload, stmt);
    assert_eq!(parsed.signatures, vec![sig]);
    insta::assert_snapshot!("dsse_envelope", String::from_utf8(env).unwrap());
}
