//! A fake Git over an in-memory scenario: a committed base (a linear
//! history of commits), a live worktree (the synthetic candidate), an
//! optional staged index and the intended untracked files. It implements
//! [`GitPort`], [`ExportGit`] and [`DeliveryGit`], enough for start →
//! finalize → the gates; what it cannot answer (a remote, a merge) is a
//! typed [`FakeGitError`], never a panic.
//!
//! Object ids are derived from content (a domain-separated SHA-256 cut to
//! 40 hex characters), so equal trees have equal ids and every id is
//! reproducible. Line counts and hunks come from a one-hunk line diff
//! (common prefix and suffix kept, the middle replaced): not git's minimal
//! diff, but a consistent one, which is all the drivers compare.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};

use probity_core::digest::{Domain, Sha256Digest};
use probity_core::review::Hunk;
use probity_core::review::RangeCommit;
use probity_core::review::Symlink;
use probity_core::review::{BlobId, CommitId, IdError, ObjectId, RepoPath, TreeId};
use probity_core::review::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount, LiveTarget,
};
use probity_core::review::{ChangeStatus, ManifestEntry};
use probity_core::review::{DeltaEntry, EntrySide};
use probity_ports::review::{
    AdapterError, CommitGit, ExportGit, GitPort, ManifestGit, RangeGit, RemoteScope, RevisionGit,
    TreeSpan,
};

/// Why the fake could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FakeGitError {
    /// The fake does not model this (a remote, history rewriting, ...).
    #[error("the fake Git does not model `{0}`")]
    Unsupported(&'static str),
    /// The test made this method fail ([`FakeGit::fail`]).
    #[error("injected failure of `{0}`")]
    Injected(&'static str),
    /// A tree id the fake never stored (it knows only trees it built);
    /// carries the id.
    #[error("no tree {0} in the fake repository")]
    UnknownTree(String),
    /// A revision (an id, `HEAD`, `HEAD~N`) that names no commit of the fake
    /// history; carries it.
    #[error("`{0}` does not name a commit in the fake repository")]
    UnknownRevision(String),
    /// A commit observed as a candidate has several parents; carries its
    /// id.
    #[error("{0} is a merge commit; the fake history is linear")]
    Merge(String),
    /// The test named a worktree file that does not exist.
    #[error("{path} is not in the worktree")]
    NoSuchFile {
        /// The repository-relative path.
        path: String,
    },
    /// The test marked a file intended untracked that the base tree has.
    #[error("{path} cannot be intended untracked: it is in the base tree")]
    Tracked {
        /// The repository-relative path.
        path: String,
    },
    /// A path or object id the test gave does not parse.
    #[error(transparent)]
    Id(#[from] IdError),
}

type Files = BTreeMap<RepoPath, (FileMode, Vec<u8>)>;

#[derive(Debug, Clone)]
struct Commit {
    id: CommitId,
    tree: TreeId,
    parent: Option<CommitId>,
}

impl Commit {
    /// The commit as a range lists it.
    fn listed(&self) -> RangeCommit {
        RangeCommit {
            commit: self.id.clone(),
            tree: self.tree.clone(),
            parents: self.parent.iter().cloned().collect(),
        }
    }
}

#[derive(Debug, Default)]
struct World {
    trees: BTreeMap<TreeId, Files>,
    commits: Vec<Commit>,
    worktree: Files,
    /// What the index would commit; `None`: the worktree.
    index: Option<Files>,
    untracked: BTreeSet<RepoPath>,
}

const TREE: Domain = Domain::new("probity-testkit/tree");
const BLOB: Domain = Domain::new("probity-testkit/blob");
const COMMIT: Domain = Domain::new("probity-testkit/commit");

fn object_hex(domain: Domain, bytes: &[u8]) -> String {
    let hex = Sha256Digest::of(domain, bytes).hex();
    hex[..40].to_string()
}

fn blob_hex(bytes: &[u8]) -> String {
    object_hex(BLOB, bytes)
}

fn tree_id(files: &Files) -> Result<TreeId, IdError> {
    let mut listing = Vec::new();
    for (path, (mode, bytes)) in files {
        listing.extend_from_slice(
            format!("{} {}\0{}\n", mode.octal(), path, blob_hex(bytes)).as_bytes(),
        );
    }
    TreeId::parse(object_hex(TREE, &listing))
}

/// Text lines of `bytes`, each with its line feed (a last line may lack it).
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|b| *b == b'\n').collect()
}

