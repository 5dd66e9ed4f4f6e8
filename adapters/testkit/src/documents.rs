//! The role documents tests hand to the drivers: reviewer results (clean,
//! a blocker, an escalating claim), targeted validator results (pass,
//! fail), evidence and the independent check's runs.

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::{CommandRun, ExitOutcome};
use probity_ports::review::{EvidenceInput, LensResultInput, NamedInput};

/// A reviewer result with no findings.
pub const CLEAN: &str = r#"{"findings":[],"evidence":["read the diff"]}"#;

/// A reviewer result with one deterministic, candidate-causal BLOCKER at
/// `src/a.rs:2` (admitted to correction when the change touched that line).
pub const BLOCKER: &str = r#"{"findings":[{"location":"src/a.rs:2","severity":"BLOCKER","claim":"wrong","proof_refs":["t fails"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran t"]}"#;

/// A reviewer result whose inferential BLOCKER of unknown cause escalates
/// the review at once.
pub const ESCALATING: &str = r#"{"findings":[{"location":"src/a.rs:1","severity":"BLOCKER","claim":"maybe wrong","proof_refs":["a hunch"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["read the diff"]}"#;

/// A targeted validator result: the original criteria pass, no regression.
pub const VALIDATOR_PASS: &str = r#"{"original_criteria":{"passed":true,"evidence":["t passes"]},"correction_regression":{"passed":true,"evidence":["suite"]}}"#;

/// A targeted validator result: the original criteria still fail.
pub const VALIDATOR_FAIL: &str = r#"{"original_criteria":{"passed":false,"evidence":["t fails"]},"correction_regression":{"passed":true,"evidence":["suite"]}}"#;

/// Opaque evidence bytes (their presence is the independent mechanism's
/// claim: a pass).
pub const EVIDENCE: &str = "ok\n";

/// A reviewer result with one BLOCKER at `location` (`path:line`),
/// deterministic and introduced by the candidate.
pub fn blocker_at(location: &str) -> String {
    serde_json::json!({
        "findings": [{
            "location": location,
            "severity": "BLOCKER",
            "claim": "wrong",
            "proof_refs": ["t fails"],
            "evidence_class": "deterministic",
            "causal_disposition": "introduced",
        }],
        "evidence": ["ran t"],
    })
    .to_string()
}

/// A document named as a file would name it.
pub fn named(name: &str, text: impl AsRef<[u8]>) -> NamedInput {
    NamedInput {
        name: name.into(),
        bytes: text.as_ref().to_vec(),
    }
}

/// A lens result for `lens`.
pub fn result_for(lens: Lens, text: &str) -> LensResultInput {
    LensResultInput::named(lens, named(&format!("{}.json", lens.name()), text))
}

/// An unnamed lens result (for the only selected lens).
pub fn result(text: &str) -> LensResultInput {
    LensResultInput::unnamed(named("result.json", text))
}

/// Opaque evidence bytes.
pub fn evidence(text: &str) -> EvidenceInput {
    EvidenceInput::Bytes(named("evidence.txt", text))
}

/// The independent check, run: `exit` 0 passes, anything else fails.
pub fn check_run(exit: i32) -> CommandRun {
    let output = b"test result: ok\n";
    CommandRun {
        argv: vec!["cargo".into(), "test".into()],
        exit: ExitOutcome::Code(exit),
        output_sha256: Sha256Digest::plain(output),
        output_bytes: output.len() as u64,
    }
}

/// Evidence from a check that passed.
pub fn passing_check() -> EvidenceInput {
    EvidenceInput::Command(check_run(0))
}

/// Evidence from a check that failed (an approval is never made of it).
pub fn failing_check() -> EvidenceInput {
    EvidenceInput::Command(check_run(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::{ReviewerResult, ValidatorResult};

    #[test]
    fn every_document_is_what_its_role_accepts() {
        for doc in [CLEAN, BLOCKER, ESCALATING, &blocker_at("src/b.rs:9")] {
            ReviewerResult::parse(doc.as_bytes()).unwrap();
        }
        for doc in [VALIDATOR_PASS, VALIDATOR_FAIL] {
            ValidatorResult::parse(doc.as_bytes()).unwrap();
        }
    }
}
