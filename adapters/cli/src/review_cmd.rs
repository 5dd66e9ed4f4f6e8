//! `probity review`: the model judging.
//!
//! - `probity review --lineage L [--jobs N] [--evidence-cmd -- ARGV...]`
//!   (issue 10): once the live candidate is checked to be the frozen one,
//!   every selected lens of a frozen lineage that has no result yet runs
//!   through the bounded tool-use loop over the frozen candidate tree (at
//!   most `--jobs` at once, 1 to 4), with the prompt the lineage froze;
//!   each answer must be a strict reviewer document (one repair turn, then
//!   `lens_result_invalid`), is bound to its transcript's digest and
//!   submitted with its binding, and the transcript is kept in the store
//!   once the submission was accepted; then `finalize` takes them, the
//!   refuter batch runs when admitted findings need it, and with
//!   `--evidence-cmd` the independent check runs and `finalize` takes it.
//!   The answer is `finalize`'s JSON (state, action, findings with routes)
//!   with what each role did, and for a correction the fixer's hand-off.
//! - `probity review --lineage L --validate`: after a correction edit, the
//!   targeted validator, then `finalize --validation`.
//! - `probity review --subject S --prompt F`: the free-form loop (S5): a
//!   review text with a `VERDICT:` line and its footer.
//!
//! The model is configured by the environment or the configuration file
//! (`probity_model::build_with`: the `command` provider's agent is told
//! the `probity mcp` command that reads the subject); tool events are
//! logged as JSON lines to `--log-file`, else to the repository's
//! `<git-common-dir>/probity-logs/` (never stderr in the middle of a
//! review; stderr only outside any repository). No model produces an ID, a hash, a budget, a state or a
//! receipt: it answers documents, and this code does the rest.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use probity_core::digest::Sha256Digest;
use probity_core::review::NextInput;
use probity_core::review::PromptSet;
use probity_core::review::TreeId;
use probity_core::snapshot_tools::{LoopError, REVIEWER_FRAME, UsageTotals, footer_lines};
use probity_core::snapshot_tools::{ReviewConfig, ReviewLoop, Session, Verdict};
use probity_git::subject::{Subject, SubjectSpec};
use probity_model::SubjectAccess;
use probity_ports::review::{
    self as drivers, EvidenceInput, FinalizeInput, RecordStore, RoleRun, RoleRunError, RoleWorld,
};
use probity_ports::snapshot::{LoopRunError, ModelError, Stopwatch, run_review};
use serde::Serialize;
use serde_json::json;

use crate::GlobalArgs;
use crate::authority_cmd::{FinalizeAnswer, evidence_cmd, open, parse_lineage, review_error};
use crate::output::{CliError, ErrorKind, Output};
use crate::snapshot_cmd::{load_config, open_subject};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Review a frozen lineage: run its selected lenses (and the refuter
    /// when needed) and finalize what they answer.
    #[arg(long, value_name = "L", conflicts_with_all = ["subject", "prompt", "declared"])]
    pub lineage: Option<String>,
    /// With --lineage: run the targeted validator after a correction edit.
    #[arg(long, requires = "lineage")]
    pub validate: bool,
    /// With --lineage: at most this many lens runs at once, 1 to 4
    /// (default: the number of lenses to run, at most 4).
    #[arg(
        long,
        value_name = "N",
        requires = "lineage",
        value_parser = clap::value_parser!(u8).range(1..=MAX_JOBS as i64)
    )]
    pub jobs: Option<u8>,
    /// With --lineage: once the lenses' results are in, run the independent
    /// check named after `--` (no shell) and finalize its run as evidence.
    #[arg(long = "evidence-cmd", requires_all = ["lineage", "argv"])]
    pub evidence_cmd: bool,
    /// How long the check may run before it is killed and refused.
    #[arg(long = "evidence-timeout", value_name = "SECS", default_value_t = evidence_cmd::DEFAULT_EVIDENCE_TIMEOUT_SECS)]
    pub evidence_timeout: u64,
    /// The check's program and arguments (after `--`).
    #[arg(last = true, value_name = "ARGV", requires = "evidence_cmd")]
    pub argv: Vec<String>,
    /// Free-form review: what the reviewer's tools read: index, worktree,
    /// disk or tree:<oid>.
    #[arg(long, value_name = "S", required_unless_present = "lineage")]
    pub subject: Option<String>,
    /// Free-form review: the review prompt (diff, message, declared files),
    /// as a text file.
    #[arg(long, value_name = "F", required_unless_present = "lineage")]
    pub prompt: Option<PathBuf>,
    /// Free-form review: a declared file (left out of the footer); repeat
    /// for each.
    #[arg(long, value_name = "PATH")]
    pub declared: Vec<String>,
    /// A flat JSON configuration (reviewSnapshotMaxCalls, reviewModel,
    /// reviewModelProvider, ...).
    #[arg(long, value_name = "F")]
    pub config: Option<PathBuf>,
    /// Append the event log (JSON lines) to this file (default: in the
    /// repository's git directory, `probity-logs/review-<lineage>.jsonl`
    /// or `probity-logs/review.jsonl`; stderr outside any repository).
    #[arg(long, value_name = "F")]
    pub log_file: Option<PathBuf>,
}

