//! Role documents a model returns (R3), and the canonical findings code
//! builds from them (R4.1) with their causal routes (R5).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::review::causality::{self, CausalDowngrade, CausalFacts};
use crate::review::ids::{FindingId, IdError, NonBlank, RepoPath};
use crate::review::lens::Lens;

/// Finding severity. Only BLOCKER and CRITICAL are severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Severity {
    /// The change must not ship as it is (data loss, a security hole, a
    /// crash or wrong result on ordinary use). Severe: routed (R5.1).
    #[serde(rename = "BLOCKER")]
    Blocker,
    /// A serious defect on a plausible path. Severe: routed (R5.1).
    #[serde(rename = "CRITICAL")]
    Critical,
    /// A real problem that does not block: recorded as info.
    #[serde(rename = "WARNING")]
    Warning,
    /// An improvement: recorded as info.
    #[serde(rename = "SUGGESTION")]
    Suggestion,
}

impl Severity {
    /// BLOCKER or CRITICAL: the severities causal admission routes and
    /// that must carry an evidence class, a disposition and a proof ref.
    pub const fn is_severe(self) -> bool {
        matches!(self, Severity::Blocker | Severity::Critical)
    }
    /// The uppercase wire spelling, `BLOCKER` etc.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Blocker => "BLOCKER",
            Severity::Critical => "CRITICAL",
            Severity::Warning => "WARNING",
            Severity::Suggestion => "SUGGESTION",
        }
    }
}

/// The quality of the evidence behind a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceClass {
    /// The proof settles it (the code path read end to end, or a test that
    /// shows it): a candidate-causal severe finding goes straight to
    /// correction (R5.2).
    Deterministic,
    /// Reasoned to without proof: a severe finding waits for the single
    /// refuter batch (R5.3).
    Inferential,
    /// The reviewer cannot tell: a severe finding escalates (R5.5).
    Insufficient,
}

pub(crate) use crate::review::causality::CausalDisposition;

/// The most findings one lens result may report (IDs are `<prefix>-001` to
/// `<prefix>-999`).
pub const MAX_FINDINGS: usize = 999;

/// One finding as a reviewer reports it: no ID, no lens, no hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewerFinding {
    /// `path:line` or `path:start-end`.
    pub location: NonBlank,
    /// How bad the problem is; BLOCKER and CRITICAL are severe and routed.
    pub severity: Severity,
    /// What is wrong, in prose: the problem the finding asserts.
    pub claim: NonBlank,
    /// What another actor can inspect: a test and its result, a hunk, output.
    #[serde(default)]
    pub proof_refs: Vec<NonBlank>,
    /// Required for BLOCKER and CRITICAL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_class: Option<EvidenceClass>,
    /// Required for BLOCKER and CRITICAL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causal_disposition: Option<CausalDisposition>,
}

impl ReviewerFinding {
    /// The causal claim this finding makes, as causality checks it.
    pub fn claim(&self) -> crate::review::causality::Claim<'_> {
        crate::review::causality::Claim {
            severe: self.severity.is_severe(),
            disposition: self.causal_disposition,
            location: self.location.as_str(),
        }
    }
}

/// A reviewer (lens) result: strict JSON, unknown fields rejected (R3.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity reviewer result v1")]
pub struct ReviewerResult {
    /// The lens's findings, at most 999; absent or empty when it found
    /// nothing. Their order fixes their IDs (`<prefix>-001` first).
    #[serde(default)]
    pub findings: Vec<ReviewerFinding>,
    /// What the lens inspected or ran; at least one entry.
    pub evidence: Vec<NonBlank>,
}

/// Why a role document was rejected. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleDocError {
    /// The bytes fail the strict reader or the document's shape: not JSON,
    /// a duplicate key, trailing data, an unknown field, a wrong type, a
    /// blank string or an out-of-range id; carries the parser's message.
    #[error("not valid JSON for this role: {0}")]
    Json(String),
    /// A lens result with more than [`MAX_FINDINGS`] findings.
    #[error("a lens result may report at most {MAX_FINDINGS} findings")]
    TooManyFindings,
    /// A lens result, or a validator check, whose `evidence` list is empty.
    #[error("every `evidence` list must have at least one non-blank entry")]
    NoEvidence,
    /// A refuter batch with an empty `outcomes` list.
    #[error("the refuter batch must name at least one finding")]
    NoOutcomes,
    /// A refuter outcome (its finding ID named) with an empty `evidence`
    /// list.
    #[error("the outcome for {0} has no evidence")]
    OutcomeWithoutEvidence(String),
    /// A refuter batch that gives the named finding ID two outcomes.
    #[error("the refuter batch names {0} twice")]
    DuplicateOutcome(String),
    /// A BLOCKER or CRITICAL finding without one of the fields a severe
    /// finding must carry (R3.2).
    #[error("finding {index} is {severity} and must carry {missing}")]
    SevereIncomplete {
        /// The finding's 0-based index in the result's `findings`.
        index: usize,
        /// Its severity, `BLOCKER` or `CRITICAL`.
        severity: &'static str,
        /// The first missing field: `an evidence_class`, `a
        /// causal_disposition` or `at least one proof_ref`.
        missing: &'static str,
    },
}

