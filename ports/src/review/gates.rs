//! The gates: pre-commit, pre-push and pre-pr (release is `release.rs`).

use probity_core::review::CommitId;
use probity_core::review::LiveTarget;
use probity_core::review::StateRecord;
use probity_core::review::{
    Authority, ChainLink, DeliveredRange, Gate, GateDecision, MAX_COMPOSED_REVIEWS,
    MAX_RANGE_COMMITS, NewRefDelivery, RangeCommit, RangeJudgment, RefUpdate, UpdatePlan, Vouching,
    advice_offered, combine_judged, compose_reviews, decide_target, dedupe_ranges,
    delivery_commits, first_publication_offered, judge_first_publication, judge_stack,
    new_ref_delivery, no_change, plan_update, published_tips, rebind, rebind_offered,
    stops_vouching,
};
use probity_core::review::{
    BaseAdvance, base_unavailable, check_base_advance, explain_advance, unrelated_history,
};
use probity_core::review::{BlobsOutside, TreeId};
use probity_core::review::{
    ReviewState, hold_to_delivered_tier, newest_tier, rests_on_other_trees,
};

use super::recheck::{checked, target_moved};

use super::*;

/// What a pre-commit gate compares with the approved candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The synthetic candidate: worktree content of tracked paths and the
    /// intended untracked files (what `git add -A && git commit` delivers).
    Worktree,
    /// Exactly what the given index file commits (inside a commit: the file
    /// git names in `GIT_INDEX_FILE`; `--staged`: the user's index).
    Index(std::path::PathBuf),
}

/// `probity validate --gate pre-commit` (R8.1, R8.2, R8.6): zero model calls;
/// discovery is a lookup by target identity, then by base tree.
pub fn validate_pre_commit<
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    delivery: &Delivery,
) -> Result<GateDecision, ReviewError> {
    validate_pre_commit_between(git, store, delivery, &mut || {})
}

/// [`validate_pre_commit`], running `between` after the derivation and
/// before the final recheck (R8.7): a seam for a test's writer. An allow is
/// answered only when, under each lineage's lock, every record, marker and
/// receipt the derivation read is unchanged and the index being committed
/// (`Delivery::Index`) still writes the same tree; the worktree candidate
/// is not rebuilt (its commit's own hook compares the index it commits).
pub fn validate_pre_commit_between<
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    delivery: &Delivery,
    between: &mut dyn FnMut(),
) -> Result<GateDecision, ReviewError> {
    let live = match delivery {
        Delivery::Worktree => git.live_target(),
        Delivery::Index(index) => git.staged_target(index),
    }?;
    // A clean worktree (or an empty commit) changes no bytes: no discovery.
    if let Some(d) = no_change(Gate::PreCommit, &live) {
        return Ok(d);
    }
    checked(
        store,
        |rec| {
            let decision = decide_live(git, rec, Gate::PreCommit, &live)?;
            point_at_open_correction_on(git, rec, &live, decision)
        },
        between,
        || match delivery {
            Delivery::Worktree => Ok(Vec::new()),
            Delivery::Index(index) => Ok(target_moved(&live, &git.staged_target(index)?)),
        },
    )
}

/// The pre-commit gate during `git commit --amend` (issue 26 §5): the
/// amended commit delivers HEAD's first parent's tree (the empty tree for
/// a root commit) → the tree `index` writes, which is what pre-push judges,
/// so that is the target decided here; a "start a review" denial names the
/// sequence that reviews it (core's `for_amend`). An amend that changes no
/// bytes of HEAD's tree (a new message) is `no_change`, as before.
pub fn validate_pre_commit_amend<
    G: GitPort + RevisionGit + CommitGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    index: &std::path::Path,
) -> Result<GateDecision, ReviewError> {
    let staged = git.staged_target(index)?;
    if let Some(d) = no_change(Gate::PreCommit, &staged) {
        return Ok(d);
    }
    let base = match git.find_commit("HEAD^")? {
        Some(parent) => git.commit_tree(&parent),
        None => git.empty_tree(),
    }?;
    let live = LiveTarget::new(base, staged.candidate_tree);
    if let Some(d) = no_change(Gate::PreCommit, &live) {
        return Ok(d);
    }
    let decision = checked(
        store,
        |rec| {
            let decision = decide_live(git, rec, Gate::PreCommit, &live)?;
            point_at_open_correction_on(git, rec, &live, decision)
        },
        &mut || {},
        || {
            let now = git.staged_target(index)?;
            Ok(target_moved(
                &live,
                &LiveTarget::new(live.base_tree.clone(), now.candidate_tree),
            ))
        },
    )?;
    Ok(probity_core::review::for_amend(decision))
}

