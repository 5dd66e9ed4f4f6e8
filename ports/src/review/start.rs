//! Creating lineages: `start`, `invalidate` and `recover` (audited
//! successors), and keeping frozen trees alive.

use probity_core::review::ChangedFile;
use probity_core::review::Lens;
use probity_core::review::MAX_DIFF_BYTES;
use probity_core::review::PromptSet;
use probity_core::review::TreeId;
use probity_core::review::{RunConfig, TreeInputs};

pub(crate) use super::run_configs::{attribute_files, run_configs};
use probity_core::review::{
    CHECKS_PATH, MAX_CHECKS_BYTES, MAX_POLICY_BYTES, POLICY_PATH, RepoChecks, RepoPolicy,
};
use probity_core::review::{CandidateObservation, DiffAnchor, FrozenCandidate};
use probity_core::review::{CommitId, LineageId, NonBlank};
use probity_core::review::{EscalatedChange, escalation_covers, successor, successor_observation};
use probity_core::review::{FirstRecord, RecoverRequest, ScopeEvidence, Successor};
use probity_core::review::{MAX_RANGE_COMMITS, RangeCommit, StackError, stack_order};
use probity_core::review::{ReviewState, StartInput, StateRecord};
use probity_core::review::{RiskPolicy, RiskReason, Symlink};
use probity_core::review::{authored_lines, select_lenses};

use super::*;

/// Asks the Git port to keep a record's trees: base, frozen candidate, and
/// the corrected candidate once there is one.
pub(super) fn keep<G: GitPort>(git: &G, record: &StateRecord) -> Result<(), ReviewError> {
    let s = record.state();
    let mut trees = vec![
        ("base", &s.snapshot().base_tree),
        ("candidate", &s.snapshot().candidate_tree),
    ];
    if s.final_candidate_tree() != &s.snapshot().candidate_tree {
        trees.push(("final", s.final_candidate_tree()));
    }
    Ok(git.keep_trees(s.lineage_id(), &trees)?)
}

/// What start returned.
#[derive(Debug, Clone)]
pub struct Started {
    /// The lineage's record: the one just created, or the stored one when
    /// resumed.
    pub record: StateRecord,
    /// True when an existing lineage for this candidate was resumed.
    pub resumed: bool,
}

/// `probity start`: freezes the live candidate, or resumes the lineage that
/// already froze it (R1.3).
///
/// A clean worktree on a commit is `NothingUncommitted`, naming HEAD, so
/// the answer leads to `start --commit` for work that is already committed.
pub fn start<
    G: GitPort + RevisionGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
) -> Result<Started, ReviewError> {
    keeping_trees(git, || {
        let obs = git.observe_candidate()?;
        if obs.changed.is_empty()
            && !obs.unborn_head
            && let Some(head) = git.find_commit("HEAD")?
        {
            return Err(ReviewError::NothingUncommitted { head });
        }
        start_or_resume(git, store, clock, focus, obs)
    })
}

/// One commit `start --commit` or `start --range` handled.
#[derive(Debug, Clone)]
pub struct CommitStart {
    /// The commit whose change was frozen (or found to change no bytes).
    pub commit: CommitId,
    /// The parent whose tree is the base; `None` for a root commit (the
    /// empty tree).
    pub parent: Option<CommitId>,
    /// The lineage that froze (parent tree, tree); `None` when the commit
    /// changes no bytes (nothing to review: every gate allows it
    /// `no_change`). `start --commit` refuses such a commit instead.
    pub started: Option<Started>,
}

/// `probity start --commit REV` (D-R27): freezes a committed change, base =
/// the parent commit's tree (a root commit: the empty tree), candidate =
/// the commit's tree, so its target is exactly what the publication gates
/// judge for that commit. A merge commit, and a commit that changes no
/// bytes, are refused with nothing written. An exact retry resumes.
pub fn start_commit<
    G: GitPort + DeliveryGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    rev: &str,
) -> Result<CommitStart, ReviewError> {
    let (commit, obs) = observe_one_commit(git, rev)?;
    git.check_keep_trees()?;
    start_commit_observed(git, store, clock, focus, &commit, obs)
}

