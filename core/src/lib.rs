//! `probity-core`: every decision Probity makes, as pure functions of explicit
//! inputs.
//!
//! Nothing in this crate touches the file system, processes, the network, the
//! environment, clocks, randomness or threads. Time, nonces and every
//! observation of a repository arrive as arguments; the `ports` crate
//! sequences these decisions with real observations.

#![forbid(unsafe_code)]
// Clocks, the environment, files, processes, the network and threads
// (the lists are clippy.toml's); the workspace allows them elsewhere.
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod canonical;
#[cfg(any(test, feature = "fixtures"))]
pub mod conformance;
pub mod context;
pub mod digest;
pub mod review;
pub mod snapshot_tools;
pub mod url;
