//! `finalize`: lens results, the refuter, correction and evidence turned
//! into committed authority.

use probity_core::digest::Sha256Digest;
use probity_core::review::CausalFacts;
use probity_core::review::FixMeasurement;
use probity_core::review::Lens;
use probity_core::review::LiveTarget;
use probity_core::review::check_transcripts;
use probity_core::review::{CHECKS_PATH, MAX_CHECKS_BYTES, RepoChecks};
use probity_core::review::{
    CommandEvidenceDocument, CommandRun, EvidenceReading, KeptCheck, command_evidence,
    command_evidence_on, evidence_reading, evidence_reading_streamed,
};
use probity_core::review::{
    EVIDENCE_DOMAIN, LensBinding, PreflightError, ReviewState, StateRecord, Transition,
    TransitionError, check_evidence_len, check_forecast,
};
use probity_core::review::{LineageId, NonBlank, TreeId};
use probity_core::review::{MAX_ROLE_DOCUMENT_BYTES, place_results, submitted_to_take};
use probity_core::review::{RefuterResult, ReviewerResult, RoleDocError, ValidatorResult};
use probity_core::review::{check_candidate, names_preserved_schema, read_preserved};

use super::*;

/// Inputs to finalize. Each present input is applied in this order, and each
/// valid intermediate state is committed before the next.
#[derive(Debug, Clone, Default)]
pub struct FinalizeInput {
    /// The lineage; discovered from the live candidate when absent.
    pub lineage: Option<LineageId>,
    /// Lens results, each named by its lens (an unnamed one stands for the
    /// only selected lens). Results kept by `lens submit` complete them.
    pub results: Vec<LensResultInput>,
    /// The single refuter batch.
    pub refuter: Option<NamedInput>,
    /// The forecast of the next correction attempt, before editing.
    pub correction_lines: Option<u64>,
    /// The targeted validator's result, after editing.
    pub validation: Option<NamedInput>,
    /// The corrected candidate tree the validator was shown, when the
    /// caller knows it (`probity review --validate` does): a live candidate
    /// that is another tree by the time the validation is taken is
    /// `candidate_changed`, nothing written, so a verdict is never attached
    /// to a fix it did not read. `None` (a hand-given `--validation`) takes
    /// the live candidate as the one judged.
    pub validated_tree: Option<TreeId>,
    /// Final independent evidence.
    pub evidence: Option<EvidenceInput>,
    /// Bindings (exact string or token) the orchestrator echoes for the
    /// lenses whose results it gives: each must be this lineage's binding
    /// for that lens.
    pub bindings: Vec<(Lens, String)>,
}

/// A lens result given to finalize: `--result LENS=FILE` names its lens, a
/// bare `--result FILE` does not.
#[derive(Debug, Clone)]
pub struct LensResultInput {
    /// The lens the result is for; `None` stands for the only selected lens
    /// (refused when more than one is selected).
    pub lens: Option<Lens>,
    /// The `reviewer` document's bytes and the name messages use for it.
    pub input: NamedInput,
}

impl LensResultInput {
    /// A result named by its lens.
    pub fn named(lens: Lens, input: NamedInput) -> Self {
        Self {
            lens: Some(lens),
            input,
        }
    }

    /// A result without a lens name (accepted when one lens is selected).
    pub fn unnamed(input: NamedInput) -> Self {
        Self { lens: None, input }
    }
}

