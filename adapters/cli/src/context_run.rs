//! `probity context run`: the host lifecycle of a context tree (C5).
//!
//! The agent never sees the host tree: it gets a sandbox copy, written from
//! the verified bytes, sealed read-only (0555 directories, 0444 files),
//! verified again, outside every repository, and named to it in
//! `PROBITY_CONTEXT_DIR`. With `--input`, the host tree itself is
//! assembled for the run (0700/0600, in the temporary directory). Both are
//! held under owner locks (probity-scratch) and removed on every controlled
//! exit: the agent's success or failure, an error, Ctrl-C, SIGTERM or
//! SIGHUP (the agent is stopped first). A run killed outright leaves them
//! to the next run, which removes exactly those no live process holds.
//!
//! What the modes do not give: an agent running as the same user can
//! change a mode back. A read-only bind mount or a root-owned copy with the
//! agent unprivileged is the host's to arrange (docs/context.md).

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Args;
use probity_core::context::types::HexDigest;
use probity_scratch::Scratch;
use probity_store::context_dir;
use serde_json::json;

use crate::GlobalArgs;
use crate::context_cmd::{assemble_input, dir_error, resolve};
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Assemble this normalized-input document into a host tree for the
    /// run (removed with the run).
    #[arg(long, value_name = "F", conflicts_with_all = ["dir", "index_digest"])]
    pub input: Option<PathBuf>,
    /// A host tree assembled before (kept; only its sandbox copy is
    /// removed).
    #[arg(long, value_name = "DIR", requires = "index_digest")]
    pub dir: Option<PathBuf>,
    /// The root-index digest retained for `--dir`.
    #[arg(long, value_name = "SHA", requires = "dir")]
    pub index_digest: Option<String>,
    /// The agent and its arguments (after `--`), run without a shell.
    #[arg(last = true, required = true, value_name = "ARGV")]
    pub argv: Vec<String>,
}

fn io_error(what: &str, e: std::io::Error) -> CliError {
    CliError::new(
        ErrorKind::Io,
        "context_io",
        format!("{what}: {e}"),
        "check the temporary directory and permissions; nothing is left behind",
    )
}

fn parse_digest(raw: &str) -> Result<HexDigest, CliError> {
    HexDigest::parse(raw.strip_prefix("sha256:").unwrap_or(raw)).map_err(|e| {
        CliError::new(
            ErrorKind::Usage,
            "bad_index_digest",
            e.to_string(),
            "pass the index_digest printed by `probity context assemble`",
        )
    })
}

pub fn run(global: &GlobalArgs, out: Output, args: &RunArgs) -> Result<ExitCode, CliError> {
    let temp = std::env::temp_dir();
    // The host tree: assembled for this run (under an owner lock, removed
    // with it), or given.
    let (host_guard, host, digest) = match (&args.input, &args.dir, &args.index_digest) {
        (Some(input), _, _) => {
            let assembly = assemble_input(global, input)?;
            let guard = Scratch::reserve(&temp, "probity-context-host-")
                .map_err(|e| io_error("reserving the host tree", e))?;
            context_dir::write_tree(guard.path(), &assembly.tree).map_err(|e| dir_error(&e))?;
            let path = guard.path().to_path_buf();
            (Some(guard), path, assembly.index_digest)
        }
        (None, Some(dir), Some(d)) => (None, resolve(global, dir), parse_digest(d)?),
        _ => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "context_run_source",
                "name the tree: `--input F`, or `--dir DIR --index-digest SHA`",
                "see `probity context run --help`",
            ));
        }
    };
    let verified = context_dir::verify_dir(&host, &digest).map_err(|e| dir_error(&e))?;
    let copy = Scratch::reserve(&temp, "probity-context-run-")
        .map_err(|e| io_error("reserving the sandbox copy", e))?;
    context_dir::copy_verified(&verified, copy.path()).map_err(|e| dir_error(&e))?;
    let (program, rest) = args.argv.split_first().ok_or_else(|| {
        CliError::new(
            ErrorKind::Usage,
            "context_run_argv",
            "no agent to run",
            "name it after `--`: `probity context run --input F -- agent ...`",
        )
    })?;
    let mut cmd = Command::new(program);
    cmd.args(rest)
        .env("PROBITY_CONTEXT_DIR", copy.path())
        .env("PROBITY_CONTEXT_INDEX_DIGEST", digest.hex());
    // Stopped first if probity is interrupted; the copies go after it.
    let (mut child, _running) = probity_scratch::registry::spawn(&mut cmd, false).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "context_run_unavailable",
            format!("could not run `{program}`: {e}"),
            "name a program on PATH (or by path) after `--`; it is run directly, without a shell",
        )
    })?;
    let status = child
        .wait()
        .map_err(|e| io_error("waiting for the agent", e))?;
    let copy_path = copy.path().to_path_buf();
    drop(copy);
    let host_removed = host_guard.is_some();
    drop(host_guard);
    let code = {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(c), _) => c,
            (None, Some(s)) => 128 + s,
            (None, None) => 1,
        }
    };
    let removed = std::fs::symlink_metadata(&copy_path).is_err();
    out.answer(
        &json!({
            "agent_exit": code,
            "index_digest": digest.hex(),
            "files": verified.files().len(),
            "sandbox_copy_removed": removed,
            "host_tree_removed": host_removed,
        }),
        String::new,
    );
    if !out.json {
        eprintln!(
            "context run: the agent exited {code}; its read-only copy of {} files was removed",
            verified.files().len()
        );
    }
    Ok(ExitCode::from(
        u8::try_from(code.clamp(0, 255)).unwrap_or(1),
    ))
}
