//! `finalize`: lens results, the refuter, correction and evidence turned
//! into committed authority.

use probity_core::review::causality::CausalFacts;
use probity_core::review::correction::FixMeasurement;
use probity_core::review::finding::{RefuterResult, ReviewerResult, RoleDocError, ValidatorResult};
use probity_core::review::ids::{LineageId, TreeId};
use probity_core::review::snapshot::LiveTarget;
use probity_core::review::state::{ReviewState, Stage, StateRecord, TransitionError};

use super::*;

/// Inputs to finalize. Each present input is applied in this order, and each
/// valid intermediate state is committed before the next.
#[derive(Debug, Clone, Default)]
pub struct FinalizeInput {
    /// The lineage; discovered from the live candidate when absent.
    pub lineage: Option<LineageId>,
    /// Lens results in selected order.
    pub results: Vec<NamedInput>,
    /// The single refuter batch.
    pub refuter: Option<NamedInput>,
    /// The forecast of the next correction attempt, before editing.
    pub correction_lines: Option<u64>,
    /// The targeted validator's result, after editing.
    pub validation: Option<NamedInput>,
    /// Final independent evidence.
    pub evidence: Option<NamedInput>,
}

/// What finalize returned.
#[derive(Debug, Clone)]
pub struct Finalized {
    pub record: StateRecord,
    /// Where the receipt lives, in a terminal state only.
    pub receipt_location: Option<String>,
}

