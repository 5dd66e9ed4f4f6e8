//! The synthetic candidate (R2.1–R2.4): worktree content of tracked paths
//! plus intended untracked files, written as a tree through a temporary
//! index. The user's index, worktree and `git status` output are never
//! touched.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::Path;

use probity_core::review::causality::{Hunk, parse_hunks};
use probity_core::review::ids::{BlobId, RepoPath, TreeId};
use probity_core::review::snapshot::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount, LiveTarget,
};

use crate::cmd::{GitError, split_z};
use crate::repo::Repo;

/// How many leading bytes of a changed blob classification may look at.
pub const CONTENT_CAP: usize = 1 << 20;

/// Base and candidate trees, derived together.
#[derive(Debug, Clone)]
pub struct Trees {
    pub base_tree: TreeId,
    pub candidate_tree: TreeId,
    pub unborn_head: bool,
}

/// One `git diff-tree --raw` entry.
#[derive(Debug, Clone)]
struct RawEntry {
    path: RepoPath,
    old_mode: Option<FileMode>,
    new_mode: Option<FileMode>,
    new_blob: Option<BlobId>,
    added: bool,
}

fn parse_err(args: &str, detail: impl Into<String>) -> GitError {
    GitError::Parse {
        args: args.into(),
        detail: detail.into(),
    }
}

fn repo_path(args: &str, bytes: &[u8]) -> Result<RepoPath, GitError> {
    let s = std::str::from_utf8(bytes).map_err(|_| {
        parse_err(
            args,
            format!(
                "path {:?} is not UTF-8; Probity reviews UTF-8 paths only",
                String::from_utf8_lossy(bytes)
            ),
        )
    })?;
    RepoPath::parse(s).map_err(|e| parse_err(args, e.to_string()))
}

fn tree_id(args: &str, out: &[u8]) -> Result<TreeId, GitError> {
    let s = std::str::from_utf8(out).map_err(|_| parse_err(args, "non-UTF-8 object id"))?;
    TreeId::parse(s.trim()).map_err(|e| parse_err(args, e.to_string()))
}

impl Repo {
    /// HEAD's tree, or the empty tree on an unborn HEAD.
    pub fn base_tree(&self) -> Result<(TreeId, bool), GitError> {
        let args: Vec<OsString> = ["rev-parse", "-q", "--verify", "HEAD^{tree}"]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        if out.status.success() {
            return Ok((tree_id("rev-parse HEAD^{tree}", &out.stdout)?, false));
        }
        // Unborn only if HEAD names a branch and that branch does not exist.
        let sym = self.run(["symbolic-ref", "-q", "HEAD"])?;
        let branch = String::from_utf8_lossy(&sym).trim().to_string();
        let exists: Vec<OsString> = ["show-ref", "--verify", "-q", branch.as_str()]
            .iter()
            .map(OsString::from)
            .collect();
        if self
            .git()
            .output(self.root(), &exists, &[], None)?
            .status
            .success()
        {
            return Err(GitError::Failed {
                args: "rev-parse --verify HEAD^{tree}".into(),
                status: out.status.to_string(),
                stderr: format!("{branch} exists but has no tree"),
            });
        }
        Ok((self.empty_tree()?, true))
    }

    /// The empty tree's id in this repository's hash.
    pub fn empty_tree(&self) -> Result<TreeId, GitError> {
        let out = self.run_with(["hash-object", "-t", "tree", "--stdin"], &[], Some(b""))?;
        tree_id("hash-object -t tree", &out)
    }

    /// Writes the synthetic candidate tree via a temporary index seeded from
    /// the user's index, and returns it with the base tree.
    pub fn trees(&self) -> Result<Trees, GitError> {
        let index = self.git_dir().join("index");
        self.trees_from_index(&index, true)
    }

    /// The tree a commit in progress delivers: `index` (the file git named in
    /// `GIT_INDEX_FILE` for the hook) written as a tree, unchanged.
    pub fn staged_trees(&self, index: &Path) -> Result<Trees, GitError> {
        self.trees_from_index(index, false)
    }