/// The one-hunk line diff: common prefix and suffix lengths.
fn common(old: &[&[u8]], new: &[&[u8]]) -> (usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// (added, removed, the new side's hunk) between two blobs.
fn line_diff(old: &[u8], new: &[u8]) -> (u64, u64, Option<Hunk>) {
    let (a, b) = (lines(old), lines(new));
    let (prefix, suffix) = common(&a, &b);
    let removed = (a.len() - prefix - suffix) as u64;
    let added = (b.len() - prefix - suffix) as u64;
    let hunk = match (added, removed) {
        (0, 0) => None,
        // A pure deletion: git's `-U0` names the line after which.
        (0, _) => Some(Hunk {
            start: prefix as u64,
            count: 0,
        }),
        _ => Some(Hunk {
            start: prefix as u64 + 1,
            count: added,
        }),
    };
    (added, removed, hunk)
}

fn content(side: Entry<'_>) -> CandidateContent {
    match side {
        Some((FileMode::Gitlink, _)) | None => CandidateContent::Absent,
        Some((_, bytes)) => CandidateContent::Bytes {
            bytes: bytes.clone(),
            complete: true,
        },
    }
}

/// One side of a path: its mode and bytes, `None` when absent.
type Entry<'a> = Option<&'a (FileMode, Vec<u8>)>;

/// The paths whose entries differ between two trees, with both sides.
fn changes<'a>(from: &'a Files, to: &'a Files) -> Vec<(&'a RepoPath, Entry<'a>, Entry<'a>)> {
    let paths: BTreeSet<&RepoPath> = from.keys().chain(to.keys()).collect();
    paths
        .into_iter()
        .filter_map(|p| {
            let (a, b) = (from.get(p), to.get(p));
            (a != b).then_some((p, a, b))
        })
        .collect()
}

fn changed_file(path: &RepoPath, old: Entry<'_>, new: Entry<'_>) -> ChangedFile {
    let empty = Vec::new();
    let old_bytes = old.map_or(&empty, |(_, b)| b);
    let new_bytes = new.map_or(&empty, |(_, b)| b);
    let (added, removed, _) = line_diff(old_bytes, new_bytes);
    let (base_content, content) = (content(old), content(new));
    ChangedFile {
        path: path.clone(),
        old_mode: old.map(|(m, _)| *m),
        new_mode: new.map(|(m, _)| *m),
        lines: LineCount::classify(added, removed, &base_content, &content),
        text_lines: added + removed,
        content,
        base_content,
    }
}

fn side(entry: Entry<'_>) -> Result<Option<EntrySide>, IdError> {
    entry
        .map(|(mode, bytes)| {
            Ok(EntrySide {
                mode: *mode,
                object: ObjectId::parse(blob_hex(bytes))?,
            })
        })
        .transpose()
}

fn blob(entry: Entry<'_>) -> Result<Option<BlobId>, IdError> {
    match entry {
        Some((FileMode::Gitlink, _)) | None => Ok(None),
        Some((_, bytes)) => BlobId::parse(blob_hex(bytes)).map(Some),
    }
}

impl World {
    fn tree(&self, id: &TreeId) -> Result<&Files, FakeGitError> {
        self.trees
            .get(id)
            .ok_or_else(|| FakeGitError::UnknownTree(id.to_string()))
    }

    /// Registers a tree (content-addressed) and answers its id.
    fn put(&mut self, files: Files) -> Result<TreeId, FakeGitError> {
        let id = tree_id(&files)?;
        self.trees.entry(id.clone()).or_insert(files);
        Ok(id)
    }

