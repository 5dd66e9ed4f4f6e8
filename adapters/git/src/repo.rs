//! Repository discovery: root, git dir and common dir from any directory,
//! including a subdirectory or a linked worktree.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cmd::{GitCli, GitError};

/// A discovered repository. Never trusted as given: always derived from a
/// starting directory by asking git.
#[derive(Debug, Clone)]
pub struct Repo {
    git: GitCli,
    root: PathBuf,
    git_dir: PathBuf,
    common_dir: PathBuf,
    /// The hooks directory, when discovery's `rev-parse` already said it.
    hooks: Option<PathBuf>,
    /// The object reader and diff memo its clones share
    /// ([`crate::objects`]).
    shared: std::sync::Arc<crate::objects::Shared>,
}

impl Repo {
    /// Discovers the repository containing `cwd`.
    ///
    /// The same `rev-parse` says where hooks run from (`--git-path hooks`,
    /// which honours `core.hooksPath`), kept for [`Repo::hooks_dir`]: one
    /// git fewer for a command that looks for Probity's hooks (`push`).
    pub fn discover(git: GitCli, cwd: &Path) -> Result<Self, GitError> {
        let lines = rev_parse_with(&git, cwd, "--show-toplevel", &["--git-path", "hooks"])?;
        if lines.len() < 3 || lines[0].is_empty() {
            return Err(GitError::Parse {
                args: "rev-parse --show-toplevel --git-dir --git-common-dir".into(),
                detail: "a bare repository or no work tree; Probity needs a work tree".into(),
            });
        }
        let mut repo = Self::from_lines(git, &lines[0], &lines[1], &lines[2]);
        repo.hooks = lines
            .get(3)
            .filter(|l| !l.is_empty())
            .map(|l| crate::cmd::path_from_bytes(Path::new(""), l));
        Ok(repo)
    }

    /// [`Repo::discover`], asking in the same `rev-parse` for HEAD's tree
    /// (issue 24: one git process fewer for the pre-commit gate and
    /// `start`). The tree is kept for the first [`Repo::base_tree`] of this
    /// repository, which takes it instead of asking again; an unborn or
    /// broken HEAD answers nothing here and is read there as before. For a
    /// command that reads the candidate before it changes anything.
    ///
    /// Where the repository's layout and HEAD's commit are certainly what
    /// git would read (the module `discover`, D-R142), both are read
    /// in-process and no git runs here at all.
    pub fn discover_reading_head(git: GitCli, cwd: &Path) -> Result<Self, GitError> {
        if !git.keeps_any_env()
            && let Some(found) = crate::discover::find(cwd)
        {
            let repo = Self {
                git,
                root: found.root,
                git_dir: found.git_dir,
                common_dir: found.common_dir,
                hooks: None,
                shared: crate::objects::shared(),
            };
            if let Ok(mut f) = repo.shared().object_format.lock() {
                *f = Some(found.object_format.to_string());
            }
            if let Ok(Some(head)) = repo.head_target()
                && let Some(tree) =
                    crate::discover::commit_tree(&repo.common_dir, found.object_format, &head)
            {
                repo.shared().preload_head_tree(tree);
            }
            return Ok(repo);
        }
        let lines = rev_parse_with(
            &git,
            cwd,
            "--show-toplevel",
            &["--show-object-format", "--verify", "-q", "HEAD^{tree}"],
        )?;
        if lines.len() < 4 || lines[0].is_empty() {
            return Self::discover(git, cwd);
        }
        let repo = Self::from_lines(git, &lines[0], &lines[1], &lines[2]);
        if let Ok(format) = std::str::from_utf8(&lines[3])
            && crate::objects::empty_tree_of(format).is_some()
            && let Ok(mut f) = repo.shared().object_format.lock()
        {
            *f = Some(format.to_string());
        }
        if let Some(tree) = lines.get(4).filter(|l| !l.is_empty())
            && let Ok(tree) = std::str::from_utf8(tree)
            && let Ok(tree) = probity_core::review::TreeId::parse(tree)
        {
            repo.shared().preload_head_tree(tree);
        }
        Ok(repo)
    }

    /// Discovers a repository that may be bare (the server gate runs in a
    /// bare repository's `pre-receive` hook): a bare repository's git dir
    /// stands in for the root, and git runs there. A repository with a
    /// work tree is discovered as [`Repo::discover`] does.
    ///
    /// The same `rev-parse` says the object format (the server gate's
    /// empty tree needs no `hash-object`).
    pub fn discover_allow_bare(git: GitCli, cwd: &Path) -> Result<Self, GitError> {
        let lines = rev_parse_with(&git, cwd, "--is-bare-repository", &["--show-object-format"])?;
        if lines.first().map(Vec::as_slice) != Some(&b"true"[..]) {
            return Self::discover(git, cwd);
        }
        if lines.len() < 4 {
            return Err(GitError::Parse {
                args: "rev-parse --is-bare-repository --git-dir --git-common-dir".into(),
                detail: "missing lines".into(),
            });
        }
        let repo = Self::from_lines(git, &lines[1], &lines[1], &lines[2]);
        if let Ok(format) = std::str::from_utf8(&lines[3])
            && crate::objects::empty_tree_of(format).is_some()
            && let Ok(mut f) = repo.shared().object_format.lock()
        {
            *f = Some(format.to_string());
        }
        Ok(repo)
    }

