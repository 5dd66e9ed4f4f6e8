//! The wire form of a state: the bytes stored, hashed and published.
//!
//! The wire keeps the six state names of the spec (R7.2) and folds the
//! domain's sub-states into them: `reviewing` with or without a judgment,
//! `correction_required` with or without a forecast, `escalated` with its
//! reason beside an evidence hash and a forecast in the ledger. Reading a
//! wire value unfolds it and refuses a fold no transition makes (a forecast
//! where none can be, an evidence hash without a failed check); nothing
//! reaches a [`ReviewState`] without [`ReviewState::validate`].
//!
//! These types are the exact shape (and, through [`Stage`]'s and
//! [`Correction`]'s schemas, the published JSON Schema) of the bytes that
//! existed before the sub-states were typed: golden files pin both.

use super::*;

/// The lifecycle stage and the data that exists in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(rename = "Stage")]
pub(crate) enum StageWire {
    /// Scope exists; the selected judgment is incomplete (no results yet,
    /// or results whose inferential severe findings await the refuter).
    Reviewing {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        judgment: Option<Judgment>,
    },
    /// Candidate-causal blockers exist; bounded correction is authorized.
    CorrectionRequired {
        judgment: Judgment,
        correction: CorrectionWire,
    },
    /// Review (and correction) finished; independent evidence is missing.
    Validating {
        judgment: Judgment,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        correction: Option<CorrectionWire>,
    },
    /// Terminal: evidence accepted.
    Approved {
        judgment: Judgment,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        correction: Option<CorrectionWire>,
        evidence_hash: Sha256Digest,
    },
    /// Terminal: a human decision is needed.
    Escalated {
        judgment: Judgment,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        correction: Option<CorrectionWire>,
        reason: EscalationReason,
        /// The hash of the failing final evidence: present exactly when the
        /// reason is `evidence_failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        evidence_hash: Option<Sha256Digest>,
    },
    /// Terminal, and only from a pristine `reviewing` (R9.1): the review was
    /// abandoned before any judgment. The snapshot stays; no receipt.
    Invalidated { reason: NonBlank },
}

/// The correction ledger of a lineage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Correction")]
pub(crate) struct CorrectionWire {
    /// Every attempt so far, oldest first; each is charged, and three
    /// failures escalate (R6.5, R6.6).
    #[serde(default)]
    attempts: Vec<Attempt>,
    /// The forecast for the next attempt, given before the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    forecast: Option<u64>,
}

impl CorrectionWire {
    fn of(c: &Correction, forecast: Option<u64>) -> Self {
        CorrectionWire {
            attempts: c.attempts.clone(),
            forecast,
        }
    }

    /// The ledger, refusing a forecast where `stage` records none.
    fn settled(self, stage: &'static str) -> Result<Correction, StateError> {
        match self.forecast {
            None => Ok(Correction {
                attempts: self.attempts,
            }),
            Some(_) => Err(StateError::StageFindings {
                stage,
                why: "a forecast is pending only while a correction is required, or in the escalation that refused it",
            }),
        }
    }
}

impl From<Stage> for StageWire {
    fn from(stage: Stage) -> StageWire {
        let settled = |c: &Option<Correction>| c.as_ref().map(|c| CorrectionWire::of(c, None));
        match stage {
            Stage::Reviewing => StageWire::Reviewing { judgment: None },
            Stage::AwaitingRefuter { judgment } => StageWire::Reviewing {
                judgment: Some(judgment),
            },
            Stage::CorrectionRequired {
                judgment,
                correction,
            } => StageWire::CorrectionRequired {
                judgment,
                correction: CorrectionWire::of(&correction, None),
            },
            Stage::Correcting {
                judgment,
                correction,
                forecast,
            } => StageWire::CorrectionRequired {
                judgment,
                correction: CorrectionWire::of(&correction, Some(forecast)),
            },
            Stage::Validating {
                judgment,
                correction,
            } => StageWire::Validating {
                correction: settled(&correction),
                judgment,
            },
            Stage::Approved {
                judgment,
                correction,
                evidence_hash,
            } => StageWire::Approved {
                correction: settled(&correction),
                judgment,
                evidence_hash,
            },
            Stage::Escalated {
                judgment,
                correction,
                reason,
            } => StageWire::Escalated {
                correction: correction.as_ref().map(|c| {
                    let forecast = match reason {
                        Escalation::ForecastOverBudget { forecast } => Some(forecast),
                        Escalation::FindingEscalated
                        | Escalation::BudgetExceeded
                        | Escalation::AttemptsExhausted
                        | Escalation::NoEditAttempt
                        | Escalation::RiskRaisedByCorrection
                        | Escalation::EvidenceFailed { .. } => None,
                    };
                    CorrectionWire::of(c, forecast)
                }),
                judgment,
                reason: reason.reason(),
                evidence_hash: reason.evidence_hash(),
            },
            Stage::Invalidated { reason } => StageWire::Invalidated { reason },
        }
    }
}

