//! Bounded correction (R6): the ledger of attempts, each measured by Git and
//! charged against the frozen budget.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::canonical_digest;
use crate::digest::{Domain, Sha256Digest};
use crate::review::finding::ValidatorResult;
use crate::review::ids::{NonBlank, RepoPath, TreeId};
use crate::review::risk::{RiskLevel, RiskPolicy, RiskReason, Symlink, TreeInputs, authored_lines};
use crate::review::snapshot::ChangedFile;

/// At most this many failed attempts; the next failure escalates.
pub const MAX_FAILED_ATTEMPTS: usize = 3;

/// Domain of `fix_delta_hash`. Without a correction it is the empty identity
/// `sha256(domain || 0x00)`.
pub const FIX_DELTA_DOMAIN: Domain = Domain::new("probity/fix-delta/v1");

/// What Git measured of one fix, from the previous tree to the live one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixMeasurement {
    /// The live candidate tree after the edit.
    pub to_tree: TreeId,
    /// Paths that differ between the previous tree and `to_tree`.
    pub paths: Vec<RepoPath>,
    /// Lines charged for the fix: every line each changed file's text diff
    /// changes (golden and binary files included), a mode change alone one
    /// line; see [`FixMeasurement::of`].
    pub actual_lines: u64,
    /// The risk tier of the whole change the fix leaves: the base to
    /// `to_tree`, under the newest built-in policy and the base policy's
    /// floors (D-R132). Above the tier the review ran at, the correction
    /// escalates (`risk_raised_by_correction`).
    pub tier: RiskLevel,
}

impl FixMeasurement {
    /// What a fix is charged (R6.4, R6.7: effects, never a number the
    /// fixer reports): every line each changed file's text diff changes —
    /// no golden rule, binary marker or attribute makes an edit free — and
    /// a mode change alone (e.g. `chmod +x`) is one line. `whole`: the
    /// files Git lists from the base to `to_tree`, `links` the symbolic
    /// links of those two trees (D-R131) and `floor` the base policy's
    /// floor reasons for them, which give [`FixMeasurement::tier`] as
    /// every gate derives it.
    pub fn of(
        files: Vec<ChangedFile>,
        to_tree: TreeId,
        whole: &[ChangedFile],
        links: &[Symlink],
        floor: Vec<RiskReason>,
    ) -> FixMeasurement {
        Self::measured(
            files,
            to_tree,
            whole,
            TreeInputs {
                links,
                ..TreeInputs::default()
            },
            floor,
        )
    }

    /// [`FixMeasurement::of`] with everything the newest policy reads from
    /// the base and `to_tree`: their links and the auto-run
    /// configurations whose references it follows (v5, D-R135).
    pub fn measured(
        files: Vec<ChangedFile>,
        to_tree: TreeId,
        whole: &[ChangedFile],
        trees: TreeInputs<'_>,
        floor: Vec<RiskReason>,
    ) -> FixMeasurement {
        let newest = RiskPolicy::newest();
        FixMeasurement {
            tier: newest
                .classify_in(whole, authored_lines(newest, whole), trees)
                .with_floor(floor)
                .level(),
            actual_lines: files
                .iter()
                .map(|f| f.text_lines.max(u64::from(f.old_mode != f.new_mode)))
                .fold(0, u64::saturating_add),
            paths: files.into_iter().map(|f| f.path).collect(),
            to_tree,
        }
    }
}

/// The targeted validator's verdict, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationRecord {
    /// Whether the validator found the original acceptance criteria still
    /// hold.
    pub original_criteria_passed: bool,
    /// What the validator inspected or ran for that check.
    #[serde(default)]
    pub original_criteria_evidence: Vec<NonBlank>,
    /// Whether the validator found the correction regressed nothing it
    /// touched.
    pub correction_regression_passed: bool,
    /// What the validator inspected or ran for that check.
    #[serde(default)]
    pub correction_regression_evidence: Vec<NonBlank>,
    /// The validator's non-blocking observations.
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
    /// The lines forecast for this attempt before the edit
    /// (`--correction-lines N`, N > 0; R6.2).
    pub forecast_lines: u64,
    /// The tree the attempt was measured from: the frozen candidate tree,
    /// or the previous attempt's `to_tree`.
    pub from_tree: TreeId,
    /// The live candidate tree after the edit; equal to `from_tree` when
    /// the attempt edited nothing.
    pub to_tree: TreeId,
    /// Sorted, unique paths that differ between the two trees, all genesis
    /// paths (R6.4); empty when nothing was edited.
    #[serde(default)]
    pub paths: Vec<RepoPath>,
    /// Lines Git measured and charged against the budget (R6.4, R6.7):
    /// every text-diff line changed, a mode change alone one; 0 for no
    /// edit.
    pub actual_lines: u64,
    /// The fix-delta identity (`probity/fix-delta/v1`) of `from_tree`,
    /// `to_tree` and `paths`.
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

/// The correction ledger of a lineage: the attempts so far. The forecast
/// of the attempt under way is the stage's (`Stage::Correcting`), not the
/// ledger's; the wire form stores it inside the ledger (R6.2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Correction {
    /// Every attempt so far, oldest first; each is charged, and three
    /// failures escalate (R6.5, R6.6).
    pub attempts: Vec<Attempt>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::budget_scenario;
    use crate::review::gate::point_at_open_correction;
    use crate::review::gate::{Authority, Decision, Gate, NextAction, ReasonCode, decide_target};
    use crate::review::snapshot::LiveTarget;

    fn missing(paths: &[&str]) -> crate::review::gate::GateDecision {
        let changed: Vec<RepoPath> = paths.iter().map(|p| RepoPath::parse(*p).unwrap()).collect();
        let live = LiveTarget::new(
            TreeId::parse("1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d").unwrap(),
            TreeId::parse("0000000000000000000000000000000000000c01").unwrap(),
        );
        decide_target(
            Gate::PreCommit,
            &live,
            Authority::None {
                changed_paths: &changed,
            },
        )
    }

    #[test]
    fn a_denial_over_an_open_correction_names_the_correction() {
        let open = budget_scenario().unwrap();
        assert_eq!(open.stage.name(), "correction_required");
        let d = point_at_open_correction(
            missing(&["src/token_cache.rs"]),
            std::slice::from_ref(&open),
        );
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
        assert_eq!(d.next_action, NextAction::Finalize);
        assert_eq!(d.lineage_id.as_ref(), Some(&open.lineage_id));
        assert!(d.message.contains(&format!(
            "probity finalize --lineage {} --validation F",
            open.lineage_id
        )));
    }

    #[test]
    fn other_paths_and_other_decisions_keep_their_advice() {
        let open = budget_scenario().unwrap();
        let unrelated = missing(&["docs/readme.md"]);
        assert_eq!(
            point_at_open_correction(unrelated.clone(), std::slice::from_ref(&open)),
            unrelated
        );
        let none = missing(&["src/token_cache.rs"]);
        assert_eq!(point_at_open_correction(none.clone(), &[]), none);
    }
}
