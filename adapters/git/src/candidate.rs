//! The synthetic candidate (R2.1–R2.4): worktree content of tracked paths
//! plus intended untracked files, written as a tree through a temporary
//! index. The user's index (its bytes and mtime), worktree and `git status`
//! output never change: the temporary index starts as a hard link to the
//! user's (which changes only its inode's ctime, and its link count while
//! the link lives) or, where no link can be made, as a copy.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::Path;

use probity_core::review::MAX_DIFF_BYTES;
use probity_core::review::RangeCommit;
use probity_core::review::{BlobId, ObjectId, RepoPath, TreeId};
use probity_core::review::{
    CandidateContent, CandidateObservation, ChangedFile, FileMode, LineCount, LiveTarget,
    MAX_REVIEWED_FILE_BYTES, first_oversized,
};
use probity_core::review::{Hunk, parse_hunks};

use crate::cmd::{GitError, escape_path, path_from_bytes, split_z};
use crate::onediff::{Incoming, OneDiff};
use crate::repo::Repo;

/// How many leading bytes of a changed blob classification may look at.
pub const CONTENT_CAP: usize = 1 << 20;

/// Base and candidate trees, derived together.
#[derive(Debug, Clone)]
pub struct Trees {
    /// HEAD's tree, or the empty tree on an unborn branch.
    pub base_tree: TreeId,
    /// The synthetic candidate tree: the worktree's tracked content plus
    /// the intended untracked files, written without touching the index.
    pub candidate_tree: TreeId,
    /// HEAD names no commit yet (a repository before its first commit).
    pub unborn_head: bool,
}

/// One `git diff-tree --raw` entry.
#[derive(Debug, Clone)]
pub(crate) struct RawEntry {
    pub(crate) path: RepoPath,
    pub(crate) old_mode: Option<FileMode>,
    pub(crate) new_mode: Option<FileMode>,
    pub(crate) old_blob: Option<BlobId>,
    pub(crate) new_blob: Option<BlobId>,
    /// The object each present side names (a gitlink's commit included).
    pub(crate) old_object: Option<ObjectId>,
    pub(crate) new_object: Option<ObjectId>,
    added: bool,
}

fn parse_err(args: &str, detail: impl Into<String>) -> GitError {
    GitError::Parse {
        args: args.into(),
        detail: detail.into(),
    }
}