/// A "start a review" denial that covers an escalated lineage's change
/// (on its base or a moved one) names its authorized recovery (the store
/// lookups here, the rule in core).
fn point_at_escalation_on<G: GitPort + ExportGit, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
    decision: GateDecision,
) -> Result<GateDecision, ReviewError> {
    let escalated = super::start::escalated_changes(git, store)?;
    if escalated.is_empty() {
        return Ok(decision);
    }
    let entries = git.tree_delta(TreeSpan::from(live))?.unwrap_or_default();
    Ok(probity_core::review::point_at_escalated_change(
        decision,
        &live.base_tree,
        &entries,
        &escalated,
    ))
}

/// A "start a review" denial over the paths of an open correction names
/// the correction instead, and one over an escalated lineage's paths its
/// authorized recovery (a start there is refused): the store lookups here,
/// the rules in core; only on such a denial.
fn point_at_open_correction_on<G: GitPort + ExportGit, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    live: &LiveTarget,
    decision: GateDecision,
) -> Result<GateDecision, ReviewError> {
    if !advice_offered(&decision) {
        return Ok(decision);
    }
    let open: Vec<_> = open_corrections(store, &live.base_tree)?
        .into_iter()
        .map(StateRecord::into_state)
        .collect();
    let decision = probity_core::review::point_at_open_correction(decision, &open);
    if !advice_offered(&decision) {
        return Ok(decision);
    }
    point_at_escalation_on(git, store, live, decision)
}

/// Discovers the authority for one live target and decides it: lookups by
/// target identity, delta identity (the rebase proof), base tree and final
/// candidate tree (R12.2, R8.6), never a scan (see `discover`). A
/// publication gate's denial over a superseded lineage is then offered to
/// the recovery rebind (R8.9), which keeps it unless the chain covers the
/// delivery exactly, and a denial still standing to the composition of
/// approved reviews one on another's result (a squash of reviewed commits,
/// issue 21 §3).
pub(super) fn decide_live<G: GitPort, S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    git: &G,
    store: &S,
    gate: Gate,
    live: &LiveTarget,
) -> Result<GateDecision, ReviewError> {
    let decision = decide_rebound(git, store, gate, live)?;
    if !rebind_offered(gate, &decision) {
        return Ok(decision);
    }
    // A squash of reviewed commits: approved reviews one on the other's
    // result, from the live base to the live candidate (issue 21 §3).
    // Every failure keeps the denial.
    let Ok(found) = composed_reviews(store, live) else {
        return Ok(decision);
    };
    let links: Vec<ChainLink<'_>> = found
        .iter()
        .map(|(r, receipt)| ChainLink {
            state: r.state(),
            receipt_file: receipt.as_deref(),
        })
        .collect();
    let composed = compose_reviews(gate, live, decision, &links);
    let approvals: Vec<&ReviewState> = found.iter().map(|(r, _)| r.state()).collect();
    held(git, gate, live, &approvals, composed)
}

