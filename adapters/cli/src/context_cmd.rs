//! `probity context assemble|verify`: entity-context-snapshot v1 trees.
//!
//! `assemble` reads a normalized-input document (`docs/context.md`), builds
//! the tree with the pure assembler, writes it to a new directory (0700
//! directories, 0600 files) and prints the root `index_digest` that the
//! host must retain. `verify` checks a directory against that retained
//! digest and, with `--copy-to`, writes a verified read-only copy.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use probity_core::context::assemble::{AssembleError, Assembly};
use probity_core::context::input::ContextInput;
use probity_core::context::types::HexDigest;
use probity_ports::context::{assemble_parallel, default_workers};
use probity_store::context_dir::{self, ContextDirError};

use crate::GlobalArgs;
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

pub(crate) fn resolve(global: &GlobalArgs, p: &Path) -> PathBuf {
    match &global.cwd {
        Some(cwd) if p.is_relative() => cwd.join(p),
        _ => p.to_path_buf(),
    }
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

pub(crate) fn assemble_error(e: &AssembleError) -> CliError {
    let (code, next) = match e {
        AssembleError::Format(_) | AssembleError::Input(_) => (
            "invalid_context_input",
            "fix the normalized-input document (see docs/context.md)",
        ),
        AssembleError::Profile(_) => (
            "invalid_collection_profile",
            "fix the collection profile; nothing was fetched or assembled",
        ),
        AssembleError::Source { .. } => (
            "invalid_index_source",
            "the index source is required and never rewritten: fix the adapter mapping",
        ),
        AssembleError::EntityAborted { .. } => (
            "entity_scope_aborted",
            "do not launch scripts or an agent for this entity",
        ),
        AssembleError::Filter(_) => (
            "filter_unavailable",
            "a filter detector failed: assembly aborts and never passes original bytes",
        ),
        AssembleError::Canonical(_) | AssembleError::Schema(_) => (
            "internal_context_error",
            "report this: the assembler produced a document it cannot emit",
        ),
    };
    let kind = match e {
        AssembleError::Filter(_) | AssembleError::Canonical(_) | AssembleError::Schema(_) => {
            ErrorKind::Io
        }
        _ => ErrorKind::RejectedInput,
    };
    CliError::new(kind, code, e.to_string(), next)
}

pub(crate) fn dir_error(e: &ContextDirError) -> CliError {
    match e {
        ContextDirError::Verify(v) => CliError::new(
            ErrorKind::Integrity,
            "context_verification_failed",
            v.to_string(),
            "do not use this tree: re-assemble it from the forge",
        ),
        ContextDirError::RootSymlink(_)
        | ContextDirError::RootNotDirectory(_)
        | ContextDirError::Changed(_)
        | ContextDirError::NonUtf8Name(_)
        | ContextDirError::BadPath(_) => CliError::new(
            ErrorKind::Integrity,
            "context_verification_failed",
            e.to_string(),
            "do not use this tree: re-assemble it from the forge",
        ),
        ContextDirError::InsideRepository { .. } => CliError::new(
            ErrorKind::RejectedInput,
            "context_dir_in_repository",
            e.to_string(),
            "write the tree outside every Git worktree (a temporary directory, say): agents and commits must never pick it up",
        ),
        ContextDirError::Exists(_) => CliError::new(
            ErrorKind::Conflict,
            "context_dir_exists",
            e.to_string(),
            "choose a new directory; context trees are never written over",
        ),
        ContextDirError::Io { .. } => CliError::new(
            ErrorKind::Io,
            "context_io",
            e.to_string(),
            "check the path and permissions",
        ),
    }
}

/// Reads a normalized-input document (a regular file under its bound,
/// strictly parsed) and assembles it, the filter spread over the cores.
pub(crate) fn assemble_input(
    global: &GlobalArgs,
    input: &Path,
) -> Result<probity_core::context::assemble::Assembly, CliError> {
    let input_path = resolve(global, input);
    // A regular file only (a FIFO or a device is refused at once), read
    // under its bound.
    let bytes = crate::authority_cmd::read_input(
        &input_path,
        probity_core::context::input::MAX_INPUT_BYTES,
    )?
    .bytes;
    // Bad content is rejected input (exit 3), not an I/O failure; the
    // strict reader refuses duplicate keys and integers a canonical digest
    // would round.
    let input: ContextInput = probity_core::canonical::from_slice_strict(&bytes).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "invalid_context_input",
            format!("{}: {e}", input_path.display()),
            "fix the normalized-input document (see docs/context.md)",
        )
    })?;
    // The filter runs spread over the machine's cores; the same bytes as
    // the single-threaded `assemble`.
    assemble_parallel(&input, default_workers()).map_err(|e| assemble_error(&e))
}

fn run_assemble(global: &GlobalArgs, out: Output, a: &AssembleArgs) -> Result<ExitCode, CliError> {
    let assembly = assemble_input(global, &a.input)?;
    let dir = resolve(global, &a.out);
    context_dir::write_tree(&dir, &assembly.tree).map_err(|e| dir_error(&e))?;
    assembled_answer(out, &dir, &assembly);
    Ok(ExitCode::SUCCESS)
}

/// One gap row of an assembled tree.
#[derive(Debug, serde::Serialize)]
struct GapRow<'a> {
    scope: &'a str,
    code: &'a str,
    count: u64,
}

/// The answer of `context assemble` and `context fetch`: the index digest,
/// where the tree is, how many files it holds and its gaps.
#[derive(Debug, serde::Serialize)]
struct AssembledAnswer<'a> {
    index_digest: String,
    dir: String,
    files: usize,
    gaps: Vec<GapRow<'a>>,
}

/// Prints the answer for a tree assembled into `dir` (the digest alone in
/// text mode).
pub(crate) fn assembled_answer(out: Output, dir: &Path, assembly: &Assembly) {
    let answer = AssembledAnswer {
        index_digest: assembly.index_digest.hex(),
        dir: dir.display().to_string(),
        files: assembly.tree.files().len(),
        gaps: assembly
            .gaps
            .rows()
            .map(|g| GapRow {
                scope: g.scope.as_str(),
                code: g.code.as_str(),
                count: g.count,
            })
            .collect(),
    };
    out.answer(&answer, || format!("{}\n", answer.index_digest));
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
