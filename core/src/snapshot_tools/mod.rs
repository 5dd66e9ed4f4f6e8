//! Bounded reviewer tools over a frozen snapshot (spec S1–S6).
//!
//! The modules are private; what a consumer needs is re-exported here
//! (issue 25 §3), so a path is `probity_core::snapshot_tools::Session`,
//! whichever file holds the type:
//!
//! - `path`: repo-relative paths and globs ([`SnapshotPath`], [`Glob`]),
//!   validated and resolved lexically (`..` above the root, absolute, NUL,
//!   empty and `.git` refused).
//! - `budget`: calls counted before they run, bytes as returned, the exact
//!   budget-exhausted sentence ([`Budget`]).
//! - `shape`: the per-result cap, truncation notes naming the offset to
//!   continue from, binary and non-UTF-8 notes.
//! - `tools`: the `read`/`grep`/`list` contract, a [`Session`] over one
//!   budget, structured events ([`Event`]) and the footer line.
//! - `config`: the flat configuration keys ([`ReviewConfig`]).
//! - `review_loop`: the tool-use loop as a pure state machine
//!   ([`ReviewLoop`]).
//!
//! Subject adapters (git, file system) only answer `raw` questions
//! ([`RawRead`], [`RawGrep`], [`ListEntry`]); every decision about what the
//! reviewer sees is made here.

mod budget;
mod config;
mod path;
mod raw;
mod review_loop;
mod shape;
mod tools;

#[cfg(test)]
mod props;

pub use budget::{Budget, BudgetLimits, BudgetUsage};
pub use budget::{CallPermit, Exhausted};
pub use config::{
    ConfigError, ContextCaps, DEFAULT_MODEL_RETRIES, MAX_CONFIG_BYTES, ModelSettings, Provider,
    ReviewConfig, Temperature, parse_config,
};
pub use path::{
    Glob, LIST_MATCH_MAX_STEPS, MAX_GLOB_BYTES, PathRefusal, Resolved, SnapshotPath, one_line,
    quote_name,
};
pub use raw::{
    EntryKind, GREP_KEEP_LINE_BYTES, GREP_MAX_FILE_BYTES, GREP_MAX_LINE_BYTES, GrepHit, ListEntry,
    READ_MAX_FILE_BYTES, RawGrep, RawRead, SubjectError, kept_line,
};
pub use review_loop::Conclusion;
pub use review_loop::{
    DocumentCheck, Finish, LENGTH_RETRY_PROMPT, LoopError, MAX_REPAIR_QUOTE, Message, ModelRequest,
    ModelResponse, REVIEWER_FRAME, Review, ReviewLoop, Step, StopReason, TRANSCRIPT_DOMAIN,
    ToolCall, Usage, UsageTotals, Verdict, document_text, footer_lines,
};
pub use shape::{GREP_MAX_MATCHES, is_binary};
pub use tools::{
    ArgError, Completed, Event, GrepQuery, MAX_PATTERN_BYTES, Prepared, Raw, Session, SessionState,
    Ticket, ToolQuery, ToolSpec, match_listing, parse_call, tool_specs,
};
pub use tools::{GrepPattern, LedgerEntry, ToolName};
