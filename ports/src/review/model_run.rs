//! The model judging inside the lifecycle (issue 10 §2): `probity review
//! --lineage L` runs each selected lens that has no result yet, the
//! refuter batch when admitted findings need it, and the targeted
//! validator after a correction, each through the bounded tool-use loop
//! over the frozen tree, and feeds what they answer to `finalize`.
//!
//! Every decision is core's: the context a role reads, the frozen prompt
//! it must be asked with, the document its answer must be, the transcript
//! entry bound into it (`probity_core::review`, the role documents). This module only
//! sequences: check the live candidate once before any model is asked,
//! export the frozen context, run the loops (lenses in parallel on scoped
//! threads, at most `jobs` at once), submit each result (or finalize the
//! refuter's and the validator's), and keep each transcript once its
//! answer was accepted, so a refusal leaves the store as it was. A lens
//! that fails never blocks the others' submissions; a rerun runs only the
//! lenses still missing.

use std::sync::Mutex;

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::StateRecord;
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{
    MAX_TRANSCRIPT_BYTES, RoleContext, RoleError, bind_transcript, lens_context, refuter_context,
    validator_context,
};
use probity_core::review::{PromptRole, PromptSet};
use probity_core::snapshot_tools::{BudgetLimits, Event, ReviewLoop, Session, UsageTotals};

use super::*;
use crate::snapshot::{ChatModel, LoopRunError, ModelError, SnapshotReader, Stopwatch, run_review};

/// Keeping a model-run role's transcript with its lineage.
pub trait TranscriptStore {
    /// Keeps `bytes` (a transcript's canonical JSON, whose digest is
    /// `digest`) with `lineage`, named by `role` and the digest;
    /// idempotent. Returns where it is, relative to the store.
    fn keep_transcript(
        &self,
        lineage: &LineageId,
        role: &str,
        digest: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<String, StoreError>;
}

/// Where the model-run roles get what they need from the world.
pub struct RoleWorld<'a, R, M, C> {
    /// The prompts (the lineage froze their digests).
    pub prompts: &'a PromptSet,
    /// Opens the read-only subject of a tree (`tree:<oid>`).
    pub subject: &'a (dyn Fn(&TreeId) -> Result<R, AdapterError> + Sync),
    /// A fresh model client (one per role run) for a run over the tree it
    /// is given (the frozen or the corrected candidate): a provider that
    /// offers no tools tells its agent how to read that tree.
    pub model: &'a (dyn Fn(&TreeId) -> Result<M, ModelError> + Sync),
    /// A stopwatch started now (one per role run: each has the whole
    /// review timeout).
    pub stopwatch: &'a (dyn Fn() -> C + Sync),
    /// The reviewer-tool budget of each run.
    pub budget: BudgetLimits,
    /// The wall clock of each run, in milliseconds.
    pub timeout_ms: u64,
    /// The most bytes of frozen diff a context shows.
    pub max_diff_bytes: u64,
    /// At most this many lens runs at once (at least 1).
    pub jobs: usize,
    /// Each tool event of each run, as it happens (the role's name first).
    pub log: &'a (dyn Fn(&str, &Event) + Sync),
}

