//! A commit's note paths looked up in notes trees that are each read once
//! (D-R144). Asking git for `<notes>:<path>` parses every tree on the path
//! again for each question: a push of 200,000 notes asked about 2.6 million
//! of them, minutes of the hook's time (red team round 6). Here each tree
//! is read whole once through the object reader already running, its
//! entries kept by name, and every path is looked up in-process, as git
//! looks it up (the first entry of a name; a path through anything but a
//! tree names nothing). Also the paths that differ between two notes
//! trees, each side a note only as git's notes read one (D-R163).

use std::collections::BTreeMap;

use probity_core::review::{CommitId, note_paths};

use crate::cmd::GitError;
use crate::repo::Repo;

/// The most bytes of one tree read whole; past it (or for a tree that is
/// no tree) a path through it is asked of git as before.
const MAX_TREE_BYTES: usize = 256 * 1024 * 1024;

/// A tree's entries by name: whether each is a tree, and its object id.
type Entries = BTreeMap<Vec<u8>, (bool, String)>;

/// Where a path lookup ended.
enum Found {
    /// The entry's object id.
    Entry(String),
    /// No such entry.
    Nothing,
    /// A tree on the way could not be read whole: ask git.
    AskGit,
}

/// Trees read once each, by id, for the lookups of one notes update.
pub(crate) struct NoteTrees<'r> {
    repo: &'r Repo,
    /// A notes commit's root tree id (`None`: no tree).
    roots: BTreeMap<String, Option<String>>,
    /// A tree's entries (`None`: not read whole).
    trees: BTreeMap<String, Option<Entries>>,
}

impl<'r> NoteTrees<'r> {
    pub(crate) fn new(repo: &'r Repo) -> Self {
        Self {
            repo,
            roots: BTreeMap::new(),
            trees: BTreeMap::new(),
        }
    }

    /// The object id at each of `commit`'s note paths the notes commit
    /// `notes` holds an entry at, with the path, in [`note_paths`]'s order
    /// (whether the object exists, and what it is, is the caller's to ask).
    pub(crate) fn note_entries(
        &mut self,
        notes: &CommitId,
        commit: &CommitId,
    ) -> Result<Vec<(String, String)>, GitError> {
        let mut found = Vec::new();
        for p in note_paths(commit) {
            let oid = match self.lookup(notes, &p)? {
                Found::Entry(oid) => oid,
                Found::Nothing => continue,
                Found::AskGit => match self.repo.object_info(&format!("{notes}:{p}"))? {
                    Some(i) => i.oid,
                    None => continue,
                },
            };
            found.push((p, oid));
        }
        Ok(found)
    }

    fn lookup(&mut self, notes: &CommitId, path: &str) -> Result<Found, GitError> {
        let root = match self.roots.get(notes.as_str()) {
            Some(r) => r.clone(),
            None => {
                let r = self
                    .repo
                    .object_info(&format!("{notes}^{{tree}}"))?
                    .map(|i| i.oid);
                self.roots.insert(notes.to_string(), r.clone());
                r
            }
        };
        let Some(mut tree) = root else {
            return Ok(Found::Nothing);
        };
        let mut parts = path.split('/').peekable();
        while let Some(name) = parts.next() {
            let Some(entries) = self.entries(&tree)? else {
                return Ok(Found::AskGit);
            };
            let Some((is_tree, oid)) = entries.get(name.as_bytes()) else {
                return Ok(Found::Nothing);
            };
            if parts.peek().is_none() {
                return Ok(Found::Entry(oid.clone()));
            }
            if !is_tree {
                return Ok(Found::Nothing);
            }
            tree = oid.clone();
        }
        Ok(Found::Nothing)
    }