/// Final evidence, in one of the forms an adapter can give it.
#[derive(Debug, Clone)]
pub enum EvidenceInput {
    /// The whole bytes.
    Bytes(NamedInput),
    /// Bytes the adapter hashed while streaming them: their
    /// `EVIDENCE_DOMAIN` digest, their length, their head (the first
    /// `MAX_COMMAND_EVIDENCE_BYTES + 1` bytes, or all of them) and their
    /// tail (the last `EVIDENCE_TAIL_BYTES`), so a command evidence
    /// document is read as one and one padded past its bound is refused
    /// (core's `evidence_verdict_streamed`).
    Streamed {
        /// What messages call the evidence (its path, as given).
        name: String,
        /// The `EVIDENCE_DOMAIN` digest of all the bytes.
        hash: Sha256Digest,
        /// How many bytes were streamed; 0 is refused as empty evidence.
        len: u64,
        /// The first `MAX_COMMAND_EVIDENCE_BYTES + 1` bytes, or all of them.
        head: Vec<u8>,
        /// The last `EVIDENCE_TAIL_BYTES` bytes, or all of them.
        tail: Vec<u8>,
    },
    /// An independent check the adapter ran where it did not say on which
    /// tree: its canonical `probity-command-evidence/v1` document is what
    /// gets hashed.
    Command(CommandRun),
    /// The independent check the adapter ran in a checkout of `tree`
    /// (`--evidence-cmd`): its `probity-command-evidence/v2` document,
    /// which names the tree, is what gets hashed, and a lineage whose final
    /// candidate tree is another refuses it.
    CommandOn {
        /// The run.
        run: CommandRun,
        /// The tree it ran on.
        tree: TreeId,
    },
}

impl EvidenceInput {
    /// The evidence hash and what the evidence reports (core reads the
    /// verdict and the tree a v2 document names), refusing empty evidence
    /// and a check that gave no verdict.
    fn hash(&self) -> Result<(Sha256Digest, EvidenceReading), ReviewError> {
        let reading = |bytes: &[u8]| evidence_reading(bytes).map_err(TransitionError::from);
        match self {
            EvidenceInput::Bytes(b) => {
                check_evidence_len(b.bytes.len() as u64)?;
                Ok((
                    Sha256Digest::of(EVIDENCE_DOMAIN, &b.bytes),
                    reading(&b.bytes)?,
                ))
            }
            EvidenceInput::Streamed {
                hash,
                len,
                head,
                tail,
                ..
            } => {
                check_evidence_len(*len)?;
                Ok((
                    *hash,
                    evidence_reading_streamed(head, tail, *len).map_err(TransitionError::from)?,
                ))
            }
            EvidenceInput::Command(run) => {
                let e = command_evidence(run)?;
                Ok((Sha256Digest::of(EVIDENCE_DOMAIN, &e.bytes), e.reading()))
            }
            EvidenceInput::CommandOn { run, tree } => {
                let e = command_evidence_on(run, tree)?;
                Ok((Sha256Digest::of(EVIDENCE_DOMAIN, &e.bytes), e.reading()))
            }
        }
    }
}

impl EvidenceInput {
    /// The command evidence document a required check can rest on: only a
    /// check Probity ran on a tree (`--evidence-cmd`), the one kind whose
    /// document travels in the bundle (D-R69). Given bytes that read as a
    /// document are anyone's word and never travel, so the server would
    /// refuse them: here they count as no check either.
    fn document(&self) -> Option<CommandEvidenceDocument> {
        match self {
            EvidenceInput::CommandOn { run, tree } => {
                CommandEvidenceDocument::parse(&command_evidence_on(run, tree).ok()?.bytes).ok()
            }
            EvidenceInput::Command(_)
            | EvidenceInput::Bytes(_)
            | EvidenceInput::Streamed { .. } => None,
        }
    }
}

/// The required checks of the review's base (`.probity/checks.json` in its
/// base tree, D-R69) hold an approval locally as the server will: core's
/// `RepoChecks::check_approval` over the frozen paths and the evidence's
/// document. Refused before anything is written, so the way on (the
/// required check) still lands on this lineage.
fn required_checks_met<G: GitPort>(
    git: &G,
    state: &ReviewState,
    doc: Option<&CommandEvidenceDocument>,
) -> Result<(), ReviewError> {
    let Some(bytes) = git.read_path(&state.snapshot().base_tree, CHECKS_PATH, MAX_CHECKS_BYTES)?
    else {
        return Ok(());
    };
    let checks = RepoChecks::parse(&bytes)?;
    let paths: Vec<&str> = state.snapshot().paths.iter().map(|p| p.as_str()).collect();
    checks.check_approval(state.lineage_id().as_str(), &paths, doc)?;
    Ok(())
}

