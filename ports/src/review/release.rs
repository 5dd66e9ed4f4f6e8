//! `probity validate --gate release` (R8.5): the revision's delivery judged
//! as a publication, then, with release evidence, the artifacts a checksums
//! file names read and compared, and everything rechecked at the end.

use probity_core::review::CommitId;
use probity_core::review::{
    AncestorWalk, ExpectedArtifact, ObservedArtifact, ReleaseReads, WalkStep, release_recheck,
    releases_an_ancestor, releasing_ancestor, with_artifacts,
};
use probity_core::review::{
    DeliveredRange, Gate, GateDecision, RangeJudgment, combine_judged, delivery_commit, judge_stack,
};

use super::gates::*;
use super::recheck::checked;
use super::*;

/// Release evidence: the artifacts a checksums file names, and where they
/// are read.
#[derive(Clone, Copy)]
pub struct ReleaseEvidence<'a> {
    /// Each artifact's name and SHA-256, as the checksums file lists them.
    pub expected: &'a [ExpectedArtifact],
    /// Where the artifacts are read: once to judge, once more for the
    /// final recheck (R8.7).
    pub artifacts: &'a dyn ReleaseArtifacts,
}

/// What the release gate answers: the decision, the commit the revision
/// named when judged, and the artifacts as judged.
#[derive(Debug, Clone)]
pub struct ReleaseDecision {
    /// The gate's decision, after the final recheck.
    pub decision: GateDecision,
    /// The commit the revision named when judged (tags peeled); `None`
    /// when the decision names no delivery.
    pub revision_commit: Option<CommitId>,
    /// The artifacts' digests as judged (the first reading); `None` without
    /// release evidence.
    pub observed: Option<Vec<ObservedArtifact>>,
}

/// `probity validate --gate release --revision R` (R8.5): the exact
/// revision (tags peeled) must be one reviewed delivery commit, judged as
/// pre-push judges one, and, when release evidence is given, every artifact
/// must match the digest its checksums file names.
pub fn validate_release<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    revision: &str,
    evidence: Option<ReleaseEvidence<'_>>,
) -> Result<ReleaseDecision, ReviewError> {
    validate_release_between(git, store, revision, evidence, &mut || {})
}

/// [`validate_release`], running `between` after the derivation and before
/// the final recheck (R8.7): an allow is answered only when every record,
/// marker and receipt the derivation read is unchanged under its lineage's
/// lock, the revision still names the commit judged
/// (`release_revision_moved`) and every artifact reads back as judged
/// (`release_evidence_changed`): core's `release_recheck`.
pub fn validate_release_between<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    revision: &str,
    evidence: Option<ReleaseEvidence<'_>>,
    between: &mut dyn FnMut(),
) -> Result<ReleaseDecision, ReviewError> {
    let observe = |e: &ReleaseEvidence<'_>| {
        e.artifacts
            .observe(e.expected)
            .map_err(ReviewError::Artifacts)
    };
    let observed = evidence.as_ref().map(observe).transpose()?;
    let decision = checked(
        store,
        |rec| {
            release_decision(
                git,
                rec,
                revision,
                evidence
                    .as_ref()
                    .map(|e| e.expected)
                    .zip(observed.as_deref()),
            )
        },
        between,
        || Ok(Vec::new()),
    )?;
    let judged = decision.deliveries().first().map(|r| r.tip.clone());
    let Some(judged_commit) = judged.as_ref() else {
        return Ok(ReleaseDecision {
            decision,
            revision_commit: None,
            observed,
        });
    };
    let (now, again) = if decision.allows() {
        (
            git.find_commit(revision)?,
            evidence.as_ref().map(observe).transpose()?,
        )
    } else {
        (Some(judged_commit.clone()), observed.clone())
    };
    let decision = release_recheck(
        decision,
        &ReleaseReads {
            revision,
            judged: judged_commit,
            now: now.as_ref(),
            observed: observed.as_deref(),
            again: again.as_deref(),
        },
    );
    Ok(ReleaseDecision {
        decision,
        revision_commit: judged,
        observed,
    })
}

fn release_decision<
    G: GitPort + DeliveryGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    revision: &str,
    evidence: Option<(&[ExpectedArtifact], &[ObservedArtifact])>,
) -> Result<GateDecision, ReviewError> {
    let tip = git.resolve_commit(revision)?;
    let commits = git.range(&tip, &[], &RemoteScope::None, 1)?;
    let range = DeliveredRange {
        refs: vec![revision.to_string()],
        tip,
        count: commits.len(),
        commits,
        problem: None,
    };
    // The release is exactly one commit: a stack is not a revision.
    let (d, released_from) = match delivery_commit(Gate::Release, &range) {
        Err(denial) => (denial, None),
        Ok(c) => {
            let d = judge_commit(git, store, Gate::Release, c, None)?;
            match c.parents.first() {
                Some(parent) if releases_an_ancestor(&d) => {
                    released_bytes(git, store, &range, parent, d)?
                }
                _ => (
                    judge_stack(Gate::Release, &range, vec![(c, d)]).decision,
                    None,
                ),
            }
        }
    };
    let decision = with_artifacts(d, evidence);
    let tip = range.tip.clone();
    let combined = combine_judged(
        Gate::Release,
        vec![(range, RangeJudgment::boundary(decision))],
    );
    Ok(releasing_ancestor(combined, &tip, released_from.as_ref()))
}

/// A release revision that changes no bytes releases the bytes of its
/// nearest first-parent ancestor that does (D-R26): that commit is judged
/// instead, so an empty commit (or a tag on one) never launders an
/// unreviewed change below it. Core's [`AncestorWalk`] decides each step
/// (where it stops, the bound, a root); this lists and judges the commits
/// it asks for.
fn released_bytes<
    G: GitPort + CommitGit + RangeGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore,
>(
    git: &G,
    store: &S,
    range: &DeliveredRange,
    parent: &CommitId,
    unchanged: GateDecision,
) -> Result<(GateDecision, Option<CommitId>), ReviewError> {
    let (mut walk, mut step) = AncestorWalk::start(range.tip.clone(), unchanged, parent.clone());
    loop {
        match step {
            WalkStep::Judge(next) => {
                let listed = git.range(&next, &[], &RemoteScope::None, 1)?;
                let ancestor = listed.into_iter().next();
                let judged = match &ancestor {
                    Some(a) => Some((a, judge_commit(git, store, Gate::Release, a, None)?)),
                    None => None,
                };
                step = walk.next(range, judged);
            }
            WalkStep::Done {
                decision,
                released_from,
            } => return Ok((decision, released_from)),
        }
    }
}
