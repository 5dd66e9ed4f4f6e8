//! `probity lens preflight | submit | replay | context`: a lens result's
//! way into the store before `finalize`, and what a lens is given.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::LineageId;
use probity_core::review::{LensBinding, StateRecord};
use probity_ports::review::{self as drivers, SubmitInput, Submitted};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

use super::*;

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
    use probity_core::review::PromptSet;
    use probity_core::review::RoleError;
    use probity_core::snapshot_tools::ContextCaps;
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let ctx = open(global)?;
    let record = ctx.record_of(lineage.as_ref())?;
    let lineage = record.state().lineage_id().clone();
    let exported =
        drivers::export_context(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    let lens: Lens = args.lens.into();
    let c = probity_core::review::lens_context(
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
            format!("`probity status --lineage {lineage}` names the next input; a lens runs only while the lineage awaits lens results"),
        )
        .with_next_tool(Some(probity_core::review::refused_input(&lineage)))
    })?;
    let token = record
        .state()
        .lens_bindings()
        .into_iter()
        .find(|b| b.lens == lens)
        .map(|b| b.token);
    let answer = LensContextAnswer {
        lineage_id: &lineage,
        state: record.state().stage().name(),
        lens,
        finding_id_prefix: lens.prefix(),
        binding: c.binding.as_deref(),
        token: token.clone(),
        prompt_digest: &c.prompt_digest,
        subject: format!("tree:{}", record.state().snapshot().candidate_tree),
        system: &c.system,
        user: &c.user,
        schema: probity_core::review::SchemaDoc::Reviewer.schema(),
        // Every value the tool knows, filled in (issue 26 §1); `F` is the
        // result file.
        submit: match &token {
            Some(token) => format!(
                "probity lens submit --lineage {lineage} --lens {} --binding {token} F",
                lens.name()
            ),
            None => format!(
                "probity lens submit --lineage {lineage} --lens {} F",
                lens.name()
            ),
        },
    };
    out.answer_next(
        &answer,
        || {
            Some(probity_core::review::NextTool::lens_submit(
                &lineage,
                lens,
                token.as_deref(),
            ))
        },
        || format!("{}\n\n{}\n", c.system, c.user),
    );
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

/// `probity lens replay` (R3.6).
fn replay(global: &GlobalArgs, out: Output, args: &ReplayArgs) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let artifact = read_input(
        &args.file,
        probity_core::review::MAX_ROLE_DOCUMENT_BYTES * 2,
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
    use probity_ports::review::RecordStore;
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
    let failure = probity_core::review::NonBlank::parse(why.to_string())
        .or_else(|_| probity_core::review::NonBlank::parse("the capture failed"));
    let bytes = failure.ok().and_then(|failure| {
        probity_core::review::preserve(
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
    // Whole or not at all: written to a temp file beside it (mode 0600,
    // removed if the run is interrupted), then renamed to the path only if
    // nothing is there. A file made in place and interrupted mid-write was
    // left half written, and the retry refused by it.
    let written = (|| {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        let mut tmp = probity_scratch::LockedTemp::new_in(dir, ".probity-preserve-")?;
        tmp.write_all(&bytes)?;
        probity_scratch::sync_file(tmp.as_file())?;
        tmp.persist_new(path).map(drop)
    })();
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
            err.next_action = err.next_action.and(&kept);
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
    let next_tool = || probity_core::review::record_next_tool(&done.record, &done.submitted, None);
    out.answer_next(&answer, next_tool, || {
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
