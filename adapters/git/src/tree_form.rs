//! Trees only as git itself writes them (D-R160): core's
//! [`tree_problem`] applied to every tree a candidate brings (each tree of
//! the candidate that is not, by id, the base's tree at the same place)
//! and every tree a path lookup passes through; otherwise
//! [`GitError::TreeMalformed`], and the gate fails closed. This module
//! only parses tree objects and finds the trees. Nothing is remembered
//! between checks: a tree found well formed says nothing of the trees
//! below it.

use std::collections::HashMap;
use std::sync::Arc;

use probity_core::review::{Listed, Matching, TreeEntryName, TreeMalformed, tree_problem};

use crate::Repo;
use crate::cmd::GitError;
use crate::tree_memo::DirListing;

/// The largest tree read here (a directory of about 800,000 entries).
const MAX_TREE_BYTES: usize = 32 << 20;

/// The trees of one level read in one batch of the object reader.
const TREES_PER_BATCH: usize = 256;

/// A candidate tree, the base's tree at the same path, and the path.
type Level = (String, Option<String>, String);

/// A tree entry's mode that names a directory (git's `S_IFDIR`).
const DIR_MODE: u32 = 0o040000;

/// One entry of a tree object: its mode, name and object id (raw bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    pub(crate) mode: u32,
    pub(crate) name: &'a [u8],
    pub(crate) id: &'a [u8],
}

impl Entry<'_> {
    fn is_dir(&self) -> bool {
        self.mode & 0o170000 == DIR_MODE
    }

    fn named(&self) -> TreeEntryName<'_> {
        TreeEntryName {
            dir: self.is_dir(),
            name: self.name,
        }
    }
}

/// The entries of a tree object's bytes, as git's tree parser reads them;
/// `Err`: what makes the bytes no tree at all (git refuses them too).
pub(crate) fn entries(bytes: &[u8], hash_len: usize) -> Result<Vec<Entry<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|b| *b == b' ')
            .ok_or("an entry without a mode")?;
        let mode_text = &rest[..space];
        if mode_text.is_empty() || mode_text.len() > 7 {
            return Err("an entry with a malformed mode".into());
        }
        let mut mode = 0u32;
        for &d in mode_text {
            if !(b'0'..=b'7').contains(&d) {
                return Err("an entry with a malformed mode".into());
            }
            mode = mode * 8 + u32::from(d - b'0');
        }
        let after = &rest[space + 1..];
        let nul = after
            .iter()
            .position(|b| *b == 0)
            .ok_or("an entry without the end of its name")?;
        let name = &after[..nul];
        let id = after
            .get(nul + 1..nul + 1 + hash_len)
            .ok_or("an entry whose object id is cut short")?;
        out.push(Entry { mode, name, id });
        rest = &after[nul + 1 + hash_len..];
    }
    Ok(out)
}

/// A tree's place for messages: `/` for the root.
fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "/".into()
    } else {
        path.to_string()
    }
}

/// The first entry of `list` named `part`, as git's lookup finds it.
fn named_entry<'e, 'b>(list: &'e [Entry<'b>], part: &str) -> Option<&'e Entry<'b>> {
    list.iter().find(|e| e.name == part.as_bytes())
}

/// The path of `part` in the directory at `walked` (the root: empty).
fn below(walked: &str, part: &str) -> String {
    if walked.is_empty() {
        part.to_string()
    } else {
        format!("{walked}/{part}")
    }
}

