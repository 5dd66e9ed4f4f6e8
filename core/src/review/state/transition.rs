//! Every legal transition of a [`ReviewState`] as a pure function, and
//! [`check_successor`], the edge check every stored successor passes.

use super::*;

impl ReviewState {
    pub(super) fn wrong_stage(&self, what: &'static str) -> TransitionError {
        TransitionError::WrongStage {
            lineage: self.lineage_id.to_string(),
            state: self.stage.name(),
            what,
        }
    }

    /// A retry of a transition whose `what` differs from the one taken.
    pub(super) fn different_retry(&self, what: &'static str) -> TransitionError {
        TransitionError::DifferentRetry {
            lineage: self.lineage_id.to_string(),
            what,
        }
    }

    pub(super) fn with_stage(&self, stage: Stage) -> Result<ReviewState, TransitionError> {
        let next = ReviewState {
            stage,
            ..self.clone()
        };
        next.validate()?;
        Ok(next)
    }

    /// The genesis paths whose hunks and line counts [`Self::accept_results`]
    /// needs to check causal claims.
    pub fn causal_paths_needed(&self, results: &[ReviewerResult]) -> Vec<RepoPath> {
        crate::review::causality::paths_needed(
            results
                .iter()
                .flat_map(|r| r.findings.iter())
                .map(|f| f.claim()),
            &self.snapshot.paths,
        )
    }

    /// Accepts the lens results in selected order (R4.1–R4.3, R5): IDs by
    /// position, causal claims checked against `facts`, routes assigned. A
    /// retry with the same results on an already-judged lineage returns it
    /// unchanged.
    pub fn accept_results(
        &self,
        results: Vec<ReviewerResult>,
        facts: &CausalFacts,
    ) -> Result<ReviewState, TransitionError> {
        let lenses = &self.frozen.selected_lenses;
        if results.len() != lenses.len() {
            return Err(TransitionError::ResultCount {
                expected: lenses.len(),
                got: results.len(),
                lenses: Lens::names_or(lenses, "none selected"),
            });
        }
        let accepted = lenses
            .iter()
            .zip(results)
            .map(|(lens, r)| AcceptedResult::canonicalize(*lens, r, &self.snapshot.paths, facts))
            .collect::<Result<Vec<_>, IdError>>()
            .map_err(StateError::from)?;
        let judgment = Judgment::new(accepted).map_err(StateError::from)?;
        if let Some(existing) = self.stage.judgment() {
            return if existing.results_hash == judgment.results_hash {
                Ok(self.clone())
            } else {
                Err(self.different_retry("lens results"))
            };
        }
        let stage = if judgment.has_route(Route::Refuter) && !judgment.has_route(Route::Escalation)
        {
            Stage::AwaitingRefuter { judgment }
        } else {
            judgment.settle()
        };
        self.with_stage(stage)
    }

    /// Accepts the single refuter batch (R3.3, R5.3). Outcomes must name
    /// exactly the findings awaiting the refuter.
    pub fn accept_refuter(&self, batch: RefuterResult) -> Result<ReviewState, TransitionError> {
        let Stage::AwaitingRefuter { judgment } = &self.stage else {
            // An exact retry of an accepted batch answers unchanged.
            if let Some(j) = self.stage.judgment()
                && let Some(r) = &j.refutation
            {
                return if r.outcomes == batch.outcomes {
                    Ok(self.clone())
                } else {
                    Err(self.different_retry("refuter outcomes"))
                };
            }
            return Err(self.wrong_stage("a refuter batch"));
        };
        let pending: Vec<FindingId> = judgment
            .findings()
            .filter(|f| f.route == Route::Refuter)
            .map(|f| f.id)
            .collect();
        if let Some(o) = batch
            .outcomes
            .iter()
            .find(|o| !pending.contains(&o.finding_id))
        {
            return Err(TransitionError::RefuterUnknownFinding(
                o.finding_id.to_string(),
            ));
        }
        if let Some(id) = pending
            .iter()
            .find(|id| !batch.outcomes.iter().any(|o| o.finding_id == **id))
        {
            return Err(TransitionError::RefuterMissing(id.to_string()));
        }
        let mut judgment = judgment.clone();
        judgment.refutation = Some(Refutation {
            outcomes: batch.outcomes,
        });
        self.with_stage(judgment.settle())
    }

