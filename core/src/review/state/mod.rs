//! The compact review state (R6.1, R7.2–R7.3), its record and revision, and
//! every legal transition as a pure function.
//!
//! A [`ReviewState`] is frozen at start: lineage, generation, creation time,
//! nonce, snapshot and [`Frozen`] (risk, lenses, counts, budget) never change
//! afterwards; [`check_successor`] enforces that for every transition. Only
//! the [`Stage`] moves, and each stage carries exactly the data that exists
//! in it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::{CanonicalError, canonical_bytes, canonical_digest};
use crate::digest::{Domain, Sha256Digest};
use crate::review::causality::CausalFacts;
use crate::review::correction::{
    Attempt, Correction, FixMeasurement, MAX_FAILED_ATTEMPTS, ValidationRecord, fix_delta_hash,
};
use crate::review::evidence::{
    EvidenceDocError, EvidenceReading, EvidenceVerdict, KeptCheck, evidence_reading,
};
use crate::review::finding::{
    AcceptedResult, CausalDisposition, Finding, RefuterOutcome, RefuterResult, RefuterVerdict,
    ReviewerResult, Route, ValidatorResult, final_route, initial_route,
};
use crate::review::ids::{
    FindingId, IdError, LineageId, NonBlank, Nonce, RepoPath, Timestamp, TreeId,
};
use crate::review::lens::Lens;
use crate::review::risk::is_legal_selection;
use crate::review::risk::{RiskAssessment, RiskLevel, RiskPolicy, RiskReason, UnexplainedRisk};
use crate::review::snapshot::{FrozenCandidate, SnapshotError, correction_budget, target_identity};

mod binding;
mod errors;
mod escalation;
mod link;
mod queries;
mod transition;
mod validate;
mod wire;
pub(crate) use wire::StateRecordWire;

pub use errors::{StateError, TransitionError};
pub use escalation::EscalationReason;
pub use link::{Disposition, Predecessor};
pub use queries::{Resumable, ResumeRefused};
pub use transition::{Forecast, Transition, check_evidence_len, check_forecast, check_successor};

pub use binding::*;

/// Schema of the state; also the domain of its revision.
pub(crate) const STATE_SCHEMA: &str = "probity.review-state/v1";
/// Domain of the revision: `sha256(STATE_SCHEMA || 0x00 || canonical state)`.
pub const REVISION_DOMAIN: Domain = Domain::new(STATE_SCHEMA);
/// Domain of lineage-id derivation.
pub const LINEAGE_DOMAIN: Domain = Domain::new("probity/lineage-id/v1");
/// Domain of the accepted-results hash.
pub const RESULTS_DOMAIN: Domain = Domain::new("probity/accepted-results/v1");
/// Domain of evidence hashes (raw evidence bytes); defined beside the
/// evidence documents it hashes.
pub use crate::review::evidence::EVIDENCE_DOMAIN;

/// The `schema` tag of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) enum StateSchema {
    /// `probity.review-state/v1`.
    #[serde(rename = "probity.review-state/v1")]
    V1,
}

/// The `schema` tag of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) enum RecordSchema {
    /// `probity.review-state-record/v1`.
    #[serde(rename = "probity.review-state-record/v1")]
    V1,
}

/// What start froze. Nothing later recomputes these (R2.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Frozen {
    /// The risk tier the policy derived from the candidate (R2.5).
    pub risk_level: RiskLevel,
    /// Why that tier: at least one reason the tier allows.
    pub risk_reasons: Vec<RiskReason>,
    /// The digest of the risk policy that decided (the built-in v1).
    pub policy_hash: Sha256Digest,
    /// The lenses to run, in order: none (low), the focus lens (medium) or
    /// all four (high).
    #[serde(default)]
    pub selected_lenses: Vec<Lens>,
    /// The number of frozen paths.
    pub changed_files: u64,
    /// The authored lines (added plus removed, text files only) the budget
    /// derives from.
    pub authored_lines: u64,
    /// Lines a correction may change: `min(200, ceil(authored_lines / 2))`
    /// (R6.1).
    pub correction_budget: u64,
    /// The prompt digests frozen at start: one per selected lens, the
    /// refuter's and the validator's. Absent for lineages started before
    /// prompts were versioned (and for inputs without them); a model-run
    /// lens needs them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<crate::review::prompts::FrozenPrompts>,
}