/// The listing of a directory tree's `bytes` for the name-only globs
/// `by_name` ([`DirListing`]).
fn dir_listing(bytes: &[u8], hash_len: usize, by_name: &[(usize, &Matching)]) -> DirListing {
    let mut out = DirListing {
        kept: vec![Vec::new(); by_name.len()],
        ..DirListing::default()
    };
    let list = entries(bytes, hash_len).unwrap_or_default();
    let mut lower: Vec<u8> = Vec::new();
    for e in &list {
        let Ok(entry) = std::str::from_utf8(e.name) else {
            out.bad = true;
            return out;
        };
        match e.mode & 0o170000 {
            0o100000 | 0o120000 => {
                lower.clear();
                lower.extend(e.name.iter().map(u8::to_ascii_lowercase));
                for ((_, m), kept) in by_name.iter().zip(out.kept.iter_mut()) {
                    if m.keeps_name(&lower) == Some(true) {
                        kept.push(out.files.len());
                    }
                }
                out.files.push(entry.to_string());
            }
            DIR_MODE => out.dirs.push((hex(e.id), entry.to_string())),
            _ => {}
        }
    }
    out
}

fn hex(raw: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(raw.len() * 2);
    for b in raw {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

impl Repo {
    /// The bytes of each tree of `ids`, read through the object reader
    /// (one batch); a tree over [`MAX_TREE_BYTES`] is refused.
    fn tree_bytes(&self, ids: &[&str], path_of: &[String]) -> Result<Vec<Vec<u8>>, GitError> {
        let heads = self.object_heads(ids, MAX_TREE_BYTES)?;
        heads
            .into_iter()
            .zip(ids.iter().zip(path_of))
            .map(|((bytes, whole), (id, path))| {
                if whole {
                    Ok(bytes)
                } else {
                    Err(GitError::TreeMalformed(TreeMalformed {
                        tree: (*id).to_string(),
                        path: shown_path(path),
                        problem: format!("over {MAX_TREE_BYTES} bytes"),
                    }))
                }
            })
            .collect()
    }

    /// Checks the tree `id` (at `path`), whose bytes are `bytes`, well
    /// formed.
    fn checked_tree(&self, id: &str, path: &str, bytes: &[u8]) -> Result<(), GitError> {
        let hash_len = id.len() / 2;
        let bad = |problem: String| {
            GitError::TreeMalformed(TreeMalformed {
                tree: id.to_string(),
                path: shown_path(path),
                problem,
            })
        };
        let list = entries(bytes, hash_len).map_err(bad)?;
        let names: Vec<TreeEntryName<'_>> = list.iter().map(Entry::named).collect();
        match tree_problem(&names) {
            Some(problem) => Err(bad(problem)),
            None => Ok(()),
        }
    }

    /// Checks that every tree `to` brings is well formed: its root and,
    /// level by level, each directory whose tree is not, by id, the
    /// directory of the same name in `from` (the trees a diff of the two
    /// walks into). `from`'s own trees are read only to tell them apart.
    pub(crate) fn check_candidate_trees(&self, from: &str, to: &str) -> Result<(), GitError> {
        let mut level: Vec<Level> = vec![(to.to_string(), Some(from.to_string()), String::new())];
        while !level.is_empty() {
            // A directory that is, by id, the base's: nothing below it
            // changed, and a diff does not walk into it.
            level.retain(|(t, b, _)| b.as_deref() != Some(t.as_str()));
            let mut next = Vec::new();
            // A bounded batch at a time: a candidate may bring many new
            // directories on one level.
            for todo in level.chunks(TREES_PER_BATCH) {
                self.check_level(todo, &mut next)?;
            }
            level = next;
        }
        Ok(())
    }

    /// One batch of a level of [`Repo::check_candidate_trees`]: each
    /// candidate tree of `todo` checked, and the directories below it
    /// pushed on `next` (with the base's tree of the same name).
    fn check_level(&self, todo: &[Level], next: &mut Vec<Level>) -> Result<(), GitError> {
        let mut ids: Vec<&str> = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        for (t, b, p) in todo {
            ids.push(t);
            paths.push(p.clone());
            if let Some(b) = b {
                ids.push(b);
                paths.push(p.clone());
            }
        }
        let bytes = self.tree_bytes(&ids, &paths)?;
        let mut at = bytes.iter();
        for (t, b, p) in todo {
            let Some(mine) = at.next() else { break };
            self.checked_tree(t, p, mine)?;
            let base = match b {
                Some(_) => at.next(),
                None => None,
            };
            // The base's first entry of each name (lenient: a base
            // git would not write is the base's business here).
            let hash_len = t.len() / 2;
            let theirs: HashMap<&[u8], Entry<'_>> = base
                .and_then(|bytes| entries(bytes, hash_len).ok())
                .unwrap_or_default()
                .into_iter()
                .rev()
                .map(|e| (e.name, e))
                .collect();
            for e in entries(mine, hash_len).unwrap_or_default() {
                if !e.is_dir() {
                    continue;
                }
                let base_dir = theirs.get(e.name).filter(|b| b.is_dir()).map(|b| hex(b.id));
                let name = String::from_utf8_lossy(e.name);
                let path = if p.is_empty() {
                    name.into_owned()
                } else {
                    format!("{p}/{name}")
                };
                next.push((hex(e.id), base_dir, path));
            }
        }
        Ok(())
    }

    /// Checks that every tree the lookup of each `(rev, path)` passes
    /// through is well formed: the root tree of `rev` and each directory
    /// on the way to the path's last component, as far as the path goes
    /// (git's lookup: no link followed). Each tree is read once.
    pub(crate) fn check_lookup_trees(&self, reads: &[(&str, &str)]) -> Result<(), GitError> {
        let (roots, mut seen) = self.lookup_trees(reads)?;
        for ((_, path), root) in reads.iter().zip(roots) {
            // A rev git cannot name: its lookup answers nothing either.
            if let Some(root) = root {
                self.walk(&root, path, false, &mut seen)?;
            }
        }
        Ok(())
    }

    /// The root tree of each of `reads` ([`Repo::root_trees`]), and the
    /// trees their lookups pass through, read and checked
    /// ([`Repo::read_lookup_trees`]). A walk that follows links passes
    /// these too (up to a link, `.` or `..`, where a lookup without
    /// links ends), and reads what lies past them itself.
    fn lookup_trees(
        &self,
        reads: &[(&str, &str)],
    ) -> Result<(Vec<Option<String>>, Checked), GitError> {
        let mut seen = Checked::new();
        let roots = self.root_trees(reads)?;
        let starts: Vec<(&str, &str)> = reads
            .iter()
            .zip(&roots)
            .filter_map(|((_, path), root)| Some((root.as_deref()?, *path)))
            .collect();
        self.read_lookup_trees(&starts, &mut seen)?;
        Ok((roots, seen))
    }

    /// Reads into `seen`, checked, every tree the lookups of `starts`
    /// (root tree, path) pass through, as [`Repo::walk`] without links
    /// passes them, level by level: one batch of the object reader per
    /// level (of at most [`TREES_PER_BATCH`] trees), where the walks
    /// would ask for one tree at a time (a start's attribute files: one
    /// lookup for each directory holding a changed file, in both trees).
    fn read_lookup_trees(
        &self,
        starts: &[(&str, &str)],
        seen: &mut Checked,
    ) -> Result<(), GitError> {
        // Each lookup's place: the tree it is in, the path walked to it,
        // and the components left (the last one names what is looked up).
        let mut level: Vec<(String, String, Vec<&str>)> = starts
            .iter()
            .map(|(root, path)| {
                (
                    (*root).to_string(),
                    String::new(),
                    path.split('/').collect(),
                )
            })
            .collect();
        while !level.is_empty() {
            let want: Vec<(&str, &str)> = level
                .iter()
                .map(|(id, walked, _)| (id.as_str(), walked.as_str()))
                .collect();
            self.read_level(&want, seen)?;
            let mut next = Vec::new();
            for (id, walked, parts) in &level {
                let Some((part, rest)) = parts.split_first() else {
                    continue;
                };
                if rest.is_empty() {
                    continue;
                }
                let bytes = seen.get(id).map_or(&[][..], Vec::as_slice);
                let list = entries(bytes, id.len() / 2).unwrap_or_default();
                if let Some(e) = named_entry(&list, part)
                    && e.is_dir()
                {
                    next.push((hex(e.id), below(walked, part), rest.to_vec()));
                }
            }
            level = next;
        }
        Ok(())
    }

    /// Reads into `seen`, checked, each tree of `want` (id, path) it does
    /// not hold yet: those the run has kept ([`crate::tree_memo`]), the
    /// others in one batch of the object reader for at most
    /// [`TREES_PER_BATCH`] trees (then kept).
    fn read_level(&self, want: &[(&str, &str)], seen: &mut Checked) -> Result<(), GitError> {
        let mut want: Vec<(&str, &str)> = want
            .iter()
            .filter(|(id, _)| !seen.contains_key(*id))
            .copied()
            .collect();
        want.sort_unstable();
        want.dedup_by(|a, b| a.0 == b.0);
        let ids: Vec<&str> = want.iter().map(|(id, _)| *id).collect();
        seen.extend(self.kept_trees(&ids));
        want.retain(|(id, _)| !seen.contains_key(*id));
        for batch in want.chunks(TREES_PER_BATCH) {
            let ids: Vec<&str> = batch.iter().map(|(id, _)| *id).collect();
            let paths: Vec<String> = batch.iter().map(|(_, p)| (*p).to_string()).collect();
            for ((id, path), bytes) in batch.iter().zip(self.tree_bytes(&ids, &paths)?) {
                self.checked_tree(id, path, &bytes)?;
                self.keep_tree(id, &bytes);
                seen.insert((*id).to_string(), bytes);
            }
        }
        Ok(())
    }

    /// The tree `id` (at `path`), read and checked well formed once per
    /// `seen` (every read of a call passes its root).
    fn checked<'c>(
        &self,
        seen: &'c mut Checked,
        id: &str,
        path: &str,
    ) -> Result<&'c [u8], GitError> {
        if !seen.contains_key(id) {
            seen.extend(self.kept_trees(&[id]));
        }
        if !seen.contains_key(id) {
            let bytes = self
                .tree_bytes(&[id], &[path.to_string()])?
                .pop()
                .unwrap_or_default();
            self.checked_tree(id, path, &bytes)?;
            self.keep_tree(id, &bytes);
            seen.insert(id.to_string(), bytes);
        }
        Ok(seen.get(id).map_or(&[][..], Vec::as_slice))
    }
}

