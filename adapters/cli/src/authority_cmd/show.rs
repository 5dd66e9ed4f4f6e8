//! `probity show evidence [--lineage L]` (issue 20 §1): what the last check
//! `--evidence-cmd` ran for a lineage printed, and the last bytes of its
//! output, as the store keeps them. Read-only.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::{LineageId, TreeId};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

use super::*;

/// What `probity show` prints.
#[derive(Debug, Subcommand)]
pub enum ShowCommand {
    /// The check `--evidence-cmd` ran for a lineage: its tree, argv, exit,
    /// output hash and length, and the last 64 KiB of its output.
    Evidence(ShowEvidenceArgs),
}

#[derive(Debug, Args)]
pub struct ShowEvidenceArgs {
    /// The lineage (default: the one that froze the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
}

#[derive(Debug, Serialize)]
struct EvidenceView<'a> {
    lineage_id: &'a LineageId,
    tree: &'a TreeId,
    argv: &'a [String],
    exit: &'a str,
    passed: bool,
    output_bytes: u64,
    output_sha256: &'a Sha256Digest,
    evidence_hash: &'a Sha256Digest,
    tail_bytes: u64,
    /// The kept tail, lossy UTF-8.
    output_tail: String,
}

pub fn show(global: &GlobalArgs, out: Output, command: &ShowCommand) -> Result<ExitCode, CliError> {
    let ShowCommand::Evidence(args) = command;
    let ctx = open(global)?;
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let record = ctx.record_of(lineage.as_ref())?;
    let lineage = record.state().lineage_id();
    let kept = ctx
        .store
        .check_output(lineage)
        .map_err(|e| review_error(e.into()))?
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::RejectedInput,
                "no_check_output",
                format!("lineage {lineage} has no check output: no `--evidence-cmd` check landed on it"),
                format!("run the check: `probity finalize --lineage {lineage} --evidence-cmd -- ARGV...`"),
            )
        })?;
    let h = &kept.header;
    let view = EvidenceView {
        lineage_id: &h.lineage_id,
        tree: &h.tree,
        argv: &h.argv,
        exit: &h.exit,
        passed: h.passed,
        output_bytes: h.output_bytes,
        output_sha256: &h.output_sha256,
        evidence_hash: &h.evidence_hash,
        tail_bytes: h.tail_bytes,
        output_tail: String::from_utf8_lossy(&kept.tail).into_owned(),
    };
    out.answer(&view, || {
        let mut t = format!(
            "{}: check `{}` on tree {}: {} ({})\n  output: {} bytes, sha256 {}; its last {} bytes:\n",
            view.lineage_id,
            view.argv.join(" "),
            view.tree,
            view.exit,
            if view.passed { "passed" } else { "failed" },
            view.output_bytes,
            view.output_sha256,
            view.tail_bytes,
        );
        t.push_str(&view.output_tail);
        if !view.output_tail.is_empty() && !view.output_tail.ends_with('\n') {
            t.push('\n');
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}
