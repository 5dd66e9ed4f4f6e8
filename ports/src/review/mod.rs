//! Review authority: the ports (Git, store, clock) and the use cases that
//! sequence core's decisions with port calls: start, finalize, the gates,
//! recovery and the read-only views.
//!
//! Modules, by concern: `traits` (the ports), `error` (what a use case
//! answers when it cannot finish), `start` (creating lineages), `chain`
//! (recovery chains and resumption), `finalize`, `gates`, `read` (status,
//! export, attest).

mod chain;
mod error;
mod finalize;
mod gates;
mod read;
mod start;
mod traits;
mod transport;

pub use error::{NamedInput, ReviewError};
pub use finalize::{FinalizeInput, Finalized, finalize};
pub use gates::{
    Delivery, PrDecision, PushBoundary, validate_pre_commit, validate_pre_pr, validate_pre_push,
    validate_release,
};
pub use probity_core::review::gate::Applicability;
pub use read::{Attested, Exported, Status, attest, export_context, status};
pub use start::{Started, invalidate, recover, start};
pub use traits::{
    AdapterError, AttestationStore, Clock, Created, DeliveryGit, ExportGit, GitPort, NotesGit,
    RemoteScope, ReviewStore, StoreError,
};
pub use transport::{
    Imported, MAX_PUBLISH, PreReceive, Published, ReceiveDenial, ReceiveScope, TransportError,
    check_repo, export_bundle, import_bundle, import_notes, pre_pr_from_notes, pre_receive,
    publish, verify_bundle,
};

// Helpers shared between the use-case modules.
use chain::{chain_of, resume, supersession};
use finalize::{commit, open_corrections};
use start::keep;
