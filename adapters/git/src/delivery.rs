//! Commits and delivered ranges for the publication gates (R8.3).
//!
//! Revisions a user names go after `--end-of-options`; object ids are
//! validated hex before they reach an argument, so nothing a caller passes
//! can become an option.

use std::ffi::OsString;

use probity_core::review::CandidateObservation;
use probity_core::review::{CommitId, TreeId};
use probity_core::review::{DeltaEntry, RangeCommit};
use probity_ports::review::{
    AdapterError, CommitGit, RangeGit, RemoteScope, RevisionGit, TreeSpan,
};

use crate::cmd::GitError;
use crate::repo::Repo;

/// How many commits [`Repo::is_ancestor`] walks through the object reader
/// before it asks `git merge-base`.
pub const ANCESTRY_WALK: usize = 64;

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
    match remotes {
        RemoteScope::None => {}
        RemoteScope::All => args.extend(["--not".into(), "--remotes".into()]),
        RemoteScope::Of(name) => {
            args.extend(["--not".into(), format!("--remotes={name}").into()]);
        }
    }
    let mut stdin = format!("{tip}\n").into_bytes();
    for e in exclude {
        stdin.extend_from_slice(format!("^{e}\n").as_bytes());
    }
    (args, stdin)
}

impl Repo {
    /// Resolves `rev` to a commit ([`Self::find_commit`]); unknown is a
    /// [`GitError::UnknownRevision`].
    pub fn resolve_commit(&self, rev: &str) -> Result<CommitId, GitError> {
        self.find_commit(rev)?
            .ok_or_else(|| GitError::UnknownRevision { rev: rev.into() })
    }