/// One commit, `REV`, observed as a candidate: a merge commit and a commit
/// that changes no bytes are refused.
fn observe_one_commit<G: DeliveryGit>(
    git: &G,
    rev: &str,
) -> Result<(RangeCommit, CandidateObservation), ReviewError> {
    let id = git.resolve_commit(rev)?;
    let listed = git.range(&id, &[], &RemoteScope::None, 1)?;
    let commit = match stack_order(&id, &listed, listed.len())?.as_slice() {
        [one] => (*one).clone(),
        _ => {
            return Err(StackError::NotLinear {
                tip: id,
                listed: listed.len(),
                chained: 0,
            }
            .into());
        }
    };
    let obs = git.observe_commit(&commit)?;
    if obs.base_tree == obs.candidate_tree {
        return Err(ReviewError::CommitNoChange {
            commit: commit.commit,
        });
    }
    Ok((commit, obs))
}

/// `probity start --history REV` (R8.8): freezes everything `REV`'s history
/// publishes as one change, base = the empty tree, candidate = the
/// commit's tree: the review a first publication of that history to an
/// empty remote can be authorized by (when every blob the history carries
/// is a blob of that tree). An exact retry resumes. `parent` in the answer
/// is `None`: the base is the empty tree whatever the commit's parents.
pub fn start_history<
    G: GitPort + RevisionGit + CommitGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    rev: &str,
) -> Result<CommitStart, ReviewError> {
    let id = git.resolve_commit(rev)?;
    let tree = git.commit_tree(&id)?;
    // Observed as a root: the change from the empty tree to its tree.
    let whole = RangeCommit {
        commit: id,
        tree,
        parents: Vec::new(),
    };
    let obs = git.observe_commit(&whole)?;
    if obs.base_tree == obs.candidate_tree {
        return Err(ReviewError::CommitNoChange {
            commit: whole.commit,
        });
    }
    git.check_keep_trees()?;
    start_commit_observed(git, store, clock, focus, &whole, obs)
}

/// Starts (or resumes) the lineage of one observed commit, and keeps its
/// trees.
fn start_commit_observed<
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    commit: &RangeCommit,
    obs: CandidateObservation,
) -> Result<CommitStart, ReviewError> {
    let started = start_or_resume(git, store, clock, focus, obs)?;
    keep(git, &started.record)?;
    Ok(CommitStart {
        commit: commit.commit.clone(),
        parent: commit.parents.first().cloned(),
        started: Some(started),
    })
}

/// `probity start --range A..B` (D-R27): one lineage per commit of `A..B`
/// (reachable from B, not from A), oldest first, each bound to its (parent
/// tree, tree). The whole range is checked before anything is written: a
/// merge anywhere, an empty range or one over [`MAX_RANGE_COMMITS`] is
/// refused. A commit that changes no bytes gets no lineage. A failure part
/// way leaves the lineages before it; an exact retry resumes each and goes
/// on.
pub fn start_range<
    G: GitPort + DeliveryGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    base: &str,
    tip: &str,
) -> Result<Vec<CommitStart>, ReviewError> {
    let base_c = git.resolve_commit(base)?;
    let tip_c = git.resolve_commit(tip)?;
    let exclude = [base_c];
    let listed = git.range(&tip_c, &exclude, &RemoteScope::None, MAX_RANGE_COMMITS + 1)?;
    let count = if listed.len() > MAX_RANGE_COMMITS {
        git.range_len(&tip_c, &exclude, &RemoteScope::None)?
    } else {
        listed.len()
    };
    let stack = stack_order(&tip_c, &listed, count)?;
    git.check_keep_trees()?;
    let mut out = Vec::with_capacity(stack.len());
    for commit in stack {
        let obs = git.observe_commit(commit)?;
        if obs.base_tree == obs.candidate_tree {
            out.push(CommitStart {
                commit: commit.commit.clone(),
                parent: commit.parents.first().cloned(),
                started: None,
            });
            continue;
        }
        out.push(start_commit_observed(
            git, store, clock, focus, commit, obs,
        )?);
    }
    Ok(out)
}

/// Runs a start or recovery between the two halves of keeping trees: the
/// setting is checked before anything is written, the refs are written
/// once the record is.
fn keeping_trees<G: GitPort>(
    git: &G,
    run: impl FnOnce() -> Result<Started, ReviewError>,
) -> Result<Started, ReviewError> {
    git.check_keep_trees()?;
    let started = run()?;
    keep(git, &started.record)?;
    Ok(started)
}

