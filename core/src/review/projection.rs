//! What a stored record projects into the store's indexes and receipt
//! (R7.6, R12.2), and when a claim on a target may be taken over: rules a
//! store applies, decided here so every store (the file store, an
//! in-memory one) applies the same.

use crate::digest::Sha256Digest;
use crate::review::ids::{LineageId, TreeId};
use crate::review::receipt::Receipt;
use crate::review::state::{ReviewState, Stage};

/// One thing a record projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Projection {
    /// The receipt file (terminal stages only): derived from state, so a
    /// file never outranks it.
    Receipt(Box<Receipt>),
    /// The target index entry of the lineage's final candidate, when a
    /// passing correction moved it off the frozen target: claimed
    /// exclusively ([`claim_is_stale`] says when a claim may be taken
    /// over).
    FinalTarget(Sha256Digest),
    /// Base tree → latest approved lineage.
    Base(TreeId),
    /// Final candidate tree → latest approved lineage: after the slice is
    /// committed its final candidate is the live base, and the next slice
    /// is classified against it.
    Final(TreeId),
    /// An open correction on its base: a fix is found without `--lineage`,
    /// and a new start cannot open a parallel review of the same paths.
    Open(TreeId),
    /// An escalation on its base: a new start of its paths is refused
    /// (a fresh budget without authorization).
    Escalated(TreeId),
}

/// What `state` projects. A superseded lineage is history: it never claims
/// a target (a later generation may own it) nor points the base or final
/// index at itself; its receipt is still a projection of its state.
pub fn projections(state: &ReviewState, superseded: bool) -> Vec<Projection> {
    let mut out = Vec::new();
    if let Some(receipt) = Receipt::derive(state) {
        out.push(Projection::Receipt(Box::new(receipt)));
    }
    if !superseded && state.final_target() != state.snapshot.target {
        out.push(Projection::FinalTarget(state.final_target()));
    }
    let base = &state.snapshot.base_tree;
    match &state.stage {
        Stage::Approved { .. } => {
            if !superseded {
                out.push(Projection::Base(base.clone()));
                out.push(Projection::Final(state.final_candidate_tree().clone()));
            }
        }
        // An open correction, awaiting its forecast or its fix.
        Stage::CorrectionRequired { .. } | Stage::Correcting { .. } => {
            out.push(Projection::Open(base.clone()))
        }
        Stage::Escalated { .. } => out.push(Projection::Escalated(base.clone())),
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::Validating { .. }
        | Stage::Invalidated { .. } => {}
    }
    out
}

/// Whether a claim on `target` by `owner` may be taken over: only when the
/// owner's committed state names neither as its frozen nor its final
/// target (its claim was made just before a state write that never
/// landed). A real owner keeps the target (`target_owned`).
pub fn claim_is_stale(target: &Sha256Digest, owner: &ReviewState) -> bool {
    owner.snapshot.target != *target && owner.final_target() != *target
}

/// Whether a lineage is indexed by its delta identity (the rebase proof's
/// lookup, R8.6): only an approved lineage may be, and a superseded one is
/// history, never (re)indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaIndexing {
    /// Write the entry keys, then the exact key.
    Index,
    /// Write nothing: the lineage is superseded.
    Skip,
}

/// A delta index asked for a lineage that is not approved: the store's
/// caller is wrong, and nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("only an approved lineage is indexed by its delta; {lineage} is `{stage}`")]
pub struct NotIndexable {
    /// The lineage asked for.
    pub lineage: LineageId,
    /// Its stage's name.
    pub stage: &'static str,
}

/// What a store does when asked to index `state` by its delta identity;
/// `superseded`: the lineage has a successor.
pub fn delta_indexing(
    state: &ReviewState,
    superseded: bool,
) -> Result<DeltaIndexing, NotIndexable> {
    if !state.stage.is_approved() {
        return Err(NotIndexable {
            lineage: state.lineage_id.clone(),
            stage: state.stage.name(),
        });
    }
    Ok(if superseded {
        DeltaIndexing::Skip
    } else {
        DeltaIndexing::Index
    })
}

