//! `finalize --evidence-cmd -- <argv...>`: runs the independent check
//! itself. The program is run directly from its argument vector (never a
//! shell), stdin closed, stdout and stderr merged into one pipe that is
//! hashed while it streams (never held whole), and the whole process group
//! is killed at the timeout. What the run proves is decided in core
//! ([`probity_core::review::evidence::command_evidence`]).

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use probity_core::digest::PlainSha256;
use probity_core::review::evidence::{CommandRun, ExitOutcome};

use crate::output::{CliError, ErrorKind};

/// The default `--evidence-timeout`, in seconds.
pub const DEFAULT_EVIDENCE_TIMEOUT_SECS: u64 = 600;

fn spawn_error(argv: &[String], e: std::io::Error) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "evidence_cmd_unavailable",
        format!("could not run `{}`: {e}", argv.join(" ")),
        "name a program on PATH (or by path) after `--`; it is run directly, without a shell",
    )
}

/// Kills the process group the check leads (its children too).
fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals the process group
        // the child leads (it was spawned with process_group(0)); no memory
        // is shared.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// Runs `argv` with a timeout and returns what happened, in `dir` (the
/// `--cwd` a command was given) or the current directory. The output is
/// hashed as it arrives; the run ends when the program exited and its
/// output closed, or at the timeout (then the group is killed).
pub fn run(
    argv: &[String],
    timeout: Duration,
    dir: Option<&std::path::Path>,
) -> Result<CommandRun, CliError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(CliError::new(
            ErrorKind::Usage,
            "evidence_cmd_missing",
            "--evidence-cmd needs a program to run",
            "name the check after `--`: `probity finalize --evidence-cmd -- cargo test`",
        ));
    };
    let (mut reader, writer) = std::io::pipe().map_err(|e| spawn_error(argv, e))?;
    let writer2 = writer.try_clone().map_err(|e| spawn_error(argv, e))?;
    let mut cmd = Command::new(program);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    // The check leads its own process group, so a terminal's Ctrl-C never
    // reaches it: if Probity is interrupted (SIGINT, SIGTERM, SIGHUP), its
    // signal handling kills this group before Probity ends by the signal,
    // with nothing written (see probity-scratch).
    let (mut child, _group) =
        probity_scratch::registry::spawn(&mut cmd, true).map_err(|e| spawn_error(argv, e))?;
    // The parent's copies of the write end must close, or the reader never
    // sees the end of the output.
    drop(cmd);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut hash = PlainSha256::default();
        let mut total: u64 = 0;
        let mut buf = vec![0u8; 64 * 1024];
        let result = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    hash.update(&buf[..n]);
                    total = total.saturating_add(n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(result.map(|()| (hash.finish(), total)));
    });
    let started = Instant::now();
    let pid = child.id();
    let timed_out = |child: &mut std::process::Child| {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        ExitOutcome::TimedOut {
            after_secs: timeout.as_secs(),
        }
    };
    let wait_error = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "evidence_cmd_io",
            format!("waiting for `{}`: {e}", argv.join(" ")),
            "retry; nothing was changed",
        )
    };
    let mut pause = Duration::from_millis(5);
    let exit = loop {
        match child.try_wait().map_err(wait_error)? {
            Some(status) => {
                break match (status.code(), status.signal()) {
                    (Some(c), _) => ExitOutcome::Code(c),
                    (None, Some(s)) => ExitOutcome::Signal(s),
                    (None, None) => ExitOutcome::Signal(0),
                };
            }
            None if started.elapsed() >= timeout => break timed_out(&mut child),
            None => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
        }
    };
    // The output ends when every holder of the pipe closed it: a
    // background child that keeps it open is bounded by the same timeout.
    let left = timeout.saturating_sub(started.elapsed());
    let (output_sha256, output_bytes, exit) = match rx.recv_timeout(left) {
        Ok(Ok((hash, n))) => (hash, n, exit),
        Ok(Err(e)) => return Err(wait_error(e)),
        Err(_) => {
            kill_group(pid);
            let outcome = ExitOutcome::TimedOut {
                after_secs: timeout.as_secs(),
            };
            (PlainSha256::default().finish(), 0, outcome)
        }
    };
    Ok(CommandRun {
        argv: argv.to_vec(),
        exit,
        output_sha256,
        output_bytes,
    })
}