/// `decision`, an allow standing on approvals made on other trees (a
/// rebase proof, a composition), held to the tier the newest built-in
/// risk policy gives the delivered change itself (D-R171): the live pair
/// diffed, its trees' links, configurations and attribute files read as
/// `start` reads them. Anything else is returned unread.
fn held<G: GitPort>(
    git: &G,
    gate: Gate,
    live: &LiveTarget,
    approvals: &[&ReviewState],
    decision: GateDecision,
) -> Result<GateDecision, ReviewError> {
    if !rests_on_other_trees(&decision) {
        return Ok(decision);
    }
    let span = TreeSpan {
        from: &live.base_tree,
        to: &live.candidate_tree,
    };
    let changed = git.diff_files(span)?;
    let facts = super::start::pair_facts(git, span, &changed)?;
    let derived = newest_tier(&changed, facts.inputs());
    Ok(hold_to_delivered_tier(gate, approvals, derived, decision))
}

/// The approved reviews a squash of `live` could compose, found by base
/// tree (`lookup_base`, never a scan): the latest approved review on the
/// live base, then the latest on its final candidate, and so on, until one
/// ends on the live candidate (found), or none continues, a superseded one
/// is met, or core's bound is reached (nothing found: empty).
fn composed_reviews<S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    store: &S,
    live: &LiveTarget,
) -> Result<Vec<super::chain::ChainEntry>, ReviewError> {
    let mut out = Vec::new();
    let mut base = live.base_tree.clone();
    for _ in 0..MAX_COMPOSED_REVIEWS {
        let Some(lineage) = store.lookup_base(&base)? else {
            break;
        };
        let Some(record) = store.load(&lineage)? else {
            break;
        };
        if supersession(store, &record)?.is_some() {
            break;
        }
        let receipt = store.read_receipt(&lineage)?;
        let last = record.state().final_candidate_tree().clone();
        out.push((record, receipt));
        if last == live.candidate_tree {
            return Ok(out);
        }
        if last == base {
            break;
        }
        base = last;
    }
    Ok(Vec::new())
}

/// Discovers the authority for one live target and decides it (see
/// [`decide_live`]), with the recovery rebind applied.
fn decide_rebound<G: GitPort, S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    git: &G,
    store: &S,
    gate: Gate,
    live: &LiveTarget,
) -> Result<GateDecision, ReviewError> {
    let (decision, superseded) = decide_found(git, store, gate, live)?;
    let Some(record) = superseded else {
        return Ok(decision);
    };
    if !rebind_offered(gate, &decision) {
        return Ok(decision);
    }
    // Every failure inside the rebind keeps the original denial.
    let Ok(chain) = forward_chain(store, &record) else {
        return Ok(decision);
    };
    let links: Vec<ChainLink<'_>> = chain
        .iter()
        .map(|(r, receipt)| ChainLink {
            state: r.state(),
            receipt_file: receipt.as_deref(),
        })
        .collect();
    Ok(rebind(gate, live, decision, &links))
}

/// The decision discovery leads to, and the lineage it found when a
/// recovery chain supersedes it (where a rebind could start).
fn decide_found<G: GitPort, S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    git: &G,
    store: &S,
    gate: Gate,
    live: &LiveTarget,
) -> Result<(GateDecision, Option<StateRecord>), ReviewError> {
    let with =
        |record: StateRecord, superseded: bool, d: GateDecision| (d, superseded.then_some(record));
    Ok(match discover(git, store, live)? {
        Found::Exact(record) => {
            let superseded_by = supersession(store, &record)?;
            let receipt = store.read_receipt(record.state().lineage_id())?;
            let d = decide_target(
                gate,
                live,
                Authority::Exact {
                    state: record.state(),
                    receipt_file: receipt.as_deref(),
                    superseded_by: superseded_by.as_ref(),
                },
            );
            with(record, superseded_by.is_some(), d)
        }
        Found::Rebased(record, check) => {
            let superseded_by = supersession(store, &record)?;
            let receipt = store.read_receipt(record.state().lineage_id())?;
            let d = decide_target(
                gate,
                live,
                Authority::Rebased {
                    state: record.state(),
                    receipt_file: receipt.as_deref(),
                    superseded_by: superseded_by.as_ref(),
                    check: &check,
                },
            );
            (held(git, gate, live, &[record.state()], d)?, None)
        }
        Found::Prior(record, differing) => {
            let superseded_by = supersession(store, &record)?;
            let d = decide_target(
                gate,
                live,
                Authority::Prior {
                    state: record.state(),
                    differing_paths: &differing,
                    superseded_by: superseded_by.as_ref(),
                },
            );
            with(record, superseded_by.is_some(), d)
        }
        Found::None(changed) => (
            decide_target(
                gate,
                live,
                Authority::None {
                    changed_paths: &changed,
                },
            ),
            None,
        ),
        Found::NonUtf8(changed) => (
            decide_target(
                gate,
                live,
                Authority::NonUtf8 {
                    changed_paths: &changed,
                },
            ),
            None,
        ),
    })
}

