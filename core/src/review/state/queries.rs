//! What the drivers ask of a state about the live candidate: the tree a
//! correction is measured from, the live candidate a stage expects, the
//! open-correction, start-overlap and resume rules, and the fix scope.

use super::*;
use crate::review::ErrorClass;

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

/// Why `start` does not resume the lineage that froze its candidate
/// ([`StateRecord::resume_for`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeRefused {
    /// It corrected the candidate into another tree.
    #[error(
        "lineage {lineage} already judged this candidate and corrected it into tree {final_tree}; it is not reviewed again"
    )]
    CorrectedElsewhere {
        /// The lineage that froze the candidate.
        lineage: LineageId,
        /// The tree it corrected the candidate into.
        final_tree: TreeId,
    },
    /// It was invalidated (R9.1): its audited successor comes from
    /// `recover`.
    #[error(
        "lineage {lineage} froze this candidate and was invalidated; a new generation is an audited successor"
    )]
    Invalidated {
        /// The invalidated lineage.
        lineage: LineageId,
        /// Its current revision (what a recovery must name).
        revision: Sha256Digest,
    },
}

impl ResumeRefused {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            ResumeRefused::CorrectedElsewhere { .. } => {
                (ErrorClass::Conflict, "candidate_superseded")
            }
            ResumeRefused::Invalidated { .. } => (ErrorClass::Conflict, "lineage_invalidated"),
        }
    }
}

impl StateRecord {
    /// Whether `start`, finding this lineage by the live candidate's
    /// `target`, resumes it ([`ReviewState::resumable_for`]); the refusal
    /// names what the next step needs.
    pub fn resume_for(&self, target: &Sha256Digest) -> Result<(), ResumeRefused> {
        let s = &self.state;
        match s.resumable_for(target) {
            Resumable::Yes => Ok(()),
            Resumable::Invalidated => Err(ResumeRefused::Invalidated {
                lineage: s.lineage_id.clone(),
                revision: self.revision,
            }),
            Resumable::CorrectedElsewhere => Err(ResumeRefused::CorrectedElsewhere {
                lineage: s.lineage_id.clone(),
                final_tree: s.final_candidate_tree().clone(),
            }),
        }
    }
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
        if self.stage.is_invalidated() {
            Resumable::Invalidated
        } else if self.final_target() == *target {
            Resumable::Yes
        } else {
            Resumable::CorrectedElsewhere
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

    /// The selected lenses a model run still has to run (issue 25 §1): while
    /// the lineage awaits its lens results, every selected lens without a
    /// result among `kept` (what `lens submit` kept), in selection order;
    /// none otherwise.
    pub fn lenses_to_run(&self, kept: &[Lens]) -> Vec<Lens> {
        if self.next_action() != NextInput::RunLenses {
            return Vec::new();
        }
        self.frozen
            .selected_lenses
            .iter()
            .copied()
            .filter(|l| !kept.contains(l))
            .collect()
    }

    /// Whether the lineage waits for the refuter's batch now.
    pub fn awaits_refuter(&self) -> bool {
        self.next_action() == NextInput::ProvideRefuter
    }

    /// Whether finalize should be called with no input now: the lineage
    /// awaits its lens results and `kept` holds one for every selected lens
    /// ([`Self::results_due`] with nothing given). `false` while some are
    /// missing.
    pub fn kept_results_complete(&self, kept: &[Lens]) -> bool {
        self.next_action() == NextInput::RunLenses && self.results_due(0, kept)
    }

    /// Whether the review rests on a maintainer's act (issue 20 §3): it
    /// follows an authorized recovery of an escalation
    /// (`escalation_authorized`), or its judgment records a dispute of a
    /// finding admitted to correction. A policy's `authorize` roles must
    /// then sign its approval too; the free-text authorization the act
    /// recorded never counts.
    pub fn rests_on_authorized_act(&self) -> bool {
        self.predecessor
            .as_ref()
            .is_some_and(|link| link.disposition == Disposition::EscalationAuthorized)
            || self
                .stage
                .judgment()
                .is_some_and(|j| !j.disputes.is_empty())
    }

    /// Whether the lineage no longer awaits lens results (a model run
    /// answers it as it stands).
    pub fn past_lens_results(&self) -> bool {
        self.next_action() != NextInput::RunLenses
    }

    /// Whether a live candidate that changed `changed` since this lineage's
    /// correction tree can be its fix: every path is a genesis path (R6.4).
    pub fn takes_fix_of(&self, changed: &[RepoPath]) -> bool {
        changed
            .iter()
            .all(|p| self.snapshot.paths.binary_search(p).is_ok())
    }
}
