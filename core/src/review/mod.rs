//! Review authority (spec R1–R8): identifiers, risk, lenses, the frozen
//! snapshot, role documents, compact state, receipts and gate decisions.
//!
//! The modules are not public (issue 25 §3): what a consumer needs is
//! re-exported here, so a path is `probity_core::review::ReviewState`,
//! whichever module holds the type. Only `fixtures` (behind the
//! `fixtures` feature, for tests) stays a public module.

// Matches over stages and decisions name every variant, so a new one is a
// compile error wherever it matters (docs/ARCHITECTURE.md, "core").
#![deny(clippy::wildcard_enum_match_arm)]

pub(crate) mod attest;
pub(crate) mod bundle;
pub(crate) mod causality;
pub(crate) mod checks;
pub(crate) mod correction;
pub(crate) mod diff_work;
pub(crate) mod dsse;
pub(crate) mod evidence;
pub(crate) mod export;
pub(crate) mod finding;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub(crate) mod gate;
pub(crate) mod hooks;
pub(crate) mod ids;
pub(crate) mod lens;
pub(crate) mod listing;
pub(crate) mod next_tool;
pub(crate) mod policy;
pub(crate) mod pre_pr;
pub(crate) mod preserved;
pub(crate) mod projection;
pub(crate) mod prompts;
pub(crate) mod rebase;
pub(crate) mod receipt;
pub(crate) mod recovery;
pub(crate) mod release;
pub(crate) mod repair;
pub(crate) mod report;
pub(crate) mod risk;
pub(crate) mod roles;
pub(crate) mod schema;
pub(crate) mod server;
pub(crate) mod snapshot;
pub(crate) mod state;
pub(crate) mod submission;
pub(crate) mod tree_form;

/// The class of step a refusal calls for (issue 25 §5), beside its stable
/// code: each error type of core and the ports says both
/// (`classify`), so the command line (which maps a class to its exit
/// code), the MCP tools and a library consumer name every refusal alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The invocation itself is wrong (a missing or conflicting argument).
    Usage,
    /// The input, or the request in this state, is refused; nothing changed.
    RejectedInput,
    /// Another writer, or an earlier input, got there first.
    Conflict,
    /// The repository could not be read or is not in a state to act on.
    Repository,
    /// Stored or derived authority failed its checks.
    Integrity,
    /// A file could not be read or written.
    Io,
}

