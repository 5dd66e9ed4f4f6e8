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

/// A tree's links as an index names them: path bytes and blob id (hex).
pub(crate) type IndexLinks = Vec<(Vec<u8>, String)>;

impl Repo {
    /// The symbolic links of each of `trees`, in the same order, each with
    /// its target, sorted by path. A link whose path is not UTF-8 is named
    /// with U+FFFD in place of the invalid bytes (its name still matches
    /// the path rules it ends with).
    ///
    /// A tree's links are known from a start's index or a listing already
    /// read (announced), or derived from another tree's through the raw
    /// diff between the two when that diff is known (a link of one side
    /// is a link of the other the diff does not touch, or a path the diff
    /// shows as a link on its side); of the trees left, one per group the
    /// known diffs connect is listed, all in one `diff-tree --stdin`.
    pub fn symlinks(&self, trees: &[&TreeId]) -> Result<Vec<Vec<Symlink>>, GitError> {
        if trees.is_empty() {
            return Ok(Vec::new());
        }
        let empty = self.empty_tree_like(trees[0])?;
        let empty = empty.as_str();
        let mut want: Vec<&str> = trees.iter().map(|t| t.as_str()).collect();
        want.sort_unstable();
        want.dedup();
        want.retain(|t| *t != empty);
        let mut unknown = Vec::new();
        for t in &want {
            if self.derived_links(t, empty)?.is_none() {
                unknown.push(*t);
            }
        }
        // One tree of each group the known diffs connect, listed together.
        let pairs = self.known_raw_pairs();
        let reps = representatives(&unknown, |a, b| {
            pairs
                .iter()
                .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
        });
        let listings: Vec<(String, String)> = reps
            .iter()
            .map(|t| (empty.to_string(), t.to_string()))
            .collect();
        self.prefetch_raw_diffs(&listings)?;
        let mut known: HashMap<&str, IndexLinks> = HashMap::new();
        for t in &want {
            let links = match self.derived_links(t, empty)? {
                Some(links) => links,
                None => {
                    let out = self.diff_tree_output(DiffKind::Raw, empty, t)?;
                    self.keep_links(t, listed(&out)?)
                }
            };
            known.insert(t, links);
        }
        let mut ids: Vec<&str> = known
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
        trees
            .iter()
            .map(|t| {
                let links = known.get(t.as_str()).cloned().unwrap_or_default();
                Ok(named(links)?
                    .into_iter()
                    .map(|(path, id)| Symlink {
                        path,
                        target: targets.get(id.as_str()).cloned().unwrap_or_default(),
                    })
                    .collect())
            })
            .collect()
    }

    /// Keeps `links` as `tree`'s (for every later ask) and returns them.
    fn keep_links(&self, tree: &str, links: IndexLinks) -> IndexLinks {
        if let Ok(mut memo) = self.shared().links.lock() {
            memo.insert(tree.to_string(), links.clone());
        }
        links
    }

    /// `tree`'s links when known without a process: kept, listed already
    /// (its raw diff from the empty tree in the memo), or derived from a
    /// tree whose links are, along raw diffs the memo holds (each tree on
    /// the way kept too); `None` otherwise.
    fn derived_links(&self, tree: &str, empty: &str) -> Result<Option<IndexLinks>, GitError> {
        let at = |t: &str| -> Result<Option<IndexLinks>, GitError> {
            if let Some(l) = self
                .shared()
                .links
                .lock()
                .ok()
                .and_then(|m| m.get(t).cloned())
            {
                return Ok(Some(l));
            }
            match self.known_diff_output(DiffKind::Raw, empty, t) {
                Some(out) => Ok(Some(self.keep_links(t, listed(&out)?))),
                None => Ok(None),
            }
        };
        if let Some(l) = at(tree)? {
            return Ok(Some(l));
        }
        // Breadth first from `tree` over the known diffs (the listings
        // aside) to the nearest tree whose links are known.
        let pairs: Vec<(String, String)> = self
            .known_raw_pairs()
            .into_iter()
            .filter(|(a, b)| a != empty && b != empty && a != b)
            .collect();
        let mut came_from: HashMap<String, String> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([tree.to_string()]);
        while let Some(t) = queue.pop_front() {
            let next: Vec<&String> = pairs
                .iter()
                .filter_map(|(a, b)| {
                    if *a == t {
                        Some(b)
                    } else if *b == t {
                        Some(a)
                    } else {
                        None
                    }
                })
                .collect();
            for n in next {
                if n == tree || came_from.contains_key(n) {
                    continue;
                }
                came_from.insert(n.clone(), t.clone());
                let Some(mut links) = at(n)? else {
                    queue.push_back(n.clone());
                    continue;
                };
                // Back along the way: each step's diff carries the links.
                let mut from = n.clone();
                while let Some(to) = came_from.get(&from) {
                    links = if let Some(raw) = self.known_diff_output(DiffKind::Raw, &from, to) {
                        across(&links, &raw_entries(&raw)?, Side::New)
                    } else if let Some(raw) = self.known_diff_output(DiffKind::Raw, to, &from) {
                        across(&links, &raw_entries(&raw)?, Side::Old)
                    } else {
                        return Ok(None);
                    };
                    links = self.keep_links(to, links);
                    if to == tree {
                        return Ok(Some(links));
                    }
                    from = to.clone();
                }
            }
        }
        Ok(None)
    }
}

