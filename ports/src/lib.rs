//! `probity-ports`: the traits through which Probity observes and changes the
//! world (Git, the store, the clock, ...), and the use-case drivers that
//! sequence pure decisions from `probity-core` with port calls.
//!
//! Drivers are generic over the traits, so a library consumer can supply its
//! own adapters (an in-memory store, a libgit2-backed Git, a fixed clock).

#![forbid(unsafe_code)]

pub mod review;
pub mod snapshot;
