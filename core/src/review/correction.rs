//! Bounded correction (R6): the ledger of attempts, each measured by Git and
//! charged against the frozen budget.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::canonical_digest;
use crate::digest::Sha256Digest;
use crate::review::finding::ValidatorResult;
use crate::review::ids::{NonBlank, RepoPath, TreeId};
use crate::review::receipt::FIX_DELTA_DOMAIN;

/// At most this many failed attempts; the next failure escalates.
pub const MAX_FAILED_ATTEMPTS: usize = 3;

/// What Git measured of one fix, from the previous tree to the live one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixMeasurement {
    /// The live candidate tree after the edit.
    pub to_tree: TreeId,
    /// Paths that differ between the previous tree and `to_tree`.
    pub paths: Vec<RepoPath>,
    /// Authored lines added + removed between them (golden and binary: 0).
    pub actual_lines: u64,
}

/// The targeted validator's verdict, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationRecord {
    pub original_criteria_passed: bool,
    #[serde(default)]
    pub original_criteria_evidence: Vec<NonBlank>,
    pub correction_regression_passed: bool,
    #[serde(default)]
    pub correction_regression_evidence: Vec<NonBlank>,
    #[serde(default)]
    pub follow_ups: Vec<NonBlank>,
}

impl From<ValidatorResult> for ValidationRecord {
    fn from(v: ValidatorResult) -> Self {
        Self {
            original_criteria_passed: v.original_criteria.passed,
            original_criteria_evidence: v.original_criteria.evidence,
            correction_regression_passed: v.correction_regression.passed,
            correction_regression_evidence: v.correction_regression.evidence,
            follow_ups: v.follow_ups,
        }
    }
}

impl ValidationRecord {
    /// Both checks passed.
    pub fn passed(&self) -> bool {
        self.original_criteria_passed && self.correction_regression_passed
    }
}

/// One persisted attempt: forecast, what Git measured, and the validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    pub forecast_lines: u64,
    pub from_tree: TreeId,
    pub to_tree: TreeId,
    #[serde(default)]
    pub paths: Vec<RepoPath>,
    pub actual_lines: u64,
    pub fix_delta_hash: Sha256Digest,
    /// Absent for an attempt that edited nothing (it escalates at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<ValidationRecord>,
}

impl Attempt {
    /// Whether the attempt passed its targeted validation.
    pub fn passed(&self) -> bool {
        self.validation
            .as_ref()
            .is_some_and(ValidationRecord::passed)
    }
}

/// The correction ledger of a lineage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Correction {
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// The forecast for the next attempt, given before the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast: Option<u64>,
}

impl Correction {
    /// Lines charged so far: the sum of what Git measured.
    pub fn charged_lines(&self) -> u64 {
        self.attempts
            .iter()
            .map(|a| a.actual_lines)
            .fold(0, u64::saturating_add)
    }

    /// Failed attempts so far.
    pub fn failed_attempts(&self) -> usize {
        self.attempts.iter().filter(|a| !a.passed()).count()
    }

    /// The tree the next attempt is measured from.
    pub fn current_tree<'a>(&'a self, initial: &'a TreeId) -> &'a TreeId {
        self.attempts.last().map(|a| &a.to_tree).unwrap_or(initial)
    }
}

/// The identity of a fix: from one tree to another over the given paths.
pub fn fix_delta_hash(from: &TreeId, to: &TreeId, paths: &[RepoPath]) -> Sha256Digest {
    #[derive(Serialize)]
    struct Delta<'a> {
        from_tree: &'a TreeId,
        to_tree: &'a TreeId,
        paths: &'a [RepoPath],
    }
    canonical_digest(
        FIX_DELTA_DOMAIN,
        &Delta {
            from_tree: from,
            to_tree: to,
            paths,
        },
    )
    .unwrap_or_else(|_| Sha256Digest::from_bytes([0; 32]))
}

/// The fix-delta identity of no correction (`sha256(domain || 0x00)`).
pub fn empty_fix_delta() -> Sha256Digest {
    Sha256Digest::of(FIX_DELTA_DOMAIN, b"")
}