/// Where a review's tool events go (issue 22 §5): `--log-file` (opened at
/// once, as before), else a log in the repository's git directory
/// (`<git-common-dir>/probity-logs/<name>`, beside the store and not in
/// it: a diagnostic no gate reads; created at the first event, so a run
/// refused before any event writes nothing), never into the worktree and
/// never onto stderr in the middle of a review. `None` in: stderr, for
/// a free-form review outside any repository (there is no place of
/// Probity's to keep it).
fn review_log(
    explicit: Option<&Path>,
    common_dir: Option<&Path>,
    name: &str,
) -> Result<(Box<dyn std::io::Write + Send>, Option<PathBuf>), CliError> {
    match (explicit, common_dir) {
        (Some(p), _) => Ok((
            crate::snapshot_cmd::open_log(Some(p))?,
            Some(p.to_path_buf()),
        )),
        (None, Some(dir)) => {
            let path = dir.join("probity-logs").join(name);
            let sink = LazyLog {
                path: path.clone(),
                file: None,
            };
            Ok((Box::new(sink), Some(path)))
        }
        (None, None) => Ok((crate::snapshot_cmd::open_log(None)?, None)),
    }
}

/// A log file opened (and its directory made) at its first write.
struct LazyLog {
    path: PathBuf,
    file: Option<Box<dyn std::io::Write + Send>>,
}

impl std::io::Write for LazyLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                if let Some(dir) = self.path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                let f = probity_scratch::output::open_append(&self.path)?;
                self.file.insert(Box::new(f))
            }
        };
        file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// The largest review prompt read (`--prompt`).
pub const MAX_PROMPT_BYTES: u64 = 4 * 1024 * 1024;

/// The most lens runs at once: `--jobs` takes 1 to this.
pub const MAX_JOBS: usize = 4;

/// A stopwatch over the system's monotonic clock.
pub struct Wall(Instant);

impl Wall {
    pub fn start() -> Self {
        Wall(Instant::now())
    }
}

impl Stopwatch for Wall {
    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

fn verdict_text(v: &Verdict) -> String {
    match v {
        Verdict::Pass => "PASS".into(),
        Verdict::Fail => "FAIL".into(),
        Verdict::Other(s) => s.clone(),
    }
}

fn model_not_configured(e: &ModelError) -> CliError {
    CliError::new(
        ErrorKind::Usage,
        "model_not_configured",
        e.to_string(),
        "set PROBITY_MODEL_BASE_URL and PROBITY_MODEL (or reviewModelBaseUrl and reviewModel, or reviewModelProvider `command` with reviewModelCommand), and the key in PROBITY_MODEL_API_KEY",
    )
}

/// The model the configuration names, checked once before any run.
fn configured_model(config: &ReviewConfig) -> Result<(), CliError> {
    probity_model::build(&config.model, |k| std::env::var(k).ok())
        .map(|_| ())
        .map_err(|e| model_not_configured(&e))
}

pub fn run(global: &GlobalArgs, out: Output, args: &ReviewArgs) -> Result<ExitCode, CliError> {
    let config = load_config(args.config.as_deref())?;
    match &args.lineage {
        Some(l) => {
            configured_model(&config)?;
            run_lineage(global, out, args, &config, &parse_lineage(l)?)
        }
        None => run_free_form(global, out, args, &config),
    }
}

/// How an agent the `command` provider runs (it is offered no tools) can
/// read `subject` of the repository at `cwd` itself: this binary's `mcp`
/// (`probity` on PATH when the binary's path is unknown).
fn subject_access(cwd: &Path, subject: String) -> SubjectAccess {
    SubjectAccess {
        probity: std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_owned))
            .unwrap_or_else(|| "probity".to_owned()),
        cwd: cwd.to_path_buf(),
        subject,
    }
}