/// Trees read and checked in one call, by id.
type Checked = HashMap<String, Vec<u8>>;

/// What a listing keeps: with `below`, what the subdirectories hold too;
/// with a listing by name, only the files it matches.
struct Keep<'m> {
    below: bool,
    by: Option<&'m Matching>,
}

/// Where a walk ends: a blob's id, or a directory's tree id and path.
enum Found {
    Blob(String),
    Dir(String, String),
}

/// The most symbolic links one read follows (as risk policy v4 follows
/// a changed file's links, `symlink_hops`).
const MAX_LINK_HOPS: usize = 8;

/// The largest link target read (git's own limit on a link is the path
/// limit; a longer blob is no link a checkout makes).
const MAX_LINK_BYTES: usize = 4096;

impl Repo {
    /// The blob id at `path` of `tree`, every tree passed checked
    /// (D-R160). Without `follow`, as git's lookup finds it: a link on the
    /// way ends it. With `follow`, as a checkout shows it, resolved as the
    /// kernel resolves a path: one component at a time, `.` and `..` as
    /// directories, a symbolic link met on the way (or at the end)
    /// replaced by its target read from the link's directory, so a `..`
    /// after a link leaves the link's target, not the link's name (red
    /// team round 13); at most [`MAX_LINK_HOPS`] links. A `..` past the
    /// root may come back in (red team round 14: `../<clone>/tools`
    /// through a clone's own directory name): the names after a climb
    /// are taken as the way back down, as risk policy v9 takes them.
    /// `None` when the path is absent, leaves the tree for good (an
    /// absolute target, a climb not followed by as many names) or ends at
    /// anything but a blob.
    fn walk(
        &self,
        tree: &str,
        path: &str,
        follow: bool,
        seen: &mut Checked,
    ) -> Result<Option<String>, GitError> {
        Ok(match self.walk_to(tree, path, follow, seen)? {
            Some(Found::Blob(id)) => Some(id),
            Some(Found::Dir(..)) | None => None,
        })
    }

