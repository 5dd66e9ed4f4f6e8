//! R3.6, preserved reviewer results.
//!
//! A lens's judgment is expensive; the capture that keeps it can still fail
//! after the lens judged (the store was busy, the disk full, the lineage
//! moved on). The raw payload is then kept as an incident artifact, outside
//! the store, under a schema deliberately different from a lens result's,
//! so no path that takes a result takes the artifact by mistake: finalize
//! and `lens submit` refuse it by its schema. A replay decodes the payload
//! and sends it through the full verification path a live capture pays
//! (size bound, strict reviewer schema, the lens's binding, the lineage's
//! stage): nothing in the artifact is trusted as stored. An artifact made
//! for another candidate (another target identity than the lineage froze)
//! is refused.

use crate::review::ErrorClass;
use serde::{Deserialize, Serialize};

use crate::canonical::{CanonicalError, canonical_bytes};
use crate::digest::Sha256Digest;
use crate::review::dsse::decode_base64;
use crate::review::export::base64;
use crate::review::ids::{LineageId, NonBlank};
use crate::review::lens::Lens;
use crate::review::submission::MAX_ROLE_DOCUMENT_BYTES;

/// The artifact's schema: never a lens result's.
pub const PRESERVED_RESULT_SCHEMA: &str = "probity.preserved-result/v1";

/// An incident artifact: a lens result whose capture failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreservedResult {
    /// Always [`PRESERVED_RESULT_SCHEMA`], `probity.preserved-result/v1`.
    pub schema: String,
    /// The lineage the lens judged for.
    pub lineage_id: LineageId,
    /// The target identity the lineage froze (the candidate it judged).
    pub target: Sha256Digest,
    /// The lens whose result the payload is.
    pub lens: Lens,
    /// The binding or token given at capture, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// Why the capture failed.
    pub failure: NonBlank,
    /// Plain SHA-256 of the payload bytes.
    pub payload_sha256: Sha256Digest,
    /// The payload, canonical base64 (RFC 4648, padded).
    pub payload: String,
}

/// Why bytes are not a usable preserved result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreservedError {
    /// Not the artifact's JSON shape, another `schema`, or a payload that
    /// is not base64; carries why.
    #[error("not a preserved result: {0}")]
    Malformed(String),
    /// The decoded payload's SHA-256 is not `payload_sha256`: it was
    /// altered.
    #[error("the payload does not match its recorded SHA-256")]
    PayloadDigest,
    /// The decoded payload is over [`MAX_ROLE_DOCUMENT_BYTES`].
    #[error("the payload is larger than the {MAX_ROLE_DOCUMENT_BYTES}-byte bound of a lens result")]
    PayloadTooLarge,
    /// The artifact was preserved for another lineage or another target
    /// identity than the one it is replayed into.
    #[error(
        "the artifact was preserved for lineage {artifact} (target {artifact_target}), not for {lineage} (target {target}): a preserved result is replayed only into the candidate it judged"
    )]
    OtherCandidate {
        /// The lineage the artifact names.
        artifact: LineageId,
        /// The target identity the artifact names.
        artifact_target: Sha256Digest,
        /// The lineage replayed into.
        lineage: LineageId,
        /// That lineage's frozen target identity.
        target: Sha256Digest,
    },
}

impl PreservedError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            PreservedError::OtherCandidate { .. } => {
                (ErrorClass::RejectedInput, "preserved_other_candidate")
            }
            PreservedError::Malformed(_)
            | PreservedError::PayloadDigest
            | PreservedError::PayloadTooLarge => (ErrorClass::RejectedInput, "preserved_malformed"),
        }
    }
}

/// Whether `bytes` name the preserved-result schema (a JSON object whose
/// `schema` is [`PRESERVED_RESULT_SCHEMA`]): what finalize and `lens submit`
/// refuse as a result.
pub fn names_preserved_schema(bytes: &[u8]) -> bool {
    bytes.len() as u64 <= MAX_ROLE_DOCUMENT_BYTES.saturating_mul(2)
        && serde_json::from_slice::<serde_json::Value>(bytes)
            .ok()
            .and_then(|v| v.get("schema").and_then(|s| s.as_str()).map(String::from))
            .as_deref()
            == Some(PRESERVED_RESULT_SCHEMA)
}

