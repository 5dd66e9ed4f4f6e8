//! `probity report` and `probity log` (issue 22 §4): a lineage's review as
//! Markdown (a pull-request comment, `$GITHUB_STEP_SUMMARY`) or SARIF
//! 2.1.0, and its history as a timeline. Read-only. This module gathers
//! the inputs (the chain from the store, or the bundles the notes carry
//! for a range; the commits, the kept check, the signing keys) and writes
//! the result; every word is core's (`review::report`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use probity_core::review::StateRecord;
use probity_core::review::{Bundle, note_lines};
use probity_core::review::{
    ChainEntry, CheckSummary, LogEvent, RangeReviews, Report, range_markdown, sarif_log,
};
use probity_core::review::{CommitId, LineageId};
use probity_ports::review::{self as drivers, AttestationStore, GitPort, RemoteScope, TreeSpan};

use crate::GlobalArgs;
use crate::authority_cmd::{Context, open, parse_lineage, review_error};
use crate::output::{CliError, ErrorKind, Output, emit_bytes};

/// The most commits `report --range` reads.
const MAX_RANGE_COMMITS: usize = 1000;

/// `probity report`'s formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Markdown for a pull-request comment or a CI job summary.
    Markdown,
    /// SARIF 2.1.0 (the findings, for code-scanning views).
    Sarif,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The lineage (default: the one that froze the live candidate); its
    /// recovery chain is read from this clone's store.
    #[arg(long, conflicts_with = "range")]
    pub lineage: Option<String>,
    /// Report on the commits of `A..B` instead, from the review bundles
    /// `refs/notes/probity` carries for them (CI, where no store exists).
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
    /// markdown or sarif.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: ReportFormat,
    /// Write the report here instead of stdout (an existing file is
    /// replaced); the answer then says what was written.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// The lineage (default: the one that froze the live candidate); the
    /// whole recovery chain it belongs to is shown.
    #[arg(long)]
    pub lineage: Option<String>,
}

/// A lineage's chain from the store: generation 1 to its leaf, each with
/// the commit that holds its change, its kept check and signing keys.
fn chain_of(ctx: &Context, lineage: &LineageId) -> Result<Vec<ChainEntry>, CliError> {
    let bundle = drivers::export_bundle(&ctx.store, lineage)
        .map_err(crate::authority_cmd::transport_error)?;
    let mut chain = Vec::new();
    for record in bundle.records {
        let id = record.state().lineage_id().clone();
        let commit = commit_of(ctx, &record)?;
        let check = ctx
            .store
            .check_output(&id)
            .map_err(|e| review_error(e.into()))?
            .map(|k| CheckSummary {
                argv: k.header.argv,
                tree: k.header.tree,
                exit: k.header.exit,
                passed: k.header.passed,
                evidence_hash: k.header.evidence_hash,
            });
        let signers = keyids(
            &ctx.store
                .attestations(&id)
                .map_err(|e| review_error(e.into()))?,
        );
        chain.push(ChainEntry {
            record,
            commit,
            check,
            signers,
        });
    }
    Ok(chain)
}

fn keyids(envelopes: &[probity_core::review::DsseEnvelope]) -> Vec<String> {
    envelopes
        .iter()
        .flat_map(|e| e.signatures.iter())
        .map(|s| s.keyid.clone().unwrap_or_else(|| "(no keyid)".into()))
        .collect()
}

/// The commit among the recent history that holds a record's change, as
/// `probity list` finds it.
fn commit_of(ctx: &Context, record: &StateRecord) -> Result<Option<CommitId>, CliError> {
    let s = record.state();
    for end in [s.final_candidate_tree(), &s.snapshot().candidate_tree] {
        if let Some(c) = GitPort::committed_commit(
            &ctx.repo,
            TreeSpan {
                from: &s.snapshot().base_tree,
                to: end,
            },
        )
        .map_err(|e| review_error(drivers::ReviewError::Repository(e)))?
        {
            return Ok(Some(c.commit));
        }
    }
    Ok(None)
}

fn lineage_report(global: &GlobalArgs, lineage: Option<&str>) -> Result<Report, CliError> {
    let ctx = open(global)?;
    let lineage = lineage.map(parse_lineage).transpose()?;
    let record = ctx.record_of(lineage.as_ref())?;
    let id = record.state().lineage_id().clone();
    let chain = chain_of(&ctx, &id)?;
    Report::new(&id, chain).map_err(|e| {
        CliError::new(
            ErrorKind::Integrity,
            "store_corrupted",
            e.to_string(),
            "check the store with `probity list`; `probity bundle export --lineage L` names the broken link",
        )
    })
}

