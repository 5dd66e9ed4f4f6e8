//! Gate decisions (R8): allow, or deny with a machine-readable reason, the
//! observed context needed to diagnose, and the next legal move.

use serde::Serialize;

use crate::review::ids::{CommitId, LineageId, RepoPath, TreeId};
use crate::review::rebase::{GateProof, RebaseCheck, shell_quote};
use crate::review::receipt::Receipt;
use crate::review::snapshot::LiveTarget;
use crate::review::state::{ReviewState, Stage};

/// The delivery boundary being crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    PreCommit,
    PrePush,
    PrePr,
    Release,
}

impl Gate {
    pub const fn name(self) -> &'static str {
        match self {
            Gate::PreCommit => "pre-commit",
            Gate::PrePush => "pre-push",
            Gate::PrePr => "pre-pr",
            Gate::Release => "release",
        }
    }
}

/// How a lineage relates to the live candidate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Applicability {
    /// The lineage froze exactly the live candidate.
    Current,
    /// The live candidate differs only outside the reviewed paths.
    Unrelated,
    /// The live candidate differs inside the reviewed paths (or their set).
    ScopeChanged,
    /// The lineage's approved change, carried unchanged onto another base
    /// (the rebase proof holds): the gates allow it.
    Rebased,
}

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Deny,
}

/// Why the gate decided as it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// An approved receipt binds exactly the live candidate.
    ReceiptValid,
    /// No review authority exists for this candidate or its base.
    ReceiptMissing,
    /// A reviewed path changed, or the path set changed.
    ReceiptScopeChanged,
    /// New work touches no reviewed path; the old receipt is still valid for
    /// what it approved.
    ReceiptUnrelated,
    /// A review of exactly this candidate exists but is not terminal.
    ReviewIncomplete,
    /// The review of this candidate escalated to a human decision.
    ReviewEscalated,
    /// The review of this candidate was invalidated before any judgment.
    ReviewInvalidated,
    /// The lineage found for this candidate has a successor: history, not
    /// authority.
    ReceiptSuperseded,
    /// The receipt file is missing or differs from the one state derives.
    ReceiptMismatch,
    /// A pushed ref delivers no commit the remote lacks.
    DeliveryEmpty,
    /// A pushed ref delivers more than one commit, or a merge commit: only
    /// one commit whose parent tree is the reviewed base is a delivery.
    DeliveryPartial,
    /// No ref update delivers content (deletions only, or nothing to push).
    NothingDelivered,
    /// A pushed ref does not fast-forward the remote's tip.
    DeliveryNotFastForward,
    /// A pushed ref names something other than a commit.
    DeliveryNotCommit,
    /// pre-pr: the explicit base does not resolve here.
    BaseUnavailable,
    /// pre-pr: the base advanced since the reviewed base, over paths the
    /// delivery changed.
    BaseAdvanced,
    /// release: an artifact is missing or its digest is not the one the
    /// checksums file names.
    ReleaseEvidenceMismatch,
    /// release: an artifact changed while the gate was deciding.
    ReleaseEvidenceChanged,
    /// release: the revision moved to another commit while the gate was
    /// deciding.
    ReleaseRevisionMoved,
    /// The delivery changes no bytes: its tree equals its base tree (a
    /// clean worktree, a message-only `--amend`, `--allow-empty`), so there
    /// is nothing a review could bind (D-R26).
    NoChange,
    /// A pushed ref delivers more commits than a gate judges one by one
    /// ([`MAX_RANGE_COMMITS`]).
    DeliveryTooLarge,
}

/// Where in the derivation the decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateStage {
    /// Deriving what crosses the boundary (the delivered range).
    Boundary,
    /// Finding the authority for the live target.
    Discovery,
    /// Checking the authority's state and receipt.
    Authority,
    /// Comparing reviewed scope with the live target.
    Scope,
    /// Every check passed.
    Complete,
}

/// The next legal move after a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextAction {
    None,
    StartReview,
    Finalize,
    HumanDecision,
    Repair,
    /// `probity recover` from the named lineage (an audited successor).
    Recover,
    /// Squash the delivered range into one commit of the reviewed candidate.
    Squash,
    /// Check what is being pushed: the range delivers nothing new.
    CheckRange,
    /// Review committed work as committed: `probity start --commit <sha>`
    /// (or `--range <old>..<tip>` for several commits).
    StartCommitReview,
    /// Commit the approved slice on its own first (`git add <reviewed
    /// paths> && git commit`), then review the new work.
    CommitApproved,
}

/// A gate decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateDecision {
    pub gate: Gate,
    pub decision: Decision,
    pub reason_code: ReasonCode,
    pub stage: GateStage,
    pub lineage_id: Option<LineageId>,
    pub differing_paths: Vec<RepoPath>,
    pub next_action: NextAction,
    /// One sentence for people.
    pub message: String,
    /// Publication gates: each distinct delivered range and how it was
    /// judged (absent for pre-commit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deliveries: Vec<DeliveryReport>,
    /// An allow whose live base is not the receipt's names the proof that
    /// carried it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Box<GateProof>>,
}

impl GateDecision {
    /// A denial at the boundary stage: what crosses it is no delivery a
    /// review can bind (no lineage, no paths).
    pub fn boundary(
        gate: Gate,
        reason_code: ReasonCode,
        next_action: NextAction,
        message: String,
    ) -> Self {
        Self::deny(
            gate,
            reason_code,
            GateStage::Boundary,
            None,
            Vec::new(),
            next_action,
            message,
        )
    }

    /// A denial: every denial at every gate is built here.
    pub fn deny(
        gate: Gate,
        reason_code: ReasonCode,
        stage: GateStage,
        lineage_id: Option<LineageId>,
        differing_paths: Vec<RepoPath>,
        next_action: NextAction,
        message: String,
    ) -> Self {
        GateDecision {
            gate,
            decision: Decision::Deny,
            reason_code,
            stage,
            lineage_id,
            differing_paths,
            next_action,
            message,
            deliveries: Vec::new(),
            proof: None,
        }
    }
}

/// What discovery found for the live target.
#[derive(Debug, Clone, Copy)]
pub enum Authority<'a> {
    /// Nothing for this candidate or its base; the live changed paths.
    None { changed_paths: &'a [RepoPath] },
    /// The lineage whose frozen target equals the live target, and the bytes
    /// of its receipt file if there is one.
    Exact {
        state: &'a ReviewState,
        receipt_file: Option<&'a [u8]>,
        /// The leaf of the recovery chain that supersedes this lineage, if
        /// any (R9.3).
        superseded_by: Option<&'a LineageId>,
    },
    /// The approved lineage whose change (base to final candidate) has the
    /// same delta identity as the live target's, on another base, and what
    /// the rebase proof found.
    Rebased {
        state: &'a ReviewState,
        receipt_file: Option<&'a [u8]>,
        superseded_by: Option<&'a LineageId>,
        check: &'a RebaseCheck,
    },
    /// The latest approved lineage on the same base tree (its slice is not
    /// committed), or the one whose final candidate is the live base (its
    /// slice is committed: R8.6), and the paths in which its final
    /// candidate differs from the live candidate (including paths added or
    /// removed).
    Prior {
        state: &'a ReviewState,
        differing_paths: &'a [RepoPath],
        /// The leaf of the recovery chain that supersedes this lineage, if
        /// any: its receipt is then history, not a standing approval.
        superseded_by: Option<&'a LineageId>,
    },
}

/// The pre-commit decision (R8.2, R8.6).
pub fn decide_pre_commit(live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    decide_target(Gate::PreCommit, live, authority)
}