    /// Accepts a correction forecast before the edit (R6.2): cumulative
    /// lines over budget escalate at once. A [`Forecast`] names at least
    /// one line, so a zero forecast cannot reach a transition.
    pub fn accept_forecast(&self, forecast: Forecast) -> Result<ReviewState, TransitionError> {
        let lines = forecast.lines();
        let Stage::CorrectionRequired {
            judgment,
            correction,
        } = &self.stage
        else {
            // The forecast under way, or the one an escalation refused, is
            // answered unchanged; a different one is not a retry.
            if let Stage::Correcting { forecast, .. } = self.stage
                && forecast != lines
            {
                return Err(self.different_retry("forecast for this attempt"));
            }
            return if self.stage.forecast() == Some(lines) {
                Ok(self.clone())
            } else {
                Err(self.wrong_stage("a correction forecast"))
            };
        };
        let over = correction.charged_lines().saturating_add(lines) > self.frozen.correction_budget;
        let stage = if over {
            Stage::Escalated {
                judgment: judgment.clone(),
                correction: Some(correction.clone()),
                reason: Escalation::ForecastOverBudget { forecast: lines },
            }
        } else {
            Stage::Correcting {
                judgment: judgment.clone(),
                correction: correction.clone(),
                forecast: lines,
            }
        };
        self.with_stage(stage)
    }

    /// Accepts a measured fix and its targeted validation (R6.4–R6.6).
    /// `fix` is what Git measured from the previous tree to the live one.
    pub fn accept_validation(
        &self,
        fix: FixMeasurement,
        validation: ValidatorResult,
    ) -> Result<ReviewState, TransitionError> {
        let Stage::Correcting {
            judgment,
            correction,
            forecast,
        } = &self.stage
        else {
            return Err(self.wrong_stage(
                if matches!(self.stage, Stage::CorrectionRequired { .. }) {
                    "a correction validation before a forecast (`--correction-lines N` first)"
                } else {
                    "a correction validation"
                },
            ));
        };
        let forecast = *forecast;
        if let Some(p) = fix
            .paths
            .iter()
            .find(|p| self.snapshot.paths.binary_search(p).is_err())
        {
            return Err(TransitionError::OutsideGenesis(p.to_string()));
        }
        let from = correction
            .current_tree(&self.snapshot.candidate_tree)
            .clone();
        let mut paths = fix.paths;
        paths.sort();
        paths.dedup();
        let no_edit = from == fix.to_tree;
        let attempt = Attempt {
            forecast_lines: forecast,
            fix_delta_hash: fix_delta_hash(&from, &fix.to_tree, if no_edit { &[] } else { &paths }),
            paths: if no_edit { Vec::new() } else { paths },
            actual_lines: if no_edit { 0 } else { fix.actual_lines },
            validation: (!no_edit).then(|| validation.into()),
            from_tree: from,
            to_tree: fix.to_tree,
        };
        let passed = attempt.passed();
        let mut correction = correction.clone();
        correction.attempts.push(attempt);
        let judgment = judgment.clone();
        let escalate = |reason| Stage::Escalated {
            judgment: judgment.clone(),
            correction: Some(correction.clone()),
            reason,
        };
        let stage = if no_edit {
            escalate(Escalation::NoEditAttempt)
        } else if correction.charged_lines() > self.frozen.correction_budget {
            escalate(Escalation::BudgetExceeded)
        } else if fix.tier.rank() > self.frozen.risk_level.rank() {
            // Its lenses ran and its signatures are asked at the frozen
            // tier: what a correction leaves may not need more (D-R132).
            escalate(Escalation::RiskRaisedByCorrection)
        } else if passed {
            Stage::Validating {
                judgment: judgment.clone(),
                correction: Some(correction.clone()),
            }
        } else if correction.failed_attempts() >= MAX_FAILED_ATTEMPTS {
            escalate(Escalation::AttemptsExhausted)
        } else {
            Stage::CorrectionRequired {
                judgment: judgment.clone(),
                correction: correction.clone(),
            }
        };
        self.with_stage(stage)
    }

