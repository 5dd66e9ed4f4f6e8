//! What the commands that move authority share with the server gate:
//! the user's view of a transport failure, and the scratch store a
//! server-side gate imports verified bundles into. Here, under
//! `authority_cmd`, so `bundle_cmd` (export, import, publish) sits above
//! the gates and no module cycle closes (issue 25 §1).

use probity_ports::review::TransportError;
use probity_store::FileStore;

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

/// The scratch store a server-side gate imports verified bundles into: an
/// empty directory `probity-receive-<random>` in the temporary directory,
/// owned by this run's lock (`<dir>.owner`). It is removed on every
/// controlled exit (drop) and when the run is interrupted (SIGINT, SIGTERM,
/// SIGHUP); what a killed run left is removed by the next server gate,
/// told by its dead owner's lock, never by its age.
pub struct ScratchStore {
    // Declared first: the store is dropped before its directory goes.
    pub store: FileStore,
    // Nothing under the directory is fsynced: it is removed when the run
    // ends, so durability would buy nothing (issue 24, D-R77).
    _volatile: probity_scratch::Volatile,
    _dir: probity_scratch::Scratch,
}

impl ScratchStore {
    pub fn new() -> Result<Self, CliError> {
        let scratch_io = |e: std::io::Error| {
            CliError::new(
                ErrorKind::Io,
                "scratch_io",
                e.to_string(),
                "check that the temporary directory is writable (TMPDIR)",
            )
        };
        let dir = probity_scratch::Scratch::reserve(&std::env::temp_dir(), "probity-receive-")
            .map_err(scratch_io)?;
        dir.create_dir(0o700).map_err(scratch_io)?;
        let volatile = probity_scratch::Volatile::mark(dir.path());
        let store = FileStore::for_common_dir(dir.path());
        Ok(Self {
            store,
            _volatile: volatile,
            _dir: dir,
        })
    }
}