/// The decision for one live target at any gate: the candidate a commit
/// would record (pre-commit) or the (parent tree, tree) of a delivered
/// commit (pre-push).
pub fn decide_target(gate: Gate, live: &LiveTarget, authority: Authority<'_>) -> GateDecision {
    if let Some(allow) = no_change(gate, live) {
        return allow;
    }
    let deny = |reason_code,
                stage,
                lineage: Option<&LineageId>,
                differing: Vec<RepoPath>,
                next,
                message: String| {
        GateDecision::deny(
            gate,
            reason_code,
            stage,
            lineage.cloned(),
            differing,
            next,
            message,
        )
    };
    match authority {
        Authority::None { changed_paths } => deny(
            ReasonCode::ReceiptMissing,
            GateStage::Discovery,
            None,
            changed_paths.to_vec(),
            NextAction::StartReview,
            "no review authority exists for this candidate: run `probity start`, the selected lenses, and `probity finalize`".into(),
        ),
        Authority::Exact { state, .. } if state.final_target() != live.target => deny(
            ReasonCode::ReceiptMismatch,
            GateStage::Discovery,
            Some(&state.lineage_id),
            Vec::new(),
            NextAction::Repair,
            format!(
                "discovery returned {}, which froze another target than the live candidate {}",
                state.lineage_id, live.candidate_tree
            ),
        ),
        Authority::Exact {
            state,
            superseded_by: Some(leaf),
            ..
        } => deny(
            ReasonCode::ReceiptSuperseded,
            GateStage::Authority,
            Some(&state.lineage_id),
            Vec::new(),
            NextAction::Recover,
            format!(
                "{} is superseded (its recovery chain ends at {leaf}): history, not authority; to review this candidate, recover from {leaf} (`probity status --lineage {leaf}` prints the recover command)",
                state.lineage_id
            ),
        ),
        Authority::Exact {
            state,
            receipt_file,
            superseded_by: None,
        } => {
            let lineage = Some(&state.lineage_id);
            match &state.stage {
                Stage::Approved { .. } => approved(gate, state, receipt_file, None).unwrap_or_else(|| {
                    deny(
                        ReasonCode::ReceiptMismatch,
                        GateStage::Authority,
                        lineage,
                        Vec::new(),
                        NextAction::Repair,
                        receipt_mismatch(state),
                    )
                }),
                Stage::Escalated { .. } => deny(
                    ReasonCode::ReviewEscalated,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::HumanDecision,
                    match state.record().ok().as_ref().and_then(crate::review::recovery::recover_command) {
                        Some(cmd) => format!(
                            "review {} escalated: a maintainer decides whether it goes on: `{cmd}` ({})",
                            state.lineage_id,
                            crate::review::recovery::PERSON_VALUES
                        ),
                        None => format!("review {} escalated: a maintainer decides whether it goes on (`probity status --lineage {}`)", state.lineage_id, state.lineage_id),
                    },
                ),
                Stage::Invalidated { reason } => deny(
                    ReasonCode::ReviewInvalidated,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::Recover,
                    match state.record().ok().as_ref().and_then(crate::review::recovery::recover_command) {
                        Some(cmd) => format!(
                            "review {} of this candidate was invalidated ({reason}): start its successor with `{cmd}` ({})",
                            state.lineage_id,
                            crate::review::recovery::PERSON_VALUES
                        ),
                        None => format!("review {} of this candidate was invalidated ({reason}): `probity status --lineage {}` names its successor's recover command", state.lineage_id, state.lineage_id),
                    },
                ),
                Stage::Reviewing { .. } | Stage::CorrectionRequired { .. } | Stage::Validating { .. } => deny(
                    ReasonCode::ReviewIncomplete,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::Finalize,
                    format!(
                        "review {} of this candidate is `{}`: finish it with `probity finalize --lineage {}` (`probity status --lineage {} --next-transition` names the next input)",
                        state.lineage_id,
                        state.stage.name(),
                        state.lineage_id,
                        state.lineage_id
                    ),
                ),
            }
        }
        Authority::Rebased {
            state,
            superseded_by: Some(leaf),
            ..
        } => deny(
            ReasonCode::ReceiptSuperseded,
            GateStage::Authority,
            Some(&state.lineage_id),
            Vec::new(),
            NextAction::Recover,
            format!(
                "the live candidate is the change {} approved, carried onto another base, but {} is superseded (its recovery chain ends at {leaf}): history, not authority; recover from {leaf} (`probity status --lineage {leaf}`)",
                state.lineage_id, state.lineage_id
            ),
        ),
        Authority::Rebased {
            state,
            receipt_file,
            superseded_by: None,
            check,
        } => {
            let lineage = Some(&state.lineage_id);
            if !matches!(state.stage, Stage::Approved { .. }) {
                // Only an approval is indexed by its delta.
                return deny(
                    ReasonCode::ReceiptMismatch,
                    GateStage::Discovery,
                    lineage,
                    Vec::new(),
                    NextAction::Repair,
                    format!(
                        "discovery by delta identity returned {}, which is `{}`, not approved",
                        state.lineage_id,
                        state.stage.name()
                    ),
                );
            }
            match check {
                RebaseCheck::Differs(paths) => deny(
                    ReasonCode::ReceiptScopeChanged,
                    GateStage::Scope,
                    lineage,
                    paths.clone(),
                    NextAction::StartReview,
                    format!(
                        "the live candidate sits on base tree {} while {} approved its change on {}, and these paths differ from what it approved: {}; the result on the new base was never reviewed: review it with `probity start`",
                        live.base_tree,
                        state.lineage_id,
                        state.snapshot.base_tree,
                        join_paths(paths)
                    ),
                ),
                RebaseCheck::Proven(proof) => {
                    approved(gate, state, receipt_file, Some(Box::new(proof.clone()))).unwrap_or_else(|| {
                        deny(
                            ReasonCode::ReceiptMismatch,
                            GateStage::Authority,
                            lineage,
                            Vec::new(),
                            NextAction::Repair,
                            receipt_mismatch(state),
                        )
                    })
                }
            }
        }
        Authority::Prior {
            state,
            differing_paths,
            superseded_by,
        } => {
            let history = superseded_by.map_or_else(String::new, |leaf| {
                format!(" ({} is superseded; its chain ends at {leaf})", state.lineage_id)
            });
            let touches_reviewed =
                differing_paths.iter().any(|p| state.snapshot.paths.binary_search(p).is_ok());
            // The slice is committed when the live base is its final
            // candidate (R8.6); otherwise the live base is its own base.
            let committed = state.snapshot.base_tree != live.base_tree
                && *state.final_candidate_tree() == live.base_tree;
            if touches_reviewed {
                deny(
                    ReasonCode::ReceiptScopeChanged,
                    GateStage::Scope,
                    Some(&state.lineage_id),
                    differing_paths.to_vec(),
                    NextAction::StartReview,
                    if committed {
                        format!(
                            "the new work on top of the committed slice {} approved changes paths it reviewed{history}: review the new work with `probity start`",
                            state.lineage_id
                        )
                    } else {
                        format!(
                            "the candidate changed inside the scope {} reviewed{history}: review the changed candidate with `probity start`",
                            state.lineage_id
                        )
                    },
                )
            } else {
                let (next, message) = match (superseded_by, committed) {
                    (Some(_), _) => (
                        NextAction::StartReview,
                        format!(
                            "new work touches no path {} reviewed{history}: review the new work with `probity start`",
                            state.lineage_id
                        ),
                    ),
                    (None, true) => (
                        NextAction::StartReview,
                        format!(
                            "new work on top of the committed slice {} approved touches no path it reviewed (its receipt still holds for what it approved): review the new work with `probity start`",
                            state.lineage_id
                        ),
                    ),
                    (None, false) => (
                        NextAction::CommitApproved,
                        format!(
                            "new work touches no path {} reviewed (its receipt still holds for what it approved, which is not committed yet): commit the approved slice first (`{}`), then review the new work with `probity start`",
                            state.lineage_id,
                            commit_slice_command(state)
                        ),
                    ),
                };
                deny(
                    ReasonCode::ReceiptUnrelated,
                    GateStage::Scope,
                    Some(&state.lineage_id),
                    differing_paths.to_vec(),
                    next,
                    message,
                )
            }
        }
    }
}

/// A target whose candidate tree is its base tree changes no reviewed
/// bytes (a clean worktree at pre-commit; a commit whose tree equals its
/// parent's: a message-only `--amend`, `--allow-empty`): every gate allows
/// it with `no_change`, before any discovery (D-R26). `None` otherwise.
pub fn no_change(gate: Gate, live: &LiveTarget) -> Option<GateDecision> {
    (live.base_tree == live.candidate_tree).then(|| GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code: ReasonCode::NoChange,
        stage: GateStage::Complete,
        lineage_id: None,
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message: format!(
            "the {} delivery changes no bytes (its tree {} is its base tree): there is nothing to review",
            gate.name(),
            live.candidate_tree
        ),
        deliveries: Vec::new(),
        proof: None,
    })
}

