//! R9.4, repair ceremonies, not tolerance.
//!
//! Validation never learns a legacy exception: a store entry that fails its
//! checks keeps failing them. What a maintainer can do instead is a
//! ceremony: prove the anomaly is the only one of its class (a complete
//! survey of the store finds exactly that one), quarantine the entry in two
//! byte-preserving phases (first a verified copy, then the entry moved out
//! of the live store: nothing is deleted, the original bytes stay
//! recoverable), and write an audit record naming the proof class, bound to
//! the same maintainer authorization an escalated edge needs (an actor, a
//! reason, an authorization). A quarantined lineage is then `retired`: every
//! command that names it answers so, with the audit record's path.
//!
//! The rules are here; surveying the store and moving its bytes are the
//! store adapter's.

use crate::review::ErrorClass;
use serde::Serialize;

use crate::canonical::{CanonicalError, canonical_bytes};
use crate::digest::Sha256Digest;
use crate::review::ids::{LineageId, NonBlank, Timestamp};

/// The audit record's schema.
pub(crate) const REPAIR_AUDIT_SCHEMA: &str = "probity.repair-audit/v1";

/// The classes of anomaly a ceremony repairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairClass {
    /// A lineage whose state record does not load (unparseable, or it fails
    /// validation). The whole lineage, and every index entry naming it, is
    /// quarantined: the lineage is retired.
    CorruptedRecord,
    /// A final lineage whose receipt file is not the receipt its state
    /// derives. The receipt file is quarantined and the derived one written.
    ReceiptMismatch,
}

impl RepairClass {
    /// Every class, in declaration order.
    pub const ALL: [RepairClass; 2] = [RepairClass::CorruptedRecord, RepairClass::ReceiptMismatch];

    /// Whether the repair retires the lineage (a corrupted record: the
    /// whole lineage is quarantined).
    pub fn retires_lineage(self) -> bool {
        match self {
            RepairClass::CorruptedRecord => true,
            RepairClass::ReceiptMismatch => false,
        }
    }

    /// Whether the repair writes the receipt the state derives in place of
    /// the quarantined one.
    pub fn rewrites_receipt(self) -> bool {
        match self {
            RepairClass::CorruptedRecord => false,
            RepairClass::ReceiptMismatch => true,
        }
    }

    /// The snake_case name used on the command line and in the audit
    /// record, e.g. `corrupted_record`.
    pub fn name(self) -> &'static str {
        match self {
            RepairClass::CorruptedRecord => "corrupted_record",
            RepairClass::ReceiptMismatch => "receipt_mismatch",
        }
    }

    /// The class with that [`name`](RepairClass::name); `None` for any
    /// other text.
    pub fn parse(s: &str) -> Option<RepairClass> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// What a survey of the whole store found for one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Survey {
    /// The class surveyed for.
    pub class: RepairClass,
    /// Lineages examined.
    pub scanned: u64,
    /// The lineages with an anomaly of the class, sorted.
    pub anomalies: Vec<LineageId>,
    /// False when the survey stopped at its bound before the end.
    pub complete: bool,
}

/// The proof a ceremony rests on: a complete survey found exactly this one
/// anomaly of its class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UniquenessProof {
    /// Always `only_anomaly_of_class`.
    pub kind: &'static str,
    /// The class of the one anomaly.
    pub class: RepairClass,
    /// How many lineages the complete survey examined.
    pub scanned: u64,
    /// How many anomalies of the class it found: always 1.
    pub anomalies: u64,
}

/// Why a repair is refused. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepairError {
    /// The named lineage is not among the survey's anomalies of the class.
    #[error("{lineage} shows no `{class}` anomaly: there is nothing to repair")]
    NotAnomalous {
        /// The lineage the repair named.
        lineage: LineageId,
        /// The class surveyed, e.g. `corrupted_record`.
        class: &'static str,
    },
    /// The survey found more than one anomaly of the class: a systemic
    /// failure, not one entry to quarantine.
    #[error(
        "{count} lineages show a `{class}` anomaly ({listed}): a ceremony repairs the only one of its class; several are a systemic failure to investigate, not to quarantine one by one"
    )]
    NotUnique {
        /// The class surveyed.
        class: &'static str,
        /// How many anomalies it found (2 or more).
        count: usize,
        /// Their lineage ids, comma-separated, sorted.
        listed: String,
    },
    /// The survey stopped at its bound before the end of the store, so
    /// uniqueness is not proven.
    #[error("the survey stopped after {scanned} lineages: uniqueness is not proven")]
    Incomplete {
        /// How many lineages it examined.
        scanned: u64,
    },
}