    /// Whether a (forecast, validation) pair is an exact retry of the last
    /// recorded attempt: same forecast, same measured tree, same verdict.
    pub fn is_last_attempt(
        &self,
        forecast: Option<Forecast>,
        to_tree: &TreeId,
        validation: &ValidatorResult,
    ) -> bool {
        let Some(c) = self.stage.correction() else {
            return false;
        };
        // With a forecast pending, the next validation is a new attempt
        // (an unchanged tree is then a no-edit attempt, which escalates).
        if self.stage.forecast().is_some() {
            return false;
        }
        let Some(last) = c.attempts.last() else {
            return false;
        };
        let same_verdict =
            last.validation.as_ref() == Some(&ValidationRecord::from(validation.clone()));
        forecast.is_none_or(|n| n.lines() == last.forecast_lines)
            && last.to_tree == *to_tree
            && same_verdict
    }

    /// Records a maintainer's dispute of a finding admitted to correction
    /// as a false positive (R12.6), before any correction attempt: the
    /// finding becomes `disputed` (kept, and listed with the resolved
    /// findings of the receipt); the review stays `correction_required`
    /// while another finding needs correction, and goes to `validating`
    /// once none does. The same dispute again (whatever its time) answers
    /// unchanged.
    pub fn accept_dispute(&self, dispute: Dispute) -> Result<ReviewState, TransitionError> {
        let same = |d: &Dispute| {
            d.finding_id == dispute.finding_id
                && d.evidence_hash == dispute.evidence_hash
                && d.reason == dispute.reason
                && d.actor == dispute.actor
                && d.authorization == dispute.authorization
        };
        if let Some(j) = self.stage.judgment()
            && let Some(d) = j
                .disputes
                .iter()
                .find(|d| d.finding_id == dispute.finding_id)
        {
            return if same(d) {
                Ok(self.clone())
            } else {
                Err(self.different_retry("dispute"))
            };
        }
        let Stage::CorrectionRequired {
            judgment,
            correction,
        } = &self.stage
        else {
            return Err(if matches!(self.stage, Stage::Correcting { .. }) {
                TransitionError::DisputeAfterCorrection {
                    lineage: self.lineage_id.to_string(),
                }
            } else {
                self.wrong_stage("a dispute")
            });
        };
        if !correction.attempts.is_empty() {
            return Err(TransitionError::DisputeAfterCorrection {
                lineage: self.lineage_id.to_string(),
            });
        }
        let route = judgment
            .findings()
            .find(|f| f.id == dispute.finding_id)
            .map(|f| judgment.route_of(f));
        match route {
            Some(Route::Correction) => {}
            Some(r) => {
                return Err(TransitionError::NotDisputable {
                    finding: dispute.finding_id.to_string(),
                    route: r.name(),
                });
            }
            None => {
                return Err(TransitionError::NotDisputable {
                    finding: dispute.finding_id.to_string(),
                    route: "none (no such finding)",
                });
            }
        }
        let mut judgment = judgment.clone();
        judgment.disputes.push(dispute);
        let stage = if judgment.has_route(Route::Correction) {
            Stage::CorrectionRequired {
                judgment,
                correction: correction.clone(),
            }
        } else {
            Stage::Validating {
                judgment,
                correction: None,
            }
        };
        self.with_stage(stage)
    }

    /// Accepts final evidence in `validating` (R4.4): evidence that passed
    /// approves, a command evidence document reporting a failure escalates
    /// (see [`evidence_reading`]). A retry with the same evidence on the
    /// lineage it finished returns it unchanged.
    pub fn accept_evidence(&self, evidence: &[u8]) -> Result<ReviewState, TransitionError> {
        if evidence.is_empty() {
            return Err(TransitionError::EmptyEvidence);
        }
        let reading = evidence_reading(evidence)?;
        self.accept_evidence_reading(Sha256Digest::of(EVIDENCE_DOMAIN, evidence), &reading)
    }

