//! Entity-context-snapshot v1: the pure assembler (C1), filter pipeline (C2),
//! verifier (C3) and the embedded schema bundle.
//!
//! Specification: the seed `003_e408b5c520e5dca8` and `docs/context.md`,
//! which records every choice the seed leaves open.
//!
//! The modules are private; what a consumer needs is re-exported here
//! (issue 25 §3): `probity_core::context::assemble`,
//! `probity_core::context::ContextInput`, `probity_core::context::verify`.

mod assemble;
mod filter;
mod input;
mod profile;
mod schema;
#[cfg(test)]
mod tests;
mod tree;
mod types;
mod verify;

pub use assemble::{
    AssembleError, Assembly, FilterJob, FilterMemo, FilterPlan, JobResult, assemble, assemble_with,
};
pub use filter::{
    CODE_LITERALS, CredentialRegistry, FILTER_VERSION, FilterError, FilterStatus, FilterSummary,
    FilterVersion, Filtered, Findings, NFKC_UNICODE_VERSION, filter_text,
};
pub use input::{
    ActorInput, AdmissionInput, AgentRunInput, BoundsInput, CheckInput, CommentInput, ContextInput,
    EntityInput, GapInput, INPUT_FORMAT, MAX_INPUT_BYTES, ProfileInput, ReplyInput, ReviewInput,
    SourceInput, ThreadInput,
};
pub use profile::{Bounds, LogSelection, Profile, ProfileError, RecordSelection, Source};
pub use schema::{DocSchema, SchemaError, Schemas};
pub use tree::{ContextTree, Gap, GapCode, GapScope, Gaps};
pub use types::{
    ActorKind, ActorRole, CheckConclusion, CheckStatus, EntityKind, EntityState, Forge,
    FormalReviewState, HexDigest, Host, MinRole, RunStatus, Side, Timestamp, ValueError,
    record_key_raw,
};
pub use verify::{
    MAX_OBSERVED_FILE_BYTES, Node, Observed, VerifiedTree, VerifyError, check_index, observe,
    role_for_path, verify,
};