/// Which side of a raw diff a derived tree is.
#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
}

/// The links of the tree on `side` of the raw diff `entries`, from
/// `links`, those of the tree on the other side: the paths the diff does
/// not touch keep their links, and a touched path is a link when the diff
/// shows one on `side`.
fn across(links: &IndexLinks, entries: &[Raw<'_>], side: Side) -> IndexLinks {
    let touched: std::collections::HashSet<&[u8]> = entries.iter().map(|e| e.path).collect();
    let mut out: IndexLinks = links
        .iter()
        .filter(|(p, _)| !touched.contains(p.as_slice()))
        .cloned()
        .collect();
    out.extend(entries.iter().filter_map(|e| {
        let (mode, id) = match side {
            Side::Old => (e.old_mode, e.old_id),
            Side::New => (e.new_mode, e.new_id),
        };
        (mode == "120000").then(|| (e.path.to_vec(), id.to_string()))
    }));
    out.sort();
    out
}

/// One tree of each group of `trees` that `linked` connects (the first of
/// the group in `trees`' order): listing it lets every other tree of the
/// group be derived.
pub(crate) fn representatives<'a>(
    trees: &[&'a str],
    linked: impl Fn(&str, &str) -> bool,
) -> Vec<&'a str> {
    let mut reached = vec![false; trees.len()];
    let mut reps = Vec::new();
    for first in 0..trees.len() {
        if reached[first] {
            continue;
        }
        reps.push(trees[first]);
        reached[first] = true;
        let mut todo = vec![first];
        while let Some(i) = todo.pop() {
            for j in 0..trees.len() {
                if !reached[j] && linked(trees[i], trees[j]) {
                    reached[j] = true;
                    todo.push(j);
                }
            }
        }
    }
    reps
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
        // Only when the tree is the entries' own: a cached subtree git
        // took may hold links no entry names (D-R159); then the tree is
        // listed when its links are asked.
        if crate::index::entries_tree_id(&bytes, hash_len).map(|id| crate::index::hex(&id))
            != Some(tree.to_string())
        {
            return;
        }
        if let Some(links) = crate::index::index_symlinks(&bytes, hash_len)
            && let Ok(mut memo) = self.shared().links.lock()
        {
            memo.insert(tree.to_string(), links);
        }
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
fn named(links: IndexLinks) -> Result<Vec<(RepoPath, String)>, GitError> {
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
/// <blob> A\0path\0` each): their path bytes and blob ids.
fn listed(out: &[u8]) -> Result<IndexLinks, GitError> {
    Ok(raw_entries(out)?
        .into_iter()
        .filter(|e| e.new_mode == "120000")
        .map(|e| (e.path.to_vec(), e.new_id.to_string()))
        .collect())
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
        let links = named(listed(out.as_bytes()).unwrap()).unwrap();
        assert_eq!(
            links,
            [(RepoPath::parse("AGENTS.md").unwrap(), "b".repeat(40))]
        );
        let mut odd = format!(":000000 120000 {z} {b} A\0", b = "b".repeat(40)).into_bytes();
        odd.extend_from_slice(b"d\xff/CLAUDE.md\0");
        assert_eq!(
            named(listed(&odd).unwrap()).unwrap()[0].0.as_str(),
            "d\u{fffd}/CLAUDE.md"
        );
    }
}
