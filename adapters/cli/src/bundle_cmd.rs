//! Authority that travels (R11): `probity bundle export | import` and
//! `probity publish` (what `probity push` publishes with its commits).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::NOTES_REF;
use probity_core::review::{Bundle, MAX_BUNDLE_BYTES};
use probity_core::review::{CommitId, LineageId};
use probity_git::Repo;
use probity_ports::review::{self as drivers, RemoteScope};

use crate::GlobalArgs;
use crate::authority_cmd::{open, parse_lineage, transport_error};
use crate::output::{CliError, ErrorKind, Output};

/// `probity bundle ...`
#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Print (or write) a lineage's whole chain as one canonical bundle.
    Export(ExportArgs),
    /// Verify a bundle against this repository and import it into the store.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The lineage whose chain (generation 1 to its leaf) is exported.
    #[arg(long, value_name = "ID")]
    pub lineage: String,
    /// Write the bundle here (canonical JSON + LF) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The bundle file (at most 4 MiB).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The commits to publish for, `A..B` (default: the commits of HEAD no
    /// remote-tracking ref holds).
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
}

pub(crate) fn repo_error(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "fix the repository error above and retry",
    )
}

pub fn bundle(global: &GlobalArgs, out: Output, cmd: &BundleCommand) -> Result<ExitCode, CliError> {
    match cmd {
        BundleCommand::Export(a) => export(global, out, a),
        BundleCommand::Import(a) => import(global, out, a),
    }
}

fn export(global: &GlobalArgs, out: Output, args: &ExportArgs) -> Result<ExitCode, CliError> {
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    let b = drivers::export_bundle(&ctx.store, &lineage).map_err(transport_error)?;
    let mut bytes = b.to_bytes().map_err(|e| transport_error(e.into()))?;
    bytes.push(b'\n');
    match &args.out {
        None => crate::output::emit_bytes(&bytes),
        Some(path) => {
            probity_scratch::output::write_output(path, &bytes).map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "bundle_io",
                    e.to_string(),
                    "pass a writable --out path",
                )
            })?;
            out.answer(&BundleSummary::of(&b), || {
                format!(
                    "exported {} ({} record(s)) to {}\n  digest {}\n",
                    b.lineage_id,
                    b.records.len(),
                    path.display(),
                    b.digest
                )
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The `bundle export --out` answer: what the bundle carries.
#[derive(Debug, Serialize)]
struct BundleSummary<'a> {
    lineage_id: &'a LineageId,
    digest: &'a Sha256Digest,
    /// The records of the chain, generation 1 to the leaf.
    records: usize,
    /// The leaf's state name (`null` for a bundle without records).
    state: Option<&'static str>,
    attestations: usize,
}

impl<'a> BundleSummary<'a> {
    fn of(b: &'a Bundle) -> Self {
        Self {
            lineage_id: &b.lineage_id,
            digest: &b.digest,
            records: b.records.len(),
            state: b.leaf().map(|r| r.state().stage().name()),
            attestations: b.attestations.len(),
        }
    }
}

/// The `bundle import` answer: the bundle's summary and how many of its
/// records the store gained (0: it already held them all).
#[derive(Debug, Serialize)]
struct ImportAnswer<'a> {
    #[serde(flatten)]
    bundle: BundleSummary<'a>,
    written: usize,
}

/// Reads at most `MAX_BUNDLE_BYTES + 1` bytes: a longer file is refused by
/// the parser (`input_too_large`) without being read whole.
/// A bundle file: a regular file only (a FIFO or a device is refused at
/// once), read under the bundle bound.
fn read_bounded(path: &Path) -> Result<Vec<u8>, CliError> {
    Ok(crate::authority_cmd::read_input(path, MAX_BUNDLE_BYTES as u64)?.bytes)
}