    fn empty_tree(&mut self) -> Result<TreeId, FakeGitError> {
        self.put(Files::new())
    }

    fn head(&self) -> Option<&Commit> {
        self.commits.last()
    }

    fn base(&mut self) -> Result<TreeId, FakeGitError> {
        match self.head() {
            Some(c) => Ok(c.tree.clone()),
            None => self.empty_tree(),
        }
    }

    fn commit(&self, id: &CommitId) -> Option<&Commit> {
        self.commits.iter().find(|c| c.id == *id)
    }

    /// Whether `c` makes the change `span`: its tree is `span.to` and its
    /// parent's tree (a root commit: `empty`) is `span.from`.
    fn makes(&self, c: &Commit, empty: &TreeId, span: TreeSpan<'_>) -> bool {
        let parent_tree = c
            .parent
            .as_ref()
            .and_then(|p| self.commit(p))
            .map_or(empty, |p| &p.tree);
        c.tree == *span.to && parent_tree == span.from
    }

    fn observe(
        &mut self,
        base: TreeId,
        candidate: TreeId,
        untracked: Vec<RepoPath>,
    ) -> Result<CandidateObservation, FakeGitError> {
        let changed = changes(self.tree(&base)?, self.tree(&candidate)?)
            .into_iter()
            .map(|(p, a, b)| changed_file(p, a, b))
            .collect();
        Ok(CandidateObservation {
            base_tree: base,
            candidate_tree: candidate,
            unborn_head: self.commits.is_empty(),
            changed,
            intended_untracked: untracked,
        })
    }

    /// The commits from `tip` back to the root, newest first.
    fn ancestry(&self, tip: &CommitId) -> Result<Vec<&Commit>, FakeGitError> {
        let mut out = Vec::new();
        let mut at = Some(tip.clone());
        while let Some(id) = at {
            let c = self
                .commit(&id)
                .ok_or_else(|| FakeGitError::UnknownRevision(id.to_string()))?;
            out.push(c);
            at = c.parent.clone();
        }
        Ok(out)
    }

    fn range(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
    ) -> Result<Vec<RangeCommit>, FakeGitError> {
        let mut hidden = BTreeSet::new();
        for e in exclude {
            // An excluded commit this repository lacks hides nothing.
            if self.commit(e).is_some() {
                hidden.extend(self.ancestry(e)?.into_iter().map(|c| c.id.clone()));
            }
        }
        Ok(self
            .ancestry(tip)?
            .into_iter()
            .take_while(|c| !hidden.contains(&c.id))
            .map(Commit::listed)
            .collect())
    }
}

fn repo(e: FakeGitError) -> AdapterError {
    Box::new(e)
}

/// What a fake keeps behind its lock: the error its answers fail with, and
/// how an injected failure of a method reads.
pub(crate) trait FakeState {
    /// The fake's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The failure [`Injectable::fail`] makes `method` answer.
    fn injected(method: &'static str) -> Self::Error;
}

impl FakeState for World {
    type Error = FakeGitError;
    fn injected(method: &'static str) -> FakeGitError {
        FakeGitError::Injected(method)
    }
}

/// A fake's state behind a mutex (so a test edits it between driver calls
/// while the drivers hold `&`), and the methods the test made fail: what
/// [`FakeGit`] and [`crate::WithNotes`] share.
#[derive(Debug, Default)]
pub(crate) struct Injectable<S> {
    state: Mutex<S>,
    failing: Mutex<BTreeSet<&'static str>>,
}

impl<S> Injectable<S> {
    /// The state, locked (a poisoned lock still answers: a test that
    /// panicked holding it has already failed).
    pub(crate) fn lock(&self) -> MutexGuard<'_, S> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn failing(&self) -> MutexGuard<'_, BTreeSet<&'static str>> {
        self.failing.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes `method` fail until [`Injectable::heal`].
    pub(crate) fn fail(&self, method: &'static str) {
        self.failing().insert(method);
    }