    /// Final evidence as read ([`evidence_reading`], or the document of a
    /// check Probity ran): [`Self::accept_evidence_verdict`], after the
    /// stage's own checks, and only when the evidence names no tree or
    /// names this lineage's final candidate tree (a v2 command evidence
    /// document records the tree its check ran on): evidence about another
    /// tree is [`TransitionError::EvidenceTree`], nothing changed.
    pub fn accept_evidence_reading(
        &self,
        evidence_hash: Sha256Digest,
        reading: &EvidenceReading,
    ) -> Result<ReviewState, TransitionError> {
        let next = self.accept_evidence_verdict(evidence_hash, reading.verdict)?;
        match &reading.tree {
            Some(tree) if tree != self.final_candidate_tree() => {
                Err(TransitionError::EvidenceTree {
                    lineage: self.lineage_id.to_string(),
                    evidence_tree: tree.clone(),
                    final_tree: self.final_candidate_tree().clone(),
                })
            }
            _ => Ok(next),
        }
    }

    /// Whether a check `--evidence-cmd` would run now (`argv`, on this
    /// lineage's final candidate tree) could land, decided before it runs
    /// (issue 26 §7): `validating` takes its verdict; a lineage that took
    /// its final evidence (approved, or escalated on a failed check) takes
    /// only the same evidence again, which a check can give only when
    /// `kept`, the check that gave it, is this one on this tree; any other
    /// run is [`TransitionError::DifferentRetry`] without running (so is
    /// every run when the evidence taken is no kept check's: opaque bytes);
    /// any other stage refuses evidence. Nothing changes.
    pub fn evidence_run_may_land(
        &self,
        kept: Option<&KeptCheck>,
        argv: &[String],
    ) -> Result<(), TransitionError> {
        match self.evidence_slot()? {
            EvidenceSlot::Open { .. } => Ok(()),
            EvidenceSlot::Taken(taken) => {
                let same = kept.is_some_and(|k| {
                    k.evidence_hash == *taken
                        && k.argv == argv
                        && k.tree == *self.final_candidate_tree()
                });
                if same {
                    Ok(())
                } else {
                    Err(self.different_retry("evidence"))
                }
            }
        }
    }

    /// [`Self::accept_evidence`] for opaque evidence an adapter hashed while
    /// streaming it (`Sha256Digest::of(EVIDENCE_DOMAIN, ..)` of non-empty
    /// bytes: the caller refuses empty evidence first).
    pub fn accept_evidence_hash(
        &self,
        evidence_hash: Sha256Digest,
    ) -> Result<ReviewState, TransitionError> {
        self.accept_evidence_verdict(evidence_hash, EvidenceVerdict::Passed)
    }

    /// Final evidence whose verdict the caller read from it
    /// ([`evidence_reading`], or a check it ran, [`command_evidence`]):
    /// `validating → approved` when it passed, `validating → escalated`
    /// (`evidence_failed`, with the hash) when it failed.
    ///
    /// [`command_evidence`]: crate::review::evidence::command_evidence
    pub fn accept_evidence_verdict(
        &self,
        evidence_hash: Sha256Digest,
        verdict: EvidenceVerdict,
    ) -> Result<ReviewState, TransitionError> {
        match self.evidence_slot()? {
            EvidenceSlot::Open {
                judgment,
                correction,
            } => self.with_stage(match verdict {
                EvidenceVerdict::Passed => Stage::Approved {
                    judgment: judgment.clone(),
                    correction: correction.clone(),
                    evidence_hash,
                },
                EvidenceVerdict::Failed => Stage::Escalated {
                    judgment: judgment.clone(),
                    correction: correction.clone(),
                    reason: Escalation::EvidenceFailed { evidence_hash },
                },
            }),
            EvidenceSlot::Taken(accepted) => {
                if *accepted == evidence_hash {
                    Ok(self.clone())
                } else {
                    Err(self.different_retry("evidence"))
                }
            }
        }
    }

    /// Where this lineage stands on final evidence: open in `validating`,
    /// taken once approved or escalated on failed evidence (that evidence's
    /// hash); any other stage refuses evidence.
    fn evidence_slot(&self) -> Result<EvidenceSlot<'_>, TransitionError> {
        match &self.stage {
            Stage::Validating {
                judgment,
                correction,
            } => Ok(EvidenceSlot::Open {
                judgment,
                correction,
            }),
            Stage::Approved {
                evidence_hash: taken,
                ..
            }
            | Stage::Escalated {
                reason:
                    Escalation::EvidenceFailed {
                        evidence_hash: taken,
                    },
                ..
            } => Ok(EvidenceSlot::Taken(taken)),
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Escalated { .. }
            | Stage::Invalidated { .. } => Err(self.wrong_stage("evidence")),
        }
    }
}