/// Why one role run produced nothing to submit.
#[derive(Debug, thiserror::Error)]
pub enum RoleRunError {
    /// The role cannot run (its prompt is not the frozen one, the lineage
    /// does not await it): no model was asked.
    #[error(transparent)]
    Role(#[from] RoleError),
    /// The subject or the model could not be opened.
    #[error("could not open {what}: {detail}")]
    Open {
        /// What could not be opened (`the frozen tree`, `the model`).
        what: &'static str,
        /// The adapter's error, as text.
        detail: String,
    },
    /// The loop ended without a document (a model error, the timeout, an
    /// answer that stayed invalid after the repair turn).
    #[error(transparent)]
    Loop(#[from] LoopRunError),
    /// The document could not be bound, kept or submitted.
    #[error(transparent)]
    Review(#[from] ReviewError),
}

/// What one role run did.
#[derive(Debug)]
pub struct RoleRun {
    /// The role run: a lens, the refuter or the validator.
    pub role: PromptRole,
    /// Its document, or why it produced none.
    pub outcome: Result<RunDone, RoleRunError>,
}

/// A role run that produced its document.
#[derive(Debug, Clone)]
pub struct RunDone {
    /// The document, with the transcript entry bound in.
    pub document: Vec<u8>,
    /// The `probity/review-transcript/v1` digest of the conversation's
    /// canonical JSON (the one bound into the document).
    pub transcript_digest: Sha256Digest,
    /// Where the transcript is kept (store-relative).
    pub transcript: String,
    /// The digest of the system prompt the role was asked with (the one
    /// the lineage froze).
    pub prompt_digest: Sha256Digest,
    /// How many times the model was asked, retries included.
    pub model_calls: u32,
    /// The answer was refused by its document check once and given again.
    pub repaired: bool,
    /// Tokens (and cost) the model calls reported.
    pub usage: UsageTotals,
    /// The reviewer-tool footer (what was read), if any.
    pub footer: Option<String>,
    /// Reviewer-tool calls the run used.
    pub calls_used: u32,
    /// Reviewer-tool payload bytes the run used.
    pub bytes_used: u64,
}

/// What `review_lineage` did and where the lineage stands.
#[derive(Debug)]
pub struct LineageReview {
    /// The lineage after everything that could be fed to `finalize` was.
    pub record: StateRecord,
    /// Where the receipt lives, once `finalize` made the lineage terminal.
    pub receipt_location: Option<String>,
    /// One entry per lens that was run (a lens whose result was already
    /// kept is not run again).
    pub lenses: Vec<RoleRun>,
    /// The refuter batch, when the judgment needed it.
    pub refuter: Option<RoleRun>,
}

/// A role run's document and its transcript's bytes, or why not.
type RunResult = Result<(RunDone, Vec<u8>), RoleRunError>;

/// Runs one role's loop to its document (no store write).
fn run_role<R, M, C>(world: &RoleWorld<'_, R, M, C>, ctx: &RoleContext, tree: &TreeId) -> RunResult
where
    R: SnapshotReader,
    M: ChatModel,
    C: Stopwatch,
{
    let reader = (world.subject)(tree).map_err(|e| RoleRunError::Open {
        what: "the frozen tree",
        detail: e.to_string(),
    })?;
    let mut model = (world.model)(tree).map_err(|e| RoleRunError::Open {
        what: "the model",
        detail: e.to_string(),
    })?;
    let clock = (world.stopwatch)();
    let mut lp = ReviewLoop::new(
        Session::new(world.budget),
        ctx.system.clone(),
        ctx.user.clone(),
        Vec::new(),
    )
    .with_finish(ctx.finish.clone());
    // The log names a role as every answer does: `reliability`, `refuter`.
    let name = ctx.role.name();
    let review = run_review(
        &mut lp,
        &mut model,
        &reader,
        &clock,
        world.timeout_ms,
        &mut |e| (world.log)(name, e),
    )?;
    let transcript = lp
        .transcript_bytes()
        .map_err(|e| RoleRunError::Loop(e.into()))?;
    // Refused here, before its answer is submitted: no store keeps it.
    if transcript.len() > MAX_TRANSCRIPT_BYTES {
        return Err(RoleRunError::Review(ReviewError::InputTooLarge {
            name: format!("the {} transcript", ctx.role),
            limit: MAX_TRANSCRIPT_BYTES as u64,
        }));
    }
    let answer = review.document().unwrap_or_default();
    let document = bind_transcript(
        ctx.role,
        answer,
        &review.transcript_digest,
        &ctx.prompt_digest,
    )
    .map_err(|e| {
        RoleRunError::Review(ReviewError::MalformedInput {
            name: format!("the {} answer", ctx.role),
            role: "reviewer",
            source: match e {
                probity_core::review::BindError::Document(d) => d,
                probity_core::review::BindError::Encode(s) => {
                    probity_core::review::RoleDocError::Json(s)
                }
            },
        })
    })?;
    let usage = lp.session().usage();
    Ok((
        RunDone {
            document,
            transcript_digest: review.transcript_digest,
            transcript: String::new(),
            prompt_digest: ctx.prompt_digest,
            model_calls: review.model_calls,
            repaired: review.repaired,
            usage: review.usage,
            footer: review.footer,
            calls_used: usage.calls_used,
            bytes_used: usage.bytes_used,
        },
        transcript,
    ))
}

/// The frozen context of a lineage: its diff and manifest, exported.
fn frozen_context<G: GitPort + ExportGit + ManifestGit, S: RecordStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Exported, ReviewError> {
    export_context(git, store, lineage)
}

/// `probity review --lineage L`: runs every selected lens without a kept
/// result (in parallel, at most `world.jobs` at once), submits each result
/// with its binding and keeps its transcript once it was accepted; once
/// every lens has a result, finalizes them; when admitted findings need the
/// refuter, runs its single batch, finalizes it and keeps its transcript.
/// Stops where the lineage needs an input only the caller can give
/// (evidence, a correction forecast).
///
/// Before any model is asked, the live candidate must be the one the
/// lineage froze (`lens submit`'s check): otherwise every answer would be
/// refused, so the call is refused first, with nothing asked or written.
pub fn review_lineage<G, S, R, M, C>(
    git: &G,
    store: &S,
    world: &RoleWorld<'_, R, M, C>,
    lineage: &LineageId,
) -> Result<LineageReview, ReviewError>
where
    G: GitPort + ExportGit + ManifestGit,
    S: ReviewStore + TranscriptStore,
    R: SnapshotReader,
    M: ChatModel,
    C: Stopwatch,
{
    let record = store.get(lineage)?;
    // Which lenses still run is core's rule.
    let kept: Vec<Lens> = if record.state().past_lens_results() {
        Vec::new()
    } else {
        store
            .submitted_results(lineage)?
            .into_iter()
            .map(|(l, _)| l)
            .collect()
    };
    let missing = record.state().lenses_to_run(&kept);
    // A model is about to be asked (a lens, or the refuter): once, before
    // any is, the live candidate must still be the frozen one. (When only
    // finalizing kept results, finalize checks it itself; once lenses ran
    // here, the finalize that took them checked it just before the
    // refuter.)
    let record = if !missing.is_empty() || record.state().awaits_refuter() {
        check_live_candidate(git, store, lineage)?
    } else {
        record
    };
    let mut lenses = Vec::new();
    if !missing.is_empty() {
        let exported = frozen_context(git, store, lineage)?;
        lenses = run_lenses(git, store, world, &record, &exported, &missing);
    }
    // Every lens has a result (kept before or just now): finalize takes
    // them from the store.
    let mut done = match finalize_if_complete(git, store, lineage)? {
        Some(d) => d,
        None => {
            return Ok(LineageReview {
                record: store.load(lineage)?.unwrap_or(record),
                receipt_location: None,
                lenses,
                refuter: None,
            });
        }
    };
    let mut refuter = None;
    if done.record.state().awaits_refuter() {
        let exported = frozen_context(git, store, lineage)?;
        let (run, finalized) = run_refuter(git, store, world, &done.record, &exported)?;
        if let Some(f) = finalized {
            done = f;
        }
        refuter = Some(run);
    }
    Ok(LineageReview {
        record: done.record,
        receipt_location: done.receipt_location,
        lenses,
        refuter,
    })
}

/// Finalizes the kept results when every selected lens has one (`None`
/// while some are missing, and when the lineage no longer awaits results:
/// then it is answered as it stands).
fn finalize_if_complete<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Option<Finalized>, ReviewError> {
    let record = store.get(lineage)?;
    if !record.state().past_lens_results() {
        let kept: Vec<Lens> = store
            .submitted_results(lineage)?
            .into_iter()
            .map(|(l, _)| l)
            .collect();
        if !record.state().kept_results_complete(&kept) {
            return Ok(None);
        }
        return finalize(
            git,
            store,
            FinalizeInput {
                lineage: Some(lineage.clone()),
                ..Default::default()
            },
        )
        .map(Some);
    }
    let receipt_location = record
        .state()
        .stage()
        .is_terminal()
        .then(|| store.receipt_location(lineage));
    Ok(Some(Finalized {
        record,
        receipt_location,
    }))
}

fn run_lenses<G, S, R, M, C>(
    git: &G,
    store: &S,
    world: &RoleWorld<'_, R, M, C>,
    record: &StateRecord,
    exported: &Exported,
    missing: &[Lens],
) -> Vec<RoleRun>
where
    G: GitPort,
    S: RecordStore + ChainStore + IndexStore + ResultStore + TranscriptStore,
    R: SnapshotReader,
    M: ChatModel,
    C: Stopwatch,
{
    let state = record.state();
    let tree = state.snapshot().candidate_tree.clone();
    let contexts: Vec<(Lens, Result<RoleContext, RoleError>)> = missing
        .iter()
        .map(|l| {
            (
                *l,
                lens_context(
                    state,
                    *l,
                    world.prompts,
                    &exported.diff,
                    &exported.envelope.changed_path_manifest,
                    world.max_diff_bytes,
                ),
            )
        })
        .collect();
    let jobs = world.jobs.max(1);
    let results: Mutex<Vec<(Lens, RunResult)>> = Mutex::new(Vec::new());
    let runnable: Vec<(Lens, &RoleContext)> = contexts
        .iter()
        .filter_map(|(l, c)| c.as_ref().ok().map(|c| (*l, c)))
        .collect();
    for chunk in runnable.chunks(jobs) {
        std::thread::scope(|scope| {
            for (lens, ctx) in chunk {
                let (lens, ctx, tree, results) = (*lens, *ctx, &tree, &results);
                scope.spawn(move || {
                    let outcome = run_role(world, ctx, tree);
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((lens, outcome));
                });
            }
        });
    }
    let mut ran = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut out = Vec::new();
    // Submissions in selected order, one at a time (each is a store write).
    for (lens, ctx) in contexts {
        let role = PromptRole::Lens(lens);
        let outcome = match ctx {
            Err(e) => Err(RoleRunError::Role(e)),
            Ok(ctx) => match ran.iter().position(|(l, _)| *l == lens) {
                None => Err(RoleRunError::Open {
                    what: "the lens run",
                    detail: "it did not report".into(),
                }),
                Some(i) => {
                    let (_, r) = ran.swap_remove(i);
                    r.and_then(|(done, transcript)| {
                        submit_and_keep(git, store, record, lens, &ctx, done, &transcript)
                    })
                }
            },
        };
        out.push(RoleRun { role, outcome });
    }
    out
}

/// Submits a lens's document, then keeps its transcript: a refused
/// submission leaves the store as it was (the transcript's digest is bound
/// into the document, so the file is not needed to submit it). Should the
/// store fail to keep the transcript after the submission was accepted, the
/// role reports that error and its result stands.
fn submit_and_keep<
    G: GitPort,
    S: RecordStore + ChainStore + IndexStore + ResultStore + TranscriptStore,
>(
    git: &G,
    store: &S,
    record: &StateRecord,
    lens: Lens,
    ctx: &RoleContext,
    done: RunDone,
    transcript: &[u8],
) -> Result<RunDone, RoleRunError> {
    let lineage = record.state().lineage_id();
    submit_result(
        git,
        store,
        SubmitInput {
            lineage: Some(lineage.clone()),
            lens,
            binding: ctx.binding.clone(),
            result: NamedInput {
                name: format!("the {} lens's answer", lens.name()),
                bytes: done.document.clone(),
            },
        },
    )?;
    keep(store, lineage, ctx.role, done, transcript)
}

/// Keeps an accepted role's transcript (named by its role and digest) and
/// says where.
fn keep<S: TranscriptStore>(
    store: &S,
    lineage: &LineageId,
    role: PromptRole,
    mut done: RunDone,
    transcript: &[u8],
) -> Result<RunDone, RoleRunError> {
    done.transcript = store
        .keep_transcript(lineage, role.name(), &done.transcript_digest, transcript)
        .map_err(ReviewError::from)?;
    Ok(done)
}

/// Runs the refuter batch and finalizes its document; its transcript is
/// kept once finalize took the batch. A refused batch is the refuter's
/// error (the store as it was); the lineage then stands where it was. A
/// fault of the store or the repository while finalizing or keeping it is
/// the command's error, not the refuter's (issue 26 §4): the refuter
/// answered, and what failed is no judgment of its batch.
fn run_refuter<G, S, R, M, C>(
    git: &G,
    store: &S,
    world: &RoleWorld<'_, R, M, C>,
    record: &StateRecord,
    exported: &Exported,
) -> Result<(RoleRun, Option<Finalized>), ReviewError>
where
    G: GitPort,
    S: ReviewStore + TranscriptStore,
    R: SnapshotReader,
    M: ChatModel,
    C: Stopwatch,
{
    let role = PromptRole::Refuter;
    let lineage = record.state().lineage_id();
    let mut finalized = None;
    let outcome = refuter_context(
        record.state(),
        world.prompts,
        &exported.diff,
        &exported.envelope.changed_path_manifest,
        world.max_diff_bytes,
    )
    .map_err(RoleRunError::from)
    .and_then(|ctx| run_role(world, &ctx, &record.state().snapshot().candidate_tree))
    .and_then(|(done, transcript)| {
        let f = finalize(
            git,
            store,
            FinalizeInput {
                lineage: Some(lineage.clone()),
                refuter: Some(NamedInput {
                    name: "the refuter's answer".into(),
                    bytes: done.document.clone(),
                }),
                ..Default::default()
            },
        )?;
        finalized = Some(f);
        keep(store, lineage, role, done, &transcript)
    });
    let outcome = match outcome {
        Err(RoleRunError::Review(e)) if is_environment_fault(&e) => return Err(e),
        other => other,
    };
    Ok((RoleRun { role, outcome }, finalized))
}

/// Whether a review error is a fault of the store or the repository the
/// command runs against (unreadable, corrupted, contended, moved by
/// another writer), rather than a refusal of the document a role gave.
fn is_environment_fault(e: &ReviewError) -> bool {
    matches!(
        e,
        ReviewError::Repository(_)
            | ReviewError::Store(
                StoreError::Io { .. }
                    | StoreError::Corrupted { .. }
                    | StoreError::Malformed { .. }
                    | StoreError::Contention { .. }
                    | StoreError::Conflict { .. }
            )
    )
}

/// The most bytes of a correction's diff read for the validator.
pub const MAX_FIX_DIFF_BYTES: u64 = 4 * 1024 * 1024;

/// `probity review --lineage L --validate`: after the correction edit, the
/// targeted validator reads the corrected candidate (the live one, as a
/// tree) with the admitted findings and the fix diff, and its document is
/// given to `finalize --validation`, which measures the fix from Git.
pub fn validate_correction<G, S, R, M, C>(
    git: &G,
    store: &S,
    world: &RoleWorld<'_, R, M, C>,
    lineage: &LineageId,
) -> Result<(Finalized, RoleRun), ReviewError>
where
    G: GitPort + ExportGit,
    S: ReviewStore + TranscriptStore,
    R: SnapshotReader,
    M: ChatModel,
    C: Stopwatch,
{
    let record = store.get(lineage)?;
    let live = git.live_target()?;
    let from = record.state().final_candidate_tree().clone();
    let fix_diff = git
        .frozen_diff(
            TreeSpan {
                from: &from,
                to: &live.candidate_tree,
            },
            MAX_FIX_DIFF_BYTES,
        )?
        .ok_or(ReviewError::NotRepresentable {
            limit: MAX_FIX_DIFF_BYTES,
        })?;
    let role = PromptRole::Validator;
    let outcome = validator_context(
        record.state(),
        world.prompts,
        &fix_diff,
        &live.candidate_tree,
        world.max_diff_bytes,
    )
    .map_err(RoleRunError::from)
    .and_then(|ctx| run_role(world, &ctx, &live.candidate_tree));
    // Finalize measures the fix and takes the document; only then is the
    // transcript kept (a refusal leaves the store as it was).
    let (finalized, outcome) = match outcome {
        Ok((done, transcript)) => {
            let finalized = finalize(
                git,
                store,
                FinalizeInput {
                    lineage: Some(lineage.clone()),
                    validation: Some(NamedInput {
                        name: "the validator's answer".into(),
                        bytes: done.document.clone(),
                    }),
                    validated_tree: Some(live.candidate_tree.clone()),
                    ..Default::default()
                },
            )?;
            (finalized, keep(store, lineage, role, done, &transcript))
        }
        Err(e) => (
            Finalized {
                receipt_location: None,
                record,
            },
            Err(e),
        ),
    };
    Ok((finalized, RoleRun { role, outcome }))
}
