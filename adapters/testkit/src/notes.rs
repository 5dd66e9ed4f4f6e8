//! Git notes in memory: [`WithNotes`] adds [`NotesGit`] to a fake Git it
//! borrows (a [`crate::FakeGit`], or any `GitPort + ExportGit +
//! DeliveryGit`), so the transport drivers (publish, the server-side gate,
//! pre-PR from notes) run without a repository.
//!
//! `refs/notes/probity` is a history of notes commits kept beside the
//! wrapped repository: each one the whole set of notes (annotated commit →
//! bytes) with its parent. A write is one compare-and-swap of the ref, as
//! the git adapter makes it; a notes commit can also be made without moving
//! the ref ([`WithNotes::notes_commit`]: what a pusher's notes are in the
//! server's receive quarantine before the push is accepted). Notes commits
//! exist only for the notes methods and for [`DeliveryGit::is_ancestor`]
//! between two of them (the append-only rule's fast-forward check): the
//! wrapped repository's history does not hold them, so
//! [`DeliveryGit::peel_commit`] answers `None` for one.
//!
//! What the server's `ls-remote` of itself would advertise
//! ([`DeliveryGit::remote_tips`]) is what the test sets with
//! [`WithNotes::advertise`]; until then the wrapped repository answers.

use std::collections::BTreeMap;
use std::sync::MutexGuard;

use probity_core::digest::{Domain, Sha256Digest};
use probity_core::review::DeltaEntry;
use probity_core::review::Hunk;
use probity_core::review::ManifestEntry;
use probity_core::review::RangeCommit;
use probity_core::review::Symlink;
use probity_core::review::{CandidateObservation, ChangedFile, LiveTarget};
use probity_core::review::{CommitId, IdError, LineageId, RepoPath, TreeId};
use probity_ports::review::{
    AdapterError, CommitGit, ExportGit, GitPort, ManifestGit, NotesGit, RangeGit, RemoteScope,
    RevisionGit, TreeSpan,
};

use crate::git::{FakeState, Injectable};

/// Why the in-memory notes could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FakeNotesError {
    /// A notes commit this repository never made; carries its id.
    #[error("no notes commit {0} in the fake repository")]
    UnknownNotesCommit(String),
    /// The compare-and-swap of `refs/notes/probity` failed: the ref is not
    /// at the tip the write was derived from.
    #[error("refs/notes/probity moved: expected {expected}, found {found}")]
    Stale {
        /// The tip the writer expected (`none`: no ref).
        expected: String,
        /// The tip the ref names now (`none`: no ref).
        found: String,
    },
    /// The test made this method fail ([`WithNotes::fail`]).
    #[error("injected failure of `{0}`")]
    Injected(&'static str),
    /// A derived notes commit id did not parse (never, for 40 hex).
    #[error(transparent)]
    Id(#[from] IdError),
}

/// One notes commit: every note it holds and its parent.
#[derive(Debug, Clone)]
struct NotesCommit {
    parent: Option<CommitId>,
    notes: BTreeMap<CommitId, Vec<u8>>,
}

#[derive(Debug, Default)]
struct Notes {
    commits: BTreeMap<CommitId, NotesCommit>,
    tip: Option<CommitId>,
    protected: Vec<String>,
    allow_deletion: bool,
    advertised: Option<Vec<(String, CommitId)>>,
    moves: usize,
}

const NOTES_COMMIT: Domain = Domain::new("probity-testkit/notes-commit");

fn shown(c: Option<&CommitId>) -> String {
    c.map_or_else(|| "none".to_string(), ToString::to_string)
}

impl FakeState for Notes {
    type Error = FakeNotesError;
    fn injected(method: &'static str) -> FakeNotesError {
        FakeNotesError::Injected(method)
    }
}

impl Notes {
    fn get(&self, id: &CommitId) -> Result<&NotesCommit, FakeNotesError> {
        self.commits
            .get(id)
            .ok_or_else(|| FakeNotesError::UnknownNotesCommit(id.to_string()))
    }

    /// A new notes commit on `parent` with `notes` added (an existing note
    /// of the same commit replaced, as `git notes add -f` does).
    fn make(
        &mut self,
        parent: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
    ) -> Result<CommitId, FakeNotesError> {
        let mut all = match parent {
            Some(p) => self.get(p)?.notes.clone(),
            None => BTreeMap::new(),
        };
        for (commit, bytes) in notes {
            all.insert(commit.clone(), bytes.clone());
        }
        let mut seed = format!("parent {}\n", shown(parent)).into_bytes();
        for (commit, bytes) in &all {
            seed.extend_from_slice(format!("{commit} {}\n", Sha256Digest::plain(bytes)).as_bytes());
        }
        let hex = Sha256Digest::of(NOTES_COMMIT, &seed).hex();
        let id = CommitId::parse(&hex[..40])?;
        self.commits.insert(
            id.clone(),
            NotesCommit {
                parent: parent.cloned(),
                notes: all,
            },
        );
        Ok(id)
    }

    /// Whether `ancestor` is `descendant` or one of its parents, both notes
    /// commits.
    fn descends(&self, ancestor: &CommitId, descendant: &CommitId) -> bool {
        let mut at = Some(descendant.clone());
        while let Some(id) = at {
            if id == *ancestor {
                return true;
            }
            at = self.commits.get(&id).and_then(|c| c.parent.clone());
        }
        false
    }
}

/// A fake Git with `refs/notes/probity` in memory: the wrapped repository
/// answers every other port method unchanged.
#[derive(Debug)]
pub struct WithNotes<'g, G: ?Sized> {
    git: &'g G,
    notes: Injectable<Notes>,
}