fn repo_path(args: &str, bytes: &[u8]) -> Result<RepoPath, GitError> {
    let s = std::str::from_utf8(bytes).map_err(|_| GitError::NonUtf8Path {
        path: escape_path(bytes),
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
        if let Some(tree) = self.shared().take_head_tree() {
            return Ok((tree, false));
        }
        let args: Vec<OsString> = ["rev-parse", "-q", "--verify", "HEAD^{tree}"]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.git().output(self.root(), &args, &[], None)?;
        if out.status.success() {
            return Ok((tree_id("rev-parse HEAD^{tree}", &out.stdout)?, false));
        }
        // Unborn only if HEAD names a branch and that branch does not exist.
        // `rev-parse --verify` of the ref itself reads the ref, not its
        // object: a branch whose commit is missing exists (`show-ref
        // --verify` would call it absent, and the whole worktree would look
        // added).
        let sym = self.run(["symbolic-ref", "-q", "HEAD"])?;
        let branch = String::from_utf8_lossy(&sym).trim().to_string();
        let exists: Vec<OsString> = ["rev-parse", "-q", "--verify", branch.as_str()]
            .iter()
            .map(OsString::from)
            .collect();
        // Exit 1 is git's "no such ref"; any other failure is an error,
        // never an unborn HEAD.
        let found = self.git().output(self.root(), &exists, &[], None)?;
        match found.status.code() {
            Some(1) => Ok((self.empty_tree()?, true)),
            Some(0) => Err(GitError::Failed {
                args: "rev-parse --verify HEAD^{tree}".into(),
                status: out.status.to_string(),
                stderr: format!("{branch} exists but has no tree"),
            }),
            _ => Err(crate::cmd::failed(&exists, &found)),
        }
    }

    /// The empty tree's id in this repository's hash.
    pub fn empty_tree(&self) -> Result<TreeId, GitError> {
        // Known from the object format when discovery read it.
        if let Ok(f) = self.shared().object_format.lock()
            && let Some(id) = f.as_deref().and_then(crate::objects::empty_tree_of)
        {
            return tree_id("empty tree", id.as_bytes());
        }
        let out = self.run_with(["hash-object", "-t", "tree", "--stdin"], &[], Some(b""))?;
        tree_id("hash-object -t tree", &out)
    }

    /// Writes the synthetic candidate tree via a temporary index seeded from
    /// the user's index, and returns it with the base tree.
    pub fn trees(&self) -> Result<Trees, GitError> {
        let index = self.git_dir().join("index");
        self.trees_from_index(&index, true, None)
    }

    /// The tree a commit in progress delivers: `index` (the file git named in
    /// `GIT_INDEX_FILE` for the hook) written as a tree, unchanged.
    pub fn staged_trees(&self, index: &Path) -> Result<Trees, GitError> {
        self.trees_from_index(index, false, None)
    }

    /// Takes `index` as a temporary file in the git dir, optionally runs
    /// `git add -A` on it, and writes it as a tree; HEAD's tree is read
    /// meanwhile (two git processes at once). The source index's bytes,
    /// the worktree and `git status` never change.
    /// With `incoming`, the new objects go to that quarantine.
    fn trees_from_index(
        &self,
        index: &Path,
        add_all: bool,
        incoming: Option<&Incoming>,
    ) -> Result<Trees, GitError> {
        std::thread::scope(|s| {
            let base = s.spawn(|| self.base_tree());
            let candidate = self.index_tree(index, add_all, incoming);
            // HEAD's error first, as when it was read before the index.
            let (base_tree, unborn_head) = base.join().unwrap_or_else(|_| {
                Err(GitError::Io(std::io::Error::other(
                    "the thread reading HEAD's tree panicked",
                )))
            })?;
            Ok(Trees {
                base_tree,
                candidate_tree: candidate?,
                unborn_head,
            })
        })
    }

    /// The tree of `index` (after `git add -A` on a temporary stand-in for
    /// it when `add_all`).
    fn index_tree(
        &self,
        index: &Path,
        add_all: bool,
        incoming: Option<&Incoming>,
    ) -> Result<TreeId, GitError> {
        // The live candidate read in-process, when that is certainly
        // git's answer and the store holds its tree: no process, and
        // nothing written but the removal of what killed runs left (as a
        // run that reserves a stand-in removes it) (D-R152).
        #[cfg(unix)]
        if add_all
            && incoming.is_none()
            && index == self.git_dir().join("index")
            && let Some(tree) =
                crate::worktree::candidate_tree(self).and_then(|id| self.held_loose(&id))
        {
            crate::scratch::scavenge(self.git_dir(), "probity-index-");
            return Ok(tree);
        }
        self.index_tree_by_git(index, add_all, incoming)
    }

    /// [`Self::index_tree`] by git: `add -A` on a stand-in, then the tree
    /// it names.
    pub(crate) fn index_tree_by_git(
        &self,
        index: &Path,
        add_all: bool,
        incoming: Option<&Incoming>,
    ) -> Result<TreeId, GitError> {
        // Under an owner lock: a run killed before it removes the stand-in
        // leaves it to the next run's scavenging, never for good.
        let tmp = crate::scratch::Scratch::reserve(self.git_dir(), "probity-index-")?;
        // Made in one step outside an interrupted run's cleanup: made
        // while that cleanup ran, the stand-in would outlive its removed
        // owner lock.
        let present = probity_scratch::registry::exclusive(|| stand_in(index, tmp.path()))?;
        if !present && !add_all {
            return Err(GitError::Parse {
                args: "read index".into(),
                detail: format!("no index at {}", index.display()),
            });
        }
        // No index yet (`add_all`): `git add` creates the stand-in (the
        // reserved path holds no file; git treats an empty one as
        // invalid).
        let mut env: Vec<(&str, &OsStr)> = vec![("GIT_INDEX_FILE", tmp.path().as_os_str())];
        if let Some(q) = incoming {
            env.extend(q.env());
        }
        // The temporary index is ours alone and read once: skip its
        // trailing checksum (git 2.40+), which is most of the cost of
        // rewriting a large index. Never split (`core.splitIndex`): a split
        // stand-in names its shared part by the hash skipHash leaves null,
        // which git then reads as no entries at all, an empty candidate
        // (D-R152's review).
        if add_all {
            // It deflates each new object with fresh zlib state (D-R156).
            let tunables = crate::program::object_writer_tunables(
                std::env::var_os("GLIBC_TUNABLES").as_deref(),
            );
            let mut env = env.clone();
            env.push(("GLIBC_TUNABLES", &tunables));
            self.run_with(
                [
                    "-c",
                    "index.skipHash=true",
                    "-c",
                    "core.splitIndex=false",
                    "add",
                    "-A",
                    "--",
                    ".",
                ],
                &env,
                None,
            )?;
        }
        // The tree git would write, when the store already holds it (an
        // approved candidate's): `write-tree` would write nothing, and is
        // not run (D-R87). Not for a candidate being frozen (a start, a
        // recovery): there `write-tree` also refreshes the stored trees'
        // times, so that `gc` keeps them (D-R157 withdrawn, D-R159).
        if incoming.is_none()
            && let Some(tree) = self.known_index_tree(tmp.path())
        {
            drop(tmp);
            return Ok(tree);
        }
        let out = self.run_with(
            [
                "-c",
                "index.skipHash=true",
                "-c",
                "core.splitIndex=false",
                "write-tree",
            ],
            &env,
            None,
        )?;
        let candidate_tree = tree_id("write-tree", &out)?;
        // A new start's candidate: its symbolic links, read from the index
        // `write-tree` just wrote it from (no process; D-R131).
        if incoming.is_some() {
            self.remember_index_links(tmp.path(), &candidate_tree);
        }
        // Leave nothing behind, including the index git may have recreated.
        drop(tmp);
        Ok(candidate_tree)
    }

    /// The tree `write-tree` would write from the index file at `index`,
    /// computed in-process ([`crate::index`]), when this repository's own
    /// object store holds it as a loose object; `None` otherwise (not
    /// computable, or not there: `write-tree` then runs).
    fn known_index_tree(&self, index: &Path) -> Option<TreeId> {
        let hash_len = match self.shared().object_format.lock().ok()?.as_deref()? {
            "sha1" => 20,
            "sha256" => 32,
            _ => return None,
        };
        let bytes = std::fs::read(index).ok()?;
        let mut presence = None;
        let id = crate::index::hex(&crate::index::index_tree_id(&bytes, hash_len, &mut |id| {
            presence
                .get_or_insert_with(|| crate::discover::Presence::of(self.common_dir(), hash_len))
                .as_ref()?
                .has(id)
        })?);
        self.held_loose(&id)
    }

    /// `id` as a tree id when this repository's own object store holds it
    /// as a loose object.
    fn held_loose(&self, id: &str) -> Option<TreeId> {
        let loose = self
            .common_dir()
            .join("objects")
            .join(id.get(..2)?)
            .join(id.get(2..)?);
        if !std::fs::symlink_metadata(loose).ok()?.is_file() {
            return None;
        }
        TreeId::parse(id).ok()
    }

    /// Paths whose entries differ between two trees (a non-UTF-8 name is
    /// shown escaped, `\xNN` per invalid byte: these paths explain
    /// decisions, they are not keys, so a gate still answers).
    ///
    /// A pair whose raw diff the memo holds (announced, or read by the
    /// server gate's batch) is answered from it: the same paths, each
    /// after its metadata, with no process (issue 24: the replay check
    /// asks the paths of every approval a push delivers, D-R145).
    pub fn changed_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RepoPath>, GitError> {
        const ARGS: &str = "diff-tree --name-only";
        let raw = self.known_diff_output(crate::objects::DiffKind::Raw, from.as_str(), to.as_str());
        let from_raw: Option<Vec<&[u8]>> = raw.as_deref().and_then(|raw| {
            let mut fields = raw.split(|b| *b == 0).filter(|f| !f.is_empty());
            let mut paths = Vec::new();
            while let Some(meta) = fields.next() {
                if !meta.starts_with(b":") {
                    return None;
                }
                paths.push(fields.next()?);
            }
            Some(paths)
        });
        let out;
        let paths: Vec<&[u8]> = match from_raw {
            Some(paths) => paths,
            None => {
                out = self.run([
                    "diff-tree",
                    "-r",
                    "--ignore-submodules=none",
                    "-z",
                    "--no-renames",
                    "--no-ext-diff",
                    "--name-only",
                    from.as_str(),
                    to.as_str(),
                ])?;
                split_z(&out).collect()
            }
        };
        // Diagnostic use only: a non-UTF-8 path is shown escaped rather than
        // turning a denial into a repository error.
        paths
            .into_iter()
            .map(|p| match std::str::from_utf8(p) {
                Ok(_) => repo_path(ARGS, p),
                Err(_) => {
                    RepoPath::parse(escape_path(p)).map_err(|e| parse_err(ARGS, e.to_string()))
                }
            })
            .collect()
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

    pub(crate) fn raw_diff(&self, from: &TreeId, to: &TreeId) -> Result<Vec<RawEntry>, GitError> {
        Ok(self.raw_diff_inner(from, to, false)?.0)
    }

    /// [`Self::raw_diff`], or with `skip_non_utf8` the entries whose paths
    /// are UTF-8 and whether any path was not (instead of an error).
    pub(crate) fn raw_diff_inner(
        &self,
        from: &TreeId,
        to: &TreeId,
        skip_non_utf8: bool,
    ) -> Result<(Vec<RawEntry>, bool), GitError> {
        const ARGS: &str = "diff-tree --raw";
        let mut non_utf8 = false;
        // From the memo when the pair was announced ([`crate::objects`]).
        let out =
            self.diff_tree_output(crate::objects::DiffKind::Raw, from.as_str(), to.as_str())?;
        let mut fields = out.split(|b| *b == 0);
        let mut entries = Vec::new();
        while let Some(meta) = fields.next() {
            if meta.is_empty() {
                continue;
            }
            let path = fields
                .next()
                .ok_or_else(|| parse_err(ARGS, "entry without path"))?;
            if skip_non_utf8 && std::str::from_utf8(path).is_err() {
                non_utf8 = true;
                continue;
            }
            let meta =
                std::str::from_utf8(meta).map_err(|_| parse_err(ARGS, "non-UTF-8 metadata"))?;
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let [old_mode, new_mode, old, new, status] = parts[..] else {
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
            let old_mode = mode(old_mode)?;
            let blob = |m: Option<FileMode>, id: &str| -> Result<Option<BlobId>, GitError> {
                match m {
                    Some(FileMode::Regular | FileMode::Executable | FileMode::Symlink) => Ok(Some(
                        BlobId::parse(id).map_err(|e| parse_err(ARGS, e.to_string()))?,
                    )),
                    _ => Ok(None),
                }
            };
            let new_blob = blob(new_mode, new)?;
            let old_blob = blob(old_mode, old)?;
            let object = |m: Option<FileMode>, id: &str| -> Result<Option<ObjectId>, GitError> {
                m.map(|_| ObjectId::parse(id).map_err(|e| parse_err(ARGS, e.to_string())))
                    .transpose()
            };
            entries.push(RawEntry {
                path: repo_path(ARGS, path)?,
                old_mode,
                new_mode,
                old_blob,
                new_blob,
                old_object: object(old_mode, old)?,
                new_object: object(new_mode, new)?,
                added: status == "A",
            });
        }
        Ok((entries, non_utf8))
    }

    /// Added and removed lines per path, every file diffed as text with no
    /// attribute, textconv or external diff able to hide a change. numstat
    /// reports what it judges binary as `-`; those paths are counted from a
    /// `--text` patch instead.
    fn numstat(&self, from: &TreeId, to: &TreeId) -> Result<Vec<(RepoPath, u64, u64)>, GitError> {
        // `core.attributesFile=/dev/null`, every file as text, no textconv
        // or external diff ([`crate::objects::DiffKind::Numstat`]); from
        // the memo when the pair was announced.
        let out = self.diff_tree_output(
            crate::objects::DiffKind::Numstat,
            from.as_str(),
            to.as_str(),
        )?;
        self.numstat_rows(from, to, &out, false)
    }

    /// The rows of a `-z` numstat output. With `binary_as_text`, the
    /// output is one run without `--text` (a start's one diff, D-R86): a
    /// row git judged binary (`-`) is taken from the `--text` numstat of
    /// the pair, as [`Self::numstat`] counts every file.
    fn numstat_rows(
        &self,
        from: &TreeId,
        to: &TreeId,
        out: &[u8],
        binary_as_text: bool,
    ) -> Result<Vec<(RepoPath, u64, u64)>, GitError> {
        const ARGS: &str = "diff-tree --numstat";
        let mut text: Option<std::collections::HashMap<RepoPath, (u64, u64)>> = None;
        let mut rows = Vec::new();
        for rec in split_z(out) {
            let mut it = rec.splitn(3, |b| *b == b'\t');
            let (Some(a), Some(r), Some(path)) = (it.next(), it.next(), it.next()) else {
                return Err(parse_err(ARGS, "row without three fields"));
            };
            let path = repo_path(ARGS, path)?;
            if a == b"-" && r == b"-" {
                if binary_as_text {
                    if text.is_none() {
                        text = Some(
                            self.numstat(from, to)?
                                .into_iter()
                                .map(|(p, a, r)| (p, (a, r)))
                                .collect(),
                        );
                    }
                    if let Some((a, r)) = text.as_ref().and_then(|t| t.get(&path)) {
                        rows.push((path, *a, *r));
                        continue;
                    }
                }
                let (a, r) = self.text_patch_lines(from, to, &path)?;
                rows.push((path, a, r));
                continue;
            }
            let n = |b: &[u8]| {
                std::str::from_utf8(b)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| parse_err(ARGS, "line count is not a number"))
            };
            rows.push((path, n(a)?, n(r)?));
        }
        Ok(rows)
    }

    /// Added and removed lines of one path from a `--text -U0` patch.
    fn text_patch_lines(
        &self,
        from: &TreeId,
        to: &TreeId,
        path: &RepoPath,
    ) -> Result<(u64, u64), GitError> {
        let out = self.run([
            "-c",
            "core.attributesFile=/dev/null",
            "--literal-pathspecs",
            "diff-tree",
            "-p",
            "--ignore-submodules=none",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--text",
            "--unified=0",
            from.as_str(),
            to.as_str(),
            "--",
            path.as_str(),
        ])?;
        let (mut added, mut removed, mut in_hunk) = (0u64, 0u64, false);
        for line in out.split(|b| *b == b'\n') {
            if line.starts_with(b"@@") {
                in_hunk = true;
            } else if in_hunk && line.starts_with(b"+") {
                added += 1;
            } else if in_hunk && line.starts_with(b"-") {
                removed += 1;
            } else if line.starts_with(b"diff --git ") {
                in_hunk = false;
            }
        }
        Ok((added, removed))
    }

    /// Which of `paths` are in the user's index (stage entries of any
    /// kind), asked of the object reader (`:<stage>:<path>` names the
    /// entry; git reads the index): an entry whose object the repository
    /// has answers, and a path with no entry does not. A gitlink's commit
    /// is usually not here, so the paths in `gitlinks`, and a path the line
    /// protocol cannot carry, are asked of `git ls-files` instead.
    fn in_index_read(
        &self,
        paths: &[&RepoPath],
        gitlinks: &HashSet<&RepoPath>,
    ) -> Result<HashSet<RepoPath>, GitError> {
        let (listed, asked): (Vec<&RepoPath>, Vec<&RepoPath>) = paths
            .iter()
            .partition(|p| gitlinks.contains(**p) || p.as_str().contains('\n'));
        let mut found = self.in_index(&listed)?;
        let read = match self.in_index_in_process(&asked) {
            Some(read) => read,
            None => self.in_index_by_reader(asked)?,
        };
        found.extend(read);
        Ok(found)
    }

    /// [`Self::in_index_read`]'s question for `left` asked of the object
    /// reader, one stage at a time.
    fn in_index_by_reader(&self, mut left: Vec<&RepoPath>) -> Result<HashSet<RepoPath>, GitError> {
        let mut found = HashSet::new();
        for stage in 0..4 {
            if left.is_empty() {
                break;
            }
            let specs: Vec<String> = left
                .iter()
                .map(|p| format!(":{stage}:{}", p.as_str()))
                .collect();
            let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
            let missing = self.objects_missing(&refs)?;
            let mut next = Vec::new();
            for (p, gone) in left.into_iter().zip(missing) {
                if gone {
                    next.push(p);
                } else {
                    found.insert(p.clone());
                }
            }
            left = next;
        }
        Ok(found)
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
            .diff_entries(from, to, None, false)?
            .into_iter()
            .map(|(f, _)| f)
            .collect())
    }

    fn diff_entries(
        &self,
        from: &TreeId,
        to: &TreeId,
        numstat: Option<&[u8]>,
        new_side_sized: bool,
    ) -> Result<Vec<(ChangedFile, bool)>, GitError> {
        self.check_candidate_trees(from.as_str(), to.as_str())?;
        let raw = self.raw_diff(from, to)?;
        let heads = if new_side_sized {
            self.sized_heads(&raw)?
        } else {
            self.refuse_oversized_blobs(&raw)?;
            let blobs: Vec<&BlobId> = raw
                .iter()
                .flat_map(|e| e.old_blob.iter().chain(e.new_blob.iter()))
                .collect();
            self.blob_heads(&blobs)?
        };
        // Core's bound on diff work, before git diffs anything more
        // (D-R130); the sizes were checked above, and the blobs just read
        // are not asked of git again (their sizes, and their contents when
        // read whole: the same answers).
        let read: crate::bound::Read<'_> = raw
            .iter()
            .flat_map(|e| e.old_blob.iter().chain(e.new_blob.iter()))
            .zip(&heads)
            .map(|(id, (size, bytes, complete))| {
                (id.as_str(), (*size, complete.then_some(bytes.as_slice())))
            })
            .collect();
        self.charge_diff_read(from.as_str(), to.as_str(), &raw, &read)?;
        drop(read);
        let rows = match numstat {
            Some(out) => self.numstat_rows(from, to, out, true)?,
            None => self.numstat(from, to)?,
        };
        let counts: std::collections::HashMap<RepoPath, (u64, u64)> =
            rows.into_iter().map(|(p, a, r)| (p, (a, r))).collect();
        let mut heads = heads
            .into_iter()
            .map(|(_, bytes, complete)| CandidateContent::Bytes { bytes, complete });
        let mut next_head = |present: bool| -> Result<CandidateContent, GitError> {
            if present {
                heads
                    .next()
                    .ok_or_else(|| parse_err("cat-file --batch", "fewer blobs than asked"))
            } else {
                Ok(CandidateContent::Absent)
            }
        };
        let mut changed = Vec::with_capacity(raw.len());
        for e in raw {
            let base_content = next_head(e.old_blob.is_some())?;
            let content = next_head(e.new_blob.is_some())?;
            // numstat has no row for an entry it cannot count (a submodule
            // pointer); those count zero lines.
            let (added, removed) = counts.get(&e.path).copied().unwrap_or((0, 0));
            let lines = LineCount::classify(added, removed, &base_content, &content);
            changed.push((
                ChangedFile {
                    path: e.path,
                    old_mode: e.old_mode,
                    new_mode: e.new_mode,
                    lines,
                    text_lines: added.saturating_add(removed),
                    content,
                    base_content,
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
        // Plumbing, every file as text, no context merging: neither the
        // candidate's own attributes nor user diff config can move a hunk.
        let out = self.run([
            "-c",
            "core.attributesFile=/dev/null",
            "-c",
            "diff.interHunkContext=0",
            "--literal-pathspecs",
            "diff-tree",
            "-p",
            "--ignore-submodules=none",
            "--text",
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
        // `rev-parse --verify -q` exits 1 for a path the tree lacks (`cat-file
        // -e` exits 128 for it, as for every fatal error); any other
        // failure is an error, never an absent path.
        let check: Vec<OsString> = ["rev-parse", "-q", "--verify", spec.as_str()]
            .iter()
            .map(OsString::from)
            .collect();
        let found = self.git().output(self.root(), &check, &[], None)?;
        match found.status.code() {
            Some(0) => {}
            Some(1) => return Ok(None),
            _ => return Err(crate::cmd::failed(&check, &found)),
        }
        let out = self.run(["cat-file", "blob", spec.as_str()])?;
        let newlines = out.iter().filter(|b| **b == b'\n').count() as u64;
        let partial = u64::from(!out.is_empty() && !out.ends_with(b"\n"));
        Ok(Some(newlines + partial))
    }

    /// The bytes of the blob at `path` in `rev` (a tree or a commit), at
    /// most `cap + 1` of them; `None` when the path is absent there or not
    /// a blob (a directory, a submodule). One `cat-file --batch-check` and
    /// one bounded `cat-file --batch`: the size is never trusted before the
    /// bytes are read.
    pub fn read_path(
        &self,
        rev: &str,
        path: &str,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        Ok(self.read_paths(&[(rev, path)], cap)?.pop().flatten())
    }

    /// [`Repo::read_path`] of each (rev, path), in order: the lookups in
    /// one batch of the object reader, the blobs found in a second.
    pub fn read_paths(
        &self,
        reads: &[(&str, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        // A path holding a newline is not askable on the reader's line
        // protocol; no path Probity reads holds one.
        let specs: Vec<String> = reads
            .iter()
            .filter(|(_, path)| !path.contains('\n'))
            .map(|(rev, path)| format!("{rev}:{path}"))
            .collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        self.check_lookup_trees(reads)?;
        let mut found = self.objects_info(&specs)?.into_iter();
        let blobs: Vec<Option<String>> = reads
            .iter()
            .map(|(_, path)| {
                if path.contains('\n') {
                    return None;
                }
                found
                    .next()
                    .flatten()
                    .filter(|info| info.kind == "blob")
                    .map(|info| info.oid)
            })
            .collect();
        self.blobs_read(&blobs, cap)
    }

    /// Everything start needs (R2.1): trees, changed files with modes, line
    /// counts and leading content, and the intended untracked files.
    ///
    /// The candidate's new objects are written into a quarantine and kept
    /// only once no new file is over the size limit; its raw diff, numstat
    /// and frozen patch come from one `diff-tree` (D-R86).
    pub fn observe_candidate(&self) -> Result<CandidateObservation, GitError> {
        let incoming = Incoming::new(self)?;
        let index = self.git_dir().join("index");
        let trees = self.trees_from_index(&index, true, Some(&incoming))?;
        let diff = self.one_diff(
            &trees.base_tree,
            &trees.candidate_tree,
            Some(&incoming),
            MAX_DIFF_BYTES,
        )?;
        self.refuse_oversized_worktree_files(&diff.raw)?;
        incoming.migrate()?;
        self.forget_packs();
        self.observe_trees(trees, diff, true)
    }

    /// A commit as a candidate (`start --commit`): base = its parent's tree
    /// (a root commit: the empty tree), candidate = its tree; no intended
    /// untracked files (a commit has no worktree). A merge commit is
    /// refused: it has no single base.
    pub fn observe_commit(&self, commit: &RangeCommit) -> Result<CandidateObservation, GitError> {
        let (base_tree, root) = match commit.parents[..] {
            [] => (self.empty_tree()?, true),
            [ref parent] => (self.commit_tree(parent)?, false),
            _ => {
                return Err(parse_err(
                    "observe commit",
                    format!(
                        "{} is a merge commit ({} parents): it has no single base",
                        commit.commit,
                        commit.parents.len()
                    ),
                ));
            }
        };
        let diff = self.one_diff(&base_tree, &commit.tree, None, MAX_DIFF_BYTES)?;
        self.observe_trees(
            Trees {
                base_tree,
                candidate_tree: commit.tree.clone(),
                unborn_head: root,
            },
            diff,
            false,
        )
    }

    /// The observation of two trees from their one diff: changed files
    /// with modes, line counts and leading content; with `untracked`, the
    /// added paths that are not in the user's index are the intended
    /// untracked files. The raw diff and the frozen patch are kept for the
    /// rest of the run.
    fn observe_trees(
        &self,
        trees: Trees,
        diff: OneDiff,
        untracked: bool,
    ) -> Result<CandidateObservation, GitError> {
        let (from, to) = (trees.base_tree.as_str(), trees.candidate_tree.as_str());
        self.remember_raw(from, to, diff.raw);
        self.remember_frozen(from, to, MAX_DIFF_BYTES, diff.patch);
        let entries = self.diff_entries(
            &trees.base_tree,
            &trees.candidate_tree,
            diff.numstat.as_deref(),
            untracked,
        )?;
        let intended_untracked = if untracked {
            let added: Vec<&RepoPath> = entries
                .iter()
                .filter(|(_, a)| *a)
                .map(|(f, _)| &f.path)
                .collect();
            let gitlinks: HashSet<&RepoPath> = entries
                .iter()
                .filter(|(f, a)| *a && f.new_mode == Some(FileMode::Gitlink))
                .map(|(f, _)| &f.path)
                .collect();
            let tracked = self.in_index_read(&added, &gitlinks)?;
            added
                .iter()
                .filter(|p| !tracked.contains(**p))
                .map(|p| (*p).clone())
                .collect()
        } else {
            Vec::new()
        };
        Ok(CandidateObservation {
            base_tree: trees.base_tree,
            candidate_tree: trees.candidate_tree,
            unborn_head: trees.unborn_head,
            changed: entries.into_iter().map(|(f, _)| f).collect(),
            intended_untracked,
        })
    }
}

/// Puts the index `index` at `to` for git to read and replace: a hard link
/// when the file system allows one, else a copy with the source's mtime.
/// Returns false when there is no index.
///
/// A link is safe because git never writes an index in place: it writes
/// `<to>.lock` and renames it over `<to>`, which replaces the link and
/// leaves the user's index (the other name of the old file) as it was.
/// Only a regular file is linked (a link to a symlink would resolve
/// relative to its new place). The copy keeps the source's mtime: git
/// re-hashes "racily clean" entries (modified in the same second the
/// index was written) by comparing them with the index file's mtime, and a
/// copy stamped now would hide such an edit; a link has that mtime itself.
fn stand_in(index: &Path, to: &Path) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(index) {
        Ok(meta) if meta.file_type().is_file() => {
            if std::fs::hard_link(index, to).is_ok() {
                return Ok(true);
            }
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    }
    match std::fs::copy(index, to) {
        Ok(_) => {
            let modified = std::fs::metadata(index)?.modified()?;
            std::fs::OpenOptions::new()
                .write(true)
                .open(to)?
                .set_modified(modified)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

mod heads;

#[cfg(all(test, feature = "fixture"))]
#[path = "candidate_tests.rs"]
mod tests;