impl ReviewerResult {
    /// Parses and checks a reviewer result (the same rules as its schema).
    pub fn parse(bytes: &[u8]) -> Result<Self, RoleDocError> {
        let r: ReviewerResult = crate::canonical::from_slice_strict(bytes)
            .map_err(|e| RoleDocError::Json(e.to_string()))?;
        if r.evidence.is_empty() {
            return Err(RoleDocError::NoEvidence);
        }
        if r.findings.len() > MAX_FINDINGS {
            return Err(RoleDocError::TooManyFindings);
        }
        for (index, f) in r.findings.iter().enumerate() {
            if f.severity.is_severe() {
                let missing = if f.evidence_class.is_none() {
                    Some("an evidence_class")
                } else if f.causal_disposition.is_none() {
                    Some("a causal_disposition")
                } else if f.proof_refs.is_empty() {
                    Some("at least one proof_ref")
                } else {
                    None
                };
                if let Some(missing) = missing {
                    return Err(RoleDocError::SevereIncomplete {
                        index,
                        severity: f.severity.name(),
                        missing,
                    });
                }
            }
        }
        Ok(r)
    }
}

/// A refuter's verdict on one inferential severe finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefuterVerdict {
    /// The refuter confirms the finding: it goes to correction.
    Corroborated,
    /// The refuter shows the finding does not hold: the outcome is
    /// recorded and the finding kept, with no correction.
    Refuted,
    /// The refuter cannot settle it: the finding escalates.
    Inconclusive,
}

/// One outcome in the refuter batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefuterOutcome {
    /// The code-assigned ID of an admitted inferential severe finding.
    pub finding_id: FindingId,
    /// The refuter's verdict on that finding.
    pub outcome: RefuterVerdict,
    /// What the refuter inspected or ran; at least one entry.
    pub evidence: Vec<NonBlank>,
}

/// The single refuter batch (R3.3): outcomes by finding ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity refuter batch v1")]
pub struct RefuterResult {
    /// One outcome per finding awaiting the refuter, each finding ID at
    /// most once; at least one entry.
    pub outcomes: Vec<RefuterOutcome>,
}

impl RefuterResult {
    /// Parses and checks a refuter batch: strict JSON, at least one outcome,
    /// evidence on each, no finding named twice.
    pub fn parse(bytes: &[u8]) -> Result<Self, RoleDocError> {
        let r: RefuterResult = crate::canonical::from_slice_strict(bytes)
            .map_err(|e| RoleDocError::Json(e.to_string()))?;
        if r.outcomes.is_empty() {
            return Err(RoleDocError::NoOutcomes);
        }
        for (i, o) in r.outcomes.iter().enumerate() {
            if o.evidence.is_empty() {
                return Err(RoleDocError::OutcomeWithoutEvidence(
                    o.finding_id.to_string(),
                ));
            }
            if r.outcomes[..i].iter().any(|p| p.finding_id == o.finding_id) {
                return Err(RoleDocError::DuplicateOutcome(o.finding_id.to_string()));
            }
        }
        Ok(r)
    }
}

/// One check of the targeted validator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidatorCheck {
    /// Whether the check holds; a correction is accepted only when both
    /// checks pass.
    pub passed: bool,
    /// At least one entry.
    pub evidence: Vec<NonBlank>,
}

/// The targeted validator's result after a correction (R3.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity targeted validator result v1")]
pub struct ValidatorResult {
    /// The original acceptance criteria still hold.
    pub original_criteria: ValidatorCheck,
    /// The correction did not regress anything it touched.
    pub correction_regression: ValidatorCheck,
    /// Non-blocking observations.
    #[serde(default)]
    pub follow_ups: Vec<NonBlank>,
}