/// The base's policy (`transcripts`, D-R103) holds the lens results to
/// model runs at the review's tier, locally as the server will: core's
/// `check_transcripts` over each selected lens's result. Refused before
/// anything is written, so `probity review` still lands on this lineage.
fn transcripts_met<G: GitPort>(
    git: &G,
    state: &ReviewState,
    results: &[(Lens, &[NonBlank])],
) -> Result<(), ReviewError> {
    let Some(policy) = super::start::base_policy(git, &state.snapshot().base_tree)? else {
        return Ok(());
    };
    check_transcripts(&policy, state, results.iter().copied())?;
    Ok(())
}

/// Refuses a role document over its bound before it is parsed, and a
/// preserved-result artifact by its schema (R3.6: it is replayed through
/// `replay_preserved`, never taken as a result).
fn bounded(input: &NamedInput) -> Result<&NamedInput, ReviewError> {
    if input.bytes.len() as u64 > MAX_ROLE_DOCUMENT_BYTES {
        return Err(ReviewError::InputTooLarge {
            name: input.name.clone(),
            limit: MAX_ROLE_DOCUMENT_BYTES,
        });
    }
    if names_preserved_schema(&input.bytes) {
        return Err(ReviewError::PreservedNotAResult {
            name: input.name.clone(),
        });
    }
    Ok(input)
}

/// What finalize returned.
#[derive(Debug, Clone)]
pub struct Finalized {
    /// The lineage's record once every given input is committed.
    pub record: StateRecord,
    /// Where the receipt lives, in a terminal state only.
    pub receipt_location: Option<String>,
}

fn malformed<'a>(
    input: &'a NamedInput,
    role: &'static str,
) -> impl FnOnce(RoleDocError) -> ReviewError + 'a {
    move |source| ReviewError::MalformedInput {
        name: input.name.clone(),
        role,
        source,
    }
}

/// `probity finalize`: turns judgment into authority (R4–R6). Every input is
/// parsed before anything is written; each valid intermediate state is
/// committed, so a crash resumes without re-running a lens or re-charging.
pub fn finalize<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    input: FinalizeInput,
) -> Result<Finalized, ReviewError> {
    git.check_keep_trees()?;
    let given = input
        .results
        .iter()
        .map(|r| {
            let parsed = ReviewerResult::parse(&bounded(&r.input)?.bytes)
                .map_err(malformed(&r.input, "reviewer"))?;
            Ok((r.lens, r.input.bytes.as_slice(), parsed))
        })
        .collect::<Result<Vec<_>, ReviewError>>()?;
    let refuter = input
        .refuter
        .as_ref()
        .map(|r| RefuterResult::parse(&bounded(r)?.bytes).map_err(malformed(r, "refuter")))
        .transpose()?;
    let validation = input
        .validation
        .as_ref()
        .map(|v| ValidatorResult::parse(&bounded(v)?.bytes).map_err(malformed(v, "validator")))
        .transpose()?;
    let forecast = check_forecast(input.correction_lines)?;
    let evidence = input
        .evidence
        .as_ref()
        .map(EvidenceInput::hash)
        .transpose()?;
    let (live, record) = discover_for_finalize(git, store, input.lineage.as_ref())?;
    for (lens, given) in &input.bindings {
        check_binding(record.state(), *lens, given)?;
    }
    // Derive every transition in memory first: an input that is not legal
    // is refused before anything is written, whatever came before it.
    let mut states = Vec::new();
    let mut state = record.state().clone();
    let submitted = if state.frozen().selected_lenses.is_empty() {
        Vec::new()
    } else {
        store.submitted_results(state.lineage_id())?
    };
    let kept: Vec<Lens> = submitted.iter().map(|(l, _)| *l).collect();
    if state.results_due(given.len(), &kept) {
        let results = combine_results(&state, given, &submitted)?;
        let evidence: Vec<(Lens, &[NonBlank])> = state
            .frozen()
            .selected_lenses
            .iter()
            .zip(&results)
            .map(|(lens, r)| (*lens, r.evidence.as_slice()))
            .collect();
        transcripts_met(git, &state, &evidence)?;
        let facts = causal_facts(git, &state, &results)?;
        state = state.accept_results(results, &facts)?;
        states.push(state.clone());
    }
    if let Some(batch) = refuter {
        state = state.accept_refuter(batch)?;
        states.push(state.clone());
    }
    // An exact retry of a forecast and validation that already landed
    // answers unchanged instead of opening another attempt.
    let mut validation = validation;
    let mut correction_lines = forecast;
    if let Some(v) = &validation
        && state.is_last_attempt(correction_lines, &live.candidate_tree, v)
    {
        validation = None;
        correction_lines = None;
    }
    if let Some(lines) = correction_lines {
        state = state.accept_forecast(lines)?;
        states.push(state.clone());
    }
    if let Some(validation) = validation {
        // A moved base is refused first (`base_changed`), then a fix that
        // is not the one the validator read.
        let fix = measure_fix(git, &state, &live)?;
        if let Some(judged) = &input.validated_tree
            && *judged != live.candidate_tree
        {
            return Err(ReviewError::CandidateChanged {
                lineage: state.lineage_id().clone(),
                differing_paths: git.differing_paths(TreeSpan {
                    from: judged,
                    to: &live.candidate_tree,
                })?,
            });
        }
        state = state.accept_validation(fix, validation)?;
        states.push(state.clone());
    }
    if let Some((hash, reading)) = evidence {
        state = state.accept_evidence_reading(hash, &reading)?;
        if state.stage().name() == "approved" {
            let doc = input.evidence.as_ref().and_then(EvidenceInput::document);
            required_checks_met(git, &state, doc.as_ref())?;
        }
        states.push(state.clone());
    }
    // Commit each valid intermediate state, so a crash resumes from the
    // last one without re-running a lens or re-charging budget.
    let mut record = record;
    for next in states {
        record = commit(store, &record, next)?;
    }
    // Finish whatever a crash left unwritten (receipt, index entries).
    store.ensure_projections(&record)?;
    // The rebase proof's lookup: derived from the trees, so written here
    // rather than by the store (idempotent; a retry completes it).
    index_rebase_delta(git, store, &record)?;
    keep(git, &record)?;
    let receipt_location = record
        .state()
        .stage()
        .is_terminal()
        .then(|| store.receipt_location(record.state().lineage_id()));
    Ok(Finalized {
        record,
        receipt_location,
    })
}

