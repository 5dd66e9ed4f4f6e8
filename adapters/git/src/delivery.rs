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

/// The revision arguments of a range: `--stdin` fed the tip and each
/// exclusion as `^<id>` (a remote may advertise more tips than an argument
/// list holds), then the remote-tracking refs after `--not`.
fn range_args(
    tip: &CommitId,
    exclude: &[CommitId],
    remotes: &RemoteScope,
) -> (Vec<OsString>, Vec<u8>) {
    let mut args = vec![OsString::from("--stdin")];
    if *remotes == RemoteScope::All {
        args.extend(["--not".into(), "--remotes".into()]);
    }
    let mut stdin = format!("{tip}\n").into_bytes();
    for e in exclude {
        stdin.extend_from_slice(format!("^{e}\n").as_bytes());
    }
    (args, stdin)
}

impl Repo {
    /// Resolves `rev` to a commit (`rev-parse --verify`); unknown is a
    /// [`GitError::UnknownRevision`].
    pub fn resolve_commit(&self, rev: &str) -> Result<CommitId, GitError> {
        self.find_commit(rev)?
            .ok_or_else(|| GitError::UnknownRevision { rev: rev.into() })
    }

    /// Resolves `rev` to a commit: `None` when it names none here; any
    /// other failure of git is an error.
    pub fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, GitError> {
        let args: Vec<OsString> = vec![
            "rev-parse".into(),
            "-q".into(),
            "--verify".into(),
            "--end-of-options".into(),
            format!("{rev}^{{commit}}").into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {
                let s = std::str::from_utf8(&out.stdout)
                    .map_err(|_| parse_err("rev-parse --verify", "non-UTF-8 object id"))?;
                let id = commit_id("rev-parse --verify", s.trim())?;
                // `-q` hides git's warning that a short name matches several
                // refs (a branch `origin/main` and the remote-tracking one):
                // ask again without it, and refuse to guess.
                let loud: Vec<OsString> = args.iter().filter(|a| *a != "-q").cloned().collect();
                let again = self.git().output(self.root(), &loud, &[], None)?;
                if String::from_utf8_lossy(&again.stderr).contains("is ambiguous") {
                    return Err(GitError::AmbiguousRevision { rev: rev.into() });
                }
                Ok(Some(id))
            }
            Some(1) => Ok(None),
            _ => Err(GitError::Failed {
                args: "rev-parse -q --verify".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// The commit `id` names once tags are peeled: `None` when this
    /// repository does not have it or it is not a commit. Any other failure
    /// of git is an error.
    pub fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, GitError> {
        const ARGS: &str = "rev-parse -q --verify <oid>^{commit}";
        let args: Vec<OsString> = vec![
            "rev-parse".into(),
            "-q".into(),
            "--verify".into(),
            format!("{id}^{{commit}}").into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => {
                let s = std::str::from_utf8(&out.stdout)
                    .map_err(|_| parse_err(ARGS, "non-UTF-8 object id"))?;
                commit_id(ARGS, s.trim()).map(Some)
            }
            // `-q --verify` answers 1 for "no such commit" (missing, or an
            // object of another type); fatal failures answer 128.
            Some(1) => Ok(None),
            _ => Err(GitError::Failed {
                args: ARGS.into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// Whether `ancestor` is `descendant` or reachable from it.
    pub fn is_ancestor(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<bool, GitError> {
        let args: Vec<OsString> = vec![
            "merge-base".into(),
            "--is-ancestor".into(),
            ancestor.as_str().into(),
            descendant.as_str().into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(GitError::Failed {
                args: "merge-base --is-ancestor".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// The branch and tag tips `remote` advertises now (`git ls-remote
    /// --heads --tags`, annotated tags peeled) that this repository has as
    /// commits, with their ref names. `remote` is a configured remote's
    /// name or a URL, passed after `--` so it cannot become an option.
    pub fn remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, GitError> {
        const ARGS: &str = "ls-remote";
        let out = self.run(["ls-remote", "--heads", "--tags", "--", remote])?;
        let text = std::str::from_utf8(&out).map_err(|_| parse_err(ARGS, "non-UTF-8 output"))?;
        let mut advertised: Vec<(String, CommitId)> = Vec::new();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (oid, name) = line
                .split_once('\t')
                .ok_or_else(|| parse_err(ARGS, format!("bad line `{line}`")))?;
            let name = name.strip_suffix("^{}").unwrap_or(name);
            advertised.push((name.to_string(), commit_id(ARGS, oid)?));
        }
        // One batch lookup: which of them are commits here.
        let mut input = Vec::new();
        for (_, a) in &advertised {
            input.extend_from_slice(a.as_str().as_bytes());
            input.push(b'\n');
        }
        let listed = self.run_with(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            &[],
            Some(&input),
        )?;
        let listed = std::str::from_utf8(&listed)
            .map_err(|_| parse_err("cat-file --batch-check", "non-UTF-8 output"))?;
        // `--batch-check` answers one line per input line, in order.
        let kinds: Vec<&str> = listed.lines().collect();
        if kinds.len() != advertised.len() {
            return Err(parse_err(
                "cat-file --batch-check",
                format!("{} answers for {} objects", kinds.len(), advertised.len()),
            ));
        }
        Ok(advertised
            .into_iter()
            .zip(kinds)
            .filter(|(_, k)| k.ends_with(" commit"))
            .map(|(a, _)| a)
            .collect())
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
        let (extra, stdin) = range_args(tip, exclude, remotes);
        args.extend(extra);
        let out = self.run_with(&args, &[], Some(&stdin))?;
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
        let (extra, stdin) = range_args(tip, exclude, remotes);
        args.extend(extra);
        let out = self.run_with(&args, &[], Some(&stdin))?;
        let s =
            std::str::from_utf8(&out).map_err(|_| parse_err("rev-list --count", "non-UTF-8"))?;
        s.trim()
            .parse()
            .map_err(|_| parse_err("rev-list --count", format!("`{}` is not a count", s.trim())))
    }

    /// Whether one of the last `limit` commits reachable from HEAD has
    /// tree `candidate` and a parent whose tree is `base` (a root commit:
    /// `base` is the empty tree). An unborn HEAD has no commits.
    pub fn committed_change(
        &self,
        base: &TreeId,
        candidate: &TreeId,
        limit: usize,
    ) -> Result<bool, GitError> {
        let Some(head) = self.find_commit("HEAD")? else {
            return Ok(false);
        };
        let listed = self.range_commits(&head, &[], &RemoteScope::None, limit)?;
        let trees: std::collections::HashMap<&CommitId, &TreeId> =
            listed.iter().map(|c| (&c.commit, &c.tree)).collect();
        for c in listed.iter().filter(|c| c.tree == *candidate) {
            let parent_tree = match c.parents[..] {
                [] => self.empty_tree()?,
                [ref p] => match trees.get(p) {
                    Some(t) => (*t).clone(),
                    None => self.commit_tree(p)?,
                },
                _ => continue,
            };
            if parent_tree == *base {
                return Ok(true);
            }
        }
        Ok(false)
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

    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        Ok(Repo::find_commit(self, rev)?)
    }

    fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, AdapterError> {
        Ok(Repo::peel_commit(self, id)?)
    }

    fn is_ancestor(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<bool, AdapterError> {
        Ok(Repo::is_ancestor(self, ancestor, descendant)?)
    }

    fn remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, AdapterError> {
        Ok(Repo::remote_tips(self, remote)?)
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
