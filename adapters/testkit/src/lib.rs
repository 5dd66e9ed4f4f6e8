//! `probity-testkit`: what Probity's tests share instead of copying (dev
//! only, never published).
//!
//! - [`FixedClock`] (the review clock port at a fixed time and nonce) and
//!   [`TickingStopwatch`] (the reviewer-tool loop's elapsed milliseconds);
//! - [`InMemoryStore`]: `probity-memstore`'s reference in-memory
//!   [`ReviewStore`](probity_ports::review::ReviewStore) with the file
//!   store's semantics, re-exported (its [`InMemoryStore::dump`] shows
//!   every byte it holds);
//! - [`Faulty`]: a simulated crash at a chosen `replace` around any store;
//! - [`FakeGit`]: `GitPort + ExportGit + DeliveryGit` over an in-memory
//!   repository (a base commit, a live worktree, a staged index);
//! - [`WithNotes`]: `NotesGit` (`refs/notes/probity` as an in-memory
//!   history of notes commits, protected refs, what the repository
//!   advertises) added to a fake Git it borrows;
//! - [`WithAttestations`]: `AttestationStore` (DSSE envelopes kept as the
//!   file store keeps them) added to a store it borrows;
//! - [`FakeKey`] and [`FakeSsh`]: the `SshSignatures` port over fake keys
//!   and in-memory allowed-signers files, no `ssh-keygen`;
//! - [`documents`]: the role documents (reviewer results, validator
//!   results, evidence);
//! - [`git_env`]: a hermetic environment for the real git a test runs;
//! - [`write_executable`] and [`copy_executable`]: scripts and binaries a
//!   test runs, written so `exec` never meets ETXTBSY;
//! - [`store_conformance`]: one suite every store passes;
//! - [`sources`]: a crate's Rust sources, for the tests that scan them;
//! - [`threads::live_threads`]: this process's live threads, for the tests
//!   that hold a call leaves none behind;
//! - [`http`]: a scripted HTTP server on 127.0.0.1 (a handler, routes
//!   with `{base}`, or replies in order) for the forge, model and CLI
//!   tests, and [`http::dead_url`].
//!
//! A whole review on in-memory adapters:
//!
//! ```
//! use probity_core::review::Lens;
//! use probity_ports::review::{self as drivers, Delivery, FinalizeInput};
//! use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents, verdict};
//!
//! let git = FakeGit::with_base(&[("src/a.rs", "fn a() {}\n")])?;
//! git.write("src/a.rs", "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n")?;
//! let store = InMemoryStore::new();
//! let started = drivers::start(&git, &store, &FixedClock::fixture(), Lens::Reliability)?;
//! let lineage = started.record.state().lineage_id().clone();
//! drivers::finalize(&git, &store, FinalizeInput {
//!     lineage: Some(lineage.clone()),
//!     results: vec![documents::result(documents::CLEAN)],
//!     evidence: Some(documents::passing_check()),
//!     ..Default::default()
//! })?;
//! let gate = drivers::validate_pre_commit(&git, &store, &Delivery::Worktree)?;
//! assert_eq!(verdict(&gate), ("allow".to_string(), "receipt_valid".to_string()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod attestations;
mod clock;
pub mod documents;
mod exec;
mod faulty;
mod git;
pub mod git_env;
pub mod http;
mod notes;
mod signatures;
pub mod sources;
pub mod store_conformance;
pub mod threads;

pub use attestations::WithAttestations;
pub use clock::{FixedClock, TickingStopwatch};
pub use exec::{copy_executable, mkfifo, write_executable};
pub use faulty::{Crash, Faulty, is_injected};
pub use git::{FAKE_GIT_VERSION, FakeGit, FakeGitError};
pub use notes::{FakeNotesError, WithNotes};
pub use probity_memstore::InMemoryStore;
pub use signatures::{AllowedFile, FAKE_KEY_TYPE, FakeKey, FakeSsh, FakeSshError};

use probity_core::review::GateDecision;

/// A gate decision's `decision` and `reason_code` as their wire names
/// (`("allow", "receipt_valid")`), read from its JSON form so a test does
/// not depend on the decision's field layout.
pub fn verdict(decision: &GateDecision) -> (String, String) {
    let json = serde_json::to_value(decision).unwrap_or_default();
    let field = |k: &str| {
        json.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string()
    };
    (field("decision"), field("reason_code"))
}
