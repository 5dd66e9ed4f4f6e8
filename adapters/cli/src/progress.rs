//! Progress on stderr for long operations: after about 2 s a command that
//! is still working says so, then every 5 s, one whole line each (never a
//! line left half-drawn under the command's own output). Only when stderr is a terminal (`std::io::IsTerminal`): a hook's,
//! a pipe's or a file's stderr never receives it, so machine output and
//! `--json` answers are unchanged.

use std::io::{IsTerminal, Write};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a command works silently before progress shows.
const AFTER: Duration = Duration::from_secs(2);
/// Between later progress lines.
const EVERY: Duration = Duration::from_secs(5);

/// A running indicator; dropping it stops and clears it.
pub struct Progress {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts the indicator when stderr is a terminal; otherwise does
    /// nothing. `PROBITY_PROGRESS_AFTER_MS`
    /// overrides the 2 s delay (for tests).
    pub fn start() -> Progress {
        let idle = Progress {
            stop: None,
            thread: None,
        };
        if !std::io::stderr().is_terminal() {
            return idle;
        }
        let after = std::env::var("PROBITY_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(AFTER, Duration::from_millis);
        let (tx, rx) = mpsc::channel::<()>();
        let began = Instant::now();
        let thread = std::thread::Builder::new()
            .name("probity-progress".into())
            .spawn(move || {
                let mut wait = after;
                // Ends when the command ends (a message or a dropped sender).
                while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(wait) {
                    let mut err = std::io::stderr().lock();
                    let _ = writeln!(
                        err,
                        "probity: still working ({} s)…",
                        began.elapsed().as_secs()
                    );
                    let _ = err.flush();
                    wait = EVERY;
                }
            });
        match thread {
            Ok(t) => Progress {
                stop: Some(tx),
                thread: Some(t),
            },
            Err(_) => idle,
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