/// The canonical artifact for `payload`.
pub fn preserve(
    lineage_id: &LineageId,
    target: &Sha256Digest,
    lens: Lens,
    binding: Option<&str>,
    failure: NonBlank,
    payload: &[u8],
) -> Result<Vec<u8>, CanonicalError> {
    canonical_bytes(&PreservedResult {
        schema: PRESERVED_RESULT_SCHEMA.into(),
        lineage_id: lineage_id.clone(),
        target: *target,
        lens,
        binding: binding.map(String::from),
        failure,
        payload_sha256: Sha256Digest::plain(payload),
        payload: base64(payload),
    })
}

/// Reads an artifact strictly and returns it with its decoded payload,
/// checked against its digest and the lens-result size bound. Nothing else
/// in it is trusted: the caller verifies the payload as a fresh result.
pub fn read_preserved(bytes: &[u8]) -> Result<(PreservedResult, Vec<u8>), PreservedError> {
    let artifact: PreservedResult =
        serde_json::from_slice(bytes).map_err(|e| PreservedError::Malformed(e.to_string()))?;
    if artifact.schema != PRESERVED_RESULT_SCHEMA {
        return Err(PreservedError::Malformed(format!(
            "schema `{}` is not `{PRESERVED_RESULT_SCHEMA}`",
            artifact.schema
        )));
    }
    let payload = decode_base64(&artifact.payload).map_err(PreservedError::Malformed)?;
    if payload.len() as u64 > MAX_ROLE_DOCUMENT_BYTES {
        return Err(PreservedError::PayloadTooLarge);
    }
    if Sha256Digest::plain(&payload) != artifact.payload_sha256 {
        return Err(PreservedError::PayloadDigest);
    }
    Ok((artifact, payload))
}

/// Refuses an artifact preserved for another lineage or candidate than the
/// one it is replayed into.
pub fn check_candidate(
    artifact: &PreservedResult,
    lineage: &LineageId,
    target: &Sha256Digest,
) -> Result<(), PreservedError> {
    if artifact.lineage_id != *lineage || artifact.target != *target {
        return Err(PreservedError::OtherCandidate {
            artifact: artifact.lineage_id.clone(),
            artifact_target: artifact.target,
            lineage: lineage.clone(),
            target: *target,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lineage() -> LineageId {
        LineageId::parse("review-0123456789abcdef").unwrap()
    }

    fn target() -> Sha256Digest {
        Sha256Digest::plain(b"target")
    }

    #[test]
    fn an_artifact_round_trips_and_names_its_schema() {
        let payload = br#"{"findings":[],"evidence":["read it"]}"#;
        let bytes = preserve(
            &lineage(),
            &target(),
            Lens::Reliability,
            Some("lbt1-00"),
            NonBlank::parse("store busy").unwrap(),
            payload,
        )
        .unwrap();
        assert!(names_preserved_schema(&bytes));
        assert!(!names_preserved_schema(payload));
        let (a, p) = read_preserved(&bytes).unwrap();
        assert_eq!(p, payload);
        assert_eq!(a.lens, Lens::Reliability);
        check_candidate(&a, &lineage(), &target()).unwrap();
        assert!(matches!(
            check_candidate(&a, &lineage(), &Sha256Digest::plain(b"other")),
            Err(PreservedError::OtherCandidate { .. })
        ));
    }

    #[test]
    fn a_tampered_or_malformed_artifact_is_refused() {
        let bytes = preserve(
            &lineage(),
            &target(),
            Lens::Risk,
            None,
            NonBlank::parse("disk full").unwrap(),
            b"{}",
        )
        .unwrap();
        let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        v["payload"] = serde_json::json!(base64(b"{\"findings\":[]}"));
        let tampered = serde_json::to_vec(&v).unwrap();
        assert_eq!(
            read_preserved(&tampered),
            Err(PreservedError::PayloadDigest)
        );
        v["extra"] = serde_json::json!(1);
        assert!(matches!(
            read_preserved(&serde_json::to_vec(&v).unwrap()),
            Err(PreservedError::Malformed(_))
        ));
        let mut other = serde_json::from_slice::<serde_json::Value>(&bytes).unwrap();
        other["schema"] = serde_json::json!("probity.reviewer/v1");
        assert!(matches!(
            read_preserved(&serde_json::to_vec(&other).unwrap()),
            Err(PreservedError::Malformed(_))
        ));
    }
}
