//! The frozen candidate (R2.1–R2.5): what Git observed, and the identities
//! and counts code derives from it.

use crate::review::ErrorClass;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::canonical_digest;
use crate::digest::{Domain, Sha256Digest};
use crate::review::ids::{RepoPath, TreeId};

/// Domain of `paths_digest`: the canonical JSON array of changed paths.
pub const PATHS_DOMAIN: Domain = Domain::new("probity/paths-digest/v1");
/// Domain of the intended-untracked proof.
pub const UNTRACKED_DOMAIN: Domain = Domain::new("probity/intended-untracked/v1");
/// Domain of the target identity (base tree, candidate tree).
pub const TARGET_DOMAIN: Domain = Domain::new("probity/target/v1");

/// A git file mode, as far as review cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileMode {
    /// A non-executable blob, git mode `100644` (`100664` is read as this).
    Regular,
    /// An executable blob, git mode `100755`.
    Executable,
    /// A symbolic link whose blob is the link target, git mode `120000`.
    Symlink,
    /// A submodule entry naming a commit, git mode `160000`.
    Gitlink,
}

impl FileMode {
    /// Git's canonical octal form of the mode.
    pub const fn octal(self) -> &'static str {
        match self {
            Self::Regular => "100644",
            Self::Executable => "100755",
            Self::Symlink => "120000",
            Self::Gitlink => "160000",
        }
    }

    /// Parses git's octal mode (`100644`, `100755`, `120000`, `160000`).
    /// `000000` (absent) is `None` at the call site, not a mode.
    pub fn from_octal(s: &str) -> Option<Self> {
        match s {
            "100644" | "100664" => Some(Self::Regular),
            "100755" => Some(Self::Executable),
            "120000" => Some(Self::Symlink),
            "160000" => Some(Self::Gitlink),
            _ => None,
        }
    }
}

/// Line counts of one changed path, from `git diff --numstat --no-renames`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineCount {
    /// A text diff of the path.
    Text {
        /// Lines the candidate adds.
        added: u64,
        /// Lines the candidate removes.
        removed: u64,
    },
    /// Binary content on either side (a NUL in the leading bytes): counts 0
    /// authored lines (R2.4).
    Binary,
}

/// What code may look at of a candidate file (for classification only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CandidateContent {
    /// Deleted, a submodule, or not a blob.
    Absent,
    /// The leading bytes of the blob; `complete` when they are all of it.
    Bytes {
        /// The blob's first bytes, at most the observer's cap (1 MiB in
        /// the git adapter).
        bytes: Vec<u8>,
        /// Whether `bytes` is the whole blob rather than a prefix.
        complete: bool,
    },
}

impl CandidateContent {
    /// The leading bytes, or `None` for `Absent`.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            CandidateContent::Absent => None,
            CandidateContent::Bytes { bytes, .. } => Some(bytes),
        }
    }
}

/// One changed path between the base tree and the candidate tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// The repository-relative path that differs between the two trees.
    pub path: RepoPath,
    /// Mode in the base tree; `None` when the path is new.
    pub old_mode: Option<FileMode>,
    /// Mode in the candidate tree; `None` when the path is deleted.
    pub new_mode: Option<FileMode>,
    /// Authored-line view: binary (by content) counts 0.
    pub lines: LineCount,
    /// Added + removed lines with every file diffed as text and no
    /// attribute able to hide a change: what a fix is charged.
    pub text_lines: u64,
    /// Leading bytes of the candidate blob.
    pub content: CandidateContent,
    /// Leading bytes of the base blob (`Absent` for a new path).
    pub base_content: CandidateContent,
}

/// Whether bytes look binary: a NUL in the first 8000 bytes (git's rule,
/// applied to content only, so no attribute can change the answer).
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

impl LineCount {
    /// The authored-line view of a text count: binary when either side's
    /// content is binary.
    pub fn classify(
        added: u64,
        removed: u64,
        base: &CandidateContent,
        candidate: &CandidateContent,
    ) -> Self {
        let binary = |c: &CandidateContent| c.bytes().is_some_and(is_binary);
        if binary(base) || binary(candidate) {
            LineCount::Binary
        } else {
            LineCount::Text { added, removed }
        }
    }
}

impl ChangedFile {
    /// An executable bit set, cleared, or a new executable file.
    pub fn executable_bit_changed(&self) -> bool {
        let exec = |m: Option<FileMode>| m == Some(FileMode::Executable);
        match (self.old_mode, self.new_mode) {
            (Some(_), Some(_)) | (None, Some(_)) => exec(self.old_mode) != exec(self.new_mode),
            _ => false,
        }
    }
}