impl Frozen {
    /// What start freezes from its input (one constructor for a first
    /// generation and a successor alike): the tier and its reasons, the
    /// policy, the lenses, the counts, the budget derived from the authored
    /// lines, and the prompt digests.
    pub(crate) fn of(input: &StartInput) -> Frozen {
        Frozen {
            risk_level: input.assessment.level(),
            risk_reasons: input.assessment.reasons().to_vec(),
            policy_hash: input.policy_hash,
            selected_lenses: input.lenses.clone(),
            changed_files: input.snapshot.paths.len() as u64,
            authored_lines: input.authored_lines,
            correction_budget: correction_budget(input.authored_lines),
            prompts: input.prompts.clone(),
        }
    }
}

/// The refuter batch as accepted: outcomes by finding ID, in batch order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Refutation {
    /// One outcome per finding that awaited the refuter, in batch order.
    pub outcomes: Vec<RefuterOutcome>,
}

/// The domain of a dispute's evidence hash (R12.6).
pub const DISPUTE_DOMAIN: Domain = Domain::new("probity/dispute-evidence/v1");

/// A maintainer's dispute of a finding admitted to correction as a false
/// positive (R12.6): bound to evidence (its hash) and to the same
/// authorization an escalated edge needs. Recorded in the judgment, never
/// a silent dismissal: the finding keeps its place and becomes `disputed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dispute {
    /// The finding disputed: one admitted to correction.
    pub finding_id: FindingId,
    /// `DISPUTE_DOMAIN` hash of the evidence the dispute rests on.
    pub evidence_hash: Sha256Digest,
    /// Why the finding is a false positive, in the maintainer's words.
    pub reason: NonBlank,
    /// Who decided.
    pub actor: NonBlank,
    /// The maintainer authorization, as an escalated edge needs.
    pub authorization: NonBlank,
    /// When the dispute was recorded (the clock's reading).
    pub disputed_at: Timestamp,
}

/// The judgment accepted from the lenses, canonicalized. `results` never
/// change once accepted; the refuter's outcomes and the disputes are
/// recorded beside them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Judgment {
    /// One accepted result per selected lens, in selected order.
    #[serde(default)]
    pub results: Vec<AcceptedResult>,
    /// Canonical digest of `results`.
    pub results_hash: Sha256Digest,
    /// The single refuter batch, once given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refutation: Option<Refutation>,
    /// Disputes of findings admitted to correction, in the order made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disputes: Vec<Dispute>,
}

impl Judgment {
    /// Builds the judgment and its hash.
    pub fn new(results: Vec<AcceptedResult>) -> Result<Self, CanonicalError> {
        let results_hash = canonical_digest(RESULTS_DOMAIN, &results)?;
        Ok(Self {
            results,
            results_hash,
            refutation: None,
            disputes: Vec::new(),
        })
    }