/// The results given on the command line, completed by the ones `lens
/// submit` kept (core decides which: `submitted_to_take`), placed in
/// selected order by lens name (core decides the placement).
fn combine_results(
    state: &ReviewState,
    given: Vec<(Option<Lens>, &[u8], ReviewerResult)>,
    submitted: &[(Lens, Vec<u8>)],
) -> Result<Vec<ReviewerResult>, ReviewError> {
    let selected = &state.frozen().selected_lenses;
    let named: Vec<(Option<Lens>, &[u8])> = given.iter().map(|(l, b, _)| (*l, *b)).collect();
    let take = submitted_to_take(selected, &named, submitted).map_err(|e| {
        ReviewError::SubmittedDiffers {
            lineage: state.lineage_id().clone(),
            lens: e.lens.name(),
        }
    })?;
    let mut all: Vec<(Option<Lens>, ReviewerResult)> = given
        .into_iter()
        .map(|(l, _, parsed)| (l, parsed))
        .collect();
    for (lens, bytes) in take {
        let name = format!("submitted result for lens {}", lens.name());
        let doc = NamedInput {
            name,
            bytes: bytes.to_vec(),
        };
        let parsed =
            ReviewerResult::parse(&bounded(&doc)?.bytes).map_err(malformed(&doc, "reviewer"))?;
        all.push((Some(lens), parsed));
    }
    Ok(place_results(selected, all)?)
}

/// What a lens result submission needs.
#[derive(Debug, Clone)]
pub struct SubmitInput {
    /// The lineage; discovered from the live candidate when absent.
    pub lineage: Option<LineageId>,
    /// The lens the result is for (refused when it is not selected).
    pub lens: Lens,
    /// The binding start prepared for the lens, or its token: refused when
    /// it is not this lineage's binding for that lens.
    pub binding: Option<String>,
    /// The `reviewer` document's bytes and the name messages use for it.
    pub result: NamedInput,
}

