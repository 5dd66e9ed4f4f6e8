//! Reports people read (issue 22 §4): a lineage's review as Markdown for a
//! pull-request comment or a CI job summary, its findings as SARIF 2.1.0
//! for code-scanning views, and its recovery chain as a timeline
//! (`probity log`). Every word and byte is decided here from plain
//! inputs; the caller only gathers them (the chain's records, the commit
//! that holds each change, the kept check, the signing keys) and writes
//! the result.
//!
//! Text that came from a reviewer (a claim, a location, a reason) is
//! escaped before it reaches Markdown: no HTML, no link, no table break
//! and no `@mention` can be smuggled into a comment through a finding.

use serde::Serialize;
use serde_json::{Value, json};

use crate::digest::Sha256Digest;
use crate::review::finding::{Finding, Route, Severity};
use crate::review::ids::{CommitId, LineageId, Timestamp, TreeId};
use crate::review::listing::collapse_paths;
use crate::review::recovery::next_sentence_kept;
use crate::review::state::{Stage, StateRecord};

/// The SARIF version written.
pub(crate) const SARIF_VERSION: &str = "2.1.0";

/// The SARIF 2.1.0 schema URI the document names.
pub(crate) const SARIF_SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The check `finalize --evidence-cmd` ran for a lineage, as the store
/// kept it beside the authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckSummary {
    /// The check's argument vector.
    pub argv: Vec<String>,
    /// The tree it ran on.
    pub tree: TreeId,
    /// How it ended, as a sentence (`exit status 0`).
    pub exit: String,
    /// Whether it passed.
    pub passed: bool,
    /// The evidence hash the lineage recorded for it.
    pub evidence_hash: Sha256Digest,
}

impl CheckSummary {
    /// The check a `probity.review-bundle/v2` carries for a record (its
    /// command evidence document, D-R69): argv, tree, how it ended and the
    /// evidence hash; `None` for a v1 document (no tree) or one without
    /// canonical bytes.
    pub fn of_document(
        doc: &crate::review::evidence::CommandEvidenceDocument,
    ) -> Option<CheckSummary> {
        let tree = doc.tree.clone()?;
        let exit = match (doc.exit_code, doc.signal) {
            (Some(c), _) => crate::review::evidence::ExitOutcome::Code(c),
            (None, Some(s)) => crate::review::evidence::ExitOutcome::Signal(s),
            (None, None) => return None,
        };
        Some(CheckSummary {
            argv: doc.argv.clone(),
            tree,
            exit: exit.to_string(),
            passed: doc.passed(),
            evidence_hash: doc.evidence_hash().ok()?,
        })
    }
}

/// One generation of a chain with what the repository and the store say
/// beside its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainEntry {
    /// The record, as the store holds it.
    pub record: StateRecord,
    /// The commit whose change it reviewed, when one in the recent history
    /// holds it (reported as delivered for an approved record only).
    pub commit: Option<CommitId>,
    /// The check `--evidence-cmd` ran for it, when one landed.
    pub check: Option<CheckSummary>,
    /// The `keyid` of every signature over its receipt the store keeps.
    pub signers: Vec<String>,
}

/// Why a report cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    /// The chain does not hold the lineage asked about.
    #[error("the recovery chain given does not hold lineage {0}")]
    NotInChain(LineageId),
}

/// A lineage and its recovery chain (generation 1 first), ready to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    subject: usize,
    chain: Vec<ChainEntry>,
}

impl Report {
    /// The report on `subject`, one lineage of `chain` (generation 1 first,
    /// as `bundle export` gathers it).
    pub fn new(subject: &LineageId, chain: Vec<ChainEntry>) -> Result<Report, ReportError> {
        let at = chain
            .iter()
            .position(|e| e.record.state().lineage_id() == subject)
            .ok_or_else(|| ReportError::NotInChain(subject.clone()))?;
        Ok(Report { subject: at, chain })
    }

    fn entry(&self) -> &ChainEntry {
        &self.chain[self.subject]
    }