/// Everything Git observed about the candidate at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateObservation {
    /// The tree the change is measured from: HEAD's tree, a commit's
    /// parent's tree, or the empty tree (see `unborn_head`).
    pub base_tree: TreeId,
    /// The synthetic tree of the candidate (worktree and index through a
    /// temporary index), or the reviewed commit's tree.
    pub candidate_tree: TreeId,
    /// Whether the base is the empty tree because HEAD had no commit (or
    /// the reviewed commit is a root commit).
    pub unborn_head: bool,
    /// Changed paths, in any order (code sorts them).
    pub changed: Vec<ChangedFile>,
    /// Intended untracked files: new, not ignored, not in the index.
    pub intended_untracked: Vec<RepoPath>,
}

/// The live target a gate compares: the base and candidate trees and their
/// identity. The changed paths (and so `paths_digest`) are a function of the
/// two trees, so equal trees mean an equal path set; a gate derives the paths
/// only when it must explain a denial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveTarget {
    /// The tree the live change sits on.
    pub base_tree: TreeId,
    /// The tree the live change delivers.
    pub candidate_tree: TreeId,
    /// [`target_identity`] of the two trees: what a frozen candidate's
    /// `target` must equal for the review to name this change.
    pub target: Sha256Digest,
}

impl LiveTarget {
    /// Derives the identity of two trees.
    pub fn new(base_tree: TreeId, candidate_tree: TreeId) -> Self {
        let target = target_identity(&base_tree, &candidate_tree);
        Self {
            base_tree,
            candidate_tree,
            target,
        }
    }
}

// Named `FrozenCandidate`, apart from the reviewer tools' snapshot
// (`snapshot_tools`, the read-only subject a model reads); its schema keeps
// the name `Snapshot` and the state's field is still `snapshot`, so the
// published schema and every stored byte are unchanged.
/// The frozen snapshot stored in state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Snapshot")]
pub struct FrozenCandidate {
    /// The git tree the change was measured from at start (the empty tree
    /// when `unborn_head`).
    pub base_tree: TreeId,
    /// The git tree of the candidate as start froze it: the tree the review
    /// judged (a correction's trees are in the correction ledger).
    pub candidate_tree: TreeId,
    /// True when the base is the empty tree because HEAD had no commit at
    /// start (or the reviewed commit is a root commit).
    pub unborn_head: bool,
    /// Sorted, unique changed paths: the genesis paths (R2.3).
    #[serde(default)]
    pub paths: Vec<RepoPath>,
    /// Domain-separated SHA-256 (`probity/paths-digest/v1`) of the
    /// canonical JSON array `paths`.
    pub paths_digest: Sha256Digest,
    /// Sorted intended-untracked paths (a subset of `paths`).
    #[serde(default)]
    pub intended_untracked: Vec<RepoPath>,
    /// Digest of the intended-untracked list.
    pub untracked_digest: Sha256Digest,
    /// Identity of (base tree, candidate tree).
    pub target: Sha256Digest,
    /// The candidate diff as start derived it under the pinned export
    /// derivation (R10.4, R12.4): a later export that re-derives other bytes
    /// is drift, not the frozen context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffAnchor>,
}

/// The plain SHA-256 and size of the frozen candidate diff, and the git
/// that rendered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffAnchor {
    /// Plain SHA-256 of the diff bytes (no domain separator), as
    /// `sha256:` and 64 hex.
    pub sha256: Sha256Digest,
    /// Length of the diff in bytes.
    pub byte_size: u64,
    /// `git --version` of the git that derived it.
    pub git_version: String,
}

impl DiffAnchor {
    /// The anchor of diff bytes rendered by `git_version`.
    pub fn of(diff: &[u8], git_version: String) -> Self {
        Self {
            sha256: Sha256Digest::plain(diff),
            byte_size: diff.len() as u64,
            git_version,
        }
    }
}

/// Why stored snapshot fields do not agree with each other.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// `paths` or `intended_untracked` is out of order or repeats a path.
    #[error("snapshot paths are not sorted and unique")]
    Unsorted,
    /// The stored `paths_digest` is not the digest of the stored `paths`.
    #[error("snapshot paths_digest does not match its paths")]
    PathsDigest,
    /// The stored `untracked_digest` is not the digest of the stored
    /// intended-untracked list.
    #[error("snapshot untracked proof does not match its list")]
    UntrackedDigest,
    /// An intended-untracked path (named) that is not among `paths`.
    #[error("an intended-untracked path is not a changed path: {0}")]
    UntrackedOutsidePaths(String),
    /// The stored `target` is not the identity of the stored trees.
    #[error("snapshot target identity does not match its trees and paths")]
    Target,
    /// No changed path: there is nothing to freeze or review.
    #[error("nothing to review: the candidate equals the base tree")]
    Empty,
}

