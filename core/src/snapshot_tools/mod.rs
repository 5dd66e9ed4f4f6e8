//! Bounded reviewer tools over a frozen snapshot (spec S1–S6).
//!
//! - [`path`]: repo-relative paths and globs, validated and resolved
//!   lexically (`..` above the root, absolute, NUL, empty and `.git` refused).
//! - [`budget`]: calls counted before they run, bytes as returned, the exact
//!   budget-exhausted sentence.
//! - [`shape`]: the per-result cap, truncation notes naming the offset to
//!   continue from, binary and non-UTF-8 notes.
//! - [`tools`]: the `read`/`grep`/`list` contract, a [`tools::Session`] over
//!   one budget, structured events and the footer line.
//! - [`config`]: the flat configuration keys.
//! - [`review_loop`]: the tool-use loop as a pure state machine.
//!
//! Subject adapters (git, file system) only answer [`raw`] questions; every
//! decision about what the reviewer sees is made here.

pub mod budget;
pub mod config;
pub mod path;
pub mod raw;
pub mod review_loop;
pub mod shape;
pub mod tools;

#[cfg(test)]
mod props;

pub use budget::{Budget, BudgetLimits, BudgetUsage};
pub use config::{ConfigError, ModelSettings, Provider, ReviewConfig, Temperature, parse_config};
pub use path::{Glob, PathRefusal, Resolved, SnapshotPath, one_line, quote_name};
pub use raw::{EntryKind, GrepHit, ListEntry, RawGrep, RawRead, SubjectError};
pub use review_loop::{
    Message, ModelRequest, ModelResponse, Review, ReviewLoop, Step, StopReason, ToolCall, Usage,
    UsageTotals, Verdict,
};
pub use tools::{Completed, Event, GrepQuery, Prepared, Raw, Session, SessionState, ToolQuery};