/// The allow for an approved lineage whose receipt file is the one its
/// state derives; `None` when the file is missing or differs.
fn approved(
    gate: Gate,
    state: &ReviewState,
    receipt_file: Option<&[u8]>,
    proof: Option<Box<GateProof>>,
) -> Option<GateDecision> {
    let derived = Receipt::derive(state).and_then(|r| r.to_bytes().ok())?;
    if Some(&derived[..]) != receipt_file {
        return None;
    }
    let message = match &proof {
        None => format!(
            "the live candidate is exactly what {} approved",
            state.lineage_id
        ),
        Some(p) => format!(
            "the live candidate is the change {} approved, carried from base tree {} onto {}: on every reviewed path the base and the candidate are the reviewed ones, and outside them nothing changes (rebase proof; the interaction of the new base with the change was not reviewed)",
            state.lineage_id, p.receipt_base, p.live_base
        ),
    };
    Some(GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code: ReasonCode::ReceiptValid,
        stage: GateStage::Complete,
        lineage_id: Some(state.lineage_id.clone()),
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message,
        deliveries: Vec::new(),
        proof,
    })
}

fn receipt_mismatch(state: &ReviewState) -> String {
    format!(
        "the receipt file of {} is missing or differs from the receipt its state derives; the state wins, so rewrite it with `probity finalize --lineage {}`",
        state.lineage_id, state.lineage_id
    )
}

fn join_paths(paths: &[RepoPath]) -> String {
    paths
        .iter()
        .map(RepoPath::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The command that commits exactly an approved slice: its reviewed paths,
/// quoted for a POSIX shell.
pub fn commit_slice_command(state: &ReviewState) -> String {
    let paths: Vec<String> = state
        .snapshot
        .paths
        .iter()
        .map(|p| shell_quote(p.as_str()))
        .collect();
    format!("git add -- {} && git commit", paths.join(" "))
}

// ---------------------------------------------------------------------------
// Publication: pre-push (R8.3)
// ---------------------------------------------------------------------------

/// One line git gives a pre-push hook on stdin:
/// `<local ref> <local oid> <remote ref> <remote oid>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    pub local_ref: String,
    /// `None` when the push deletes the remote ref (git writes zeros).
    pub local_oid: Option<CommitId>,
    pub remote_ref: String,
    /// `None` when the remote ref does not exist yet (git writes zeros).
    pub remote_oid: Option<CommitId>,
}

/// A malformed pre-push input line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushInputError {
    #[error(
        "line {line} of the pre-push input has {fields} fields; git writes `<local ref> <local oid> <remote ref> <remote oid>`"
    )]
    Fields { line: usize, fields: usize },
    #[error("line {line} of the pre-push input: `{value}` is not an object id")]
    ObjectId { line: usize, value: String },
}

fn push_oid(line: usize, value: &str) -> Result<Option<CommitId>, PushInputError> {
    // Git writes the all-zero id of the repository's hash for "absent".
    if matches!(value.len(), 40 | 64) && value.bytes().all(|b| b == b'0') {
        return Ok(None);
    }
    CommitId::parse(value)
        .map(Some)
        .map_err(|_| PushInputError::ObjectId {
            line,
            value: value.to_string(),
        })
}

/// Parses git's pre-push stdin. Blank lines are ignored (a hook that
/// forwards an empty input writes one newline).
pub fn parse_push_updates(input: &str) -> Result<Vec<RefUpdate>, PushInputError> {
    let mut out = Vec::new();
    for (i, raw) in input.split('\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        // The local ref is the refspec's source as written, which may hold
        // spaces (`HEAD^{/fix the}`); the last three fields never do.
        let fields: Vec<&str> = raw.rsplitn(4, ' ').collect();
        let [remote_oid, remote_ref, local_oid, local_ref] = fields[..] else {
            return Err(PushInputError::Fields {
                line,
                fields: fields.len(),
            });
        };
        if local_ref.is_empty() || remote_ref.is_empty() {
            return Err(PushInputError::Fields { line, fields: 3 });
        }
        out.push(RefUpdate {
            local_ref: local_ref.to_string(),
            local_oid: push_oid(line, local_oid)?,
            remote_ref: remote_ref.to_string(),
            remote_oid: push_oid(line, remote_oid)?,
        });
    }
    Ok(out)
}

/// One commit of a delivered range, as Git reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeCommit {
    pub commit: CommitId,
    pub tree: TreeId,
    pub parents: Vec<CommitId>,
}

/// The refs that deliver one range, and the range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveredRange {
    /// The destination refs (`refs/heads/main`, or the tip as named on the
    /// command line), in first-seen order.
    pub refs: Vec<String>,
    pub tip: CommitId,
    /// The newest commits of the range, newest first: all of them when the
    /// range has at most one, otherwise at least the first.
    pub commits: Vec<RangeCommit>,
    /// How many commits the range has.
    pub count: usize,
    /// What makes the update no delivery at all, found before its commits
    /// are counted.
    pub problem: Option<RangeProblem>,
}

/// An update that cannot be a delivery whatever its commits are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeProblem {
    /// The update does not fast-forward the remote ref's current tip `old`:
    /// a forced push, a rewind, or a tip this clone does not have.
    NotFastForward { old: CommitId },
    /// The pushed object is not a commit (a tag of a tree or a blob).
    NotCommit,
}

/// Groups ranges that deliver the same commits (one physical delivery
/// reachable through several refs), so each is judged once. Order: first
/// appearance.
pub fn dedupe_ranges(ranges: Vec<DeliveredRange>) -> Vec<DeliveredRange> {
    let mut out: Vec<DeliveredRange> = Vec::new();
    for r in ranges {
        let key = |d: &DeliveredRange| {
            let ids: Vec<CommitId> = d.commits.iter().map(|c| c.commit.clone()).collect();
            (d.tip.clone(), ids, d.count, d.problem.clone())
        };
        let k = key(&r);
        match out.iter_mut().find(|d| key(d) == k) {
            Some(d) => {
                for name in r.refs {
                    if !d.refs.contains(&name) {
                        d.refs.push(name);
                    }
                }
            }
            None => out.push(r),
        }
    }
    out
}

/// What a range is, before any authority is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeShape<'a> {
    /// No commit the remote lacks.
    Empty,
    /// Exactly one commit with at most one parent: a delivery commit.
    One(&'a RangeCommit),
    /// Several commits.
    Several(usize),
    /// One commit with several parents.
    Merge(&'a RangeCommit),
    /// Not a fast-forward of the remote ref's tip.
    NotFastForward(&'a CommitId),
    /// Not a commit.
    NotCommit,
}

/// Classifies a range (R8.3: exactly one delivery commit; empty or partial
/// ranges are rejected).
pub fn range_shape(range: &DeliveredRange) -> RangeShape<'_> {
    match &range.problem {
        Some(RangeProblem::NotFastForward { old }) => return RangeShape::NotFastForward(old),
        Some(RangeProblem::NotCommit) => return RangeShape::NotCommit,
        None => {}
    }
    match (range.count, range.commits.first()) {
        (0, _) | (_, None) => RangeShape::Empty,
        (1, Some(c)) if c.parents.len() > 1 => RangeShape::Merge(c),
        (1, Some(c)) => RangeShape::One(c),
        (n, _) => RangeShape::Several(n),
    }
}

/// The delivery commit of a range (then judged by [`decide_target`]), or
/// the denial for a range that is not exactly one delivery commit.
pub fn delivery_commit(gate: Gate, range: &DeliveredRange) -> Result<&RangeCommit, GateDecision> {
    let refs = range.refs.join(", ");
    let (reason_code, next_action, message) = match range_shape(range) {
        RangeShape::One(c) => return Ok(c),
        RangeShape::Empty => (
            ReasonCode::DeliveryEmpty,
            NextAction::CheckRange,
            format!(
                "{refs} would point at {} but deliver no commit the remote lacks; a ref move without a delivery commit is not bound to any review",
                range.tip
            ),
        ),
        RangeShape::Several(n) => (
            ReasonCode::DeliveryPartial,
            NextAction::Squash,
            format!(
                "{refs} delivers {n} commits; a review binds exactly one delivery commit whose parent is the reviewed base: squash them into one commit of the reviewed candidate, or push each reviewed commit on its own"
            ),
        ),
        RangeShape::Merge(c) => (
            ReasonCode::DeliveryPartial,
            NextAction::Squash,
            format!(
                "{refs} delivers the merge commit {} with {} parents; a review binds one commit with one parent (the reviewed base)",
                c.commit,
                c.parents.len()
            ),
        ),
        RangeShape::NotFastForward(old) => (
            ReasonCode::DeliveryNotFastForward,
            NextAction::CheckRange,
            format!(
                "{refs} would move from {old} to {} without fast-forwarding it (a forced push, a rewind, or a remote tip this clone has not fetched): what it drops or replaces was never reviewed; put your commits on the remote's tip (`git fetch`, then `git rebase {old}`) and push again: a reviewed commit rebased onto work that touches none of its paths stays approved (the rebase proof), anything else names the `probity start --commit` to run",
                range.tip
            ),
        ),
        RangeShape::NotCommit => (
            ReasonCode::DeliveryNotCommit,
            NextAction::CheckRange,
            format!(
                "{refs} would point at {}, which is not a commit: only a commit is a delivery a review binds",
                range.tip
            ),
        ),
    };
    Err(GateDecision::boundary(
        gate,
        reason_code,
        next_action,
        message,
    ))
}

/// How one distinct delivered range was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryReport {
    pub refs: Vec<String>,
    pub tip: CommitId,
    /// Commits in the range (1 for a delivery commit).
    pub commits: usize,
    pub decision: Decision,
    pub reason_code: ReasonCode,
    pub lineage_id: Option<LineageId>,
    /// A range of several commits: how each was judged, oldest first
    /// (absent for a one-commit range and a boundary denial).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<CommitReport>,
    /// The rebase proof that carried this range's allow, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Box<GateProof>>,
}

