//! The frozen trees of a lineage, read for an export (R10.2–R10.5).

use std::ffi::OsString;
use std::io::Read as _;

use std::process::Stdio;

use probity_core::review::FileMode;
use probity_core::review::{DIFF_FLAGS, EXPORT_CONFIG, EXPORT_ENV, ManifestEntry};
use probity_core::review::{DeltaEntry, EntrySide};
use probity_core::review::{ObjectId, RepoPath, TreeId};
use probity_ports::review::{AdapterError, ExportGit, ManifestGit, TreeSpan};

use crate::cmd::GitError;
use crate::repo::Repo;

impl Repo {
    /// The ids among `ids` this repository lacks (`info` of the object
    /// reader, [`crate::objects`]).
    pub fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, GitError> {
        let specs: Vec<&str> = ids.iter().map(String::as_str).collect();
        Ok(ids
            .iter()
            .zip(self.objects_missing(&specs)?)
            .filter(|(_, missing)| *missing)
            .map(|(id, _)| id.clone())
            .collect())
    }

    /// The patch between two trees under [`DIFF_FLAGS`], [`EXPORT_CONFIG`]
    /// and [`EXPORT_ENV`]: plumbing only, no system or global
    /// configuration, attributes from the empty tree, so the bytes depend
    /// on the trees and the git version alone. At most `cap + 1` bytes are
    /// read: `None` means longer than `cap`.
    pub fn frozen_diff(
        &self,
        from: &TreeId,
        to: &TreeId,
        cap: u64,
    ) -> Result<Option<Vec<u8>>, GitError> {
        // Read already by a new start's one diff (D-R86).
        if let Some(patch) = self.take_frozen(from.as_str(), to.as_str(), cap) {
            return Ok(patch);
        }
        let empty = self.empty_tree()?;
        // A throwaway git directory that holds nothing (made without a
        // process): the diff then reads none of this repository's
        // configuration (local, worktree) nor its `info/attributes`.
        let scratch = self.empty_git_dir()?;
        let objects = std::fs::canonicalize(self.common_dir().join("objects"))?;
        let mut args: Vec<OsString> = vec![format!("--attr-source={empty}").into()];
        for (k, v) in EXPORT_CONFIG {
            args.push("-c".into());
            args.push(format!("{k}={v}").into());
        }
        args.extend(["diff-tree".into(), "-r".into(), "-p".into()]);
        args.extend(DIFF_FLAGS.iter().map(OsString::from));
        args.push(from.as_str().into());
        args.push(to.as_str().into());
        let mut cmd = self.git().command(scratch.path());
        cmd.args(&args)
            .envs(EXPORT_ENV)
            .env("GIT_DIR", scratch.path())
            .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &objects)
            .stderr(Stdio::null());
        let (mut child, _running) = self.git().spawn_registered(&mut cmd)?;
        let mut out = Vec::new();
        let read = match child.stdout.take() {
            Some(stdout) => stdout.take(cap + 1).read_to_end(&mut out),
            None => Err(std::io::Error::other("git stdout was not captured")),
        };
        if read.is_err() || out.len() as u64 > cap {
            // Over the budget, or unreadable: stop git rather than read on.
            let _ = child.kill();
            let _ = child.wait();
            read?;
            return Ok(None);
        }
        let done = child.wait_with_output()?;
        if !done.status.success() {
            return Err(GitError::Failed {
                args: "diff-tree -p (export)".into(),
                status: done.status.to_string(),
                stderr: String::from_utf8_lossy(&done.stderr).trim().to_string(),
            });
        }
        Ok(Some(out))
    }

    /// The entries in which two trees differ, with modes and object ids
    /// (a gitlink's commit included): what the delta identity and the
    /// rebase proof compare. `None` when a path is not UTF-8: no review
    /// froze such a path (D-R4), so no reviewed delta can equal it.
    pub fn tree_delta(
        &self,
        from: &TreeId,
        to: &TreeId,
    ) -> Result<Option<Vec<DeltaEntry>>, GitError> {
        let side = |mode: Option<FileMode>, object: Option<ObjectId>| match (mode, object) {
            (Some(mode), Some(object)) => Some(EntrySide { mode, object }),
            _ => None,
        };
        let (entries, non_utf8) = self.raw_diff_inner(from, to, true)?;
        if non_utf8 {
            return Ok(None);
        }
        Ok(Some(
            entries
                .into_iter()
                .map(|e| DeltaEntry {
                    base: side(e.old_mode, e.old_object),
                    candidate: side(e.new_mode, e.new_object),
                    path: e.path,
                })
                .collect(),
        ))
    }

    /// The changed paths between two trees, with modes and blob ids.
    pub fn manifest(&self, from: &TreeId, to: &TreeId) -> Result<Vec<ManifestEntry>, GitError> {
        Ok(self
            .raw_diff(from, to)?
            .into_iter()
            .map(|e| ManifestEntry {
                status: ManifestEntry::status_of(e.old_mode, e.new_mode),
                path: e.path,
                old_mode: e.old_mode,
                new_mode: e.new_mode,
                old_blob: e.old_blob,
                new_blob: e.new_blob,
            })
            .collect())
    }
}