impl ValidatorResult {
    /// Parses and checks a validator result.
    pub fn parse(bytes: &[u8]) -> Result<Self, RoleDocError> {
        let r: ValidatorResult = crate::canonical::from_slice_strict(bytes)
            .map_err(|e| RoleDocError::Json(e.to_string()))?;
        if r.original_criteria.evidence.is_empty() || r.correction_regression.evidence.is_empty() {
            return Err(RoleDocError::NoEvidence);
        }
        Ok(r)
    }

    /// Both checks passed.
    pub fn passed(&self) -> bool {
        self.original_criteria.passed && self.correction_regression.passed
    }
}

/// Where a finding goes (R5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Severe, deterministic (or corroborated) and candidate-causal.
    Correction,
    /// Severe but `pre_existing` or `base_only`: kept with its proof.
    FollowUp,
    /// Severe with `unknown` causality or `insufficient` evidence.
    Escalation,
    /// WARNING or SUGGESTION.
    Info,
    /// Severe and inferential: waits for the single refuter batch.
    Refuter,
    /// The refuter refuted it: outcome recorded, finding kept.
    Refuted,
    /// A maintainer disputed it as a false positive, with evidence and an
    /// authorization (R12.6): the dispute recorded, finding kept.
    Disputed,
}

impl Route {
    /// The snake_case wire spelling, `follow_up` etc.
    pub const fn name(self) -> &'static str {
        match self {
            Route::Correction => "correction",
            Route::FollowUp => "follow_up",
            Route::Escalation => "escalation",
            Route::Info => "info",
            Route::Refuter => "refuter",
            Route::Refuted => "refuted",
            Route::Disputed => "disputed",
        }
    }
}

/// The admission matrix before any refuter outcome (R5.1–R5.5).
pub(crate) fn initial_route(
    severity: Severity,
    class: Option<EvidenceClass>,
    disposition: Option<CausalDisposition>,
) -> Route {
    if !severity.is_severe() {
        return Route::Info;
    }
    match (class, disposition) {
        (None, _) | (_, None) => Route::Escalation,
        (Some(EvidenceClass::Insufficient), _) | (_, Some(CausalDisposition::Unknown)) => {
            Route::Escalation
        }
        (_, Some(CausalDisposition::PreExisting | CausalDisposition::BaseOnly)) => Route::FollowUp,
        (Some(EvidenceClass::Deterministic), Some(_)) => Route::Correction,
        (Some(EvidenceClass::Inferential), Some(_)) => Route::Refuter,
    }
}

/// The route after the refuter batch: corroborated → correction, refuted →
/// refuted (kept), inconclusive → escalation; other routes are unchanged.
pub(crate) fn final_route(initial: Route, outcome: Option<RefuterVerdict>) -> Route {
    match (initial, outcome) {
        (Route::Refuter, Some(RefuterVerdict::Corroborated)) => Route::Correction,
        (Route::Refuter, Some(RefuterVerdict::Refuted)) => Route::Refuted,
        (Route::Refuter, Some(RefuterVerdict::Inconclusive)) => Route::Escalation,
        (route, _) => route,
    }
}

/// A canonical finding: a reviewer finding with its code-assigned ID and route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Assigned by code: the lens's prefix and the finding's 1-based
    /// position in its result, `R3-001` (R2.7, R4.1).
    pub id: FindingId,
    /// The reviewer's `path:line` or `path:start-end`, as reported.
    pub location: NonBlank,
    /// The reviewer's severity.
    pub severity: Severity,
    /// The reviewer's statement of the problem.
    pub claim: NonBlank,
    /// The reviewer's inspectable proof references.
    #[serde(default)]
    pub proof_refs: Vec<NonBlank>,
    /// The reviewer's evidence class; present on every severe finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_class: Option<EvidenceClass>,
    /// The disposition routing used: the reviewer's claim, or `unknown`
    /// when the claim did not hold (see `causal_downgrade`); present on
    /// every severe finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causal_disposition: Option<CausalDisposition>,
    /// Set when the claimed disposition did not hold against the
    /// repository; `causal_disposition` is then `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causal_downgrade: Option<CausalDowngrade>,
    /// The admission route before any refuter outcome.
    pub route: Route,
}

/// One lens's accepted result, in selected order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptedResult {
    /// The lens whose result this is.
    pub lens: Lens,
    /// Its canonical findings in reported order, IDs `<prefix>-001`
    /// upward; absent when it found nothing.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// What the lens inspected or ran, as submitted.
    #[serde(default)]
    pub evidence: Vec<NonBlank>,
}

