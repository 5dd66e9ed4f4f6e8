//! The system clock port: UTC time and a fresh nonce for each start.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use probity_core::review::{Nonce, Timestamp};
use probity_ports::review::Clock;

/// Wall-clock time and process-local entropy. The nonce only has to make
/// lineage ids unique, not secret.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Timestamp::from_unix_seconds(secs)
    }

    fn nonce(&self) -> Nonce {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut words = [0u64; 2];
        for (i, w) in words.iter_mut().enumerate() {
            let mut h = RandomState::new().build_hasher();
            h.write_u128(nanos);
            h.write_u32(std::process::id());
            h.write_usize(i);
            *w = h.finish();
        }
        // Always 32 lowercase hex characters.
        Nonce::parse(format!("{:016x}{:016x}", words[0], words[1]))
            .unwrap_or_else(|_| unreachable!("32 lowercase hex characters form a nonce"))
    }
}
