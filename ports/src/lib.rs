//! `probity-ports`: the traits through which Probity observes and changes the
//! world (Git, the store, the clock, ...), and the use-case drivers that
//! sequence pure decisions from `probity-core` with port calls.
//!
//! Drivers are generic over the traits, so a library consumer can supply its
//! own adapters (an in-memory store, a libgit2-backed Git, a fixed clock).
//!
//! A consumer's adapter: an in-memory snapshot served through the same
//! budgeted, logged tool driver the CLI and the MCP server use. Validation,
//! budget and shaping stay in core; the adapter only answers.
//!
//! ```
//! use std::collections::BTreeMap;
//!
//! use probity_core::snapshot_tools::{
//!     BudgetLimits, EntryKind, GrepHit, GrepQuery, ListEntry, RawGrep, RawRead, Session,
//!     SnapshotPath, SubjectError,
//! };
//! use probity_ports::snapshot::{SnapshotReader, call_tool};
//! use serde_json::json;
//!
//! /// Files held in memory (say, fetched from a forge API).
//! struct InMemory(BTreeMap<Vec<u8>, Vec<u8>>);
//!
//! impl SnapshotReader for InMemory {
//!     fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
//!         match self.0.get(path.as_bytes()) {
//!             Some(bytes) => Ok(RawRead::File(bytes.clone())),
//!             None => Err(SubjectError::NotInSnapshot {
//!                 path: String::from_utf8_lossy(path.as_bytes()).into_owned(),
//!                 why: "no such file".into(),
//!             }),
//!         }
//!     }
//!     fn grep(&self, _: &GrepQuery, _: usize) -> Result<RawGrep, SubjectError> {
//!         // A real adapter searches; this one has nothing to say.
//!         Ok(RawGrep { hits: Vec::<GrepHit>::new(), more: false, skipped: Vec::new() })
//!     }
//!     fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
//!         Ok(self
//!             .0
//!             .keys()
//!             .map(|p| ListEntry { path: p.clone(), kind: EntryKind::File })
//!             .collect())
//!     }
//! }
//!
//! let files = InMemory(BTreeMap::from([(
//!     b"src/lib.rs".to_vec(),
//!     b"pub fn answer() -> u32 { 42 }\n".to_vec(),
//! )]));
//! let mut session = Session::new(BudgetLimits::default());
//! let read = call_tool(&mut session, &files, "read", &json!({"path": "src/lib.rs"}));
//! assert!(!read.is_error, "{}", read.text);
//! assert!(read.text.contains("pub fn answer()"));
//! // Core refuses an escape before the adapter is asked.
//! let escape = call_tool(&mut session, &files, "read", &json!({"path": "../etc/passwd"}));
//! assert!(escape.is_error, "{}", escape.text);
//! // Every call is counted before it runs (S3.2), the refused one too.
//! assert_eq!(session.usage().calls_used, 2);
//! ```
//!
//! A consumer's whole review on adapters it brings: start → finalize →
//! the pre-commit gate, with its own Git (in memory, one commit and one
//! candidate) and its own clock, and the reference in-memory store
//! (`probity-memstore`); the example's opening comment says why. Each
//! driver names only the ports it calls, so for these three the consumer
//! writes 15 methods: `GitPort` (9), `ExportGit` (3), `RevisionGit` (1)
//! and `Clock` (2). It is `ports/examples/consumer.rs` (`cargo run -p
//! probity-ports --example consumer`), run here as a doctest:
//!
#![doc = concat!("```\n", include_str!("../examples/consumer.rs"), "```")]
#![forbid(unsafe_code)]
// Ports sequence core's decisions and the ports' calls; the world (files,
// processes, the network, clocks, the environment) is reached only through
// the traits, so the same lists that keep core pure are denied here
// (clippy.toml). Scoped threads for parallel work are the drivers' own.
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]

pub mod context;
pub mod forge;
pub mod review;
pub mod schemas;
pub mod snapshot;
