//! `probity export-context` (R10.2): a lineage's frozen review context,
//! read-only, for any lineage the store holds.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Args;

use probity_ports::review as drivers;

use crate::GlobalArgs;
use crate::authority_cmd::{open, parse_lineage, review_error};
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The lineage whose frozen context to export (current or not).
    #[arg(long)]
    pub lineage: String,
    /// Print only the candidate diff's bytes (the decoded payload) on stdout.
    #[arg(long, conflicts_with = "json")]
    pub patch: bool,
}

pub fn run(global: &GlobalArgs, out: Output, args: &ExportArgs) -> Result<ExitCode, CliError> {
    if args.patch && global.json {
        return Err(CliError::new(
            ErrorKind::Usage,
            "usage",
            "--patch prints the diff bytes and cannot be combined with --json",
            "use --json for the envelope, or --patch for the bytes",
        ));
    }
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    let drivers::Exported {
        envelope: export,
        diff,
    } = drivers::export_context(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    if args.patch {
        std::io::stdout().write_all(&diff).map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "stdout",
                e.to_string(),
                "check the output pipe",
            )
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let v = serde_json::to_value(&export).map_err(|e| {
        CliError::new(
            ErrorKind::Integrity,
            "serialize",
            e.to_string(),
            "report this as a bug",
        )
    })?;
    out.answer(&v, || {
        format!(
            "{} {} (generation {}, {})\n  base {} -> candidate {}\n  {} changed path(s); diff {} bytes, {}\n  derived with {} ({})\n  use --json for the payload, --patch for the diff\n",
            export.lineage_id,
            export.state,
            export.generation,
            serde_json::to_value(export.applicability)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            export.snapshot.base_tree,
            export.snapshot.candidate_tree,
            export.changed_path_manifest.len(),
            export.candidate_diff.byte_size,
            export.candidate_diff.sha256,
            export.derivation.command,
            export.derivation.git_version,
        )
    });
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct AttestArgs {
    /// The terminal lineage whose receipt to attest.
    #[arg(long)]
    pub lineage: String,
    /// Also write the canonical candidate manifest (the subject's bytes) to
    /// FILE, so a verifier can recompute the subject digest.
    #[arg(long, value_name = "FILE")]
    pub manifest_out: Option<std::path::PathBuf>,
}

/// `probity attest`: the receipt as an in-toto Statement v1 (canonical
/// JSON on stdout; sign it with any in-toto/DSSE tool).
pub fn attest(global: &GlobalArgs, _out: Output, args: &AttestArgs) -> Result<ExitCode, CliError> {
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    let attested = drivers::attest(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    if let Some(path) = &args.manifest_out {
        std::fs::write(path, &attested.manifest).map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "manifest_io",
                format!("{}: {e}", path.display()),
                "pass a writable --manifest-out path",
            )
        })?;
    }
    // Exactly the canonical bytes (no trailing newline): what a signer signs.
    let mut stdout = std::io::stdout();
    stdout
        .write_all(&attested.statement)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "stdout",
                e.to_string(),
                "check the output pipe",
            )
        })?;
    Ok(ExitCode::SUCCESS)
}