impl AcceptedResult {
    /// Fills the lens, assigns `<prefix>-<NNN>` by position, checks causal
    /// claims against the repository facts (downgrading those that do not
    /// hold) and routes.
    pub fn canonicalize(
        lens: Lens,
        result: ReviewerResult,
        genesis: &[RepoPath],
        facts: &CausalFacts,
    ) -> Result<Self, IdError> {
        let findings = result
            .findings
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let position = u16::try_from(i + 1)
                    .map_err(|_| IdError::FindingId(format!("{}-{}", lens.prefix(), i + 1)))?;
                let causal_downgrade = causality::check(f.claim(), genesis, facts);
                let disposition = match causal_downgrade {
                    Some(_) => Some(CausalDisposition::Unknown),
                    None => f.causal_disposition,
                };
                Ok(Finding {
                    id: FindingId::new(lens, position)?,
                    route: initial_route(f.severity, f.evidence_class, disposition),
                    location: f.location,
                    severity: f.severity,
                    claim: f.claim,
                    proof_refs: f.proof_refs,
                    evidence_class: f.evidence_class,
                    causal_disposition: disposition,
                    causal_downgrade,
                })
            })
            .collect::<Result<Vec<_>, IdError>>()?;
        Ok(Self {
            lens,
            findings,
            evidence: result.evidence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CausalDisposition::*;
    use EvidenceClass::*;

    #[test]
    fn routing_matrix() {
        use Route::*;
        use Severity::*;
        let cells = [
            (Critical, Some(Deterministic), Some(Introduced), Correction),
            (Blocker, Some(Deterministic), Some(Activated), Correction),
            (Critical, Some(Deterministic), Some(Worsened), Correction),
            (Critical, Some(Inferential), Some(Introduced), Refuter),
            (Blocker, Some(Inferential), Some(Activated), Refuter),
            (Critical, Some(Deterministic), Some(PreExisting), FollowUp),
            (Critical, Some(Inferential), Some(BaseOnly), FollowUp),
            (Critical, Some(Deterministic), Some(Unknown), Escalation),
            (Blocker, Some(Insufficient), Some(Introduced), Escalation),
            (Critical, Some(Insufficient), Some(PreExisting), Escalation),
            (Blocker, None, Some(Introduced), Escalation),
            (Warning, Some(Deterministic), Some(Introduced), Info),
            (Suggestion, None, None, Info),
        ];
        for (sev, class, disp, route) in cells {
            assert_eq!(
                initial_route(sev, class, disp),
                route,
                "{sev:?} {class:?} {disp:?}"
            );
        }
    }

    #[test]
    fn parse_rejects_bad_documents() {
        let ok = br#"{"findings":[],"evidence":["read the diff"]}"#;
        assert!(ReviewerResult::parse(ok).is_ok());
        let absent = br#"{"evidence":["read the diff"]}"#;
        assert_eq!(
            ReviewerResult::parse(absent).unwrap(),
            ReviewerResult::parse(ok).unwrap()
        );
        for bad in [
            &br#"{"findings":[],"evidence":["x"],"lens":"risk"}"#[..],
            br#"{"findings":[],"evidence":[]}"#,
            br#"{"findings":[],"evidence":["  "]}"#,
            br#"{"findings":[],"evidence":[""]}"#,
            br#"{"findings":[{"location":"a:1","severity":"CRITICAL","claim":"c","proof_refs":["p"],"causal_disposition":"introduced"}],"evidence":["x"]}"#,
            br#"{"findings":[{"location":"a:1","severity":"BLOCKER","claim":"c","evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["x"]}"#,
            br#"{"findings":[{"location":"a:1","severity":"minor","claim":"c"}],"evidence":["x"]}"#,
            b"not json",
            // Regression: duplicate keys were accepted (the last one won)
            // and integers beyond 2^53 - 1 were rounded when hashed.
            br#"{"findings":[],"evidence":["x"],"evidence":["y"]}"#,
            br#"{"findings":[{"location":"a:9007199254740993","severity":"WARNING","claim":"c","claim":"d"}],"evidence":["x"]}"#,
            br#"{"findings":[],"evidence":["x"]} trailing"#,
        ] {
            assert!(ReviewerResult::parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        let twice = br#"{"original_criteria":{"passed":true,"evidence":["x"]},"original_criteria":{"passed":false,"evidence":["x"]},"correction_regression":{"passed":true,"evidence":["y"]}}"#;
        assert!(
            matches!(ValidatorResult::parse(twice), Err(RoleDocError::Json(m)) if m.contains("twice"))
        );
    }
}