/// Combines the per-range decisions of one push: allow only when every
/// range allows; otherwise the first denial (in input order) answers, with
/// every range reported. A push that only deletes refs delivers nothing and
/// is allowed.
pub fn combine_deliveries(gate: Gate, judged: Vec<(DeliveredRange, GateDecision)>) -> GateDecision {
    combine_judged(
        gate,
        judged
            .into_iter()
            .map(|(r, decision)| {
                (
                    r,
                    RangeJudgment {
                        decision,
                        stack: Vec::new(),
                    },
                )
            })
            .collect(),
    )
}

/// [`combine_deliveries`] for ranges judged commit by commit
/// ([`judge_stack`]): each range's per-commit reports go to its entry in
/// `deliveries`.
pub fn combine_judged(gate: Gate, judged: Vec<(DeliveredRange, RangeJudgment)>) -> GateDecision {
    let deliveries: Vec<DeliveryReport> = judged
        .iter()
        .map(|(r, j)| DeliveryReport {
            refs: r.refs.clone(),
            tip: r.tip.clone(),
            commits: r.count,
            decision: j.decision.decision,
            reason_code: j.decision.reason_code,
            lineage_id: j.decision.lineage_id.clone(),
            stack: j.stack.clone(),
            proof: j.decision.proof.clone(),
        })
        .collect();
    let judged: Vec<(DeliveredRange, GateDecision)> =
        judged.into_iter().map(|(r, j)| (r, j.decision)).collect();
    if judged.is_empty() {
        return GateDecision {
            gate,
            decision: Decision::Allow,
            reason_code: ReasonCode::NothingDelivered,
            stage: GateStage::Complete,
            lineage_id: None,
            differing_paths: Vec::new(),
            next_action: NextAction::None,
            message: "no ref update delivers content (deletions only, or nothing to push)".into(),
            deliveries,
            proof: None,
        };
    }
    if let Some((_, denial)) = judged.iter().find(|(_, d)| d.decision == Decision::Deny) {
        return GateDecision {
            deliveries,
            ..denial.clone()
        };
    }
    let (lineage_id, proof) = match &judged[..] {
        [(_, only)] => (only.lineage_id.clone(), only.proof.clone()),
        _ => (None, None),
    };
    let unchanged = judged
        .iter()
        .all(|(_, d)| d.reason_code == ReasonCode::NoChange);
    let message = match &judged[..] {
        // A stack, or a delivery that changes no bytes, says so itself.
        [(r, only)] if r.count > 1 || only.reason_code == ReasonCode::NoChange => {
            only.message.clone()
        }
        [(r, only)] => format!(
            "{} delivers exactly the candidate {} approved",
            r.refs.join(", "),
            only.lineage_id
                .as_ref()
                .map_or_else(|| "a review".to_string(), ToString::to_string)
        ),
        many if unchanged => format!(
            "none of the {} delivered ranges changes any bytes",
            many.len()
        ),
        many => format!(
            "each of the {} delivered ranges consists of commits approved reviews cover (or that change no bytes)",
            many.len()
        ),
    };
    let message = match (&proof, &judged[..]) {
        (Some(_), [(r, only)]) => format!("{}: {}", r.refs.join(", "), only.message),
        _ => message,
    };
    GateDecision {
        gate,
        decision: Decision::Allow,
        reason_code: if unchanged {
            ReasonCode::NoChange
        } else {
            ReasonCode::ReceiptValid
        },
        stage: GateStage::Complete,
        lineage_id,
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message,
        deliveries,
        proof,
    }
}

// ---------------------------------------------------------------------------
// Stacks: a range judged commit by commit (D-R25)
// ---------------------------------------------------------------------------

/// The most commits one delivered range may hold: each is judged on its
/// own, so the bound keeps a gate's work (a lookup, and a diff for each
/// denial) bounded. A longer range is denied `delivery_too_large`.
pub const MAX_RANGE_COMMITS: usize = 1000;

/// Why a list of commits is not a stack a review can bind commit by commit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StackError {
    #[error("the range holds no commit")]
    Empty,
    #[error(
        "the range holds {count} commits, more than the {limit} Probity reviews or judges one by one"
    )]
    TooLarge { count: usize, limit: usize },
    #[error(
        "{commit} is a merge commit ({parents} parents); a review binds a commit with one parent (its base): rebase the branch onto its base, or squash it, so that every commit has one parent"
    )]
    Merge { commit: CommitId, parents: usize },
    #[error(
        "the range's commits do not form one chain from {tip} ({listed} listed, {chained} chained)"
    )]
    NotLinear {
        tip: CommitId,
        listed: usize,
        chained: usize,
    },
}

/// Orders a range's commits oldest first, as one chain ending at `tip`:
/// each commit's only parent is the commit before it (the oldest's parent,
/// if any, is outside the range). `count` is how many commits the range
/// has (it may exceed what was listed). A merge anywhere refuses the whole
/// range.
pub fn stack_order<'a>(
    tip: &CommitId,
    commits: &'a [RangeCommit],
    count: usize,
) -> Result<Vec<&'a RangeCommit>, StackError> {
    if count > MAX_RANGE_COMMITS {
        return Err(StackError::TooLarge {
            count,
            limit: MAX_RANGE_COMMITS,
        });
    }
    if count == 0 || commits.is_empty() {
        return Err(StackError::Empty);
    }
    if let Some(m) = commits.iter().find(|c| c.parents.len() > 1) {
        return Err(StackError::Merge {
            commit: m.commit.clone(),
            parents: m.parents.len(),
        });
    }
    let by_id: std::collections::BTreeMap<&CommitId, &RangeCommit> =
        commits.iter().map(|c| (&c.commit, c)).collect();
    let mut chain = Vec::with_capacity(commits.len());
    let mut next = Some(tip);
    while let Some(c) = next.and_then(|id| by_id.get(id)) {
        if chain.len() == commits.len() {
            break;
        }
        chain.push(*c);
        next = c.parents.first();
    }
    if chain.len() != commits.len() || commits.len() != count || by_id.len() != commits.len() {
        return Err(StackError::NotLinear {
            tip: tip.clone(),
            listed: commits.len(),
            chained: chain.len(),
        });
    }
    chain.reverse();
    Ok(chain)
}

/// The commit the range builds on along first parents (the first parent
/// outside the range, walking from the tip): what the remote already holds.
fn first_parent_base(range: &DeliveredRange) -> Option<&CommitId> {
    let mut cur = range.commits.iter().find(|c| c.commit == range.tip)?;
    for _ in 0..=range.commits.len() {
        let parent = cur.parents.first()?;
        match range.commits.iter().find(|c| c.commit == *parent) {
            Some(c) => cur = c,
            None => return Some(parent),
        }
    }
    None
}