/// What a pre-push gate is asked to judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushBoundary {
    /// The lines git gives a pre-push hook, and the remote it named (a
    /// configured remote's name, or a URL).
    Updates {
        /// The remote git named to the hook (its first argument).
        remote: String,
        /// The hook's stdin lines, parsed, in order.
        updates: Vec<RefUpdate>,
        /// Which of the remote's refs vouch for published history: every
        /// advertised one (a client), or only the protected ones (the
        /// server gate).
        published: Vouching,
    },
    /// `HEAD`, minus what the named remote advertises now, or (no remote
    /// named) what the remote-tracking refs last saw.
    Head {
        /// The remote to ask (`git ls-remote`); `None`: the remote-tracking
        /// refs.
        remote: Option<String>,
    },
    /// An explicit range for CI: commits reachable from `tip`, not `base`.
    Range {
        /// The revision whose history is already published.
        base: String,
        /// The revision delivered.
        tip: String,
    },
}

/// Lists a range's commits (newest first), all of them up to
/// [`MAX_RANGE_COMMITS`]; past the bound only the count matters (the range
/// is then denied `delivery_too_large`).
fn count_range<G: RangeGit>(
    git: &G,
    tip: &CommitId,
    exclude: &[CommitId],
    remotes: &RemoteScope,
) -> Result<(Vec<RangeCommit>, usize), ReviewError> {
    let commits = git.range(tip, exclude, remotes, MAX_RANGE_COMMITS + 1)?;
    let count = if commits.len() > MAX_RANGE_COMMITS {
        git.range_len(tip, exclude, remotes)?
    } else {
        commits.len()
    };
    Ok((commits, count))
}

/// The delivered range from `tip`, excluding what `exclude` reaches (and
/// the remote-tracking refs `remotes` names), listed for
/// [`judge_range`]: what a server-side gate calls to build the range it
/// judges.
pub fn delivered_range<G: RangeGit>(
    git: &G,
    refs: Vec<String>,
    tip: CommitId,
    exclude: Vec<CommitId>,
    remotes: &RemoteScope,
) -> Result<DeliveredRange, ReviewError> {
    let (commits, count) = count_range(git, &tip, &exclude, remotes)?;
    Ok(DeliveredRange {
        refs,
        tip,
        commits,
        count,
        problem: None,
    })
}

/// The range one hook line delivers. An existing remote ref must be
/// fast-forwarded by exactly the delivered commits from its current tip
/// (`old`), never past other history; a new remote ref may build only on
/// what the remote advertises now (`published`, fetched once per push).
/// One hook line's objects, peeled once: the pushed commit (`None`: not a
/// commit), the remote's old tip as a commit here (`None`: absent or
/// unknown), and whether the push fast-forwards it.
struct Peeled {
    tip: Option<CommitId>,
    old: Option<CommitId>,
    fast_forward: bool,
}

fn peel_update<G: RangeGit>(
    git: &G,
    local: &CommitId,
    update: &RefUpdate,
) -> Result<Peeled, ReviewError> {
    let tip = git.peel_commit(local)?;
    let old = match &update.remote_oid {
        Some(o) => git.peel_commit(o)?,
        None => None,
    };
    let fast_forward = match (&old, &tip) {
        (Some(o), Some(t)) => git.is_ancestor(o, t)?,
        _ => false,
    };
    Ok(Peeled {
        tip,
        old,
        fast_forward,
    })
}

