//! What the commands that move authority share with the server gate:
//! the user's view of a transport failure, and the store a server-side
//! gate imports verified bundles into. Here, under
//! `authority_cmd`, so `bundle_cmd` (export, import, publish) sits above
//! the gates and no module cycle closes (issue 25 §1).

use probity_ports::review::TransportError;

use super::review_error;
use crate::output::{CliError, ErrorKind};

/// Maps a transport failure to what the user sees.
pub fn transport_error(e: TransportError) -> CliError {
    let e = match e {
        TransportError::Review(r) => return review_error(r),
        other => other,
    };
    let (kind, next) = match &e {
        TransportError::Review(_) | TransportError::Bundle(_) | TransportError::Note { .. } => (
            ErrorKind::RejectedInput,
            "the bundle is not one `probity bundle export` wrote, unchanged: export it again from the clone that holds the review; nothing was written",
        ),
        TransportError::Scope(_) => (
            ErrorKind::Integrity,
            "the bundle's records do not match the trees they name in this repository; nothing was written",
        ),
        TransportError::Derivation(
            probity_core::review::DerivationError::RiskRaisedByCorrection { .. },
        ) => (
            ErrorKind::Integrity,
            "the review's correction made its change a higher risk tier than it ran at (D-R127): in the clone that holds it a person records a successor (`probity recover --disposition scope_changed`), which is reviewed at its tier and exported again; nothing was written",
        ),
        TransportError::Derivation(_) => (
            ErrorKind::Integrity,
            "the review froze a risk, a budget or prompts its own trees do not give: review the change again with this Probity version (`probity start`), then publish it; nothing was written",
        ),
        TransportError::ObjectsMissing { .. } => (
            ErrorKind::Repository,
            "fetch the commits the bundle's review covers (or push them here) first, then import again; nothing was written",
        ),
        TransportError::Conflict { .. } => (
            ErrorKind::Conflict,
            "this store holds other authority for the same lineage or candidate; nothing was merged or written: inspect both with `probity status --lineage <id>`",
        ),
    };
    let code = e.code().unwrap_or("bundle_invalid");
    CliError::new(kind, code, e.to_string(), next)
}

/// The store a server-side gate imports verified bundles into (D-R112):
/// the reference in-memory store, which the store conformance suite holds
/// to the file store's behaviour. The gate judges what it verified and
/// writes nothing but its decision: no directory, no file, no fsync, and
/// nothing for a killed gate to leave behind.
pub fn scratch_store() -> probity_memstore::InMemoryStore {
    probity_memstore::InMemoryStore::new()
}