    /// The lineage of the chain that supersedes the subject (its leaf),
    /// when the subject is not the leaf.
    fn superseded_by(&self) -> Option<&LineageId> {
        (self.subject + 1 < self.chain.len())
            .then(|| self.chain.last().map(|e| e.record.state().lineage_id()))
            .flatten()
    }

    /// The lineage reported on.
    pub fn lineage_id(&self) -> &LineageId {
        self.entry().record.state().lineage_id()
    }

    /// The verdict as a wire word: the state name, or `superseded`.
    pub fn verdict(&self) -> &'static str {
        if self.superseded_by().is_some() {
            "superseded"
        } else {
            self.entry().record.state().stage().name()
        }
    }

    /// The Markdown report: verdict, risk and why, lenses, findings with
    /// their routes, the check and its outcome, signatures, the recovery
    /// chain and the commits delivered. Ends with one line feed.
    pub fn markdown(&self) -> String {
        let e = self.entry();
        let s = e.record.state();
        let f = s.frozen();
        let mut m = String::new();
        m.push_str(&format!(
            "## Probity review: {} {}\n\n",
            icon(self.verdict()),
            self.verdict()
        ));
        m.push_str(&format!(
            "`{}`, generation {}, started {}\n\n",
            s.lineage_id(),
            s.generation(),
            s.created_at()
        ));
        m.push_str(&format!("**Verdict:** {}\n\n", self.verdict_sentence()));
        let reasons: Vec<String> = f
            .risk_reasons
            .iter()
            .map(|r| format!("`{}`", code(&r.to_string())))
            .collect();
        m.push_str(&format!(
            "**Risk:** {} ({})\n\n",
            f.risk_level.name(),
            if reasons.is_empty() {
                "no reason recorded".to_string()
            } else {
                reasons.join(", ")
            }
        ));
        m.push_str(&format!(
            "**Scope:** {} path(s): {}; {} authored line(s), correction budget {} line(s)\n\n",
            f.changed_files,
            text(&collapse_paths(&s.snapshot().paths)),
            f.authored_lines,
            f.correction_budget
        ));
        let lenses: Vec<&str> = f.selected_lenses.iter().map(|l| l.name()).collect();
        m.push_str(&format!(
            "**Lenses:** {}\n\n",
            if lenses.is_empty() {
                "none (low risk: no lens runs)".to_string()
            } else {
                lenses.join(", ")
            }
        ));
        m.push_str("### Findings\n\n");
        match s.stage().judgment() {
            None => m.push_str("No lens result accepted yet.\n\n"),
            Some(j) if j.findings().next().is_none() => {
                m.push_str("No findings: every lens reported none.\n\n")
            }
            Some(j) => {
                m.push_str("| ID | Severity | Location | Route | Claim |\n");
                m.push_str("|---|---|---|---|---|\n");
                for (finding, route) in j.routed() {
                    m.push_str(&format!(
                        "| {} | {} | `{}` | {} | {} |\n",
                        finding.id,
                        finding.severity.name(),
                        code(finding.location.as_str()),
                        route.name(),
                        text(finding.claim.as_str())
                    ));
                }
                m.push('\n');
                for d in &j.disputes {
                    m.push_str(&format!(
                        "- {} disputed by {} ({}, authorized: {}): {}\n",
                        d.finding_id,
                        text(d.actor.as_str()),
                        d.disputed_at,
                        text(d.authorization.as_str()),
                        text(d.reason.as_str())
                    ));
                }
                if !j.disputes.is_empty() {
                    m.push('\n');
                }
            }
        }
        if let Some(c) = s.stage().correction() {
            m.push_str(&format!(
                "**Correction:** charged {} of {} line(s), {} attempt(s), {} failed\n\n",
                c.charged_lines(),
                f.correction_budget,
                c.attempts.len(),
                c.failed_attempts()
            ));
        }
        m.push_str("### Check\n\n");
        m.push_str(&self.check_markdown());
        m.push_str("### Signatures\n\n");
        let signed: Vec<String> = self
            .chain
            .iter()
            .flat_map(|e| {
                e.signers.iter().map(move |k| {
                    format!(
                        "- `{}` signed `{}`\n",
                        code(k),
                        e.record.state().lineage_id()
                    )
                })
            })
            .collect();
        if signed.is_empty() {
            m.push_str("None: no signed attestation is kept for this chain.\n\n");
        } else {
            m.push_str(&signed.concat());
            m.push('\n');
        }
        m.push_str("### Recovery chain\n\n");
        for (i, c) in self.chain.iter().enumerate() {
            let cs = c.record.state();
            let this = if i == self.subject {
                " (this report)"
            } else {
                ""
            };
            m.push_str(&format!(
                "{}. `{}` generation {}: {}{this}",
                i + 1,
                cs.lineage_id(),
                cs.generation(),
                state_phrase(&c.record)
            ));
            if let Some(p) = cs.predecessor() {
                m.push_str(&format!(
                    "; follows `{}` ({}) by {}{}: {}",
                    p.lineage_id,
                    p.disposition.name(),
                    text(p.actor.as_str()),
                    p.authorization
                        .as_ref()
                        .map(|a| format!(", authorized: {}", text(a.as_str())))
                        .unwrap_or_default(),
                    text(p.reason.as_str())
                ));
            }
            if let (Some(commit), Stage::Approved { .. }) = (&c.commit, cs.stage()) {
                m.push_str(&format!("; delivered in commit `{commit}`"));
            }
            m.push('\n');
        }
        m.push('\n');
        m.push_str(&format!(
            "**Next:** {}\n",
            next_sentence_kept(&e.record, &[], self.superseded_by())
        ));
        m
    }

    fn verdict_sentence(&self) -> String {
        let e = self.entry();
        if let Some(leaf) = self.superseded_by() {
            return format!(
                "{} was superseded by `{leaf}`: history, not authority",
                e.record.state().stage().name()
            );
        }
        let s = e.record.state();
        match s.stage() {
            Stage::Approved { .. } => format!(
                "approved: the review stands for tree `{}`",
                s.final_candidate_tree()
            ),
            Stage::Escalated { reason, .. } => format!(
                "escalated, `{}`: {}; a human decides",
                reason.reason().name(),
                reason.reason().explain()
            ),
            Stage::Invalidated { reason } => {
                format!("invalidated before any judgment: {}", text(reason.as_str()))
            }
            Stage::Reviewing | Stage::AwaitingRefuter { .. } => {
                "under review: no authority yet".to_string()
            }
            Stage::CorrectionRequired { .. } | Stage::Correcting { .. } => {
                "correction required: candidate-caused blockers must be fixed".to_string()
            }
            Stage::Validating { .. } => {
                "reviewed; the independent check has not passed yet".to_string()
            }
        }
    }

    fn check_markdown(&self) -> String {
        let e = self.entry();
        let s = e.record.state();
        match (&e.check, s.stage()) {
            (Some(c), _) => format!(
                "`{}` on tree `{}`: {} ({})  \nevidence `{}`\n\n",
                code(&c.argv.join(" ")),
                c.tree,
                text(&c.exit),
                if c.passed { "passed" } else { "failed" },
                c.evidence_hash
            ),
            (None, Stage::Approved { evidence_hash, .. }) => format!(
                "Evidence accepted (`{evidence_hash}`); no `--evidence-cmd` output is kept in this store.\n\n"
            ),
            (None, Stage::Escalated { reason, .. }) => match reason.evidence_hash() {
                Some(h) => format!(
                    "The check failed (`{h}`); no `--evidence-cmd` output is kept in this store.\n\n"
                ),
                None => "No check ran: the review escalated before evidence.\n\n".to_string(),
            },
            (None, _) => "No check has run yet.\n\n".to_string(),
        }
    }

    /// The subject's findings as one SARIF 2.1.0 log: one rule per
    /// selected lens, one result per finding with its route, severity and
    /// location; refuted and disputed findings carry an accepted
    /// suppression. `tool_version` names the Probity that wrote it.
    pub fn sarif(&self, tool_version: &str) -> Value {
        sarif_log(&[self], tool_version)
    }

    fn sarif_run(&self, tool_version: &str) -> Value {
        let s = self.entry().record.state();
        let lenses = &s.frozen().selected_lenses;
        let rules: Vec<Value> = lenses
            .iter()
            .map(|l| {
                json!({
                    "id": rule_id(l.name()),
                    "name": l.name(),
                    "shortDescription": {"text": format!("Probity's {} lens", l.name())},
                })
            })
            .collect();
        let results: Vec<Value> = s
            .stage()
            .judgment()
            .map(|j| {
                j.results
                    .iter()
                    .flat_map(|r| r.findings.iter().map(move |f| (r.lens, f)))
                    .map(|(lens, f)| {
                        let index = lenses.iter().position(|l| *l == lens);
                        sarif_result(s.lineage_id(), lens.name(), index, f, j.route_of(f))
                    })
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "tool": {"driver": {
                "name": "probity",
                "version": tool_version,
                "rules": rules,
            }},
            "automationDetails": {"id": format!("probity/{}/", s.lineage_id())},
            "results": results,
            "properties": {
                "lineage_id": s.lineage_id(),
                "generation": s.generation(),
                "state": self.verdict(),
                "risk_level": s.frozen().risk_level.name(),
            },
        })
    }

    /// The chain's history, generation 1 first: each start (and the
    /// recovery that made it), the judgment, the refuter's batch, the
    /// disputes, the correction attempts, the end, the signatures and the
    /// commit delivered.
    pub fn timeline(&self) -> Vec<LogEvent> {
        let mut out = Vec::new();
        for c in &self.chain {
            events_of(c, &mut out);
        }
        out
    }

    /// [`Report::timeline`] as text: one block per generation, one line
    /// per event. Ends with one line feed.
    pub fn timeline_text(&self) -> String {
        let mut t = String::new();
        let mut current: Option<&LineageId> = None;
        let events = self.timeline();
        for ev in &events {
            if current != Some(&ev.lineage_id) {
                let marker = if self.entry().record.state().lineage_id() == &ev.lineage_id {
                    "  (asked about)"
                } else {
                    ""
                };
                t.push_str(&format!(
                    "{}  generation {}{marker}\n",
                    ev.lineage_id, ev.generation
                ));
                current = Some(&ev.lineage_id);
            }
            let at = ev.at.as_ref().map(|a| format!("{a}  ")).unwrap_or_default();
            let who = match (&ev.actor, &ev.authorization) {
                (Some(a), Some(z)) => format!(" [by {a}, authorized: {z}]"),
                (Some(a), None) => format!(" [by {a}]"),
                (None, _) => String::new(),
            };
            t.push_str(&format!("  {at}{}: {}{who}\n", ev.event, ev.summary));
        }
        t.push_str(&format!(
            "{} generation(s); {} is {}\n",
            self.chain.len(),
            self.entry().record.state().lineage_id(),
            self.verdict()
        ));
        t
    }
}