/// The commits of a delivered range to judge one by one, oldest first, or
/// the boundary denial when the range cannot be a stack of deliveries: a
/// rewind, not a commit, no commit, more than [`MAX_RANGE_COMMITS`], or a
/// merge commit anywhere (D-R25).
pub fn delivery_commits(
    gate: Gate,
    range: &DeliveredRange,
) -> Result<Vec<&RangeCommit>, GateDecision> {
    let refs = range.refs.join(", ");
    let (reason_code, next_action, message) = match range_shape(range) {
        RangeShape::NotFastForward(_) | RangeShape::NotCommit | RangeShape::Empty => {
            return delivery_commit(gate, range).map(|c| vec![c]);
        }
        _ => match stack_order(&range.tip, &range.commits, range.count) {
            Ok(stack) => return Ok(stack),
            Err(StackError::Empty) => return delivery_commit(gate, range).map(|c| vec![c]),
            Err(StackError::TooLarge { count, limit }) => (
                ReasonCode::DeliveryTooLarge,
                NextAction::CheckRange,
                format!(
                    "{refs} delivers {count} commits, more than the {limit} a gate judges one by one: push the stack in parts, older commits first (a commit {limit} or fewer commits above what the remote holds, then the next part), or squash it"
                ),
            ),
            Err(StackError::Merge { commit, parents }) => {
                let rebase = match first_parent_base(range) {
                    Some(base) => format!(
                        "rebase the branch onto what the remote holds (`git rebase {base}`), then review what is unreviewed (`probity start --range {base}..HEAD`)"
                    ),
                    None => "rebase the branch onto what the remote holds, or squash it into one commit, then review what is unreviewed (the next push names each `probity start --commit`)".to_string(),
                };
                (
                    ReasonCode::DeliveryPartial,
                    NextAction::Squash,
                    format!(
                        "{refs} delivers the merge commit {commit} ({parents} parents); a review binds commits with one parent: {rebase}"
                    ),
                )
            }
            Err(e @ StackError::NotLinear { .. }) => (
                ReasonCode::DeliveryPartial,
                NextAction::Squash,
                format!(
                    "{refs}: {e}; rebase or squash the branch into a chain of one-parent commits"
                ),
            ),
        },
    };
    Err(GateDecision::boundary(
        gate,
        reason_code,
        next_action,
        message,
    ))
}

/// How one commit of a stack was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitReport {
    pub commit: CommitId,
    pub decision: Decision,
    pub reason_code: ReasonCode,
    pub lineage_id: Option<LineageId>,
}

/// A delivered range's decision and, for a stack of several commits, how
/// each commit was judged (oldest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeJudgment {
    pub decision: GateDecision,
    pub stack: Vec<CommitReport>,
}

impl RangeJudgment {
    /// A range denied at the boundary, before any commit was judged.
    pub fn boundary(decision: GateDecision) -> Self {
        Self {
            decision,
            stack: Vec::new(),
        }
    }
}

/// Whether a denial means "this committed change was never reviewed": the
/// work is done and committed, so the next step is a review of the commit
/// as committed (never a `probity start` of a clean worktree).
fn needs_commit_review(d: &GateDecision) -> bool {
    d.decision == Decision::Deny
        && matches!(
            d.reason_code,
            ReasonCode::ReceiptMissing
                | ReasonCode::ReceiptScopeChanged
                | ReasonCode::ReceiptUnrelated
        )
}

/// The command that reviews the unreviewed commits of a stack (oldest
/// first): `--commit` for one, `--range <parent of the oldest>..<newest>`
/// for several (commits in between that are reviewed are resumed, not
/// reviewed again).
fn commit_review_command(unreviewed: &[&RangeCommit]) -> String {
    match unreviewed {
        [] => "probity start --commit <sha>".into(),
        [one] => format!("probity start --commit {}", one.commit),
        [oldest, .., newest] => match oldest.parents.first() {
            Some(p) => format!("probity start --range {p}..{}", newest.commit),
            // A root commit has no parent to name as the range's base.
            None => format!(
                "probity start --commit {} && probity start --range {}..{}",
                oldest.commit, oldest.commit, newest.commit
            ),
        },
    }
}