    /// [`Repo::walk`]'s end: a blob, or the directory the path ends at
    /// (its tree id and the path walked to it).
    fn walk_to(
        &self,
        tree: &str,
        path: &str,
        follow: bool,
        seen: &mut Checked,
    ) -> Result<Option<Found>, GitError> {
        // The directories entered, the root first: (tree id, path).
        let mut dirs: Vec<(String, String)> = vec![(tree.to_string(), String::new())];
        let mut todo: std::collections::VecDeque<String> = path
            .split('/')
            .filter(|p| !follow || !p.is_empty())
            .map(str::to_string)
            .collect();
        let (mut hops, mut outside) = (0, 0);
        while let Some(part) = todo.pop_front() {
            match part.as_str() {
                "." if follow => continue,
                ".." if follow => {
                    if dirs.len() == 1 {
                        outside += 1;
                    } else {
                        dirs.pop();
                    }
                    continue;
                }
                _ if outside > 0 => {
                    outside -= 1;
                    continue;
                }
                _ => {}
            }
            let Some((at, walked)) = dirs.last().cloned() else {
                return Ok(None);
            };
            let bytes = self.checked(seen, &at, &walked)?;
            let list = entries(bytes, at.len() / 2).unwrap_or_default();
            let Some(e) = named_entry(&list, &part) else {
                return Ok(None);
            };
            match e.mode & 0o170000 {
                DIR_MODE => dirs.push((hex(e.id), below(&walked, &part))),
                0o120000 if follow => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Ok(None);
                    }
                    let id = hex(e.id);
                    let Some((target, true)) =
                        self.object_heads(&[id.as_str()], MAX_LINK_BYTES)?.pop()
                    else {
                        return Ok(None);
                    };
                    let Ok(target) = String::from_utf8(target) else {
                        return Ok(None);
                    };
                    if target.starts_with('/') {
                        return Ok(None);
                    }
                    for p in target.split('/').rev().filter(|p| !p.is_empty()) {
                        todo.push_front(p.to_string());
                    }
                }
                0o100000 if todo.is_empty() => return Ok(Some(Found::Blob(hex(e.id)))),
                _ => return Ok(None),
            }
        }
        // The path ended at a directory.
        Ok(dirs.pop().map(|(id, walked)| Found::Dir(id, walked)))
    }

    /// The files (and links) in each (rev, directory), with `below` its
    /// subdirectories' too, as a checkout shows the directory (links on
    /// the way to it followed, as [`Repo::read_paths_followed`] walks),
    /// each as the directory asked joined with the path below it; more
    /// than `limit`, more than [`Listed::MAX_TREES`] directories, or a
    /// name that is not UTF-8, answers [`Listed::Unknown`] (risk policy
    /// v12's walks, D-R174). A link below is a file here (a read follows
    /// it); a submodule holds nothing this repository has.
    pub fn list_followed(
        &self,
        dirs: &[(&str, &str)],
        below: bool,
        limit: usize,
    ) -> Result<Vec<Listed>, GitError> {
        let asks: Vec<(&str, &str, Keep<'_>)> = dirs
            .iter()
            .map(|(rev, path)| (*rev, *path, Keep { below, by: None }))
            .collect();
        self.listed(&asks, limit)
    }

    /// [`Repo::list_followed`] for listings by name: the files below
    /// each (rev, listing's directory; the root when empty) that
    /// [`Matching::keeps`], named from the root; `limit` counts only them
    /// (red team round 27: `find . -name '*_test.sh'`, a discovery).
    pub fn list_matching(
        &self,
        asks: &[(&str, &Matching)],
        limit: usize,
    ) -> Result<Vec<Listed>, GitError> {
        let asks: Vec<(&str, &str, Keep<'_>)> = asks
            .iter()
            .map(|(rev, m)| {
                let keep = Keep {
                    below: true,
                    by: Some(m),
                };
                (*rev, m.dir(), keep)
            })
            .collect();
        self.listed(&asks, limit)
    }

    /// Each (rev, directory, what is kept) listed; the asks of one
    /// directory of one tree (a discovery's several patterns) in one walk.
    fn listed(
        &self,
        asks: &[(&str, &str, Keep<'_>)],
        limit: usize,
    ) -> Result<Vec<Listed>, GitError> {
        let dirs: Vec<(&str, &str)> = asks.iter().map(|(rev, dir, _)| (*rev, *dir)).collect();
        let (roots, mut seen) = self.lookup_trees(&dirs)?;
        let mut out: Vec<Option<Listed>> = vec![None; asks.len()];
        for (i, ((rev, path, keep), root)) in asks.iter().zip(&roots).enumerate() {
            if out[i].is_some() {
                continue;
            }
            let group: Vec<usize> = (i..asks.len())
                .filter(|&j| {
                    let (r, p, k) = &asks[j];
                    r == rev && p == path && k.below == keep.below && out[j].is_none()
                })
                .collect();
            let found = match root {
                Some(root) => self.walk_to(root, path, true, &mut seen)?,
                None => None,
            };
            let answers = match found {
                Some(Found::Dir(id, walked)) => {
                    let by: Vec<Option<&Matching>> = group.iter().map(|&j| asks[j].2.by).collect();
                    self.files_below(&mut seen, (id, walked), path, keep.below, &by, limit)?
                }
                _ => vec![Listed::NotADirectory; group.len()],
            };
            for (j, answer) in group.into_iter().zip(answers) {
                out[j] = Some(answer);
            }
        }
        Ok(out
            .into_iter()
            .map(|o| o.unwrap_or(Listed::Unknown))
            .collect())
    }

    /// The files below the tree `at` (id, path walked), named from
    /// `shown` (with `below`, its subdirectories' too), read a level at a
    /// time, for each of `by`: those it matches (every file for `None`);
    /// [`Listed::Unknown`] past `limit` files taken, and for all past
    /// [`Listed::MAX_TREES`] directories read or at a name that is not
    /// UTF-8.
    fn files_below(
        &self,
        seen: &mut Checked,
        at: (String, String),
        shown: &str,
        below_too: bool,
        by: &[Option<&Matching>],
        limit: usize,
    ) -> Result<Vec<Listed>, GitError> {
        let unknown = || vec![Listed::Unknown; by.len()];
        let mut files: Vec<Option<Vec<String>>> = vec![Some(Vec::new()); by.len()];
        // The listings the name alone decides (`test_*.py`), by index, and
        // the key a directory's listing is kept by for them.
        let by_name: Vec<(usize, &Matching)> = by
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.filter(|m| m.keeps_name(b"").is_some()).map(|m| (i, m)))
            .collect();
        let key: String = by_name
            .iter()
            .map(|(_, m)| m.pattern())
            .collect::<Vec<_>>()
            .join("\n");
        let mut level = vec![(at, shown.trim_end_matches('/').to_string())];
        let mut trees = 0usize;
        while !level.is_empty() {
            trees += level.len();
            if trees > Listed::MAX_TREES {
                return Ok(unknown());
            }
            // Each directory's listing: kept by this run, else read.
            let mut listings: Vec<Option<Arc<DirListing>>> = level
                .iter()
                .map(|((id, _), _)| self.kept_listing(id, &key))
                .collect();
            let want: Vec<(&str, &str)> = level
                .iter()
                .zip(&listings)
                .filter(|(_, l)| l.is_none())
                .map(|(((id, walked), _), _)| (id.as_str(), walked.as_str()))
                .collect();
            self.read_level(&want, seen)?;
            for (((id, _), _), slot) in level.iter().zip(listings.iter_mut()) {
                if slot.is_none() {
                    let bytes = seen.get(id).map_or(&[][..], Vec::as_slice);
                    let listing = Arc::new(dir_listing(bytes, id.len() / 2, &by_name));
                    self.keep_listing(id, &key, Arc::clone(&listing));
                    *slot = Some(listing);
                }
            }
            let mut next = Vec::new();
            for (((_, walked), name), listing) in level.iter().zip(&listings) {
                let Some(listing) = listing else {
                    continue;
                };
                if listing.bad {
                    return Ok(unknown());
                }
                let take = |i: usize, file: &str, files: &mut [Option<Vec<String>>]| {
                    if let Some(list) = &mut files[i] {
                        list.push(below(name, file));
                        if list.len() > limit {
                            files[i] = None;
                        }
                    }
                };
                for ((i, _), kept) in by_name.iter().zip(&listing.kept) {
                    for &f in kept {
                        take(*i, &listing.files[f], &mut files);
                    }
                }
                // Every file, or a glob over the whole path.
                for (i, m) in by.iter().enumerate() {
                    if by_name.iter().any(|(j, _)| *j == i) {
                        continue;
                    }
                    for file in &listing.files {
                        if m.is_none_or(|m| m.keeps(&below(name, file))) {
                            take(i, file, &mut files);
                        }
                    }
                }
                if below_too {
                    for (id, entry) in &listing.dirs {
                        next.push(((id.clone(), below(walked, entry)), below(name, entry)));
                    }
                }
                if files.iter().all(Option::is_none) {
                    return Ok(unknown());
                }
            }
            level = next;
        }
        Ok(files
            .into_iter()
            .map(|kept| match kept {
                Some(mut list) => {
                    list.sort();
                    Listed::Files(list)
                }
                None => Listed::Unknown,
            })
            .collect())
    }

    /// [`Repo::read_paths`] as a checkout shows each path: symbolic links
    /// inside the tree followed (`walk`); what the risk policy's
    /// configurations are read through, as the tools that run them read
    /// them (D-R166).
    pub fn read_paths_followed(
        &self,
        reads: &[(&str, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        let mut blobs = Vec::with_capacity(reads.len());
        let (roots, mut seen) = self.lookup_trees(reads)?;
        for ((_, path), root) in reads.iter().zip(roots) {
            blobs.push(match root {
                Some(root) => self.walk(&root, path, true, &mut seen)?,
                None => None,
            });
        }
        self.blobs_read(&blobs, cap)
    }

    /// The root tree of each read's rev (`None`: git cannot name it),
    /// each distinct rev asked once (v12 asks thousands of paths of the
    /// same two trees).
    fn root_trees(&self, reads: &[(&str, &str)]) -> Result<Vec<Option<String>>, GitError> {
        let mut revs: Vec<&str> = reads.iter().map(|(rev, _)| *rev).collect();
        revs.sort_unstable();
        revs.dedup();
        let specs: Vec<String> = revs.iter().map(|rev| format!("{rev}^{{tree}}")).collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let roots: std::collections::HashMap<&str, Option<String>> = revs
            .iter()
            .copied()
            .zip(
                self.objects_info(&specs)?
                    .into_iter()
                    .map(|i| i.map(|i| i.oid)),
            )
            .collect();
        Ok(reads
            .iter()
            .map(|(rev, _)| roots.get(rev).cloned().flatten())
            .collect())
    }

    /// The bytes of each blob of `blobs` (at most `cap + 1` of them), in
    /// one batch of the object reader; `None` where there is no blob.
    pub(crate) fn blobs_read(
        &self,
        blobs: &[Option<String>],
        cap: usize,
    ) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        let ids: Vec<&str> = blobs.iter().flatten().map(String::as_str).collect();
        let mut bytes = self.object_heads(&ids, cap + 1)?.into_iter();
        Ok(blobs
            .iter()
            .map(|b| b.as_ref().and_then(|_| bytes.next()).map(|(b, _)| b))
            .collect())
    }
}

#[cfg(test)]
mod tests;