    /// Undoes [`Injectable::fail`].
    pub(crate) fn heal(&self, method: &'static str) {
        self.failing().remove(method);
    }
}

impl<S: FakeState> Injectable<S> {
    /// Answers port method `method` with `f` over the locked state, or
    /// with its injected failure.
    pub(crate) fn with<T>(
        &self,
        method: &'static str,
        f: impl FnOnce(&mut S) -> Result<T, S::Error>,
    ) -> Result<T, AdapterError> {
        if self.failing().contains(method) {
            return Err(Box::new(S::injected(method)));
        }
        f(&mut self.lock()).map_err(|e| Box::new(e) as AdapterError)
    }
}

/// The fake repository. Interior mutability (a mutex) lets a test edit the
/// worktree between driver calls while the drivers hold `&FakeGit`.
#[derive(Debug, Default)]
pub struct FakeGit {
    world: Injectable<World>,
}

impl FakeGit {
    /// An unborn repository with an empty worktree.
    pub fn unborn() -> Self {
        Self::default()
    }

    /// A repository whose one commit holds `files` (path, text), with the
    /// worktree equal to it.
    pub fn with_base(files: &[(&str, &str)]) -> Result<Self, FakeGitError> {
        let git = Self::unborn();
        for (path, text) in files {
            git.write(path, text)?;
        }
        git.commit("base")?;
        Ok(git)
    }

    fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock()
    }

    /// Writes a regular file into the worktree.
    pub fn write(&self, path: &str, bytes: impl AsRef<[u8]>) -> Result<(), FakeGitError> {
        self.write_mode(path, FileMode::Regular, bytes)
    }

    /// Writes a file with `mode` into the worktree.
    pub fn write_mode(
        &self,
        path: &str,
        mode: FileMode,
        bytes: impl AsRef<[u8]>,
    ) -> Result<(), FakeGitError> {
        let path = RepoPath::parse(path)?;
        self.world()
            .worktree
            .insert(path, (mode, bytes.as_ref().to_vec()));
        Ok(())
    }

    /// Removes a file from the worktree.
    pub fn remove(&self, path: &str) -> Result<(), FakeGitError> {
        let path = RepoPath::parse(path)?;
        let mut w = self.world();
        w.untracked.remove(&path);
        match w.worktree.remove(&path) {
            Some(_) => Ok(()),
            None => Err(FakeGitError::NoSuchFile {
                path: path.to_string(),
            }),
        }
    }

    /// Marks a new worktree file as intended untracked (not in the index
    /// yet, part of the synthetic candidate).
    pub fn mark_untracked(&self, path: &str) -> Result<(), FakeGitError> {
        let path = RepoPath::parse(path)?;
        let mut w = self.world();
        if !w.worktree.contains_key(&path) {
            return Err(FakeGitError::NoSuchFile {
                path: path.to_string(),
            });
        }
        let base = w.base()?;
        if w.tree(&base)?.contains_key(&path) {
            return Err(FakeGitError::Tracked {
                path: path.to_string(),
            });
        }
        w.untracked.insert(path);
        Ok(())
    }

    /// Stages the worktree as it is now: `staged_target` answers this tree
    /// until the next stage or commit, whatever the worktree becomes.
    pub fn stage(&self) {
        let mut w = self.world();
        w.index = Some(w.worktree.clone());
    }

    /// Commits what a commit would deliver (the staged index, else the
    /// worktree): a new HEAD whose parent is the old one. Returns its id.
    pub fn commit(&self, message: &str) -> Result<CommitId, FakeGitError> {
        let mut w = self.world();
        let files = w.index.take().unwrap_or_else(|| w.worktree.clone());
        let tree = w.put(files)?;
        let parent = w.head().map(|c| c.id.clone());
        let seed = format!(
            "{tree}\n{}\n{}\n{message}",
            parent.as_ref().map_or("", |p| p.as_str()),
            w.commits.len()
        );
        let id = CommitId::parse(object_hex(COMMIT, seed.as_bytes()))?;
        w.commits.push(Commit {
            id: id.clone(),
            tree,
            parent,
        });
        w.untracked.clear();
        Ok(id)
    }

