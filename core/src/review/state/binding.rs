//! Lens bindings and preflight (R2.10, R2.11), invalidation (R9.1), and
//! the next legal input of a state.

use crate::review::ErrorClass;
use serde::Serialize;

use crate::review::ids::{LineageId, NonBlank};
use crate::review::lens::Lens;

use super::*;

/// What a recover command's `R`, `A` and `X` stand for.
pub const PERSON_VALUES: &str =
    "R: why, A: who decides, X: the maintainer's authorization; these are yours to give";

/// The prepared binding of one selected lens (R2.10): the exact string an
/// orchestrator prefixes to that lens's prompt. Only start names the target.
/// A lineage with frozen prompt digests has `probity-lens-binding/v2`
/// bindings, which end with `prompt=<the lens's prompt digest>`; one
/// without (started before prompts were versioned) keeps v1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LensBinding {
    /// The lens bound.
    pub lens: Lens,
    /// 1-based position in the selected order.
    pub order: usize,
    /// The prefix of the lens's finding ids (`R3` for reliability, ...).
    pub finding_id_prefix: &'static str,
    /// The binding line the orchestrator prefixes to the lens prompt
    /// (`probity-lens-binding/v1` or `/v2`).
    pub binding: String,
    /// A short token derived from `binding`
    /// (`binding_token`): either one proves the
    /// binding when a result is submitted.
    pub token: String,
}

impl ReviewState {
    /// One prepared binding per selected lens, in selected order.
    pub fn lens_bindings(&self) -> Vec<LensBinding> {
        let n = self.frozen.selected_lenses.len();
        self.frozen
            .selected_lenses
            .iter()
            .enumerate()
            .map(|(i, lens)| {
                let v1 = format!(
                    "lineage={} target={} candidate_tree={} lens={} position={}/{}",
                    self.lineage_id,
                    self.snapshot.target,
                    self.snapshot.candidate_tree,
                    lens.name(),
                    i + 1,
                    n
                );
                // With frozen prompts the binding commits to the lens's
                // prompt digest too (v2): a changed prompt is a changed
                // binding and token.
                let prompt = self
                    .frozen
                    .prompts
                    .as_ref()
                    .and_then(|p| p.digest(crate::review::prompts::PromptRole::Lens(*lens)));
                let binding = match prompt {
                    Some(d) => format!("probity-lens-binding/v2 {v1} prompt={d}"),
                    None => format!("probity-lens-binding/v1 {v1}"),
                };
                LensBinding {
                    lens: *lens,
                    order: i + 1,
                    finding_id_prefix: lens.prefix(),
                    token: crate::review::submission::binding_token(&binding),
                    binding,
                }
            })
            .collect()
    }

    /// Capture preflight (R2.11): before a lens runs, confirm that its
    /// result will have somewhere legal to land: the lineage is still
    /// waiting for lens results, the lens is selected, and (when given) the
    /// orchestrator's binding is exactly the one start prepared.
    pub fn preflight(
        &self,
        lens: Lens,
        binding: Option<&str>,
    ) -> Result<LensBinding, PreflightError> {
        if self.stage != Stage::Reviewing {
            return Err(PreflightError::NotAwaitingResults {
                state: self.stage.name(),
            });
        }
        let prepared = self
            .lens_bindings()
            .into_iter()
            .find(|b| b.lens == lens)
            .ok_or(PreflightError::NotSelected { lens: lens.name() })?;
        match binding {
            Some(b) if !crate::review::submission::binding_proves(&prepared.binding, b) => {
                Err(PreflightError::BindingMismatch {
                    lineage: self.lineage_id.to_string(),
                    lens: lens.name(),
                    expected_token: prepared.token,
                })
            }
            _ => Ok(prepared),
        }
    }