/// The reviewer-tool budget a run used.
#[derive(Debug, Serialize)]
struct SnapshotUse {
    calls_used: u32,
    bytes_used: u64,
}

/// What a role run answers: its document's provenance, or why it has none.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum RoleAnswer<'a> {
    Done {
        role: &'static str,
        ok: bool,
        /// Where the transcript is kept (store-relative).
        transcript: &'a str,
        transcript_digest: &'a Sha256Digest,
        prompt_digest: &'a Sha256Digest,
        model_calls: u32,
        repaired: bool,
        usage: &'a UsageTotals,
        footer: Option<&'a str>,
        snapshot: SnapshotUse,
    },
    Failed {
        role: &'static str,
        ok: bool,
        error: RoleFailure,
    },
}

#[derive(Debug, Serialize)]
struct RoleFailure {
    code: String,
    message: String,
    next_action: String,
}

impl<'a> RoleAnswer<'a> {
    fn of(run: &'a RoleRun) -> Self {
        let role = run.role.name();
        match &run.outcome {
            Ok(d) => RoleAnswer::Done {
                role,
                ok: true,
                transcript: &d.transcript,
                transcript_digest: &d.transcript_digest,
                prompt_digest: &d.prompt_digest,
                model_calls: d.model_calls,
                repaired: d.repaired,
                usage: &d.usage,
                footer: d.footer.as_deref(),
                snapshot: SnapshotUse {
                    calls_used: d.calls_used,
                    bytes_used: d.bytes_used,
                },
            },
            Err(e) => {
                let err = role_error(e);
                RoleAnswer::Failed {
                    role,
                    ok: false,
                    error: RoleFailure {
                        code: err.code,
                        message: err.message,
                        next_action: err.next_action.into(),
                    },
                }
            }
        }
    }
}

/// The `review --lineage` answer: the finalize answer of where the lineage
/// stands, each role run, whether the independent check ran, and the
/// fixer's hand-off while a correction is open.
#[derive(Debug, Serialize)]
struct LineageAnswer<'a> {
    #[serde(flatten)]
    finalize: FinalizeAnswer<'a>,
    roles: Vec<RoleAnswer<'a>>,
    evidence_ran: bool,
    /// The check `--evidence-cmd` ran, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence_check: Option<evidence_cmd::CheckAnswer>,
    /// Where the tool events and model usage were appended.
    log_file: Option<String>,
}

/// One line of the usage log: what a role's model calls used.
#[derive(Debug, Serialize)]
struct UsageLine<'a> {
    event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    model_calls: u32,
    usage: &'a UsageTotals,
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript_digest: Option<&'a Sha256Digest>,
}

/// The free-form `review --subject S --prompt F` answer.
#[derive(Debug, Serialize)]
struct FreeFormAnswer<'a> {
    review: &'a str,
    verdict: Option<String>,
    footer: Option<&'a str>,
    transcript_digest: String,
    model_calls: u32,
    length_retried: bool,
    usage: &'a UsageTotals,
    snapshot: SnapshotUse,
    /// Where the tool events were appended (`null`: stderr).
    log_file: Option<String>,
}