    /// The entries of the tree `oid`, read whole once.
    fn entries(&mut self, oid: &str) -> Result<Option<&Entries>, GitError> {
        if !self.trees.contains_key(oid) {
            let read = self.repo.object_head(oid, MAX_TREE_BYTES)?;
            let parsed = match read {
                Some((info, body, true)) if info.kind == "tree" => {
                    parse_tree(&body, (info.oid.len() / 2).max(20))
                }
                _ => None,
            };
            self.trees.insert(oid.to_owned(), parsed);
        }
        Ok(self.trees.get(oid).and_then(Option::as_ref))
    }
}

/// A tree object's entries (`<mode> <name>\0<id>`), the first of each
/// name kept; `None` when the body is not a well-formed tree.
fn parse_tree(mut rest: &[u8], id_len: usize) -> Option<Entries> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut entries = Entries::new();
    while !rest.is_empty() {
        let nul = rest.iter().position(|b| *b == 0)?;
        let (head, tail) = rest.split_at(nul);
        let id = tail.get(1..1 + id_len)?;
        let space = head.iter().position(|b| *b == b' ')?;
        let (mode, name) = (&head[..space], &head[space + 1..]);
        let mut hex = String::with_capacity(id_len * 2);
        for b in id {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        // A tree by its mode's type bits, as git reads a mode (octal; a
        // zero-padded `040000` is a tree too).
        let mut bits: u32 = 0;
        for d in mode {
            if !(b'0'..=b'7').contains(d) {
                return None;
            }
            bits = bits.checked_mul(8)?.checked_add(u32::from(d - b'0'))?;
        }
        entries
            .entry(name.to_vec())
            .or_insert((bits & 0o170_000 == 0o040_000, hex));
        rest = &tail[1 + id_len..];
    }
    Some(entries)
}

/// One differing notes-tree path, its note blob in the old and the new
/// notes commit (`None` where the path holds no regular file), and
/// whether the new side is an entry git's notes do not read (a symbolic
/// link, a gitlink: D-R163).
pub(crate) type PathChange = (String, Option<String>, Option<String>, bool);

impl Repo {
    /// Every path `diff-tree -r` finds differing between the notes commits
    /// `old` and `new` ([`PathChange`]), once both trees are found to be
    /// trees git writes (D-R163).
    pub(crate) fn note_tree_changes(
        &self,
        old: &CommitId,
        new: &CommitId,
    ) -> Result<Vec<PathChange>, GitError> {
        // Trees as git writes them (D-R163): on a notes tree out of order
        // or naming one path twice, this diff and git's lookup of a note
        // read different notes.
        let trees = [format!("{old}^{{tree}}"), format!("{new}^{{tree}}")];
        let specs: Vec<&str> = trees.iter().map(String::as_str).collect();
        if let [Some(from), Some(to)] = &self.objects_info(&specs)?[..] {
            self.check_candidate_trees(&from.oid, &to.oid)?;
        }
        let out = self.run([
            "diff-tree",
            "-r",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            old.as_str(),
            new.as_str(),
        ])?;
        // A side is a note only as git's notes read one: a regular file
        // (a symbolic link or a gitlink at a note's path is none, and `git
        // grep` skips it too, D-R163).
        let regular = |mode: &str| {
            u32::from_str_radix(mode.trim_start_matches(':'), 8)
                .is_ok_and(|m| m & 0o170000 == 0o100000)
        };
        let blob = |mode: &str, oid: &str| {
            (regular(mode) && !oid.bytes().all(|b| b == b'0')).then(|| oid.to_owned())
        };
        let mut changes = Vec::new();
        for line in String::from_utf8_lossy(&out).lines() {
            let Some((meta, path)) = line.split_once('\t') else {
                continue;
            };
            let fields: Vec<&str> = meta.split(' ').collect();
            let [old_mode, new_mode, before, after, _] = fields[..] else {
                continue;
            };
            let odd = !after.bytes().all(|b| b == b'0') && !regular(new_mode);
            changes.push((
                path.to_owned(),
                blob(old_mode, before),
                blob(new_mode, after),
                odd,
            ));
        }
        Ok(changes)
    }
}
