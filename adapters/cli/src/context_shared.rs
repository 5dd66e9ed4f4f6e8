//! What the `context` commands share (`context assemble`, `verify`,
//! `fetch`, `run`): paths given relative to `--cwd`, the typed errors of
//! assembly and of context trees on disk, reading and assembling an input,
//! and the answer for an assembled tree. A leaf: `context_cmd` dispatches,
//! `context_fetch` and `context_run` use this, none uses the dispatcher.

use std::path::{Path, PathBuf};

use probity_core::context::ContextInput;
use probity_core::context::{AssembleError, Assembly};
use probity_ports::context::{assemble_parallel, default_workers};
use probity_store::context_dir::ContextDirError;

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

/// `p`, relative to `--cwd` when it is relative and `--cwd` was given.
pub(crate) fn resolve(global: &GlobalArgs, p: &Path) -> PathBuf {
    match &global.cwd {
        Some(cwd) if p.is_relative() => cwd.join(p),
        _ => p.to_path_buf(),
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
) -> Result<probity_core::context::Assembly, CliError> {
    let input_path = resolve(global, input);
    // A regular file only (a FIFO or a device is refused at once), read
    // under its bound.
    let bytes =
        crate::authority_cmd::read_input(&input_path, probity_core::context::MAX_INPUT_BYTES)?
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
