//! The suite's building blocks: results as `Result<_, String>`, and the
//! records, transitions and successors its cases start from.

use super::*;

pub(super) fn ok<T, E: fmt::Display>(what: &str, r: Result<T, E>) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

pub(super) fn expect_err<T: fmt::Debug>(
    what: &str,
    r: Result<T, StoreError>,
    matches: impl Fn(&StoreError) -> bool,
) -> Outcome {
    match r {
        Err(e) if matches(&e) => Ok(()),
        Err(e) => Err(format!("{what}: refused with the wrong error: {e}")),
        Ok(v) => Err(format!("{what}: accepted ({v:?}), expected a refusal")),
    }
}

pub(super) fn record(state: &ReviewState) -> Result<StateRecord, String> {
    ok("record", state.record())
}

pub(super) fn step(prev: &StateRecord, next: &StateRecord) -> Result<Transition, String> {
    ok(
        "a legal transition",
        Transition::check(prev, next.state().clone()),
    )
}

pub(super) fn started_on(obs: &CandidateObservation) -> Result<StateRecord, String> {
    record(&ok(
        "fixture start",
        fixtures::start(obs, Lens::Reliability),
    )?)
}

pub(super) fn started() -> Result<StateRecord, String> {
    started_on(&fixtures::parser_observation())
}

/// Another candidate on the parser scenario's base (a distinct target).
pub(super) fn other_observation(tree: &str) -> Result<CandidateObservation, String> {
    let mut obs = fixtures::parser_observation();
    obs.changed.pop();
    obs.intended_untracked.clear();
    obs.candidate_tree = ok("tree", TreeId::parse(tree))?;
    Ok(obs)
}

pub(super) fn reviewer(json: &str) -> Result<ReviewerResult, String> {
    ok("reviewer result", ReviewerResult::parse(json.as_bytes()))
}

pub(super) fn validating(r: &StateRecord) -> Result<StateRecord, String> {
    record(&ok(
        "accept results",
        r.state()
            .accept_results(vec![fixtures::clean_result()], &Default::default()),
    )?)
}

pub(super) fn approved(r: &StateRecord) -> Result<StateRecord, String> {
    record(&ok(
        "accept evidence",
        r.state().accept_evidence(b"evidence"),
    )?)
}

pub(super) fn non_blank(s: &str) -> Result<NonBlank, String> {
    ok("non-blank", NonBlank::parse(s))
}

pub(super) fn invalidated(r: &StateRecord) -> Result<StateRecord, String> {
    record(&ok(
        "invalidate",
        r.state().invalidate(non_blank("wrong branch")?),
    )?)
}

/// `r` as a first record, by core's check.
pub(super) fn first(r: &StateRecord) -> Result<FirstRecord, String> {
    ok("a first record", FirstRecord::check(r.clone()))
}

/// A recovered successor of `pred` (invalidated), made a [`Successor`] by
/// core's check against `pred`.
pub(super) fn successor_on(
    pred: &StateRecord,
    reason: &str,
    obs: &CandidateObservation,
) -> Result<Successor, String> {
    let input = ok("start input", fixtures::start_input(obs, Lens::Reliability))?;
    let state = ok(
        "successor",
        successor(
            pred,
            RecoverRequest {
                expected_revision: pred.revision(),
                disposition: Disposition::Invalidated,
                reason: non_blank(reason)?,
                actor: non_blank("maintainer")?,
                authorization: None,
            },
            ScopeEvidence {
                differing_paths: &[],
                owned_by_chain: false,
            },
            input,
        ),
    )?;
    ok("a successor", Successor::check(pred, record(&state)?))
}