    /// Copies `index` to a temporary file in the git dir, optionally runs
    /// `git add -A` on the copy, and writes it as a tree. The source index,
    /// the worktree and `git status` are never touched.
    fn trees_from_index(&self, index: &Path, add_all: bool) -> Result<Trees, GitError> {
        let (base_tree, unborn_head) = self.base_tree()?;
        let tmp = tempfile::Builder::new()
            .prefix("probity-index-")
            .tempfile_in(self.git_dir())?;
        match std::fs::copy(index, tmp.path()) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && add_all => {
                // No index yet: git treats a zero-length file as invalid,
                // so remove it and let `git add` create it.
                std::fs::remove_file(tmp.path())?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(GitError::Parse {
                    args: "read index".into(),
                    detail: format!("no index at {}", index.display()),
                });
            }
            Err(e) => return Err(e.into()),
        }
        let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", tmp.path().as_os_str())];
        // The temporary index is ours alone and read once: skip its
        // trailing checksum (git 2.40+), which is most of the cost of
        // rewriting a large index.
        if add_all {
            self.run_with(
                ["-c", "index.skipHash=true", "add", "-A", "--", "."],
                &env,
                None,
            )?;
        }
        let out = self.run_with(["-c", "index.skipHash=true", "write-tree"], &env, None)?;
        let candidate_tree = tree_id("write-tree", &out)?;
        // Leave nothing behind, including the index git may have recreated.
        let path = tmp.path().to_path_buf();
        drop(tmp);
        let _ = std::fs::remove_file(&path);
        Ok(Trees {
            base_tree,
            candidate_tree,
            unborn_head,
        })
    }

    /// Paths whose entries differ between two trees.
    pub fn changed_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RepoPath>, GitError> {
        const ARGS: &str = "diff-tree --name-only";
        let out = self.run([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--name-only",
            from.as_str(),
            to.as_str(),
        ])?;
        split_z(&out).map(|p| repo_path(ARGS, p)).collect()
    }

    /// The live target: the two trees and their identity.
    pub fn live_target(&self) -> Result<LiveTarget, GitError> {
        let t = self.trees()?;
        Ok(LiveTarget::new(t.base_tree, t.candidate_tree))
    }

    /// The target a commit in progress delivers (see [`Self::staged_trees`]).
    pub fn staged_target(&self, index: &Path) -> Result<LiveTarget, GitError> {
        let t = self.staged_trees(index)?;
        Ok(LiveTarget::new(t.base_tree, t.candidate_tree))
    }

    fn raw_diff(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RawEntry>, GitError> {
        const ARGS: &str = "diff-tree --raw";
        let out = self.run([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            from.as_str(),
            to.as_str(),
        ])?;
        let mut fields = out.split(|b| *b == 0);
        let mut entries = Vec::new();
        while let Some(meta) = fields.next() {
            if meta.is_empty() {
                continue;
            }
            let path = fields
                .next()
                .ok_or_else(|| parse_err(ARGS, "entry without path"))?;
            let meta =
                std::str::from_utf8(meta).map_err(|_| parse_err(ARGS, "non-UTF-8 metadata"))?;
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let [old_mode, new_mode, _old, new, status] = parts[..] else {
                return Err(parse_err(ARGS, format!("unexpected entry `{meta}`")));
            };
            let mode = |m: &str| -> Result<Option<FileMode>, GitError> {
                if m == "000000" {
                    Ok(None)
                } else {
                    FileMode::from_octal(m)
                        .map(Some)
                        .ok_or_else(|| parse_err(ARGS, format!("unknown mode {m}")))
                }
            };
            let new_mode = mode(new_mode)?;
            let new_blob = match new_mode {
                Some(FileMode::Regular | FileMode::Executable | FileMode::Symlink) => {
                    Some(BlobId::parse(new).map_err(|e| parse_err(ARGS, e.to_string()))?)
                }
                _ => None,
            };
            entries.push(RawEntry {
                path: repo_path(ARGS, path)?,
                old_mode: mode(old_mode)?,
                new_mode,
                new_blob,
                added: status == "A",
            });
        }
        Ok(entries)
    }

    fn numstat(&self, from: &TreeId, to: &TreeId) -> Result<Vec<(RepoPath, LineCount)>, GitError> {
        const ARGS: &str = "diff-tree --numstat";
        let out = self.run([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--numstat",
            from.as_str(),
            to.as_str(),
        ])?;
        let mut rows = Vec::new();
        for rec in split_z(&out) {
            let mut it = rec.splitn(3, |b| *b == b'\t');
            let (Some(a), Some(r), Some(path)) = (it.next(), it.next(), it.next()) else {
                return Err(parse_err(ARGS, "row without three fields"));
            };
            let count = if a == b"-" && r == b"-" {
                LineCount::Binary
            } else {
                let n = |b: &[u8]| {
                    std::str::from_utf8(b)
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok())
                        .ok_or_else(|| parse_err(ARGS, "line count is not a number"))
                };
                LineCount::Text {
                    added: n(a)?,
                    removed: n(r)?,
                }
            };
            rows.push((repo_path(ARGS, path)?, count));
        }
        Ok(rows)
    }

    /// Leading bytes of blobs, through one `git cat-file --batch`.
    fn blob_heads(&self, blobs: &[&BlobId]) -> Result<Vec<CandidateContent>, GitError> {
        const ARGS: &str = "cat-file --batch";
        if blobs.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = Vec::new();
        for b in blobs {
            input.extend_from_slice(b.as_str().as_bytes());
            input.push(b'\n');
        }
        let out = self.run_with(["cat-file", "--batch"], &[], Some(&input))?;
        let mut rest = &out[..];
        let mut contents = Vec::with_capacity(blobs.len());
        for _ in blobs {
            let nl = rest
                .iter()
                .position(|b| *b == b'\n')
                .ok_or_else(|| parse_err(ARGS, "truncated header"))?;
            let header =
                std::str::from_utf8(&rest[..nl]).map_err(|_| parse_err(ARGS, "bad header"))?;
            let size: usize = header
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| parse_err(ARGS, format!("bad header `{header}`")))?;
            let body_start = nl + 1;
            if rest.len() < body_start + size + 1 {
                return Err(parse_err(ARGS, "truncated body"));
            }
            let body = &rest[body_start..body_start + size];
            let keep = body.len().min(CONTENT_CAP);
            contents.push(CandidateContent::Bytes {
                bytes: body[..keep].to_vec(),
                complete: keep == body.len(),
            });
            rest = &rest[body_start + size + 1..];
        }
        Ok(contents)
    }

    /// Which of `paths` are in the user's index (stage entries of any kind).
    fn in_index(&self, paths: &[&RepoPath]) -> Result<HashSet<RepoPath>, GitError> {
        let mut found = HashSet::new();
        for chunk in paths.chunks(512) {
            let mut args: Vec<&str> =
                vec!["--literal-pathspecs", "ls-files", "-z", "--cached", "--"];
            args.extend(chunk.iter().map(|p| p.as_str()));
            let out = self.run(&args)?;
            for p in split_z(&out) {
                found.insert(repo_path("ls-files --cached", p)?);
            }
        }
        Ok(found)
    }

    /// The changed files between two trees: modes, line counts (numstat,
    /// no renames) and leading content of the new side.
    pub fn diff_files(&self, from: &TreeId, to: &TreeId) -> Result<Vec<ChangedFile>, GitError> {
        Ok(self
            .diff_entries(from, to)?
            .into_iter()
            .map(|(f, _)| f)
            .collect())
    }

    fn diff_entries(
        &self,
        from: &TreeId,
        to: &TreeId,
    ) -> Result<Vec<(ChangedFile, bool)>, GitError> {
        let raw = self.raw_diff(from, to)?;
        let counts: std::collections::HashMap<RepoPath, LineCount> =
            self.numstat(from, to)?.into_iter().collect();
        let blobs: Vec<&BlobId> = raw.iter().filter_map(|e| e.new_blob.as_ref()).collect();
        let mut heads = self.blob_heads(&blobs)?.into_iter();
        let mut changed = Vec::with_capacity(raw.len());
        for e in raw {
            let content = if e.new_blob.is_some() {
                heads
                    .next()
                    .ok_or_else(|| parse_err("cat-file --batch", "fewer blobs than asked"))?
            } else {
                CandidateContent::Absent
            };
            // numstat has no row for an entry it cannot count (a submodule
            // pointer); those count zero lines.
            let lines = counts.get(&e.path).copied().unwrap_or(LineCount::Text {
                added: 0,
                removed: 0,
            });
            changed.push((
                ChangedFile {
                    path: e.path,
                    old_mode: e.old_mode,
                    new_mode: e.new_mode,
                    lines,
                    content,
                },
                e.added,
            ));
        }
        Ok(changed)
    }

    /// New-side hunks of one path between two trees (`git diff -U0`).
    pub fn hunks(
        &self,
        from: &TreeId,
        to: &TreeId,
        path: &RepoPath,
    ) -> Result<Vec<Hunk>, GitError> {
        let out = self.run([
            "--literal-pathspecs",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--unified=0",
            from.as_str(),
            to.as_str(),
            "--",
            path.as_str(),
        ])?;
        Ok(parse_hunks(&out))
    }

    /// Lines of a path in a tree (a final line without LF counts); `None`
    /// when the path is absent or not a blob.
    pub fn line_count(&self, tree: &TreeId, path: &RepoPath) -> Result<Option<u64>, GitError> {
        let spec = format!("{}:{}", tree.as_str(), path.as_str());
        let check: Vec<OsString> = ["cat-file", "-e", spec.as_str()]
            .iter()
            .map(OsString::from)
            .collect();
        if !self
            .git()
            .output(self.root(), &check, &[], None)?
            .status
            .success()
        {
            return Ok(None);
        }
        let out = self.run(["cat-file", "blob", spec.as_str()])?;
        let newlines = out.iter().filter(|b| **b == b'\n').count() as u64;
        let partial = u64::from(!out.is_empty() && !out.ends_with(b"\n"));
        Ok(Some(newlines + partial))
    }

    /// Everything start needs (R2.1): trees, changed files with modes, line
    /// counts and leading content, and the intended untracked files.
    pub fn observe_candidate(&self) -> Result<CandidateObservation, GitError> {
        let trees = self.trees()?;
        let entries = self.diff_entries(&trees.base_tree, &trees.candidate_tree)?;
        let added: Vec<&RepoPath> = entries
            .iter()
            .filter(|(_, a)| *a)
            .map(|(f, _)| &f.path)
            .collect();
        let tracked = self.in_index(&added)?;
        let intended_untracked = added
            .iter()
            .filter(|p| !tracked.contains(**p))
            .map(|p| (*p).clone())
            .collect();
        Ok(CandidateObservation {
            base_tree: trees.base_tree,
            candidate_tree: trees.candidate_tree,
            unborn_head: trees.unborn_head,
            changed: entries.into_iter().map(|(f, _)| f).collect(),
            intended_untracked,
        })
    }
}
