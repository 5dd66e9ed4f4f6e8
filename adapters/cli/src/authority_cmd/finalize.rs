//! `probity finalize` and `probity lens`: judgment into authority.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use probity_core::digest::{DomainSha256, Sha256Digest};
use probity_core::review::causality::CausalDowngrade;
use probity_core::review::evidence::{EVIDENCE_TAIL_BYTES, MAX_COMMAND_EVIDENCE_BYTES};
use probity_core::review::finding::{Route, Severity};
use probity_core::review::ids::{FindingId, LineageId, RepoPath};
use probity_core::review::lens::Lens;
use probity_core::review::state::{
    EVIDENCE_DOMAIN, Escalation, EscalationReason, LensBinding, NextInput, StateRecord,
};
use probity_ports::review::{
    self as drivers, EvidenceInput, FinalizeInput, LensResultInput, SubmitInput, Submitted,
};

use crate::GlobalArgs;
use crate::clock::SystemClock;
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

#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The lineage (default: the one that froze the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
    /// The lens whose result this is.
    #[arg(long, value_enum)]
    pub lens: LensArg,
    /// The binding `probity start` prepared for this lens (the exact string,
    /// or its `lbt1-` token), echoed by the orchestrator that ran the lens
    /// with it: refused when it is not this lineage's binding for the lens.
    #[arg(long)]
    pub binding: Option<String>,
    /// If the submission fails for a reason that is not the result's own
    /// (the store busy or failing, Git failing, the candidate moved), keep
    /// the result here as a preserved-result artifact (a new file, 0600,
    /// outside the store) for `probity lens replay` (R3.6).
    #[arg(long, value_name = "FILE")]
    pub preserve_to: Option<PathBuf>,
    /// The result (strict JSON, see `probity schema reviewer`); `-` or
    /// nothing reads stdin.
    #[arg(value_name = "FILE", default_value = "-")]
    pub file: PathBuf,
}