/// Combines the per-commit decisions of one delivered range, oldest first
/// (R8.3, D-R25): the range is allowed only when every commit is (an
/// approved review binds its (parent tree, tree), or it changes no bytes);
/// otherwise the first failing commit answers, named. A denial for
/// committed, unreviewed work names the command that reviews it as
/// committed (`probity start --commit <sha>`, or `--range` for several).
/// A one-commit range answers exactly as that commit's decision (only its
/// next step changes).
pub fn judge_stack(
    gate: Gate,
    range: &DeliveredRange,
    judged: Vec<(&RangeCommit, GateDecision)>,
) -> RangeJudgment {
    let n = judged.len();
    let refs = range.refs.join(", ");
    let stack: Vec<CommitReport> = if n > 1 {
        judged
            .iter()
            .map(|(c, d)| CommitReport {
                commit: c.commit.clone(),
                decision: d.decision,
                reason_code: d.reason_code,
                lineage_id: d.lineage_id.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let unreviewed: Vec<&RangeCommit> = judged
        .iter()
        .filter(|(_, d)| needs_commit_review(d))
        .map(|(c, _)| *c)
        .collect();
    let mut judged = judged;
    let Some(pos) = judged
        .iter()
        .position(|(_, d)| d.decision == Decision::Deny)
    else {
        let decision = match judged.pop() {
            Some((_, only)) if n == 1 => only,
            _ => {
                let approved = stack
                    .iter()
                    .filter(|r| r.reason_code != ReasonCode::NoChange)
                    .count();
                GateDecision {
                    gate,
                    decision: Decision::Allow,
                    reason_code: if approved == 0 {
                        ReasonCode::NoChange
                    } else {
                        ReasonCode::ReceiptValid
                    },
                    stage: GateStage::Complete,
                    lineage_id: None,
                    differing_paths: Vec::new(),
                    next_action: NextAction::None,
                    message: format!(
                        "each of the {n} commits {refs} delivers is a reviewed delivery ({approved} bound by an approved review, {} changing no bytes)",
                        n - approved
                    ),
                    deliveries: Vec::new(),
                    proof: None,
                }
            }
        };
        return RangeJudgment { decision, stack };
    };
    // `pos` is an index `position` found: in bounds.
    let (commit, mut denial) = judged.swap_remove(pos);
    let place = if n > 1 {
        format!("commit {} ({} of {n}) of {refs}", commit.commit, pos + 1)
    } else {
        format!("commit {} of {refs}", commit.commit)
    };
    if needs_commit_review(&denial) && gate != Gate::PreCommit {
        let command = commit_review_command(&unreviewed);
        let why = match (denial.reason_code, &denial.lineage_id) {
            (ReasonCode::ReceiptScopeChanged, Some(l)) => {
                format!("it changes paths {l} reviewed differently than approved")
            }
            (ReasonCode::ReceiptUnrelated, Some(l)) => {
                format!("it holds work {l} did not review")
            }
            _ => "no review covers its (parent tree, tree)".to_string(),
        };
        let others = if unreviewed.len() > 1 {
            format!(
                " ({} commits of the range are unreviewed)",
                unreviewed.len()
            )
        } else {
            String::new()
        };
        denial.next_action = NextAction::StartCommitReview;
        denial.message = format!(
            "{place} is not a reviewed delivery: {why}{others}; review it as committed with `{command}`, run the selected lenses and `probity finalize`, then push again"
        );
    } else if n > 1 {
        denial.message = format!("{place}: {}", denial.message);
    }
    RangeJudgment {
        decision: denial,
        stack,
    }
}

#[cfg(test)]
mod push_tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const T: &str = "3333333333333333333333333333333333333333";
    const Z: &str = "0000000000000000000000000000000000000000";

    fn c(s: &str) -> CommitId {
        CommitId::parse(s).unwrap()
    }

    fn commit(id: &str, parents: &[&str]) -> RangeCommit {
        RangeCommit {
            commit: c(id),
            tree: TreeId::parse(T).unwrap(),
            parents: parents.iter().map(|p| c(p)).collect(),
        }
    }

    fn range(r: &str, tip: &str, commits: Vec<RangeCommit>) -> DeliveredRange {
        DeliveredRange {
            refs: vec![r.to_string()],
            tip: c(tip),
            count: commits.len(),
            commits,
            problem: None,
        }
    }

    #[test]
    fn push_lines_parse_with_zeros_as_absent_and_blank_lines_ignored() {
        let input = format!(
            "refs/heads/main {A} refs/heads/main {B}\n\n(delete) {Z} refs/heads/old {A}\r\nrefs/heads/new {B} refs/heads/new {Z}\n"
        );
        let u = parse_push_updates(&input).unwrap();
        assert_eq!(u.len(), 3);
        assert_eq!(u[0].local_oid, Some(c(A)));
        assert_eq!(u[0].remote_oid, Some(c(B)));
        assert_eq!(u[1].local_ref, "(delete)");
        assert_eq!(u[1].local_oid, None);
        assert_eq!(u[2].remote_oid, None);
        assert_eq!(parse_push_updates("\n").unwrap(), vec![]);
    }

    #[test]
    fn a_local_ref_may_hold_spaces() {
        let u =
            parse_push_updates(&format!("HEAD^{{/fix the bug}} {A} refs/heads/x {Z}\n")).unwrap();
        assert_eq!(u[0].local_ref, "HEAD^{/fix the bug}");
        assert_eq!(u[0].remote_ref, "refs/heads/x");
    }

    #[test]
    fn malformed_push_lines_are_typed_errors() {
        assert_eq!(
            parse_push_updates(&format!("refs/heads/main {A} refs/heads/main\n")),
            Err(PushInputError::Fields { line: 1, fields: 3 })
        );
        assert_eq!(
            parse_push_updates(&format!(
                "\nrefs/heads/main --upload-pack=x refs/heads/main {B}"
            )),
            Err(PushInputError::ObjectId {
                line: 2,
                value: "--upload-pack=x".into()
            })
        );
        // Only a whole all-zero id of either hash means "absent".
        assert!(matches!(
            parse_push_updates("a 0 b 0\n"),
            Err(PushInputError::ObjectId { line: 1, .. })
        ));
        // Upper-case hex is not what git writes.
        assert!(
            parse_push_updates(&format!("a {} b {B}", A.to_uppercase().replace('1', "A"))).is_err()
        );
    }

    #[test]
    fn range_shapes() {
        let shape = |commits: Vec<RangeCommit>| {
            let r = range("r", A, commits);
            match range_shape(&r) {
                RangeShape::Empty => "empty".to_string(),
                RangeShape::One(c) => format!("one {} {}", c.commit, c.parents.len()),
                RangeShape::Several(n) => format!("several {n}"),
                RangeShape::Merge(c) => format!("merge {}", c.parents.len()),
                RangeShape::NotFastForward(old) => format!("rewind of {old}"),
                RangeShape::NotCommit => "not a commit".into(),
            }
        };
        assert_eq!(shape(vec![]), "empty");
        assert_eq!(shape(vec![commit(A, &[B])]), format!("one {A} 1"));
        assert_eq!(shape(vec![commit(A, &[])]), format!("one {A} 0"));
        assert_eq!(shape(vec![commit(A, &[B, B])]), "merge 2");
        assert_eq!(shape(vec![commit(A, &[B]), commit(B, &[])]), "several 2");
        // Only the first commits are listed; the count decides.
        let mut long = range("r", A, vec![commit(A, &[B]), commit(B, &[])]);
        long.count = 40;
        assert_eq!(range_shape(&long), RangeShape::Several(40));
    }

    #[test]
    fn empty_several_and_merge_ranges_deny_at_the_boundary() {
        for (commits, code, next) in [
            (vec![], ReasonCode::DeliveryEmpty, NextAction::CheckRange),
            (
                vec![commit(A, &[B]), commit(B, &[])],
                ReasonCode::DeliveryPartial,
                NextAction::Squash,
            ),
            (
                vec![commit(A, &[B, B])],
                ReasonCode::DeliveryPartial,
                NextAction::Squash,
            ),
        ] {
            let d = delivery_commit(Gate::PrePush, &range("refs/heads/x", A, commits)).unwrap_err();
            assert_eq!(d.decision, Decision::Deny);
            assert_eq!(d.reason_code, code);
            assert_eq!(d.next_action, next);
            assert_eq!(d.stage, GateStage::Boundary);
            assert!(d.message.contains("refs/heads/x"), "{}", d.message);
        }
        let r = range("r", A, vec![commit(A, &[B])]);
        assert_eq!(
            delivery_commit(Gate::PrePush, &r).map(|c| &c.commit),
            Ok(&c(A))
        );
    }

    #[test]
    fn rewinds_and_non_commits_deny_whatever_their_commits() {
        let mut forced = range("refs/heads/main", A, vec![commit(A, &[B])]);
        forced.problem = Some(RangeProblem::NotFastForward { old: c(B) });
        let d = delivery_commit(Gate::PrePush, &forced).unwrap_err();
        assert_eq!(d.reason_code, ReasonCode::DeliveryNotFastForward);
        assert!(d.message.contains(B), "{}", d.message);
        let mut tree = range("refs/tags/t", A, vec![]);
        tree.problem = Some(RangeProblem::NotCommit);
        let d = delivery_commit(Gate::PrePush, &tree).unwrap_err();
        assert_eq!(d.reason_code, ReasonCode::DeliveryNotCommit);
        // A rewind is not merged with a clean delivery of the same tip.
        let clean = range("refs/heads/feature", A, vec![commit(A, &[B])]);
        assert_eq!(dedupe_ranges(vec![forced, clean]).len(), 2);
    }

    #[test]
    fn one_delivery_through_several_refs_is_judged_once() {
        let r = dedupe_ranges(vec![
            range("refs/heads/main", A, vec![commit(A, &[B])]),
            range("refs/heads/feature", A, vec![commit(A, &[B])]),
            range("refs/heads/main", A, vec![commit(A, &[B])]),
            range("refs/heads/other", B, vec![commit(B, &[])]),
        ]);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].refs, vec!["refs/heads/main", "refs/heads/feature"]);
        assert_eq!(r[1].refs, vec!["refs/heads/other"]);
    }

    fn allow(lineage: &str) -> GateDecision {
        GateDecision {
            gate: Gate::PrePush,
            decision: Decision::Allow,
            reason_code: ReasonCode::ReceiptValid,
            stage: GateStage::Complete,
            lineage_id: Some(LineageId::parse(lineage).unwrap()),
            differing_paths: vec![],
            next_action: NextAction::None,
            message: String::new(),
            deliveries: vec![],
            proof: None,
        }
    }

    #[test]
    fn a_push_allows_only_when_every_range_allows() {
        assert_eq!(
            combine_deliveries(Gate::PrePush, vec![]).reason_code,
            ReasonCode::NothingDelivered
        );
        let ok = combine_deliveries(
            Gate::PrePush,
            vec![(
                range("refs/heads/a", A, vec![commit(A, &[B])]),
                allow("review-0123456789abcdef"),
            )],
        );
        assert_eq!(ok.decision, Decision::Allow);
        assert_eq!(
            ok.lineage_id.as_ref().map(|l| l.as_str()),
            Some("review-0123456789abcdef")
        );
        assert_eq!(ok.deliveries.len(), 1);

        let empty = range("refs/heads/b", B, vec![]);
        let denial = delivery_commit(Gate::PrePush, &empty).unwrap_err();
        let both = combine_deliveries(
            Gate::PrePush,
            vec![
                (
                    range("refs/heads/a", A, vec![commit(A, &[B])]),
                    allow("review-0123456789abcdef"),
                ),
                (empty, denial),
            ],
        );
        assert_eq!(both.decision, Decision::Deny);
        assert_eq!(both.reason_code, ReasonCode::DeliveryEmpty);
        assert_eq!(both.deliveries.len(), 2);
        assert_eq!(both.deliveries[0].decision, Decision::Allow);
        assert_eq!(both.deliveries[1].decision, Decision::Deny);
    }

    // -- stacks (D-R25) and no-change deliveries (D-R26) --

    const C1: &str = "4444444444444444444444444444444444444444";
    const C2: &str = "5555555555555555555555555555555555555555";
    const C3: &str = "6666666666666666666666666666666666666666";
    const T1: &str = "7777777777777777777777777777777777777777";
    const T2: &str = "8888888888888888888888888888888888888888";

    /// A three-commit stack on B, newest first as git lists it.
    fn stack3() -> DeliveredRange {
        range(
            "refs/heads/main",
            C3,
            vec![commit(C3, &[C2]), commit(C2, &[C1]), commit(C1, &[B])],
        )
    }

    fn judged(lineage: Option<&str>, code: ReasonCode) -> GateDecision {
        let mut d = allow(lineage.unwrap_or("review-0123456789abcdef"));
        d.lineage_id = lineage.map(|l| LineageId::parse(l).unwrap());
        d.reason_code = code;
        if !matches!(code, ReasonCode::ReceiptValid | ReasonCode::NoChange) {
            d.decision = Decision::Deny;
            d.next_action = NextAction::StartReview;
            d.message = "run `probity start`".into();
        }
        d
    }

    #[test]
    fn a_stack_is_ordered_oldest_first_along_its_parents() {
        let r = stack3();
        let order: Vec<&str> = stack_order(&r.tip, &r.commits, r.count)
            .unwrap()
            .iter()
            .map(|c| c.commit.as_str())
            .collect();
        assert_eq!(order, [C1, C2, C3]);
        // Whatever order git listed them in.
        let mut shuffled = r.commits.clone();
        shuffled.rotate_left(1);
        let order: Vec<&str> = stack_order(&r.tip, &shuffled, 3)
            .unwrap()
            .iter()
            .map(|c| c.commit.as_str())
            .collect();
        assert_eq!(order, [C1, C2, C3]);
        // A root commit at the bottom is a stack too.
        let rooted = vec![commit(C2, &[C1]), commit(C1, &[])];
        assert_eq!(stack_order(&c(C2), &rooted, 2).unwrap().len(), 2);
    }

    #[test]
    fn merges_gaps_and_oversized_ranges_are_no_stack() {
        let merge = vec![commit(C3, &[C2]), commit(C2, &[C1, B])];
        assert_eq!(
            stack_order(&c(C3), &merge, 2),
            Err(StackError::Merge {
                commit: c(C2),
                parents: 2
            })
        );
        // A commit that is not on the chain from the tip.
        let gap = vec![commit(C3, &[C2]), commit(C1, &[B])];
        assert!(matches!(
            stack_order(&c(C3), &gap, 2),
            Err(StackError::NotLinear { chained: 1, .. })
        ));
        // Fewer listed than counted.
        assert!(matches!(
            stack_order(&c(C3), &[commit(C3, &[C2])], 2),
            Err(StackError::NotLinear { .. })
        ));
        assert_eq!(stack_order(&c(C3), &[], 0), Err(StackError::Empty));
        assert_eq!(
            stack_order(&c(C3), &[commit(C3, &[C2])], MAX_RANGE_COMMITS + 1),
            Err(StackError::TooLarge {
                count: MAX_RANGE_COMMITS + 1,
                limit: MAX_RANGE_COMMITS
            })
        );
    }

    #[test]
    fn delivery_commits_deny_merges_and_oversized_ranges_at_the_boundary() {
        let mut long = stack3();
        long.count = MAX_RANGE_COMMITS + 1;
        let d = delivery_commits(Gate::PrePush, &long).unwrap_err();
        assert_eq!(d.reason_code, ReasonCode::DeliveryTooLarge);
        assert_eq!(d.stage, GateStage::Boundary);
        assert!(d.message.contains("1001 commits"), "{}", d.message);

        let merge = range(
            "refs/heads/main",
            C3,
            vec![commit(C3, &[C2]), commit(C2, &[C1, B])],
        );
        let d = delivery_commits(Gate::PrePush, &merge).unwrap_err();
        assert_eq!(d.reason_code, ReasonCode::DeliveryPartial);
        assert_eq!(d.next_action, NextAction::Squash);
        assert!(d.message.contains(C2), "{}", d.message);
        assert!(d.message.contains("git rebase"), "{}", d.message);

        // The single-commit shapes answer as before.
        let empty = delivery_commits(Gate::PrePush, &range("r", A, vec![])).unwrap_err();
        assert_eq!(empty.reason_code, ReasonCode::DeliveryEmpty);
        assert_eq!(delivery_commits(Gate::PrePush, &stack3()).unwrap().len(), 3);
    }

    #[test]
    fn a_stack_allows_only_when_every_commit_does() {
        let r = stack3();
        let commits = delivery_commits(Gate::PrePush, &r).unwrap();
        let all = judge_stack(
            Gate::PrePush,
            &r,
            vec![
                (
                    commits[0],
                    judged(Some("review-0000000000000001"), ReasonCode::ReceiptValid),
                ),
                (commits[1], judged(None, ReasonCode::NoChange)),
                (
                    commits[2],
                    judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
                ),
            ],
        );
        assert_eq!(all.decision.decision, Decision::Allow);
        assert_eq!(all.decision.reason_code, ReasonCode::ReceiptValid);
        assert_eq!(all.stack.len(), 3);
        assert_eq!(all.stack[1].reason_code, ReasonCode::NoChange);
        assert!(all.decision.message.contains("1 changing no bytes"));

        // The first failing commit answers, named, with the command that
        // reviews it as committed.
        let one = judge_stack(
            Gate::PrePush,
            &r,
            vec![
                (
                    commits[0],
                    judged(Some("review-0000000000000001"), ReasonCode::ReceiptValid),
                ),
                (commits[1], judged(None, ReasonCode::ReceiptMissing)),
                (
                    commits[2],
                    judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
                ),
            ],
        );
        let d = &one.decision;
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
        assert_eq!(d.next_action, NextAction::StartCommitReview);
        assert!(
            d.message.contains(&format!("commit {C2} (2 of 3)")),
            "{}",
            d.message
        );
        assert!(
            d.message.contains(&format!("probity start --commit {C2}")),
            "{}",
            d.message
        );
        assert!(!d.message.contains("run `probity start`"), "{}", d.message);

        // Several unreviewed commits: one `--range` from the oldest's parent.
        let many = judge_stack(
            Gate::PrePush,
            &r,
            vec![
                (commits[0], judged(None, ReasonCode::ReceiptMissing)),
                (
                    commits[1],
                    judged(
                        Some("review-0000000000000002"),
                        ReasonCode::ReceiptScopeChanged,
                    ),
                ),
                (
                    commits[2],
                    judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
                ),
            ],
        );
        assert!(
            many.decision
                .message
                .contains(&format!("probity start --range {B}..{C2}")),
            "{}",
            many.decision.message
        );

        // A denial that is not about missing review keeps its own advice.
        let mut incomplete = judged(
            Some("review-0000000000000002"),
            ReasonCode::ReviewIncomplete,
        );
        incomplete.next_action = NextAction::Finalize;
        let waiting = judge_stack(
            Gate::PrePush,
            &r,
            vec![
                (
                    commits[0],
                    judged(Some("review-0000000000000001"), ReasonCode::ReceiptValid),
                ),
                (commits[1], incomplete),
                (
                    commits[2],
                    judged(Some("review-0000000000000003"), ReasonCode::ReceiptValid),
                ),
            ],
        );
        assert_eq!(waiting.decision.next_action, NextAction::Finalize);
        assert!(
            waiting
                .decision
                .message
                .starts_with(&format!("commit {C2} (2 of 3)"))
        );
    }

    #[test]
    fn a_one_commit_range_answers_as_its_commit_with_a_commit_review_next() {
        let r = range("refs/heads/x", A, vec![commit(A, &[B])]);
        let ok = allow("review-0123456789abcdef");
        let j = judge_stack(Gate::PrePush, &r, vec![(&r.commits[0], ok.clone())]);
        assert_eq!(j.decision, ok);
        assert!(j.stack.is_empty(), "a one-commit range reports no stack");
        // At pre-commit nothing is committed yet: the advice stays start.
        let missing = judged(None, ReasonCode::ReceiptMissing);
        let pre_commit = judge_stack(Gate::PreCommit, &r, vec![(&r.commits[0], missing.clone())]);
        assert_eq!(pre_commit.decision.next_action, NextAction::StartReview);
        let root = range("refs/heads/x", A, vec![commit(A, &[])]);
        let j = judge_stack(Gate::Release, &root, vec![(&root.commits[0], missing)]);
        assert_eq!(j.decision.next_action, NextAction::StartCommitReview);
        assert!(
            j.decision
                .message
                .contains(&format!("probity start --commit {A}"))
        );
    }

    #[test]
    fn a_tree_equal_to_its_base_is_no_change_at_every_gate() {
        let t = TreeId::parse(T1).unwrap();
        let same = LiveTarget::new(t.clone(), t.clone());
        for gate in [Gate::PreCommit, Gate::PrePush, Gate::PrePr, Gate::Release] {
            let d = decide_target(gate, &same, Authority::None { changed_paths: &[] });
            assert_eq!(d.decision, Decision::Allow);
            assert_eq!(d.reason_code, ReasonCode::NoChange);
            assert_eq!(d.next_action, NextAction::None);
            assert_eq!(d.stage, GateStage::Complete);
        }
        let other = LiveTarget::new(t, TreeId::parse(T2).unwrap());
        assert!(no_change(Gate::PrePush, &other).is_none());
        let d = decide_target(
            Gate::PreCommit,
            &other,
            Authority::None { changed_paths: &[] },
        );
        assert_eq!(d.reason_code, ReasonCode::ReceiptMissing);
    }

    #[test]
    fn ranges_that_change_nothing_combine_to_no_change() {
        let r = range("refs/heads/a", A, vec![commit(A, &[B])]);
        let nothing = no_change(
            Gate::PrePush,
            &LiveTarget::new(TreeId::parse(T1).unwrap(), TreeId::parse(T1).unwrap()),
        )
        .unwrap();
        let d = combine_deliveries(Gate::PrePush, vec![(r.clone(), nothing.clone())]);
        assert_eq!(d.reason_code, ReasonCode::NoChange);
        let mut other = r;
        other.refs = vec!["refs/heads/b".into()];
        other.tip = c(B);
        let both = combine_deliveries(
            Gate::PrePush,
            vec![
                (other.clone(), nothing),
                (other, allow("review-0123456789abcdef")),
            ],
        );
        assert_eq!(both.reason_code, ReasonCode::ReceiptValid);
    }
}