/// One SARIF 2.1.0 log with one run per report (a range's reviews), in
/// the order given; no report, no run.
pub fn sarif_log(reports: &[&Report], tool_version: &str) -> Value {
    let runs: Vec<Value> = reports.iter().map(|r| r.sarif_run(tool_version)).collect();
    json!({
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": runs,
    })
}

/// What the notes say about one commit of a range: the reports of the
/// bundles its note carries, and the lines that are no bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeReviews {
    /// The commit.
    pub commit: CommitId,
    /// One report per bundle of its note, on the bundle's leaf.
    pub reports: Vec<Report>,
    /// Why a note line gave no report (not a bundle, a bad digest).
    pub refused: Vec<String>,
}

/// The Markdown report of a range (`report --range A..B`), oldest commit
/// first: each commit's reviews as its note carries them. What a note
/// says is shown, not judged: the gate's decision stays the job's result.
pub fn range_markdown(range: &str, commits: &[RangeReviews]) -> String {
    let mut m = format!("# Probity reviews of `{}`\n\n", code(range));
    m.push_str(
        "What `refs/notes/probity` carries for each commit; the gate's decision is the job's result.\n\n",
    );
    if commits.is_empty() {
        m.push_str("The range holds no commit.\n");
        return m;
    }
    for c in commits {
        m.push_str(&format!("---\n\nCommit `{}`\n\n", c.commit));
        if c.reports.is_empty() && c.refused.is_empty() {
            m.push_str("No review bundle in its note.\n\n");
        }
        for r in &c.reports {
            // One level down: the report's heading under the commit.
            m.push('#');
            m.push_str(&r.markdown());
            m.push('\n');
        }
        for why in &c.refused {
            m.push_str(&format!("- a note line gave no report: {}\n", text(why)));
        }
        if !c.refused.is_empty() {
            m.push('\n');
        }
    }
    m
}