/// A lineage's place for final evidence ([`ReviewState::evidence_slot`]).
enum EvidenceSlot<'a> {
    /// `validating`: the evidence decides, over this judgment and ledger.
    Open {
        judgment: &'a Judgment,
        correction: &'a Option<Correction>,
    },
    /// Evidence was taken: only the same evidence again lands.
    Taken(&'a Sha256Digest),
}

/// A checked transition: the successor of a stored record, proved legal by
/// [`check_successor`], with the revision it replaces. Its fields are
/// private and it is made only by [`Transition::check`], so a store's
/// `replace` (which takes only this) can never be handed an unchecked
/// successor by a driver, an adapter or a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    expected: Sha256Digest,
    next: StateRecord,
}

impl Transition {
    /// `next` as the successor of `prev`: legal only when
    /// [`check_successor`] holds.
    ///
    /// ```
    /// # use probity_core::review::ReviewerResult;
    /// # use probity_core::review::{Nonce, RepoPath, Timestamp, TreeId};
    /// # use probity_core::review::Lens;
    /// # use probity_core::review::{RiskPolicy, authored_lines, select_lenses};
    /// # use probity_core::review::{
    /// #     CandidateContent, CandidateObservation, ChangedFile, FileMode, FrozenCandidate, LineCount,
    /// # };
    /// # use probity_core::review::{ReviewState, StartInput};
    /// # let obs = CandidateObservation {
    /// #     base_tree: TreeId::parse("b4ffa93cdbcb161f9005528d69dc3cc646506c3f")?,
    /// #     candidate_tree: TreeId::parse("ea87f48da7c3ea941866d92c1795b7dacf2f4ded")?,
    /// #     unborn_head: false,
    /// #     changed: vec![ChangedFile {
    /// #         path: RepoPath::parse("src/parser.rs")?,
    /// #         old_mode: Some(FileMode::Regular),
    /// #         new_mode: Some(FileMode::Regular),
    /// #         lines: LineCount::Text { added: 3, removed: 1 },
    /// #         text_lines: 4,
    /// #         base_content: CandidateContent::Absent,
    /// #         content: CandidateContent::Bytes { bytes: b"pub fn parse() {}\n".to_vec(), complete: true },
    /// #     }],
    /// #     intended_untracked: vec![],
    /// # };
    /// # let policy = RiskPolicy::newest();
    /// # let lines = authored_lines(policy, &obs.changed);
    /// # let assessment = policy.classify(&obs.changed, lines);
    /// # let lenses = select_lenses(assessment.level(), Lens::Reliability);
    /// # let started = ReviewState::start(StartInput {
    /// #     snapshot: FrozenCandidate::freeze(&obs)?,
    /// #     assessment,
    /// #     lenses: lenses.clone(),
    /// #     authored_lines: lines,
    /// #     created_at: Timestamp::parse("2026-11-29T12:00:00Z")?,
    /// #     nonce: Nonce::parse("00112233445566778899aabbccddeeff")?,
    /// #     prompts: None,
    /// #     policy_hash: RiskPolicy::newest_hash(),
    /// # })?;
    /// use probity_core::review::Transition;
    ///
    /// // `started`: a review as `ReviewState::start` froze it (see the
    /// // crate documentation); its stored record is the first revision.
    /// let stored = started.record()?;
    /// let clean = ReviewerResult::parse(br#"{"findings":[],"evidence":["read the diff"]}"#)?;
    /// let judged = started.accept_results(vec![clean; lenses.len()], &Default::default())?;
    ///
    /// // The judged state is a legal successor: the transition names the
    /// // revision it replaces, which a store compares and swaps.
    /// let t = Transition::check(&stored, judged.clone())?;
    /// assert_eq!(t.expected(), &stored.revision());
    /// assert_eq!(t.next().state(), &judged);
    ///
    /// // Going back is not: the judged record cannot be replaced by the
    /// // state before its judgment.
    /// assert!(Transition::check(t.next(), started).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(prev: &StateRecord, next: ReviewState) -> Result<Transition, TransitionError> {
        check_successor(&prev.state, &next)?;
        Ok(Transition {
            expected: prev.revision,
            next: next.record()?,
        })
    }

    /// The revision the successor replaces (compare-and-swap).
    pub fn expected(&self) -> &Sha256Digest {
        &self.expected
    }

    /// The successor's record.
    pub fn next(&self) -> &StateRecord {
        &self.next
    }

    /// The successor's record, owned.
    pub fn into_next(self) -> StateRecord {
        self.next
    }
}