/// The one start path, whatever was observed (the live candidate, or a
/// commit's (parent tree, tree)): freezes the observation, or resumes the
/// lineage that already froze it.
fn start_or_resume<G: GitPort + ExportGit, S: RecordStore + ChainStore + IndexStore, C: Clock>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    obs: CandidateObservation,
) -> Result<Started, ReviewError> {
    let snapshot = FrozenCandidate::freeze(&obs)?;
    if let Some(existing) = resume(store, &snapshot.target)? {
        if let Some(leaf) = supersession(store, &existing)? {
            return Err(ReviewError::SupersededLineage {
                lineage: existing.state().lineage_id().clone(),
                leaf,
            });
        }
        existing.resume_for(&snapshot.target)?;
        return Ok(Started {
            record: existing,
            resumed: true,
        });
    }
    if let Some(open) = open_corrections(store, &snapshot.base_tree)?
        .into_iter()
        .find(|open| open.state().correction_blocks_start(&snapshot))
    {
        return Err(ReviewError::CorrectionOpen {
            lineage: open.state().lineage_id().clone(),
        });
    }
    refuse_side_stepped_escalation(git, store, &snapshot)?;

    let facts = tree_facts(git, &obs)?;
    let floor = policy_floor(git, &obs.base_tree, &obs.changed, &facts.links)?;
    let snapshot = anchor_diff(git, snapshot)?;
    let state = ReviewState::start(start_input(
        &obs,
        facts.inputs(),
        snapshot,
        clock,
        focus,
        floor,
    ))?;
    let first = FirstRecord::check(state.record()?)?;
    let created = store.create(&first)?;
    started(store, first.into_record(), created)
}

/// The escalation guard (issue 8 §5, issue 21 §8): a new candidate that
/// covers an escalated lineage's change would side-step the escalation
/// with a fresh budget and no authorization. Refused, naming the lineage
/// and its revision so the answer can print the recovery that needs a
/// maintainer's authorization. The rule keys on the escalated change
/// itself (core's `escalation_covers`), so moving the base does not lift
/// it; an escalation superseded by its authorized successor blocks
/// nothing.
fn refuse_side_stepped_escalation<
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
>(
    git: &G,
    store: &S,
    snapshot: &FrozenCandidate,
) -> Result<(), ReviewError> {
    let escalated = escalated_changes(git, store)?;
    if escalated.is_empty() {
        return Ok(());
    }
    let candidate = git
        .tree_delta(TreeSpan::from(snapshot))?
        .unwrap_or_default();
    for change in &escalated {
        let paths = escalation_covers(change, &snapshot.base_tree, &candidate);
        if !paths.is_empty() {
            return Err(ReviewError::LineageEscalated {
                lineage: change.record.state().lineage_id().clone(),
                revision: change.record.revision(),
                paths,
            });
        }
    }
    Ok(())
}

/// Every escalated lineage the store's escalation index names, whatever
/// its base, with its supersession and its change as Git derives it from
/// its trees (base → frozen candidate, base → final candidate). A
/// superseded one is kept (core answers that it blocks nothing) without
/// asking Git; one whose trees are no longer in the repository (its change
/// dropped and collected) is kept with no derived change, so it still
/// guards its own base and never fails another start.
pub(super) fn escalated_changes<
    G: GitPort + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
>(
    git: &G,
    store: &S,
) -> Result<Vec<EscalatedChange>, ReviewError> {
    let mut out = Vec::new();
    for lineage in store.lookup_escalations()? {
        let record = store.get(&lineage)?;
        let superseded = store.successor_of(&lineage)?.is_some();
        let mut deltas = Vec::new();
        if !superseded {
            let s = record.state();
            let base = &s.snapshot().base_tree;
            let mut ends = vec![&s.snapshot().candidate_tree];
            if s.final_candidate_tree() != &s.snapshot().candidate_tree {
                ends.push(s.final_candidate_tree());
            }
            let mut trees = vec![base.to_string()];
            trees.extend(ends.iter().map(|t| t.to_string()));
            if !git.missing_objects(&trees)?.is_empty() {
                ends.clear();
            }
            for end in ends {
                deltas.extend(super::discover::tree_delta(git, base, end)?);
            }
        }
        out.push(EscalatedChange {
            record,
            superseded,
            deltas,
        });
    }
    Ok(out)
}

/// Representability (R12.4) and the diff anchor (R10.4): the candidate's
/// diff, derived as an export derives it, must fit the export budget before
/// the candidate is accepted; its digest is frozen with the snapshot.
fn anchor_diff<G: ExportGit>(
    git: &G,
    mut snapshot: FrozenCandidate,
) -> Result<FrozenCandidate, ReviewError> {
    let diff = git
        .frozen_diff(TreeSpan::from(&snapshot), MAX_DIFF_BYTES)?
        .ok_or(ReviewError::NotRepresentable {
            limit: MAX_DIFF_BYTES,
        })?;
    let version = git.version()?;
    snapshot.diff = Some(DiffAnchor::of(&diff, version));
    Ok(snapshot)
}