    /// HEAD's commit, if any.
    pub fn head(&self) -> Option<CommitId> {
        self.world().head().map(|c| c.id.clone())
    }

    /// The base tree (HEAD's tree; the empty tree when unborn).
    pub fn base_tree(&self) -> Result<TreeId, FakeGitError> {
        self.world().base()
    }

    /// The live candidate tree (the worktree).
    pub fn candidate_tree(&self) -> Result<TreeId, FakeGitError> {
        let mut w = self.world();
        let files = w.worktree.clone();
        w.put(files)
    }

    /// Makes `method` (a trait method's name, e.g. `"live_target"`) fail
    /// with [`FakeGitError::Injected`] until [`FakeGit::heal`].
    pub fn fail(&self, method: &'static str) {
        self.world.fail(method);
    }

    /// Undoes [`FakeGit::fail`].
    pub fn heal(&self, method: &'static str) {
        self.world.heal(method);
    }
}

/// The version [`ExportGit::version`] reports.
pub const FAKE_GIT_VERSION: &str = "git version 2.45.0 (probity-testkit fake)";

impl GitPort for FakeGit {
    fn observe_candidate(&self) -> Result<CandidateObservation, AdapterError> {
        self.world.with("observe_candidate", |w| {
            let base = w.base()?;
            let files = w.worktree.clone();
            let candidate = w.put(files)?;
            let untracked = w.untracked.iter().cloned().collect();
            w.observe(base, candidate, untracked)
        })
    }

    fn live_target(&self) -> Result<LiveTarget, AdapterError> {
        self.world.with("live_target", |w| {
            let base = w.base()?;
            let files = w.worktree.clone();
            Ok(LiveTarget::new(base, w.put(files)?))
        })
    }

    fn staged_target(&self, _index: &std::path::Path) -> Result<LiveTarget, AdapterError> {
        self.world.with("staged_target", |w| {
            let base = w.base()?;
            let files = w.index.clone().unwrap_or_else(|| w.worktree.clone());
            Ok(LiveTarget::new(base, w.put(files)?))
        })
    }

    fn differing_paths(&self, span: TreeSpan<'_>) -> Result<Vec<RepoPath>, AdapterError> {
        self.world.with("differing_paths", |w| {
            Ok(changes(w.tree(span.from)?, w.tree(span.to)?)
                .into_iter()
                .map(|(p, _, _)| p.clone())
                .collect())
        })
    }

    fn tree_delta(&self, span: TreeSpan<'_>) -> Result<Option<Vec<DeltaEntry>>, AdapterError> {
        self.world.with("tree_delta", |w| {
            let mut out = Vec::new();
            for (path, a, b) in changes(w.tree(span.from)?, w.tree(span.to)?) {
                out.push(DeltaEntry {
                    path: path.clone(),
                    base: side(a)?,
                    candidate: side(b)?,
                });
            }
            Ok(Some(out))
        })
    }

    fn diff_files(&self, span: TreeSpan<'_>) -> Result<Vec<ChangedFile>, AdapterError> {
        self.world.with("diff_files", |w| {
            Ok(changes(w.tree(span.from)?, w.tree(span.to)?)
                .into_iter()
                .map(|(p, a, b)| changed_file(p, a, b))
                .collect())
        })
    }

    fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, AdapterError> {
        self.world.with("symlinks", |w| {
            trees
                .iter()
                .map(|t| {
                    Ok(w.tree(t)?
                        .iter()
                        .filter(|(_, (mode, _))| *mode == FileMode::Symlink)
                        .map(|(path, (_, target))| Symlink {
                            path: path.clone(),
                            target: target.clone(),
                        })
                        .collect())
                })
                .collect()
        })
    }