    fn from_lines(git: GitCli, root: &[u8], git_dir: &[u8], common_dir: &[u8]) -> Self {
        let p = |b: &[u8]| crate::cmd::path_from_bytes(Path::new(""), b);
        Self {
            git,
            root: p(root),
            git_dir: p(git_dir),
            common_dir: p(common_dir),
            hooks: None,
            shared: crate::objects::shared(),
        }
    }

    /// The work tree's top-level directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This work tree's git directory (`.git`, or `.git/worktrees/<name>`).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The common git directory shared by every linked worktree.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The directory git runs hooks from (honours `core.hooksPath`).
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        if let Some(dir) = &self.hooks {
            return Ok(dir.clone());
        }
        let out = self.run(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])?;
        let line = out.strip_suffix(b"\n").unwrap_or(&out);
        Ok(crate::cmd::path_from_bytes(Path::new(""), line))
    }

    /// The tracked files under `hooks_dir` when it (`core.hooksPath`) is a
    /// tracked folder of the work tree, outside the git directories;
    /// `None` otherwise (writing hooks there rewrites no tracked file).
    pub fn tracked_hooks_dir(&self, hooks_dir: &Path) -> Result<Option<Vec<String>>, GitError> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let dir = canon(hooks_dir);
        let root = canon(&self.root);
        if !dir.starts_with(&root)
            || dir.starts_with(canon(&self.git_dir))
            || dir.starts_with(canon(&self.common_dir))
        {
            return Ok(None);
        }
        let rel = dir.strip_prefix(&root).unwrap_or(&dir).to_path_buf();
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rel
        };
        let tracked = self.run([
            OsStr::new("--literal-pathspecs"),
            OsStr::new("ls-files"),
            OsStr::new("-z"),
            OsStr::new("--cached"),
            OsStr::new("--"),
            rel.as_os_str(),
        ])?;
        let tracked: Vec<String> = tracked
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        Ok((!tracked.is_empty()).then_some(tracked))
    }

    pub(crate) fn shared(&self) -> &crate::objects::Shared {
        &self.shared
    }

    /// `sha1` or `sha256` (`rev-parse --show-object-format`, asked once).
    pub fn object_format(&self) -> Result<String, GitError> {
        if let Ok(f) = self.shared().object_format.lock()
            && let Some(f) = f.as_ref()
        {
            return Ok(f.clone());
        }
        let out = self.run(["rev-parse", "--show-object-format"])?;
        let format = String::from_utf8_lossy(&out).trim().to_string();
        if let Ok(mut f) = self.shared().object_format.lock() {
            *f = Some(format.clone());
        }
        Ok(format)
    }

    /// The git CLI used for this repository.
    pub fn git(&self) -> &GitCli {
        &self.git
    }

    /// The git CLI for a command that talks to a remote (`push`, `fetch`,
    /// `ls-remote`): this repository's, keeping the user's transport
    /// settings ([`GitCli::with_transport_env`]). Never for an observation
    /// of the local repository.
    pub fn transport_git(&self) -> GitCli {
        self.git.clone().with_transport_env()
    }

    /// Runs git at the repository root.
    pub fn run<I, S>(&self, args: I) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.git.run(&self.root, args)
    }

    /// Runs a short local git that writes a ref at the root, sheltered
    /// from interrupting signals ([`GitCli::sheltered`]): an interrupted
    /// run waits for it to finish, so it never leaves its lock file.
    pub fn run_sheltered<I, S>(&self, args: I, stdin: Option<&[u8]>) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.git
            .clone()
            .sheltered()
            .run_with(&self.root, args, &[], stdin)
    }

    /// Runs git at the root with extra environment and optional stdin.
    pub fn run_with<I, S>(
        &self,
        args: I,
        env: &[(&str, &OsStr)],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.git.run_with(&self.root, args, env, stdin)
    }

    /// [`GitCli::run_capped`] in this repository.
    pub fn run_capped(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        self.git.run_capped(&self.root, args, stdin, cap)
    }
}

/// `git rev-parse --path-format=absolute <first> --git-dir --git-common-dir`
/// and `tail` in `cwd`, as lines: a directory that is not in a repository
/// is [`GitError::NotARepository`]; any other refusal is
/// [`GitError::Failed`] with git's own text. With `--verify -q <rev>` in
/// `tail`, git exits 1, its other lines printed, when the revision names
/// nothing: that is no failure.
fn rev_parse_with(
    git: &GitCli,
    cwd: &Path,
    first: &str,
    tail: &[&str],
) -> Result<Vec<Vec<u8>>, GitError> {
    let not_repo = || GitError::NotARepository {
        path: cwd.display().to_string(),
    };
    if !cwd.is_dir() {
        return Err(not_repo());
    }
    let mut args: Vec<std::ffi::OsString> = vec![
        "rev-parse".into(),
        "--path-format=absolute".into(),
        first.into(),
        "--git-dir".into(),
        "--git-common-dir".into(),
    ];
    args.extend(tail.iter().map(Into::into));
    let out = git.output(cwd, &args, &[], None)?;
    let verify_missed = tail.contains(&"--verify") && out.status.code() == Some(1);
    if !out.status.success() && !verify_missed {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Only git's own "not a git repository" is one; anything else
        // (a repository another user owns, "detected dubious ownership", a
        // broken configuration) is git's text, as git said it.
        if stderr.contains("not a git repository") {
            return Err(not_repo());
        }
        return Err(GitError::Failed {
            args: format!("rev-parse {first}"),
            status: out.status.to_string(),
            stderr: stderr.trim().to_string(),
        });
    }
    Ok(out
        .stdout
        .split(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect())
}