impl<'g, G: ?Sized> WithNotes<'g, G> {
    /// `git` with no notes ref, no protected-refs setting (the default,
    /// `refs/heads/*`) and nothing advertised of its own.
    pub fn new(git: &'g G) -> Self {
        Self {
            git,
            notes: Injectable::default(),
        }
    }

    /// The wrapped repository.
    pub fn inner(&self) -> &'g G {
        self.git
    }

    fn state(&self) -> MutexGuard<'_, Notes> {
        self.notes.lock()
    }

    /// Sets `probity.protectedRefs` (multi-valued; empty: unset).
    pub fn protect(&self, globs: &[&str]) {
        self.state().protected = globs.iter().map(|g| g.to_string()).collect();
    }

    /// Sets `probity.allowProtectedDeletion`.
    pub fn allow_protected_deletion(&self, allowed: bool) {
        self.state().allow_deletion = allowed;
    }

    /// What `ls-remote` of this repository answers from now on: its branch
    /// and tag tips (a server's own refs before the push).
    pub fn advertise(&self, tips: &[(&str, CommitId)]) {
        self.state().advertised = Some(
            tips.iter()
                .map(|(name, c)| (name.to_string(), c.clone()))
                .collect(),
        );
    }

    /// The commit `refs/notes/probity` names, if any.
    pub fn notes_ref(&self) -> Option<CommitId> {
        self.state().tip.clone()
    }

    /// Moves (or, with `None`, deletes) `refs/notes/probity` without a
    /// check, keeping every notes commit: a server whose ref is older than
    /// the notes a push brings.
    pub fn set_notes_ref(&self, tip: Option<CommitId>) {
        self.state().tip = tip;
    }

    /// Makes a notes commit on `parent` with `notes` added, without moving
    /// the ref (a pushed notes commit not yet accepted, or a rewritten
    /// history when `parent` is not the tip).
    pub fn notes_commit(
        &self,
        parent: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
    ) -> Result<CommitId, FakeNotesError> {
        self.state().make(parent, notes)
    }

    /// The note of `commit` at the ref's tip, if any.
    pub fn note(&self, commit: &CommitId) -> Option<Vec<u8>> {
        let n = self.state();
        let tip = n.tip.as_ref()?;
        n.commits.get(tip)?.notes.get(commit).cloned()
    }

    /// Every note at the ref's tip: equal answers mean no note changed.
    pub fn all_notes(&self) -> BTreeMap<CommitId, Vec<u8>> {
        let n = self.state();
        n.tip
            .as_ref()
            .and_then(|t| n.commits.get(t))
            .map(|c| c.notes.clone())
            .unwrap_or_default()
    }

    /// How many times [`NotesGit::write_notes`] moved the ref.
    pub fn notes_writes(&self) -> usize {
        self.state().moves
    }

    /// Makes a [`NotesGit`] method (`"notes_tip"`, `"read_note"`,
    /// `"write_notes"`, `"protected_refs"`, `"allows_protected_deletion"`)
    /// fail with
    /// [`FakeNotesError::Injected`] until [`WithNotes::heal`].
    pub fn fail(&self, method: &'static str) {
        self.notes.fail(method);
    }

    /// Undoes [`WithNotes::fail`].
    pub fn heal(&self, method: &'static str) {
        self.notes.heal(method);
    }

    fn is_notes_commit(&self, id: &CommitId) -> bool {
        self.state().commits.contains_key(id)
    }
}

