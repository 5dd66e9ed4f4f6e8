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
mod escalation;
mod link;
mod queries;
mod transition;
mod validate;
mod wire;
pub(crate) use wire::StateRecordWire;

pub use escalation::EscalationReason;
pub use link::{Disposition, Predecessor};
pub use queries::{Resumable, ResumeRefused};
pub use transition::{Transition, check_evidence_len, check_forecast, check_successor};

pub use binding::*;

/// Schema of the state; also the domain of its revision.
pub const STATE_SCHEMA: &str = "probity.review-state/v1";
/// Schema of the on-disk record around the state.
pub const RECORD_SCHEMA: &str = "probity.review-state-record/v1";
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
pub enum StateSchema {
    /// `probity.review-state/v1`.
    #[serde(rename = "probity.review-state/v1")]
    V1,
}

/// The `schema` tag of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RecordSchema {
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
            policy_hash: RiskPolicy::v1_hash(),
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
            | Escalation::NoEditAttempt => None,
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

/// Why stored or proposed state is not valid authority.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The bytes are not JSON of the record's strict schema (an unknown
    /// field, a missing one, a value of the wrong type).
    #[error("state record is not valid JSON of the record schema: {0}")]
    Parse(String),
    /// The bytes parse, but are not the canonical form (RFC 8785 and one
    /// LF) the store writes: edited, or written by something else.
    #[error("state record bytes are not canonical (edited by hand?)")]
    NotCanonical,
    /// The stored revision is not the digest of the stored state.
    #[error("state revision {stored} does not match its content ({derived})")]
    Revision {
        /// The revision the record names.
        stored: Sha256Digest,
        /// The digest of its state's canonical bytes.
        derived: Sha256Digest,
    },
    /// The frozen candidate is inconsistent (its target, paths or
    /// digests).
    #[error(transparent)]
    FrozenCandidate(#[from] SnapshotError),
    /// The frozen risk tier has no reason, or a reason it does not allow.
    #[error(transparent)]
    Risk(#[from] UnexplainedRisk),
    /// The frozen policy hash is not the built-in policy v1's.
    #[error("unsupported policy {0}; this build knows only the built-in policy v1")]
    UnsupportedPolicy(Sha256Digest),
    /// The frozen lenses are not a legal selection for the frozen tier
    /// (0, 1 or 4 lenses by risk), or the prompt digests do not cover
    /// them.
    #[error("lens selection {lenses:?} is not legal for risk {level}")]
    LensSelection {
        /// The frozen risk tier.
        level: &'static str,
        /// The lenses frozen (or the prompts' lenses).
        lenses: Vec<&'static str>,
    },
    /// The frozen budget is not the one the authored lines derive.
    #[error("budget {stored} does not equal min(200, ceil({lines}/2)) = {derived}")]
    Budget {
        /// The budget the state holds.
        stored: u64,
        /// The authored lines it derives from.
        lines: u64,
        /// `min(200, ceil(lines / 2))`.
        derived: u64,
    },
    /// The frozen file count is not the number of frozen paths.
    #[error("changed_files {stored} does not equal the {derived} snapshot paths")]
    ChangedFiles {
        /// The count the state holds.
        stored: u64,
        /// The number of paths in the frozen candidate.
        derived: u64,
    },
    /// The lineage id is not derived from the target, generation, time,
    /// nonce and predecessor link (R2.9).
    #[error("lineage id {stored} is not derived from this target, nonce and time ({derived})")]
    Lineage {
        /// The id the state holds.
        stored: String,
        /// The id its preimage derives.
        derived: String,
    },
    /// Generation 1 with a predecessor, a later one without, or 0.
    #[error("generation must be 1 without a predecessor, or 2 or more with one")]
    Generation,
    /// The accepted results are not one per selected lens, in order.
    #[error("accepted results do not match the selected lenses")]
    ResultsLenses,
    /// A finding's id is not its lens and position, or its route not the
    /// one the matrix gives (R5).
    #[error("finding {0} does not have its canonical id or route")]
    NonCanonicalFinding(String),
    /// `results_hash` is not the digest of the accepted results.
    #[error("results_hash does not match the accepted results")]
    ResultsHash,
    /// The stage holds data no transition leaves there (an open escalation
    /// beside a correction, a forecast where none can be, a reason that
    /// does not hold, ...).
    #[error("stage `{stage}` is inconsistent: {why}")]
    StageFindings {
        /// The stage's wire name.
        stage: &'static str,
        /// What is inconsistent.
        why: &'static str,
    },
    /// A correction attempt does not chain from the previous one, lists
    /// paths outside the genesis paths, or has a wrong identity.
    #[error("correction attempt {attempt} is inconsistent: {why}")]
    Attempt {
        /// The attempt's 1-based position in the ledger.
        attempt: usize,
        /// What is inconsistent.
        why: &'static str,
    },
    /// The refuter batch does not name each pending finding exactly once,
    /// with evidence.
    #[error("the refuter batch is inconsistent with the findings: {0}")]
    Refutation(String),
    /// A dispute names a finding not admitted to correction, or one twice,
    /// or sits in a judgment still under review (R12.6).
    #[error("a dispute must name a distinct finding admitted to correction: {0}")]
    Dispute(String),
    /// The state could not be canonicalized (a defect: no state holds a
    /// float or a non-string key).
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
    /// An id could not be derived or parsed.
    #[error(transparent)]
    Id(#[from] IdError),
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
pub fn derive_lineage_id_with(
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
}

/// Why a transition is not legal. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    /// The input is not one the lineage's stage takes (lens results after
    /// judgment, a forecast outside a correction, evidence before
    /// validation, ...).
    #[error("lineage {lineage} is `{state}`: {what} is not a legal input now")]
    WrongStage {
        /// The lineage.
        lineage: String,
        /// Its stage's wire name.
        state: &'static str,
        /// The input that was refused.
        what: &'static str,
    },
    /// Not exactly one result per selected lens.
    #[error("expected {expected} lens result(s) in selected order ({lenses}), got {got}")]
    ResultCount {
        /// How many lenses are selected.
        expected: usize,
        /// How many results were given.
        got: usize,
        /// The selected lenses, comma-separated (or `none selected`).
        lenses: String,
    },
    /// Final evidence of zero bytes.
    #[error("evidence must be non-empty bytes from an independent mechanism")]
    EmptyEvidence,
    /// A retry whose input differs from the one already accepted (results,
    /// refuter outcomes, forecast, dispute or evidence).
    #[error(
        "lineage {lineage} already accepted different {what}; a retry must repeat the same input"
    )]
    DifferentRetry {
        /// The lineage.
        lineage: String,
        /// Which input differs.
        what: &'static str,
    },
    /// The refuter batch names a finding that does not await the refuter.
    #[error("the refuter batch names {0}, which is not a finding awaiting the refuter")]
    RefuterUnknownFinding(String),
    /// The refuter batch leaves a pending finding without an outcome.
    #[error(
        "the refuter batch has no outcome for {0}; the single batch must cover every inferential severe finding"
    )]
    RefuterMissing(String),
    /// A forecast of zero lines.
    #[error("a correction forecast must be a positive number of lines")]
    ZeroForecast,
    /// The measured fix edits a path outside the genesis paths (R6.4).
    #[error(
        "the fix edits {0}, outside the genesis paths; revert that edit (corrections stay inside the reviewed paths)"
    )]
    OutsideGenesis(String),
    /// A successor differs from its predecessor in a field start froze.
    #[error("the successor changes frozen field `{0}`")]
    FrozenChanged(&'static str),
    /// The successor's stage cannot follow the predecessor's.
    #[error("`{from}` → `{to}` is not a legal transition")]
    IllegalEdge {
        /// The predecessor's stage.
        from: &'static str,
        /// The successor's stage.
        to: &'static str,
    },
    /// A dispute of a finding that is not admitted to correction (R12.6).
    #[error(
        "finding {finding} is routed `{route}`: only a finding admitted to correction can be disputed"
    )]
    NotDisputable {
        /// The finding named.
        finding: String,
        /// Its route (or that there is no such finding).
        route: &'static str,
    },
    /// A dispute after the correction began (a forecast or an attempt).
    #[error(
        "lineage {lineage} has begun its correction (a forecast or an attempt): a dispute comes before any edit; after one, the way on is the correction or its escalation"
    )]
    DisputeAfterCorrection {
        /// The lineage.
        lineage: String,
    },
    /// Evidence that is a command evidence document but a malformed one.
    #[error(transparent)]
    EvidenceDocument(#[from] EvidenceDocError),
    /// A command evidence document (v2) whose check ran on another tree
    /// than the lineage's final candidate tree: it says nothing about what
    /// the receipt would approve.
    #[error(
        "the evidence's check ran on tree {evidence_tree}, but lineage {lineage}'s final candidate tree is {final_tree}: evidence about another tree cannot approve or escalate it"
    )]
    EvidenceTree {
        /// The lineage.
        lineage: String,
        /// The tree the document names.
        evidence_tree: TreeId,
        /// The lineage's final candidate tree.
        final_tree: TreeId,
    },
    /// The successor the transition made is not a valid state.
    #[error(transparent)]
    State(#[from] StateError),
}
impl ReviewState {
    /// The initial `reviewing` state of a new lineage (generation 1).
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
