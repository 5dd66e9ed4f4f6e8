//! The forge port (C4): what a forge adapter answers when one entity (a
//! change proposal or a work item) is collected, and [`collect`], the
//! driver that sequences those calls into the normalized input the pure
//! assembler reads ([`ContextInput`], `docs/context.md`).
//!
//! Adapters map their native vocabulary (entity state, review state, check
//! status and conclusion, permissions, timestamps) with explicit tables
//! before anything reaches this module: what the port hands back is already
//! v1 vocabulary. A native value a table does not list is never invented:
//! for the entity it is [`ForgeError::InvalidMetadata`] (assembly cannot
//! start), for an optional record it is counted in [`Listing::invalid`] and
//! becomes that scope's `invalid_metadata` acquisition gap.
//!
//! The driver never drops a partial fetch silently: a listing that fails is
//! a `fetch_failed` gap (a response over its size bound `source_too_large`),
//! records left beyond the profile's fetch window are a `profile_bound` gap
//! with their count, and a selected source the adapter cannot collect is an
//! `unsupported` gap.
//!
//! One file per concern: `error` ([`ForgeError`] and the gap a failed
//! listing records), `port` ([`ForgePort`] and the records it answers),
//! `collect` (the [`collect`] driver, its request and error, and
//! [`default_profile`]) and `document` ([`input_document`]: the normalized
//! input as JSON).
//!
//! [`ContextInput`]: probity_core::context::ContextInput

mod collect;
mod document;
mod error;
mod port;

#[cfg(test)]
mod tests;

pub use collect::{CollectError, CollectRequest, collect, default_profile};
pub use document::input_document;
pub use error::ForgeError;
pub use port::{
    ActorKindRef, ActorRef, Author, Authored, EntityRef, FetchedCheck, FetchedEntity,
    FetchedThreads, ForgePort, Listing, LogText, RepositoryInfo, Window,
};