/// The answer to a create: the new record, or the lineage that already
/// held the target (resumed).
fn started<S: RecordStore>(
    store: &S,
    record: StateRecord,
    created: Created,
) -> Result<Started, ReviewError> {
    match created {
        Created::New => Ok(Started {
            record,
            resumed: false,
        }),
        Created::Existing(other) => {
            let existing = store.get(&other)?;
            Ok(Started {
                record: existing,
                resumed: true,
            })
        }
    }
}

/// The repository policy of a base tree (`.probity/policy.json`), if it
/// has one: read from the base, never from the candidate, so a change to
/// the policy is judged under the old one.
pub fn base_policy<G: GitPort + ?Sized>(
    git: &G,
    base: &TreeId,
) -> Result<Option<RepoPolicy>, ReviewError> {
    let Some(bytes) = git.read_path(base, POLICY_PATH, MAX_POLICY_BYTES)? else {
        return Ok(None);
    };
    RepoPolicy::parse(&bytes)
        .map(Some)
        .map_err(|source| ReviewError::Policy {
            base: base.clone(),
            source,
        })
}

/// The floor the policy of `base` gives `changed`, files from it (empty
/// without a policy), and the floor its required checks give them (a
/// file a check's argv names, where the trees' `links` resolve it: red
/// team rounds 37 and 38). A checks
/// document that does not parse gives none here: every gate refuses it
/// (`policy_invalid`).
pub(super) fn policy_floor<G: GitPort + ?Sized>(
    git: &G,
    base: &TreeId,
    changed: &[ChangedFile],
    links: &[Symlink],
) -> Result<Vec<RiskReason>, ReviewError> {
    let mut floor = base_policy(git, base)?
        .map(|p| p.floor_reasons(changed))
        .unwrap_or_default();
    if let Some(bytes) = git.read_path(base, CHECKS_PATH, MAX_CHECKS_BYTES)?
        && let Ok(checks) = RepoChecks::parse(&bytes)
    {
        let paths: Vec<&str> = changed.iter().map(|f| f.path.as_str()).collect();
        floor.extend(checks.floor_reasons_linked(&paths, links));
    }
    Ok(floor)
}

/// What the newest risk policy reads from the observed base and candidate
/// trees: their symbolic links (D-R131) and the auto-run configurations
/// whose references it follows (D-R135).
pub(crate) struct TreeFacts {
    pub(crate) links: Vec<Symlink>,
    pub(crate) configs: Vec<RunConfig>,
    pub(crate) attributes: Vec<RunConfig>,
}

impl TreeFacts {
    pub(crate) fn inputs(&self) -> TreeInputs<'_> {
        TreeInputs {
            links: &self.links,
            configs: &self.configs,
            attributes: &self.attributes,
        }
    }
}

/// The [`TreeFacts`] of the observed base and candidate trees.
fn tree_facts<G: GitPort + ?Sized>(
    git: &G,
    obs: &CandidateObservation,
) -> Result<TreeFacts, ReviewError> {
    let span = TreeSpan {
        from: &obs.base_tree,
        to: &obs.candidate_tree,
    };
    pair_facts(git, span, &obs.changed)
}

/// The [`TreeFacts`] of the two trees of `span`, between which `changed`
/// differ.
pub(crate) fn pair_facts<G: GitPort + ?Sized>(
    git: &G,
    span: TreeSpan<'_>,
    changed: &[ChangedFile],
) -> Result<TreeFacts, ReviewError> {
    let trees = [span.from, span.to];
    let links: Vec<Symlink> = git.symlinks(&trees)?.into_iter().flatten().collect();
    Ok(TreeFacts {
        configs: run_configs(git, &trees, &links)?,
        links,
        attributes: attribute_files(git, &trees, changed)?,
    })
}

