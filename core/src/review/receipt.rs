//! The terminal receipt (R7.5–R7.6): exactly fourteen fields, a projection
//! of state. The gate re-derives it from state; a file never outranks state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::canonical_bytes;
use crate::digest::Sha256Digest;
use crate::review::correction::{empty_fix_delta, fix_delta_hash};
use crate::review::ids::{FindingId, LineageId, TreeId};
use crate::review::lens::Lens;
use crate::review::risk::RiskLevel;
use crate::review::state::{EVIDENCE_DOMAIN, ReviewState, Stage, StateError};

/// The `schema` tag of a receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ReceiptSchema {
    /// `probity.review-receipt/v1`, the only version.
    #[serde(rename = "probity.review-receipt/v1")]
    V1,
}

/// The terminal state a receipt records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TerminalState {
    /// Final evidence was accepted and every correction passed: the
    /// receipt can allow delivery of `final_candidate_tree`.
    Approved,
    /// The review ended needing a person (an escalated finding, a fix
    /// forecast or measured over budget, three failed correction attempts
    /// or one that edited nothing, a failed final check): the receipt
    /// allows nothing.
    Escalated,
}

/// The receipt: exactly these fourteen fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity review receipt v1")]
pub struct Receipt {
    /// Always `probity.review-receipt/v1`.
    pub schema: ReceiptSchema,
    /// The lineage the receipt projects: `review-` and 16 hex (R2.9).
    pub lineage_id: LineageId,
    /// The lineage's generation: 1 for a first review, one more per
    /// recovery (R9.2).
    pub generation: u32,
    /// The git tree the change was measured from at start.
    pub base_tree: TreeId,
    /// The git tree start froze and the lenses reviewed.
    pub initial_review_tree: TreeId,
    /// The tree the review stands for: the last passing correction's tree,
    /// else `initial_review_tree` (equal without a correction).
    pub final_candidate_tree: TreeId,
    /// The frozen `paths_digest` of the genesis paths (R2.3).
    pub paths_digest: Sha256Digest,
    /// The fix-delta identity (`probity/fix-delta/v1`) from
    /// `initial_review_tree` to `final_candidate_tree` over the paths the
    /// attempts touched; the empty identity without a correction (R7.5).
    pub fix_delta_hash: Sha256Digest,
    /// Canonical digest (`probity/risk-policy/v1`) of the risk policy that
    /// classified the change (R2.6).
    pub policy_hash: Sha256Digest,
    /// The accepted evidence; the empty identity when a review escalated
    /// before any evidence.
    pub evidence_hash: Sha256Digest,
    /// The risk tier frozen at start.
    pub risk_level: RiskLevel,
    /// The lenses frozen at start, in selected order: none at low risk,
    /// one at medium, all four at high (R2.7).
    pub selected_lenses: Vec<Lens>,
    /// For an approval, the findings corrected or disputed, in finding
    /// order; empty for an escalation.
    pub resolved_finding_ids: Vec<FindingId>,
    /// Whether the lineage ended approved or escalated.
    pub terminal_state: TerminalState,
}

impl Receipt {
    /// Derives the receipt of a terminal state; `None` before terminal.
    pub fn derive(state: &ReviewState) -> Option<Receipt> {
        let (terminal_state, evidence_hash, resolved_finding_ids) = match &state.stage {
            Stage::Approved {
                evidence_hash,
                judgment,
                ..
            } => (
                TerminalState::Approved,
                *evidence_hash,
                // Corrected and disputed findings (R12.6), in finding order.
                judgment.resolved_ids(),
            ),
            // A failed check's evidence is bound; other escalations took
            // no evidence.
            Stage::Escalated { reason, .. } => (
                TerminalState::Escalated,
                reason
                    .evidence_hash()
                    .unwrap_or_else(|| Sha256Digest::of(EVIDENCE_DOMAIN, b"")),
                Vec::new(),
            ),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. }
            | Stage::Invalidated { .. } => return None,
        };
        let initial = &state.snapshot.candidate_tree;
        let final_tree = state.final_candidate_tree();
        let fix_delta_hash = if final_tree == initial {
            empty_fix_delta()
        } else {
            let mut paths: Vec<_> = state
                .stage
                .correction()
                .map(|c| {
                    c.attempts
                        .iter()
                        .flat_map(|a| a.paths.iter().cloned())
                        .collect()
                })
                .unwrap_or_default();
            paths.sort();
            paths.dedup();
            fix_delta_hash(initial, final_tree, &paths)
        };
        Some(Receipt {
            schema: ReceiptSchema::V1,
            lineage_id: state.lineage_id.clone(),
            generation: state.generation,
            base_tree: state.snapshot.base_tree.clone(),
            initial_review_tree: initial.clone(),
            final_candidate_tree: final_tree.clone(),
            paths_digest: state.snapshot.paths_digest,
            fix_delta_hash,
            policy_hash: state.frozen.policy_hash,
            evidence_hash,
            risk_level: state.frozen.risk_level,
            selected_lenses: state.frozen.selected_lenses.clone(),
            resolved_finding_ids,
            terminal_state,
        })
    }

    /// The exact file bytes: canonical JSON and one LF.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let mut b = canonical_bytes(self)?;
        b.push(b'\n');
        Ok(b)
    }
}