/// Evidence of `len` bytes may be final evidence only when it is not
/// empty (R4.4): what a driver asks before it reads or hashes more, for
/// evidence it streamed (`EmptyEvidence`, nothing changed).
pub fn check_evidence_len(len: u64) -> Result<(), TransitionError> {
    if len == 0 {
        return Err(TransitionError::EmptyEvidence);
    }
    Ok(())
}

/// A correction forecast: the lines the next attempt expects to change,
/// at least one (issue 25 §8). Only [`Forecast::new`] makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forecast(std::num::NonZeroU64);

impl Forecast {
    /// `lines` as a forecast; zero is `ZeroForecast`.
    pub fn new(lines: u64) -> Result<Forecast, TransitionError> {
        std::num::NonZeroU64::new(lines)
            .map(Forecast)
            .ok_or(TransitionError::ZeroForecast)
    }

    /// The lines forecast.
    pub fn lines(self) -> u64 {
        self.0.get()
    }
}

/// A correction forecast, when one is given, parsed before any input is
/// taken: at least one line (`ZeroForecast`).
pub fn check_forecast(lines: Option<u64>) -> Result<Option<Forecast>, TransitionError> {
    lines.map(Forecast::new).transpose()
}

/// Checks that `next` may follow `prev` (for every transition): `next`
/// valid, frozen fields byte-identical, the edge legal, accepted results
/// and refuter outcomes unchanged, the correction ledger append-only.
pub fn check_successor(prev: &ReviewState, next: &ReviewState) -> Result<(), TransitionError> {
    next.validate()?;
    let frozen = [
        ("lineage_id", prev.lineage_id == next.lineage_id),
        ("generation", prev.generation == next.generation),
        ("created_at", prev.created_at == next.created_at),
        ("nonce", prev.nonce == next.nonce),
        ("snapshot", prev.snapshot == next.snapshot),
        ("predecessor", prev.predecessor == next.predecessor),
        ("frozen", prev.frozen == next.frozen),
    ];
    if let Some((name, _)) = frozen.iter().find(|(_, same)| !same) {
        return Err(TransitionError::FrozenChanged(name));
    }
    if prev == next {
        return Ok(());
    }
    use Stage::*;
    let fresh = |c: &Correction| c.attempts.is_empty();
    // Judgment complete: where accepting results or the refuter batch leads.
    let settled = |n: &Stage| match n {
        CorrectionRequired { correction, .. } => fresh(correction),
        Validating { correction, .. } => correction.is_none(),
        Escalated {
            correction, reason, ..
        } => correction.is_none() && *reason == Escalation::FindingEscalated,
        Reviewing
        | AwaitingRefuter { .. }
        | Correcting { .. }
        | Approved { .. }
        | Invalidated { .. } => false,
    };
    // A dispute (R12.6): before any edit, one more dispute recorded; the
    // ledger untouched, or none once nothing is left to correct.
    let dispute_edge = match &prev.stage {
        CorrectionRequired {
            judgment: ja,
            correction: ca,
        } if fresh(ca) => match &next.stage {
            CorrectionRequired {
                judgment: jb,
                correction: cb,
            } => ca == cb && dispute_step(ja, jb),
            Validating {
                judgment: jb,
                correction,
            } => correction.is_none() && dispute_step(ja, jb),
            Reviewing
            | AwaitingRefuter { .. }
            | Correcting { .. }
            | Approved { .. }
            | Escalated { .. }
            | Invalidated { .. } => false,
        },
        Reviewing
        | AwaitingRefuter { .. }
        | CorrectionRequired { .. }
        | Correcting { .. }
        | Validating { .. }
        | Approved { .. }
        | Escalated { .. }
        | Invalidated { .. } => false,
    };
    // One step of the correction ledger: the forecast given (attempts
    // unchanged), or the forecast's attempt appended.
    let legal = dispute_edge
        || match &prev.stage {
            Reviewing => match &next.stage {
                AwaitingRefuter { judgment } => judgment.refutation.is_none(),
                // The narrow edge (R9.1): only a pristine review is invalidated.
                Invalidated { .. } => true,
                n @ (Reviewing
                | CorrectionRequired { .. }
                | Correcting { .. }
                | Validating { .. }
                | Approved { .. }
                | Escalated { .. }) => settled(n),
            },
            AwaitingRefuter { .. } => settled(&next.stage),
            CorrectionRequired { correction: a, .. } => match &next.stage {
                Correcting { correction: b, .. } => a == b,
                Escalated {
                    correction: Some(b),
                    reason: Escalation::ForecastOverBudget { .. },
                    ..
                } => a == b,
                Reviewing
                | AwaitingRefuter { .. }
                | CorrectionRequired { .. }
                | Validating { .. }
                | Approved { .. }
                | Escalated { .. }
                | Invalidated { .. } => false,
            },
            Correcting {
                correction: a,
                forecast,
                ..
            } => match &next.stage {
                CorrectionRequired { correction: b, .. }
                | Validating {
                    correction: Some(b),
                    ..
                } => appended(a, b, *forecast),
                Escalated {
                    correction: Some(b),
                    reason:
                        Escalation::BudgetExceeded
                        | Escalation::AttemptsExhausted
                        | Escalation::NoEditAttempt
                        | Escalation::RiskRaisedByCorrection,
                    ..
                } => appended(a, b, *forecast),
                Reviewing
                | AwaitingRefuter { .. }
                | Correcting { .. }
                | Validating { .. }
                | Approved { .. }
                | Escalated { .. }
                | Invalidated { .. } => false,
            },
            Validating {
                judgment: ja,
                correction: ca,
            } => match &next.stage {
                Approved {
                    judgment: jb,
                    correction: cb,
                    ..
                }
                | Escalated {
                    judgment: jb,
                    correction: cb,
                    reason: Escalation::EvidenceFailed { .. },
                } => ja == jb && ca == cb,
                Reviewing
                | AwaitingRefuter { .. }
                | CorrectionRequired { .. }
                | Correcting { .. }
                | Validating { .. }
                | Escalated { .. }
                | Invalidated { .. } => false,
            },
            Approved { .. } | Escalated { .. } | Invalidated { .. } => false,
        };
    if !legal {
        return Err(TransitionError::IllegalEdge {
            from: prev.stage.name(),
            to: next.stage.name(),
        });
    }
    if let (Some(a), Some(b)) = (prev.stage.judgment(), next.stage.judgment()) {
        if a.results != b.results || a.results_hash != b.results_hash {
            return Err(TransitionError::FrozenChanged("judgment.results"));
        }
        if a.refutation.is_some() && a.refutation != b.refutation {
            return Err(TransitionError::FrozenChanged("judgment.refutation"));
        }
        if !dispute_edge && a.disputes != b.disputes {
            return Err(TransitionError::FrozenChanged("judgment.disputes"));
        }
    }
    Ok(())
}

/// One dispute appended, nothing else of the judgment changed.
fn dispute_step(a: &Judgment, b: &Judgment) -> bool {
    a.results == b.results
        && a.results_hash == b.results_hash
        && a.refutation == b.refutation
        && b.disputes.len() == a.disputes.len() + 1
        && b.disputes.starts_with(&a.disputes)
}

/// The attempt of a `forecast` appended to the ledger `a`, nothing else
/// changed.
fn appended(a: &Correction, b: &Correction, forecast: u64) -> bool {
    b.attempts.len() == a.attempts.len() + 1
        && b.attempts.starts_with(&a.attempts)
        && b.attempts
            .last()
            .is_some_and(|x| x.forecast_lines == forecast)
}