impl SnapshotError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            SnapshotError::Empty => (ErrorClass::RejectedInput, "nothing_to_review"),
            SnapshotError::Unsorted
            | SnapshotError::PathsDigest
            | SnapshotError::UntrackedDigest
            | SnapshotError::UntrackedOutsidePaths(_)
            | SnapshotError::Target => (ErrorClass::Integrity, "invalid_state"),
        }
    }
}

/// The canonical digest of sorted paths.
pub fn paths_digest(paths: &[RepoPath]) -> Sha256Digest {
    canonical_digest(PATHS_DOMAIN, paths).unwrap_or_else(|_| unreachable_canonical())
}

/// The canonical digest of sorted intended-untracked paths.
pub fn untracked_digest(paths: &[RepoPath]) -> Sha256Digest {
    canonical_digest(UNTRACKED_DOMAIN, paths).unwrap_or_else(|_| unreachable_canonical())
}

/// The target identity of (base tree, candidate tree).
pub fn target_identity(base: &TreeId, candidate: &TreeId) -> Sha256Digest {
    #[derive(Serialize)]
    struct Target<'a> {
        base_tree: &'a TreeId,
        candidate_tree: &'a TreeId,
    }
    canonical_digest(
        TARGET_DOMAIN,
        &Target {
            base_tree: base,
            candidate_tree: candidate,
        },
    )
    .unwrap_or_else(|_| unreachable_canonical())
}

/// Strings, booleans and integers always have canonical bytes.
#[cold]
fn unreachable_canonical() -> Sha256Digest {
    // Only strings and digests are serialized above; canonicalization of
    // such values cannot fail. Fall back to a fixed identity that can never
    // match a real one rather than panicking.
    Sha256Digest::from_bytes([0; 32])
}

fn is_sorted_unique(p: &[RepoPath]) -> bool {
    p.windows(2).all(|w| w[0] < w[1])
}

impl FrozenCandidate {
    /// Freezes an observation. Refuses an empty change.
    pub fn freeze(obs: &CandidateObservation) -> Result<Self, SnapshotError> {
        let mut paths: Vec<RepoPath> = obs.changed.iter().map(|c| c.path.clone()).collect();
        paths.sort();
        paths.dedup();
        if paths.is_empty() {
            return Err(SnapshotError::Empty);
        }
        let mut untracked = obs.intended_untracked.clone();
        untracked.sort();
        untracked.dedup();
        let live = LiveTarget::new(obs.base_tree.clone(), obs.candidate_tree.clone());
        let snap = FrozenCandidate {
            base_tree: live.base_tree,
            candidate_tree: live.candidate_tree,
            unborn_head: obs.unborn_head,
            untracked_digest: untracked_digest(&untracked),
            intended_untracked: untracked,
            paths_digest: paths_digest(&paths),
            paths,
            target: live.target,
            diff: None,
        };
        snap.check()?;
        Ok(snap)
    }

    /// Checks that every derived field matches what it is derived from.
    pub fn check(&self) -> Result<(), SnapshotError> {
        if self.paths.is_empty() {
            return Err(SnapshotError::Empty);
        }
        if !is_sorted_unique(&self.paths) || !is_sorted_unique(&self.intended_untracked) {
            return Err(SnapshotError::Unsorted);
        }
        if paths_digest(&self.paths) != self.paths_digest {
            return Err(SnapshotError::PathsDigest);
        }
        if untracked_digest(&self.intended_untracked) != self.untracked_digest {
            return Err(SnapshotError::UntrackedDigest);
        }
        if let Some(p) = self
            .intended_untracked
            .iter()
            .find(|p| self.paths.binary_search(p).is_err())
        {
            return Err(SnapshotError::UntrackedOutsidePaths(p.to_string()));
        }
        if target_identity(&self.base_tree, &self.candidate_tree) != self.target {
            return Err(SnapshotError::Target);
        }
        Ok(())
    }
}

/// The correction budget: `min(200, ceil(authored_lines / 2))` (R2.5).
pub const fn correction_budget(authored_lines: u64) -> u64 {
    let half = authored_lines / 2 + authored_lines % 2;
    if half < 200 { half } else { 200 }
}

