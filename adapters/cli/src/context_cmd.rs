//! `probity context assemble|verify`: entity-context-snapshot v1 trees.
//!
//! `assemble` reads a normalized-input document (`docs/context.md`), builds
//! the tree with the pure assembler, writes it to a new directory (0700
//! directories, 0600 files) and prints the root `index_digest` that the
//! host must retain. `verify` checks a directory against that retained
//! digest and, with `--copy-to`, writes a verified read-only copy.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use probity_core::context::HexDigest;
use probity_store::context_dir;

use crate::GlobalArgs;
use crate::context_shared::{assemble_error, assemble_input, assembled_answer, dir_error, resolve};
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Subcommand)]
pub enum ContextCommand {
    /// Build a context tree from a normalized-input document.
    Assemble(AssembleArgs),
    /// Verify a context tree against its retained root-index digest.
    Verify(VerifyArgs),
    /// Fetch one pull request or issue from a forge and assemble its tree.
    Fetch(crate::context_fetch::FetchArgs),
    /// Run an agent over a verified, read-only sandbox copy of a context
    /// tree (C5): the copy, and a tree assembled for the run, are removed on
    /// every controlled exit; abandoned ones are scavenged at the next run.
    Run(crate::context_run::RunArgs),
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// The normalized-input JSON document (format probity-context-input/1).
    #[arg(long, value_name = "F")]
    pub input: PathBuf,
    /// The directory to create (it must not exist).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The context directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The retained root-index digest (64 lowercase hex, `sha256:` optional).
    #[arg(long, value_name = "SHA")]
    pub index_digest: String,
    /// Write a verified read-only copy (0555/0444) to this new directory.
    #[arg(long, value_name = "DIR2")]
    pub copy_to: Option<PathBuf>,
}

/// Runs a `context` subcommand.
pub fn run(global: &GlobalArgs, out: Output, cmd: &ContextCommand) -> Result<ExitCode, CliError> {
    match cmd {
        ContextCommand::Assemble(a) => run_assemble(global, out, a),
        ContextCommand::Verify(v) => run_verify(global, out, v),
        ContextCommand::Fetch(f) => {
            let shared = crate::context_fetch::Shared {
                resolve,
                assemble_error,
                dir_error,
            };
            crate::context_fetch::run(global, out, f, &shared)
        }
        ContextCommand::Run(r) => crate::context_run::run(global, out, r),
    }
}

fn run_assemble(global: &GlobalArgs, out: Output, a: &AssembleArgs) -> Result<ExitCode, CliError> {
    let assembly = assemble_input(global, &a.input)?;
    let dir = resolve(global, &a.out);
    context_dir::write_tree(&dir, &assembly.tree).map_err(|e| dir_error(&e))?;
    assembled_answer(out, &dir, &assembly);
    Ok(ExitCode::SUCCESS)
}

fn run_verify(global: &GlobalArgs, out: Output, v: &VerifyArgs) -> Result<ExitCode, CliError> {
    let raw = v
        .index_digest
        .strip_prefix("sha256:")
        .unwrap_or(&v.index_digest);
    let retained = HexDigest::parse(raw).map_err(|e| {
        CliError::new(
            ErrorKind::Usage,
            "bad_index_digest",
            e.to_string(),
            "pass the index_digest printed by `probity context assemble`",
        )
    })?;
    let dir = resolve(global, &v.dir);
    let verified = context_dir::verify_dir(&dir, &retained).map_err(|e| dir_error(&e))?;
    let copy = match &v.copy_to {
        Some(dest) => {
            let dest = resolve(global, dest);
            context_dir::copy_verified(&verified, &dest).map_err(|e| dir_error(&e))?;
            Some(dest.display().to_string())
        }
        None => None,
    };
    out.answer(
        &VerifiedAnswer {
            verified: true,
            index_digest: verified.index_digest().hex(),
            files: verified.files().len(),
            copy: copy.clone(),
        },
        || match &copy {
            Some(c) => format!(
                "verified {} files; read-only copy at {c}\n",
                verified.files().len()
            ),
            None => format!("verified {} files\n", verified.files().len()),
        },
    );
    Ok(ExitCode::SUCCESS)
}

/// `context verify`'s answer.
#[derive(serde::Serialize)]
struct VerifiedAnswer {
    verified: bool,
    index_digest: String,
    files: usize,
    /// The read-only verified copy, when one was asked for (`null` else).
    copy: Option<String>,
}
