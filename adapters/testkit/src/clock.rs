//! Clocks that never move unless told to: the review [`Clock`] port (time
//! and nonce, the only non-determinism a start has) and a [`TickingStopwatch`]
//! for the reviewer-tool loop ([`probity_ports::snapshot::Stopwatch`]).

use std::sync::atomic::{AtomicU64, Ordering};

use probity_core::review::fixtures::{FIXED_NONCE, FIXED_TIME};
use probity_core::review::{IdError, Nonce, Timestamp};
use probity_ports::review::Clock;

/// The review clock at one fixed time with one fixed nonce: every start at
/// the same candidate derives the same lineage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixedClock {
    time: Timestamp,
    nonce: Nonce,
}

impl FixedClock {
    /// The clock of core's fixtures ([`FIXED_TIME`], [`FIXED_NONCE`]).
    pub fn fixture() -> Self {
        Self {
            time: valid(Timestamp::parse(FIXED_TIME)),
            nonce: valid(Nonce::parse(FIXED_NONCE)),
        }
    }

    /// A clock at `time` (`YYYY-MM-DDTHH:MM:SSZ`) with `nonce` (32
    /// lowercase hex characters).
    pub fn at(time: &str, nonce: &str) -> Result<Self, IdError> {
        Ok(Self {
            time: Timestamp::parse(time)?,
            nonce: Nonce::parse(nonce)?,
        })
    }

    /// The same clock with another nonce (a second, distinct start).
    pub fn with_nonce(self, nonce: &str) -> Result<Self, IdError> {
        Ok(Self {
            nonce: Nonce::parse(nonce)?,
            ..self
        })
    }
}

impl Default for FixedClock {
    fn default() -> Self {
        Self::fixture()
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.time.clone()
    }
    fn nonce(&self) -> Nonce {
        self.nonce.clone()
    }
}

/// A constant of this crate or of core's fixtures, valid by construction
/// (a test of this crate parses each one).
fn valid<T>(parsed: Result<T, IdError>) -> T {
    match parsed {
        Ok(v) => v,
        Err(e) => unreachable!("a fixed testkit constant is valid: {e}"),
    }
}

/// Elapsed milliseconds for the reviewer-tool loop, moved only by the
/// test: fixed ([`TickingStopwatch::at`]), advanced by hand ([`TickingStopwatch::advance`])
/// or by `step` on every reading ([`TickingStopwatch::ticking`]).
#[derive(Debug, Default)]
pub struct TickingStopwatch {
    now: AtomicU64,
    step: u64,
}

impl TickingStopwatch {
    /// Always `ms` (until advanced).
    pub fn at(ms: u64) -> Self {
        Self {
            now: AtomicU64::new(ms),
            step: 0,
        }
    }

    /// Starts at 0 and moves `step` ms after every reading.
    pub fn ticking(step: u64) -> Self {
        Self {
            now: AtomicU64::new(0),
            step,
        }
    }

    /// Moves the reading on by `ms`.
    pub fn advance(&self, ms: u64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
    }

    /// The current reading, without ticking.
    pub fn peek(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

impl probity_ports::snapshot::Stopwatch for TickingStopwatch {
    fn elapsed_ms(&self) -> u64 {
        self.now.fetch_add(self.step, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_ports::snapshot::Stopwatch as _;

    #[test]
    fn the_fixture_clock_reads_cores_fixed_values() {
        let c = FixedClock::fixture();
        assert_eq!(c.now().as_str(), FIXED_TIME);
        assert_eq!(c.nonce().as_str(), FIXED_NONCE);
        assert!(FixedClock::at("yesterday", FIXED_NONCE).is_err());
        assert!(FixedClock::fixture().with_nonce("x").is_err());
    }

    #[test]
    fn a_stopwatch_moves_only_when_told() {
        let fixed = TickingStopwatch::at(5);
        assert_eq!((fixed.elapsed_ms(), fixed.elapsed_ms()), (5, 5));
        fixed.advance(10);
        assert_eq!(fixed.elapsed_ms(), 15);
        let ticking = TickingStopwatch::ticking(100);
        assert_eq!((ticking.elapsed_ms(), ticking.elapsed_ms()), (0, 100));
        assert_eq!(ticking.peek(), 200);
    }
}