/// What a submission answered.
#[derive(Debug, Clone)]
pub struct SubmittedResult {
    /// The lineage's record, unchanged by the submission.
    pub record: StateRecord,
    /// The binding start prepared for the submitted lens.
    pub binding: LensBinding,
    /// Whether the result was kept now or already held (an exact retry).
    pub outcome: Submitted,
    /// The lenses whose results the lineage now holds, in selected order.
    pub submitted: Vec<Lens>,
}

/// `probity lens submit`: checks a lens result against the reviewer schema
/// and the lineage's prepared binding, and keeps it in the store; the
/// lineage's state is not changed (`finalize` accepts the results once
/// every selected lens has one). The live candidate must still be the
/// frozen one.
pub fn submit_result<G: GitPort, S: RecordStore + ChainStore + IndexStore + ResultStore>(
    git: &G,
    store: &S,
    input: SubmitInput,
) -> Result<SubmittedResult, ReviewError> {
    let parsed = ReviewerResult::parse(&bounded(&input.result)?.bytes)
        .map_err(malformed(&input.result, "reviewer"))?;
    let (_live, record) = discover_for_finalize(git, store, input.lineage.as_ref())?;
    let lineage = record.state().lineage_id().clone();
    // A result the base's policy would refuse at finalize (`transcripts`)
    // is refused before it is kept: a kept one would stand in for the
    // model run `probity review` makes of the same lens.
    if record
        .state()
        .frozen()
        .selected_lenses
        .contains(&input.lens)
    {
        transcripts_met(
            git,
            record.state(),
            &[(input.lens, parsed.evidence.as_slice())],
        )?;
    }
    let kept = |store: &S| -> Result<Vec<(Lens, Vec<u8>)>, ReviewError> {
        Ok(store.submitted_results(&lineage)?)
    };
    let outcome = match record
        .state()
        .preflight(input.lens, input.binding.as_deref())
    {
        Ok(_) => store.submit_result(&lineage, input.lens, &input.result.bytes)?,
        // An exact resubmission after finalize accepted the results is
        // answered, not refused (the binding is still checked).
        Err(PreflightError::NotAwaitingResults { .. })
            if kept(store)?
                .iter()
                .any(|(l, b)| *l == input.lens && *b == input.result.bytes)
                && binding_holds(record.state(), input.lens, input.binding.as_deref()) =>
        {
            Submitted::Existing
        }
        Err(source) => return Err(ReviewError::Submission { lineage, source }),
    };
    let binding = record
        .state()
        .lens_bindings()
        .into_iter()
        .find(|b| b.lens == input.lens)
        .ok_or_else(|| ReviewError::Submission {
            lineage: lineage.clone(),
            source: PreflightError::NotSelected {
                lens: input.lens.name(),
            },
        })?;
    let held = kept(store)?;
    let submitted = record
        .state()
        .frozen()
        .selected_lenses
        .iter()
        .filter(|l| held.iter().any(|(h, _)| h == *l))
        .copied()
        .collect();
    Ok(SubmittedResult {
        record,
        binding,
        outcome,
        submitted,
    })
}

/// `probity lens replay` (R3.6): a preserved-result artifact's payload sent
/// through the full verification path of [`submit_result`] (size bound,
/// strict reviewer schema, the recorded binding, the lineage's stage),
/// into the lineage and candidate it was preserved for only. `lineage`,
/// when given, must be that lineage. Nothing is written on a refusal.
pub fn replay_preserved<G: GitPort, S: RecordStore + ChainStore + IndexStore + ResultStore>(
    git: &G,
    store: &S,
    artifact: &NamedInput,
    lineage: Option<&LineageId>,
) -> Result<SubmittedResult, ReviewError> {
    if artifact.bytes.len() as u64 > MAX_ROLE_DOCUMENT_BYTES.saturating_mul(2) {
        return Err(ReviewError::InputTooLarge {
            name: artifact.name.clone(),
            limit: MAX_ROLE_DOCUMENT_BYTES.saturating_mul(2),
        });
    }
    let preserved = |source| ReviewError::Preserved {
        name: artifact.name.clone(),
        source: Box::new(source),
    };
    let (found, payload) = read_preserved(&artifact.bytes).map_err(preserved)?;
    let target = lineage.unwrap_or(&found.lineage_id);
    let record = store.get(target)?;
    check_candidate(
        &found,
        record.state().lineage_id(),
        &record.state().snapshot().target,
    )
    .map_err(preserved)?;
    submit_result(
        git,
        store,
        SubmitInput {
            lineage: Some(record.state().lineage_id().clone()),
            lens: found.lens,
            binding: found.binding.clone(),
            result: NamedInput {
                name: format!("the payload preserved in {}", artifact.name),
                bytes: payload,
            },
        },
    )
}