#[cfg(test)]
mod discovery_tests {
    use super::*;
    use crate::review::fixtures;
    use crate::review::lens::Lens;
    use crate::review::rebase::ProofKind;

    const OTHER: &str = "9999999999999999999999999999999999999999";
    const NEW: &str = "8888888888888888888888888888888888888888";

    fn approved() -> ReviewState {
        fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
            .unwrap()
            .accept_results(vec![fixtures::clean_result()], &Default::default())
            .unwrap()
            .accept_evidence(b"cargo test: ok\n")
            .unwrap()
    }

    fn t(s: &str) -> TreeId {
        TreeId::parse(s).unwrap()
    }

    fn receipt(s: &ReviewState) -> Vec<u8> {
        Receipt::derive(s).unwrap().to_bytes().unwrap()
    }

    #[test]
    fn a_proven_rebase_allows_and_names_its_proof() {
        let s = approved();
        let file = receipt(&s);
        let live = LiveTarget::new(t(OTHER), t(NEW));
        let proof = GateProof {
            kind: ProofKind::RebasedOnto,
            receipt_base: s.snapshot.base_tree.clone(),
            live_base: t(OTHER),
        };
        let check = RebaseCheck::Proven(proof.clone());
        let d = decide_target(
            Gate::PrePush,
            &live,
            Authority::Rebased {
                state: &s,
                receipt_file: Some(&file),
                superseded_by: None,
                check: &check,
            },
        );
        assert_eq!(d.decision, Decision::Allow);
        assert_eq!(d.reason_code, ReasonCode::ReceiptValid);
        assert_eq!(d.proof, Some(Box::new(proof.clone())));
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["proof"]["kind"], "rebased_onto");
        // The receipt file must still match what the state derives.
        let d = decide_target(
            Gate::PreCommit,
            &live,
            Authority::Rebased {
                state: &s,
                receipt_file: Some(b"{}\n"),
                superseded_by: None,
                check: &check,
            },
        );
        assert_eq!(d.reason_code, ReasonCode::ReceiptMismatch);
        assert_eq!(d.proof, None);
        // A superseded lineage is history, proof or not.
        let leaf = LineageId::parse("review-00000000000000aa").unwrap();
        let d = decide_target(
            Gate::PreCommit,
            &live,
            Authority::Rebased {
                state: &s,
                receipt_file: Some(&file),
                superseded_by: Some(&leaf),
                check: &check,
            },
        );
        assert_eq!(d.reason_code, ReasonCode::ReceiptSuperseded);
        // An allow without a proof serializes no proof field (golden bytes).
        let exact = decide_target(
            Gate::PreCommit,
            &LiveTarget::new(
                s.snapshot.base_tree.clone(),
                s.snapshot.candidate_tree.clone(),
            ),
            Authority::Exact {
                state: &s,
                receipt_file: Some(&file),
                superseded_by: None,
            },
        );
        assert_eq!(exact.decision, Decision::Allow);
        assert!(serde_json::to_value(&exact).unwrap().get("proof").is_none());
    }

    #[test]
    fn a_push_carries_the_proof_of_its_range() {
        let s = approved();
        let file = receipt(&s);
        let check = RebaseCheck::Proven(GateProof {
            kind: ProofKind::RebasedOnto,
            receipt_base: s.snapshot.base_tree.clone(),
            live_base: t(OTHER),
        });
        let d = decide_target(
            Gate::PrePush,
            &LiveTarget::new(t(OTHER), t(NEW)),
            Authority::Rebased {
                state: &s,
                receipt_file: Some(&file),
                superseded_by: None,
                check: &check,
            },
        );
        let c = CommitId::parse("4444444444444444444444444444444444444444").unwrap();
        let range = DeliveredRange {
            refs: vec!["refs/heads/main".into()],
            tip: c.clone(),
            commits: vec![RangeCommit {
                commit: c,
                tree: t(NEW),
                parents: vec![CommitId::parse(OTHER).unwrap()],
            }],
            count: 1,
            problem: None,
        };
        let all = combine_deliveries(Gate::PrePush, vec![(range, d.clone())]);
        assert_eq!(all.decision, Decision::Allow);
        assert_eq!(all.proof, d.proof);
        assert_eq!(all.deliveries[0].proof, d.proof);
        assert!(
            all.message.starts_with("refs/heads/main: "),
            "{}",
            all.message
        );
        assert!(all.message.contains("was not reviewed"), "{}", all.message);
    }

    #[test]
    fn a_failed_rebase_proof_denies_with_the_paths_that_differ() {
        let s = approved();
        let file = receipt(&s);
        let paths = vec![RepoPath::parse("src/parser.rs").unwrap()];
        let check = RebaseCheck::Differs(paths.clone());
        let d = decide_target(
            Gate::PreCommit,
            &LiveTarget::new(t(OTHER), t(NEW)),
            Authority::Rebased {
                state: &s,
                receipt_file: Some(&file),
                superseded_by: None,
                check: &check,
            },
        );
        assert_eq!(d.decision, Decision::Deny);
        assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
        assert_eq!(d.differing_paths, paths);
        assert_eq!(d.next_action, NextAction::StartReview);
        assert!(d.message.contains(OTHER), "{}", d.message);
    }

    #[test]
    fn the_next_slice_is_classified_against_the_committed_lineage() {
        let s = approved();
        let reviewed = s.snapshot.paths.clone();
        let unrelated = vec![RepoPath::parse("docs/notes.md").unwrap()];
        // Committed: the live base is the approved final candidate.
        let committed = LiveTarget::new(s.final_candidate_tree().clone(), t(NEW));
        // Not committed: the live base is the reviewed base.
        let pending = LiveTarget::new(s.snapshot.base_tree.clone(), t(NEW));
        let decide = |live: &LiveTarget, differing: &[RepoPath]| {
            decide_target(
                Gate::PreCommit,
                live,
                Authority::Prior {
                    state: &s,
                    differing_paths: differing,
                    superseded_by: None,
                },
            )
        };
        let d = decide(&committed, &unrelated);
        assert_eq!(d.reason_code, ReasonCode::ReceiptUnrelated);
        assert_eq!(d.next_action, NextAction::StartReview);
        assert!(d.message.contains("committed slice"), "{}", d.message);
        let d = decide(&committed, &reviewed);
        assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
        assert_eq!(d.next_action, NextAction::StartReview);
        let d = decide(&pending, &unrelated);
        assert_eq!(d.reason_code, ReasonCode::ReceiptUnrelated);
        assert_eq!(d.next_action, NextAction::CommitApproved);
        let add = format!(
            "git add -- {} && git commit",
            reviewed
                .iter()
                .map(RepoPath::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert!(d.message.contains(&add), "{}", d.message);
        let d = decide(&pending, &reviewed);
        assert_eq!(d.reason_code, ReasonCode::ReceiptScopeChanged);
    }

    #[test]
    fn the_commit_command_quotes_paths() {
        let mut s = approved();
        s.snapshot.paths = vec![
            RepoPath::parse("a b.rs").unwrap(),
            RepoPath::parse("src/x.rs").unwrap(),
        ];
        assert_eq!(
            commit_slice_command(&s),
            "git add -- 'a b.rs' src/x.rs && git commit"
        );
    }
}