    /// Every finding, in lens order then position.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.results.iter().flat_map(|r| r.findings.iter())
    }

    /// The refuter's verdict on a finding, if any.
    pub fn outcome(&self, id: FindingId) -> Option<RefuterVerdict> {
        self.refutation
            .as_ref()?
            .outcomes
            .iter()
            .find(|o| o.finding_id == id)
            .map(|o| o.outcome)
    }

    /// The route of a finding after the refuter batch. A finding still
    /// awaiting the refuter in a judgment that already escalates goes to
    /// the human with the rest (no refuter runs for an escalated review).
    pub fn route_of(&self, f: &Finding) -> Route {
        let route = self.route_before_dispute(f);
        if route == Route::Correction && self.disputes.iter().any(|d| d.finding_id == f.id) {
            Route::Disputed
        } else {
            route
        }
    }

    /// The route of a finding before any dispute.
    fn route_before_dispute(&self, f: &Finding) -> Route {
        let route = final_route(f.route, self.outcome(f.id));
        if route == Route::Refuter && self.findings().any(|g| g.route == Route::Escalation) {
            Route::Escalation
        } else {
            route
        }
    }

    /// The findings resolved for the receipt: corrected ones (admitted to
    /// correction) and disputed ones, in finding order.
    pub fn resolved_ids(&self) -> Vec<FindingId> {
        self.routed()
            .filter(|(_, r)| matches!(r, Route::Correction | Route::Disputed))
            .map(|(f, _)| f.id)
            .collect()
    }

    /// Every finding with its final route.
    pub fn routed(&self) -> impl Iterator<Item = (&Finding, Route)> {
        self.findings().map(|f| (f, self.route_of(f)))
    }

    /// Whether any finding has this final route.
    pub fn has_route(&self, route: Route) -> bool {
        self.routed().any(|(_, r)| r == route)
    }

    /// IDs admitted to correction.
    pub fn correction_ids(&self) -> Vec<FindingId> {
        self.routed()
            .filter(|(_, r)| *r == Route::Correction)
            .map(|(f, _)| f.id)
            .collect()
    }

    /// The stage a complete judgment leads to (no refuter outcome pending).
    fn settle(self) -> Stage {
        if self.has_route(Route::Escalation) {
            Stage::Escalated {
                judgment: self,
                correction: None,
                reason: Escalation::FindingEscalated,
            }
        } else if self.has_route(Route::Correction) {
            Stage::CorrectionRequired {
                judgment: self,
                correction: Correction::default(),
            }
        } else {
            Stage::Validating {
                judgment: self,
                correction: None,
            }
        }
    }
}

/// The lifecycle stage and the data that exists in it.
///
/// Every sub-state is its own variant, so a stage cannot hold data another
/// stage owns: a judged review awaiting the refuter is not a pristine one,
/// a correction with its forecast given is not one awaiting it, and an
/// escalation carries exactly what its reason records. Stored bytes are
/// the wire form (the `state::wire` module), which folds the sub-states back into the six
/// state names; reading them checks the fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "wire::StageWire", into = "wire::StageWire")]
// The published schema is the wire's, described as it always was.
#[schemars(description = "The lifecycle stage and the data that exists in it.")]
pub enum Stage {
    /// `reviewing`, pristine: scope exists, no lens result yet.
    Reviewing,
    /// `reviewing` with the lens results accepted: inferential severe
    /// findings await the single refuter batch.
    AwaitingRefuter {
        /// The accepted lens results; no refuter batch yet.
        judgment: Judgment,
    },
    /// `correction_required`, awaiting the forecast of the next attempt:
    /// candidate-causal blockers exist; bounded correction is authorized.
    CorrectionRequired {
        /// The settled judgment.
        judgment: Judgment,
        /// The attempts so far (none before the first).
        correction: Correction,
    },
    /// `correction_required` with the forecast given: the edit and its
    /// targeted validation are awaited.
    Correcting {
        /// The settled judgment.
        judgment: Judgment,
        /// The attempts so far.
        correction: Correction,
        /// The forecast lines of the attempt under way (positive).
        forecast: u64,
    },
    /// Review (and correction) finished; independent evidence is missing.
    Validating {
        /// The settled judgment.
        judgment: Judgment,
        /// The ledger, ending in a passing attempt, when a correction ran.
        correction: Option<Correction>,
    },
    /// Terminal: evidence accepted.
    Approved {
        /// The settled judgment.
        judgment: Judgment,
        /// The ledger, when a correction ran.
        correction: Option<Correction>,
        /// `EVIDENCE_DOMAIN` hash of the accepted evidence.
        evidence_hash: Sha256Digest,
    },
    /// Terminal: a human decision is needed.
    Escalated {
        /// The judgment as accepted.
        judgment: Judgment,
        /// The ledger, when a correction began.
        correction: Option<Correction>,
        /// Why, with what the reason records.
        reason: Escalation,
    },
    /// Terminal, and only from a pristine `reviewing` (R9.1): the review was
    /// abandoned before any judgment. The snapshot stays; no receipt.
    Invalidated {
        /// Why it was abandoned.
        reason: NonBlank,
    },
}

