//! Why a review escalated: the reason an escalation records, its wire
//! name and the sentence that reports it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a review escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EscalationReason {
    /// A severe finding with `unknown` causality, `insufficient` evidence or
    /// an inconclusive refuter outcome.
    FindingEscalated,
    /// The cumulative forecast exceeded the budget, before any edit.
    ForecastOverBudget,
    /// The lines Git measured exceeded the budget.
    BudgetExceeded,
    /// The third failed attempt.
    AttemptsExhausted,
    /// An attempt that edited nothing.
    NoEditAttempt,
    /// The independent check ran and failed: the final evidence reports a
    /// failure (R4.4). Evidence never approves by being present.
    EvidenceFailed,
    /// The correction made the change a higher tier than the one its
    /// review ran at (its lenses and signatures), D-R132.
    RiskRaisedByCorrection,
}

impl EscalationReason {
    /// The wire name (`budget_exceeded`).
    pub const fn name(self) -> &'static str {
        match self {
            EscalationReason::FindingEscalated => "finding_escalated",
            EscalationReason::ForecastOverBudget => "forecast_over_budget",
            EscalationReason::BudgetExceeded => "budget_exceeded",
            EscalationReason::AttemptsExhausted => "attempts_exhausted",
            EscalationReason::NoEditAttempt => "no_edit_attempt",
            EscalationReason::EvidenceFailed => "evidence_failed",
            EscalationReason::RiskRaisedByCorrection => "risk_raised_by_correction",
        }
    }

    /// Why, in a sentence a person reads where the escalation is reported.
    pub const fn explain(self) -> &'static str {
        match self {
            EscalationReason::FindingEscalated => {
                "a severe finding has unknown causality, insufficient evidence or an inconclusive refuter outcome"
            }
            EscalationReason::ForecastOverBudget => {
                "the correction's forecast lines exceed its budget, before any edit"
            }
            EscalationReason::BudgetExceeded => {
                "the lines the correction changed, as Git measured them, exceed its budget"
            }
            EscalationReason::AttemptsExhausted => "the third correction attempt failed",
            EscalationReason::NoEditAttempt => "a correction attempt edited nothing",
            EscalationReason::EvidenceFailed => "the independent check ran and failed",
            EscalationReason::RiskRaisedByCorrection => {
                "the correction made the change a higher risk tier than the one its review ran at"
            }
        }
    }

    /// Whether the correction ledger (forecast, measured lines, attempts)
    /// decided this escalation.
    pub fn is_ledger(self) -> bool {
        matches!(
            self,
            EscalationReason::ForecastOverBudget
                | EscalationReason::BudgetExceeded
                | EscalationReason::AttemptsExhausted
                | EscalationReason::NoEditAttempt
                | EscalationReason::RiskRaisedByCorrection
        )
    }
}