/// An index a lookup read, with the key it was read by. An index is a
/// lookup, not evidence: what it points at must be a state that projects
/// that entry ([`index_holds`]), or discovery refuses it
/// (`index_mismatch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexLookup<'a> {
    /// The base index, read by the live base tree.
    Base(&'a TreeId),
    /// The final-candidate index, read by the live base tree.
    Final(&'a TreeId),
    /// The delta index or one of its entry keys: approved lineages only
    /// (the delta itself is then compared with the one derived from the
    /// lineage's trees).
    Delta,
}

/// Whether `state` is what an entry of `lookup` may point at.
pub fn index_holds(lookup: IndexLookup<'_>, state: &ReviewState) -> bool {
    match lookup {
        IndexLookup::Base(base) => state.snapshot.base_tree == *base,
        IndexLookup::Final(base) => state.final_candidate_tree() == base,
        IndexLookup::Delta => matches!(state.stage, Stage::Approved { .. }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::{self, fix, validation};
    use crate::review::lens::Lens;

    #[test]
    fn each_stage_projects_what_discovery_reads() {
        let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        assert_eq!(projections(&r0, false), Vec::new());
        let approved = r0
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap()
            .accept_evidence(b"ok")
            .unwrap();
        let p = projections(&approved, false);
        assert!(matches!(p[0], Projection::Receipt(_)));
        assert_eq!(
            p[1..],
            [
                Projection::Base(approved.snapshot.base_tree.clone()),
                Projection::Final(approved.snapshot.candidate_tree.clone())
            ]
        );
        // Superseded: the receipt only.
        let p = projections(&approved, true);
        assert_eq!(p.len(), 1);
        // In correction: the open entry; once a correction passed, the
        // final target is claimed too.
        let c0 = fixtures::budget_scenario().unwrap();
        assert_eq!(
            projections(&c0, false),
            [Projection::Open(c0.snapshot.base_tree.clone())]
        );
        let passed = c0
            .accept_forecast(crate::review::state::Forecast::new(5).unwrap())
            .unwrap()
            .accept_validation(fix(7, 3), validation(true))
            .unwrap();
        assert_eq!(
            projections(&passed, false),
            [Projection::FinalTarget(passed.final_target())]
        );
        assert!(projections(&passed, true).is_empty());
    }

    #[test]
    fn a_claim_is_taken_over_only_from_an_owner_that_never_named_it() {
        let c0 = fixtures::budget_scenario().unwrap();
        let passed = c0
            .accept_forecast(crate::review::state::Forecast::new(5).unwrap())
            .unwrap()
            .accept_validation(fix(7, 3), validation(true))
            .unwrap();
        let target = passed.final_target();
        assert!(!claim_is_stale(&target, &passed));
        assert!(!claim_is_stale(&c0.snapshot.target, &c0));
        assert!(claim_is_stale(&target, &c0));
    }

    #[test]
    fn only_an_approved_lineage_that_is_not_superseded_is_indexed_by_its_delta() {
        let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        let refused = delta_indexing(&r0, false).unwrap_err();
        assert_eq!(refused.stage, "reviewing");
        assert_eq!(
            refused.to_string(),
            format!(
                "only an approved lineage is indexed by its delta; {} is `reviewing`",
                r0.lineage_id
            )
        );
        let c0 = fixtures::budget_scenario().unwrap();
        assert!(
            delta_indexing(&c0, true).is_err(),
            "superseded or not, not approved"
        );
        let approved = r0
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap()
            .accept_evidence(b"ok")
            .unwrap();
        assert_eq!(delta_indexing(&approved, false), Ok(DeltaIndexing::Index));
        assert_eq!(delta_indexing(&approved, true), Ok(DeltaIndexing::Skip));
    }

    #[test]
    fn an_index_entry_holds_only_for_the_state_that_projects_it() {
        let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
        let base = r0.snapshot.base_tree.clone();
        let candidate = r0.snapshot.candidate_tree.clone();
        assert!(index_holds(IndexLookup::Base(&base), &r0));
        assert!(!index_holds(IndexLookup::Base(&candidate), &r0));
        assert!(index_holds(IndexLookup::Final(&candidate), &r0));
        assert!(!index_holds(IndexLookup::Final(&base), &r0));
        assert!(!index_holds(IndexLookup::Delta, &r0), "not approved");
        let approved = r0
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap()
            .accept_evidence(b"ok")
            .unwrap();
        assert!(index_holds(IndexLookup::Delta, &approved));
    }
}