/// Before a model is asked for a named lineage (`review --lineage`):
/// refuses exactly as `lens submit` and `finalize` would when the live
/// candidate is not the one the lineage's stage expects (core's
/// `expected_live`), so no answer is paid for only to be refused. Writes
/// nothing; answers the lineage's record.
pub(super) fn check_live_candidate<G: GitPort, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<StateRecord, ReviewError> {
    Ok(discover_for_finalize(git, store, Some(lineage))?.1)
}

/// The lineage that froze (or is correcting into) the live candidate, as
/// finalize and `lens submit` discover it when no lineage is named.
pub fn live_lineage<G: GitPort, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
) -> Result<StateRecord, ReviewError> {
    Ok(discover_for_finalize(git, store, None)?.1)
}

/// Before an adapter runs an evidence check `argv` (which may take
/// minutes): refuses, as finalize would, when the lineage (named, or the
/// live candidate's) cannot take evidence now, and when it already took
/// final evidence that this check cannot repeat (`different_retry`, issue
/// 26 §7); `kept` answers the last check the lineage took, as the adapter
/// keeps it (`None` when there is none or it cannot be read). Only
/// meaningful when evidence is the call's only input.
pub fn check_evidence_lands<G: GitPort, S: RecordStore + ChainStore + IndexStore + ResultStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
    argv: &[String],
    kept: &dyn Fn(&LineageId) -> Option<KeptCheck>,
) -> Result<(), ReviewError> {
    let (_live, record) = discover_for_finalize(git, store, lineage)?;
    let state = record.state();
    // Finalize takes lens results first when they are due (core's rule):
    // the empty judgment with no lens selected, or the results `lens
    // submit` kept for every selected lens; evidence is then judged after.
    let submitted: Vec<Lens> = if state.frozen().selected_lenses.is_empty() {
        Vec::new()
    } else {
        store
            .submitted_results(state.lineage_id())?
            .into_iter()
            .map(|(l, _)| l)
            .collect()
    };
    if state.results_due(0, &submitted) {
        return Ok(());
    }
    // Whether this run could land at all (core's rule): a lineage that
    // took its final evidence takes only the same check again.
    let kept = kept(state.lineage_id());
    state
        .evidence_run_may_land(kept.as_ref(), argv)
        .map_err(Into::into)
}

/// The tree an evidence check for the lineage (named, or the live
/// candidate's) must run on: its final candidate tree, or, when a
/// validation lands in the same call (`validated`), the live candidate
/// that validation judges. Core still refuses a check whose tree is not
/// the final candidate tree once every input is applied.
pub fn evidence_tree<G: GitPort, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
    validated: bool,
) -> Result<EvidenceTarget, ReviewError> {
    let (live, record) = discover_for_finalize(git, store, lineage)?;
    Ok(EvidenceTarget {
        lineage: record.state().lineage_id().clone(),
        tree: if validated {
            live.candidate_tree
        } else {
            record.state().final_candidate_tree().clone()
        },
    })
}

/// What [`evidence_tree`] found: the lineage a check is evidence for (the
/// named one, or the live candidate's), and the tree it must run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceTarget {
    /// The lineage the check's evidence is for.
    pub lineage: LineageId,
    /// The tree the check runs on.
    pub tree: TreeId,
}

/// Refuses a binding that is not this lineage's binding for `lens`.
fn check_binding(state: &ReviewState, lens: Lens, given: &str) -> Result<(), ReviewError> {
    let lineage = state.lineage_id().clone();
    let prepared = state
        .lens_bindings()
        .into_iter()
        .find(|b| b.lens == lens)
        .ok_or_else(|| ReviewError::Submission {
            lineage: lineage.clone(),
            source: PreflightError::NotSelected { lens: lens.name() },
        })?;
    if probity_core::review::binding_proves(&prepared.binding, given) {
        Ok(())
    } else {
        Err(ReviewError::Submission {
            lineage: lineage.clone(),
            source: PreflightError::BindingMismatch {
                lineage: lineage.to_string(),
                lens: lens.name(),
                expected_token: prepared.token,
            },
        })
    }
}

