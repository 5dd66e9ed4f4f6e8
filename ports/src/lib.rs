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
//! A consumer's whole review: start → finalize (a clean lens result, then
//! independent evidence) → the pre-commit gate. A consumer brings three
//! kinds of adapter: Git (`GitPort + ExportGit + DeliveryGit`: observing
//! trees, diffs and commits), the store (`ReviewStore`: compare-and-swap
//! of checked transitions, lookups by identity) and the clock (`Clock`).
//! Here the clock is the consumer's own; Git and the store are the
//! in-memory ones of `probity-testkit` (each a plain implementation of
//! those traits, nothing more).
//!
//! ```
//! use probity_core::review::ids::{Nonce, Timestamp};
//! use probity_core::review::lens::Lens;
//! use probity_ports::review::{
//!     self as review, Clock, Delivery, EvidenceInput, FinalizeInput, LensResultInput, NamedInput,
//! };
//! use probity_testkit::{FakeGit, InMemoryStore, verdict};
//!
//! /// The consumer's clock: the time and nonce are all a start does not
//! /// derive (a lineage id is a function of the candidate and these).
//! struct Frozen;
//!
//! impl Clock for Frozen {
//!     fn now(&self) -> Timestamp {
//!         Timestamp::from_unix_seconds(1_796_000_000)
//!     }
//!     fn nonce(&self) -> Nonce {
//!         Nonce::parse("0123456789abcdef0123456789abcdef").expect("32 hex characters")
//!     }
//! }
//!
//! let doc = |name: &str, bytes: &[u8]| NamedInput { name: name.into(), bytes: bytes.to_vec() };
//!
//! // A repository with one committed file and a change to it in the worktree.
//! let git = FakeGit::with_base(&[("src/lib.rs", "pub fn a() {}\n")])?;
//! git.write("src/lib.rs", "pub fn a() {}\npub fn b() {}\npub fn c() {}\n")?;
//! let store = InMemoryStore::new();
//!
//! // start: freezes the candidate, classifies its risk, selects the lenses.
//! let started = review::start(&git, &store, &Frozen, Lens::Reliability)?;
//! let lineage = started.record.state().lineage_id().clone();
//! assert_eq!(started.record.state().frozen().selected_lenses, [Lens::Reliability]);
//!
//! // finalize: the lens's strict JSON result (a model or a person wrote it)...
//! let clean = br#"{"findings":[],"evidence":["read the whole diff"]}"#;
//! let judged = review::finalize(&git, &store, FinalizeInput {
//!     lineage: Some(lineage.clone()),
//!     results: vec![LensResultInput::named(Lens::Reliability, doc("reliability.json", clean))],
//!     ..Default::default()
//! })?;
//! assert_eq!(judged.record.state().stage().name(), "validating");
//!
//! // ...then evidence from an independent mechanism (a test run's log).
//! let approved = review::finalize(&git, &store, FinalizeInput {
//!     lineage: Some(lineage),
//!     evidence: Some(EvidenceInput::Bytes(doc("cargo-test.log", b"test result: ok\n"))),
//!     ..Default::default()
//! })?;
//! assert_eq!(approved.record.state().stage().name(), "approved");
//! assert!(approved.receipt_location.is_some());
//!
//! // The gate re-derives the live candidate: the receipt binds exactly it.
//! let gate = review::validate_pre_commit(&git, &store, &Delivery::Worktree)?;
//! assert_eq!(verdict(&gate), ("allow".into(), "receipt_valid".into()));
//!
//! // One more edit of a reviewed file, and the same gate denies.
//! git.write("src/lib.rs", "pub fn a() {}\npub fn b() {}\npub fn c() -> u8 { 3 }\n")?;
//! let gate = review::validate_pre_commit(&git, &store, &Delivery::Worktree)?;
//! assert_eq!(verdict(&gate), ("deny".into(), "receipt_scope_changed".into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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
