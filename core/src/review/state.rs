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
use crate::review::finding::{AcceptedResult, ReviewerResult, Route, initial_route};
use crate::review::ids::{IdError, LineageId, Nonce, Timestamp};
use crate::review::lens::{Lens, is_legal_selection};
use crate::review::risk::{RiskAssessment, RiskLevel, RiskPolicy, RiskReason, UnexplainedRisk};
use crate::review::snapshot::{Snapshot, SnapshotError, correction_budget};

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
/// Domain of evidence hashes (raw evidence bytes).
pub const EVIDENCE_DOMAIN: Domain = Domain::new("probity/evidence/v1");

/// The `schema` tag of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum StateSchema {
    #[serde(rename = "probity.review-state/v1")]
    V1,
}

/// The `schema` tag of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RecordSchema {
    #[serde(rename = "probity.review-state-record/v1")]
    V1,
}

/// What start froze. Nothing later recomputes these (R2.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Frozen {
    pub risk_level: RiskLevel,
    pub risk_reasons: Vec<RiskReason>,
    pub policy_hash: Sha256Digest,
    #[serde(default)]
    pub selected_lenses: Vec<Lens>,
    pub changed_files: u64,
    pub authored_lines: u64,
    pub correction_budget: u64,
}

/// The judgment accepted from the lenses, canonicalized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Judgment {
    /// One accepted result per selected lens, in selected order.
    #[serde(default)]
    pub results: Vec<AcceptedResult>,
    /// Canonical digest of `results`.
    pub results_hash: Sha256Digest,
}

impl Judgment {
    /// Builds the judgment and its hash.
    pub fn new(results: Vec<AcceptedResult>) -> Result<Self, CanonicalError> {
        let results_hash = canonical_digest(RESULTS_DOMAIN, &results)?;
        Ok(Self {
            results,
            results_hash,
        })
    }

    /// Every finding, in lens order then position.
    pub fn findings(&self) -> impl Iterator<Item = &crate::review::finding::Finding> {
        self.results.iter().flat_map(|r| r.findings.iter())
    }

    fn has_route(&self, route: Route) -> bool {
        self.findings().any(|f| f.route == route)
    }
}

/// Why a review escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EscalationReason {
    /// A severe finding with `unknown` causality or `insufficient` evidence.
    FindingEscalated,
}

/// The lifecycle stage and the data that exists in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
pub enum Stage {
    /// Scope exists; the selected judgment is incomplete.
    Reviewing,
    /// Review finished; independent evidence is missing.
    Validating { judgment: Judgment },
    /// Terminal: evidence accepted.
    Approved {
        judgment: Judgment,
        evidence_hash: Sha256Digest,
    },
    /// Terminal: a human decision is needed.
    Escalated {
        judgment: Judgment,
        reason: EscalationReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        evidence_hash: Option<Sha256Digest>,
    },
}

impl Stage {
    /// The state name (`reviewing`, `validating`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Reviewing => "reviewing",
            Stage::Validating { .. } => "validating",
            Stage::Approved { .. } => "approved",
            Stage::Escalated { .. } => "escalated",
        }
    }

    /// Whether the stage is terminal (`approved` or `escalated`).
    pub fn is_terminal(&self) -> bool {
        matches!(self, Stage::Approved { .. } | Stage::Escalated { .. })
    }

    /// The accepted judgment, once there is one.
    pub fn judgment(&self) -> Option<&Judgment> {
        match self {
            Stage::Reviewing => None,
            Stage::Validating { judgment }
            | Stage::Approved { judgment, .. }
            | Stage::Escalated { judgment, .. } => Some(judgment),
        }
    }
}

/// The compact review state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity review state v1")]
pub struct ReviewState {
    pub schema: StateSchema,
    pub lineage_id: LineageId,
    pub generation: u32,
    pub created_at: Timestamp,
    pub nonce: Nonce,
    pub snapshot: Snapshot,
    pub frozen: Frozen,
    pub stage: Stage,
}