/// Why a review escalated, with what that reason records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalation {
    /// A severe finding with `unknown` causality, `insufficient` evidence or
    /// an inconclusive refuter outcome.
    FindingEscalated,
    /// The cumulative forecast exceeded the budget, before any edit.
    ForecastOverBudget {
        /// The refused forecast.
        forecast: u64,
    },
    /// The lines Git measured exceeded the budget.
    BudgetExceeded,
    /// The third failed attempt.
    AttemptsExhausted,
    /// An attempt that edited nothing.
    NoEditAttempt,
    /// The independent check ran and failed (R4.4).
    EvidenceFailed {
        /// `EVIDENCE_DOMAIN` hash of the failing final evidence.
        evidence_hash: Sha256Digest,
    },
    /// The last attempt left a change of a higher tier than the review
    /// ran at (D-R132).
    RiskRaisedByCorrection,
}

impl Escalation {
    /// The reason's wire name.
    pub fn reason(self) -> EscalationReason {
        match self {
            Escalation::FindingEscalated => EscalationReason::FindingEscalated,
            Escalation::ForecastOverBudget { .. } => EscalationReason::ForecastOverBudget,
            Escalation::BudgetExceeded => EscalationReason::BudgetExceeded,
            Escalation::AttemptsExhausted => EscalationReason::AttemptsExhausted,
            Escalation::NoEditAttempt => EscalationReason::NoEditAttempt,
            Escalation::EvidenceFailed { .. } => EscalationReason::EvidenceFailed,
            Escalation::RiskRaisedByCorrection => EscalationReason::RiskRaisedByCorrection,
        }
    }

    /// The failing evidence's hash, for `evidence_failed`.
    pub fn evidence_hash(self) -> Option<Sha256Digest> {
        match self {
            Escalation::EvidenceFailed { evidence_hash } => Some(evidence_hash),
            Escalation::FindingEscalated
            | Escalation::ForecastOverBudget { .. }
            | Escalation::BudgetExceeded
            | Escalation::AttemptsExhausted
            | Escalation::NoEditAttempt
            | Escalation::RiskRaisedByCorrection => None,
        }
    }
}

impl Stage {
    /// The state name (`reviewing`, `validating`, ...): the wire name, which
    /// sub-states share with their stage.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Reviewing | Stage::AwaitingRefuter { .. } => "reviewing",
            Stage::CorrectionRequired { .. } | Stage::Correcting { .. } => "correction_required",
            Stage::Validating { .. } => "validating",
            Stage::Approved { .. } => "approved",
            Stage::Escalated { .. } => "escalated",
            Stage::Invalidated { .. } => "invalidated",
        }
    }

    /// Whether the stage is terminal and carries a receipt (`approved` or
    /// `escalated`).
    pub fn is_terminal(&self) -> bool {
        matches!(self, Stage::Approved { .. } | Stage::Escalated { .. })
    }

    /// Whether the stage accepts no further input (`approved`, `escalated`
    /// or `invalidated`).
    pub fn is_final(&self) -> bool {
        self.is_terminal() || matches!(self, Stage::Invalidated { .. })
    }

    /// Whether the review was approved: its stage is named `approved`.
    pub(crate) fn is_approved(&self) -> bool {
        self.name() == "approved"
    }

    /// Whether the lineage was invalidated (R9.1), its successor coming
    /// from `recover`: its stage is named `invalidated`.
    pub(crate) fn is_invalidated(&self) -> bool {
        self.name() == "invalidated"
    }

    /// The accepted judgment, once there is one.
    pub fn judgment(&self) -> Option<&Judgment> {
        match self {
            Stage::Reviewing | Stage::Invalidated { .. } => None,
            Stage::AwaitingRefuter { judgment }
            | Stage::CorrectionRequired { judgment, .. }
            | Stage::Correcting { judgment, .. }
            | Stage::Validating { judgment, .. }
            | Stage::Approved { judgment, .. }
            | Stage::Escalated { judgment, .. } => Some(judgment),
        }
    }

    /// The correction ledger, once correction began.
    pub fn correction(&self) -> Option<&Correction> {
        match self {
            Stage::Reviewing | Stage::AwaitingRefuter { .. } | Stage::Invalidated { .. } => None,
            Stage::CorrectionRequired { correction, .. } | Stage::Correcting { correction, .. } => {
                Some(correction)
            }
            Stage::Validating { correction, .. }
            | Stage::Approved { correction, .. }
            | Stage::Escalated { correction, .. } => correction.as_ref(),
        }
    }

    /// The forecast on record: the one of the attempt under way, or the
    /// one an `forecast_over_budget` escalation refused.
    pub fn forecast(&self) -> Option<u64> {
        match self {
            Stage::Correcting { forecast, .. }
            | Stage::Escalated {
                reason: Escalation::ForecastOverBudget { forecast },
                ..
            } => Some(*forecast),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Validating { .. }
            | Stage::Approved { .. }
            | Stage::Escalated { .. }
            | Stage::Invalidated { .. } => None,
        }
    }

    /// Why the review escalated, in an `escalated` stage.
    pub fn escalation(&self) -> Option<Escalation> {
        match self {
            Stage::Escalated { reason, .. } => Some(*reason),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. }
            | Stage::Approved { .. }
            | Stage::Invalidated { .. } => None,
        }
    }
}

