//! `probity publish`: the bundles of the reviewed delivery commits of a
//! range written as Git notes under `refs/notes/probity` (R11), each note
//! only grown, in one compare-and-swap of the notes ref.

use probity_core::review::target_identity;
use probity_core::review::{CommitId, LineageId, TreeId};
use probity_core::review::{MAX_NOTE_BYTES, StateRecord, note_adding};

use super::transport::{TransportError, export_bundle};
use super::*;

/// What a publication wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The delivery commits whose note gained a bundle, with the lineage.
    pub written: Vec<(CommitId, LineageId)>,
    /// Delivery commits whose note already held the bundle.
    pub unchanged: Vec<(CommitId, LineageId)>,
    /// Commits in the range that no approved review delivers.
    pub unreviewed: Vec<CommitId>,
}

/// The most commits one publication walks.
pub const MAX_PUBLISH: usize = 1000;

/// The approved, unsuperseded lineages that deliver this commit: the one
/// whose final target is exactly its (parent tree, tree), or else the one
/// the gate's own discovery allows it by (the rebase proof: a commit
/// rebased onto work elsewhere; a recovery chain's leaf), or the approved
/// reviews a squash composes, each of them; none when nothing does.
fn delivered_by<G: GitPort + CommitGit, S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    git: &G,
    store: &S,
    c: &probity_core::review::RangeCommit,
) -> Result<Vec<StateRecord>, TransportError> {
    if c.parents.len() > 1 {
        return Ok(Vec::new());
    }
    let base = match c.parents.first() {
        Some(p) => git.commit_tree(p),
        None => git.empty_tree(),
    }?;
    let target = target_identity(&base, &c.tree);
    if let Some(record) = resume(store, &target)?
        && record.state().delivers_target(&target)
        && supersession(store, &record)?.is_none()
    {
        return Ok(vec![record]);
    }
    let live = probity_core::review::LiveTarget::new(base, c.tree.clone());
    let d = decide_live(git, store, probity_core::review::Gate::PrePush, &live)?;
    let composed = d.composed_of();
    if !composed.is_empty() {
        let mut out = Vec::new();
        for l in composed {
            out.extend(store.load(l)?);
        }
        return Ok(out);
    }
    match d.proven_by() {
        Some(l) => Ok(store.load(l)?.into_iter().collect()),
        None => Ok(Vec::new()),
    }
}

/// The approved, not superseded review of the empty tree to `tip`'s tree
/// (`start --history`), if any.
fn history_review<G: CommitGit, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    tip: &probity_core::review::RangeCommit,
) -> Result<Option<StateRecord>, TransportError> {
    let empty = git.empty_tree()?;
    let target = target_identity(&empty, &tip.tree);
    match resume(store, &target)? {
        Some(record)
            if record.state().delivers_target(&target)
                && supersession(store, &record)?.is_none() =>
        {
            Ok(Some(record))
        }
        _ => Ok(None),
    }
}

/// `probity publish`: for every commit reachable from `tip` and not from
/// `exclude` (nor the remote-tracking refs `remotes` names) that is a
/// reviewed delivery — its (parent tree, tree) is an approved lineage's
/// final target — adds that lineage's bundle to the commit's note under
/// `refs/notes/probity`. One compare-and-swap of the notes ref.
pub fn publish<
    G: GitPort + CommitGit + RangeGit + NotesGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
>(
    git: &G,
    store: &S,
    tip: &CommitId,
    exclude: &[CommitId],
    remotes: &RemoteScope,
) -> Result<Published, TransportError> {
    let commits = git.range(tip, exclude, remotes, MAX_PUBLISH)?;
    let notes_tip = git.notes_tip()?;
    let mut out = Published {
        written: Vec::new(),
        unchanged: Vec::new(),
        unreviewed: Vec::new(),
    };
    let mut entries = Vec::new();
    let mut anchor: Vec<TreeId> = Vec::new();
    // A range from a root commit publishes a whole history (R8.8): the
    // approved review of the empty tree to the tip's tree travels on the
    // tip's note, for the server-side gate's first-publication judgment.
    let history = match commits.first() {
        Some(tip) if commits.iter().any(|c| c.parents.is_empty()) => {
            history_review(git, store, tip)?
        }
        _ => None,
    };
    for c in &commits {
        let mut records = delivered_by(git, store, c)?;
        if let Some(h) = &history
            && c.commit == commits[0].commit
            && !records
                .iter()
                .any(|r| r.state().lineage_id() == h.state().lineage_id())
        {
            records.push(h.clone());
        }
        if records.is_empty() {
            out.unreviewed.push(c.commit.clone());
            continue;
        }
        let bundles = records
            .iter()
            .map(|r| export_bundle(store, r.state().lineage_id()))
            .collect::<Result<Vec<_>, _>>()?;
        let existing_bytes = match &notes_tip {
            Some(n) => git.read_note(n, &c.commit, MAX_NOTE_BYTES)?,
            None => None,
        };
        // Every line the note holds is kept as it is, a stale, conflicting
        // or unreadable one included: the notes ref only grows, and the
        // gates read each line on its own.
        let note = note_adding(existing_bytes.as_deref(), &bundles).map_err(|source| {
            TransportError::Note {
                commit: c.commit.clone(),
                source: Box::new(source),
            }
        })?;
        let unchanged = existing_bytes.as_deref() == Some(&note[..]);
        for r in &records {
            let entry = (c.commit.clone(), r.state().lineage_id().clone());
            if unchanged {
                out.unchanged.push(entry);
            } else {
                out.written.push(entry);
            }
        }
        if !unchanged {
            entries.push((c.commit.clone(), note));
            // Every tree of every record the new lines carry travels with
            // the notes: a rebased delivery is proven against them.
            for b in &bundles {
                for r in &b.records {
                    let s = r.state();
                    anchor.extend([
                        s.snapshot().base_tree.clone(),
                        s.snapshot().candidate_tree.clone(),
                        s.final_candidate_tree().clone(),
                    ]);
                }
            }
        }
    }
    anchor.sort();
    anchor.dedup();
    git.write_notes(notes_tip.as_ref(), &entries, &anchor)?;
    Ok(out)
}
