//! `probity shelter-exec PROGRAM [ARGS...]` (internal, D-R124): runs
//! PROGRAM in this process (`exec`) with SIGINT, SIGTERM, SIGHUP and
//! SIGQUIT blocked, the mask it keeps across `exec`. Recognised before the
//! CLI is parsed, so no help, completion or man page lists it.
//!
//! `probity push` names it as the `--receive-pack` of a remote git reaches
//! by its local transport (a path, `file://`): that `git-receive-pack`
//! runs on this machine in Probity's own process group, where a
//! terminal's Ctrl-C reaches it, and git starts it through the shell,
//! which unblocks every signal. Blocked, the signal stays pending and the
//! receiving git finishes (or fails) its ref update as a server would,
//! never ending between creating its first lock file and installing the
//! handler that removes it.

use std::ffi::OsString;
use std::process::ExitCode;

use crate::output::{CliError, ErrorKind};

/// The first argument that selects it.
pub const NAME: &str = "shelter-exec";

/// Blocks the interrupting signals and replaces this process with
/// `argv`'s program; returns only when it could not be started (the error
/// on stderr, exit 7; no program is a usage error, exit 2).
pub fn run(argv: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let Some((program, rest)) = argv.split_first() else {
        let e = CliError::new(
            ErrorKind::Usage,
            "usage",
            "shelter-exec needs a program to run",
            "name the program and its arguments",
        );
        eprintln!("{e}");
        return ExitCode::from(e.kind.exit_code());
    };
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest);
    // SAFETY: `block_sheltered` is async-signal-safe; with no fork it
    // runs in this process just before execvp.
    unsafe {
        cmd.pre_exec(probity_scratch::registry::block_sheltered);
    }
    let failed = cmd.exec();
    let e = CliError::new(
        ErrorKind::Io,
        "shelter_exec_failed",
        format!(
            "{} could not be started: {failed}",
            program.to_string_lossy()
        ),
        "check the git installation (`git --exec-path` holds `git-receive-pack`), then `probity push` again; nothing was pushed",
    );
    eprintln!("{e}");
    ExitCode::from(e.kind.exit_code())
}
