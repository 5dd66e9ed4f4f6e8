//! The snapshot subjects (spec S1): what a reviewer may read.
//!
//! - `index`: the content an ordinary commit will contain (`git ls-files -s`
//!   then `git cat-file blob`); untracked files are not in the snapshot.
//! - `worktree`: tracked files as on disk (what `commit -a` records);
//!   skip-worktree (sparse) entries read from the index, as `commit -a`
//!   keeps them.
//! - `disk`: plain files under a root (a plan draft).
//! - `tree:<oid>`: a frozen tree, e.g. the candidate tree of a review.
//!
//! Git plumbing only, argument arrays, `--literal-pathspecs`, patterns after
//! `-e`, paths after `--`, `-z` output. Symbolic links are never followed
//! out of the root and `.git` is never read.

mod disk;
mod git;
mod walk;

use std::path::Path;
use std::str::FromStr;

use probity_core::snapshot_tools::{
    GrepQuery, ListEntry, RawGrep, RawRead, SnapshotPath, SubjectError,
};
use probity_ports::snapshot::SnapshotReader;

use crate::cmd::{GitCli, GitError};
use crate::repo::Repo;

pub use disk::DiskSubject;
pub use git::{GitMode, GitSubject};

/// Which subject to read, as named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubjectSpec {
    /// `index`: what the next ordinary commit records; untracked files are not
    /// in the snapshot.
    Index,
    /// `worktree`: tracked files as on disk (what `commit -a` records).
    Worktree,
    /// `disk`: plain files under the directory given (`--cwd`), without git.
    Disk,
    /// A tree (or commit) object name: hex, 4 to 64 digits.
    Tree(String),
}

/// Why a subject name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectSpecError {
    /// The name is none of `index`, `worktree`, `disk` or `tree:<oid>`; carries
    /// it.
    #[error("unknown subject `{0}`; use index, worktree, disk or tree:<oid>")]
    Unknown(String),
    /// `tree:` is followed by something other than 4 to 64 hex digits; carries
    /// what followed.
    #[error("`tree:{0}` needs a hexadecimal object id (4 to 64 digits)")]
    BadOid(String),
}

impl FromStr for SubjectSpec {
    type Err = SubjectSpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "index" => Ok(Self::Index),
            "worktree" => Ok(Self::Worktree),
            "disk" => Ok(Self::Disk),
            _ => match s.strip_prefix("tree:") {
                Some(oid)
                    if (4..=64).contains(&oid.len())
                        && oid.bytes().all(|b| b.is_ascii_hexdigit()) =>
                {
                    Ok(Self::Tree(oid.to_ascii_lowercase()))
                }
                Some(oid) => Err(SubjectSpecError::BadOid(oid.to_owned())),
                None => Err(SubjectSpecError::Unknown(s.to_owned())),
            },
        }
    }
}

/// Why a subject could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// git could not discover or read the repository (a missing git included:
    /// see [`OpenError::is_git_missing`]).
    #[error(transparent)]
    Git(#[from] GitError),
    /// `tree:<oid>` names no tree or commit of the repository (a missing
    /// object, a blob, an ambiguous abbreviation).
    #[error("`{oid}` does not name a tree or commit in this repository")]
    NoSuchTree {
        /// The object name as given (lowercased).
        oid: String,
    },
    /// The `disk` root cannot be canonicalized (missing, unreadable).
    #[error("the root {path} cannot be opened: {source}")]
    Root {
        /// The root as given, displayed.
        path: String,
        /// Why it cannot be opened.
        #[source]
        source: std::io::Error,
    },
}

impl OpenError {
    /// Git could not be run at all (not installed, or `PROBITY_GIT` names
    /// nothing runnable). Unlike "not a repository", this is a tool error
    /// (S2.4): open [`Subject::Unavailable`] and let every call say so.
    pub fn is_git_missing(&self) -> bool {
        matches!(self, Self::Git(GitError::Spawn { .. }))
    }
}

/// An open subject.
#[derive(Debug)]
pub enum Subject {
    /// An `index`, `worktree` or `tree:<oid>` subject over a repository.
    Git(GitSubject),
    /// A `disk` subject.
    Disk(DiskSubject),
    /// A subject that cannot be read (git is missing): every call is
    /// answered with this reason as its error result, never a crash (S2.4).
    Unavailable(String),
}

impl Subject {
    /// Opens `spec` like [`Subject::open`], but when git cannot be run the
    /// subject is [`Subject::Unavailable`]: the tools answer every call with
    /// the error (fail-open, S2.4) instead of the command failing.
    pub fn open_fail_open(spec: &SubjectSpec, git: GitCli, cwd: &Path) -> Result<Self, OpenError> {
        match Self::open(spec, git, cwd) {
            Err(e) if e.is_git_missing() => Ok(Self::Unavailable(e.to_string())),
            other => other,
        }
    }

    /// Opens `spec` from `cwd` (the repository is discovered from it; for
    /// `disk`, `cwd` is the root).
    pub fn open(spec: &SubjectSpec, git: GitCli, cwd: &Path) -> Result<Self, OpenError> {
        match spec {
            SubjectSpec::Disk => Ok(Self::Disk(DiskSubject::new(cwd)?)),
            SubjectSpec::Index => Ok(Self::Git(GitSubject::new(
                Repo::discover(git, cwd)?,
                GitMode::Index,
            ))),
            SubjectSpec::Worktree => Ok(Self::Git(GitSubject::new(
                Repo::discover(git, cwd)?,
                GitMode::Worktree,
            ))),
            SubjectSpec::Tree(oid) => {
                let repo = Repo::discover(git, cwd)?;
                let full = git::resolve_tree(&repo, oid)?;
                Ok(Self::Git(GitSubject::new(repo, GitMode::Tree(full))))
            }
        }
    }
}

impl SnapshotReader for Subject {
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        match self {
            Self::Git(s) => s.read(path),
            Self::Disk(s) => s.read(path),
            Self::Unavailable(why) => Err(SubjectError::Backend(why.clone())),
        }
    }

    fn grep(&self, query: &GrepQuery, max_hits: usize) -> Result<RawGrep, SubjectError> {
        match self {
            Self::Git(s) => s.grep(query, max_hits),
            Self::Disk(s) => s.grep(query, max_hits),
            Self::Unavailable(why) => Err(SubjectError::Backend(why.clone())),
        }
    }

    fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        match self {
            Self::Git(s) => s.list(),
            Self::Disk(s) => s.list(),
            Self::Unavailable(why) => Err(SubjectError::Backend(why.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_subject_names() {
        assert_eq!("index".parse(), Ok(SubjectSpec::Index));
        assert_eq!("worktree".parse(), Ok(SubjectSpec::Worktree));
        assert_eq!("disk".parse(), Ok(SubjectSpec::Disk));
        assert_eq!(
            "tree:ABCD12".parse(),
            Ok(SubjectSpec::Tree("abcd12".into()))
        );
        assert_eq!(
            "tree:--all".parse::<SubjectSpec>(),
            Err(SubjectSpecError::BadOid("--all".into()))
        );
        assert_eq!(
            "tree:HEAD".parse::<SubjectSpec>(),
            Err(SubjectSpecError::BadOid("HEAD".into()))
        );
        assert!(matches!(
            "head".parse::<SubjectSpec>(),
            Err(SubjectSpecError::Unknown(_))
        ));
    }
}