/// What start (and recover) derive from the live observation and the
/// symbolic links of its trees; `floor`: the base policy's floor reasons.
fn start_input<C: Clock>(
    obs: &CandidateObservation,
    trees: TreeInputs<'_>,
    snapshot: FrozenCandidate,
    clock: &C,
    focus: Lens,
    floor: Vec<RiskReason>,
) -> StartInput {
    // A new review (and a recovery's successor) freezes under the newest
    // built-in policy (D-R114).
    let policy = RiskPolicy::newest();
    let lines = authored_lines(policy, &obs.changed);
    let assessment = policy
        .classify_in(&obs.changed, lines, trees)
        .with_floor(floor);
    let lenses = select_lenses(assessment.level(), focus);
    // The prompts this build carries, frozen for the selected lenses: a
    // binding names its lens's prompt digest (issue 10).
    let prompts = Some(PromptSet::builtin().freeze(&lenses));
    StartInput {
        snapshot,
        assessment,
        lenses,
        authored_lines: lines,
        created_at: clock.now(),
        nonce: clock.nonce(),
        prompts,
        policy_hash: RiskPolicy::newest_hash(),
    }
}

/// `probity invalidate --lineage L --reason R` (R9.1): only a pristine
/// `reviewing` lineage; an exact retry returns the stored record.
pub fn invalidate<S: RecordStore + ChainStore>(
    store: &S,
    lineage: &LineageId,
    reason: NonBlank,
) -> Result<StateRecord, ReviewError> {
    let record = store.get(lineage)?;
    // A lineage whose chain does not hold takes no input (R9.3).
    supersession(store, &record)?;
    let next = record.state().invalidate(reason)?;
    if next == *record.state() {
        return Ok(record);
    }
    commit(store, &record, next)
}

/// `probity recover` (R9.2): an audited successor of a final lineage over
/// the live candidate, generation + 1, with a fresh budget. The predecessor
/// is never rewritten. A retry with the same request returns the successor
/// already stored.
pub fn recover<
    G: GitPort + CommitGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    predecessor: &LineageId,
    request: RecoverRequest,
) -> Result<Started, ReviewError> {
    keeping_trees(git, || {
        create_or_resume_successor(git, store, clock, focus, predecessor, request, None)
    })
}

/// `probity recover --commit REV`: [`recover`] whose successor freezes
/// `REV`'s change (parent tree, tree), as `start --commit REV` would, for a
/// predecessor whose own commit no longer holds its change (amended,
/// rebased). A merge commit and a commit that changes no bytes are refused
/// with nothing written.
pub fn recover_commit<
    G: GitPort + DeliveryGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    predecessor: &LineageId,
    request: RecoverRequest,
    rev: &str,
) -> Result<Started, ReviewError> {
    let (_, obs) = observe_one_commit(git, rev)?;
    keeping_trees(git, || {
        create_or_resume_successor(git, store, clock, focus, predecessor, request, Some(obs))
    })
}

fn create_or_resume_successor<
    G: GitPort + CommitGit + ExportGit,
    S: RecordStore + ChainStore + IndexStore,
    C: Clock,
>(
    git: &G,
    store: &S,
    clock: &C,
    focus: Lens,
    predecessor: &LineageId,
    request: RecoverRequest,
    named: Option<CandidateObservation>,
) -> Result<Started, ReviewError> {
    let pred = store.get(predecessor)?;
    // The predecessor's own chain must hold before anything follows it.
    supersession(store, &pred)?;
    if let Some(existing) = store.successor_of(predecessor)? {
        // Already recovered: the same request is a retry; anything else
        // would fork the chain.
        let record = store.get(&existing)?;
        let same = record
            .state()
            .predecessor()
            .as_ref()
            .is_some_and(|l| l.records(predecessor, &request));
        if !same {
            return Err(StoreError::AlreadySuperseded {
                lineage: predecessor.clone(),
                successor: existing,
            }
            .into());
        }
        let retry = Successor::check(&pred, record)?;
        store.create_successor(&retry)?;
        return Ok(Started {
            record: retry.into_record(),
            resumed: true,
        });
    }
    let obs = match named {
        Some(obs) => obs,
        None => {
            let live = git.observe_candidate()?;
            // A `start --commit` / `--range` predecessor: the commit that
            // holds its frozen (or final) candidate, observed as `start
            // --commit` observes it.
            let ps = pred.state();
            let mut committed = None;
            for end in [ps.final_candidate_tree(), &ps.snapshot().candidate_tree] {
                if let Some(commit) = git.committed_commit(TreeSpan {
                    from: &ps.snapshot().base_tree,
                    to: end,
                })? {
                    committed = Some(git.observe_commit(&commit)?);
                    break;
                }
            }
            successor_observation(live, committed)
        }
    };
    let snapshot = FrozenCandidate::freeze(&obs)?;
    let differing = git.differing_paths(TreeSpan {
        from: pred.state().final_candidate_tree(),
        to: &snapshot.candidate_tree,
    })?;
    let owned_by_chain = match store.lookup_target(&snapshot.target)? {
        Some(owner) => chain_of(store, &pred)?.contains(&owner),
        None => false,
    };
    let scope = ScopeEvidence {
        differing_paths: &differing,
        owned_by_chain,
    };
    let facts = tree_facts(git, &obs)?;
    let floor = policy_floor(git, &obs.base_tree, &obs.changed, &facts.links)?;
    // Eligibility first, so a refusal names its own reason rather than the
    // diff's size; then the anchor the successor freezes.
    successor(
        &pred,
        request.clone(),
        scope,
        start_input(
            &obs,
            facts.inputs(),
            snapshot.clone(),
            clock,
            focus,
            floor.clone(),
        ),
    )?;
    let snapshot = anchor_diff(git, snapshot)?;
    let state = successor(
        &pred,
        request,
        scope,
        start_input(&obs, facts.inputs(), snapshot, clock, focus, floor),
    )?;
    let successor = Successor::check(&pred, state.record()?)?;
    let created = store.create_successor(&successor)?;
    started(store, successor.into_record(), created)
}