/// What a push's new refs are measured against: the tips of the remote's
/// refs that vouch ([`Vouching`]) but those the push deletes or rewinds,
/// asked of the remote once, when the first new ref needs them.
struct PublishedTips<'a> {
    remote: &'a str,
    touched: &'a [&'a str],
    vouching: &'a Vouching,
    tips: Option<Vec<CommitId>>,
}

impl PublishedTips<'_> {
    fn get<G: RangeGit>(&mut self, git: &G) -> Result<Vec<CommitId>, ReviewError> {
        if let Some(t) = &self.tips {
            return Ok(t.clone());
        }
        let advertised = git.remote_tips(self.remote)?;
        let tips = published_tips(advertised, self.touched, self.vouching);
        self.tips = Some(tips.clone());
        Ok(tips)
    }
}

fn update_range<G: RangeGit>(
    git: &G,
    update: &RefUpdate,
    local: &CommitId,
    peeled: Peeled,
    published: &mut PublishedTips<'_>,
) -> Result<Option<DeliveredRange>, ReviewError> {
    let refs = vec![update.remote_ref.clone()];
    // Core plans the line (a boundary, or what to list); the driver lists.
    match plan_update(
        update,
        local,
        refs.clone(),
        peeled.tip.as_ref(),
        peeled.old.as_ref(),
        peeled.fast_forward,
    ) {
        UpdatePlan::Boundary(range) => Ok(Some(range)),
        UpdatePlan::FastForward { tip, from } => {
            let (commits, count) =
                count_range(git, &tip, std::slice::from_ref(&from), &RemoteScope::None)?;
            Ok(Some(DeliveredRange {
                refs,
                tip,
                commits,
                count,
                problem: None,
            }))
        }
        UpdatePlan::NewRef { tip } => {
            let exclude = published.get(git)?;
            let mut range = delivered_range(git, refs, tip, exclude, &RemoteScope::None)?;
            match new_ref_delivery(&range, published.vouching) {
                NewRefDelivery::Listed => {}
                NewRefDelivery::OwnTip => {
                    let own = git.range(&range.tip, &[], &RemoteScope::None, 1)?;
                    range.count = own.len();
                    range.commits = own;
                }
                NewRefDelivery::AlreadyPublished => return Ok(None),
            }
            Ok(Some(range))
        }
    }
}

/// Judges one commit at a publication gate: its (parent tree, tree) — the
/// empty tree for a root commit — decided as pre-commit decides a
/// candidate. `parent_tree`, when known (the previous commit of a stack),
/// saves a lookup.
pub(super) fn judge_commit<
    G: GitPort + CommitGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    gate: Gate,
    c: &RangeCommit,
    parent_tree: Option<&probity_core::review::TreeId>,
) -> Result<GateDecision, ReviewError> {
    let base = match (parent_tree, c.parents.first()) {
        (Some(t), _) => t.clone(),
        (None, Some(p)) => git.commit_tree(p)?,
        (None, None) => git.empty_tree()?,
    };
    let live = LiveTarget::new(base, c.tree.clone());
    if let Some(d) = no_change(gate, &live) {
        return Ok(d);
    }
    decide_live(git, store, gate, &live)
}

/// Judges the given commits of a stack (oldest first, each the parent of
/// the next) and combines them (D-R25).
fn judge_commits<
    G: GitPort + CommitGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    gate: Gate,
    range: &DeliveredRange,
    commits: Vec<&RangeCommit>,
) -> Result<RangeJudgment, ReviewError> {
    let mut judged = Vec::with_capacity(commits.len());
    let mut parent_tree = None;
    for c in commits {
        let d = judge_commit(git, store, gate, c, parent_tree)?;
        judged.push((c, d));
        parent_tree = Some(&c.tree);
    }
    Ok(judge_stack(gate, range, judged))
}

