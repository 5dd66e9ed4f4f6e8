//! Commits and delivered ranges for the publication gates (R8.3).
//!
//! Revisions a user names go after `--end-of-options`; object ids are
//! validated hex before they reach an argument, so nothing a caller passes
//! can become an option.

use std::ffi::OsString;

use probity_core::review::gate::RangeCommit;
use probity_core::review::ids::{CommitId, TreeId};
use probity_ports::review::{AdapterError, DeliveryGit, RemoteScope};

use crate::cmd::GitError;
use crate::repo::Repo;

fn parse_err(args: &str, detail: impl Into<String>) -> GitError {
    GitError::Parse {
        args: args.into(),
        detail: detail.into(),
    }
}

fn commit_id(args: &str, s: &str) -> Result<CommitId, GitError> {
    CommitId::parse(s).map_err(|e| parse_err(args, e.to_string()))
}

/// The revision arguments of a range: the tip, each exclusion as `^<id>`,
/// and the remote-tracking refs after `--not`.
fn range_args(tip: &CommitId, exclude: &[CommitId], remotes: &RemoteScope) -> Vec<OsString> {
    let mut args = vec![OsString::from(tip.as_str())];
    args.extend(exclude.iter().map(|e| OsString::from(format!("^{e}"))));
    match remotes {
        RemoteScope::None => {}
        RemoteScope::All => args.extend(["--not".into(), "--remotes".into()]),
        RemoteScope::Named(r) => {
            args.extend(["--not".into(), OsString::from(format!("--remotes={r}"))]);
        }
    }
    args
}

impl Repo {
    /// Resolves `rev` to a commit (`rev-parse --verify`); unknown is a
    /// [`GitError::UnknownRevision`].
    pub fn resolve_commit(&self, rev: &str) -> Result<CommitId, GitError> {
        let args: Vec<OsString> = vec![
            "rev-parse".into(),
            "-q".into(),
            "--verify".into(),
            "--end-of-options".into(),
            format!("{rev}^{{commit}}").into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        if !out.status.success() {
            return Err(GitError::UnknownRevision { rev: rev.into() });
        }
        let s = std::str::from_utf8(&out.stdout)
            .map_err(|_| parse_err("rev-parse --verify", "non-UTF-8 object id"))?;
        commit_id("rev-parse --verify", s.trim())
    }

    /// Whether `id` names a commit this repository has (a tag is peeled).
    pub fn has_commit(&self, id: &CommitId) -> Result<bool, GitError> {
        let args: Vec<OsString> = vec![
            "cat-file".into(),
            "-e".into(),
            format!("{id}^{{commit}}").into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        Ok(out.status.success())
    }

    /// Up to `limit` commits of the range, newest first, with their trees
    /// and parents.
    pub fn range_commits(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
        limit: usize,
    ) -> Result<Vec<RangeCommit>, GitError> {
        const ARGS: &str = "rev-list --format=%H %T %P";
        let mut args: Vec<OsString> = vec![
            "rev-list".into(),
            "--no-commit-header".into(),
            "--format=%H %T %P".into(),
            format!("--max-count={limit}").into(),
        ];
        args.extend(range_args(tip, exclude, remotes));
        let out = self.run(&args)?;
        let text = std::str::from_utf8(&out).map_err(|_| parse_err(ARGS, "non-UTF-8 output"))?;
        text.lines()
            .filter(|l| !l.is_empty())
            .map(|line| {
                let mut it = line.split(' ');
                let (Some(c), Some(t)) = (it.next(), it.next()) else {
                    return Err(parse_err(ARGS, format!("bad line `{line}`")));
                };
                Ok(RangeCommit {
                    commit: commit_id(ARGS, c)?,
                    tree: TreeId::parse(t).map_err(|e| parse_err(ARGS, e.to_string()))?,
                    parents: it
                        .filter(|p| !p.is_empty())
                        .map(|p| commit_id(ARGS, p))
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect()
    }

    /// The number of commits in the range.
    pub fn range_count(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
    ) -> Result<usize, GitError> {
        let mut args: Vec<OsString> = vec!["rev-list".into(), "--count".into()];
        args.extend(range_args(tip, exclude, remotes));
        let out = self.run(&args)?;
        let s =
            std::str::from_utf8(&out).map_err(|_| parse_err("rev-list --count", "non-UTF-8"))?;
        s.trim()
            .parse()
            .map_err(|_| parse_err("rev-list --count", format!("`{}` is not a count", s.trim())))
    }

    /// A commit's tree.
    pub fn commit_tree(&self, id: &CommitId) -> Result<TreeId, GitError> {
        let out = self.run(["rev-parse", "--verify", &format!("{id}^{{tree}}")])?;
        let s =
            std::str::from_utf8(&out).map_err(|_| parse_err("rev-parse ^{tree}", "non-UTF-8"))?;
        TreeId::parse(s.trim()).map_err(|e| parse_err("rev-parse ^{tree}", e.to_string()))
    }
}

impl DeliveryGit for Repo {
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError> {
        Ok(Repo::resolve_commit(self, rev)?)
    }

    fn has_commit(&self, id: &CommitId) -> Result<bool, AdapterError> {
        Ok(Repo::has_commit(self, id)?)
    }

    fn range(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
        limit: usize,
    ) -> Result<Vec<RangeCommit>, AdapterError> {
        Ok(self.range_commits(tip, exclude, remotes, limit)?)
    }

    fn range_len(
        &self,
        tip: &CommitId,
        exclude: &[CommitId],
        remotes: &RemoteScope,
    ) -> Result<usize, AdapterError> {
        Ok(self.range_count(tip, exclude, remotes)?)
    }

    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError> {
        Ok(Repo::commit_tree(self, id)?)
    }

    fn empty_tree(&self) -> Result<TreeId, AdapterError> {
        Ok(Repo::empty_tree(self)?)
    }
}