/// The reviews the notes carry for every commit of `A..B`, oldest first.
fn range_reviews(global: &GlobalArgs, range: &str) -> Result<Vec<RangeReviews>, CliError> {
    let bad = || {
        CliError::new(
            ErrorKind::Usage,
            "bad_range",
            format!("`{range}` is not a range A..B"),
            "pass --range BASE..HEAD, e.g. --range origin/main..HEAD",
        )
    };
    let (a, b) = range.split_once("..").ok_or_else(bad)?;
    if a.is_empty() || b.is_empty() || b.starts_with('.') {
        return Err(bad());
    }
    let ctx = open(global)?;
    let resolve = |rev: &str| {
        ctx.repo.resolve_commit(rev).map_err(|e| {
            CliError::new(
                ErrorKind::RejectedInput,
                "unknown_revision",
                e.to_string(),
                "name commits this clone has (fetch them first)",
            )
        })
    };
    let (a, b) = (resolve(a)?, resolve(b)?);
    let repo_fail =
        |e: probity_git::GitError| review_error(drivers::ReviewError::Repository(Box::new(e)));
    let mut commits = ctx
        .repo
        .range_commits(&b, &[a], &RemoteScope::None, MAX_RANGE_COMMITS)
        .map_err(repo_fail)?;
    commits.reverse();
    let notes = ctx.repo.notes_tip().map_err(repo_fail)?;
    let mut out = Vec::new();
    for c in commits {
        let mut item = RangeReviews {
            commit: c.commit.clone(),
            reports: Vec::new(),
            refused: Vec::new(),
        };
        let bytes = match &notes {
            Some(n) => ctx
                .repo
                .read_note(n, &c.commit, probity_core::review::MAX_NOTE_BYTES)
                .map_err(repo_fail)?,
            None => None,
        };
        if let Some(bytes) = bytes {
            match note_lines(&bytes) {
                Err(e) => item.refused.push(e.to_string()),
                Ok(lines) => {
                    for (i, line) in lines.iter().enumerate() {
                        match Bundle::from_bytes(line) {
                            Err(e) => item.refused.push(format!("line {}: {e}", i + 1)),
                            Ok(bundle) => item.reports.push(bundle_report(&bundle, &c.commit)?),
                        }
                    }
                }
            }
        }
        out.push(item);
    }
    Ok(out)
}

/// A bundle's leaf as a report: its chain, the commit whose note carries
/// it on the leaf, and the keys of the bundle's attestations on the leaf.
fn bundle_report(bundle: &Bundle, commit: &CommitId) -> Result<Report, CliError> {
    let n = bundle.records.len();
    let chain = bundle
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| ChainEntry {
            record: r.clone(),
            commit: (i + 1 == n).then(|| commit.clone()),
            // A v2 bundle carries the check each record took (D-R69).
            check: bundle.evidence_of(r).and_then(CheckSummary::of_document),
            signers: if i + 1 == n {
                keyids(&bundle.attestations)
            } else {
                Vec::new()
            },
        })
        .collect();
    Report::new(&bundle.lineage_id, chain).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "bundle_invalid",
            e.to_string(),
            "republish the review with `probity publish`",
        )
    })
}

/// The `report --out` answer.
#[derive(Debug, Serialize)]
struct Written<'a> {
    format: &'static str,
    path: String,
    bytes: usize,
    /// The verdict of each report written (a range: one per bundle).
    verdicts: Vec<Verdict<'a>>,
}

#[derive(Debug, Serialize)]
struct Verdict<'a> {
    lineage_id: &'a LineageId,
    verdict: &'static str,
}

/// The `report --json` answer (Markdown to stdout).
#[derive(Debug, Serialize)]
struct MarkdownAnswer<'a> {
    verdicts: Vec<Verdict<'a>>,
    markdown: &'a str,
}

pub fn report(global: &GlobalArgs, out: Output, args: &ReportArgs) -> Result<ExitCode, CliError> {
    let version = env!("CARGO_PKG_VERSION");
    let (reports, markdown) = match &args.range {
        Some(range) => {
            let items = range_reviews(global, range)?;
            let md = range_markdown(range, &items);
            (items.into_iter().flat_map(|i| i.reports).collect(), md)
        }
        None => {
            let r = lineage_report(global, args.lineage.as_deref())?;
            let md = r.markdown();
            (vec![r], md)
        }
    };
    let refs: Vec<&Report> = reports.iter().collect();
    let verdicts = || {
        reports
            .iter()
            .map(|r| Verdict {
                lineage_id: r.lineage_id(),
                verdict: r.verdict(),
            })
            .collect::<Vec<_>>()
    };
    let (bytes, format) = match args.format {
        ReportFormat::Markdown => (markdown.clone().into_bytes(), "markdown"),
        ReportFormat::Sarif => {
            let mut b = serde_json::to_vec_pretty(&sarif_log(&refs, version)).map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "report_io",
                    format!("could not write the SARIF log: {e}"),
                    "retry; report this if it persists",
                )
            })?;
            b.push(b'\n');
            (b, "sarif")
        }
    };
    match &args.out {
        Some(path) => {
            probity_scratch::output::write_output(path, &bytes).map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "report_io",
                    e.to_string(),
                    "pass a writable --out path",
                )
            })?;
            let answer = Written {
                format,
                path: path.display().to_string(),
                bytes: bytes.len(),
                verdicts: verdicts(),
            };
            out.answer(&answer, || {
                format!(
                    "wrote the {format} report ({} bytes) to {}\n",
                    answer.bytes, answer.path
                )
            });
        }
        // SARIF is JSON already; Markdown with --json is wrapped.
        None if out.json && args.format == ReportFormat::Markdown => {
            let answer = MarkdownAnswer {
                verdicts: verdicts(),
                markdown: &markdown,
            };
            out.answer(&answer, String::new);
        }
        None => emit_bytes(&bytes),
    }
    Ok(ExitCode::SUCCESS)
}

/// The `log --json` answer.
#[derive(Debug, Serialize)]
struct LogAnswer<'a> {
    lineage_id: &'a LineageId,
    verdict: &'static str,
    events: Vec<LogEvent>,
}

pub fn log(global: &GlobalArgs, out: Output, args: &LogArgs) -> Result<ExitCode, CliError> {
    let r = lineage_report(global, args.lineage.as_deref())?;
    let answer = LogAnswer {
        lineage_id: r.lineage_id(),
        verdict: r.verdict(),
        events: r.timeline(),
    };
    out.answer(&answer, || r.timeline_text());
    Ok(ExitCode::SUCCESS)
}
