//! `probity-store`: Probity's files on disk, under the Git common dir.

#![forbid(unsafe_code)]

pub mod artifacts;
pub mod attestations;
pub mod check_output;
pub mod context_dir;
pub mod repair;
pub mod review_store;
pub mod transcripts;

pub use artifacts::ArtifactDir;
pub use review_store::FileStore;
