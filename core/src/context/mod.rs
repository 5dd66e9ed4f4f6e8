//! Entity-context-snapshot v1: the pure assembler (C1), filter pipeline (C2),
//! verifier (C3) and the embedded schema bundle.
//!
//! Specification: the seed `003_e408b5c520e5dca8` and `docs/context.md`,
//! which records every choice the seed leaves open.

pub mod assemble;
pub mod filter;
pub mod input;
pub mod profile;
pub mod schema;
#[cfg(test)]
mod tests;
pub mod tree;
pub mod types;
pub mod verify;
