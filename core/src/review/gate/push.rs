//! Publication (R8.3): what a pre-push hook's lines, a range or a release
//! revision deliver, the shape of a delivered range, and the combined
//! answer of a push.

use serde::Serialize;

use crate::review::ids::{CommitId, LineageId, TreeId};

use super::sentences::{PushSaid, allow, deny};
use super::*;

/// One line git gives a pre-push hook on stdin:
/// `<local ref> <local oid> <remote ref> <remote oid>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    /// The source of the refspec as written (`HEAD`, `refs/heads/x`); may
    /// hold spaces.
    pub local_ref: String,
    /// `None` when the push deletes the remote ref (git writes zeros).
    pub local_oid: Option<CommitId>,
    /// The destination ref on the remote, e.g. `refs/heads/main`.
    pub remote_ref: String,
    /// `None` when the remote ref does not exist yet (git writes zeros).
    pub remote_oid: Option<CommitId>,
}

/// A malformed pre-push input line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushInputError {
    /// A non-blank line with fewer than four space-separated fields, or an
    /// empty local or remote ref.
    #[error(
        "line {line} of the pre-push input has {fields} fields; git writes `<local ref> <local oid> <remote ref> <remote oid>`"
    )]
    Fields {
        /// The line's 1-based number.
        line: usize,
        /// How many fields it has (3 when a ref is empty).
        fields: usize,
    },
    /// An oid field that is neither all zeros nor a 40- or 64-hex object
    /// id.
    #[error("line {line} of the pre-push input: `{value}` is not an object id")]
    ObjectId {
        /// The line's 1-based number.
        line: usize,
        /// The refused field.
        value: String,
    },
}

/// An object id field of a hook's input line: `None` for git's all-zero
/// id of the repository's hash ("absent"); `Err` for anything that is not
/// an object id. The one reader of git's hook lines (pre-push here,
/// pre-receive in `server`).
pub(crate) fn hook_oid(value: &str) -> Result<Option<CommitId>, ()> {
    if matches!(value.len(), 40 | 64) && value.bytes().all(|b| b == b'0') {
        return Ok(None);
    }
    CommitId::parse(value).map(Some).map_err(|_| ())
}

/// The non-blank lines of a hook's input, each with its 1-based number, a
/// trailing CR dropped (a hook that forwards an empty input writes one
/// newline).
pub(crate) fn hook_lines(input: &str) -> impl Iterator<Item = (usize, &str)> {
    input.split('\n').enumerate().filter_map(|(i, raw)| {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        (!raw.trim().is_empty()).then_some((i + 1, raw))
    })
}

fn push_oid(line: usize, value: &str) -> Result<Option<CommitId>, PushInputError> {
    hook_oid(value).map_err(|()| PushInputError::ObjectId {
        line,
        value: value.to_string(),
    })
}

/// Parses git's pre-push stdin. Blank lines are ignored (a hook that
/// forwards an empty input writes one newline).
pub fn parse_push_updates(input: &str) -> Result<Vec<RefUpdate>, PushInputError> {
    let mut out = Vec::new();
    for (line, raw) in hook_lines(input) {
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
    /// The commit's object id.
    pub commit: CommitId,
    /// Its tree: what it delivers.
    pub tree: TreeId,
    /// Its parents in order: none for a root commit, two or more for a
    /// merge.
    pub parents: Vec<CommitId>,
}

/// The refs that deliver one range, and the range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveredRange {
    /// The destination refs (`refs/heads/main`, or the tip as named on the
    /// command line), in first-seen order.
    pub refs: Vec<String>,
    /// The pushed tip, peeled to a commit.
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
    NotFastForward {
        /// The remote ref's current tip.
        old: CommitId,
    },
    /// The pushed object is not a commit (a tag of a tree or a blob).
    NotCommit,
}

/// What one hook line delivers, by its shape (R8.3): the range to list is
/// decided here, the listing is the driver's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpdateShape {
    /// The pushed object is not a commit: a boundary denial.
    NotCommit,
    /// An existing remote ref the push does not fast-forward from its
    /// current tip (a forced push, a rewind), or whose tip this clone never
    /// saw (that proves nothing): a boundary denial naming `old`.
    Rewind {
        /// The remote ref's current tip, as advertised.
        old: CommitId,
    },
    /// An existing remote ref fast-forwarded: exactly the commits from its
    /// current tip `from` (as a commit here) to the pushed tip.
    FastForward {
        /// The remote ref's current tip, an ancestor of the pushed tip.
        from: CommitId,
    },
    /// A new remote ref: what the remote does not advertise now; when that
    /// is nothing (a new ref at a commit the remote holds), the ref's own
    /// commit is the delivery.
    NewRef,
}

/// The shape of a hook line: `tip` is the pushed object peeled to a commit
/// (`None`: not a commit), `old` the remote's current tip as a commit here
/// (`None`: absent or unknown), `fast_forward` whether `old` is an ancestor
/// of `tip`.
pub(crate) fn update_shape(
    update: &RefUpdate,
    tip: Option<&CommitId>,
    old: Option<&CommitId>,
    fast_forward: bool,
) -> UpdateShape {
    if tip.is_none() {
        return UpdateShape::NotCommit;
    }
    match (&update.remote_oid, old, fast_forward) {
        (None, _, _) => UpdateShape::NewRef,
        (Some(_), Some(from), true) => UpdateShape::FastForward { from: from.clone() },
        (Some(remote), _, _) => UpdateShape::Rewind {
            old: remote.clone(),
        },
    }
}