fn import(global: &GlobalArgs, out: Output, args: &ImportArgs) -> Result<ExitCode, CliError> {
    let bytes = read_bounded(&args.file)?;
    let ctx = open(global)?;
    let b = drivers::verify_bundle(&ctx.repo, &bytes).map_err(transport_error)?;
    let imported = drivers::import_bundle(&ctx.store, &b).map_err(transport_error)?;
    let answer = ImportAnswer {
        bundle: BundleSummary::of(&b),
        written: imported.written,
    };
    out.answer(&answer, || {
        format!(
            "imported {}: {} of {} record(s) written{}\n",
            b.lineage_id,
            imported.written,
            imported.records,
            if imported.written == 0 {
                " (the store already held them)"
            } else {
                ""
            }
        )
    });
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn resolve(repo: &Repo, rev: &str) -> Result<CommitId, CliError> {
    repo.resolve_commit(rev).map_err(repo_error)
}

/// The `publish` answer (and each publication of `push`'s).
#[derive(Debug, Serialize)]
pub(crate) struct PublishAnswer<'a> {
    notes_ref: &'static str,
    /// The commits whose note gained the bundle.
    written: Vec<NotePair<'a>>,
    /// The commits whose note already held it.
    unchanged: Vec<NotePair<'a>>,
    /// The commits no approved review delivers.
    unreviewed: &'a [CommitId],
}

/// A delivery commit and the lineage its note carries.
#[derive(Debug, Serialize)]
struct NotePair<'a> {
    commit: &'a CommitId,
    lineage_id: &'a LineageId,
}

impl<'a> PublishAnswer<'a> {
    pub(crate) fn of(p: &'a drivers::Published) -> Self {
        let pairs = |v: &'a [(CommitId, LineageId)]| {
            v.iter()
                .map(|(commit, lineage_id)| NotePair { commit, lineage_id })
                .collect()
        };
        Self {
            notes_ref: NOTES_REF,
            written: pairs(&p.written),
            unchanged: pairs(&p.unchanged),
            unreviewed: &p.unreviewed,
        }
    }
}

pub(crate) fn published_text(p: &drivers::Published) -> String {
    let mut t = format!(
        "{NOTES_REF}: {} note(s) written, {} already current, {} commit(s) without an approved review\n",
        p.written.len(),
        p.unchanged.len(),
        p.unreviewed.len()
    );
    for (c, l) in &p.written {
        t.push_str(&format!("  {c} <- {l}\n"));
    }
    // Why a commit has no approved review (none made, one that does not
    // cover it, a rebased approval its new base raises): the gate says.
    if let Some(c) = p.unreviewed.first() {
        t.push_str(&format!(
            "  next: `probity validate --gate release --revision {c}` says why {c} has none (review it with `probity start --commit {c}`)\n"
        ));
    }
    t
}

pub fn publish(global: &GlobalArgs, out: Output, args: &PublishArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    // What a killed publish or push left (a scratch notes ref) goes first,
    // even when this run has nothing to write.
    ctx.repo.settle_scratch_notes();
    let (tip, exclude, remotes) = match &args.range {
        Some(spec) => {
            let (a, b) = spec
                .split_once("..")
                .filter(|(a, b)| !a.is_empty() && !b.is_empty() && !b.starts_with('.'))
                .ok_or_else(|| {
                    CliError::new(
                        ErrorKind::Usage,
                        "bad_range",
                        format!("`{spec}` is not A..B"),
                        "name two revisions joined by two dots, e.g. --range origin/main..HEAD",
                    )
                })?;
            (
                resolve(&ctx.repo, b)?,
                vec![resolve(&ctx.repo, a)?],
                RemoteScope::None,
            )
        }
        None => (resolve(&ctx.repo, "HEAD")?, Vec::new(), RemoteScope::All),
    };
    let p = drivers::publish(&ctx.repo, &ctx.store, &tip, &exclude, &remotes)
        .map_err(transport_error)?;
    out.answer(&PublishAnswer::of(&p), || published_text(&p));
    Ok(ExitCode::SUCCESS)
}