/// The compact review state.
///
/// Its fields are core's: outside this crate a state is read through its
/// accessors and made only by core's transitions (start, successors, and
/// every `accept_*`), each of which validates what it makes. Reading one
/// from JSON goes through the checked wire form and [`ReviewState::validate`],
/// so no path skips the checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, try_from = "wire::ReviewStateWire")]
#[schemars(
    !try_from,
    title = "Probity review state v1",
    description = "The compact review state."
)]
pub struct ReviewState {
    pub(crate) schema: StateSchema,
    pub(crate) lineage_id: LineageId,
    pub(crate) generation: u32,
    pub(crate) created_at: Timestamp,
    pub(crate) nonce: Nonce,
    pub(crate) snapshot: FrozenCandidate,
    pub(crate) frozen: Frozen,
    /// The audited link of a recovered generation (R9.2); absent for
    /// generation 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) predecessor: Option<Predecessor>,
    pub(crate) stage: Stage,
}

impl ReviewState {
    /// The lineage: `review-` + 16 hex (R2.9).
    pub fn lineage_id(&self) -> &LineageId {
        &self.lineage_id
    }
    /// 1 for a first review; a successor's is its predecessor's plus one.
    pub fn generation(&self) -> u32 {
        self.generation
    }
    /// When start froze the candidate (the clock's reading).
    pub fn created_at(&self) -> &Timestamp {
        &self.created_at
    }
    /// The nonce start drew (part of the lineage id's preimage).
    pub fn nonce(&self) -> &Nonce {
        &self.nonce
    }
    /// The frozen candidate: base and candidate trees, paths, digests.
    pub fn snapshot(&self) -> &FrozenCandidate {
        &self.snapshot
    }
    /// What start froze: risk, lenses, counts, budget, prompts.
    pub fn frozen(&self) -> &Frozen {
        &self.frozen
    }
    /// The audited link of a recovered generation (R9.2).
    pub fn predecessor(&self) -> Option<&Predecessor> {
        self.predecessor.as_ref()
    }
    /// Where the lifecycle stands, with the data of that stage.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }
}

/// The on-disk record: `{schema, revision, state}`. Made only by
/// [`ReviewState::record`] (which derives the revision) or read by
/// [`StateRecord::from_bytes`] and serde (which check it), so a record's
/// revision is always its state's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, try_from = "wire::StateRecordWire")]
#[schemars(
    !try_from,
    title = "Probity review state record v1",
    description = "The on-disk record: `{schema, revision, state}`."
)]
pub struct StateRecord {
    pub(crate) schema: RecordSchema,
    pub(crate) revision: Sha256Digest,
    pub(crate) state: ReviewState,
}

impl StateRecord {
    /// The state's revision: `sha256(STATE_SCHEMA || 0x00 || canonical
    /// state)`, what compare-and-swap compares.
    pub fn revision(&self) -> Sha256Digest {
        self.revision
    }
    /// The state.
    pub fn state(&self) -> &ReviewState {
        &self.state
    }
    /// The state, owned.
    pub fn into_state(self) -> ReviewState {
        self.state
    }
}