    /// Invalidates a pristine `reviewing` lineage (R9.1): no results,
    /// findings, refuter outcomes, forecast, fix or evidence yet. The
    /// snapshot and the reason stay. An exact retry returns the same state.
    pub fn invalidate(&self, reason: NonBlank) -> Result<ReviewState, TransitionError> {
        match &self.stage {
            Stage::Reviewing => {
                let next = self.with_stage(Stage::Invalidated { reason })?;
                check_successor(self, &next)?;
                Ok(next)
            }
            Stage::Invalidated { reason: had } if *had == reason => Ok(self.clone()),
            Stage::Invalidated { .. } => Err(self.different_retry("an invalidation reason")),
            Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. }
            | Stage::Approved { .. }
            | Stage::Escalated { .. } => Err(self.wrong_stage(
                "invalidation (only a pristine `reviewing` lineage, before any lens result, can be invalidated)",
            )),
        }
    }

    /// The next legal input as a sentence for people, its commands naming
    /// this lineage.
    /// A final state takes no more input, but still has a next step: an
    /// approval is delivered, an escalation or an invalidation recovered
    /// (R9) with an audited successor. Without the record's revision the
    /// recovery is named by the `probity status` that prints it in full;
    /// [`crate::review::recovery::next_sentence`] names the command itself.
    pub fn next_sentence(&self) -> String {
        self.next_sentence_recovering(None, &[])
    }

    /// [`Self::next_sentence`], with `recover` the exact `probity recover`
    /// command (every value the tool knows filled in) a final state names,
    /// and `kept` the lenses whose results `lens submit` kept
    /// ([`Self::next_action_kept`]).
    pub fn next_sentence_recovering(&self, recover: Option<&str>, kept: &[Lens]) -> String {
        let lineage = &self.lineage_id;
        let disposition = if self.stage.is_invalidated() {
            "invalidated"
        } else {
            "escalation_authorized"
        };
        let recover = recover.map_or_else(
            || {
                format!(
                    "the `probity recover` command (disposition `{disposition}`) that `probity status --lineage {lineage}` prints with this lineage's revision"
                )
            },
            |cmd| format!("`{cmd}` ({PERSON_VALUES})"),
        );
        match &self.stage {
            Stage::Approved { .. } => "deliver exactly the reviewed candidate: commit it if it is not committed yet, then push with `probity push <remote>` (it also publishes the review for a server-side gate); `probity validate --gate pre-commit` or `--gate pre-push` checks the delivery first".to_string(),
            Stage::Escalated {
                reason: Escalation::EvidenceFailed { .. },
                ..
            } => format!(
                "the independent check failed, so this review escalated, and a person decides how it goes on (a new `probity start` over these paths is refused: it would open a fresh budget without them): fix the candidate (or leave it, if the failure is not the change's, a flaky check), then, with their authorization, {recover} reviews the live candidate as the audited successor"
            ),
            Stage::Escalated {
                reason: Escalation::RiskRaisedByCorrection,
                ..
            } => format!(
                "the correction made the change a higher risk tier than its review ran at (more lenses, and under a policy more signatures), so no approval covers it: a person decides, and with their authorization {recover} reviews the corrected candidate at its own tier as the audited successor"
            ),
            Stage::Escalated { .. } => format!(
                "a person decides: with their authorization, {recover} reviews the live candidate as the audited successor"
            ),
            Stage::Invalidated { .. } => format!(
                "review the candidate again with `probity start`, or record the successor of this lineage with {recover}"
            ),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. } => self
                .next_action_kept(kept)
                .sentence(lineage, &self.frozen.selected_lenses),
        }
    }

    /// [`Self::next_action`], knowing which lens results `lens submit`
    /// kept: a lineage awaiting its lens results that has one kept for
    /// every selected lens next takes `finalize` ([`NextInput::Finalize`]).
    pub fn next_action_kept(&self, kept: &[Lens]) -> NextInput {
        let next = self.next_action();
        let all_kept = self.frozen.selected_lenses.iter().all(|l| kept.contains(l));
        if next == NextInput::RunLenses && all_kept {
            NextInput::Finalize
        } else {
            next
        }
    }

    /// The next legal input for this state, as a routing token.
    pub fn next_action(&self) -> NextInput {
        match &self.stage {
            Stage::AwaitingRefuter { .. } => NextInput::ProvideRefuter,
            Stage::Reviewing if self.frozen.selected_lenses.is_empty() => {
                NextInput::ProvideEvidence
            }
            Stage::Reviewing => NextInput::RunLenses,
            Stage::Correcting { .. } => NextInput::ProvideValidation,
            Stage::CorrectionRequired { .. } => NextInput::ForecastCorrection,
            Stage::Validating { .. } => NextInput::ProvideEvidence,
            Stage::Approved { .. } | Stage::Escalated { .. } | Stage::Invalidated { .. } => {
                NextInput::None
            }
        }
    }
}

