//! Command evidence (`evidence_reading`, `evidence_reading_streamed`): the
//! `--evidence` bytes a user or an agent hands over, and a check's output.
//! Beyond not panicking: a strict command evidence document that reports a
//! failure (a non-zero exit code, or a signal) never reads as passed, not
//! even padded past the bound; and the streamed reading of bytes within
//! the bound is the whole reading.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probity_core::canonical::parse_strict;
use probity_core::review::{
    EVIDENCE_TAIL_BYTES, EvidenceVerdict, MAX_COMMAND_EVIDENCE_BYTES, evidence_reading,
    evidence_reading_streamed,
};

fn reports_failure(data: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(map)) = parse_strict(data) else {
        return false;
    };
    let schema = map.get("schema").and_then(|s| s.as_str());
    if !matches!(
        schema,
        Some("probity-command-evidence/v1" | "probity-command-evidence/v2")
    ) {
        return false;
    }
    let code = map.get("exit_code").and_then(serde_json::Value::as_i64);
    matches!(code, Some(c) if c != 0) || map.get("signal").is_some_and(|s| !s.is_null())
}

fuzz_target!(|data: &[u8]| {
    let whole = evidence_reading(data);
    let tail = &data[data.len().saturating_sub(EVIDENCE_TAIL_BYTES)..];
    let streamed = evidence_reading_streamed(data, tail, data.len() as u64);
    assert_eq!(format!("{whole:?}"), format!("{streamed:?}"));
    if reports_failure(data) {
        assert!(
            !matches!(&whole, Ok(r) if r.verdict == EvidenceVerdict::Passed),
            "a failed check reads as passed"
        );
        let padded = evidence_reading_streamed(data, tail, MAX_COMMAND_EVIDENCE_BYTES + 1);
        assert!(
            padded.is_err(),
            "a failed check padded past the bound is not refused: {padded:?}"
        );
    }
});
