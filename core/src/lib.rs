//! `probity-core`: every decision Probity makes, as pure functions of explicit
//! inputs.
//!
//! Nothing in this crate touches the file system, processes, the network, the
//! environment, clocks, randomness or threads. Time, nonces and every
//! observation of a repository arrive as arguments; the `ports` crate
//! sequences these decisions with real observations.
//!
//! # Driving a review by hand
//!
//! A review is a [`review::state::ReviewState`]: started from an
//! observation of the candidate, moved only by its transitions (each checks
//! what it is given and returns the next state, or a typed error and
//! nothing changed), judged at a gate by a pure decision. The model's
//! judgment arrives as a strict document; ids, hashes, budgets and the
//! receipt are derived here.
//!
//! ```
//! use probity_core::review::{Authority, decide_pre_commit};
//! use probity_core::review::{Nonce, RepoPath, Timestamp, TreeId};
//! use probity_core::review::ReviewerResult;
//! use probity_core::review::Lens;
//! use probity_core::review::Receipt;
//! use probity_core::review::{RiskPolicy, authored_lines, select_lenses};
//! use probity_core::review::{
//!     CandidateContent, CandidateObservation, ChangedFile, FileMode, FrozenCandidate,
//!     LineCount, LiveTarget,
//! };
//! use probity_core::review::{ReviewState, StartInput};
//!
//! // What the adapters observed: one changed file between two trees.
//! let base = TreeId::parse("b4ffa93cdbcb161f9005528d69dc3cc646506c3f")?;
//! let candidate = TreeId::parse("ea87f48da7c3ea941866d92c1795b7dacf2f4ded")?;
//! let obs = CandidateObservation {
//!     base_tree: base.clone(),
//!     candidate_tree: candidate.clone(),
//!     unborn_head: false,
//!     changed: vec![ChangedFile {
//!         path: RepoPath::parse("src/parser.rs")?,
//!         old_mode: Some(FileMode::Regular),
//!         new_mode: Some(FileMode::Regular),
//!         lines: LineCount::Text { added: 3, removed: 1 },
//!         text_lines: 4,
//!         base_content: CandidateContent::Absent,
//!         content: CandidateContent::Bytes { bytes: b"pub fn parse() {}\n".to_vec(), complete: true },
//!     }],
//!     intended_untracked: vec![],
//! };
//! // `start` freezes it: risk, lenses and budget are derived, the time and
//! // nonce are arguments.
//! let snapshot = FrozenCandidate::freeze(&obs)?;
//! let policy = RiskPolicy::newest();
//! let lines = authored_lines(policy, &obs.changed);
//! let assessment = policy.classify(&obs.changed, lines);
//! let lenses = select_lenses(assessment.level(), Lens::Reliability);
//! let started = ReviewState::start(StartInput {
//!     snapshot,
//!     assessment,
//!     lenses: lenses.clone(),
//!     authored_lines: lines,
//!     created_at: Timestamp::parse("2026-11-29T12:00:00Z")?,
//!     nonce: Nonce::parse("00112233445566778899aabbccddeeff")?,
//!     prompts: None,
//!     policy_hash: RiskPolicy::newest_hash(),
//! })?;
//!
//! // Before any approval, the pre-commit gate denies the candidate.
//! let live = LiveTarget::new(base, candidate);
//! let authority = Authority::Exact { state: &started, receipt_file: None, superseded_by: None };
//! assert!(!decide_pre_commit(&live, authority).allows());
//!
//! // Each selected lens's strict result, then independent evidence.
//! let clean = ReviewerResult::parse(br#"{"findings":[],"evidence":["read the diff"]}"#)?;
//! let judged = started.accept_results(vec![clean; lenses.len()], &Default::default())?;
//! let approved = judged.accept_evidence(b"cargo test: 12 passed\n")?;
//!
//! // The receipt is derived, never given: its file is its canonical bytes
//! // (RFC 8785) and one LF.
//! let receipt = Receipt::derive(&approved).ok_or("an approved review has a receipt")?;
//! let bytes = receipt.to_bytes()?;
//! let mut canonical = probity_core::canonical::canonical_bytes(&receipt)?;
//! canonical.push(b'\n');
//! assert_eq!(canonical, bytes);
//!
//! // With the receipt it derives, the gate allows the same candidate.
//! let authority = Authority::Exact { state: &approved, receipt_file: Some(&bytes), superseded_by: None };
//! assert!(decide_pre_commit(&live, authority).allows());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
// Clocks, the environment, files, processes, the network and threads
// (the lists are clippy.toml's); the workspace allows them elsewhere.
#![deny(clippy::disallowed_methods, clippy::disallowed_types)]
// A consumer names every reachable public type, and nothing public is
// unreachable (issue 25 §3).
#![deny(unreachable_pub, unnameable_types)]

pub mod calendar;
pub mod canonical;
#[cfg(any(test, feature = "fixtures"))]
pub mod conformance;
pub mod context;
pub mod digest;
pub mod review;
pub mod snapshot_tools;
pub mod url;
