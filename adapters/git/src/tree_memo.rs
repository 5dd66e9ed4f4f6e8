//! Tree objects read and checked well formed in one run, kept by id for
//! its later walks (issue 24): a server hook re-derives the tier of every
//! pushed tree in a call of its own, and a listing by name walks each
//! tree's every directory (D-R175), while consecutive commits share all
//! but a few subtrees. An id names its bytes, so a kept tree is the tree;
//! what is kept is bounded ([`TREE_MEMO_BYTES`]), past which trees are
//! read again as before.

use std::collections::HashMap;

use crate::repo::Repo;

/// The most bytes of trees one run keeps.
pub(crate) const TREE_MEMO_BYTES: usize = 64 << 20;

/// Trees kept by id, and their bytes in all.
#[derive(Debug, Default)]
pub(crate) struct TreeMemo {
    by_id: HashMap<String, Vec<u8>>,
    bytes: usize,
}

impl Repo {
    /// The trees of `ids` this run has kept, each with its bytes.
    pub(crate) fn kept_trees(&self, ids: &[&str]) -> Vec<(String, Vec<u8>)> {
        let Ok(memo) = self.shared().trees.lock() else {
            return Vec::new();
        };
        ids.iter()
            .filter_map(|id| Some(((*id).to_string(), memo.by_id.get(*id)?.clone())))
            .collect()
    }

    /// Keeps the tree `id`, read and checked well formed, while the
    /// run's bound allows.
    pub(crate) fn keep_tree(&self, id: &str, bytes: &[u8]) {
        let Ok(mut memo) = self.shared().trees.lock() else {
            return;
        };
        if memo.by_id.contains_key(id) || memo.bytes + bytes.len() + id.len() > TREE_MEMO_BYTES {
            return;
        }
        memo.bytes += bytes.len() + id.len();
        memo.by_id.insert(id.to_string(), bytes.to_vec());
    }

    /// How many trees this run keeps (tests).
    #[cfg(test)]
    pub(crate) fn kept_tree_count(&self) -> usize {
        self.shared().trees.lock().map_or(0, |m| m.by_id.len())
    }
}

/// A directory's entries as a listing reads them ([`Repo::files_below`]):
/// its files' names, which of them each name-only glob asked keeps, and
/// its subdirectories. Kept by (tree id, the globs asked), so a later
/// walk of a tree sharing the directory (the next pushed commit's) skips
/// its parsing and its matching (issue 24).
#[derive(Debug, Default)]
pub(crate) struct DirListing {
    /// The files' (and links') names, as the tree holds them.
    pub(crate) files: Vec<String>,
    /// For each name-only glob asked, in order, the indexes of the files
    /// it keeps.
    pub(crate) kept: Vec<Vec<usize>>,
    /// The subdirectories: tree id (hex) and name.
    pub(crate) dirs: Vec<(String, String)>,
    /// A name that is not UTF-8 (the listing is then unknown).
    pub(crate) bad: bool,
}

impl DirListing {
    /// Its names and entries' count, for the memo's bound.
    fn size(&self) -> usize {
        self.files.iter().map(String::len).sum::<usize>()
            + self
                .dirs
                .iter()
                .map(|(id, n)| id.len() + n.len())
                .sum::<usize>()
            + self.kept.iter().map(Vec::len).sum::<usize>() * 8
    }
}

/// Directory listings kept by (tree id, globs asked), and their size in
/// all (within [`TREE_MEMO_BYTES`] too).
#[derive(Debug, Default)]
pub(crate) struct ListingMemo {
    by_key: HashMap<(String, String), std::sync::Arc<DirListing>>,
    bytes: usize,
}

impl Repo {
    /// The listing of the directory tree `id` for the globs `key`, if
    /// this run has kept it.
    pub(crate) fn kept_listing(&self, id: &str, key: &str) -> Option<std::sync::Arc<DirListing>> {
        let memo = self.shared().listings.lock().ok()?;
        memo.by_key.get(&(id.to_string(), key.to_string())).cloned()
    }

    /// Keeps `listing` of the directory tree `id` for the globs `key`,
    /// while the run's bound allows.
    pub(crate) fn keep_listing(&self, id: &str, key: &str, listing: std::sync::Arc<DirListing>) {
        let Ok(mut memo) = self.shared().listings.lock() else {
            return;
        };
        let size = listing.size() + id.len() + key.len();
        if memo.bytes + size > TREE_MEMO_BYTES {
            return;
        }
        memo.bytes += size;
        memo.by_key
            .insert((id.to_string(), key.to_string()), listing);
    }
}
