//! Review authority: the ports (Git, store, clock) and the use cases that
//! sequence core's decisions with port calls: start, finalize, the gates,
//! recovery and the read-only views.
//!
//! Modules, by concern: `traits` (the ports), `error` (what a use case
//! answers when it cannot finish), `start` (creating lineages), `chain`
//! (recovery chains and resumption), `finalize`, `gates`, `read` (status,
//! export, attest), `sign` (signed attestations: the SSH signature port,
//! `sign_statement`, `verify_envelope`, `check_attestations`).

mod chain;
mod discover;
mod error;
mod finalize;
mod gates;
mod model_run;
mod note_cache;
mod notes_update;
mod parents;
mod publish;
mod read;
mod recheck;
mod release;
mod replay;
mod run_configs;
mod sign;
mod start;
mod statement;
mod traits;
mod transport;

pub use discover::index_rebase_delta;
pub use error::{NamedInput, ReviewError};
pub use finalize::{
    DisputeInput, EvidenceInput, EvidenceTarget, FinalizeInput, Finalized, LensResultInput,
    SubmitInput, SubmittedResult, check_evidence_lands, dispute, evidence_tree, finalize,
    live_lineage, replay_preserved, submit_result,
};
pub use gates::{
    Delivery, PrDecision, PushBoundary, delivered_range, judge_range, validate_pre_commit,
    validate_pre_commit_amend, validate_pre_commit_between, validate_pre_pr,
    validate_pre_pr_between, validate_pre_push, validate_pre_push_between,
};
pub use model_run::{
    LineageReview, MAX_FIX_DIFF_BYTES, RoleRun, RoleRunError, RoleWorld, RunDone, TranscriptStore,
    review_lineage, validate_correction,
};
pub use parents::BundlePolicy;
pub use probity_core::review::Applicability;
pub use publish::{MAX_PUBLISH, Published, publish};
pub use read::{Attested, Exported, Status, attest, export_context, list, status};
pub use release::{ReleaseDecision, ReleaseEvidence, validate_release, validate_release_between};
pub use sign::{
    AllowedSignersError, SignatureError, SignaturePolicy, Signer, SigningKeyError, SshSignatures,
    check_attestations, sign_statement, verified_keys, verify_envelope,
};
pub use start::{
    CommitStart, Repaired, Started, burn, invalidate, recover, recover_commit, repair, start,
    start_commit, start_history, start_range,
};
pub use statement::{leaf_statement, record_statement, statements_to_vouch_for};
pub use traits::{
    AdapterError, AttestationStore, AuditWriter, ChainStore, Clock, CommitGit, Created,
    DeliveryGit, ExportGit, GitPort, IndexStore, LineageListing, ManifestGit, NotesGit, NotesHolds,
    RangeGit, ReceiptStore, RecordStore, ReleaseArtifacts, RemoteScope, RepairStore, ResultStore,
    ReviewStore, RevisionGit, StoreError, Submitted, TreeSpan, UnknownRevision,
};
pub use transport::{
    Imported, PreReceive, ReceiveDenial, ReceiveScope, TransportError, check_repo, export_bundle,
    import_bundle, import_notes, pre_pr_from_notes, pre_receive, verify_bundle,
};

// Helpers shared between the use-case modules.
use chain::{chain_of, forward_chain, resume, supersession};
use discover::{Found, discover, relate};
use finalize::{check_live_candidate, commit, open_corrections};
use gates::decide_live;
use start::keep;