impl<G: ?Sized> NotesGit for WithNotes<'_, G> {
    fn notes_tip(&self) -> Result<Option<CommitId>, AdapterError> {
        self.notes.with("notes_tip", |n| Ok(n.tip.clone()))
    }

    fn read_note(
        &self,
        notes: &CommitId,
        commit: &CommitId,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        self.notes.with("read_note", |n| {
            Ok(n.get(notes)?.notes.get(commit).map(|b| {
                // At most `cap + 1` bytes, as the git adapter reads them.
                b[..b.len().min(cap.saturating_add(1))].to_vec()
            }))
        })
    }

    fn notes_naming(
        &self,
        notes: &CommitId,
        needle: &str,
        cap: usize,
    ) -> Result<Vec<CommitId>, AdapterError> {
        self.notes.with("notes_naming", |n| {
            Ok(n.get(notes)?
                .notes
                .iter()
                .filter(|(_, b)| {
                    b.windows(needle.len().max(1))
                        .any(|w| w == needle.as_bytes())
                })
                .map(|(c, _)| c.clone())
                .take(cap)
                .collect())
        })
    }

    fn write_notes(
        &self,
        expected: Option<&CommitId>,
        notes: &[(CommitId, Vec<u8>)],
        // In memory every tree is always held and nothing travels: there
        // is nothing to anchor.
        _anchor: &[TreeId],
    ) -> Result<(), AdapterError> {
        self.notes.with("write_notes", |n| {
            // As the git adapter: nothing to write touches nothing.
            if notes.is_empty() {
                return Ok(());
            }
            if n.tip.as_ref() != expected {
                return Err(FakeNotesError::Stale {
                    expected: shown(expected),
                    found: shown(n.tip.as_ref()),
                });
            }
            let new = n.make(expected, notes)?;
            n.tip = Some(new);
            n.moves += 1;
            Ok(())
        })
    }

    fn protected_refs(&self) -> Result<Vec<String>, AdapterError> {
        self.notes
            .with("protected_refs", |n| Ok(n.protected.clone()))
    }

    fn allows_protected_deletion(&self) -> Result<bool, AdapterError> {
        self.notes
            .with("allows_protected_deletion", |n| Ok(n.allow_deletion))
    }

    fn changed_notes(&self, old: &CommitId, new: &CommitId) -> Result<Vec<CommitId>, AdapterError> {
        self.notes.with("changed_notes", |n| {
            let (before, after) = (&n.get(old)?.notes, &n.get(new)?.notes);
            // A BTreeMap iterates sorted, as the git adapter answers.
            Ok(before
                .iter()
                .filter(|(c, bytes)| after.get(*c) != Some(*bytes))
                .map(|(c, _)| c.clone())
                .collect())
        })
    }

    fn added_note_files(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
    ) -> Result<Vec<probity_core::review::AddedNoteFile>, AdapterError> {
        self.notes.with("added_note_files", |n| {
            let after = &n.get(new)?.notes;
            let before = match old {
                Some(o) => Some(&n.get(o)?.notes),
                None => None,
            };
            // In memory a note sits at its commit's id (no fan-out, so no
            // other path); a BTreeMap iterates sorted, as the git adapter
            // answers. A changed note adds what it grew by.
            Ok(after
                .iter()
                .filter_map(|(c, b)| {
                    let held = before.and_then(|m| m.get(c));
                    (held != Some(b)).then(|| probity_core::review::AddedNoteFile {
                        path: c.as_str().to_owned(),
                        size: b.len() as u64,
                        added_bytes: b.len().saturating_sub(held.map_or(0, Vec::len)) as u64,
                        other_paths: Vec::new(),
                    })
                })
                .collect())
        })
    }

    fn own_tips(&self) -> Result<Vec<(String, CommitId)>, AdapterError> {
        // In memory there are no refs besides the notes.
        Ok(Vec::new())
    }

    fn notes_history(
        &self,
        old: Option<&CommitId>,
        new: &CommitId,
        _holds: probity_ports::review::NotesHolds<'_>,
    ) -> Result<probity_core::review::NotesHistory, AdapterError> {
        // In memory a notes commit is its notes, with no other parent and
        // no tree of other files: it brings nothing besides its notes.
        self.notes.with("notes_history", |n| {
            n.get(new)?;
            if let Some(o) = old {
                n.get(o)?;
            }
            Ok(probity_core::review::NotesHistory::default())
        })
    }

    fn left_to_notes(
        &self,
        notes: &CommitId,
        _dropped: &[CommitId],
        _updated: &[(&str, Option<&CommitId>)],
    ) -> Result<u64, AdapterError> {
        // In memory no ref holds objects besides the notes: a notes commit
        // is its notes, counted when it was added.
        self.notes.with("left_to_notes", |n| {
            n.get(notes)?;
            Ok(0)
        })
    }
}