/// One event of a lineage's history (`probity log`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEvent {
    /// The lineage the event belongs to.
    pub lineage_id: LineageId,
    /// Its generation.
    pub generation: u32,
    /// What happened: `started`, `recovered`, `judged`, `refuted`,
    /// `disputed`, `correction_attempt`, `forecast_refused`, `approved`,
    /// `escalated`, `invalidated`, `signed`, `delivered`.
    pub event: &'static str,
    /// When, where the record keeps a time (a start, a dispute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
    /// Who decided, where the record names someone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// The maintainer authorization recorded with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<String>,
    /// The event in one sentence.
    pub summary: String,
}

fn events_of(c: &ChainEntry, out: &mut Vec<LogEvent>) {
    let s = c.record.state();
    let f = s.frozen();
    let ev = |event: &'static str, summary: String| LogEvent {
        lineage_id: s.lineage_id().clone(),
        generation: s.generation(),
        event,
        at: None,
        actor: None,
        authorization: None,
        summary,
    };
    if let Some(p) = s.predecessor() {
        out.push(LogEvent {
            actor: Some(p.actor.as_str().to_string()),
            authorization: p.authorization.as_ref().map(|a| a.as_str().to_string()),
            ..ev(
                "recovered",
                format!(
                    "successor of {} ({}): {}",
                    p.lineage_id,
                    p.disposition.name(),
                    p.reason
                ),
            )
        });
    }
    let lenses: Vec<&str> = f.selected_lenses.iter().map(|l| l.name()).collect();
    out.push(LogEvent {
        at: Some(s.created_at().clone()),
        ..ev(
            "started",
            format!(
                "froze {} path(s) ({}), {} authored line(s); risk {}; lenses: {}; budget {} line(s)",
                f.changed_files,
                collapse_paths(&s.snapshot().paths),
                f.authored_lines,
                f.risk_level.name(),
                if lenses.is_empty() {
                    "none".to_string()
                } else {
                    lenses.join(", ")
                },
                f.correction_budget
            ),
        )
    });
    if let Some(j) = s.stage().judgment() {
        let mut counts: Vec<(Route, usize)> = Vec::new();
        for (_, r) in j.routed() {
            match counts.iter_mut().find(|(x, _)| *x == r) {
                Some((_, n)) => *n += 1,
                None => counts.push((r, 1)),
            }
        }
        let n = j.findings().count();
        let routes: Vec<String> = counts
            .iter()
            .map(|(r, k)| format!("{k} {}", r.name()))
            .collect();
        out.push(ev(
            "judged",
            if n == 0 {
                format!("{} lens result(s), no findings", j.results.len())
            } else {
                format!(
                    "{} lens result(s), {n} finding(s): {}",
                    j.results.len(),
                    routes.join(", ")
                )
            },
        ));
        if let Some(r) = &j.refutation {
            let words: Vec<String> = r
                .outcomes
                .iter()
                .map(|o| format!("{} {}", o.finding_id, verdict_name(o.outcome)))
                .collect();
            out.push(ev(
                "refuted",
                format!("refuter batch: {}", words.join(", ")),
            ));
        }
        for d in &j.disputes {
            out.push(LogEvent {
                at: Some(d.disputed_at.clone()),
                actor: Some(d.actor.as_str().to_string()),
                authorization: Some(d.authorization.as_str().to_string()),
                ..ev(
                    "disputed",
                    format!(
                        "{} disputed as a false positive: {}",
                        d.finding_id, d.reason
                    ),
                )
            });
        }
    }
    let mut charged = 0u64;
    if let Some(corr) = s.stage().correction() {
        for (i, a) in corr.attempts.iter().enumerate() {
            charged = charged.saturating_add(a.actual_lines);
            out.push(ev(
                "correction_attempt",
                format!(
                    "attempt {}: forecast {}, measured {} line(s) ({}), {}; charged {charged} of {}",
                    i + 1,
                    a.forecast_lines,
                    a.actual_lines,
                    if a.paths.is_empty() {
                        "no edit".to_string()
                    } else {
                        collapse_paths(&a.paths)
                    },
                    if a.passed() {
                        "validation passed"
                    } else {
                        "validation failed"
                    },
                    f.correction_budget
                ),
            ));
        }
    }
    match s.stage() {
        Stage::Approved { evidence_hash, .. } => out.push(ev(
            "approved",
            match &c.check {
                Some(k) => format!(
                    "check `{}` {} on tree {} (evidence {evidence_hash})",
                    k.argv.join(" "),
                    k.exit,
                    k.tree
                ),
                None => format!("evidence accepted ({evidence_hash})"),
            },
        )),
        Stage::Escalated { reason, .. } => {
            if let Some(forecast) = s.stage().forecast() {
                out.push(ev(
                    "forecast_refused",
                    format!(
                        "forecast {forecast} line(s) with {charged} charged exceeds the budget of {}",
                        f.correction_budget
                    ),
                ));
            }
            out.push(ev(
                "escalated",
                format!("{}: {}", reason.reason().name(), reason.reason().explain()),
            ))
        }
        Stage::Invalidated { reason } => out.push(ev("invalidated", reason.as_str().to_string())),
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. } => {}
    }
    for k in &c.signers {
        out.push(ev("signed", format!("receipt signed by key {k}")));
    }
    if let (Some(commit), Stage::Approved { .. }) = (&c.commit, s.stage()) {
        out.push(ev(
            "delivered",
            format!("commit {commit} holds the reviewed change"),
        ));
    }
}

