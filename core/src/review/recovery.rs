//! Recovery (R9.2, R9.3): a new generation is an audited successor of a
//! final lineage, never a rewrite of it. The predecessor's record stays as it
//! was; the successor names it, its exact revision, the disposition, the
//! reason, the actor and (for an escalation) the authorization. Discovery
//! trusts only the unique, valid, non-superseded leaf of such a chain.

use crate::digest::Sha256Digest;
use crate::review::ErrorClass;
use crate::review::ids::{LineageId, NonBlank, RepoPath};
use crate::review::state::{ReviewState, Stage, StartInput, StateError, StateRecord};

pub(crate) use crate::review::state::{Disposition, Predecessor};

impl Predecessor {
    /// Whether this link records exactly `request` on `predecessor`: a
    /// recovery asked again with the same request is a retry that answers
    /// the stored successor; any other request would fork the chain.
    pub fn records(&self, predecessor: &LineageId, request: &RecoverRequest) -> bool {
        self.lineage_id == *predecessor
            && self.revision == request.expected_revision
            && self.disposition == request.disposition
            && self.reason == request.reason
            && self.actor == request.actor
            && self.authorization == request.authorization
    }
}

/// What `probity recover` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoverRequest {
    /// The predecessor's record revision the caller inspected
    /// (`--expected-predecessor-revision`): the recovery applies only if the
    /// predecessor is still at it.
    pub expected_revision: Sha256Digest,
    /// Why a successor is made; must match the predecessor's state
    /// (approved: `scope_changed`, invalidated: `invalidated`, escalated:
    /// `escalation_authorized`).
    pub disposition: Disposition,
    /// Why, in a person's words (`--reason`), recorded in the link.
    pub reason: NonBlank,
    /// Who decides (`--actor`), recorded in the link.
    pub actor: NonBlank,
    /// The maintainer decision (`--authorization`): required for an
    /// escalated predecessor, refused for any other.
    pub authorization: Option<NonBlank>,
}

/// Why a successor cannot be created. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoverError {
    /// The predecessor's record moved since the caller inspected it.
    #[error(
        "lineage {lineage} is at revision {found}, not the expected {expected}: inspect it again (`probity status --lineage {lineage}`)"
    )]
    RevisionMismatch {
        /// The predecessor lineage.
        lineage: LineageId,
        /// The revision the request expected.
        expected: Sha256Digest,
        /// The revision its record is at.
        found: Sha256Digest,
    },
    /// The predecessor's stage does not allow the requested disposition
    /// (or is not final at all).
    #[error(
        "a `{state}` lineage cannot be recovered with disposition `{disposition}`: approved → scope_changed, invalidated → invalidated, escalated → escalation_authorized"
    )]
    NotEligible {
        /// The predecessor's stage name, e.g. `validating`.
        state: &'static str,
        /// The disposition requested.
        disposition: &'static str,
    },
    /// A `scope_changed` recovery of an approval whose live candidate
    /// differs from its final candidate on no path it reviewed (and no
    /// lineage of its chain owns the live candidate).
    #[error(
        "the live candidate does not change any path {lineage} reviewed; unrelated new work needs its own review (`probity start`), not a successor"
    )]
    ScopeUnchanged {
        /// The approved predecessor.
        lineage: LineageId,
    },
    /// An `escalation_authorized` recovery without `--authorization`.
    #[error("an escalated predecessor needs --authorization naming the maintainer decision")]
    AuthorizationRequired,
    /// `--authorization` given for a `scope_changed` or `invalidated`
    /// recovery.
    #[error("--authorization applies only to an escalated predecessor")]
    AuthorizationNotApplicable,
    /// The successor could not be built as a valid state: its generation
    /// overflows, its lineage id cannot be derived, or it fails
    /// validation.
    #[error(transparent)]
    State(#[from] StateError),
}

