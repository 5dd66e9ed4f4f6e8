//! `probity review --subject S --prompt F`: runs the tool-use review loop
//! against a chat-completions model and prints the review with its footer.
//!
//! The model is configured by the environment or the configuration file (see
//! `probity_model::ModelConfig::resolve`). Tool events are logged as JSON
//! lines to stderr or `--log-file`. A review with a verdict exits 0 whatever
//! the verdict (it is in the text and in `--json`); no review (no verdict,
//! the model failing, the timeout) is an error: the change is unreviewed.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use probity_core::snapshot_tools::review_loop::{LoopError, REVIEWER_FRAME};
use probity_core::snapshot_tools::{ReviewLoop, Session, Verdict};
use probity_model::{ModelConfig, OpenAiChat};
use probity_ports::snapshot::{Clock, ModelError, ReviewError, run_review};
use serde_json::json;

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};
use crate::snapshot_cmd::{load_config, open_subject};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// What the reviewer's tools read: index, worktree, disk or tree:<oid>.
    #[arg(long, value_name = "S")]
    pub subject: String,
    /// The review prompt (diff, message, declared files), as a text file.
    #[arg(long, value_name = "F")]
    pub prompt: PathBuf,
    /// A declared file (left out of the footer); repeat for each.
    #[arg(long, value_name = "PATH")]
    pub declared: Vec<String>,
    /// A flat JSON configuration (reviewSnapshotMaxCalls, reviewModel, ...).
    #[arg(long, value_name = "F")]
    pub config: Option<PathBuf>,
    /// Append the event log (JSON lines) to this file instead of stderr.
    #[arg(long, value_name = "F")]
    pub log_file: Option<PathBuf>,
}

/// The largest review prompt read (`--prompt`).
pub const MAX_PROMPT_BYTES: u64 = 4 * 1024 * 1024;

struct Wall(Instant);

impl Clock for Wall {
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

pub fn run(global: &GlobalArgs, out: Output, args: &ReviewArgs) -> Result<ExitCode, CliError> {
    let started = Wall(Instant::now());
    let config = load_config(args.config.as_deref())?;
    let model_config = ModelConfig::resolve(&config.model, |k| std::env::var(k).ok()).map_err(|e| {
        CliError::new(
            ErrorKind::Usage,
            "model_not_configured",
            e.to_string(),
            "set PROBITY_MODEL_BASE_URL and PROBITY_MODEL (or reviewModelBaseUrl and reviewModel), and the key in PROBITY_MODEL_API_KEY",
        )
    })?;
    let prompt = crate::authority_cmd::read_input(&args.prompt, MAX_PROMPT_BYTES)?;
    let prompt = String::from_utf8(prompt.bytes).map_err(|_| {
        CliError::new(
            ErrorKind::RejectedInput,
            "prompt_unreadable",
            format!("{} is not UTF-8", args.prompt.display()),
            "pass a UTF-8 text file with --prompt",
        )
    })?;
    let reader = open_subject(global, &args.subject)?;
    let mut log: Box<dyn std::io::Write> = crate::snapshot_cmd::open_log(args.log_file.as_deref())?;
    let mut lp = ReviewLoop::new(
        Session::new(config.budget()),
        REVIEWER_FRAME.to_owned(),
        prompt,
        args.declared.clone(),
    );
    let mut model = OpenAiChat::new(model_config);
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
    let _ = log.flush();
    let review = result.map_err(|e| {
        let (kind, code, next) = match &e {
            ReviewError::Timeout { .. } => (
                ErrorKind::Io,
                "review_timeout",
                "the change is unreviewed; retry, or raise reviewTimeoutMs only if reviews time out that did not before",
            ),
            ReviewError::Model(ModelError::NotConfigured(_)) => {
                (ErrorKind::Usage, "model_not_configured", "configure the model")
            }
            ReviewError::Model(_) => (
                ErrorKind::Io,
                "model_failed",
                "the change is unreviewed; check the endpoint and retry",
            ),
            ReviewError::Loop(LoopError::NoVerdict { .. }) => (
                ErrorKind::RejectedInput,
                "no_verdict",
                "the change is unreviewed; the review had no `VERDICT:` line",
            ),
            ReviewError::Loop(_) => (
                ErrorKind::RejectedInput,
                "review_failed",
                "the change is unreviewed; retry",
            ),
        };
        CliError::new(kind, code, e.to_string(), next)
    })?;
    let rendered = review.rendered();
    let doc = json!({
        "review": rendered,
        "verdict": review.verdict().map(verdict_text),
        "footer": review.footer,
        "transcript_digest": review.transcript_digest.to_string(),
        "model_calls": review.model_calls,
        "length_retried": review.length_retried,
        "snapshot": {
            "calls_used": lp.session().usage().calls_used,
            "bytes_used": lp.session().usage().bytes_used,
        },
    });
    out.answer(&doc, || rendered.clone());
    Ok(ExitCode::SUCCESS)
}