/// Why a lens result would have nowhere legal to land.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreflightError {
    /// The lineage is past the lens results (or invalidated).
    #[error("the lineage is `{state}`: it no longer accepts lens results")]
    NotAwaitingResults {
        /// Its stage's wire name.
        state: &'static str,
    },
    /// The lens is not among the lineage's selected lenses.
    #[error("lens `{lens}` is not selected for this lineage")]
    NotSelected {
        /// The lens named.
        lens: &'static str,
    },
    /// The orchestrator's binding is not the one start prepared.
    #[error(
        "the binding differs from the one start prepared for lens `{lens}` of lineage {lineage} (expected that binding or its token {expected_token}): the result was prepared for another lineage, candidate or lens"
    )]
    BindingMismatch {
        /// The lineage.
        lineage: String,
        /// The lens.
        lens: &'static str,
        /// The token of the binding start prepared.
        expected_token: String,
    },
}

impl PreflightError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            PreflightError::BindingMismatch { .. } => {
                (ErrorClass::RejectedInput, "binding_mismatch")
            }
            PreflightError::NotSelected { .. } => {
                (ErrorClass::RejectedInput, "result_not_selected")
            }
            PreflightError::NotAwaitingResults { .. } => {
                (ErrorClass::RejectedInput, "not_awaiting_results")
            }
        }
    }
}

/// The next legal input, named for orchestrators (`action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextInput {
    /// Run each selected lens once, then `finalize --result ...`.
    RunLenses,
    /// Every selected lens result is kept (`lens submit`): `finalize
    /// --lineage L` takes them (issue 26 §2).
    Finalize,
    /// Run the single refuter batch, then `finalize --refuter F`.
    ProvideRefuter,
    /// `finalize --correction-lines N` before editing.
    ForecastCorrection,
    /// Edit, then `finalize --validation F` with the targeted validator.
    ProvideValidation,
    /// `finalize --evidence F` with independent evidence.
    ProvideEvidence,
    /// Terminal: nothing more.
    None,
}

impl NextInput {
    /// A sentence for people.
    pub fn sentence(self, lineage: &LineageId, lenses: &[Lens]) -> String {
        // Every command names the lineage: a review of committed work is
        // not the live candidate's, so discovery alone would not find it.
        match self {
            NextInput::RunLenses => {
                // Every value the tool knows is printed (issue 26 §1): the
                // lens names; `F` is each result's file, a person's value.
                let submits = lenses
                    .iter()
                    .map(|l| {
                        format!(
                            "`probity lens submit --lineage {lineage} --lens {} F`",
                            l.name()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let results = lenses
                    .iter()
                    .map(|l| format!(" --result {}=F", l.name()))
                    .collect::<String>();
                format!(
                    "run each selected lens once ({}), submit each result with {submits} (F: that lens's result file), then `probity finalize --lineage {lineage}` (or in one call `probity finalize --lineage {lineage}{results}`)",
                    lenses
                        .iter()
                        .map(|l| l.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            NextInput::Finalize => format!(
                "every selected lens result is kept: `probity finalize --lineage {lineage}` takes them"
            ),
            NextInput::ProvideRefuter => format!(
                "run the refuter once over the inferential severe findings, then `probity finalize --lineage {lineage} --refuter F` (F: the refuter's batch file)"
            ),
            NextInput::ForecastCorrection => format!(
                "before editing, forecast the correction size: `probity finalize --lineage {lineage} --correction-lines N`"
            ),
            NextInput::ProvideValidation => format!(
                "fix the admitted findings inside the genesis paths, run the targeted validator, then `probity finalize --lineage {lineage} --validation F` (F: the validator's result file)"
            ),
            NextInput::ProvideEvidence => format!(
                "run the independent check through Probity: `probity finalize --lineage {lineage} --evidence-cmd -- ARGV...` (ARGV: the check's program and arguments; or give its output: `probity finalize --lineage {lineage} --evidence F`)"
            ),
            NextInput::None => "nothing: the review is final".into(),
        }
    }
}