impl RecoverError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            RecoverError::RevisionMismatch { .. } => (ErrorClass::Conflict, "revision_mismatch"),
            RecoverError::NotEligible { .. } => (ErrorClass::RejectedInput, "not_eligible"),
            RecoverError::ScopeUnchanged { .. } => (ErrorClass::RejectedInput, "scope_unchanged"),
            RecoverError::AuthorizationRequired | RecoverError::AuthorizationNotApplicable => {
                (ErrorClass::Usage, "authorization")
            }
            RecoverError::State(_) => (ErrorClass::Integrity, "invalid_state"),
        }
    }
}

/// What shows that an approved predecessor's scope really changed: the
/// paths in which the live candidate differs from its final candidate, and
/// whether a lineage of its own chain already froze the live candidate (a
/// candidate an ancestor owned, reviewed again from the leaf).
#[derive(Debug, Clone, Copy)]
pub struct ScopeEvidence<'a> {
    /// The paths in which the live candidate differs from the
    /// predecessor's final candidate.
    pub differing_paths: &'a [RepoPath],
    /// Whether a lineage of the predecessor's own chain already froze the
    /// live candidate.
    pub owned_by_chain: bool,
}

/// The exact `probity recover` command that continues from a final
/// lineage, with its id, its revision and the disposition its state allows
/// (approved: `scope_changed`, invalidated: `invalidated`, escalated:
/// `escalation_authorized` with `--authorization`); `None` for a lineage
/// that is not final. `R`, `A` and `X` stand for the reason, the actor and
/// the authorization: values only a person gives ([`PERSON_VALUES`]).
pub(crate) fn recover_command(record: &StateRecord) -> Option<String> {
    let (disposition, authorization) = match record.state.stage {
        Stage::Approved { .. } => (Disposition::ScopeChanged, ""),
        Stage::Invalidated { .. } => (Disposition::Invalidated, ""),
        Stage::Escalated { .. } => (Disposition::EscalationAuthorized, " --authorization X"),
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. } => return None,
    };
    Some(format!(
        "probity recover --predecessor-lineage {} --expected-predecessor-revision {} --disposition {} --reason R --actor A{authorization}",
        record.state.lineage_id,
        record.revision,
        disposition.name()
    ))
}

pub(crate) use crate::review::state::PERSON_VALUES;

/// The next step of a lineage's record as a sentence for people: the
/// state's next input, and for a final state the exact `probity recover`
/// command (`recover_command`) with the lineage's id and revision filled
/// in (issue 26 §1: never a `<rev>` the answer knows).
pub fn next_sentence(record: &StateRecord) -> String {
    next_sentence_kept(record, &[], None)
}

/// [`next_sentence`], knowing which lens results `lens submit` kept
/// ([`ReviewState::next_action_kept`]) and the leaf of the recovery chain
/// that supersedes the lineage, if any: a superseded lineage is history,
/// its next step is its leaf's (a recovery from it is refused).
pub fn next_sentence_kept(
    record: &StateRecord,
    kept: &[crate::review::lens::Lens],
    superseded_by: Option<&LineageId>,
) -> String {
    if let Some(leaf) = superseded_by {
        return format!(
            "{} is history, superseded by {leaf}: `probity status --lineage {leaf}` names the next step",
            record.state.lineage_id
        );
    }
    record
        .state
        .next_sentence_recovering(recover_command(record).as_deref(), kept)
}