/// `probity lens ...`
#[derive(Debug, clap::Subcommand)]
pub enum LensCommand {
    /// Before running a lens: confirm its result will have somewhere legal
    /// to land (the lineage resolves and awaits results, the lens is
    /// selected, the binding matches).
    Preflight(PreflightArgs),
    /// Keep a lens result in the store for `finalize` (nothing is written
    /// into the worktree): checked against the reviewer schema and the
    /// lens's prepared binding; an exact resubmission is answered again.
    Submit(SubmitArgs),
    /// Replay a preserved-result artifact (`lens submit --preserve-to`)
    /// through the full verification a fresh submission pays, into the
    /// lineage and candidate it was preserved for only.
    Replay(ReplayArgs),
    /// Print the prepared context of one lens (read-only): its frozen
    /// system prompt, the user message (binding, frozen diff, manifest,
    /// schema), the binding and its token, and the subject its tools read
    /// (`tree:<candidate tree>`). What `probity review` asks a model; an
    /// orchestrator running its own model gives it the same.
    Context(ContextArgs),
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The lineage (default: the one that froze the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
    /// The lens whose context to print.
    #[arg(long, value_enum)]
    pub lens: LensArg,
}

/// `probity lens context`: the prepared context of one lens.
fn lens_context(
    global: &GlobalArgs,
    out: Output,
    args: &ContextArgs,
) -> Result<ExitCode, CliError> {
    use probity_core::review::prompts::PromptSet;
    use probity_core::review::roles::RoleError;
    use probity_core::snapshot_tools::config::ContextCaps;
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let ctx = open(global)?;
    let record = ctx.record_of(lineage.as_ref())?;
    let lineage = record.state().lineage_id().clone();
    let exported =
        drivers::export_context(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    let lens: Lens = args.lens.into();
    let c = probity_core::review::roles::lens_context(
        record.state(),
        lens,
        &PromptSet::builtin(),
        &exported.diff,
        &exported.envelope.changed_path_manifest,
        ContextCaps::default().max_total_bytes,
    )
    .map_err(|e| {
        let code = match &e {
            RoleError::Prompt(_) => "prompt_changed",
            RoleError::NotSelected { .. } => "lens_not_selected",
            RoleError::NotNow { .. } => "role_not_now",
        };
        CliError::new(
            ErrorKind::RejectedInput,
            code,
            e.to_string(),
            "`probity status --lineage L` names the next input; a lens runs only while the lineage awaits lens results",
        )
    })?;
    let binding = record
        .state()
        .lens_bindings()
        .into_iter()
        .find(|b| b.lens == lens);
    let answer = LensContextAnswer {
        lineage_id: &lineage,
        state: record.state().stage().name(),
        lens,
        finding_id_prefix: lens.prefix(),
        binding: c.binding.as_deref(),
        token: binding.map(|b| b.token),
        prompt_digest: &c.prompt_digest,
        subject: format!("tree:{}", record.state().snapshot().candidate_tree),
        system: &c.system,
        user: &c.user,
        schema: probity_core::review::schema::SchemaDoc::Reviewer.schema(),
        submit: format!(
            "probity lens submit --lineage {lineage} --lens {} --binding <token> <result.json>",
            lens.name()
        ),
    };
    out.answer(&answer, || format!("{}\n\n{}\n", c.system, c.user));
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The lineage (default: the one the artifact names; when given, it
    /// must be that one).
    #[arg(long)]
    pub lineage: Option<String>,
    /// The artifact `lens submit --preserve-to` wrote (`-` for stdin).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct PreflightArgs {
    /// The lineage `probity start` printed (default: the one that froze
    /// the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
    /// The lens about to run.
    #[arg(long, value_enum)]
    pub lens: LensArg,
    /// The binding the orchestrator will prefix to the lens prompt.
    #[arg(long)]
    pub binding: Option<String>,
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
            message: s.next_sentence(),
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
        }
    }

    /// The findings as human lines (`  ID SEVERITY -> ROUTE`).
    pub fn human_findings(&self) -> String {
        self.findings
            .iter()
            .map(|f| format!("  {} {} -> {}\n", f.id, f.severity.name(), f.route.name()))
            .collect()
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
                drivers::check_evidence_lands(&ctx.repo, &ctx.store, lineage.as_ref())
                    .map_err(review_error)?;
            }
            let timeout = std::time::Duration::from_secs(args.evidence_timeout.max(1));
            Some(EvidenceInput::Command(evidence_cmd::run(
                &args.argv,
                timeout,
                global.cwd.as_deref(),
            )?))
        }
        (None, false) => None,
    };
    let ctx = open(global)?;
    let done = drivers::finalize(
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
    .map_err(review_error)?;
    let answer = FinalizeAnswer::of(&done.record, done.receipt_location.as_deref());
    out.answer(&answer, || {
        let s = done.record.state();
        let mut t = format!("{} is {}\n", s.lineage_id(), s.stage().name());
        t.push_str(&answer.human_findings());
        if let Some(p) = &done.receipt_location {
            t.push_str(&format!("  receipt: {p}\n"));
        }
        t.push_str(&format!("  next: {}\n", s.next_sentence()));
        t
    });
    Ok(ExitCode::SUCCESS)
}

pub fn lens(global: &GlobalArgs, out: Output, cmd: &LensCommand) -> Result<ExitCode, CliError> {
    let args = match cmd {
        LensCommand::Preflight(args) => args,
        LensCommand::Submit(args) => return submit(global, out, args),
        LensCommand::Replay(args) => return replay(global, out, args),
        LensCommand::Context(args) => return lens_context(global, out, args),
    };
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let ctx = open(global)?;
    let record = ctx.record_of(lineage.as_ref())?;
    let lineage = record.state().lineage_id().clone();
    let binding = record.state().preflight(args.lens.into(), args.binding.as_deref()).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "preflight_failed",
            format!("{lineage}: {e}"),
            "do not run the lens: use the lineage and the exact binding `probity start` printed, or `probity status` to see what the lineage needs",
        )
    })?;
    let answer = PreflightAnswer {
        ok: true,
        lineage_id: &lineage,
        state: record.state().stage().name(),
        binding: &binding,
        store_revision: record.revision(),
    };
    out.answer(&answer, || {
        format!(
            "ready: lens {} may run for {lineage}\n  binding: {}\n  token: {}\n",
            binding.lens.name(),
            binding.binding,
            binding.token
        )
    });
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct DisputeArgs {
    /// The lineage (named: a dispute never guesses which review).
    #[arg(long)]
    pub lineage: String,
    /// The finding admitted to correction that is disputed (e.g. R3-001).
    #[arg(long, value_name = "ID")]
    pub finding: String,
    /// What the dispute rests on (non-empty bytes, hashed as they stream;
    /// `-` for stdin): why the finding is a false positive.
    #[arg(long, value_name = "FILE")]
    pub evidence: PathBuf,
    /// Why, in words (kept in the lineage; not blank).
    #[arg(long)]
    pub reason: String,
    /// Who decided (kept; not blank).
    #[arg(long)]
    pub actor: String,
    /// The maintainer authorization, as an escalated edge needs (kept; not
    /// blank).
    #[arg(long)]
    pub authorization: String,
}

