//! `finalize --evidence-cmd -- <argv...>`: runs the independent check
//! itself. The program is run directly from its argument vector (never a
//! shell), stdin closed, stdout and stderr merged into one pipe that is
//! hashed while it streams (never held whole), and the whole process group
//! is killed at the timeout. What the run proves is decided in core
//! ([`probity_core::review::submission::command_evidence`]).

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use probity_core::digest::PlainSha256;
use probity_core::review::submission::{CommandRun, ExitOutcome};

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

/// The interrupting signal Probity received while a check ran (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

extern "C" fn note_interrupt(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(sig, Ordering::SeqCst);
}

/// While a check runs, Ctrl-C, SIGTERM and SIGHUP are noted instead of
/// ending Probity at once: the check leads its own process group, so the
/// terminal's signal never reaches it, and Probity must stop it before
/// going. A signal ignored when Probity started (a background job) stays
/// ignored. The previous dispositions come back on drop.
struct InterruptGuard {
    previous: Vec<(libc::c_int, libc::sighandler_t)>,
}

impl InterruptGuard {
    fn install() -> Self {
        INTERRUPTED.store(0, Ordering::SeqCst);
        let handler = note_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
        let mut previous = Vec::new();
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: signal(2) installs a handler that only performs an
            // atomic store; the old disposition is kept to restore.
            let old = unsafe { libc::signal(sig, handler) };
            if old == libc::SIG_IGN {
                // SAFETY: as above, putting back "ignore".
                unsafe { libc::signal(sig, libc::SIG_IGN) };
            } else if old != libc::SIG_ERR {
                previous.push((sig, old));
            }
        }
        Self { previous }
    }

    /// The signal that arrived since `install`, if any.
    fn pending(&self) -> Option<libc::c_int> {
        match INTERRUPTED.load(Ordering::SeqCst) {
            0 => None,
            sig => Some(sig),
        }
    }
}

impl Drop for InterruptGuard {
    fn drop(&mut self) {
        for (sig, old) in self.previous.drain(..) {
            // SAFETY: restores the disposition signal(2) returned.
            unsafe { libc::signal(sig, old) };
        }
    }
}

/// Ends Probity by `sig` after its check was stopped, as the signal would
/// have (a shell sees 128 + sig); nothing was written yet.
fn die_by(guard: InterruptGuard, sig: libc::c_int) -> CliError {
    drop(guard);
    // SAFETY: raise(2) on this process with the default disposition back.
    unsafe {
        libc::raise(sig);
    }
    // Only reached if the restored disposition does not end the process.
    CliError::new(
        ErrorKind::Io,
        "interrupted",
        format!("interrupted by signal {sig} while the evidence command ran; it was stopped"),
        "nothing was changed: run `probity finalize` with the check again",
    )
}

/// Runs `argv` with a timeout and returns what happened. The output is
/// hashed as it arrives; the run ends when the program exited and its
/// output closed, or at the timeout (then the group is killed).
pub fn run(argv: &[String], timeout: Duration) -> Result<CommandRun, CliError> {
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
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    let guard = InterruptGuard::install();
    let mut child = cmd.spawn().map_err(|e| spawn_error(argv, e))?;
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
            None if guard.pending().is_some() => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                let sig = guard.pending().unwrap_or(libc::SIGINT);
                return Err(die_by(guard, sig));
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