fn binding_holds(state: &ReviewState, lens: Lens, given: Option<&str>) -> bool {
    state.lens_bindings().into_iter().any(|b| {
        b.lens == lens && given.is_none_or(|g| probity_core::review::binding_proves(&b.binding, g))
    })
}

/// Hunks and line counts for the genesis paths severe causal claims name.
fn causal_facts<G: GitPort>(
    git: &G,
    state: &ReviewState,
    results: &[ReviewerResult],
) -> Result<CausalFacts, ReviewError> {
    let mut facts = CausalFacts::default();
    let (base, cand) = (
        &state.snapshot().base_tree,
        &state.snapshot().candidate_tree,
    );
    for path in state.causal_paths_needed(results) {
        let hunks = git.hunks(
            TreeSpan {
                from: base,
                to: cand,
            },
            &path,
        )?;
        facts.hunks.insert(path.clone(), hunks);
        if let Some(n) = git.line_count(cand, &path)? {
            facts.candidate_lines.insert(path, n);
        }
    }
    Ok(facts)
}

/// Measures the fix from Git: the live candidate against the tree the
/// previous attempt (or the review) left; every changed line counts.
fn measure_fix<G: GitPort>(
    git: &G,
    state: &ReviewState,
    live: &LiveTarget,
) -> Result<FixMeasurement, ReviewError> {
    if live.base_tree != state.snapshot().base_tree {
        return Err(ReviewError::BaseChanged {
            lineage: state.lineage_id().clone(),
            frozen: state.snapshot().base_tree.clone(),
        });
    }
    let files = git.diff_files(TreeSpan {
        from: state.correction_from_tree(),
        to: &live.candidate_tree,
    })?;
    // The whole change the fix leaves, base to the live tree, and the base
    // policy's floors for it: core derives its tier, which may not exceed
    // the review's (D-R132).
    let base = &state.snapshot().base_tree;
    let whole = git.diff_files(TreeSpan {
        from: base,
        to: &live.candidate_tree,
    })?;
    let links: Vec<_> = git
        .symlinks(&[base, &live.candidate_tree])?
        .into_iter()
        .flatten()
        .collect();
    let floor = super::start::policy_floor(git, base, &whole, &links)?;
    let trees = [base, &live.candidate_tree];
    let configs = super::start::run_configs(git, &trees, &links)?;
    let attributes = super::start::attribute_files(git, &trees, &whole)?;
    // Core's charging rule: every changed line, a mode change one line.
    Ok(FixMeasurement::measured(
        files,
        live.candidate_tree.clone(),
        &whole,
        probity_core::review::TreeInputs {
            links: &links,
            configs: &configs,
            attributes: &attributes,
        },
        floor,
    ))
}

pub(super) fn commit<S: RecordStore>(
    store: &S,
    current: &StateRecord,
    next: ReviewState,
) -> Result<StateRecord, ReviewError> {
    let transition = Transition::check(current, next)?;
    store.replace(&transition)?;
    Ok(transition.into_next())
}