/// The paths an escalated lineage reviewed: its genesis paths and every
/// path one of its correction attempts touched, sorted and unique.
pub(crate) fn reviewed_paths(state: &ReviewState) -> Vec<RepoPath> {
    let mut out = state.snapshot.paths.clone();
    if let Some(c) = state.stage.correction() {
        for a in &c.attempts {
            out.extend(a.paths.iter().cloned());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The escalation guard (issue 8 §5): the paths of a new candidate on
/// `base` that an escalated lineage on the same base reviewed. Non-empty
/// means a new start would side-step the escalation (a fresh budget, no
/// authorization) and must be refused; the way on is
/// `recover --disposition escalation_authorized`. A lineage that is not
/// escalated, or is on another base, blocks nothing; whether it was
/// superseded by an authorized successor is the caller's lookup
/// (`superseded` true blocks nothing either).
pub(crate) fn escalation_overlap(
    escalated: &ReviewState,
    superseded: bool,
    base: &crate::review::ids::TreeId,
    candidate_paths: &[RepoPath],
) -> Vec<RepoPath> {
    if superseded
        || !matches!(escalated.stage, Stage::Escalated { .. })
        || escalated.snapshot.base_tree != *base
    {
        return Vec::new();
    }
    let reviewed = reviewed_paths(escalated);
    candidate_paths
        .iter()
        .filter(|p| reviewed.binary_search(p).is_ok())
        .cloned()
        .collect()
}

/// An escalated lineage's change as Git derives it from its trees (issue 21
/// §8): the entries in which its base differs from its frozen candidate
/// and, after a correction, from its final candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscalatedChange {
    /// The escalated lineage's record.
    pub record: StateRecord,
    /// Whether an authorized successor supersedes it (then it blocks
    /// nothing).
    pub superseded: bool,
    /// base → frozen candidate, and base → final candidate when a
    /// correction moved it.
    pub deltas: Vec<crate::review::rebase::TreeDelta>,
}

/// The escalation guard keyed on the escalated change itself (issue 21
/// §8), so moving the base (stash, commit something else, pop) does not
/// let a fresh start cover it: the paths of a new candidate (`candidate`:
/// the entries in which its base `base` and its tree differ) that cover
/// `escalated`'s change. On the escalation's own base that is every path
/// it reviewed (`escalation_overlap`); on another base, a reviewed path
/// where the new candidate starts from the same entry the escalated change
/// started from (the same change moved, edited or not), or ends on an
/// entry the escalated change ended on (its bytes carried over). A path
/// whose starting entry moved (a revert of the committed change, other
/// work on a path the base changed) is another change. Empty when the
/// lineage is not escalated or is superseded.
pub fn escalation_covers(
    escalated: &EscalatedChange,
    base: &crate::review::ids::TreeId,
    candidate: &[crate::review::rebase::DeltaEntry],
) -> Vec<RepoPath> {
    let state = &escalated.record.state;
    if escalated.superseded || !matches!(state.stage, Stage::Escalated { .. }) {
        return Vec::new();
    }
    if state.snapshot.base_tree == *base {
        let paths: Vec<RepoPath> = candidate.iter().map(|e| e.path.clone()).collect();
        return escalation_overlap(state, false, base, &paths);
    }
    let reviewed = reviewed_paths(state);
    candidate
        .iter()
        .filter(|e| reviewed.binary_search(&e.path).is_ok())
        .filter(|e| {
            escalated.deltas.iter().any(|d| {
                d.entries()
                    .iter()
                    .find(|x| x.path == e.path)
                    .is_some_and(|x| x.base == e.base || x.candidate == e.candidate)
            })
        })
        .map(|e| e.path.clone())
        .collect()
}

/// Which observation a successor freezes (issue 21 §8): the live candidate
/// when it changes anything (the work being recovered is in the worktree);
/// otherwise the predecessor's own committed change, `committed`, when a
/// commit still holds it (a review started with `start --commit` or
/// `--range`, whose candidate no worktree holds once committed); else the
/// live candidate (an empty one is then refused as nothing to review).
pub fn successor_observation(
    live: crate::review::snapshot::CandidateObservation,
    committed: Option<crate::review::snapshot::CandidateObservation>,
) -> crate::review::snapshot::CandidateObservation {
    match committed {
        Some(c) if live.changed.is_empty() => c,
        Some(_) | None => live,
    }
}

/// Builds the successor of `pred` over the live candidate in `input`
/// (generation + 1, a fresh budget and lenses frozen from the live
/// candidate). `differing_paths` are the paths in which the live candidate
/// differs from the predecessor's final candidate (what `scope_changed`
/// must show touches a reviewed path).
pub fn successor(
    pred: &StateRecord,
    request: RecoverRequest,
    scope: ScopeEvidence<'_>,
    input: StartInput,
) -> Result<ReviewState, RecoverError> {
    let p = &pred.state;
    if pred.revision != request.expected_revision {
        return Err(RecoverError::RevisionMismatch {
            lineage: p.lineage_id.clone(),
            expected: request.expected_revision,
            found: pred.revision,
        });
    }
    let eligible = matches!(
        (&p.stage, request.disposition),
        (Stage::Approved { .. }, Disposition::ScopeChanged)
            | (Stage::Invalidated { .. }, Disposition::Invalidated)
            | (Stage::Escalated { .. }, Disposition::EscalationAuthorized)
    );
    if !eligible {
        return Err(RecoverError::NotEligible {
            state: p.stage.name(),
            disposition: request.disposition.name(),
        });
    }
    match (request.disposition, &request.authorization) {
        (Disposition::EscalationAuthorized, None) => {
            return Err(RecoverError::AuthorizationRequired);
        }
        (Disposition::ScopeChanged | Disposition::Invalidated, Some(_)) => {
            return Err(RecoverError::AuthorizationNotApplicable);
        }
        _ => {}
    }
    if request.disposition == Disposition::ScopeChanged
        && !scope.owned_by_chain
        && !scope
            .differing_paths
            .iter()
            .any(|d| p.snapshot.paths.binary_search(d).is_ok())
    {
        return Err(RecoverError::ScopeUnchanged {
            lineage: p.lineage_id.clone(),
        });
    }
    let predecessor = Predecessor {
        lineage_id: p.lineage_id.clone(),
        revision: pred.revision,
        disposition: request.disposition,
        reason: request.reason,
        actor: request.actor,
        authorization: request.authorization,
    };
    let generation = p.generation.checked_add(1).ok_or(StateError::Generation)?;
    Ok(ReviewState::genesis(input, generation, Some(predecessor))?)
}

/// Why a record cannot be made a [`FirstRecord`] or a [`Successor`]
/// (R9.2), decided here so no store can create it; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NewLineageError {
    /// A successor offered as a first record: only its predecessor's
    /// recovery (`create_successor`, under the predecessor's lock) creates
    /// one.
    #[error(
        "{lineage} names predecessor {predecessor}: it is created only as that lineage's successor"
    )]
    Successor {
        /// The record's lineage.
        lineage: LineageId,
        /// The predecessor it names.
        predecessor: LineageId,
    },
    /// A first generation offered as a successor.
    #[error("a successor must name its predecessor")]
    NoPredecessor {
        /// The record's lineage.
        lineage: LineageId,
    },
    /// The link does not hold against the predecessor it was checked
    /// against (`link_fault`): another lineage, another revision (it
    /// changed after the successor was derived from it), or not one
    /// generation on.
    #[error(transparent)]
    Link(#[from] ChainError),
}