    fn hunks(&self, span: TreeSpan<'_>, path: &RepoPath) -> Result<Vec<Hunk>, AdapterError> {
        self.world.with("hunks", |w| {
            let empty = Vec::new();
            let old = w.tree(span.from)?.get(path).map_or(&empty, |(_, b)| b);
            let new = w.tree(span.to)?.get(path).map_or(&empty, |(_, b)| b);
            Ok(line_diff(old, new).2.into_iter().collect())
        })
    }

    fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, AdapterError> {
        self.world.with("line_count", |w| {
            Ok(w.tree(tree)?.get(path).map(|(_, b)| lines(b).len() as u64))
        })
    }

    fn read_path(
        &self,
        tree: &TreeId,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, AdapterError> {
        self.world.with("read_path", |w| {
            let Ok(path) = RepoPath::parse(path) else {
                return Ok(None);
            };
            Ok(w.tree(tree)?
                .get(&path)
                .map(|(_, b)| b[..b.len().min(cap + 1)].to_vec()))
        })
    }

    fn committed_change(&self, span: TreeSpan<'_>) -> Result<bool, AdapterError> {
        self.world.with("committed_change", |w| {
            let empty = w.empty_tree()?;
            // A whole history (`start --history`): the empty tree to the
            // tree of a commit in it, as the Git adapter answers.
            if *span.from == empty && w.commits.iter().any(|c| c.tree == *span.to) {
                return Ok(true);
            }
            Ok(w.commits.iter().any(|c| w.makes(c, &empty, span)))
        })
    }

    fn committed_commit(&self, span: TreeSpan<'_>) -> Result<Option<RangeCommit>, AdapterError> {
        self.world.with("committed_commit", |w| {
            let empty = w.empty_tree()?;
            // Newest first, as the Git adapter walks back from HEAD.
            Ok(w.commits
                .iter()
                .rev()
                .find(|c| w.makes(c, &empty, span))
                .map(Commit::listed))
        })
    }
}

impl ExportGit for FakeGit {
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError> {
        self.world.with("missing_objects", |w| {
            let mut known: BTreeSet<String> = w.trees.keys().map(|t| t.to_string()).collect();
            for files in w.trees.values() {
                known.extend(files.values().map(|(_, b)| blob_hex(b)));
            }
            known.extend(w.commits.iter().map(|c| c.id.to_string()));
            Ok(ids
                .iter()
                .filter(|i| !known.contains(*i))
                .cloned()
                .collect())
        })
    }

    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError> {
        self.world.with("frozen_diff", |w| {
            let mut out = Vec::new();
            for (path, a, b) in changes(w.tree(span.from)?, w.tree(span.to)?) {
                let empty = Vec::new();
                let old = lines(a.map_or(&empty, |(_, x)| x));
                let new = lines(b.map_or(&empty, |(_, x)| x));
                let (prefix, suffix) = common(&old, &new);
                out.extend_from_slice(format!("diff --git a/{path} b/{path}\n").as_bytes());
                for (sign, l) in old[prefix..old.len() - suffix]
                    .iter()
                    .map(|l| (b'-', l))
                    .chain(new[prefix..new.len() - suffix].iter().map(|l| (b'+', l)))
                {
                    out.push(sign);
                    out.extend_from_slice(l);
                    if !l.ends_with(b"\n") {
                        out.extend_from_slice(b"\n\\ No newline at end of file\n");
                    }
                }
                if out.len() as u64 > cap {
                    return Ok(None);
                }
            }
            Ok(Some(out))
        })
    }