fn malformed(input: &NamedInput) -> impl FnOnce(RoleDocError) -> ReviewError + '_ {
    move |source| ReviewError::MalformedInput {
        name: input.name.clone(),
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
    git.check_keep_trees().map_err(ReviewError::Repository)?;
    let results = input
        .results
        .iter()
        .map(|r| ReviewerResult::parse(&r.bytes).map_err(malformed(r)))
        .collect::<Result<Vec<_>, _>>()?;
    let refuter = input
        .refuter
        .as_ref()
        .map(|r| RefuterResult::parse(&r.bytes).map_err(malformed(r)))
        .transpose()?;
    let validation = input
        .validation
        .as_ref()
        .map(|v| ValidatorResult::parse(&v.bytes).map_err(malformed(v)))
        .transpose()?;
    if input.correction_lines == Some(0) {
        return Err(TransitionError::ZeroForecast.into());
    }
    if let Some(ev) = &input.evidence
        && ev.bytes.is_empty()
    {
        return Err(TransitionError::EmptyEvidence.into());
    }
    let (live, record) = discover_for_finalize(git, store, input.lineage.as_ref())?;
    // Derive every transition in memory first: an input that is not legal
    // is refused before anything is written, whatever came before it.
    let mut states = Vec::new();
    let mut state = record.state.clone();
    let zero_lens = state.frozen.selected_lenses.is_empty();
    if !input.results.is_empty() || (zero_lens && state.stage.judgment().is_none()) {
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
    let mut correction_lines = input.correction_lines;
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
        let fix = measure_fix(git, &state, &live)?;
        state = state.accept_validation(fix, validation)?;
        states.push(state.clone());
    }
    if let Some(ev) = &input.evidence {
        state = state.accept_evidence(&ev.bytes)?;
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
        .state
        .stage
        .is_terminal()
        .then(|| store.receipt_location(&record.state.lineage_id));
    Ok(Finalized {
        record,
        receipt_location,
    })
}

/// Hunks and line counts for the genesis paths severe causal claims name.
fn causal_facts<G: GitPort>(
    git: &G,
    state: &ReviewState,
    results: &[ReviewerResult],
) -> Result<CausalFacts, ReviewError> {
    let mut facts = CausalFacts::default();
    let (base, cand) = (&state.snapshot.base_tree, &state.snapshot.candidate_tree);
    for path in state.causal_paths_needed(results) {
        let hunks = git
            .hunks(base, cand, &path)
            .map_err(ReviewError::Repository)?;
        facts.hunks.insert(path.clone(), hunks);
        if let Some(n) = git
            .line_count(cand, &path)
            .map_err(ReviewError::Repository)?
        {
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
    if live.base_tree != state.snapshot.base_tree {
        return Err(ReviewError::BaseChanged {
            lineage: state.lineage_id.clone(),
            frozen: state.snapshot.base_tree.clone(),
        });
    }
    let from = state
        .stage
        .correction()
        .map(|c| c.current_tree(&state.snapshot.candidate_tree).clone())
        .unwrap_or_else(|| state.snapshot.candidate_tree.clone());
    let files = git
        .diff_files(&from, &live.candidate_tree)
        .map_err(ReviewError::Repository)?;
    // A fix is charged every line it changes, each file diffed as text:
    // no golden rule, binary marker or attribute can make an edit free.
    Ok(FixMeasurement {
        actual_lines: files
            .iter()
            // A mode change (e.g. `chmod +x`) is an effect too: one line.
            .map(|f| f.text_lines.max(u64::from(f.old_mode != f.new_mode)))
            .fold(0, u64::saturating_add),
        paths: files.into_iter().map(|f| f.path).collect(),
        to_tree: live.candidate_tree.clone(),
    })
}

pub(super) fn commit<S: ReviewStore>(
    store: &S,
    current: &StateRecord,
    next: ReviewState,
) -> Result<StateRecord, ReviewError> {
    let next = next.record()?;
    store.replace(&current.revision, &next)?;
    Ok(next)
}

fn discover_for_finalize<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
) -> Result<(LiveTarget, StateRecord), ReviewError> {
    let live = git.live_target().map_err(ReviewError::Repository)?;
    let record = match lineage {
        Some(l) => {
            let record = store
                .load(l)?
                .ok_or_else(|| StoreError::NotFound(l.clone()))?;
            // A final lineage named explicitly answers retries whatever
            // the live candidate is (its chain must still hold).
            if record.state.stage.is_final() {
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
    // Which live candidate the stage expects: the frozen one while
    // reviewing, the corrected one while validating or once approved
    // through discovery; during correction the fix itself is measured.
    let expected = match &record.state.stage {
        Stage::Reviewing { .. } => Some((
            record.state.snapshot.target,
            &record.state.snapshot.candidate_tree,
        )),
        Stage::Validating { .. } | Stage::Approved { .. } => Some((
            record.state.final_target(),
            record.state.final_candidate_tree(),
        )),
        Stage::CorrectionRequired { .. } | Stage::Escalated { .. } | Stage::Invalidated { .. } => {
            None
        }
    };
    if let Some((target, tree)) = expected
        && live.target != target
    {
        let differing = git
            .differing_paths(tree, &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        return Err(ReviewError::CandidateChanged {
            lineage: record.state.lineage_id.clone(),
            differing_paths: differing,
        });
    }
    Ok((live, record))
}

/// The lineages still in correction on this base.
pub(super) fn open_corrections<S: ReviewStore>(
    store: &S,
    base: &TreeId,
) -> Result<Vec<StateRecord>, ReviewError> {
    let mut out = Vec::new();
    for lineage in store.lookup_open(base)? {
        let record = store.load(&lineage)?.ok_or(StoreError::NotFound(lineage))?;
        if record.state.snapshot.base_tree == *base
            && matches!(record.state.stage, Stage::CorrectionRequired { .. })
        {
            out.push(record);
        }
    }
    Ok(out)
}

/// The one correction the live candidate can be a fix of: still in
/// correction on this base, and every path the live candidate changed since
/// that lineage's current tree is one of its genesis paths.
fn open_correction_for<G: GitPort, S: ReviewStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
) -> Result<StateRecord, ReviewError> {
    let mut matching = Vec::new();
    for record in open_corrections(store, &live.base_tree)? {
        let state = &record.state;
        let current = state
            .stage
            .correction()
            .map(|c| c.current_tree(&state.snapshot.candidate_tree).clone());
        let current = current.unwrap_or_else(|| state.snapshot.candidate_tree.clone());
        let changed = git
            .differing_paths(&current, &live.candidate_tree)
            .map_err(ReviewError::Repository)?;
        if changed
            .iter()
            .all(|p| state.snapshot.paths.binary_search(p).is_ok())
        {
            matching.push(record);
        }
    }
    match matching.len() {
        0 => Err(ReviewError::NoReview),
        1 => Ok(matching.remove(0)),
        _ => Err(ReviewError::AmbiguousCorrection {
            lineages: matching.into_iter().map(|r| r.state.lineage_id).collect(),
        }),
    }
}