/// A failed role run as a typed error (what the answer names, and the exit
/// code when nothing else failed first).
fn role_error(e: &RoleRunError) -> CliError {
    let msg = e.to_string();
    match e {
        RoleRunError::Role(r) => CliError::new(
            ErrorKind::RejectedInput,
            match r {
                probity_core::review::RoleError::Prompt(_) => "prompt_changed",
                _ => "role_not_now",
            },
            msg,
            "the lineage froze another prompt or does not await this role: `probity status --lineage L` names the next input (a lineage started before prompts were versioned is reviewed by hand, `probity lens submit`)",
        ),
        RoleRunError::Open { .. } => CliError::new(
            ErrorKind::Io,
            "model_failed",
            msg,
            "check the model configuration and the repository, then run `probity review --lineage L` again (only what is missing runs)",
        ),
        RoleRunError::Loop(LoopRunError::Loop(LoopError::InvalidDocument { .. })) => CliError::new(
            ErrorKind::RejectedInput,
            "lens_result_invalid",
            msg,
            "nothing was submitted for this role; run `probity review --lineage L` again (only what is missing runs), or run the role by hand and `probity lens submit` its result",
        ),
        RoleRunError::Loop(LoopRunError::Timeout { .. }) => CliError::new(
            ErrorKind::Io,
            "review_timeout",
            msg,
            "nothing was submitted for this role; run `probity review --lineage L` again, or raise reviewTimeoutMs",
        ),
        RoleRunError::Loop(_) => CliError::new(
            ErrorKind::Io,
            "model_failed",
            msg,
            "nothing was submitted for this role; check the endpoint and run `probity review --lineage L` again (only what is missing runs)",
        ),
        RoleRunError::Review(r) => crate::authority_cmd::review_error_ref(r),
    }
}

fn exit_of(err: &CliError) -> ExitCode {
    ExitCode::from(err.kind.exit_code())
}

fn run_lineage(
    global: &GlobalArgs,
    out: Output,
    args: &ReviewArgs,
    config: &ReviewConfig,
    lineage: &probity_core::review::LineageId,
) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let (sink, log_file) = review_log(
        args.log_file.as_deref(),
        Some(ctx.repo.common_dir()),
        &format!("review-{lineage}.jsonl"),
    )?;
    let log: Mutex<Box<dyn std::io::Write + Send>> = Mutex::new(sink);
    let root = ctx.repo.root().to_path_buf();
    let git = crate::authority_cmd::git_cli();
    let subject_root = root.clone();
    let subject = move |tree: &TreeId| {
        Subject::open(
            &SubjectSpec::Tree(tree.to_string()),
            git.clone(),
            &subject_root,
        )
        .map_err(|e| Box::new(e) as drivers::AdapterError)
    };
    // One client per role run, told (when it offers no tools) how to read
    // the tree that run is over.
    let model = |tree: &TreeId| {
        probity_model::build_with(
            &config.model,
            |k| std::env::var(k).ok(),
            Some(subject_access(&root, format!("tree:{tree}"))),
        )
    };
    let prompts = PromptSet::builtin();
    let selected = ctx
        .store
        .load(lineage)
        .map_err(|e| review_error(e.into()))?
        .map_or(1, |r| r.state().frozen().selected_lenses.len().max(1));
    let world = RoleWorld {
        prompts: &prompts,
        subject: &subject,
        model: &model,
        stopwatch: &Wall::start,
        budget: config.budget(),
        timeout_ms: config.timeout_ms,
        max_diff_bytes: config.context.max_total_bytes,
        // `--jobs` is in range (clap refuses another value); the default,
        // the number of lenses, is capped the same way.
        jobs: args.jobs.map_or(selected, usize::from).clamp(1, MAX_JOBS),
        log: &|role: &str, e: &probity_core::snapshot_tools::Event| {
            if let Ok(mut line) = serde_json::to_value(e) {
                line["role"] = json!(role);
                let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
                let _ = writeln!(log, "{line}");
                let _ = log.flush();
            }
        },
    };
    let (record, receipt, runs) = if args.validate {
        let (done, run) = drivers::validate_correction(&ctx.repo, &ctx.store, &world, lineage)
            .map_err(review_error)?;
        (done.record, done.receipt_location, vec![run])
    } else {
        let reviewed = drivers::review_lineage(&ctx.repo, &ctx.store, &world, lineage)
            .map_err(review_error)?;
        let mut runs = reviewed.lenses;
        runs.extend(reviewed.refuter);
        (reviewed.record, reviewed.receipt_location, runs)
    };
    // What each role's model calls used, in the log beside its tool events.
    {
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        for r in &runs {
            if let Ok(d) = &r.outcome {
                let line = UsageLine {
                    event: "review.model.usage",
                    role: Some(r.role.name()),
                    model_calls: d.model_calls,
                    usage: &d.usage,
                    transcript_digest: Some(&d.transcript_digest),
                };
                if let Ok(line) = serde_json::to_string(&line) {
                    let _ = writeln!(log, "{line}");
                }
            }
        }
        let _ = log.flush();
    }
    let failed: Vec<CliError> = runs
        .iter()
        .filter_map(|r| r.outcome.as_ref().err().map(role_error))
        .collect();
    // The independent check, once the lineage awaits evidence.
    let (record, receipt, evidence_ran, check) = if args.evidence_cmd
        && failed.is_empty()
        && record.state().next_action() == NextInput::ProvideEvidence
    {
        // On the lineage's final candidate tree, in a scratch checkout.
        let target = drivers::evidence_tree(&ctx.repo, &ctx.store, Some(lineage), false)
            .map_err(review_error)?;
        let timeout = std::time::Duration::from_secs(args.evidence_timeout.max(1));
        let check = evidence_cmd::run_on_tree(
            &ctx.repo,
            &target.tree,
            &args.argv,
            timeout,
            global.cwd.as_deref(),
        )?;
        // Its output and document are kept before the lineage takes it.
        let (done, answer) =
            evidence_cmd::finalize_with_check(&ctx.store, &target.lineage, &check, || {
                drivers::finalize(
                    &ctx.repo,
                    &ctx.store,
                    FinalizeInput {
                        lineage: Some(lineage.clone()),
                        evidence: Some(EvidenceInput::CommandOn {
                            run: check.run.clone(),
                            tree: check.tree.clone(),
                        }),
                        ..Default::default()
                    },
                )
                .map_err(review_error)
            })?;
        (done.record, done.receipt_location, true, Some(answer))
    } else {
        (record, receipt, false, None)
    };
    let answer = LineageAnswer {
        finalize: FinalizeAnswer::of(&record, receipt.as_deref()),
        roles: runs.iter().map(RoleAnswer::of).collect(),
        evidence_ran,
        evidence_check: check,
        log_file: log_file.as_ref().map(|p| p.display().to_string()),
    };
    out.answer(&answer, || human(&answer, &runs, &failed));
    Ok(match failed.first() {
        Some(e) => exit_of(e),
        // A check that failed exits 1 (the lineage escalated on it).
        None if answer.evidence_check.as_ref().is_some_and(|c| !c.passed) => ExitCode::from(1),
        None => ExitCode::SUCCESS,
    })
}