impl RepairError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            RepairError::NotAnomalous { .. } => (ErrorClass::RejectedInput, "not_anomalous"),
            RepairError::NotUnique { .. } => (ErrorClass::RejectedInput, "not_unique"),
            RepairError::Incomplete { .. } => (ErrorClass::RejectedInput, "survey_incomplete"),
        }
    }
}

/// Proves `lineage` is the only anomaly of the survey's class.
pub fn prove_unique(lineage: &LineageId, survey: &Survey) -> Result<UniquenessProof, RepairError> {
    if !survey.complete {
        return Err(RepairError::Incomplete {
            scanned: survey.scanned,
        });
    }
    if !survey.anomalies.contains(lineage) {
        return Err(RepairError::NotAnomalous {
            lineage: lineage.clone(),
            class: survey.class.name(),
        });
    }
    if survey.anomalies.len() > 1 {
        return Err(RepairError::NotUnique {
            class: survey.class.name(),
            count: survey.anomalies.len(),
            listed: survey
                .anomalies
                .iter()
                .map(LineageId::as_str)
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(UniquenessProof {
        kind: "only_anomaly_of_class",
        class: survey.class,
        scanned: survey.scanned,
        anomalies: 1,
    })
}

/// One file the ceremony quarantined: its path relative to the store root,
/// its plain SHA-256 and its length (the original bytes are kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuarantinedFile {
    /// Its path relative to the store root, where it was before the move.
    pub path: String,
    /// Plain SHA-256 of its bytes.
    pub sha256: Sha256Digest,
    /// Its length in bytes.
    pub bytes: u64,
}

/// Who asked for the repair, and why: the escalated edge's binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairRequest {
    /// The lineage whose anomaly is repaired.
    pub lineage: LineageId,
    /// The class of the anomaly.
    pub class: RepairClass,
    /// Why, in the maintainer's words.
    pub reason: NonBlank,
    /// Who decides.
    pub actor: NonBlank,
    /// The maintainer authorization the ceremony is bound to.
    pub authorization: NonBlank,
}

#[derive(Serialize)]
struct AuditDoc<'a> {
    schema: &'static str,
    lineage_id: &'a LineageId,
    class: RepairClass,
    proof: &'a UniquenessProof,
    reason: &'a NonBlank,
    actor: &'a NonBlank,
    authorization: &'a NonBlank,
    repaired_at: &'a Timestamp,
    quarantined: &'a [QuarantinedFile],
}

/// The audit record's bytes (canonical JSON): the lineage, the class, the
/// proof, the person's binding, the time and every file quarantined with
/// its digest.
pub fn audit_record(
    request: &RepairRequest,
    proof: &UniquenessProof,
    at: &Timestamp,
    quarantined: &[QuarantinedFile],
) -> Result<Vec<u8>, CanonicalError> {
    canonical_bytes(&AuditDoc {
        schema: REPAIR_AUDIT_SCHEMA,
        lineage_id: &request.lineage,
        class: request.class,
        proof,
        reason: &request.reason,
        actor: &request.actor,
        authorization: &request.authorization,
        repaired_at: at,
        quarantined,
    })
}

/// The consumption tombstone's schema (R10.5 `consumed`).
pub(crate) const CONSUMPTION_SCHEMA: &str = "probity.consumption/v1";

/// Why a lineage cannot be burned. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BurnError {
    /// The lineage is not approved: there is no authority to consume.
    #[error("{lineage} is `{state}`: only an approved review's authority is consumed")]
    NotApproved {
        /// The lineage named.
        lineage: LineageId,
        /// Its stage name, e.g. `escalated`.
        state: &'static str,
    },
    /// The lineage has a successor: only the chain's leaf can be burned.
    #[error("{lineage} is superseded by {leaf}: burn the chain's leaf, not its history")]
    Superseded {
        /// The lineage named.
        lineage: LineageId,
        /// The successor its supersession marker names.
        leaf: LineageId,
    },
}

impl BurnError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            BurnError::NotApproved { .. } => (ErrorClass::RejectedInput, "not_approved"),
            BurnError::Superseded { .. } => (ErrorClass::RejectedInput, "lineage_superseded"),
        }
    }
}

/// Who acknowledged the consumption, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BurnRequest {
    /// The approved lineage to burn.
    pub lineage: LineageId,
    /// Why its authority is consumed, e.g. it was delivered.
    pub reason: NonBlank,
    /// Who acknowledged it.
    pub actor: NonBlank,
}