/// A record a store may create as a new lineage (`ReviewStore::create`):
/// it starts a chain, naming no predecessor. Only [`FirstRecord::check`]
/// makes one, so no store can create a successor beside its predecessor
/// with no supersession marker (a chain no reader accepts), and no store
/// has to remember to refuse one. Its field is private, so nothing else
/// makes one:
///
/// ```compile_fail,E0451
/// use probity_core::review::FirstRecord;
/// use probity_core::review::StateRecord;
///
/// fn bypass(record: StateRecord) -> FirstRecord {
///     FirstRecord { record }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstRecord {
    record: StateRecord,
}

impl FirstRecord {
    /// `record` as a first record: legal only when it names no
    /// predecessor (`NewLineageError::Successor` otherwise).
    pub fn check(record: StateRecord) -> Result<FirstRecord, NewLineageError> {
        if let Some(p) = &record.state.predecessor {
            return Err(NewLineageError::Successor {
                lineage: record.state.lineage_id.clone(),
                predecessor: p.lineage_id.clone(),
            });
        }
        Ok(FirstRecord { record })
    }

    /// The record to create.
    pub fn record(&self) -> &StateRecord {
        &self.record
    }

    /// The record to create, owned.
    pub fn into_record(self) -> StateRecord {
        self.record
    }
}

