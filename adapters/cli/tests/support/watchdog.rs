//! A watchdog over a child a test waits for: past its time the child is
//! signalled (by its pid only), so a test of an input that once blocked
//! forever fails instead of hanging.

use std::process::Command;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Watches one child until [`Watchdog::done`].
pub struct Watchdog {
    done: Sender<()>,
    thread: JoinHandle<()>,
}

impl Watchdog {
    /// Sends `signal` (`-KILL`, say) to `pid` unless [`Watchdog::done`]
    /// comes within `secs`.
    pub fn start(pid: u32, secs: u64, signal: &'static str) -> Self {
        let (done, done_rx) = channel::<()>();
        let thread = std::thread::spawn(move || {
            if done_rx.recv_timeout(Duration::from_secs(secs)).is_err() {
                let _ = Command::new("kill")
                    .args([signal, &pid.to_string()])
                    .status();
            }
        });
        Watchdog { done, thread }
    }

    /// The child is done: stops watching.
    pub fn done(self) {
        let _ = self.done.send(());
        self.thread.join().unwrap();
    }
}