fn discover_for_finalize<G: GitPort, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
) -> Result<(LiveTarget, StateRecord), ReviewError> {
    let live = git.live_target()?;
    let record = match lineage {
        Some(l) => {
            let record = store.get(l)?;
            // A final lineage named explicitly answers retries whatever
            // the live candidate is (its chain must still hold).
            if record.state().stage().is_final() {
                supersession(store, &record)?;
                return Ok((live, record));
            }
            record
        }
        None => match resume(store, &live.target)? {
            Some(record) => record,
            // A correction in progress: the live candidate is the fix.
            None => open_correction_for(git, store, &live)?,
        },
    };
    // A successor whose chain does not hold takes no input (R9.3).
    supersession(store, &record)?;
    // Which live candidate the stage expects (core's rule).
    let expected = record.state().expected_live();
    // A review of a committed change (`start --commit`, `--range`), named
    // explicitly, judges trees no worktree holds: while reviewing or
    // validating it takes results and evidence when some recent commit is
    // exactly the change it expects (D-R27).
    let committed = |tree: &TreeId| -> Result<bool, ReviewError> {
        Ok(lineage.is_some()
            && git.committed_change(TreeSpan {
                from: &record.state().snapshot().base_tree,
                to: tree,
            })?)
    };
    if let Some((target, tree)) = expected
        && live.target != target
        && !committed(tree)?
    {
        let differing = git.differing_paths(TreeSpan {
            from: tree,
            to: &live.candidate_tree,
        })?;
        return Err(ReviewError::CandidateChanged {
            lineage: record.state().lineage_id().clone(),
            differing_paths: differing,
        });
    }
    Ok((live, record))
}

/// The lineages still in correction on this base.
pub(super) fn open_corrections<S: RecordStore + IndexStore>(
    store: &S,
    base: &TreeId,
) -> Result<Vec<StateRecord>, ReviewError> {
    let mut out = Vec::new();
    for lineage in store.lookup_open(base)? {
        let record = store.get(&lineage)?;
        if record.state().is_open_correction_on(base) {
            out.push(record);
        }
    }
    Ok(out)
}

/// The one correction the live candidate can be a fix of: still in
/// correction on this base, and every path the live candidate changed since
/// that lineage's current tree is one of its genesis paths.
fn open_correction_for<G: GitPort, S: RecordStore + IndexStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
) -> Result<StateRecord, ReviewError> {
    let mut matching = Vec::new();
    for record in open_corrections(store, &live.base_tree)? {
        let changed = git.differing_paths(TreeSpan {
            from: record.state().correction_from_tree(),
            to: &live.candidate_tree,
        })?;
        if record.state().takes_fix_of(&changed) {
            matching.push(record);
        }
    }
    match matching.len() {
        0 => Err(ReviewError::NoReview),
        1 => Ok(matching.remove(0)),
        _ => Err(ReviewError::AmbiguousCorrection {
            lineages: matching
                .into_iter()
                .map(|r| r.state().lineage_id().clone())
                .collect(),
        }),
    }
}

/// What `probity dispute` records (R12.6).
#[derive(Debug, Clone)]
pub struct DisputeInput {
    /// The lineage holding the finding; always named, never discovered.
    pub lineage: LineageId,
    /// The finding admitted to correction that is disputed (`R3-001`).
    pub finding: probity_core::review::FindingId,
    /// `DISPUTE_DOMAIN` hash of the evidence (the adapter hashes it while
    /// streaming; empty evidence is refused before).
    pub evidence_hash: Sha256Digest,
    /// Why the finding is a false positive, in words (kept in the lineage).
    pub reason: probity_core::review::NonBlank,
    /// Who decided the dispute (kept in the lineage).
    pub actor: probity_core::review::NonBlank,
    /// The maintainer's authorization the dispute is bound to (kept in the
    /// lineage).
    pub authorization: probity_core::review::NonBlank,
}

/// `probity dispute` (R12.6): a maintainer disputes a finding admitted to
/// correction as a false positive, bound to evidence and an authorization,
/// before any correction attempt. The dispute is recorded in the lineage
/// (core decides where the review goes); a superseded lineage takes none.
pub fn dispute<S: RecordStore + ChainStore, C: Clock>(
    store: &S,
    clock: &C,
    input: DisputeInput,
) -> Result<StateRecord, ReviewError> {
    let record = store.get(&input.lineage)?;
    if let Some(leaf) = supersession(store, &record)? {
        return Err(StoreError::AlreadySuperseded {
            lineage: input.lineage.clone(),
            successor: leaf,
        }
        .into());
    }
    let next = record
        .state()
        .accept_dispute(probity_core::review::Dispute {
            finding_id: input.finding,
            evidence_hash: input.evidence_hash,
            reason: input.reason,
            actor: input.actor,
            authorization: input.authorization,
            disputed_at: clock.now(),
        })?;
    if next == *record.state() {
        return Ok(record);
    }
    commit(store, &record, next)
}