/// `probity dispute` (R12.6).
pub fn dispute(global: &GlobalArgs, out: Output, args: &DisputeArgs) -> Result<ExitCode, CliError> {
    use probity_core::review::ids::{FindingId, NonBlank};
    use probity_core::review::state::DISPUTE_DOMAIN;
    let lineage = parse_lineage(&args.lineage)?;
    let finding = FindingId::parse(&args.finding).map_err(|e| {
        CliError::new(
            ErrorKind::Usage,
            "bad_finding_id",
            format!("--finding {}: {e}", args.finding),
            "name the finding as `probity status --lineage L` lists it (e.g. R3-001)",
        )
    })?;
    let blank = |flag: &str, v: &str| {
        NonBlank::parse(v).map_err(|_| {
            CliError::new(
                ErrorKind::Usage,
                "blank_argument",
                format!("{flag} must not be blank"),
                format!("pass a non-blank {flag}"),
            )
        })
    };
    let reason = blank("--reason", &args.reason)?;
    let actor = blank("--actor", &args.actor)?;
    let authorization = blank("--authorization", &args.authorization)?;
    let mut hash = DomainSha256::new(DISPUTE_DOMAIN);
    let len = stream_input(&args.evidence, MAX_EVIDENCE_BYTES, |chunk| {
        hash.update(chunk)
    })?;
    if len == 0 {
        return Err(review_error(
            probity_core::review::state::TransitionError::EmptyEvidence.into(),
        ));
    }
    let ctx = open(global)?;
    let record = drivers::dispute(
        &ctx.store,
        &SystemClock,
        drivers::DisputeInput {
            lineage,
            finding,
            evidence_hash: hash.finish(),
            reason,
            actor,
            authorization,
        },
    )
    .map_err(review_error)?;
    let answer = FinalizeAnswer::of(&record, None);
    let disputes = answer.disputes;
    out.answer(&answer, || {
        format!(
            "{} is `{}` ({disputes} finding(s) disputed)\n  next: {}\n",
            record.state().lineage_id(),
            record.state().stage().name(),
            record.state().next_sentence()
        )
    });
    Ok(ExitCode::SUCCESS)
}

/// `probity lens replay` (R3.6).
fn replay(global: &GlobalArgs, out: Output, args: &ReplayArgs) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let artifact = read_input(
        &args.file,
        probity_core::review::submission::MAX_ROLE_DOCUMENT_BYTES * 2,
    )?;
    let ctx = open(global)?;
    let done = drivers::replay_preserved(&ctx.repo, &ctx.store, &artifact, lineage.as_ref())
        .map_err(review_error)?;
    submitted_answer(out, &done)
}

/// Whether a failed submission failed for a reason that is not the result's
/// own (what `--preserve-to` keeps the result for).
fn capture_failed(e: &ReviewError) -> bool {
    matches!(
        e,
        ReviewError::Store(_) | ReviewError::Repository(_) | ReviewError::CandidateChanged { .. }
    )
}

/// Writes the preserved-result artifact of `result` to `path` (a new file,
/// 0600) when the lineage and its candidate can still be read; returns the
/// sentence the error's next step gains.
fn preserve_result(
    global: &GlobalArgs,
    args: &SubmitArgs,
    result: &NamedInput,
    why: &ReviewError,
    path: &std::path::Path,
) -> String {
    use probity_ports::review::ReviewStore;
    use std::io::Write;
    let record = (|| -> Option<StateRecord> {
        let ctx = open(global).ok()?;
        match args.lineage.as_deref().map(parse_lineage) {
            Some(Ok(l)) => ctx.store.load(&l).ok().flatten(),
            Some(Err(_)) => None,
            None => drivers::live_lineage(&ctx.repo, &ctx.store).ok(),
        }
    })();
    let Some(record) = record else {
        return " The result was not preserved: its lineage cannot be read now.".into();
    };
    let failure = probity_core::review::ids::NonBlank::parse(why.to_string())
        .or_else(|_| probity_core::review::ids::NonBlank::parse("the capture failed"));
    let bytes = failure.ok().and_then(|failure| {
        probity_core::review::preserved::preserve(
            record.state().lineage_id(),
            &record.state().snapshot().target,
            args.lens.into(),
            args.binding.as_deref(),
            failure,
            &result.bytes,
        )
        .ok()
    });
    let Some(bytes) = bytes else {
        return " The result could not be preserved.".into();
    };
    let written = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
    };
    match written {
        Ok(()) => format!(
            " The result was preserved in {} (nothing in the store changed): replay it with `probity lens replay {}` once the cause is gone.",
            path.display(),
            path.display()
        ),
        Err(e) => format!(
            " The result could not be preserved in {}: {e}.",
            path.display()
        ),
    }
}