pub use attest::{
    PREDICATE_TYPE, STATEMENT_TYPE, Statement, Subject, SubjectDigest, manifest_bytes, statement,
    statement_bytes,
};
pub use bundle::{
    BUNDLE_DOMAIN, Bundle, BundleError, BundleSchema, DerivationError, DsseEnvelope, DsseSignature,
    IMPORT_RANKS, MAX_ATTESTATIONS, MAX_BUNDLE_BYTES, MAX_EVIDENCE_PER_LINEAGE, MAX_NOTE_BUNDLES,
    MAX_NOTE_BYTES, MAX_RECORDS, NoteAuthority, NoteError, RefusedBundle, RepoFacts, ScopeError,
    TooMany, check_derivation, check_derivation_in, check_final_tier, check_final_tier_in,
    check_scope, import_rank, merged_bounded, newest_tier, note_adding, note_lines, note_with,
    notes_denial, parse_note, refused_bundles, with_note_attestations,
};
pub use causality::{
    CausalDisposition, CausalDowngrade, CausalFacts, Claim, DowngradeReason, Hunk, parse_hunks,
};
pub use checks::{
    CHECKS_PATH, ChecksDocument, ChecksError, ChecksUnmet, MAX_CHECK_ITEMS, MAX_CHECKS_BYTES,
    RepoChecks, RequiredCheck,
};
pub use correction::{
    Attempt, Correction, FIX_DELTA_DOMAIN, FixMeasurement, MAX_FAILED_ATTEMPTS, ValidationRecord,
    empty_fix_delta, fix_delta_hash,
};
pub use diff_work::{
    DiffTooLarge, DiffWork, InPlaceFile, MAX_DIFF_LINES_PER_CHECK, MAX_DIFF_LINES_PER_FILE,
    diff_lines,
};
pub use dsse::{
    Envelope, EnvelopeError, EnvelopeSignature, MAX_ENVELOPE_BYTES, MAX_SIGNATURES, NAMESPACE,
    PAYLOAD_TYPE, ParsedEnvelope, SshSig, allowed_signers_may_list, armor, dearmor, decode_base64,
    envelope_bytes, fingerprint, is_certificate_key, parse_envelope, parse_sshsig, statement_pae,
};
pub use evidence::{
    COMMAND_EVIDENCE_SCHEMA_V2, CommandEvidence, CommandEvidenceDocument, CommandEvidenceError,
    CommandRun, EVIDENCE_TAIL_BYTES, EvidenceDocError, EvidenceReading, EvidenceVerdict,
    ExitOutcome, KeptCheck, MAX_COMMAND_EVIDENCE_BYTES, command_evidence, command_evidence_on,
    evidence_reading, evidence_reading_streamed, evidence_verdict, evidence_verdict_streamed,
};
pub use export::{
    CandidateDiff, ChangeStatus, ContextExport, DIFF_FLAGS, Derivation, EXPORT_CONFIG, EXPORT_ENV,
    EXPORT_SCHEMA, ExportBudget, ExportError, MAX_DIFF_BYTES, ManifestEntry, base64, build_export,
    export_command, over_budget,
};
pub use finding::{
    AcceptedResult, EvidenceClass, Finding, MAX_FINDINGS, RefuterOutcome, RefuterResult,
    RefuterVerdict, ReviewerFinding, ReviewerResult, RoleDocError, Route, Severity, ValidatorCheck,
    ValidatorResult,
};
pub use gate::{
    Applicability, Authority, BlobsOutside, ChainLink, CommitReport, Decision, DeliveredRange,
    DeliveryReport, Gate, GateDecision, GateStage, MAX_COMPOSED_REVIEWS, MAX_LISTED_BLOBS,
    MAX_RANGE_COMMITS, MAX_REBIND_CHAIN, Moved, NOTES_REF, NewRefDelivery, NextAction,
    PushInputError, RangeCommit, RangeJudgment, RangeProblem, ReasonCode, RefUpdate, Relation,
    StackError, UpdatePlan, Vouching, advice_offered, combine_deliveries, combine_judged,
    compose_reviews, composes_approval, decide_pre_commit, decide_target, dedupe_ranges,
    delivery_commit, delivery_commits, final_recheck, first_publication_offered, for_amend,
    hold_to_delivered_tier, is_protected, judge_first_publication, judge_stack, new_ref_delivery,
    no_change, offered_recovery, parse_push_updates, plan_update, point_at_escalated_change,
    point_at_open_correction, published_tips, rebind, rebind_offered, rests_on_other_trees,
    stack_order, start_blocked_by, stops_vouching,
};
pub use hooks::{
    HookKind, Install, PUSH_REFSPECS, Uninstall, content_id, install_action, uninstall_action,
};
pub use ids::{
    BlobId, CommitId, FindingId, IdError, LineageId, NonBlank, Nonce, ObjectId, RepoPath,
    Timestamp, TreeId,
};
pub use lens::Lens;
pub use listing::{ListRow, SHOWN_PATHS, list_row, sort_rows};
pub use next_tool::{
    Checks, Fill, NextTool, Surface, call_again, give_check_output, lens_again, record_next_tool,
    refused_input, refused_input_default, start_commit, start_review, tool, unnamed,
};
pub use policy::{
    DEFAULT_POLICY, FloorUnmet, HighRisk, MAX_POLICY_BYTES, POLICY_DIR, POLICY_PATH,
    PolicyDocument, PolicyError, RepoPolicy, RoleAssignment, RolesUnmet, TierRoles, VerifiedKey,
    check_floor,
};
pub use pre_pr::{
    BaseAdvance, base_unavailable, check_base_advance, explain_advance, unrelated_history,
};
pub use preserved::{
    PRESERVED_RESULT_SCHEMA, PreservedError, PreservedResult, check_candidate,
    names_preserved_schema, preserve, read_preserved,
};
pub use projection::{
    DeltaIndexing, IndexLookup, NotIndexable, Projection, claim_is_stale, delta_indexing,
    index_holds, projections,
};
pub use prompts::{
    FRAME_FILE, FRAME_HEADER, FrozenPrompts, LensPrompt, MAX_PROMPT_FILE_BYTES, PROMPT_DOMAIN,
    PromptError, PromptMismatch, PromptRole, PromptSet,
};
pub use rebase::{
    DELTA_DOMAIN, DELTA_ENTRY_DOMAIN, DeltaEntry, DeltaError, EntrySide, GateProof, MAX_ENTRY_KEYS,
    ProofKind, RebaseCheck, TreeDelta, check_rebase, reviewed_outside_delta,
};
pub use receipt::{Receipt, ReceiptSchema, TerminalState};
pub use recovery::{
    Ancestor, ChainError, EscalatedChange, FirstRecord, NewLineageError, RecoverError,
    RecoverRequest, ScopeEvidence, Successor, ancestors, check_chain, check_link,
    escalation_covers, next_sentence, next_sentence_kept, successor, successor_observation,
};
pub use release::{
    AncestorWalk, ChecksumsError, ExpectedArtifact, ObservedArtifact, ReleaseReads, WalkStep,
    parse_checksums, release_recheck, releases_an_ancestor, releasing_ancestor, with_artifacts,
};
pub use repair::{
    BurnError, BurnRequest, BurnTombstoneError, QuarantinedFile, RepairClass, RepairError,
    RepairRequest, Survey, UniquenessProof, audit_record, consumption_tombstone, prove_unique,
};
pub use report::{
    ChainEntry, CheckSummary, LogEvent, RangeReviews, Report, ReportError, range_markdown,
    sarif_log,
};
pub use risk::{
    DirectiveRule, FollowRule, GoldenRule, Listed, ManifestKeysRule, Matching, POLICY_DOMAIN,
    POLICY_V2_DOMAIN, POLICY_V3_DOMAIN, POLICY_V4_DOMAIN, POLICY_V5_DOMAIN, POLICY_V6_DOMAIN,
    POLICY_V7_DOMAIN, POLICY_V8_DOMAIN, POLICY_V9_DOMAIN, POLICY_V10_DOMAIN, POLICY_V11_DOMAIN,
    POLICY_V12_DOMAIN, ReferenceStep, RiskAssessment, RiskLevel, RiskPolicy, RiskReason, RunConfig,
    ScriptsRule, StructuralRule, Symlink, TreeInputs, UnexplainedRisk, authored_lines,
    select_lenses,
};
pub use roles::{
    BindError, FixerHandoff, HandedFinding, MAX_TRANSCRIPT_BYTES, RoleContext, RoleError,
    TranscriptsUnmet, bind_transcript, check_transcripts, fixer_handoff, lens_context,
    refuter_check, refuter_context, reviewer_check, validator_check, validator_context,
};
pub use schema::{RISK_REASON_PATTERN_R2, SchemaDoc};
pub use server::{
    AddedNoteFile, ApprovalHistory, ApprovalNotOnCommit, ApprovalSpent, ApprovedDelivery,
    DefaultBranch, DefaultBranchUnborn, HookRunner, MAX_ADDED_NOTES_BYTES, MAX_NOTES_HISTORY_FILES,
    MAX_NOTES_UPDATE_COMMITS, MAX_RECEIVE_BYTES, MAX_RECEIVE_LINES, NotesHistory, NotesRefDenial,
    PathEntry, PriorDelivery, ProtectedRefDeleted, ReceiveInputError, ReceiveUpdate, SERVER_MARKER,
    ServerHookOwner, approved_change, approved_deliveries, check_added_notes,
    check_approvals_not_replayed, check_approvals_on_own_notes, check_default_branch_creation,
    check_deletion, check_left_to_notes, check_note_growth, check_notes_history,
    check_notes_history_listing, check_notes_update, default_branch, delivers_the_approved_change,
    hook_runners, is_authority_ref, may_run, moved_notes, new_ref_policy_bases, note_path_commit,
    note_paths, notes_listing_base, over_pushed_parents, parse_receive_updates, pre_receive_script,
    protected_update_policy_bases, server_hook_owner, split_notes_updates,
};
pub use server::{
    JUDGED_NOTES_HEADER, JudgedNotes, JudgedNotesError, MAX_JUDGED_NOTES_BYTES,
    MAX_TRANSACTION_BYTES, NOTES_NOT_IN_PLACE_NEXT, NotesNotInPlace, NotesRefBlocked,
    REFERENCE_TRANSACTION_MARKER, ReplaceRefRefused, ServerHook, TransactionInputError,
    TransactionLine, blocks_notes_ref, check_notes_ref_blocker, check_replace_ref,
    check_transaction, names_conflict, parse_transaction, reference_transaction_script,
};
pub use snapshot::{
    CandidateContent, CandidateObservation, ChangedFile, DiffAnchor, FileMode, FrozenCandidate,
    LineCount, LiveTarget, MAX_REVIEWED_FILE_BYTES, PATHS_DOMAIN, SnapshotError, TARGET_DOMAIN,
    UNTRACKED_DOMAIN, correction_budget, first_oversized, paths_digest, target_identity,
    untracked_digest,
};
pub use state::{
    DISPUTE_DOMAIN, Disposition, Dispute, EVIDENCE_DOMAIN, Escalation, EscalationReason, Forecast,
    Frozen, Judgment, LINEAGE_DOMAIN, LensBinding, NextInput, PERSON_VALUES, Predecessor,
    PreflightError, RESULTS_DOMAIN, REVISION_DOMAIN, Refutation, Resumable, ResumeRefused,
    ReviewState, Stage, StartInput, StateError, StateRecord, Transition, TransitionError,
    check_evidence_len, check_forecast, check_successor, derive_lineage_id,
};
pub use submission::{
    MAX_ROLE_DOCUMENT_BYTES, PlacementError, SubmittedDiffers, binding_proves, place_results,
    submitted_to_take,
};
pub use tree_form::{TreeEntryName, TreeMalformed, tree_problem};
