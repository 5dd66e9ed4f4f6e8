//! `probity finalize`: judgment into authority (lens results, the refuter
//! batch, a correction's forecast and validation, the final evidence), and
//! the answer it shares with `lens replay`, `dispute` and `review
//! --lineage`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::digest::{DomainSha256, Sha256Digest};
use probity_core::review::CausalDowngrade;
use probity_core::review::Lens;
use probity_core::review::{EVIDENCE_DOMAIN, Escalation, EscalationReason, NextInput, StateRecord};
use probity_core::review::{EVIDENCE_TAIL_BYTES, KeptCheck, MAX_COMMAND_EVIDENCE_BYTES};
use probity_core::review::{FindingId, LineageId, RepoPath};
use probity_core::review::{FixerHandoff, fixer_handoff};
use probity_core::review::{Route, Severity};
use probity_ports::review::{self as drivers, EvidenceInput, FinalizeInput, LensResultInput};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

use super::*;

#[derive(Debug, Args)]
pub struct FinalizeArgs {
    /// The lineage to finalize (default: the one that froze the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
    /// A lens result (strict JSON, see `probity schema reviewer`), named by
    /// its lens: `LENS=FILE` (`FILE` alone only when one lens is selected;
    /// `-` reads stdin). Results kept by `probity lens submit` complete them.
    #[arg(long = "result", value_name = "LENS=FILE")]
    pub results: Vec<String>,
    /// The binding (or its token) the orchestrator prompted a lens with,
    /// `LENS=TOKEN`: refused unless it is this lineage's binding for that
    /// lens (a stale or foreign result is caught before it lands).
    #[arg(long = "binding", value_name = "LENS=TOKEN")]
    pub bindings: Vec<String>,
    /// The single refuter batch (see `probity schema refuter`; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub refuter: Option<PathBuf>,
    /// Forecast of the next correction attempt in lines, given before editing.
    #[arg(long, value_name = "N")]
    pub correction_lines: Option<u64>,
    /// The targeted validator's result after the edit (see `probity schema validator`; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub validation: Option<PathBuf>,
    /// Final evidence from an independent mechanism (any non-empty bytes,
    /// hashed as they stream; `-` for stdin). A command evidence document
    /// (what `--evidence-cmd` records) that reports a failure escalates.
    #[arg(long, value_name = "FILE", conflicts_with = "evidence_cmd")]
    pub evidence: Option<PathBuf>,
    /// Run the independent check named after `--` (no shell) and use its
    /// run as evidence: exit 0 approves, a non-zero exit or a signal
    /// escalates (`evidence_failed`), a timeout is refused.
    #[arg(long = "evidence-cmd", requires = "argv")]
    pub evidence_cmd: bool,
    /// How long the check may run before it is killed and refused.
    #[arg(long = "evidence-timeout", value_name = "SECS", default_value_t = evidence_cmd::DEFAULT_EVIDENCE_TIMEOUT_SECS)]
    pub evidence_timeout: u64,
    /// The check's program and arguments (after `--`).
    #[arg(last = true, value_name = "ARGV", requires = "evidence_cmd")]
    pub argv: Vec<String>,
}

/// Splits `LENS=FILE` (a lens name before the first `=`) from a plain
/// `FILE`. A prefix that looks like a name but is not a lens is refused
/// (write `./FILE` for a file whose name has an `=`).
fn binding_spec(spec: &str) -> Result<(Lens, String), CliError> {
    spec.split_once('=')
        .and_then(|(name, token)| {
            Lens::CANONICAL
                .into_iter()
                .find(|l| l.name() == name)
                .map(|l| (l, token.to_string()))
        })
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::Usage,
                "bad_binding_spec",
                format!("--binding {spec}: expected LENS=TOKEN with a lens name (risk, resilience, readability, reliability)"),
                "spell it `--binding LENS=TOKEN` with the token `probity start --json` printed for that lens",
            )
        })
}