/// Judges one delivered range at a publication gate (R8.3, D-R25): the
/// boundary denial when it is no stack of one-parent commits (a rewind, not
/// a commit, empty, a merge, over [`MAX_RANGE_COMMITS`]); otherwise every
/// commit, oldest first, by its (parent tree, tree) as pre-commit judges a
/// candidate, allowed only when every commit is. Zero model calls, nothing
/// written: what a server-side gate calls for each ref it receives.
pub fn judge_range<
    G: GitPort + CommitGit + RangeGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    gate: Gate,
    range: &DeliveredRange,
) -> Result<RangeJudgment, ReviewError> {
    match delivery_commits(gate, range) {
        Err(denial) => Ok(RangeJudgment::boundary(denial)),
        Ok(commits) => {
            let stack = judge_commits(git, store, gate, range, commits.clone())?;
            first_publication(git, store, gate, range, &commits, stack)
        }
    }
}

/// A denied range that starts at a root commit delivers a whole history
/// (R8.8): one approved review of the empty tree to the tip's tree covers
/// it when every entry the history carries is an entry of that tree. The
/// lookups and the object walk here, the rule in core.
fn first_publication<
    G: GitPort + CommitGit + RangeGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    gate: Gate,
    range: &DeliveredRange,
    commits: &[&RangeCommit],
    stack: RangeJudgment,
) -> Result<RangeJudgment, ReviewError> {
    let Some(tip) = commits.last() else {
        return Ok(stack);
    };
    if !first_publication_offered(&stack, commits) {
        return Ok(stack);
    }
    let empty = git.empty_tree()?;
    let whole = decide_live(
        git,
        store,
        gate,
        &LiveTarget::new(empty.clone(), tip.tree.clone()),
    )?;
    let outside = if whole.allows() {
        Some(history_outside(git, &tip.tree, commits)?)
    } else {
        None
    };
    Ok(judge_first_publication(
        gate,
        range,
        commits,
        stack,
        whole,
        &empty,
        outside.as_ref(),
    ))
}

/// How many commit trees of a history are diffed at once against the
/// reviewed tree: a first publication's older commits are read a batch at
/// a time, and no further once the listing is full.
const HISTORY_BATCH: usize = 16;

/// What the history's commits hold beyond the reviewed tree `reviewed`
/// (core's [`BlobsOutside::add_tree`] over each commit's delta), read a
/// batch of distinct trees at a time until the listing is full.
fn history_outside<G: RangeGit>(
    git: &G,
    reviewed: &TreeId,
    commits: &[&RangeCommit],
) -> Result<BlobsOutside, ReviewError> {
    let mut trees: Vec<TreeId> = Vec::new();
    for c in commits {
        if c.tree != *reviewed && !trees.contains(&c.tree) {
            trees.push(c.tree.clone());
        }
    }
    let mut outside = BlobsOutside::default();
    for batch in trees.chunks(HISTORY_BATCH) {
        for delta in git.history_deltas(reviewed, batch)? {
            if outside.add_tree(delta.as_deref()) {
                return Ok(outside);
            }
        }
    }
    Ok(outside)
}

/// `probity validate --gate pre-push` (R8.3): derive every delivered range
/// (de-duplicated across refs) and judge each with [`judge_range`]: a stack
/// of one-parent commits on what the remote already holds, every commit's
/// (parent tree, tree) judged exactly as pre-commit judges a candidate.
/// Zero model calls.
pub fn validate_pre_push<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    boundary: &PushBoundary,
) -> Result<GateDecision, ReviewError> {
    validate_pre_push_between(git, store, boundary, &mut || {})
}