/// The on-disk record: `{schema, revision, state}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity review state record v1")]
pub struct StateRecord {
    pub schema: RecordSchema,
    pub revision: Sha256Digest,
    pub state: ReviewState,
}

/// Why stored or proposed state is not valid authority.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error("state record is not valid JSON of the record schema: {0}")]
    Parse(String),
    #[error("state record bytes are not canonical (edited by hand?)")]
    NotCanonical,
    #[error("state revision {stored} does not match its content ({derived})")]
    Revision {
        stored: Sha256Digest,
        derived: Sha256Digest,
    },
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error(transparent)]
    Risk(#[from] UnexplainedRisk),
    #[error("unsupported policy {0}; this build knows only the built-in policy v1")]
    UnsupportedPolicy(Sha256Digest),
    #[error("lens selection {lenses:?} is not legal for risk {level}")]
    LensSelection {
        level: &'static str,
        lenses: Vec<&'static str>,
    },
    #[error("budget {stored} does not equal min(200, ceil({lines}/2)) = {derived}")]
    Budget {
        stored: u64,
        lines: u64,
        derived: u64,
    },
    #[error("changed_files {stored} does not equal the {derived} snapshot paths")]
    ChangedFiles { stored: u64, derived: u64 },
    #[error("lineage id {stored} is not derived from this target, nonce and time ({derived})")]
    Lineage { stored: String, derived: String },
    #[error("generation must be 1 or more")]
    Generation,
    #[error("accepted results do not match the selected lenses")]
    ResultsLenses,
    #[error("finding {0} does not have its canonical id or route")]
    NonCanonicalFinding(String),
    #[error("results_hash does not match the accepted results")]
    ResultsHash,
    #[error("stage `{stage}` is inconsistent with its findings: {why}")]
    StageFindings {
        stage: &'static str,
        why: &'static str,
    },
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
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
    #[derive(Serialize)]
    struct Preimage<'a> {
        target: &'a Sha256Digest,
        generation: u32,
        created_at: &'a Timestamp,
        nonce: &'a Nonce,
    }
    let d = canonical_digest(
        LINEAGE_DOMAIN,
        &Preimage {
            target,
            generation,
            created_at,
            nonce,
        },
    )?;
    Ok(LineageId::parse(format!("review-{}", &d.hex()[..16]))?)
}

/// Inputs to start that code derived from the observation.
#[derive(Debug, Clone)]
pub struct StartInput {
    pub snapshot: Snapshot,
    pub assessment: RiskAssessment,
    pub lenses: Vec<Lens>,
    pub authored_lines: u64,
    pub created_at: Timestamp,
    pub nonce: Nonce,
}