fn human(answer: &LineageAnswer<'_>, runs: &[RoleRun], failed: &[CliError]) -> String {
    let mut t = String::new();
    for r in runs {
        match &r.outcome {
            Ok(d) => {
                t.push_str(&format!(
                    "{}: answered in {} model call(s){}; transcript {}\n",
                    r.role.name(),
                    d.model_calls,
                    if d.repaired { " (one repair turn)" } else { "" },
                    d.transcript
                ));
                // What it read and what its model calls used, as the
                // free-form review shows them.
                for line in footer_lines(d.footer.as_deref(), &d.usage) {
                    t.push_str(&format!("  {line}\n"));
                }
            }
            Err(e) => t.push_str(&format!("{}: {}\n", r.role.name(), role_error(e).message)),
        }
    }
    let f = &answer.finalize;
    t.push_str(&format!("{} is {}\n", f.lineage_id, f.state));
    t.push_str(&f.human_findings());
    if let Some(c) = &answer.evidence_check {
        t.push_str(&c.human(f.lineage_id));
    }
    for e in failed {
        t.push_str(&format!("  not submitted: {} ({})\n", e.message, e.code));
    }
    t.push_str(&format!("  next: {}\n", f.message));
    if let Some(p) = &answer.log_file {
        t.push_str(&format!("  tool events: {p}\n"));
    }
    t
}