fn verdict_name(v: crate::review::finding::RefuterVerdict) -> &'static str {
    use crate::review::finding::RefuterVerdict;
    match v {
        RefuterVerdict::Corroborated => "corroborated",
        RefuterVerdict::Refuted => "refuted",
        RefuterVerdict::Inconclusive => "inconclusive",
    }
}

fn state_phrase(record: &StateRecord) -> String {
    let stage = record.state().stage();
    match stage.escalation() {
        Some(e) => format!("escalated (`{}`)", e.reason().name()),
        None => stage.name().to_string(),
    }
}

fn icon(verdict: &str) -> &'static str {
    match verdict {
        "approved" => "✅",
        "escalated" => "⛔",
        "invalidated" | "superseded" => "⚪",
        _ => "⏳",
    }
}

fn rule_id(lens: &str) -> String {
    format!("probity/{lens}")
}

fn sarif_result(
    lineage: &LineageId,
    lens: &str,
    rule_index: Option<usize>,
    f: &Finding,
    route: Route,
) -> Value {
    let (uri, region) = split_location(f.location.as_str());
    let mut physical = json!({"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}});
    if let Some((start, end)) = region {
        physical["region"] = json!({"startLine": start, "endLine": end});
    }
    let level = match f.severity {
        Severity::Blocker | Severity::Critical => "error",
        Severity::Warning => "warning",
        Severity::Suggestion => "note",
    };
    let mut result = json!({
        "ruleId": rule_id(lens),
        "level": level,
        "message": {"text": format!("{} ({}, route {})", f.claim, f.severity.name(), route.name())},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {"probityFinding/v1": format!("{lineage}/{}", f.id)},
        "properties": {
            "finding_id": f.id.to_string(),
            "severity": f.severity.name(),
            "route": route.name(),
            "location": f.location.as_str(),
            "proof_refs": f.proof_refs.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        },
    });
    if let Some(i) = rule_index {
        result["ruleIndex"] = json!(i);
    }
    let justification = match route {
        Route::Refuted => Some("the refuter refuted it; the finding is kept with its outcome"),
        Route::Disputed => Some("a maintainer disputed it as a false positive, with evidence"),
        Route::Correction | Route::FollowUp | Route::Escalation | Route::Info | Route::Refuter => {
            None
        }
    };
    if let Some(j) = justification {
        result["suppressions"] =
            json!([{"kind": "external", "status": "accepted", "justification": j}]);
    }
    result
}

/// A reviewer's `path:line` or `path:start-end` as a relative URI and a
/// line region; anything else names its whole text as the artifact, no
/// region.
pub(crate) fn split_location(location: &str) -> (String, Option<(u64, u64)>) {
    let parsed = location.rsplit_once(':').and_then(|(path, lines)| {
        let (a, b) = lines.split_once('-').unwrap_or((lines, lines));
        let line = |s: &str| {
            (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
                .then(|| s.parse::<u64>().ok())
                .flatten()
                .filter(|n| *n >= 1)
        };
        match (line(a), line(b)) {
            (Some(a), Some(b)) if a <= b && !path.is_empty() => Some((path, (a, b))),
            _ => None,
        }
    });
    match parsed {
        Some((path, region)) => (uri_of(path), Some(region)),
        None => (uri_of(location), None),
    }
}

/// A path as a URI reference: unreserved bytes and `/` kept, every other
/// byte percent-encoded.
fn uri_of(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Reviewer text for Markdown prose or a table cell: one line, HTML
/// special characters as entities, Markdown's punctuation escaped, and
/// `@` broken so no mention pings anyone.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '@' => out.push_str("&#64;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a Markdown code span: one line, no backtick (it would end
/// the span) and no `|` (a table cell would break even inside one).
fn code(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '`' => '\'',
            '|' => '¦',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_split_into_a_uri_and_a_region() {
        assert_eq!(
            split_location("src/a.rs:14"),
            ("src/a.rs".into(), Some((14, 14)))
        );
        assert_eq!(
            split_location("src/a b.rs:3-9"),
            ("src/a%20b.rs".into(), Some((3, 9)))
        );
        assert_eq!(
            split_location("src/a.rs:9-3"),
            ("src/a.rs%3A9-3".into(), None)
        );
        assert_eq!(split_location("src/a.rs:0"), ("src/a.rs%3A0".into(), None));
        assert_eq!(
            split_location("the whole change"),
            ("the%20whole%20change".into(), None)
        );
    }

    #[test]
    fn reviewer_text_cannot_inject_markdown_or_html() {
        let t = text("<img src=x onerror=alert(1)> | [link](http://x) @admin `x`\nnext");
        assert!(!t.contains('<') && !t.contains('\n'));
        assert!(!t.contains(" | ") && !t.contains('@'));
        assert!(t.contains("\\[link\\]\\(http://x\\)"));
        assert_eq!(code("a`b|c\n"), "a'b¦c ");
    }

    #[test]
    fn a_report_needs_its_lineage_in_the_chain() {
        let other = LineageId::parse("review-0000000000000000").unwrap();
        assert_eq!(
            Report::new(&other, Vec::new()).unwrap_err(),
            ReportError::NotInChain(other)
        );
    }
}
