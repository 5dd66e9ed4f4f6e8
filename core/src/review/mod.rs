//! Review authority (spec R1–R8): identifiers, risk, lenses, the frozen
//! snapshot, role documents, compact state, receipts and gate decisions.

// Matches over stages and decisions name every variant, so a new one is a
// compile error wherever it matters (docs/ARCHITECTURE.md, "core").
#![deny(clippy::wildcard_enum_match_arm)]

pub mod attest;
pub mod bundle;
pub mod causality;
pub mod checks;
pub mod correction;
pub mod dsse;
pub mod evidence;
pub mod export;
pub mod finding;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod gate;
pub mod hooks;
pub mod ids;
pub mod lens;
pub mod listing;
pub mod next_tool;
pub mod policy;
pub mod pre_pr;
pub mod preserved;
pub mod projection;
pub mod prompts;
pub mod rebase;
pub mod receipt;
pub mod recovery;
pub mod release;
pub mod repair;
pub mod report;
pub mod risk;
pub mod roles;
pub mod schema;
pub mod server;
pub mod snapshot;
pub mod state;
pub mod submission;

/// The class of step a refusal calls for (issue 25 §5), beside its stable
/// code: each error type of core and the ports says both
/// (`classify`), so the command line (which maps a class to its exit
/// code), the MCP tools and a library consumer name every refusal alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The invocation itself is wrong (a missing or conflicting argument).
    Usage,
    /// The input, or the request in this state, is refused; nothing changed.
    RejectedInput,
    /// Another writer, or an earlier input, got there first.
    Conflict,
    /// The repository could not be read or is not in a state to act on.
    Repository,
    /// Stored or derived authority failed its checks.
    Integrity,
    /// A file could not be read or written.
    Io,
}