impl TryFrom<StageWire> for Stage {
    type Error = StateError;

    fn try_from(wire: StageWire) -> Result<Stage, StateError> {
        let settled = |c: Option<CorrectionWire>, stage| c.map(|c| c.settled(stage)).transpose();
        Ok(match wire {
            StageWire::Reviewing { judgment: None } => Stage::Reviewing,
            StageWire::Reviewing {
                judgment: Some(judgment),
            } => Stage::AwaitingRefuter { judgment },
            StageWire::CorrectionRequired {
                judgment,
                correction,
            } => match correction.forecast {
                None => Stage::CorrectionRequired {
                    judgment,
                    correction: Correction {
                        attempts: correction.attempts,
                    },
                },
                Some(forecast) => Stage::Correcting {
                    judgment,
                    correction: Correction {
                        attempts: correction.attempts,
                    },
                    forecast,
                },
            },
            StageWire::Validating {
                judgment,
                correction,
            } => Stage::Validating {
                judgment,
                correction: settled(correction, "validating")?,
            },
            StageWire::Approved {
                judgment,
                correction,
                evidence_hash,
            } => Stage::Approved {
                judgment,
                correction: settled(correction, "approved")?,
                evidence_hash,
            },
            StageWire::Escalated {
                judgment,
                correction,
                reason,
                evidence_hash,
            } => {
                let bad = |why| StateError::StageFindings {
                    stage: "escalated",
                    why,
                };
                let (reason, correction) = match (reason, evidence_hash) {
                    (EscalationReason::EvidenceFailed, Some(evidence_hash)) => (
                        Escalation::EvidenceFailed { evidence_hash },
                        settled(correction, "escalated")?,
                    ),
                    (EscalationReason::EvidenceFailed, None) | (_, Some(_)) => {
                        return Err(bad(
                            "an evidence hash is recorded exactly when the evidence failed",
                        ));
                    }
                    (EscalationReason::ForecastOverBudget, None) => {
                        let Some(CorrectionWire {
                            attempts,
                            forecast: Some(forecast),
                        }) = correction
                        else {
                            return Err(bad(
                                "a forecast over budget records the refused forecast in the ledger",
                            ));
                        };
                        (
                            Escalation::ForecastOverBudget { forecast },
                            Some(Correction { attempts }),
                        )
                    }
                    (EscalationReason::FindingEscalated, None) => (
                        Escalation::FindingEscalated,
                        settled(correction, "escalated")?,
                    ),
                    (EscalationReason::BudgetExceeded, None) => (
                        Escalation::BudgetExceeded,
                        settled(correction, "escalated")?,
                    ),
                    (EscalationReason::AttemptsExhausted, None) => (
                        Escalation::AttemptsExhausted,
                        settled(correction, "escalated")?,
                    ),
                    (EscalationReason::NoEditAttempt, None) => {
                        (Escalation::NoEditAttempt, settled(correction, "escalated")?)
                    }
                    (EscalationReason::RiskRaisedByCorrection, None) => (
                        Escalation::RiskRaisedByCorrection,
                        settled(correction, "escalated")?,
                    ),
                };
                Stage::Escalated {
                    judgment,
                    correction,
                    reason,
                }
            }
            StageWire::Invalidated { reason } => Stage::Invalidated { reason },
        })
    }
}

/// A state as stored, before its stage is unfolded and its derived fields
/// checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReviewStateWire {
    schema: StateSchema,
    lineage_id: LineageId,
    generation: u32,
    created_at: Timestamp,
    nonce: Nonce,
    snapshot: FrozenCandidate,
    frozen: Frozen,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    predecessor: Option<Predecessor>,
    stage: StageWire,
}

impl TryFrom<ReviewStateWire> for ReviewState {
    type Error = StateError;

    fn try_from(w: ReviewStateWire) -> Result<ReviewState, StateError> {
        let state = ReviewState {
            schema: w.schema,
            lineage_id: w.lineage_id,
            generation: w.generation,
            created_at: w.created_at,
            nonce: w.nonce,
            snapshot: w.snapshot,
            frozen: w.frozen,
            predecessor: w.predecessor,
            stage: Stage::try_from(w.stage)?,
        };
        state.validate()?;
        Ok(state)
    }
}

/// A record as stored, before its revision and state are checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateRecordWire {
    schema: RecordSchema,
    revision: Sha256Digest,
    state: ReviewStateWire,
}

impl TryFrom<StateRecordWire> for StateRecord {
    type Error = StateError;

    /// The revision first (it covers the state's bytes as stored), then the
    /// state's shape and derived fields.
    fn try_from(w: StateRecordWire) -> Result<StateRecord, StateError> {
        let derived = Sha256Digest::of(REVISION_DOMAIN, &canonical_bytes(&w.state)?);
        if derived != w.revision {
            return Err(StateError::Revision {
                stored: w.revision,
                derived,
            });
        }
        Ok(StateRecord {
            schema: w.schema,
            revision: w.revision,
            state: ReviewState::try_from(w.state)?,
        })
    }
}