/// Why a transition is not legal. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    #[error("lineage {lineage} is `{state}`: {what} is not a legal input now")]
    WrongStage {
        lineage: String,
        state: &'static str,
        what: &'static str,
    },
    #[error("expected {expected} lens result(s) in selected order ({lenses}), got {got}")]
    ResultCount {
        expected: usize,
        got: usize,
        lenses: String,
    },
    #[error(
        "finding {id} needs the {route} route, which this build does not run yet; the review cannot be finalized (nothing changed)"
    )]
    RouteUnsupported { id: String, route: &'static str },
    #[error("evidence must be non-empty bytes from an independent mechanism")]
    EmptyEvidence,
    #[error(
        "lineage {lineage} already accepted different {what}; a retry must repeat the same input"
    )]
    DifferentRetry { lineage: String, what: &'static str },
    #[error("the successor changes frozen field `{0}`")]
    FrozenChanged(&'static str),
    #[error("`{from}` → `{to}` is not a legal transition")]
    IllegalEdge {
        from: &'static str,
        to: &'static str,
    },
    #[error(transparent)]
    State(#[from] StateError),
}

impl ReviewState {
    /// The initial `reviewing` state of a new lineage (generation 1).
    pub fn start(input: StartInput) -> Result<Self, StateError> {
        let StartInput {
            snapshot,
            assessment,
            lenses,
            authored_lines,
            created_at,
            nonce,
        } = input;
        let generation = 1;
        let lineage_id = derive_lineage_id(&snapshot.target, generation, &created_at, &nonce)?;
        let state = ReviewState {
            schema: StateSchema::V1,
            lineage_id,
            generation,
            created_at,
            nonce,
            frozen: Frozen {
                risk_level: assessment.level(),
                risk_reasons: assessment.reasons().to_vec(),
                policy_hash: RiskPolicy::v1_hash(),
                selected_lenses: lenses,
                changed_files: snapshot.paths.len() as u64,
                authored_lines,
                correction_budget: correction_budget(authored_lines),
            },
            snapshot,
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

    /// Checks every derivable field against what it derives from (R7.3).
    pub fn validate(&self) -> Result<(), StateError> {
        self.snapshot.check()?;
        let f = &self.frozen;
        RiskAssessment::new(f.risk_level, f.risk_reasons.clone())?;
        if f.policy_hash != RiskPolicy::v1_hash() {
            return Err(StateError::UnsupportedPolicy(f.policy_hash));
        }
        if !is_legal_selection(f.risk_level, &f.selected_lenses) {
            return Err(StateError::LensSelection {
                level: f.risk_level.name(),
                lenses: f.selected_lenses.iter().map(|l| l.name()).collect(),
            });
        }
        let derived = correction_budget(f.authored_lines);
        if f.correction_budget != derived {
            return Err(StateError::Budget {
                stored: f.correction_budget,
                lines: f.authored_lines,
                derived,
            });
        }
        let paths = self.snapshot.paths.len() as u64;
        if f.changed_files != paths {
            return Err(StateError::ChangedFiles {
                stored: f.changed_files,
                derived: paths,
            });
        }
        if self.generation == 0 {
            return Err(StateError::Generation);
        }
        let lineage = derive_lineage_id(
            &self.snapshot.target,
            self.generation,
            &self.created_at,
            &self.nonce,
        )?;
        if lineage != self.lineage_id {
            return Err(StateError::Lineage {
                stored: self.lineage_id.to_string(),
                derived: lineage.to_string(),
            });
        }
        if let Some(j) = self.stage.judgment() {
            self.check_judgment(j)?;
        }
        let stage = self.stage.name();
        let inconsistent = |why| Err(StateError::StageFindings { stage, why });
        match &self.stage {
            Stage::Reviewing => {}
            Stage::Validating { judgment } | Stage::Approved { judgment, .. } => {
                if judgment.has_route(Route::Escalation) {
                    return inconsistent("an escalation-routed finding must escalate the review");
                }
                if judgment.has_route(Route::Correction) || judgment.has_route(Route::Refuter) {
                    return inconsistent("a finding awaiting correction or refutation is open");
                }
            }
            Stage::Escalated {
                judgment,
                reason: EscalationReason::FindingEscalated,
                ..
            } => {
                if !judgment.has_route(Route::Escalation) {
                    return inconsistent("escalated for a finding, but no finding escalates");
                }
            }
        }
        Ok(())
    }

    fn check_judgment(&self, j: &Judgment) -> Result<(), StateError> {
        let lenses: Vec<Lens> = j.results.iter().map(|r| r.lens).collect();
        if lenses != self.frozen.selected_lenses {
            return Err(StateError::ResultsLenses);
        }
        for r in &j.results {
            for (i, f) in r.findings.iter().enumerate() {
                let canonical_id = f.id.lens() == r.lens && usize::from(f.id.position()) == i + 1;
                let route = initial_route(f.severity, f.evidence_class, f.causal_disposition);
                if !canonical_id || route != f.route {
                    return Err(StateError::NonCanonicalFinding(f.id.to_string()));
                }
            }
        }
        if canonical_digest(RESULTS_DOMAIN, &j.results)? != j.results_hash {
            return Err(StateError::ResultsHash);
        }
        Ok(())
    }

    fn wrong_stage(&self, what: &'static str) -> TransitionError {
        TransitionError::WrongStage {
            lineage: self.lineage_id.to_string(),
            state: self.stage.name(),
            what,
        }
    }

    /// Accepts the lens results in selected order (R4.1–R4.3). A retry with
    /// the same results on an already-judged lineage returns it unchanged.
    pub fn accept_results(
        &self,
        results: Vec<ReviewerResult>,
    ) -> Result<ReviewState, TransitionError> {
        let lenses = &self.frozen.selected_lenses;
        if results.len() != lenses.len() {
            return Err(TransitionError::ResultCount {
                expected: lenses.len(),
                got: results.len(),
                lenses: if lenses.is_empty() {
                    "none selected".into()
                } else {
                    lenses
                        .iter()
                        .map(|l| l.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            });
        }
        let accepted = lenses
            .iter()
            .zip(results)
            .map(|(lens, r)| AcceptedResult::canonicalize(*lens, r))
            .collect::<Result<Vec<_>, IdError>>()
            .map_err(StateError::from)?;
        let judgment = Judgment::new(accepted).map_err(StateError::from)?;
        if let Some(existing) = self.stage.judgment() {
            return if existing.results_hash == judgment.results_hash {
                Ok(self.clone())
            } else {
                Err(TransitionError::DifferentRetry {
                    lineage: self.lineage_id.to_string(),
                    what: "lens results",
                })
            };
        }
        if let Some(f) = judgment
            .findings()
            .find(|f| matches!(f.route, Route::Correction | Route::Refuter))
        {
            return Err(TransitionError::RouteUnsupported {
                id: f.id.to_string(),
                route: f.route.name(),
            });
        }
        let stage = if judgment.has_route(Route::Escalation) {
            Stage::Escalated {
                judgment,
                reason: EscalationReason::FindingEscalated,
                evidence_hash: None,
            }
        } else {
            Stage::Validating { judgment }
        };
        let next = ReviewState {
            stage,
            ..self.clone()
        };
        next.validate()?;
        Ok(next)
    }

    /// Accepts final evidence in `validating` (R4.4). A retry with the same
    /// evidence on the approved lineage returns it unchanged.
    pub fn accept_evidence(&self, evidence: &[u8]) -> Result<ReviewState, TransitionError> {
        if evidence.is_empty() {
            return Err(TransitionError::EmptyEvidence);
        }
        let evidence_hash = Sha256Digest::of(EVIDENCE_DOMAIN, evidence);
        match &self.stage {
            Stage::Validating { judgment } => {
                let next = ReviewState {
                    stage: Stage::Approved {
                        judgment: judgment.clone(),
                        evidence_hash,
                    },
                    ..self.clone()
                };
                next.validate()?;
                Ok(next)
            }
            Stage::Approved {
                evidence_hash: accepted,
                ..
            } => {
                if *accepted == evidence_hash {
                    Ok(self.clone())
                } else {
                    Err(TransitionError::DifferentRetry {
                        lineage: self.lineage_id.to_string(),
                        what: "evidence",
                    })
                }
            }
            _ => Err(self.wrong_stage("evidence")),
        }
    }
}

/// Checks that `next` may follow `prev` (for every transition): frozen
/// fields byte-identical, the edge legal, an accepted judgment unchanged.
pub fn check_successor(prev: &ReviewState, next: &ReviewState) -> Result<(), TransitionError> {
    next.validate()?;
    let frozen = [
        ("lineage_id", prev.lineage_id == next.lineage_id),
        ("generation", prev.generation == next.generation),
        ("created_at", prev.created_at == next.created_at),
        ("nonce", prev.nonce == next.nonce),
        ("snapshot", prev.snapshot == next.snapshot),
        ("frozen", prev.frozen == next.frozen),
    ];
    if let Some((name, _)) = frozen.iter().find(|(_, same)| !same) {
        return Err(TransitionError::FrozenChanged(name));
    }
    if prev == next {
        return Ok(());
    }
    let legal = matches!(
        (&prev.stage, &next.stage),
        (
            Stage::Reviewing,
            Stage::Validating { .. } | Stage::Escalated { .. }
        ) | (
            Stage::Validating { .. },
            Stage::Approved { .. } | Stage::Escalated { .. }
        )
    );
    if !legal {
        return Err(TransitionError::IllegalEdge {
            from: prev.stage.name(),
            to: next.stage.name(),
        });
    }
    if let (Some(a), Some(b)) = (prev.stage.judgment(), next.stage.judgment())
        && a != b
    {
        return Err(TransitionError::FrozenChanged("judgment"));
    }
    Ok(())
}

impl StateRecord {
    /// The exact bytes stored on disk: canonical JSON and one LF.
    pub fn to_bytes(&self) -> Result<Vec<u8>, StateError> {
        let mut b = canonical_bytes(self)?;
        b.push(b'\n');
        Ok(b)
    }

    /// Parses stored bytes and validates them fail-closed (R7.3): strict
    /// schema, canonical bytes, revision, and every derived field.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, StateError> {
        let record: StateRecord =
            serde_json::from_slice(bytes).map_err(|e| StateError::Parse(e.to_string()))?;
        if record.to_bytes()? != bytes {
            return Err(StateError::NotCanonical);
        }
        let derived = record.state.revision()?;
        if derived != record.revision {
            return Err(StateError::Revision {
                stored: record.revision,
                derived,
            });
        }
        record.state.validate()?;
        Ok(record)
    }
}

/// The prepared binding of one selected lens (R2.10): the exact string an
/// orchestrator prefixes to that lens's prompt. Only start names the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LensBinding {
    pub lens: Lens,
    /// 1-based position in the selected order.
    pub order: usize,
    pub finding_id_prefix: &'static str,
    pub binding: String,
}

impl ReviewState {
    /// One prepared binding per selected lens, in selected order.
    pub fn lens_bindings(&self) -> Vec<LensBinding> {
        let n = self.frozen.selected_lenses.len();
        self.frozen
            .selected_lenses
            .iter()
            .enumerate()
            .map(|(i, lens)| LensBinding {
                lens: *lens,
                order: i + 1,
                finding_id_prefix: lens.prefix(),
                binding: format!(
                    "probity-lens-binding/v1 lineage={} target={} candidate_tree={} lens={} position={}/{}",
                    self.lineage_id,
                    self.snapshot.target,
                    self.snapshot.candidate_tree,
                    lens.name(),
                    i + 1,
                    n
                ),
            })
            .collect()
    }

    /// The next legal input for this state, as a routing token.
    pub fn next_action(&self) -> NextInput {
        match &self.stage {
            Stage::Reviewing if self.frozen.selected_lenses.is_empty() => {
                NextInput::ProvideEvidence
            }
            Stage::Reviewing => NextInput::RunLenses,
            Stage::Validating { .. } => NextInput::ProvideEvidence,
            Stage::Approved { .. } | Stage::Escalated { .. } => NextInput::None,
        }
    }
}

/// The next legal input, named for orchestrators (`action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextInput {
    /// Run each selected lens once, then `finalize --result ...`.
    RunLenses,
    /// `finalize --evidence F` with independent evidence.
    ProvideEvidence,
    /// Terminal: nothing more.
    None,
}

impl NextInput {
    /// A sentence for people.
    pub fn sentence(self, lenses: &[Lens]) -> String {
        match self {
            NextInput::RunLenses => format!(
                "run each selected lens once ({}), then `probity finalize --result <lens.json>...` in that order",
                lenses.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
            ),
            NextInput::ProvideEvidence => {
                "produce independent evidence (test output, a build log), then `probity finalize --evidence <file>`".into()
            }
            NextInput::None => "nothing: the review is terminal".into(),
        }
    }
}