/// [`validate_pre_push`], running `between` after the derivation and
/// before the final recheck (R8.7): an allow is answered only when every
/// record, marker and receipt the derivation read is unchanged under its
/// lineage's lock, and the revisions the gate resolved (`HEAD`, a range's
/// ends) still name the same commits. Hook lines carry their own object
/// ids; what a remote advertises is not asked again.
pub fn validate_pre_push_between<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    boundary: &PushBoundary,
    between: &mut dyn FnMut(),
) -> Result<GateDecision, ReviewError> {
    let resolved: Vec<(String, CommitId)> = match boundary {
        PushBoundary::Updates { .. } => Vec::new(),
        PushBoundary::Head { .. } => vec![("HEAD".into(), git.resolve_commit("HEAD")?)],
        PushBoundary::Range { base, tip } => vec![
            (base.clone(), git.resolve_commit(base)?),
            (tip.clone(), git.resolve_commit(tip)?),
        ],
    };
    checked(
        store,
        |rec| pre_push_decision(git, rec, boundary),
        between,
        || revisions_moved(git, &resolved),
    )
}

/// What the named revisions resolve to now, against what they resolved to.
fn revisions_moved<G: RevisionGit>(
    git: &G,
    resolved: &[(String, CommitId)],
) -> Result<Vec<probity_core::review::Moved>, ReviewError> {
    let mut moved = Vec::new();
    for (rev, commit) in resolved {
        if git.find_commit(rev)?.as_ref() != Some(commit) {
            moved.push(probity_core::review::Moved::Revision(rev.clone()));
        }
    }
    Ok(moved)
}

fn pre_push_decision<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    boundary: &PushBoundary,
) -> Result<GateDecision, ReviewError> {
    let ranges = match boundary {
        PushBoundary::Updates {
            remote,
            updates,
            published: vouching,
        } => {
            // The refs that stop vouching for the history they held (core
            // decides which); a deletion delivers nothing.
            let mut touched: Vec<&str> = Vec::new();
            let mut pushed = Vec::new();
            for u in updates {
                let peeled = match &u.local_oid {
                    None => None,
                    Some(local) => Some((local, peel_update(git, local, u)?)),
                };
                let fast_forward = peeled.as_ref().is_some_and(|(_, p)| p.fast_forward);
                if stops_vouching(u, fast_forward) {
                    touched.push(u.remote_ref.as_str());
                }
                if let Some((local, peeled)) = peeled {
                    pushed.push((u, local, peeled));
                }
            }
            let mut published = PublishedTips {
                remote,
                touched: &touched,
                vouching,
                tips: None,
            };
            let mut out = Vec::new();
            for (u, local, peeled) in pushed {
                out.extend(update_range(git, u, local, peeled, &mut published)?);
            }
            out
        }
        PushBoundary::Head { remote } => {
            let tip = git.resolve_commit("HEAD")?;
            match remote {
                Some(r) => {
                    let tips = git.remote_tips(r)?;
                    let tips = tips.into_iter().map(|(_, c)| c).collect();
                    vec![delivered_range(
                        git,
                        vec!["HEAD".into()],
                        tip,
                        tips,
                        &RemoteScope::None,
                    )?]
                }
                None => vec![delivered_range(
                    git,
                    vec!["HEAD".into()],
                    tip,
                    Vec::new(),
                    &RemoteScope::All,
                )?],
            }
        }
        PushBoundary::Range { base, tip } => {
            let base_c = git.resolve_commit(base)?;
            let tip_c = git.resolve_commit(tip)?;
            vec![delivered_range(
                git,
                vec![tip.clone()],
                tip_c,
                vec![base_c],
                &RemoteScope::None,
            )?]
        }
    };
    let mut judged = Vec::new();
    for range in dedupe_ranges(ranges) {
        let judgment = judge_range(git, store, Gate::PrePush, &range)?;
        judged.push((range, judgment));
    }
    Ok(combine_judged(Gate::PrePush, judged))
}

/// What the pre-PR gate answers: the decision, and the ancestry proof when
/// the base advanced compatibly.
#[derive(Debug, Clone)]
pub struct PrDecision {
    /// The gate's decision, after the final recheck.
    pub decision: GateDecision,
    /// The proof that the explicit base advanced past the reviewed base
    /// without touching a delivered path; `None` when it did not advance
    /// or the range was refused before.
    pub base_advance: Option<BaseAdvance>,
}