/// Derives the lineage id: `review-` + 16 hex of a digest over the target
/// identity, generation, creation time and nonce (R2.9).
pub fn derive_lineage_id(
    target: &Sha256Digest,
    generation: u32,
    created_at: &Timestamp,
    nonce: &Nonce,
) -> Result<LineageId, StateError> {
    derive_lineage_id_with(target, generation, created_at, nonce, None)
}

/// Derives a lineage id; a successor's also covers its predecessor link, so
/// the link cannot be swapped without changing the id.
pub(crate) fn derive_lineage_id_with(
    target: &Sha256Digest,
    generation: u32,
    created_at: &Timestamp,
    nonce: &Nonce,
    predecessor: Option<&Predecessor>,
) -> Result<LineageId, StateError> {
    #[derive(Serialize)]
    struct Preimage<'a> {
        target: &'a Sha256Digest,
        generation: u32,
        created_at: &'a Timestamp,
        nonce: &'a Nonce,
        #[serde(skip_serializing_if = "Option::is_none")]
        predecessor: Option<&'a Predecessor>,
    }
    let d = canonical_digest(
        LINEAGE_DOMAIN,
        &Preimage {
            target,
            generation,
            created_at,
            nonce,
            predecessor,
        },
    )?;
    Ok(LineageId::parse(format!("review-{}", &d.hex()[..16]))?)
}

/// Inputs to start that code derived from the observation.
#[derive(Debug, Clone)]
pub struct StartInput {
    /// The frozen candidate.
    pub snapshot: FrozenCandidate,
    /// The risk tier and its reasons.
    pub assessment: RiskAssessment,
    /// The lenses the tier selects, in order.
    pub lenses: Vec<Lens>,
    /// The authored lines the budget derives from.
    pub authored_lines: u64,
    /// The clock's reading at start.
    pub created_at: Timestamp,
    /// The nonce drawn at start.
    pub nonce: Nonce,
    /// The prompt digests to freeze (`PromptSet::freeze` of the selected
    /// lenses), or none.
    pub prompts: Option<crate::review::prompts::FrozenPrompts>,
    /// The digest of the built-in risk policy that classified the change
    /// (`RiskPolicy::newest_hash()` for a new review); a state naming any
    /// other is refused.
    pub policy_hash: Sha256Digest,
}

