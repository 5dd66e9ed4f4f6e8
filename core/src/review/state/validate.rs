//! [`ReviewState::validate`]: every derivable field checked against what it
//! derives from (R7.3), by stage, judgment and correction ledger. A state
//! that exists has passed it (the wire form runs it before any state is
//! made).

use super::*;

impl ReviewState {
    /// Checks every derivable field against what it derives from (R7.3).
    pub fn validate(&self) -> Result<(), StateError> {
        self.snapshot.check()?;
        let f = &self.frozen;
        RiskAssessment::new(f.risk_level, f.risk_reasons.clone())?;
        // A built-in policy (v1, v2 or v3), and reasons it can give: a v1
        // state explains a medium tier by `code_change` alone.
        let Some(policy) = RiskPolicy::builtin(&f.policy_hash) else {
            return Err(StateError::UnsupportedPolicy(f.policy_hash));
        };
        if !f.risk_reasons.iter().all(|r| policy.gives(r)) {
            return Err(StateError::Risk(UnexplainedRisk {
                level: f.risk_level.name(),
                reasons: f.risk_reasons.iter().map(ToString::to_string).collect(),
            }));
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
        if let Some(p) = &f.prompts
            && !p.covers(&f.selected_lenses)
        {
            return Err(StateError::LensSelection {
                level: f.risk_level.name(),
                lenses: p.lenses.iter().map(|l| l.lens.name()).collect(),
            });
        }
        let paths = self.snapshot.paths.len() as u64;
        if f.changed_files != paths {
            return Err(StateError::ChangedFiles {
                stored: f.changed_files,
                derived: paths,
            });
        }
        // Generation 1 has no predecessor; every later one has exactly one.
        if self.generation == 0 || (self.generation == 1) != self.predecessor.is_none() {
            return Err(StateError::Generation);
        }
        let lineage = derive_lineage_id_with(
            &self.snapshot.target,
            self.generation,
            &self.created_at,
            &self.nonce,
            self.predecessor.as_ref(),
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
        if let Some(c) = self.stage.correction() {
            self.check_correction(c)?;
        }
        self.check_stage()
    }

    fn check_stage(&self) -> Result<(), StateError> {
        let stage = self.stage.name();
        let bad = |why| Err(StateError::StageFindings { stage, why });
        let budget = self.frozen.correction_budget;
        // The judgment is settled: no escalation and no refuter outcome open.
        let settled = |j: &Judgment| {
            if j.has_route(Route::Escalation) || j.has_route(Route::Refuter) {
                bad("an escalation or a pending refuter outcome is open")
            } else {
                Ok(())
            }
        };
        // Evidence is taken only once the judgment and any correction are
        // settled, whatever it then reports.
        let concluded = |judgment: &Judgment, correction: &Option<Correction>| {
            settled(judgment)?;
            match correction {
                None if judgment.has_route(Route::Correction) => {
                    bad("admitted findings were never corrected")
                }
                None => Ok(()),
                Some(c) => {
                    let ok = judgment.has_route(Route::Correction)
                        && c.attempts.last().is_some_and(Attempt::passed)
                        && c.charged_lines() <= budget;
                    if ok {
                        Ok(())
                    } else {
                        bad("the correction ledger does not end in a passing attempt within budget")
                    }
                }
            }
        };
        // A correction still open: findings to correct, the ledger under
        // its limits, no attempt passed.
        let open = |judgment: &Judgment, c: &Correction, forecast: u64| {
            settled(judgment)?;
            if !judgment.has_route(Route::Correction) {
                return bad("no finding is admitted to correction");
            }
            if c.attempts.iter().any(Attempt::passed)
                || c.failed_attempts() >= MAX_FAILED_ATTEMPTS
                || c.charged_lines().saturating_add(forecast) > budget
            {
                return bad("the ledger requires escalation or validation");
            }
            Ok(())
        };
        match &self.stage {
            Stage::Reviewing | Stage::Invalidated { .. } => Ok(()),
            Stage::AwaitingRefuter { judgment: j } => {
                if j.refutation.is_some() || !j.has_route(Route::Refuter) {
                    return bad("a judged review waits only for the refuter batch");
                }
                Ok(())
            }
            Stage::CorrectionRequired {
                judgment,
                correction,
            } => open(judgment, correction, 0),
            Stage::Correcting {
                judgment,
                correction,
                forecast,
            } => open(judgment, correction, *forecast),
            Stage::Validating {
                judgment,
                correction,
            }
            | Stage::Approved {
                judgment,
                correction,
                ..
            }
            | Stage::Escalated {
                judgment,
                correction,
                reason: Escalation::EvidenceFailed { .. },
            } => concluded(judgment, correction),
            Stage::Escalated {
                judgment,
                correction,
                reason: Escalation::FindingEscalated,
            } => {
                if judgment.has_route(Route::Escalation) && correction.is_none() {
                    Ok(())
                } else {
                    bad("the escalation reason does not hold")
                }
            }
            Stage::Escalated {
                correction,
                reason:
                    reason @ (Escalation::ForecastOverBudget { .. }
                    | Escalation::BudgetExceeded
                    | Escalation::AttemptsExhausted
                    | Escalation::NoEditAttempt
                    | Escalation::RiskRaisedByCorrection),
                ..
            } => {
                let Some(c) = correction else {
                    return bad("a ledger escalation has a ledger");
                };
                let charged = c.charged_lines();
                let ok = match reason {
                    Escalation::ForecastOverBudget { forecast } => {
                        charged.saturating_add(*forecast) > budget
                    }
                    Escalation::BudgetExceeded => charged > budget,
                    Escalation::AttemptsExhausted => {
                        c.failed_attempts() == MAX_FAILED_ATTEMPTS && charged <= budget
                    }
                    Escalation::NoEditAttempt => {
                        c.attempts.last().is_some_and(|a| a.from_tree == a.to_tree)
                    }
                    // The tier is the trees' (a gate re-derives it): the
                    // record shows an attempt that edited, within budget.
                    Escalation::RiskRaisedByCorrection => {
                        charged <= budget
                            && c.attempts.last().is_some_and(|a| a.from_tree != a.to_tree)
                    }
                    // Matched by the arms above.
                    Escalation::FindingEscalated | Escalation::EvidenceFailed { .. } => false,
                };
                if ok {
                    Ok(())
                } else {
                    bad("the escalation reason does not hold")
                }
            }
        }
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
                let downgrade_ok = match f.causal_downgrade {
                    None => true,
                    Some(d) => {
                        f.causal_disposition == Some(CausalDisposition::Unknown)
                            && d.claimed.is_candidate_causal()
                            && f.severity.is_severe()
                    }
                };
                if !canonical_id || route != f.route || !downgrade_ok {
                    return Err(StateError::NonCanonicalFinding(f.id.to_string()));
                }
            }
        }
        if canonical_digest(RESULTS_DOMAIN, &j.results)? != j.results_hash {
            return Err(StateError::ResultsHash);
        }
        // Disputes: each names a distinct finding admitted to correction.
        let mut seen = Vec::new();
        for d in &j.disputes {
            let disputable = j
                .findings()
                .find(|f| f.id == d.finding_id)
                .is_some_and(|f| j.route_before_dispute(f) == Route::Correction);
            if !disputable || seen.contains(&d.finding_id) {
                return Err(StateError::Dispute(d.finding_id.to_string()));
            }
            seen.push(d.finding_id);
        }
        if !j.disputes.is_empty()
            && matches!(self.stage, Stage::Reviewing | Stage::AwaitingRefuter { .. })
        {
            return Err(StateError::Dispute("a judgment still under review".into()));
        }
        if let Some(r) = &j.refutation {
            let pending: Vec<FindingId> = j
                .findings()
                .filter(|f| f.route == Route::Refuter)
                .map(|f| f.id)
                .collect();
            let mut named: Vec<FindingId> = r.outcomes.iter().map(|o| o.finding_id).collect();
            named.sort();
            let before = named.len();
            named.dedup();
            let mut expected = pending.clone();
            expected.sort();
            if named.len() != before
                || named != expected
                || r.outcomes.iter().any(|o| o.evidence.is_empty())
            {
                return Err(StateError::Refutation(format!(
                    "outcomes must name each of {} exactly once, with evidence",
                    pending
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }

    fn check_correction(&self, c: &Correction) -> Result<(), StateError> {
        let mut from = &self.snapshot.candidate_tree;
        let n = c.attempts.len();
        for (i, a) in c.attempts.iter().enumerate() {
            let attempt = i + 1;
            let bad = |why| Err(StateError::Attempt { attempt, why });
            if a.from_tree != *from {
                return bad("does not start from the previous attempt's tree");
            }
            if a.forecast_lines == 0 {
                return bad("has a zero forecast");
            }
            if a.paths.windows(2).any(|w| w[0] >= w[1])
                || a.paths
                    .iter()
                    .any(|p| self.snapshot.paths.binary_search(p).is_err())
            {
                return bad("edits paths outside the genesis paths, or lists them out of order");
            }
            if a.fix_delta_hash != fix_delta_hash(&a.from_tree, &a.to_tree, &a.paths) {
                return bad("fix_delta_hash does not match its trees and paths");
            }
            let no_edit = a.from_tree == a.to_tree;
            if no_edit != a.validation.is_none()
                || (no_edit && (a.actual_lines != 0 || !a.paths.is_empty()))
            {
                return bad("an attempt without an edit must have no validation, lines or paths");
            }
            if attempt < n && a.validation.as_ref().is_none_or(ValidationRecord::passed) {
                return bad("only the last attempt may pass or lack an edit");
            }
            from = &a.to_tree;
        }
        if n > MAX_FAILED_ATTEMPTS {
            return Err(StateError::Attempt {
                attempt: n,
                why: "is more than the lineage allows",
            });
        }
        if self.stage.forecast() == Some(0) {
            return Err(StateError::Attempt {
                attempt: n + 1,
                why: "has a zero forecast",
            });
        }
        Ok(())
    }
}