/// What a repair ceremony did.
#[derive(Debug, Clone)]
pub struct Repaired {
    /// The audit record's path, relative to the store root.
    pub audit: String,
    /// What the complete survey proved: the named lineage holds the only
    /// anomaly of its class.
    pub proof: probity_core::review::UniquenessProof,
    /// The lineage is retired (a quarantined record).
    pub retired: bool,
    /// The derived receipt was written in place of the quarantined one.
    pub receipt_rewritten: bool,
}

/// `probity repair` (R9.4): proves with a complete survey that the named
/// lineage holds the only anomaly of its class, then quarantines the entry
/// in two byte-preserving phases with an audit record bound to the
/// maintainer's authorization (core decides; the store surveys and moves).
/// A quarantined receipt is replaced by the one the state derives.
/// Nothing is written on a refusal.
pub fn repair<S: RecordStore + ReceiptStore + RepairStore, C: Clock>(
    store: &S,
    clock: &C,
    request: probity_core::review::RepairRequest,
) -> Result<Repaired, ReviewError> {
    use probity_core::review::{audit_record, prove_unique};
    let survey = store.survey(request.class)?;
    let proof = prove_unique(&request.lineage, &survey)?;
    let at = clock.now();
    let audit = store.quarantine(&request.lineage, request.class, &|files| {
        audit_record(&request, &proof, &at, files).map_err(|e| StoreError::Malformed {
            path: "audit.json".into(),
            detail: e.to_string(),
        })
    })?;
    let receipt_rewritten = request.class.rewrites_receipt();
    if receipt_rewritten {
        let record = store.get(&request.lineage)?;
        store.ensure_projections(&record)?;
    }
    Ok(Repaired {
        audit,
        proof,
        retired: request.class.retires_lineage(),
        receipt_rewritten,
    })
}

/// `probity burn` (R10.5 `consumed`): an approved, not superseded lineage
/// whose authority was used is burned; a tombstone naming its revision,
/// target and receipt digest stays, so it answers `consumed` wherever it is
/// named. Nothing is written on a refusal.
pub fn burn<S: RecordStore + ChainStore + ReceiptStore + RepairStore, C: Clock>(
    store: &S,
    clock: &C,
    request: probity_core::review::BurnRequest,
) -> Result<String, ReviewError> {
    use probity_core::review::{BurnTombstoneError, consumption_tombstone};
    let record = store.get(&request.lineage)?;
    let leaf = supersession(store, &record)?;
    let receipt = store.read_receipt(&request.lineage)?.unwrap_or_default();
    let tombstone = consumption_tombstone(&request, &record, leaf.as_ref(), &receipt, &clock.now())
        .map_err(|e| match e {
            BurnTombstoneError::Refused(r) => ReviewError::Burn(r),
            BurnTombstoneError::Canonical(c) => ReviewError::Tombstone(c.to_string()),
        })?;
    Ok(store.consume(&request.lineage, &record.revision(), &tombstone)?)
}

/// What `per_tree` (one list for each of `trees`) holds for the two trees
/// of `span`.
pub(crate) fn of_span<T: Clone>(
    trees: &[&TreeId],
    per_tree: &[Vec<T>],
    span: TreeSpan<'_>,
) -> Vec<T> {
    trees
        .iter()
        .zip(per_tree)
        .filter(|(t, _)| **t == span.from || **t == span.to)
        .flat_map(|(_, l)| l.iter().cloned())
        .collect()
}
