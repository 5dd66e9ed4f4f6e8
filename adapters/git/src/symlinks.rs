//! The symbolic links of trees, which risk policy v4 follows (D-R131).
//!
//! - A new start's candidate: read in process from the temporary index
//!   `write-tree` wrote it from ([`crate::index::index_symlinks`]), and its
//!   base's from those and the raw diff between the two the start already
//!   read (a link of the base is a candidate's link the diff does not
//!   touch, or a path the diff shows as a link on its old side).
//! - Any other tree: the entries of mode `120000` in the raw diff from the
//!   empty tree to it. The [`crate::objects`] memo answers that diff, so
//!   trees announced with the gates' tree pairs (`announce_diffs`) start no
//!   process of their own, and trees not announced are listed together by
//!   one `git diff-tree --stdin`.
//!
//! Targets are the link blobs' bytes, read through the object reader.

use std::collections::HashMap;

use probity_core::review::{RepoPath, Symlink, TreeId};

use crate::cmd::GitError;
use crate::objects::DiffKind;
use crate::repo::Repo;

/// At most this many bytes of a link's target are read (a longer target
/// is no path git checks out: `PATH_MAX`).
const MAX_TARGET_BYTES: usize = 4096;

impl Repo {
    /// The symbolic links of each of `trees`, in the same order, each with
    /// its target, sorted by path. A link whose path is not UTF-8 is named with U+FFFD in
    /// place of the invalid bytes (its name still matches the path rules it
    /// ends with); every distinct tree is listed once.
    pub fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, GitError> {
        if trees.is_empty() {
            return Ok(Vec::new());
        }
        let empty = self.empty_tree_like(trees[0])?;
        let mut distinct: Vec<&TreeId> = trees.to_vec();
        distinct.sort();
        distinct.dedup();
        distinct.retain(|t| **t != empty);
        let mut found: HashMap<&TreeId, Vec<(RepoPath, String)>> = HashMap::new();
        for t in &distinct {
            if let Some(links) = self.links_from_start(t)? {
                found.insert(t, links);
            }
        }
        let pairs: Vec<(String, String)> = distinct
            .iter()
            .filter(|t| !found.contains_key(*t))
            .map(|t| (empty.to_string(), t.to_string()))
            .collect();
        self.prefetch_raw_diffs(&pairs)?;
        for t in &distinct {
            if !found.contains_key(t) {
                let out = self.diff_tree_output(DiffKind::Raw, empty.as_str(), t.as_str())?;
                found.insert(t, links_of(&out)?);
            }
        }
        let mut ids: Vec<&str> = found
            .values()
            .flat_map(|l| l.iter().map(|(_, id)| id.as_str()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let targets: HashMap<&str, Vec<u8>> = if ids.is_empty() {
            HashMap::new()
        } else {
            ids.iter()
                .copied()
                .zip(self.object_heads(&ids, MAX_TARGET_BYTES)?)
                .map(|(id, (bytes, _))| (id, bytes))
                .collect()
        };
        Ok(trees
            .iter()
            .map(|t| {
                found
                    .get(t)
                    .into_iter()
                    .flatten()
                    .map(|(path, id)| Symlink {
                        path: path.clone(),
                        target: targets.get(id.as_str()).cloned().unwrap_or_default(),
                    })
                    .collect()
            })
            .collect())
    }
}

impl Repo {
    /// Keeps the symbolic links of the index file at `index`, which
    /// `write-tree` wrote as `tree`, when the index is one
    /// [`crate::index`] reads exactly (otherwise the tree is listed when
    /// asked).
    pub(crate) fn remember_index_links(&self, index: &std::path::Path, tree: &TreeId) {
        let hash_len = match tree.as_str().len() {
            40 => 20,
            64 => 32,
            _ => return,
        };
        let Ok(bytes) = std::fs::read(index) else {
            return;
        };
        if let Some(links) = crate::index::index_symlinks(&bytes, hash_len)
            && let Ok(mut memo) = self.shared().links.lock()
        {
            memo.insert(tree.to_string(), links);
        }
    }

    /// `tree`'s links from what a start read: its candidate's, kept from
    /// the index, or its base's, from those and the raw diff between the
    /// two (kept from the start's one diff); `None` when neither is known.
    fn links_from_start(&self, tree: &TreeId) -> Result<Option<Vec<(RepoPath, String)>>, GitError> {
        let known: Vec<(String, Vec<(Vec<u8>, String)>)> = match self.shared().links.lock() {
            Ok(memo) => memo.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Err(_) => return Ok(None),
        };
        for (candidate, links) in known {
            if candidate == tree.as_str() {
                return named(links).map(Some);
            }
            let Some(raw) = self.known_diff_output(DiffKind::Raw, tree.as_str(), &candidate) else {
                continue;
            };
            // The base's links: the candidate's the diff does not touch,
            // and the paths the diff shows as links on the base's side.
            let entries = raw_entries(&raw)?;
            let touched: std::collections::HashSet<&[u8]> =
                entries.iter().map(|e| e.path).collect();
            let mut base: Vec<(Vec<u8>, String)> = links
                .into_iter()
                .filter(|(p, _)| !touched.contains(p.as_slice()))
                .collect();
            base.extend(
                entries
                    .iter()
                    .filter(|e| e.old_mode == "120000")
                    .map(|e| (e.path.to_vec(), e.old_id.to_string())),
            );
            return named(base).map(Some);
        }
        Ok(None)
    }

    /// The empty tree in the hash `tree` is named in (its id's length: a
    /// SHA-1 or SHA-256 tree), known without asking git; asked when the
    /// length names neither.
    pub(crate) fn empty_tree_like(&self, tree: &TreeId) -> Result<TreeId, GitError> {
        let format = match tree.as_str().len() {
            40 => "sha1",
            64 => "sha256",
            _ => return self.empty_tree(),
        };
        match crate::objects::empty_tree_of(format).map(TreeId::parse) {
            Some(Ok(id)) => Ok(id),
            _ => self.empty_tree(),
        }
    }
}

const ARGS: &str = "diff-tree --raw";

fn bad(detail: impl Into<String>) -> GitError {
    GitError::Parse {
        args: ARGS.to_string(),
        detail: detail.into(),
    }
}

/// One entry of a raw diff (`:<old mode> <new mode> <old id> <new id>
/// <status>\0<path>\0`).
struct Raw<'a> {
    old_mode: &'a str,
    new_mode: &'a str,
    old_id: &'a str,
    new_id: &'a str,
    path: &'a [u8],
}

fn raw_entries(out: &[u8]) -> Result<Vec<Raw<'_>>, GitError> {
    let mut fields = out.split(|b| *b == 0);
    let mut entries = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let path = fields.next().ok_or_else(|| bad("entry without path"))?;
        let meta = std::str::from_utf8(meta).map_err(|_| bad("non-UTF-8 metadata"))?;
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_id, new_id, _] = parts[..] else {
            return Err(bad(format!("unexpected entry `{meta}`")));
        };
        entries.push(Raw {
            old_mode,
            new_mode,
            old_id,
            new_id,
            path,
        });
    }
    Ok(entries)
}

