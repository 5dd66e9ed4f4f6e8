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
    let deny = |reason_code,
                stage,
                lineage: Option<&LineageId>,
                differing: Vec<RepoPath>,
                next,
                message: String| {
        GateDecision {
            gate,
            decision: Decision::Deny,
            reason_code,
            stage,
            lineage_id: lineage.cloned(),
            differing_paths: differing,
            next_action: next,
            message,
            deliveries: Vec::new(),
            proof: None,
        }
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
                "{} is superseded (its recovery chain ends at {leaf}): history, not authority; to review this candidate, recover from {leaf} (`probity status --lineage {leaf}`)",
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
                    format!(
                        "review {} escalated: a human decision is needed; this build records none, so revise the candidate and start a new review",
                        state.lineage_id
                    ),
                ),
                Stage::Invalidated { reason } => deny(
                    ReasonCode::ReviewInvalidated,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::Recover,
                    format!(
                        "review {} of this candidate was invalidated ({reason}): start its successor with `probity recover --predecessor-lineage {}`",
                        state.lineage_id, state.lineage_id
                    ),
                ),
                Stage::Reviewing { .. } | Stage::CorrectionRequired { .. } | Stage::Validating { .. } => deny(
                    ReasonCode::ReviewIncomplete,
                    GateStage::Authority,
                    lineage,
                    Vec::new(),
                    NextAction::Finalize,
                    format!(
                        "review {} of this candidate is `{}`: finish it with `probity finalize`",
                        state.lineage_id,
                        state.stage.name()
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
        "the receipt file of {} is missing or differs from the receipt its state derives; the state wins, so re-run `probity finalize` to rewrite it",
        state.lineage_id
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
                "{refs} would move from {old} to {} without fast-forwarding it (a forced push, a rewind, or a remote tip this clone has not fetched): what it drops or replaces was never reviewed; fetch, put the reviewed commit on the remote's tip, and review that",
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
    Err(GateDecision {
        gate,
        decision: Decision::Deny,
        reason_code,
        stage: GateStage::Boundary,
        lineage_id: None,
        differing_paths: Vec::new(),
        next_action,
        message,
        deliveries: Vec::new(),
        proof: None,
    })
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
    /// The rebase proof that carried this range's allow, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Box<GateProof>>,
}

/// Combines the per-range decisions of one push: allow only when every
/// range allows; otherwise the first denial (in input order) answers, with
/// every range reported. A push that only deletes refs delivers nothing and
/// is allowed.
pub fn combine_deliveries(gate: Gate, judged: Vec<(DeliveredRange, GateDecision)>) -> GateDecision {
    let deliveries: Vec<DeliveryReport> = judged
        .iter()
        .map(|(r, d)| DeliveryReport {
            refs: r.refs.clone(),
            tip: r.tip.clone(),
            commits: r.count,
            decision: d.decision,
            reason_code: d.reason_code,
            lineage_id: d.lineage_id.clone(),
            proof: d.proof.clone(),
        })
        .collect();
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
    let message = match &judged[..] {
        [(r, only)] => format!(
            "{} delivers exactly the candidate {} approved",
            r.refs.join(", "),
            only.lineage_id
                .as_ref()
                .map_or_else(|| "a review".to_string(), ToString::to_string)
        ),
        many => format!(
            "each of the {} delivered ranges is exactly one commit an approved review covers",
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
        reason_code: ReasonCode::ReceiptValid,
        stage: GateStage::Complete,
        lineage_id,
        differing_paths: Vec::new(),
        next_action: NextAction::None,
        message,
        deliveries,
        proof,
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
