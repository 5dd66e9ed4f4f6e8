//! What the drivers ask of a state about the live candidate: the tree a
//! correction is measured from, the live candidate a stage expects, the
//! open-correction, start-overlap and resume rules, and the fix scope.

use super::*;

/// What [`ReviewState::resumable_for`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resumable {
    /// The lineage is the review of the candidate: `start` resumes it.
    Yes,
    /// It was invalidated: its audited successor comes from `recover`.
    Invalidated,
    /// It corrected the candidate into another tree.
    CorrectedElsewhere,
}

impl ReviewState {
    /// The tree a correction edit is measured from: the last attempt's
    /// tree, else the frozen candidate.
    pub fn correction_from_tree(&self) -> &TreeId {
        match self.stage.correction() {
            Some(c) => c.current_tree(&self.snapshot.candidate_tree),
            None => &self.snapshot.candidate_tree,
        }
    }

    /// The live candidate this stage takes input for (the target and its
    /// candidate tree): the frozen one while reviewing, the corrected one
    /// while validating or once approved; `None` during a correction (the
    /// fix itself is measured) and in the other final stages.
    pub fn expected_live(&self) -> Option<(Sha256Digest, &TreeId)> {
        match &self.stage {
            Stage::Reviewing | Stage::AwaitingRefuter { .. } => {
                Some((self.snapshot.target, &self.snapshot.candidate_tree))
            }
            Stage::Validating { .. } | Stage::Approved { .. } => {
                Some((self.final_target(), self.final_candidate_tree()))
            }
            Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Escalated { .. }
            | Stage::Invalidated { .. } => None,
        }
    }

    /// Whether this lineage is in correction on `base` (an open correction
    /// a new start on the same paths must not side-step).
    pub fn is_open_correction_on(&self, base: &TreeId) -> bool {
        self.snapshot.base_tree == *base
            && matches!(
                self.stage,
                Stage::CorrectionRequired { .. } | Stage::Correcting { .. }
            )
    }

    /// The start-overlap rule: a new candidate on this lineage's base that
    /// touches one of its paths while this lineage is in correction would
    /// open a fresh budget for the same work (`correction_open`).
    pub fn correction_blocks_start(&self, candidate: &FrozenCandidate) -> bool {
        self.is_open_correction_on(&candidate.base_tree)
            && candidate
                .paths
                .iter()
                .any(|p| self.snapshot.paths.binary_search(p).is_ok())
    }

    /// Whether `start` may answer this lineage, found by the live
    /// candidate's `target`, as the review of it (its chain already holds):
    /// not when it was invalidated, nor when it corrected that candidate
    /// into another one.
    pub fn resumable_for(&self, target: &Sha256Digest) -> Resumable {
        match &self.stage {
            Stage::Invalidated { .. } => Resumable::Invalidated,
            Stage::Reviewing
            | Stage::AwaitingRefuter { .. }
            | Stage::CorrectionRequired { .. }
            | Stage::Correcting { .. }
            | Stage::Validating { .. }
            | Stage::Approved { .. }
            | Stage::Escalated { .. } => {
                if self.final_target() == *target {
                    Resumable::Yes
                } else {
                    Resumable::CorrectedElsewhere
                }
            }
        }
    }

    /// Whether this lineage's approval covers `target` (a commit's (parent
    /// tree, tree)) exactly: approved, and its final target is `target`.
    /// It delivers the target when it is also not superseded, which the
    /// caller reads from the store only once this holds.
    pub fn delivers_target(&self, target: &Sha256Digest) -> bool {
        matches!(self.stage, Stage::Approved { .. }) && self.final_target() == *target
    }

    /// Whether this lineage's change may be carried onto `live_base` by the
    /// rebase proof: approved, and reviewed on another base (on its own
    /// base it is current or differs plainly).
    pub fn may_carry_onto(&self, live_base: &TreeId) -> bool {
        matches!(self.stage, Stage::Approved { .. }) && self.snapshot.base_tree != *live_base
    }

    /// Whether finalize takes lens results now (R4, R5): some were
    /// `given`; or the lineage awaits its lens results and every selected
    /// lens has one among `submitted` (what `lens submit` kept); or no lens
    /// is selected and no judgment is recorded yet (the empty set of
    /// results is the input).
    pub fn results_due(&self, given: usize, submitted: &[Lens]) -> bool {
        let selected = &self.frozen.selected_lenses;
        let complete = matches!(self.stage, Stage::Reviewing)
            && selected.iter().all(|l| submitted.contains(l));
        given > 0 || complete || (selected.is_empty() && self.stage.judgment().is_none())
    }

    /// Whether a live candidate that changed `changed` since this lineage's
    /// correction tree can be its fix: every path is a genesis path (R6.4).
    pub fn takes_fix_of(&self, changed: &[RepoPath]) -> bool {
        changed
            .iter()
            .all(|p| self.snapshot.paths.binary_search(p).is_ok())
    }
}