/// Links by path bytes, named as [`RepoPath`]s (U+FFFD for bytes that are
/// not UTF-8), sorted by path.
fn named(links: Vec<(Vec<u8>, String)>) -> Result<Vec<(RepoPath, String)>, GitError> {
    let mut named = links
        .into_iter()
        .map(|(p, id)| {
            RepoPath::parse(String::from_utf8_lossy(&p).into_owned())
                .map(|p| (p, id))
                .map_err(|e| bad(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    named.sort();
    Ok(named)
}

/// The links in a raw diff from the empty tree (`:000000 120000 <zero>
/// <blob> A\0path\0` each): their paths and blob ids.
fn links_of(out: &[u8]) -> Result<Vec<(RepoPath, String)>, GitError> {
    named(
        raw_entries(out)?
            .into_iter()
            .filter(|e| e.new_mode == "120000")
            .map(|e| (e.path.to_vec(), e.new_id.to_string()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_links_are_listed() {
        let z = "0".repeat(40);
        let out = format!(
            ":000000 100644 {z} {a} A\0README.md\0:000000 120000 {z} {b} A\0AGENTS.md\0:000000 160000 {z} {a} A\0sub\0",
            a = "a".repeat(40),
            b = "b".repeat(40)
        );
        let links = links_of(out.as_bytes()).unwrap();
        assert_eq!(
            links,
            [(RepoPath::parse("AGENTS.md").unwrap(), "b".repeat(40))]
        );
        let mut odd = format!(":000000 120000 {z} {b} A\0", b = "b".repeat(40)).into_bytes();
        odd.extend_from_slice(b"d\xff/CLAUDE.md\0");
        assert_eq!(links_of(&odd).unwrap()[0].0.as_str(), "d\u{fffd}/CLAUDE.md");
    }
}