fn run_free_form(
    global: &GlobalArgs,
    out: Output,
    args: &ReviewArgs,
    config: &ReviewConfig,
) -> Result<ExitCode, CliError> {
    let started = Wall::start();
    let (Some(subject), Some(prompt_path)) = (&args.subject, &args.prompt) else {
        return Err(CliError::new(
            ErrorKind::Usage,
            "usage",
            "probity review needs --lineage L, or --subject S with --prompt F",
            "see `probity review --help`",
        ));
    };
    // Absolute: the agent the command provider runs starts elsewhere (its
    // own scratch directory), so the `probity mcp --cwd` it is told must
    // not depend on where this run started.
    let access = global
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|cwd| std::path::absolute(cwd).ok())
        .map(|cwd| subject_access(&cwd, subject.clone()));
    let mut model = probity_model::build_with(&config.model, |k| std::env::var(k).ok(), access)
        .map_err(|e| model_not_configured(&e))?;
    let prompt = crate::authority_cmd::read_input(prompt_path, MAX_PROMPT_BYTES)?;
    let prompt = String::from_utf8(prompt.bytes).map_err(|_| {
        CliError::new(
            ErrorKind::RejectedInput,
            "prompt_unreadable",
            format!("{} is not UTF-8", prompt_path.display()),
            "pass a UTF-8 text file with --prompt",
        )
    })?;
    let reader = open_subject(global, subject)?;
    // The repository's log when the run is in one (a `disk` subject may
    // be outside any).
    let common = args
        .log_file
        .is_none()
        .then(|| open(global).ok())
        .flatten()
        .map(|ctx| ctx.repo.common_dir().to_path_buf());
    let (sink, log_file) = review_log(args.log_file.as_deref(), common.as_deref(), "review.jsonl")?;
    let mut log: Box<dyn std::io::Write> = sink;
    let mut lp = ReviewLoop::new(
        Session::new(config.budget()),
        REVIEWER_FRAME.to_owned(),
        prompt,
        args.declared.clone(),
    );
    let result = run_review(
        &mut lp,
        &mut model,
        &reader,
        &started,
        config.timeout_ms,
        &mut |e| {
            if let Ok(line) = serde_json::to_string(e) {
                let _ = writeln!(log, "{line}");
            }
        },
    );
    if let Ok(r) = &result {
        let line = UsageLine {
            event: "review.model.usage",
            role: None,
            model_calls: r.model_calls,
            usage: &r.usage,
            transcript_digest: None,
        };
        if let Ok(line) = serde_json::to_string(&line) {
            let _ = writeln!(log, "{line}");
        }
    }
    let _ = log.flush();
    let review = result.map_err(|e| {
        let (kind, code, next) = match &e {
            LoopRunError::Timeout { .. } => (
                ErrorKind::Io,
                "review_timeout",
                "the change is unreviewed; retry, or raise reviewTimeoutMs only if reviews time out that did not before",
            ),
            LoopRunError::Model(ModelError::NotConfigured(_)) => {
                (ErrorKind::Usage, "model_not_configured", "configure the model")
            }
            LoopRunError::Model(_) => (
                ErrorKind::Io,
                "model_failed",
                "the change is unreviewed; check the endpoint and retry",
            ),
            LoopRunError::Loop(LoopError::NoVerdict { .. }) => (
                ErrorKind::RejectedInput,
                "no_verdict",
                "the change is unreviewed; the review had no `VERDICT:` line",
            ),
            LoopRunError::Loop(_) => (
                ErrorKind::RejectedInput,
                "review_failed",
                "the change is unreviewed; retry",
            ),
        };
        CliError::new(kind, code, e.to_string(), next)
    })?;
    let rendered = review.rendered();
    let answer = FreeFormAnswer {
        review: &rendered,
        verdict: review.verdict().map(verdict_text),
        footer: review.footer.as_deref(),
        transcript_digest: review.transcript_digest.to_string(),
        model_calls: review.model_calls,
        length_retried: review.length_retried,
        usage: &review.usage,
        snapshot: SnapshotUse {
            calls_used: lp.session().usage().calls_used,
            bytes_used: lp.session().usage().bytes_used,
        },
        log_file: log_file.as_ref().map(|p| p.display().to_string()),
    };
    out.answer(&answer, || rendered.clone());
    Ok(ExitCode::SUCCESS)
}
