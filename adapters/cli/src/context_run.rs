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
//! The modes alone do not stop an agent running as root or as the copy's
//! owner. Where the system allows it, the agent sees the copy through a
//! read-only bind mount in a private mount namespace
//! (`context_sandbox.rs`); in every case the copy is checked again after
//! the run (its digest, its bytes, its modes), and a run that changed it is
//! refused (`context_copy_changed`). The answer says which protection held.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Args;
use probity_core::context::HexDigest;
use probity_scratch::Scratch;
use probity_store::context_dir;

use crate::GlobalArgs;
use crate::context_shared::{assemble_input, dir_error, resolve};
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

/// `context run`'s answer (fields in the order the JSON shows them).
#[derive(Debug, serde::Serialize)]
struct RunAnswer {
    /// The agent's exit status.
    agent_exit: i32,
    /// How many files its read-only copy held.
    files: usize,
    /// Whether the host tree was removed after the run.
    host_tree_removed: bool,
    /// The verified tree's index digest (hex).
    index_digest: String,
    /// Which protection held (`bind_mount`, `modes`).
    protection: &'static str,
    /// Whether the sandbox copy is gone.
    sandbox_copy_removed: bool,
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
    let arranged = crate::context_sandbox::arrange(&mut cmd, copy.path())
        .map_err(|e| io_error("preparing the agent's mount namespace", e))?;
    // Stopped first if probity is interrupted; the copies go after it.
    let (mut child, _running) = probity_scratch::registry::spawn(&mut cmd, false).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "context_run_unavailable",
            format!("could not run `{program}`: {e}"),
            "name a program on PATH (or by path) after `--`; it is run directly, without a shell",
        )
    })?;
    let protection = arranged.held();
    let status = child
        .wait()
        .map_err(|e| io_error("waiting for the agent", e))?;
    // Hashed again after the run: whatever held, a changed copy refuses
    // the run (the host tree is never written).
    let changed = context_dir::check_sealed_copy(&verified, copy.path()).err();
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
    if let Some(e) = changed {
        return Err(CliError::new(
            ErrorKind::Integrity,
            "context_copy_changed",
            format!(
                "the agent (exit {code}) changed its sandbox copy, protected by {}: {e}; the copy was removed and the host tree was not written",
                protection.words()
            ),
            "do not use the agent's result: it ran on a context it could change; run it where probity may make a mount namespace (root or CAP_SYS_ADMIN), or as a user that neither is root nor owns the copy",
        ));
    }
    out.answer(
        &RunAnswer {
            agent_exit: code,
            files: verified.files().len(),
            host_tree_removed: host_removed,
            index_digest: digest.hex(),
            protection: protection.code(),
            sandbox_copy_removed: removed,
        },
        String::new,
    );
    if !out.json {
        eprintln!(
            "context run: the agent exited {code}; its read-only copy of {} files, protected by {}, was unchanged and removed",
            verified.files().len(),
            protection.words()
        );
    }
    Ok(ExitCode::from(
        u8::try_from(code.clamp(0, 255)).unwrap_or(1),
    ))
}