/// A recovered successor a store may create under its predecessor's lock
/// (`ReviewStore::create_successor`, R9.2). Only [`Successor::check`]
/// makes one: its link names the predecessor it was checked against, at
/// that record's revision, and it is one generation on. What is left to a
/// store is the compare-and-swap a `replace` does too: the predecessor it
/// holds, read under its lock, must still be at [`Successor::expected`]
/// (a `Conflict` otherwise), exactly as a [`crate::review::state::Transition`]
/// names the revision it replaces. Its fields are private, so nothing
/// else makes one:
///
/// ```compile_fail,E0451
/// use probity_core::digest::Sha256Digest;
/// use probity_core::review::LineageId;
/// use probity_core::review::Successor;
/// use probity_core::review::StateRecord;
///
/// fn bypass(record: StateRecord, predecessor: LineageId, expected: Sha256Digest) -> Successor {
///     Successor { record, predecessor, expected }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Successor {
    record: StateRecord,
    predecessor: LineageId,
    expected: Sha256Digest,
}

impl Successor {
    /// `record` as the successor of `predecessor`: legal only when it
    /// names a predecessor (`NoPredecessor`), and that link holds against
    /// `predecessor` (`link_fault`: the same lineage, at its revision,
    /// one generation on).
    pub fn check(
        predecessor: &StateRecord,
        record: StateRecord,
    ) -> Result<Successor, NewLineageError> {
        let link =
            record
                .state
                .predecessor
                .as_ref()
                .ok_or_else(|| NewLineageError::NoPredecessor {
                    lineage: record.state.lineage_id.clone(),
                })?;
        link_fault(&record.state, predecessor)?;
        Ok(Successor {
            predecessor: link.lineage_id.clone(),
            expected: link.revision,
            record,
        })
    }

    /// The predecessor's lineage, whose lock the store takes.
    pub fn predecessor(&self) -> &LineageId {
        &self.predecessor
    }

    /// The revision the predecessor must still be at (compare-and-swap).
    pub fn expected(&self) -> &Sha256Digest {
        &self.expected
    }

    /// The successor's record.
    pub fn record(&self) -> &StateRecord {
        &self.record
    }

    /// The successor's record, owned.
    pub fn into_record(self) -> StateRecord {
        self.record
    }
}

/// One ancestor as discovery read it: its record and the successor its
/// supersession marker names (if any).
#[derive(Debug, Clone)]
pub struct Ancestor {
    /// The ancestor's stored record.
    pub record: StateRecord,
    /// The lineage its supersession marker names; `None` when it has no
    /// marker.
    pub successor: Option<LineageId>,
}

/// Why a chain does not authorize (R9.3). Discovery fails closed on each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// A lineage names a predecessor the store does not hold (or a record
    /// other than the one loaded for it).
    #[error("{lineage} names predecessor {predecessor}, which the store does not hold")]
    Dangling {
        /// The lineage whose link dangles.
        lineage: LineageId,
        /// The predecessor it names.
        predecessor: LineageId,
    },
    /// The predecessor's record is no longer at the revision the link
    /// recorded: it changed after the successor was made.
    #[error(
        "{lineage} was created from revision {recorded} of {predecessor}, which is now at {found}"
    )]
    RevisionMismatch {
        /// The successor.
        lineage: LineageId,
        /// Its predecessor.
        predecessor: LineageId,
        /// The revision the link recorded.
        recorded: Sha256Digest,
        /// The predecessor record's revision now.
        found: Sha256Digest,
    },
    /// The predecessor's supersession marker names another lineage, or
    /// none.
    #[error(
        "{predecessor} is superseded by {marker}, not by {lineage}: two successors (a fork) or an unrelated leaf"
    )]
    Fork {
        /// The lineage claiming to be the successor.
        lineage: LineageId,
        /// Its predecessor.
        predecessor: LineageId,
        /// The lineage the marker names, or `nothing`.
        marker: String,
    },
    /// A successor's generation is not its predecessor's plus one.
    #[error(
        "{lineage} is generation {generation} but its predecessor is generation {predecessor_generation}"
    )]
    Generation {
        /// The successor.
        lineage: LineageId,
        /// Its generation.
        generation: u32,
        /// The predecessor's generation.
        predecessor_generation: u32,
    },
    /// The walk from the leaf took more links than the leaf's generation:
    /// the chain loops.
    #[error("the chain above {lineage} has more records than its generation allows (a cycle)")]
    Cycle {
        /// The leaf whose chain was walked.
        lineage: LineageId,
    },
}