/// What a driver lists for one hook line (R8.3, issue 25 §1): decided here
/// from its shape, so the driver only lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdatePlan {
    /// No delivery whatever its commits (not a commit, a rewind): the range
    /// as judged at the boundary, nothing to list.
    Boundary(DeliveredRange),
    /// The commits from the remote ref's tip `from` to `tip`.
    FastForward {
        /// The pushed tip.
        tip: CommitId,
        /// The remote ref's current tip, an ancestor of `tip`.
        from: CommitId,
    },
    /// A new ref: what the remote does not advertise, up to `tip`.
    NewRef {
        /// The pushed tip.
        tip: CommitId,
    },
}

/// The plan of a hook line delivering to `refs`: `local` is the pushed
/// object as named (what a boundary denial names when it is no commit),
/// the rest as `update_shape` takes them. An object that is no commit
/// is a `NotCommit` boundary, a rewind a `NotFastForward` one.
pub fn plan_update(
    update: &RefUpdate,
    local: &CommitId,
    refs: Vec<String>,
    tip: Option<&CommitId>,
    old: Option<&CommitId>,
    fast_forward: bool,
) -> UpdatePlan {
    let boundary = |tip: CommitId, problem: RangeProblem| {
        UpdatePlan::Boundary(DeliveredRange {
            refs: refs.clone(),
            tip,
            commits: Vec::new(),
            count: 0,
            problem: Some(problem),
        })
    };
    let Some(tip) = tip else {
        return boundary(local.clone(), RangeProblem::NotCommit);
    };
    match update_shape(update, Some(tip), old, fast_forward) {
        UpdateShape::NotCommit => boundary(local.clone(), RangeProblem::NotCommit),
        UpdateShape::Rewind { old } => boundary(tip.clone(), RangeProblem::NotFastForward { old }),
        UpdateShape::FastForward { from } => UpdatePlan::FastForward {
            tip: tip.clone(),
            from,
        },
        UpdateShape::NewRef => UpdatePlan::NewRef { tip: tip.clone() },
    }
}

/// Whether a hook line stops vouching for the history its remote ref
/// held: a deletion, or an update of an existing ref that does not
/// fast-forward it (a rewind, a forced push). A fast-forward keeps the old
/// tip reachable, so it still vouches.
pub fn stops_vouching(update: &RefUpdate, fast_forward: bool) -> bool {
    update.local_oid.is_none() || (update.remote_oid.is_some() && !fast_forward)
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
pub(crate) enum RangeShape<'a> {
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
pub(crate) fn range_shape(range: &DeliveredRange) -> RangeShape<'_> {
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
    let refs = &range.refs;
    let said = match range_shape(range) {
        RangeShape::One(c) => return Ok(c),
        RangeShape::Empty => PushSaid::Empty {
            refs,
            tip: &range.tip,
        },
        RangeShape::Several(n) => PushSaid::Several { refs, n },
        RangeShape::Merge(commit) => PushSaid::Merge { refs, commit },
        RangeShape::NotFastForward(old) => PushSaid::NotFastForward {
            refs,
            old,
            tip: &range.tip,
        },
        RangeShape::NotCommit => PushSaid::NotCommit {
            refs,
            tip: &range.tip,
        },
    };
    Err(deny(gate, None, &[], &said))
}

/// How one distinct delivered range was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveryReport {
    /// The destination refs that deliver the range, in first-seen order.
    pub refs: Vec<String>,
    /// The range's tip commit.
    pub tip: CommitId,
    /// Commits in the range (1 for a delivery commit).
    pub commits: usize,
    /// How the range was judged.
    pub decision: Decision,
    /// The reason code of that decision.
    pub reason_code: ReasonCode,
    /// The lineage the range's decision names, if any.
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
            deliveries,
            ..allow(gate, None, &PushSaid::NothingDelivered)
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
    let said = match (&proof, &judged[..]) {
        (Some(_), [(r, only)]) => PushSaid::Proven {
            refs: &r.refs,
            message: &only.message,
            unchanged,
        },
        // A stack, or a delivery that changes no bytes, says so itself.
        (_, [(r, only)]) if r.count > 1 || only.reason_code == ReasonCode::NoChange => {
            PushSaid::Carried {
                message: &only.message,
                unchanged,
            }
        }
        (_, [(r, only)]) => PushSaid::OneApproved {
            refs: &r.refs,
            lineage: only.lineage_id.as_ref(),
        },
        (_, many) if unchanged => PushSaid::ManyUnchanged { ranges: many.len() },
        (_, many) => PushSaid::ManyApproved { ranges: many.len() },
    };
    GateDecision {
        deliveries,
        proof,
        ..allow(gate, lineage_id.as_ref(), &said)
    }
}