/// The largest file (blob or work-tree file) `start` reads: 16 MiB. A
/// changed file over it is refused from its size alone, before any of its
/// content is read or diffed (far over the 4 MiB diff budget a reviewer's
/// context carries, and minutes of silent hashing and diffing otherwise).
pub const MAX_REVIEWED_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The first file over [`MAX_REVIEWED_FILE_BYTES`], in the given order.
pub fn first_oversized<T>(sizes: impl IntoIterator<Item = (T, u64)>) -> Option<(T, u64)> {
    sizes
        .into_iter()
        .find(|(_, size)| *size > MAX_REVIEWED_FILE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::risk::{RiskPolicy, authored_lines};

    #[test]
    fn files_over_the_limit_are_found_by_size() {
        let at = MAX_REVIEWED_FILE_BYTES;
        assert_eq!(first_oversized([("a", 1), ("b", at)]), None);
        assert_eq!(
            first_oversized([("a", 1), ("b", at + 1), ("c", u64::MAX)]),
            Some(("b", at + 1))
        );
        assert_eq!(first_oversized(Vec::<(&str, u64)>::new()), None);
    }

    #[test]
    fn budget_examples() {
        assert_eq!(correction_budget(0), 0);
        assert_eq!(correction_budget(1), 1);
        assert_eq!(correction_budget(40), 20);
        assert_eq!(correction_budget(41), 21);
        assert_eq!(correction_budget(120), 60);
        assert_eq!(correction_budget(900), 200);
        assert_eq!(correction_budget(u64::MAX), 200);
    }

    fn p(s: &str) -> RepoPath {
        RepoPath::parse(s).unwrap()
    }

    fn tree(c: char) -> TreeId {
        TreeId::parse(c.to_string().repeat(40)).unwrap()
    }

    fn changed(path: &str, lines: LineCount) -> ChangedFile {
        ChangedFile {
            path: p(path),
            old_mode: Some(FileMode::Regular),
            new_mode: Some(FileMode::Regular),
            text_lines: match lines {
                LineCount::Text { added, removed } => added + removed,
                LineCount::Binary => 1,
            },
            base_content: CandidateContent::Absent,
            lines,
            content: CandidateContent::Bytes {
                bytes: vec![],
                complete: true,
            },
        }
    }

    #[test]
    fn authored_lines_skip_golden_and_binary() {
        let files = [
            changed(
                "src/a.rs",
                LineCount::Text {
                    added: 3,
                    removed: 2,
                },
            ),
            changed(
                "testdata/golden/x.golden",
                LineCount::Text {
                    added: 500,
                    removed: 0,
                },
            ),
            changed("img.png", LineCount::Binary),
        ];
        assert_eq!(authored_lines(RiskPolicy::v1(), &files), 5);
    }

    #[test]
    fn freeze_sorts_and_checks() {
        let obs = CandidateObservation {
            base_tree: tree('a'),
            candidate_tree: tree('b'),
            unborn_head: false,
            changed: vec![
                changed(
                    "z.rs",
                    LineCount::Text {
                        added: 1,
                        removed: 0,
                    },
                ),
                changed(
                    "a.rs",
                    LineCount::Text {
                        added: 1,
                        removed: 0,
                    },
                ),
            ],
            intended_untracked: vec![p("z.rs")],
        };
        let s = FrozenCandidate::freeze(&obs).unwrap();
        assert_eq!(s.paths, vec![p("a.rs"), p("z.rs")]);
        let mut bad = s.clone();
        bad.paths.reverse();
        assert_eq!(bad.check(), Err(SnapshotError::Unsorted));
        let mut bad = s.clone();
        bad.candidate_tree = tree('c');
        assert_eq!(bad.check(), Err(SnapshotError::Target));
        let mut bad = s;
        bad.intended_untracked = vec![p("q.rs")];
        bad.untracked_digest = untracked_digest(&bad.intended_untracked);
        assert!(matches!(
            bad.check(),
            Err(SnapshotError::UntrackedOutsidePaths(_))
        ));
    }

    #[test]
    fn empty_change_is_refused() {
        let obs = CandidateObservation {
            base_tree: tree('a'),
            candidate_tree: tree('a'),
            unborn_head: false,
            changed: vec![],
            intended_untracked: vec![],
        };
        assert_eq!(FrozenCandidate::freeze(&obs), Err(SnapshotError::Empty));
    }
}