    fn version(&self) -> Result<String, AdapterError> {
        self.world
            .with("version", |_| Ok(FAKE_GIT_VERSION.to_string()))
    }
}

impl ManifestGit for FakeGit {
    fn manifest(&self, span: TreeSpan<'_>) -> Result<Vec<ManifestEntry>, AdapterError> {
        self.world.with("manifest", |w| {
            let mut out = Vec::new();
            for (path, a, b) in changes(w.tree(span.from)?, w.tree(span.to)?) {
                let (old_mode, new_mode) = (a.map(|(m, _)| *m), b.map(|(m, _)| *m));
                out.push(ManifestEntry {
                    path: path.clone(),
                    status: match (old_mode, new_mode) {
                        (None, _) => ChangeStatus::Added,
                        (_, None) => ChangeStatus::Deleted,
                        _ => ChangeStatus::Modified,
                    },
                    old_mode,
                    new_mode,
                    old_blob: blob(a)?,
                    new_blob: blob(b)?,
                });
            }
            Ok(out)
        })
    }
}

impl RevisionGit for FakeGit {
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError> {
        let found = self.find_commit(rev)?;
        found.ok_or_else(|| repo(FakeGitError::UnknownRevision(rev.to_string())))
    }

    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        self.world.with("find_commit", |w| {
            if rev == "HEAD" {
                return Ok(w.head().map(|c| c.id.clone()));
            }
            if let Some(back) = rev.strip_prefix("HEAD~") {
                let n: usize = back
                    .parse()
                    .map_err(|_| FakeGitError::UnknownRevision(rev.to_string()))?;
                return Ok(w
                    .commits
                    .len()
                    .checked_sub(n + 1)
                    .map(|i| w.commits[i].id.clone()));
            }
            Ok(w.commits
                .iter()
                .find(|c| c.id.as_str() == rev)
                .map(|c| c.id.clone()))
        })
    }
}

impl CommitGit for FakeGit {
    fn observe_commit(&self, commit: &RangeCommit) -> Result<CandidateObservation, AdapterError> {
        self.world.with("observe_commit", |w| {
            let base = match commit.parents.as_slice() {
                [] => w.empty_tree()?,
                [parent] => {
                    let p = w
                        .commit(parent)
                        .ok_or_else(|| FakeGitError::UnknownRevision(parent.to_string()))?;
                    p.tree.clone()
                }
                _ => return Err(FakeGitError::Merge(commit.commit.to_string())),
            };
            let mut obs = w.observe(base, commit.tree.clone(), Vec::new())?;
            obs.unborn_head = false;
            Ok(obs)
        })
    }

    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError> {
        self.world.with("commit_tree", |w| {
            w.commit(id)
                .map(|c| c.tree.clone())
                .ok_or_else(|| FakeGitError::UnknownRevision(id.to_string()))
        })
    }

    fn empty_tree(&self) -> Result<TreeId, AdapterError> {
        self.world.with("empty_tree", World::empty_tree)
    }
}

impl RangeGit for FakeGit {
    fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, AdapterError> {
        self.world
            .with("peel_commit", |w| Ok(w.commit(id).map(|c| c.id.clone())))
    }

    fn is_ancestor(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<bool, AdapterError> {
        self.world.with("is_ancestor", |w| {
            Ok(w.ancestry(descendant)?.iter().any(|c| c.id == *ancestor))
        })
    }

    fn remote_tips(&self, _remote: &str) -> Result<Vec<(String, CommitId)>, AdapterError> {
        Err(repo(FakeGitError::Unsupported("remote_tips")))
    }

    fn range(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        _remotes: &RemoteScope,
        limit: usize,
    ) -> Result<Vec<RangeCommit>, AdapterError> {
        // The fake has no remote-tracking refs: no scope hides anything.
        self.world.with("range", |w| {
            let mut r = w.range(tip, exclude)?;
            r.truncate(limit);
            Ok(r)
        })
    }

    fn range_len(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        _remotes: &RemoteScope,
    ) -> Result<usize, AdapterError> {
        self.world
            .with("range_len", |w| Ok(w.range(tip, exclude)?.len()))
    }

    fn history_deltas(
        &self,
        reviewed: &TreeId,
        trees: &[TreeId],
    ) -> Result<Vec<Option<Vec<DeltaEntry>>>, AdapterError> {
        self.world.with("history_deltas", |_| Ok(()))?;
        trees
            .iter()
            .map(|t| {
                self.tree_delta(TreeSpan {
                    from: reviewed,
                    to: t,
                })
            })
            .collect()
    }
}
