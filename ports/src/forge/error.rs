//! Why a forge call failed, and the acquisition gap a failed optional
//! listing records.

use probity_core::context::GapCode;

/// Why a forge call failed. Messages never carry a credential: adapters
/// name the resource (a path), never a header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForgeError {
    /// HTTP 401 (bad or expired credentials) or a 403 that is not a rate
    /// limit (the credentials lack a scope).
    #[error("{what}: the forge refused the credentials (HTTP {status})")]
    Unauthorized {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The HTTP status: 401 or 403.
        status: u16,
    },
    /// HTTP 404 (or 410): the resource does not exist or is not visible.
    #[error("{what}: not found (HTTP {status})")]
    NotFound {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The HTTP status (404 or 410; 200 for a GraphQL `NOT_FOUND`, 0
        /// when no request was made).
        status: u16,
    },
    /// Still rate limited after the adapter's bounded total wait.
    #[error("{what}: rate limited; gave up after waiting {waited_secs}s in total")]
    RateLimited {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// Seconds waited in all before giving up.
        waited_secs: u64,
    },
    /// A native value the adapter's mapping table does not list, or a
    /// required value that is missing. Never invented.
    #[error("{what}: unmapped or missing native value `{value}`")]
    InvalidMetadata {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The native value no table lists, or what is missing.
        value: String,
    },
    /// The connection failed, timed out, or the forge answered an
    /// unexpected status.
    #[error("{what}: {message}")]
    Transport {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// What failed (the connection error, the timeout, the status).
        message: String,
    },
    /// A response over its size bound (never parsed).
    #[error("{what}: the response exceeds {limit} bytes")]
    InputTooLarge {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// The bound the response passed, in bytes.
        limit: u64,
    },
    /// A response that is not the documented shape.
    #[error("{what}: unexpected response: {message}")]
    Malformed {
        /// The resource asked for, as the adapter names it (a path, never a
        /// credential).
        what: String,
        /// How the response departs from the documented shape.
        message: String,
    },
    /// A selected source this adapter cannot collect.
    #[error("{what}: not supported by this forge adapter")]
    Unsupported {
        /// The source that cannot be collected.
        what: String,
    },
}

impl ForgeError {
    /// The acquisition gap a failed optional listing records.
    pub fn gap_code(&self) -> GapCode {
        match self {
            ForgeError::InputTooLarge { .. } => GapCode::SourceTooLarge,
            ForgeError::InvalidMetadata { .. } => GapCode::InvalidMetadata,
            ForgeError::Unsupported { .. } => GapCode::Unsupported,
            // `authorization_failed` is admission (an actor's role), not
            // the collector's credentials: a refused listing is a failed
            // fetch.
            ForgeError::Unauthorized { .. }
            | ForgeError::NotFound { .. }
            | ForgeError::RateLimited { .. }
            | ForgeError::Transport { .. }
            | ForgeError::Malformed { .. } => GapCode::FetchFailed,
        }
    }
}