impl<G: GitPort + ?Sized> GitPort for WithNotes<'_, G> {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        self.git.observe_candidate()
    }

    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        self.git.live_target()
    }

    fn staged_target(&self, index: &std::path::Path) -> Result<LiveTarget, AdapterError> {
        self.git.staged_target(index)
    }

    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError> {
        self.git.differing_paths(span)
    }

    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError> {
        self.git.tree_delta(span)
    }

    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError> {
        self.git.diff_files(span)
    }

    fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, AdapterError> {
        self.git.symlinks(trees)
    }

    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError> {
        self.git.hunks(span, path)
    }

    fn list_followed(
        &self,
        dirs: &[(&TreeId, &str)],
        below: bool,
        limit: usize,
    ) -> Result<Vec<probity_core::review::Listed>, AdapterError> {
        self.git.list_followed(dirs, below, limit)
    }

    fn list_matching(
        &self,
        asks: &[(&TreeId, &probity_core::review::Matching)],
        limit: usize,
    ) -> Result<Vec<probity_core::review::Listed>, AdapterError> {
        self.git.list_matching(asks, limit)
    }

    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        self.git.line_count(tree, path)
    }

    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        self.git.read_path(tree, path, cap)
    }

    fn keep_trees(
        &self,
        lineage: &LineageId,
        trees: &[(&str, &TreeId)],
    ) -> Result<(), AdapterError> {
        self.git.keep_trees(lineage, trees)
    }

    fn committed_change(&self, span: TreeSpan<'_>) -> Result<bool, AdapterError> {
        self.git.committed_change(span)
    }

    fn committed_commit(
        &self,
        span: TreeSpan<'_>,
    ) -> Result<Option<probity_core::review::RangeCommit>, AdapterError> {
        self.git.committed_commit(span)
    }

    fn check_keep_trees(&self) -> Result<(), AdapterError> {
        self.git.check_keep_trees()
    }
}

impl<G: ExportGit + ?Sized> ExportGit for WithNotes<'_, G> {
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError> {
        self.git.missing_objects(ids)
    }

    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError> {
        self.git.frozen_diff(span, cap)
    }

    fn version(&self) -> Result<String, AdapterError> {
        self.git.version()
    }
}

impl<G: ManifestGit + ?Sized> ManifestGit for WithNotes<'_, G> {
    fn manifest(&self, span: TreeSpan<'_>) -> Result<Vec<ManifestEntry>, AdapterError> {
        self.git.manifest(span)
    }
}

impl<G: RevisionGit + ?Sized> RevisionGit for WithNotes<'_, G> {
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError> {
        self.git.resolve_commit(rev)
    }

    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        self.git.find_commit(rev)
    }
}

impl<G: CommitGit + ?Sized> CommitGit for WithNotes<'_, G> {
    fn observe_commit(&self, commit: &RangeCommit) -> Result<CandidateObservation, AdapterError> {
        self.git.observe_commit(commit)
    }

    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError> {
        self.git.commit_tree(id)
    }

    fn empty_tree(&self) -> Result<TreeId, AdapterError> {
        self.git.empty_tree()
    }
}