/// `probity validate --gate pre-pr --base B [--head H]` (R8.4): the change
/// proposal `B..H` must be one delivery commit; its parent is the reviewed
/// base. The explicit base must resolve (else `base_unavailable`, no
/// fallback); when it advanced past the reviewed base, its advance must
/// touch no delivered path (native ancestry proof) or the gate denies
/// `base_advanced`. The delivery is then judged as pre-push judges one.
pub fn validate_pre_pr<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    base: &str,
    head: &str,
) -> Result<PrDecision, ReviewError> {
    validate_pre_pr_between(git, store, base, head, &mut || {})
}

/// [`validate_pre_pr`], running `between` after the derivation and before
/// the final recheck (R8.7): an allow is answered only when every record,
/// marker and receipt the derivation read is unchanged under its lineage's
/// lock and both ends still name the commits judged.
pub fn validate_pre_pr_between<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    base: &str,
    head: &str,
    between: &mut dyn FnMut(),
) -> Result<PrDecision, ReviewError> {
    // The final recheck (R8.7), as at pre-push: both ends resolved again.
    let mut resolved = Vec::new();
    for rev in [base, head] {
        if let Some(c) = git.find_commit(rev)? {
            resolved.push((rev.to_string(), c));
        }
    }
    let mut advance = None;
    let decision = checked(
        store,
        |rec| {
            let pr = pre_pr_decision(git, rec, base, head)?;
            advance = pr.base_advance;
            Ok(pr.decision)
        },
        between,
        || revisions_moved(git, &resolved),
    )?;
    Ok(PrDecision {
        decision,
        base_advance: advance,
    })
}

fn pre_pr_decision<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    base: &str,
    head: &str,
) -> Result<PrDecision, ReviewError> {
    let Some(base_tip) = git.find_commit(base)? else {
        return Ok(PrDecision {
            decision: base_unavailable(base),
            base_advance: None,
        });
    };
    let head_c = git.resolve_commit(head)?;
    let range = delivered_range(
        git,
        vec![head.to_string()],
        head_c,
        vec![base_tip.clone()],
        &RemoteScope::None,
    )?;
    let (judgment, base_advance) = match delivery_commits(Gate::PrePr, &range) {
        Err(denial) => (RangeJudgment::boundary(denial), None),
        Ok(commits) => match commits.first().map(|c| (c, c.parents.first())) {
            None | Some((_, None)) => {
                (RangeJudgment::boundary(unrelated_history(&range.tip)), None)
            }
            Some((_, Some(parent))) => {
                // Every commit of `base..head` has one parent and the
                // oldest's is on the base: it is the reviewed base.
                let parent_tree = git.commit_tree(parent)?;
                let head_tree = commits
                    .last()
                    .map(|c| c.tree.clone())
                    .unwrap_or_else(|| parent_tree.clone());
                let mut delivered_paths = git.differing_paths(TreeSpan {
                    from: &parent_tree,
                    to: &head_tree,
                })?;
                delivered_paths.sort();
                let base_changed = if *parent == base_tip {
                    Vec::new()
                } else {
                    let base_tree = git.commit_tree(&base_tip)?;
                    git.differing_paths(TreeSpan {
                        from: &parent_tree,
                        to: &base_tree,
                    })?
                };
                match check_base_advance(parent, &base_tip, base_changed, &delivered_paths) {
                    Err(denial) => (RangeJudgment::boundary(denial), None),
                    Ok(advance) => (
                        judge_commits(git, store, Gate::PrePr, &range, commits)?,
                        advance,
                    ),
                }
            }
        },
    };
    let decision = explain_advance(
        combine_judged(Gate::PrePr, vec![(range, judgment)]),
        base_advance.as_ref(),
    );
    Ok(PrDecision {
        decision,
        base_advance,
    })
}