impl ReviewState {
    /// The initial `reviewing` state of a new lineage (generation 1).
    ///
    /// Everything it freezes is derived from the observation and the
    /// arguments; the time and the nonce are given, so the same input
    /// always starts the same lineage:
    ///
    /// ```
    /// use probity_core::review::{Nonce, RepoPath, Timestamp, TreeId};
    /// use probity_core::review::Lens;
    /// use probity_core::review::{RiskLevel, RiskPolicy, authored_lines, select_lenses};
    /// use probity_core::review::{
    ///     CandidateContent, CandidateObservation, ChangedFile, FileMode, FrozenCandidate, LineCount,
    /// };
    /// use probity_core::review::{ReviewState, StartInput};
    ///
    /// let obs = CandidateObservation {
    ///     base_tree: TreeId::parse("b4ffa93cdbcb161f9005528d69dc3cc646506c3f")?,
    ///     candidate_tree: TreeId::parse("ea87f48da7c3ea941866d92c1795b7dacf2f4ded")?,
    ///     unborn_head: false,
    ///     changed: vec![ChangedFile {
    ///         path: RepoPath::parse("src/parser.rs")?,
    ///         old_mode: Some(FileMode::Regular),
    ///         new_mode: Some(FileMode::Regular),
    ///         lines: LineCount::Text { added: 3, removed: 1 },
    ///         text_lines: 4,
    ///         base_content: CandidateContent::Absent,
    ///         content: CandidateContent::Bytes { bytes: b"pub fn parse() {}\n".to_vec(), complete: true },
    ///     }],
    ///     intended_untracked: vec![],
    /// };
    /// let policy = RiskPolicy::newest();
    /// let lines = authored_lines(policy, &obs.changed);
    /// let assessment = policy.classify(&obs.changed, lines);
    /// let input = || -> Result<StartInput, Box<dyn std::error::Error>> {
    ///     Ok(StartInput {
    ///         snapshot: FrozenCandidate::freeze(&obs)?,
    ///         assessment: assessment.clone(),
    ///         lenses: select_lenses(assessment.level(), Lens::Reliability),
    ///         authored_lines: lines,
    ///         created_at: Timestamp::parse("2026-11-29T12:00:00Z")?,
    ///         nonce: Nonce::parse("00112233445566778899aabbccddeeff")?,
    ///         prompts: None,
    ///         policy_hash: RiskPolicy::newest_hash(),
    ///     })
    /// };
    /// let started = ReviewState::start(input()?)?;
    /// // Ordinary code: medium risk, the one focus lens, a lineage id
    /// // derived from what was frozen.
    /// assert_eq!(started.frozen().risk_level, RiskLevel::Medium);
    /// assert_eq!(started.frozen().selected_lenses, [Lens::Reliability]);
    /// assert_eq!(started.stage().name(), "reviewing");
    /// assert_eq!(ReviewState::start(input()?)?.lineage_id(), started.lineage_id());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start(input: StartInput) -> Result<Self, StateError> {
        Self::genesis(input, 1, None)
    }

    /// The one genesis of a lineage, for a first start and for a recovery's
    /// successor alike: the frozen inputs, the lineage id derived from the
    /// target, generation, time, nonce and predecessor link, `reviewing`,
    /// validated.
    pub(crate) fn genesis(
        input: StartInput,
        generation: u32,
        predecessor: Option<Predecessor>,
    ) -> Result<Self, StateError> {
        let frozen = Frozen::of(&input);
        let StartInput {
            snapshot,
            created_at,
            nonce,
            ..
        } = input;
        let lineage_id = derive_lineage_id_with(
            &snapshot.target,
            generation,
            &created_at,
            &nonce,
            predecessor.as_ref(),
        )?;
        let state = ReviewState {
            schema: StateSchema::V1,
            lineage_id,
            generation,
            created_at,
            nonce,
            frozen,
            snapshot,
            predecessor,
            stage: Stage::Reviewing,
        };
        state.validate()?;
        Ok(state)
    }

    /// Canonical bytes of this state.
    pub fn canonical_bytes(&self) -> Result<Vec<u8>, StateError> {
        Ok(canonical_bytes(self)?)
    }

    /// The revision of this state.
    pub fn revision(&self) -> Result<Sha256Digest, StateError> {
        Ok(Sha256Digest::of(REVISION_DOMAIN, &self.canonical_bytes()?))
    }

    /// Wraps the state in its record.
    pub fn record(&self) -> Result<StateRecord, StateError> {
        Ok(StateRecord {
            schema: RecordSchema::V1,
            revision: self.revision()?,
            state: self.clone(),
        })
    }

    /// The candidate tree the review stands for now: the last passing
    /// correction's tree, else the frozen candidate.
    pub fn final_candidate_tree(&self) -> &TreeId {
        match self
            .stage
            .correction()
            .and_then(|c| c.attempts.last())
            .filter(|a| a.passed())
        {
            Some(a) => &a.to_tree,
            None => &self.snapshot.candidate_tree,
        }
    }

    /// The target identity of (base tree, final candidate tree).
    pub fn final_target(&self) -> Sha256Digest {
        target_identity(&self.snapshot.base_tree, self.final_candidate_tree())
    }
}

impl StateRecord {
    /// The exact bytes stored on disk: canonical JSON and one LF.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let mut b = canonical_bytes(self)?;
        b.push(b'\n');
        Ok(b)
    }

    /// Parses stored bytes and validates them fail-closed (R7.3): strict
    /// schema, canonical bytes, revision, the stage's shape and every
    /// derived field.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, StateError> {
        let record: wire::StateRecordWire =
            serde_json::from_slice(bytes).map_err(|e| StateError::Parse(e.to_string()))?;
        let mut canonical = canonical_bytes(&record)?;
        canonical.push(b'\n');
        if canonical != bytes {
            return Err(StateError::NotCanonical);
        }
        StateRecord::try_from(record)
    }
}
