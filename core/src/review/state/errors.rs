//! Why a state or a transition is refused: the two error types of the
//! state machine (moved here from `state/mod.rs`, unchanged).

use super::*;
use crate::review::ErrorClass;

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
    /// The frozen policy hash is not a built-in policy's (v1 or v2).
    #[error("unsupported policy {0}; this build knows only the built-in policies v1 and v2")]
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

impl TransitionError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            TransitionError::WrongStage { .. } => (ErrorClass::RejectedInput, "wrong_stage"),
            TransitionError::ResultCount { .. } => (ErrorClass::RejectedInput, "result_count"),
            TransitionError::RefuterUnknownFinding(_) | TransitionError::RefuterMissing(_) => {
                (ErrorClass::RejectedInput, "refuter_mismatch")
            }
            TransitionError::ZeroForecast => (ErrorClass::RejectedInput, "zero_forecast"),
            TransitionError::OutsideGenesis(_) => (ErrorClass::RejectedInput, "outside_genesis"),
            TransitionError::EmptyEvidence => (ErrorClass::RejectedInput, "empty_evidence"),
            TransitionError::NotDisputable { .. } => (ErrorClass::RejectedInput, "not_disputable"),
            TransitionError::DisputeAfterCorrection { .. } => {
                (ErrorClass::RejectedInput, "dispute_after_correction")
            }
            TransitionError::EvidenceDocument(_) => {
                (ErrorClass::RejectedInput, "evidence_malformed")
            }
            TransitionError::EvidenceTree { .. } => {
                (ErrorClass::RejectedInput, "evidence_tree_mismatch")
            }
            TransitionError::DifferentRetry { .. } => (ErrorClass::Conflict, "different_retry"),
            TransitionError::FrozenChanged(_) | TransitionError::IllegalEdge { .. } => {
                (ErrorClass::RejectedInput, "illegal_transition")
            }
            TransitionError::State(_) => (ErrorClass::Integrity, "invalid_state"),
        }
    }
}