fn result_spec(spec: &str) -> Result<(Option<Lens>, PathBuf), CliError> {
    if let Some((name, file)) = spec.split_once('=')
        && !name.contains('/')
    {
        let lens = Lens::CANONICAL
            .into_iter()
            .find(|l| l.name() == name)
            .ok_or_else(|| {
                CliError::new(
                    ErrorKind::Usage,
                    "bad_result_spec",
                    format!("--result {spec}: `{name}` is not a lens (risk, resilience, readability, reliability)"),
                    "spell it `--result LENS=FILE` with a selected lens (write `./FILE` for a file whose name has an `=`)",
                )
            })?;
        return Ok((Some(lens), PathBuf::from(file)));
    }
    Ok((None, PathBuf::from(spec)))
}

/// One finding of a finalize answer, with its final route.
#[derive(Debug, Serialize)]
pub struct FindingEntry<'a> {
    pub id: FindingId,
    pub severity: Severity,
    pub route: Route,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub causal_downgrade: Option<&'a CausalDowngrade>,
}

impl<'a> FindingEntry<'a> {
    /// Every finding of the record's judgment (none before one), in
    /// finding order.
    pub fn all(record: &'a StateRecord) -> Vec<FindingEntry<'a>> {
        record
            .state()
            .stage()
            .judgment()
            .map(|j| {
                j.routed()
                    .map(|(f, route)| FindingEntry {
                        id: f.id,
                        severity: f.severity,
                        route,
                        causal_downgrade: f.causal_downgrade.as_ref(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One correction attempt of a finalize answer.
#[derive(Debug, Serialize)]
struct AttemptEntry<'a> {
    forecast_lines: u64,
    actual_lines: u64,
    paths: &'a [RepoPath],
    fix_delta_hash: &'a Sha256Digest,
    passed: bool,
}

/// The `finalize` answer (also `lens replay`, `dispute` and `review
/// --lineage`'s): docs/review-authority.md "JSON answers".
#[derive(Debug, Serialize)]
pub struct FinalizeAnswer<'a> {
    pub lineage_id: &'a LineageId,
    pub state: &'static str,
    pub action: NextInput,
    pub message: String,
    pub store_revision: Sha256Digest,
    pub findings: Vec<FindingEntry<'a>>,
    pub correction_budget: u64,
    pub charged_lines: u64,
    attempts: Vec<AttemptEntry<'a>>,
    /// R12.6: a dispute is counted, never a silent dismissal.
    pub disputes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalation_reason: Option<EscalationReason>,
    /// Present in a terminal state only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt_path: Option<&'a str>,
    /// R6.3: the fixer's hand-off while a correction is open (the admitted
    /// findings, the paths a fix may touch, the steps on), the same from
    /// `finalize` as from `review --lineage` (issue 26 §3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<FixerHandoff>,
}

impl<'a> FinalizeAnswer<'a> {
    /// The answer for a lineage's record and, once terminal, where its
    /// receipt is.
    pub fn of(record: &'a StateRecord, receipt_path: Option<&'a str>) -> Self {
        let s = record.state();
        let correction = s.stage().correction();
        FinalizeAnswer {
            lineage_id: s.lineage_id(),
            state: s.stage().name(),
            action: s.next_action(),
            message: probity_core::review::next_sentence(record),
            store_revision: record.revision(),
            findings: FindingEntry::all(record),
            correction_budget: s.frozen().correction_budget,
            charged_lines: correction.map_or(0, |c| c.charged_lines()),
            attempts: correction
                .map(|c| {
                    c.attempts
                        .iter()
                        .map(|a| AttemptEntry {
                            forecast_lines: a.forecast_lines,
                            actual_lines: a.actual_lines,
                            paths: &a.paths,
                            fix_delta_hash: &a.fix_delta_hash,
                            passed: a.passed(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            disputes: s.stage().judgment().map_or(0, |j| j.disputes.len()),
            escalation_reason: s.stage().escalation().map(Escalation::reason),
            receipt_path,
            handoff: fixer_handoff(s),
        }
    }

    /// The findings as human lines (`  ID SEVERITY -> ROUTE`), and while a
    /// correction is open the fixer's hand-off.
    pub fn human_findings(&self) -> String {
        let mut t: String = self
            .findings
            .iter()
            .map(|f| format!("  {} {} -> {}\n", f.id, f.severity.name(), f.route.name()))
            .collect();
        // A correction's budget, as the ledger charged it (issue 22 §5).
        if !self.attempts.is_empty() || self.charged_lines > 0 || self.handoff.is_some() {
            t.push_str(&format!(
                "  correction budget: charged {} of {} line(s), {} attempt(s)\n",
                self.charged_lines,
                self.correction_budget,
                self.attempts.len()
            ));
        }
        // Every escalation says why.
        if let Some(r) = self.escalation_reason {
            t.push_str(&format!("  escalated: {} ({})\n", r.name(), r.explain()));
        }
        if let Some(h) = &self.handoff {
            t.push_str(&format!(
                "  fix exactly: {} (allowed paths: {})\n",
                h.findings
                    .iter()
                    .map(|f| format!("{} at {}: {}", f.id, f.location.as_str(), f.claim.as_str()))
                    .collect::<Vec<_>>()
                    .join("; "),
                h.allowed_paths
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        t
    }
}

pub fn finalize(
    global: &GlobalArgs,
    out: Output,
    args: &FinalizeArgs,
) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let bindings = args
        .bindings
        .iter()
        .map(|s| binding_spec(s))
        .collect::<Result<Vec<_>, _>>()?;
    let specs = args
        .results
        .iter()
        .map(|s| result_spec(s))
        .collect::<Result<Vec<_>, _>>()?;
    if specs.iter().filter(|(_, p)| p.as_os_str() == "-").count()
        + usize::from(
            args.refuter
                .as_deref()
                .is_some_and(|p| p.as_os_str() == "-"),
        )
        + usize::from(
            args.validation
                .as_deref()
                .is_some_and(|p| p.as_os_str() == "-"),
        )
        + usize::from(
            args.evidence
                .as_deref()
                .is_some_and(|p| p.as_os_str() == "-"),
        )
        > 1
    {
        return Err(CliError::new(
            ErrorKind::Usage,
            "stdin_twice",
            "stdin (`-`) can carry one document per command",
            "pass the other documents as files",
        ));
    }
    let results = specs
        .iter()
        .map(|(lens, p)| {
            Ok(LensResultInput {
                lens: *lens,
                input: read_role_document(p)?,
            })
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    let refuter = args
        .refuter
        .as_deref()
        .map(read_role_document)
        .transpose()?;
    let validation = args
        .validation
        .as_deref()
        .map(read_role_document)
        .transpose()?;
    let mut checked = None;
    let evidence = match (&args.evidence, args.evidence_cmd) {
        (Some(path), _) => {
            let mut hash = DomainSha256::new(EVIDENCE_DOMAIN);
            // The head too: the whole bytes while they could be a command
            // evidence document (core reads what such a document reports,
            // and refuses one padded past its bound).
            let keep = MAX_COMMAND_EVIDENCE_BYTES as usize + 1;
            let mut head = Vec::new();
            let mut tail = std::collections::VecDeque::with_capacity(2 * EVIDENCE_TAIL_BYTES);
            let len = stream_input(path, MAX_EVIDENCE_BYTES, |chunk| {
                hash.update(chunk);
                if head.len() < keep {
                    head.extend_from_slice(&chunk[..chunk.len().min(keep - head.len())]);
                }
                let last = &chunk[chunk.len().saturating_sub(EVIDENCE_TAIL_BYTES)..];
                tail.extend(last);
                let over = tail.len().saturating_sub(EVIDENCE_TAIL_BYTES);
                tail.drain(..over);
            })?;
            Some(EvidenceInput::Streamed {
                name: path.display().to_string(),
                hash: hash.finish(),
                len,
                head,
                tail: tail.into(),
            })
        }
        (None, true) => {
            // A check that cannot land is refused before it runs: a wrong
            // --cwd, or (when evidence is the only input) a lineage that
            // does not take evidence now.
            let ctx = open(global)?;
            let only_input = results.is_empty()
                && refuter.is_none()
                && validation.is_none()
                && args.correction_lines.is_none();
            if only_input {
                // The last check the lineage took, as the store keeps it
                // (a diagnostic: unreadable counts as none).
                let kept = |l: &LineageId| {
                    ctx.store.check_output(l).ok().flatten().map(|c| KeptCheck {
                        argv: c.header.argv,
                        tree: c.header.tree,
                        evidence_hash: c.header.evidence_hash,
                    })
                };
                drivers::check_evidence_lands(
                    &ctx.repo,
                    &ctx.store,
                    lineage.as_ref(),
                    &args.argv,
                    &kept,
                )
                .map_err(review_error)?;
            }
            // The check runs on the lineage's final candidate tree (the
            // live candidate a validation in this call judges), in a
            // scratch checkout: never in the worktree.
            let target = drivers::evidence_tree(
                &ctx.repo,
                &ctx.store,
                lineage.as_ref(),
                validation.is_some(),
            )
            .map_err(review_error)?;
            let timeout = std::time::Duration::from_secs(args.evidence_timeout.max(1));
            let check = evidence_cmd::run_on_tree(
                &ctx.repo,
                &target.tree,
                &args.argv,
                timeout,
                global.cwd.as_deref(),
            )?;
            let input = EvidenceInput::CommandOn {
                run: check.run.clone(),
                tree: check.tree.clone(),
            };
            checked = Some((target.lineage, check));
            Some(input)
        }
        (None, false) => None,
    };
    let ctx = open(global)?;
    let transition = || {
        drivers::finalize(
            &ctx.repo,
            &ctx.store,
            FinalizeInput {
                lineage,
                results,
                refuter,
                correction_lines: args.correction_lines,
                validation,
                // A hand-given validation judged the live candidate.
                validated_tree: None,
                evidence,
                bindings,
            },
        )
        .map_err(review_error)
    };
    // A check Probity ran: its output and document are kept before the
    // lineage takes it.
    let (done, check) = match &checked {
        Some((target, c)) => {
            let (done, answer) =
                evidence_cmd::finalize_with_check(&ctx.store, target, c, transition)?;
            (done, Some(answer))
        }
        None => (transition()?, None),
    };
    let answer = FinalizeCheckAnswer {
        finalize: FinalizeAnswer::of(&done.record, done.receipt_location.as_deref()),
        evidence_check: check,
    };
    let next = || probity_core::review::record_next_tool(&done.record, &[], None);
    out.answer_next(&answer, next, || {
        let s = done.record.state();
        let mut t = format!("{} is {}\n", s.lineage_id(), s.stage().name());
        t.push_str(&answer.finalize.human_findings());
        if let Some(c) = &answer.evidence_check {
            t.push_str(&c.human(s.lineage_id()));
        }
        if let Some(p) = &done.receipt_location {
            t.push_str(&format!("  receipt: {p}\n"));
        }
        t.push_str(&format!(
            "  next: {}\n",
            probity_core::review::next_sentence(&done.record)
        ));
        t
    });
    // A check that failed exits 1 (the lineage escalated on it).
    Ok(match &answer.evidence_check {
        Some(c) if !c.passed => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

/// `finalize`'s answer: [`FinalizeAnswer`], and the check it ran, if any.
#[derive(Debug, Serialize)]
struct FinalizeCheckAnswer<'a> {
    #[serde(flatten)]
    finalize: FinalizeAnswer<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence_check: Option<evidence_cmd::CheckAnswer>,
}