#[derive(Serialize)]
struct ConsumptionDoc<'a> {
    schema: &'static str,
    lineage_id: &'a LineageId,
    revision: &'a Sha256Digest,
    target: &'a Sha256Digest,
    receipt_sha256: &'a Sha256Digest,
    reason: &'a NonBlank,
    actor: &'a NonBlank,
    consumed_at: &'a Timestamp,
}

/// Burns an approved, not superseded lineage (its authority acknowledged
/// as used, e.g. once delivered): the tombstone's bytes, which stay in the
/// store when the lineage's directory and index entries go, so every
/// command that names it answers `consumed`, never `not_found`. Git
/// objects are untouched.
pub fn consumption_tombstone(
    request: &BurnRequest,
    record: &crate::review::state::StateRecord,
    superseded_by: Option<&LineageId>,
    receipt: &[u8],
    at: &Timestamp,
) -> Result<Vec<u8>, BurnTombstoneError> {
    let state = &record.state;
    if !matches!(state.stage, crate::review::state::Stage::Approved { .. }) {
        return Err(BurnError::NotApproved {
            lineage: state.lineage_id.clone(),
            state: state.stage.name(),
        }
        .into());
    }
    if let Some(leaf) = superseded_by {
        return Err(BurnError::Superseded {
            lineage: state.lineage_id.clone(),
            leaf: leaf.clone(),
        }
        .into());
    }
    Ok(canonical_bytes(&ConsumptionDoc {
        schema: CONSUMPTION_SCHEMA,
        lineage_id: &state.lineage_id,
        revision: &record.revision,
        target: &state.snapshot.target,
        receipt_sha256: &Sha256Digest::plain(receipt),
        reason: &request.reason,
        actor: &request.actor,
        consumed_at: at,
    })?)
}

/// A burn refused, or its tombstone not encodable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BurnTombstoneError {
    /// The lineage cannot be burned.
    #[error(transparent)]
    Refused(#[from] BurnError),
    /// The tombstone has no canonical bytes.
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(n: u8) -> LineageId {
        LineageId::parse(format!("review-{:016x}", n)).unwrap()
    }

    fn survey(anomalies: Vec<LineageId>, complete: bool) -> Survey {
        Survey {
            class: RepairClass::CorruptedRecord,
            scanned: 10,
            anomalies,
            complete,
        }
    }

    #[test]
    fn only_the_one_anomaly_of_its_class_is_repaired() {
        let p = prove_unique(&l(1), &survey(vec![l(1)], true)).unwrap();
        assert_eq!(p.kind, "only_anomaly_of_class");
        assert_eq!(p.anomalies, 1);
        assert!(matches!(
            prove_unique(&l(1), &survey(vec![l(1), l(2)], true)),
            Err(RepairError::NotUnique { count: 2, .. })
        ));
        assert!(matches!(
            prove_unique(&l(3), &survey(vec![l(1)], true)),
            Err(RepairError::NotAnomalous { .. })
        ));
        assert!(matches!(
            prove_unique(&l(1), &survey(vec![l(1)], false)),
            Err(RepairError::Incomplete { .. })
        ));
    }

    #[test]
    fn only_an_approved_leaf_is_burned() {
        use crate::review::fixtures;
        use crate::review::lens::Lens;
        let request = BurnRequest {
            lineage: l(1),
            reason: NonBlank::parse("delivered").unwrap(),
            actor: NonBlank::parse("bot").unwrap(),
        };
        let at = Timestamp::from_unix_seconds(1_796_000_200);
        let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        let open = r0.record().unwrap();
        assert!(matches!(
            consumption_tombstone(&request, &open, None, b"", &at),
            Err(BurnTombstoneError::Refused(BurnError::NotApproved { .. }))
        ));
        let approved = r0
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap()
            .accept_evidence(b"ok\n")
            .unwrap()
            .record()
            .unwrap();
        assert!(matches!(
            consumption_tombstone(&request, &approved, Some(&l(2)), b"r", &at),
            Err(BurnTombstoneError::Refused(BurnError::Superseded { .. }))
        ));
        let bytes = consumption_tombstone(&request, &approved, None, b"r", &at).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["schema"], CONSUMPTION_SCHEMA);
        assert_eq!(v["revision"], approved.revision.to_string());
    }

    #[test]
    fn classes_have_stable_names() {
        for c in RepairClass::ALL {
            assert_eq!(RepairClass::parse(c.name()), Some(c));
        }
        assert_eq!(RepairClass::parse("legacy_exception"), None);
    }
}