    /// Resolves `rev` to a commit (`rev-parse --verify`; a full object id,
    /// a full ref name (`refs/...`), and `HEAD` and its ancestors, by their
    /// exact names and the object reader, never taken for a ref spelled
    /// like them): `None` when it names
    /// none here; a name several refs match is
    /// [`GitError::AmbiguousRevision`]; any other failure of git is an
    /// error.
    pub fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, GitError> {
        // A full object id names that object, never a ref: `rev-parse`
        // warns that a ref spelled with the same hex digits (a tag anyone
        // may push) makes it ambiguous, which would refuse the id CI is
        // handed; the object reader takes a full id as the object without
        // looking refs up.
        if matches!(rev.len(), 40 | 64)
            && let Ok(id) = CommitId::parse(rev)
        {
            return self.peel_commit(&id);
        }
        // A full ref name (`refs/remotes/origin/main`, what CI is told) is
        // that ref: git's lookup rules would also match a tag spelled
        // `refs/tags/refs/remotes/origin/main`, which makes the name
        // ambiguous (or stands in for it when the ref is absent).
        if rev.starts_with("refs/") && crate::exact_ref::possible_ref(rev) {
            return self.exact_commit(rev);
        }
        // `HEAD` (and its ancestors, `HEAD^`, `HEAD~2`) is this worktree's
        // `HEAD`, read as itself: a tag spelled `HEAD` (pushed by anyone,
        // fetched by every clone, as git follows tags into fetched
        // history) makes `rev-parse HEAD` ambiguous, and would be taken
        // for an unborn `HEAD`.
        if let Some(walk) = rev.strip_prefix("HEAD")
            && walk
                .bytes()
                .all(|b| matches!(b, b'^' | b'~') || b.is_ascii_digit())
            && walk.bytes().next().is_none_or(|b| matches!(b, b'^' | b'~'))
        {
            let Some(head) = self.exact_commit("HEAD")? else {
                return Ok(None);
            };
            if walk.is_empty() {
                return Ok(Some(head));
            }
            // From the full id, by the object reader: no ref is looked up.
            return match self.object_info(&format!("{head}{walk}^{{commit}}"))? {
                Some(info) if info.kind == "commit" => {
                    commit_id("cat-file info <oid>^{commit}", &info.oid).map(Some)
                }
                _ => Ok(None),
            };
        }
        // One `rev-parse --verify` without `-q` (issue 24: it ran twice):
        // git warns on stderr when a short name matches several refs (a
        // branch `origin/main` and the remote-tracking one), which is
        // refused rather than guessed, and answers a name that resolves to
        // no commit with exactly "Needed a single revision" (exit 128; the
        // environment pins LC_ALL=C).
        let args: Vec<OsString> = vec![
            "rev-parse".into(),
            "--verify".into(),
            "--end-of-options".into(),
            format!("{rev}^{{commit}}").into(),
        ];
        let out = self.git().output(self.root(), &args, &[], None)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {
                if stderr.contains("is ambiguous") {
                    return Err(GitError::AmbiguousRevision { rev: rev.into() });
                }
                let s = std::str::from_utf8(&out.stdout)
                    .map_err(|_| parse_err("rev-parse --verify", "non-UTF-8 object id"))?;
                Ok(Some(commit_id("rev-parse --verify", s.trim())?))
            }
            Some(128)
                if stderr
                    .trim_end()
                    .ends_with("fatal: Needed a single revision") =>
            {
                if stderr.contains("is ambiguous") {
                    return Err(GitError::AmbiguousRevision { rev: rev.into() });
                }
                Ok(None)
            }
            _ => Err(GitError::Failed {
                args: "rev-parse --verify".into(),
                status: out.status.to_string(),
                stderr: stderr.trim().to_string(),
            }),
        }
    }

    /// The commit `id` names once tags are peeled: `None` when this
    /// repository does not have it or it is not a commit. Any other failure
    /// of git is an error.
    pub fn peel_commit(&self, id: &CommitId) -> Result<Option<CommitId>, GitError> {
        const ARGS: &str = "cat-file info <oid>^{commit}";
        // The object reader answers `missing` for an id it does not have and
        // for one that peels to no commit.
        match self.object_info(&format!("{id}^{{commit}}"))? {
            Some(info) if info.kind == "commit" => commit_id(ARGS, &info.oid).map(Some),
            _ => Ok(None),
        }
    }

    /// Whether `ancestor` is `descendant` or reachable from it. First a
    /// short walk up from `descendant` through the object reader (at most
    /// [`ANCESTRY_WALK`] commits): a fast-forward by a few commits, the
    /// usual push, starts no process. Past that, for an id that is no
    /// commit (a tag, which git peels), or on any object the walk cannot
    /// read whole, `git merge-base --is-ancestor` answers.
    pub fn is_ancestor(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<bool, GitError> {
        if let Some(answer) = self.ancestry_walk(ancestor, descendant)? {
            return Ok(answer);
        }
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

    /// The best common ancestors of all of `commits` (`git merge-base
    /// --octopus --all`): every commit reachable from one of them is
    /// reachable from each of `commits`. One commit is its own; none, or
    /// commits without a common ancestor, have none.
    pub fn common_ancestors(&self, commits: &[CommitId]) -> Result<Vec<CommitId>, GitError> {
        match commits {
            [] => return Ok(Vec::new()),
            [one] => return Ok(vec![one.clone()]),
            _ => {}
        }
        let mut args: Vec<OsString> = vec!["merge-base".into(), "--octopus".into(), "--all".into()];
        args.extend(commits.iter().map(|c| OsString::from(c.as_str())));
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|l| {
                    CommitId::parse(l.trim()).map_err(|e| GitError::Parse {
                        args: "merge-base --octopus".into(),
                        detail: e.to_string(),
                    })
                })
                .collect(),
            Some(1) => Ok(Vec::new()),
            _ => Err(GitError::Failed {
                args: "merge-base --octopus".into(),
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// [`Repo::is_ancestor`]'s walk: `Some` when the object reader
    /// settles it within [`ANCESTRY_WALK`] commits (`ancestor` met, or
    /// `descendant`'s whole history read without it), `None` otherwise.
    fn ancestry_walk(
        &self,
        ancestor: &CommitId,
        descendant: &CommitId,
    ) -> Result<Option<bool>, GitError> {
        const CAP: usize = 1 << 20;
        if self
            .object_info(ancestor.as_str())?
            .is_none_or(|i| i.kind != "commit")
        {
            return Ok(None);
        }
        let mut queue = std::collections::VecDeque::from([descendant.as_str().to_owned()]);
        let mut seen = std::collections::BTreeSet::new();
        while let Some(c) = queue.pop_front() {
            if c == ancestor.as_str() {
                return Ok(Some(true));
            }
            if !seen.insert(c.clone()) {
                continue;
            }
            if seen.len() > ANCESTRY_WALK {
                return Ok(None);
            }
            let Some((info, body, true)) = self.object_head(&c, CAP)? else {
                return Ok(None);
            };
            let Some((_, parents)) = (info.kind == "commit")
                .then(|| crate::objects::commit_tree_and_parents(&body))
                .flatten()
            else {
                return Ok(None);
            };
            queue.extend(parents);
        }
        Ok(Some(false))
    }

    /// This repository's own branch and tag tips that are commits (an
    /// annotated tag peeled), with their ref names: one `git for-each-ref`,
    /// no transport (what the server hook's own repository holds). Listed
    /// once per [`Repo`] and its clones, as the settings are read once: the
    /// hook's one view of its refs, for its policy bases and its notes
    /// holds (D-R147).
    pub fn own_tips(&self) -> Result<Vec<(String, CommitId)>, GitError> {
        if let Ok(kept) = self.shared().own_tips.lock()
            && let Some(tips) = kept.as_ref()
        {
            return Ok(tips.clone());
        }
        let tips = self.list_own_tips()?;
        if let Ok(mut kept) = self.shared().own_tips.lock() {
            *kept = Some(tips.clone());
        }
        Ok(tips)
    }

    fn list_own_tips(&self) -> Result<Vec<(String, CommitId)>, GitError> {
        const ARGS: &str = "for-each-ref";
        let out = self.run([
            "for-each-ref",
            "--format=%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)",
            "refs/heads/",
            "refs/tags/",
        ])?;
        let text = std::str::from_utf8(&out).map_err(|_| parse_err(ARGS, "non-UTF-8 output"))?;
        let mut tips = Vec::new();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let fields: Vec<&str> = line.split('\0').collect();
            let [name, kind, oid, peeled_kind, peeled] = fields[..] else {
                return Err(parse_err(ARGS, format!("bad line `{line}`")));
            };
            let commit = match (kind, peeled_kind) {
                ("commit", _) => oid,
                ("tag", "commit") => peeled,
                _ => continue,
            };
            tips.push((name.to_string(), commit_id(ARGS, commit)?));
        }
        Ok(tips)
    }

    /// The branch and tag tips `remote` advertises now (`git ls-remote
    /// --heads --tags`, annotated tags peeled), with their ref names and
    /// whether this repository has each as a commit. `remote` is a
    /// configured remote's name or a URL, passed after `--` so it cannot
    /// become an option.
    fn advertised_tips(&self, remote: &str) -> Result<Vec<(String, CommitId, bool)>, GitError> {
        const ARGS: &str = "ls-remote";
        // Talks to the remote: with the user's transport settings.
        let out = self.transport_git().run(
            self.root(),
            ["ls-remote", "--heads", "--tags", "--", remote],
        )?;
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
        let names: Vec<&str> = advertised.iter().map(|(_, a)| a.as_str()).collect();
        let listed = self.object_kinds(&names)?;
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
            .map(|((name, c), k)| (name, c, k.ends_with(" commit")))
            .collect())
    }

    /// `cat-file --batch-check` of `names`: one line per name, in order,
    /// `<id> <type>` for an object here and `<name> missing` otherwise.
    pub(crate) fn object_kinds(&self, names: &[&str]) -> Result<Vec<u8>, GitError> {
        let input = crate::cmd::cat_file_input("cat-file --batch-check", None, names)?;
        self.run_with(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            &[],
            Some(&input),
        )
    }

    /// What `remote`'s own `HEAD` names now (`git ls-remote -- <remote>
    /// HEAD`, exactly that name: a pattern also matches every ref ending in
    /// `/HEAD`): the default branch a server reads a new ref's policy from.
    /// `None` when the remote advertises no `HEAD` (unborn there). The id
    /// may be one this clone has not fetched.
    pub fn advertised_head(&self, remote: &str) -> Result<Option<CommitId>, GitError> {
        const ARGS: &str = "ls-remote HEAD";
        let out = self
            .transport_git()
            .run(self.root(), ["ls-remote", "--", remote, "HEAD"])?;
        let text = std::str::from_utf8(&out).map_err(|_| parse_err(ARGS, "non-UTF-8 output"))?;
        for line in text.lines() {
            if let Some((oid, "HEAD")) = line.split_once('\t') {
                return commit_id(ARGS, oid).map(Some);
            }
        }
        Ok(None)
    }

    /// How `git push <remote>` reaches it ([`PushTarget`]): a configured
    /// remote's push URLs (`remote get-url --push --all`, with
    /// `pushurl`, `insteadOf` and `pushInsteadOf` applied), or a URL or
    /// path given to push as git rewrites it (`ls-remote --get-url`).
    /// One git for a configured remote (two when it is local: its own
    /// receiving program is asked too), two for anything else.
    pub fn push_target(&self, remote: &str) -> Result<PushTarget, GitError> {
        let run = |args: &[&str]| -> Result<(Vec<OsString>, std::process::Output), GitError> {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            let out = self.git().output(self.root(), &args, &[], None)?;
            Ok((args, out))
        };
        if !(remote.is_empty() || remote.contains(['/', ':', '\\'])) {
            let (args, out) = run(&["remote", "get-url", "--push", "--all", "--", remote])?;
            match out.status.code() {
                Some(0) => {
                    let text = String::from_utf8_lossy(&out.stdout);
                    let urls: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
                    let local = !urls.is_empty() && urls.iter().all(|u| is_local_url(u));
                    // The receiving end the remote names for itself
                    // (`remote.<name>.receivepack`), asked only of a
                    // local one: the only case it is wrapped.
                    let receive_pack = if local {
                        let key = format!("remote.{remote}.receivepack");
                        let (args, out) = run(&["config", "--get", "--", &key])?;
                        match out.status.code() {
                            Some(0) => Some(
                                String::from_utf8_lossy(&out.stdout)
                                    .trim_end_matches('\n')
                                    .to_string(),
                            ),
                            Some(1) => None,
                            _ => return Err(crate::cmd::failed(&args, &out)),
                        }
                    } else {
                        None
                    };
                    return Ok(PushTarget {
                        configured: true,
                        local,
                        receive_pack,
                    });
                }
                // "No such remote": a URL or path after all.
                Some(2) => {}
                _ => return Err(crate::cmd::failed(&args, &out)),
            }
        }
        let (args, out) = run(&["ls-remote", "--get-url", "--", remote])?;
        if !out.status.success() {
            return Err(crate::cmd::failed(&args, &out));
        }
        let url = String::from_utf8_lossy(&out.stdout);
        Ok(PushTarget {
            configured: false,
            local: is_local_url(url.trim_end_matches('\n')),
            receive_pack: None,
        })
    }

    /// Whether `remote` is a configured remote's name (it has
    /// `remote.<name>.url`), as opposed to a URL or path given to push: only
    /// a name has remote-tracking refs to measure what it holds.
    pub fn is_configured_remote(&self, remote: &str) -> Result<bool, GitError> {
        if remote.is_empty() || remote.contains(['/', ':', '\\']) {
            return Ok(false);
        }
        let key = format!("remote.{remote}.url");
        let args: Vec<std::ffi::OsString> = ["config", "--get", key.as_str()]
            .iter()
            .map(std::ffi::OsString::from)
            .collect();
        // Exit 1 is `config --get`'s "not set"; any other failure (a
        // configuration git cannot read) is an error, never "not a remote".
        let out = self.git().output(self.root(), &args, &[], None)?;
        match out.status.code() {
            Some(0) => Ok(true),
            Some(1) => Ok(false),
            _ => Err(crate::cmd::failed(&args, &out)),
        }
    }

    /// The tips `remote` advertises (branches and tags, peeled) that are
    /// commits here; a tip this clone has not fetched is left out.
    pub fn remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, GitError> {
        Ok(self
            .advertised_tips(remote)?
            .into_iter()
            .filter(|(_, _, known)| *known)
            .map(|(name, c, _)| (name, c))
            .collect())
    }

    /// The branch tips `remote` advertises that this clone does not hold
    /// (a teammate's push it has not fetched): what a new ref's delivery
    /// cannot be measured against until `git fetch`. One more `ls-remote`:
    /// asked only to explain a denial.
    pub fn unfetched_remote_tips(&self, remote: &str) -> Result<Vec<(String, CommitId)>, GitError> {
        Ok(self
            .advertised_tips(remote)?
            .into_iter()
            .filter(|(name, _, known)| !*known && name.starts_with("refs/heads/"))
            .map(|(name, c, _)| (name, c))
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
        if limit == 1 && exclude.is_empty() && matches!(remotes, RemoteScope::None) {
            return self.one_commit(tip);
        }
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

    /// For each of `trees`, its delta from `reviewed` ([`Repo::tree_delta`]),
    /// all derived by one `git diff-tree --stdin` (raw, no blob read) and
    /// not kept after.
    pub fn history_deltas(
        &self,
        reviewed: &TreeId,
        trees: &[TreeId],
    ) -> Result<Vec<Option<Vec<DeltaEntry>>>, GitError> {
        let pairs: Vec<(String, String)> = trees
            .iter()
            .map(|t| (reviewed.to_string(), t.to_string()))
            .collect();
        self.prefetch_raw_diffs(&pairs)?;
        let deltas = trees.iter().map(|t| self.tree_delta(reviewed, t)).collect();
        self.forget_diffs(&pairs);
        deltas
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
    /// tree `candidate` (`span.to`) and a parent whose tree is `base`
    /// (`span.from`; a root commit: `base` is the empty tree), or, with
    /// `base` the empty tree, has tree `candidate` at all (a whole history,
    /// `start --history`). An unborn HEAD has no commits.
    pub fn committed_change(&self, span: TreeSpan<'_>, limit: usize) -> Result<bool, GitError> {
        let Some((listed, empty)) = self.recent_commits(limit)? else {
            return Ok(false);
        };
        // A whole history (`start --history`): the empty tree to the tree
        // of a commit in it.
        if *span.from == empty && listed.iter().any(|c| c.tree == *span.to) {
            return Ok(true);
        }
        Ok(self
            .parent_match(&listed, &empty, span.from, span.to)?
            .is_some())
    }

    /// The newest of the last `limit` commits reachable from HEAD whose
    /// tree is `span.to` and whose one parent's tree (a root commit: the
    /// empty tree) is `span.from`: the commit a `start --commit` or `--range`
    /// review froze, found again from its trees. An unborn HEAD has none.
    pub fn committed_commit(
        &self,
        span: TreeSpan<'_>,
        limit: usize,
    ) -> Result<Option<RangeCommit>, GitError> {
        match self.recent_commits(limit)? {
            Some((listed, empty)) => self.parent_match(&listed, &empty, span.from, span.to),
            None => Ok(None),
        }
    }

    /// The last `limit` commits reachable from HEAD, newest first, and the
    /// empty tree; `None` for an unborn HEAD.
    fn recent_commits(&self, limit: usize) -> Result<Option<(Vec<RangeCommit>, TreeId)>, GitError> {
        let Some(head) = self.find_commit("HEAD")? else {
            return Ok(None);
        };
        let listed = self.range_commits(&head, &[], &RemoteScope::None, limit)?;
        Ok(Some((listed, self.empty_tree()?)))
    }

    /// The newest of `listed` whose tree is `candidate` and whose one
    /// parent's tree (a root commit: `empty`) is `base`.
    fn parent_match(
        &self,
        listed: &[RangeCommit],
        empty: &TreeId,
        base: &TreeId,
        candidate: &TreeId,
    ) -> Result<Option<RangeCommit>, GitError> {
        let trees: std::collections::HashMap<&CommitId, &TreeId> =
            listed.iter().map(|c| (&c.commit, &c.tree)).collect();
        for c in listed.iter().filter(|c| c.tree == *candidate) {
            let parent_tree = match c.parents[..] {
                [] => empty.clone(),
                [ref p] => match trees.get(p) {
                    Some(t) => (*t).clone(),
                    None => self.commit_tree(p)?,
                },
                _ => continue,
            };
            if parent_tree == *base {
                return Ok(Some(c.clone()));
            }
        }
        Ok(None)
    }

    /// A commit's tree (`info <id>^{tree}` of the object reader).
    pub fn commit_tree(&self, id: &CommitId) -> Result<TreeId, GitError> {
        const ARGS: &str = "cat-file info <oid>^{tree}";
        let info = self
            .object_info(&format!("{id}^{{tree}}"))?
            .ok_or_else(|| GitError::Failed {
                args: ARGS.into(),
                status: "missing".into(),
                stderr: format!("{id} names no tree here"),
            })?;
        TreeId::parse(&info.oid).map_err(|e| parse_err(ARGS, e.to_string()))
    }

    /// One commit's tree and parents, read from the commit object (the
    /// object reader, no `rev-list`): what `range_commits` answers for a
    /// tip alone with a limit of one.
    fn one_commit(&self, tip: &CommitId) -> Result<Vec<RangeCommit>, GitError> {
        const ARGS: &str = "cat-file contents <oid>^{commit}";
        let Some((info, body, complete)) =
            self.object_head(&format!("{tip}^{{commit}}"), 64 * 1024)?
        else {
            return Err(GitError::UnknownRevision {
                rev: tip.to_string(),
            });
        };
        let parsed = crate::objects::commit_tree_and_parents(&body);
        let Some((tree, parents)) = parsed.filter(|_| complete || body.contains(&b'\n')) else {
            return Err(parse_err(
                ARGS,
                format!("commit {} without a tree", info.oid),
            ));
        };
        Ok(vec![RangeCommit {
            commit: commit_id(ARGS, &info.oid)?,
            tree: TreeId::parse(&tree).map_err(|e| parse_err(ARGS, e.to_string()))?,
            parents: parents
                .iter()
                .map(|p| commit_id(ARGS, p))
                .collect::<Result<_, _>>()?,
        }])
    }
}

impl RevisionGit for Repo {
    fn resolve_commit(&self, rev: &str) -> Result<CommitId, AdapterError> {
        Ok(Repo::resolve_commit(self, rev)?)
    }

    fn find_commit(&self, rev: &str) -> Result<Option<CommitId>, AdapterError> {
        Ok(Repo::find_commit(self, rev)?)
    }
}

impl CommitGit for Repo {
    fn observe_commit(&self, commit: &RangeCommit) -> Result<CandidateObservation, AdapterError> {
        Ok(Repo::observe_commit(self, commit)?)
    }

    fn commit_tree(&self, id: &CommitId) -> Result<TreeId, AdapterError> {
        Ok(Repo::commit_tree(self, id)?)
    }

    fn empty_tree(&self) -> Result<TreeId, AdapterError> {
        Ok(Repo::empty_tree(self)?)
    }
}

impl RangeGit for Repo {
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

    fn history_deltas(
        &self,
        reviewed: &TreeId,
        trees: &[TreeId],
    ) -> Result<Vec<Option<Vec<DeltaEntry>>>, AdapterError> {
        Ok(Repo::history_deltas(self, reviewed, trees)?)
    }
}

/// How `git push` reaches a remote ([`Repo::push_target`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    /// A configured remote's name (it has remote-tracking refs), not a URL
    /// or path given to push.
    pub configured: bool,
    /// Every URL pushed to is reached by git's local transport (a path or
    /// `file://`): its `receive-pack` runs on this machine, in the pushing
    /// process's group (D-R124).
    pub local: bool,
    /// The receiving program a local remote names for itself
    /// (`remote.<name>.receivepack`, a command git runs through the
    /// shell); `None`: git's `git-receive-pack`.
    pub receive_pack: Option<String>,
}

/// Whether git reaches `url` by its local transport, by git's own rule: a
/// `file://` URL, or no `://` and either no colon or a slash before the
/// first colon (`host:path` is scp-like ssh, `helper::address` a remote
/// helper).
pub fn is_local_url(url: &str) -> bool {
    if url.starts_with("file://") {
        return true;
    }
    if url.is_empty() || url.contains("://") {
        return false;
    }
    match (url.find(':'), url.find('/')) {
        (None, _) => true,
        (Some(colon), Some(slash)) => slash < colon,
        (Some(_), None) => false,
    }
}