/// What is wrong with `child`'s predecessor link against `parent` (the
/// record it names, as read): it must name that lineage, at its current
/// revision, one generation on. What [`Successor::check`] checks before a
/// store may create a successor, and part of [`check_link`].
pub(crate) fn link_fault(child: &ReviewState, parent: &StateRecord) -> Result<(), ChainError> {
    let p = &parent.state;
    let link = child
        .predecessor
        .as_ref()
        .filter(|l| l.lineage_id == p.lineage_id)
        .ok_or_else(|| ChainError::Dangling {
            lineage: child.lineage_id.clone(),
            predecessor: child
                .predecessor
                .as_ref()
                .map_or_else(|| p.lineage_id.clone(), |l| l.lineage_id.clone()),
        })?;
    if parent.revision != link.revision {
        return Err(ChainError::RevisionMismatch {
            lineage: child.lineage_id.clone(),
            predecessor: link.lineage_id.clone(),
            recorded: link.revision,
            found: parent.revision,
        });
    }
    if p.generation.checked_add(1) != Some(child.generation) {
        return Err(ChainError::Generation {
            lineage: child.lineage_id.clone(),
            generation: child.generation,
            predecessor_generation: p.generation,
        });
    }
    Ok(())
}

/// Checks one link: `link_fault`, and the parent's marker names exactly
/// `child`.
pub fn check_link(child: &ReviewState, parent: &Ancestor) -> Result<(), ChainError> {
    link_fault(child, &parent.record)?;
    if parent.successor.as_ref() != Some(&child.lineage_id) {
        return Err(ChainError::Fork {
            lineage: child.lineage_id.clone(),
            predecessor: parent.record.state.lineage_id.clone(),
            marker: parent
                .successor
                .as_ref()
                .map_or_else(|| "nothing".to_string(), ToString::to_string),
        });
    }
    Ok(())
}

/// Checks the predecessor chain of `leaf`, given the ancestors discovery
/// loaded in order (parent first; `None` where the store had no record).
/// Generations strictly decrease by one, so the walk is bounded and a
/// cycle cannot pass.
pub fn check_chain(leaf: &ReviewState, ancestors: &[Option<Ancestor>]) -> Result<(), ChainError> {
    let mut child = leaf;
    let mut i = 0;
    while let Some(link) = &child.predecessor {
        let Some(Some(anc)) = ancestors.get(i) else {
            return Err(ChainError::Dangling {
                lineage: child.lineage_id.clone(),
                predecessor: link.lineage_id.clone(),
            });
        };
        check_link(child, anc)?;
        child = &anc.record.state;
        i += 1;
        if i > leaf.generation as usize {
            return Err(ChainError::Cycle {
                lineage: leaf.lineage_id.clone(),
            });
        }
    }
    Ok(())
}

/// The lineages above a successor `record`, nearest first, as far as a
/// store holds them: each predecessor link is followed through `load` (the
/// store's read of a lineage's record), and the walk stops at a lineage
/// the store does not hold, at a first record, or after as many links as
/// the record's generation (so a cycle cannot hold it). The walk both
/// review stores make before a successor may take over a target.
pub fn ancestors<E>(
    record: &StateRecord,
    mut load: impl FnMut(&LineageId) -> Result<Option<StateRecord>, E>,
) -> Result<Vec<LineageId>, E> {
    let bound = record.state().generation() as usize;
    let mut out: Vec<LineageId> = Vec::new();
    let mut link = record.state().predecessor().cloned();
    while let Some(above) = link.filter(|_| out.len() < bound) {
        link = load(&above.lineage_id)?.and_then(|r| r.state().predecessor().cloned());
        out.push(above.lineage_id);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
