//! `probity-git`: the Git port implemented over the git CLI.
//!
//! Argument arrays only, never a shell; a hermetic environment (see
//! [`cmd`]); NUL-separated output throughout.

#![forbid(unsafe_code)]

mod ahead;
mod bound;
pub mod candidate;
pub mod checkout;
pub mod cmd;
mod config;
pub mod delivery;
mod discover;
mod exact_ref;
pub mod export;
#[cfg(feature = "fixture")]
pub mod fixture;
mod index;
mod loose;
mod note_trees;
pub mod notes;
mod notes_history;
pub mod objects;
mod onediff;
mod packed;
mod par;
pub mod port;
mod program;
pub mod push;
pub mod repo;
mod settings;
pub use probity_scratch::scratch;
pub mod sign;
pub mod subject;
mod symlinks;
mod tree_form;
mod tree_memo;
#[cfg(unix)]
mod worktree;

pub use cmd::{GitCli, GitError, MIN_GIT_VERSION};
pub use exact_ref::{read_ref_files, ref_blocked_files};
pub use repo::Repo;