/// `probity lens submit`.
fn submit(global: &GlobalArgs, out: Output, args: &SubmitArgs) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let result = read_role_document(&args.file)?;
    let ctx = open(global)?;
    let done = match drivers::submit_result(
        &ctx.repo,
        &ctx.store,
        SubmitInput {
            lineage,
            lens: args.lens.into(),
            binding: args.binding.clone(),
            result: result.clone(),
        },
    ) {
        Ok(done) => done,
        Err(e) => {
            let kept = match &args.preserve_to {
                Some(path) if capture_failed(&e) => {
                    preserve_result(global, args, &result, &e, path)
                }
                _ => String::new(),
            };
            let mut err = review_error(e);
            err.next_action.push_str(&kept);
            return Err(err);
        }
    };
    submitted_answer(out, &done)
}

fn submitted_answer(out: Output, done: &drivers::SubmittedResult) -> Result<ExitCode, CliError> {
    let s = done.record.state();
    let selected = &s.frozen().selected_lenses;
    let missing: Vec<&str> = selected
        .iter()
        .filter(|l| !done.submitted.contains(l))
        .map(|l| l.name())
        .collect();
    let next = if missing.is_empty() {
        format!(
            "every selected lens has a result: run `probity finalize --lineage {}`",
            s.lineage_id()
        )
    } else {
        format!(
            "submit the other selected lens result(s) ({}), then run `probity finalize --lineage {}`",
            missing.join(", "),
            s.lineage_id()
        )
    };
    let answer = SubmittedAnswer {
        ok: true,
        lineage_id: s.lineage_id(),
        lens: done.binding.lens,
        token: &done.binding.token,
        stored: done.outcome == Submitted::New,
        submitted: &done.submitted,
        missing: &missing,
        state: s.stage().name(),
        store_revision: done.record.revision(),
        message: &next,
    };
    out.answer(&answer, || {
        format!(
            "{} result for lens {} of {}\n  next: {next}\n",
            if done.outcome == Submitted::New {
                "kept"
            } else {
                "already kept: same"
            },
            done.binding.lens.name(),
            s.lineage_id(),
        )
    });
    Ok(ExitCode::SUCCESS)
}

/// The `lens context` answer: what a model-run lens is given.
#[derive(Debug, Serialize)]
struct LensContextAnswer<'a> {
    lineage_id: &'a LineageId,
    state: &'static str,
    lens: Lens,
    finding_id_prefix: &'static str,
    binding: Option<&'a str>,
    token: Option<String>,
    prompt_digest: &'a Sha256Digest,
    /// `tree:` and the frozen candidate tree.
    subject: String,
    system: &'a str,
    user: &'a str,
    /// The reviewer result schema the lens answers in.
    schema: Value,
    submit: String,
}

/// The `lens preflight` answer: the lens may run.
#[derive(Debug, Serialize)]
struct PreflightAnswer<'a> {
    ok: bool,
    lineage_id: &'a LineageId,
    state: &'static str,
    #[serde(flatten)]
    binding: &'a LensBinding,
    store_revision: Sha256Digest,
}

/// The `lens submit` / `lens replay` answer.
#[derive(Debug, Serialize)]
struct SubmittedAnswer<'a> {
    ok: bool,
    lineage_id: &'a LineageId,
    lens: Lens,
    token: &'a str,
    /// False when the same result was already kept.
    stored: bool,
    submitted: &'a [Lens],
    missing: &'a [&'static str],
    state: &'static str,
    store_revision: Sha256Digest,
    message: &'a str,
}