/// The most bytes of raw diff [`ExportGit::announce_paths`] reads for one
/// batch (a replay check's history window, D-R146).
const MAX_ANNOUNCED_PATHS: usize = 64 * 1024 * 1024;

impl ExportGit for Repo {
    fn missing_objects(&self, ids: &[String]) -> Result<Vec<String>, AdapterError> {
        Ok(Repo::missing_objects(self, ids)?)
    }

    fn path_objects(
        &self,
        tree: &TreeId,
        paths: &[RepoPath],
    ) -> Result<Option<Vec<Option<String>>>, AdapterError> {
        // One `info <tree>:<path>` each through the object reader; a path
        // the line protocol cannot carry leaves the question to the diff.
        if paths.iter().any(|p| p.as_str().contains('\n')) {
            return Ok(None);
        }
        let specs: Vec<String> = paths.iter().map(|p| format!("{tree}:{p}")).collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        Ok(Some(
            self.objects_info(&specs)?
                .into_iter()
                .map(|i| i.map(|i| i.oid))
                .collect(),
        ))
    }

    fn announce_paths(&self, pairs: &[(TreeId, TreeId)]) -> Result<bool, AdapterError> {
        // The raw diffs alone, in one `diff-tree --stdin` read up to
        // `MAX_ANNOUNCED_PATHS` bytes: what `changed_paths` reads from the
        // memo. Over it (a window of huge commits), or on any failure, the
        // memo is left as it was and the caller asks otherwise.
        use crate::objects::DiffKind;
        let mut todo: Vec<(String, String)> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .filter(|(a, b)| self.known_diff_output(DiffKind::Raw, a, b).is_none())
            .collect();
        todo.sort();
        todo.dedup();
        if todo.is_empty() {
            return Ok(true);
        }
        let mut input = String::new();
        for (from, to) in &todo {
            input.push_str(&format!("{from} {to}\n"));
        }
        let mut args: Vec<&str> = DiffKind::Raw.args().to_vec();
        args.push("--stdin");
        let Ok(Some(out)) = self.run_capped(&args, Some(input.as_bytes()), MAX_ANNOUNCED_PATHS)
        else {
            return Ok(false);
        };
        let Some(answers) = crate::objects::split_stdin_output(DiffKind::Raw, &todo, &out) else {
            return Ok(false);
        };
        for ((from, to), raw) in todo.iter().zip(answers) {
            self.remember_raw(from, to, raw);
        }
        Ok(true)
    }

    fn announce_diffs(&self, pairs: &[(TreeId, TreeId)]) -> Result<(), AdapterError> {
        // The trees' symbolic links are asked too (D-R131): one tree of
        // each group the pairs connect is listed (its raw diff from the
        // empty tree, in the same `diff-tree --stdin`), and the others'
        // links are derived from it through the pairs' diffs.
        let Some((first, _)) = pairs.first() else {
            return Ok(());
        };
        let empty = self.empty_tree_like(first)?.to_string();
        let mut trees: Vec<&str> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_str(), b.as_str()])
            .filter(|t| *t != empty)
            .collect();
        trees.sort_unstable();
        trees.dedup();
        let paired = |a: &str, b: &str| {
            pairs.iter().any(|(x, y)| {
                (x.as_str() == a && y.as_str() == b) || (x.as_str() == b && y.as_str() == a)
            })
        };
        let listings: Vec<(String, String)> = crate::symlinks::representatives(&trees, paired)
            .into_iter()
            .map(|t| (empty.clone(), t.to_string()))
            .collect();
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        Ok(self.prefetch_diffs_and_raw(&pairs, &listings)?)
    }

    fn frozen_diff(&self, span: TreeSpan<'_>, cap: u64) -> Result<Option<Vec<u8>>, AdapterError> {
        Ok(Repo::frozen_diff(self, span.from, span.to, cap)?)
    }

    fn version(&self) -> Result<String, AdapterError> {
        Ok(self.git_version_line()?)
    }
}

impl ManifestGit for Repo {
    fn manifest(&self, span: TreeSpan<'_>) -> Result<Vec<ManifestEntry>, AdapterError> {
        Ok(Repo::manifest(self, span.from, span.to)?)
    }
}