impl<G: RangeGit + ?Sized> RangeGit for WithNotes<'_, G> {
    fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, AdapterError> {
        if self.is_notes_commit(id) {
            return Ok(None);
        }
        self.git.peel_commit(id)
    }

    fn is_ancestor(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<bool, AdapterError> {
        match (
            self.is_notes_commit(ancestor),
            self.is_notes_commit(descendant),
        ) {
            (true, true) => Ok(self.state().descends(ancestor, descendant)),
            (false, false) => self.git.is_ancestor(ancestor, descendant),
            // The notes history and the repository's share no commit.
            _ => Ok(false),
        }
    }

    fn remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, AdapterError> {
        let advertised = self.state().advertised.clone();
        match advertised {
            Some(tips) => Ok(tips),
            None => self.git.remote_tips(remote),
        }
    }

    fn range(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
        limit: usize,
    ) -> Result<Vec<RangeCommit>, AdapterError> {
        self.git.range(tip, exclude, remotes, limit)
    }

    fn range_len(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
    ) -> Result<usize, AdapterError> {
        self.git.range_len(tip, exclude, remotes)
    }

    fn history_deltas(
        &self,
        reviewed: &TreeId,
        trees: &[TreeId],
    ) -> Result<Vec<Option<Vec<DeltaEntry>>>, AdapterError> {
        self.git.history_deltas(reviewed, trees)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FakeGit;

    #[test]
    fn writes_are_compare_and_swap_and_histories_fast_forward() {
        let git = FakeGit::with_base(&[("a", "1\n")]).unwrap();
        let head = git.head().unwrap();
        let n = WithNotes::new(&git);
        assert_eq!(n.notes_tip().unwrap(), None);
        n.write_notes(None, &[(head.clone(), b"one\n".to_vec())], &[])
            .unwrap();
        let first = n.notes_tip().unwrap().unwrap();
        assert_eq!(
            n.read_note(&first, &head, 100).unwrap(),
            Some(b"one\n".to_vec())
        );
        // Read at most `cap + 1` bytes.
        assert_eq!(n.read_note(&first, &head, 1).unwrap(), Some(b"on".to_vec()));
        // A stale expectation is refused, the ref unchanged.
        assert!(
            n.write_notes(None, &[(head.clone(), b"x\n".to_vec())], &[])
                .is_err()
        );
        assert_eq!(n.notes_ref(), Some(first.clone()));
        n.write_notes(Some(&first), &[(head.clone(), b"two\n".to_vec())], &[])
            .unwrap();
        let second = n.notes_ref().unwrap();
        assert!(n.is_ancestor(&first, &second).unwrap());
        assert!(!n.is_ancestor(&second, &first).unwrap());
        assert!(!n.is_ancestor(&first, &head).unwrap());
        assert_eq!(n.peel_commit(&second).unwrap(), None);
        assert_eq!(n.peel_commit(&head).unwrap(), Some(head.clone()));
        // The old notes commit still answers for what it held.
        assert_eq!(
            n.read_note(&first, &head, 100).unwrap(),
            Some(b"one\n".to_vec())
        );
        assert_eq!(n.notes_writes(), 2);
        // An empty write touches nothing, whatever the expectation.
        n.write_notes(None, &[], &[]).unwrap();
        assert_eq!(n.notes_writes(), 2);
        n.fail("notes_tip");
        assert!(n.notes_tip().is_err());
        n.heal("notes_tip");
        assert_eq!(n.notes_tip().unwrap(), Some(second));
    }

    #[test]
    fn protected_refs_and_advertised_tips_are_what_the_test_set() {
        let git = FakeGit::with_base(&[("a", "1\n")]).unwrap();
        let n = WithNotes::new(&git);
        assert!(n.protected_refs().unwrap().is_empty());
        assert!(n.remote_tips(".").is_err(), "the fake Git has no remote");
        n.protect(&["refs/heads/main"]);
        n.advertise(&[("refs/heads/main", git.head().unwrap())]);
        assert_eq!(n.protected_refs().unwrap(), ["refs/heads/main"]);
        assert_eq!(n.remote_tips(".").unwrap().len(), 1);
    }
}
