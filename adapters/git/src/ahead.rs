//! A start's changed blobs read while git writes the frozen patch
//! (issue 24).
//!
//! `start`'s one diff ([`crate::onediff`]) prints its raw entries first
//! and then spends most of its time on the patch, on one core. The blobs
//! the observation reads next ([`crate::candidate`]'s heads: every changed
//! blob, both sides, up to [`CONTENT_CAP`]) are named by those entries, so
//! they are read on another thread as soon as the raw section is complete,
//! in the same way they would be read afterwards:
//!
//! - in-process where that is certainly git's answer: packed blobs
//!   ([`crate::packed`], looked for first) and loose ones
//!   ([`crate::loose`]) from the start's quarantine and the repository's
//!   objects; kept here, up to [`AHEAD_BYTES`], for [`Repo::loose_blobs`]
//!   to take;
//! - the others of the sides already in the store (the base side of a
//!   start from the work tree; both sides of a commit) through git's
//!   object reader: their sizes first and, when none is over
//!   [`MAX_REVIEWED_FILE_BYTES`], their heads, which the reader keeps
//!   ([`crate::objects`]'s memo) for the same questions asked again.
//!
//! Nothing is decided here: every limit is checked afterwards, in the same
//! order, on the same answers (a read ahead is an answer already known,
//! never a different one), and an error here is dropped (the same question
//! asked afterwards answers it). Blobs only in the quarantine are never
//! asked of the reader, which does not see it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use probity_core::review::MAX_REVIEWED_FILE_BYTES;

use crate::Repo;
use crate::candidate::CONTENT_CAP;

/// The most content kept ahead; past it the rest is read afterwards.
pub(crate) const AHEAD_BYTES: usize = 64 * 1024 * 1024;

/// Fewer blobs than this are not read ahead (a thread costs more than it
/// saves).
pub(crate) const AHEAD_MIN_BLOBS: usize = 64;

/// Blobs read ahead: each id's whole content, read with `cap`.
#[derive(Debug, Default)]
pub(crate) struct Ahead {
    cap: usize,
    blobs: BTreeMap<String, Vec<u8>>,
}

/// The blob ids of a `-z --raw --no-abbrev` listing: `(old side, new
/// side)`, a side's id only where its mode is a file's or a link's and the
/// id is not the null id.
pub(crate) fn raw_blobs(raw: &[u8]) -> (Vec<String>, Vec<String>) {
    let (mut old, mut new) = (Vec::new(), Vec::new());
    let mut fields = raw.split(|b| *b == 0);
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        if fields.next().is_none() {
            break;
        }
        let Ok(meta) = std::str::from_utf8(meta) else {
            continue;
        };
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_id, new_id, ..] = parts[..] else {
            continue;
        };
        let blob = |mode: &str, id: &str| {
            matches!(mode, "100644" | "100755" | "120000") && id.bytes().any(|b| b != b'0')
        };
        if blob(old_mode, old_id) {
            old.push(old_id.to_string());
        }
        if blob(new_mode, new_id) {
            new.push(new_id.to_string());
        }
    }
    (old, new)
}

impl Repo {
    /// Reads ahead the blobs of `raw` (see the module): `quarantine` is a
    /// start's object quarantine, whose blobs (the new side's) are read
    /// in-process only; without one, both sides are in the store.
    pub(crate) fn read_ahead(&self, raw: &[u8], quarantine: Option<&Path>) {
        let (old, new) = raw_blobs(raw);
        if old.len() + new.len() < AHEAD_MIN_BLOBS {
            return;
        }
        let ids: Vec<&str> = old.iter().chain(&new).map(String::as_str).collect();
        let mut dirs: Vec<PathBuf> = quarantine.map(Path::to_path_buf).into_iter().collect();
        dirs.push(self.common_dir().join("objects"));
        // The packs first: a packed blob is found in memory, where looking
        // for it among the loose objects of two directories is two failed
        // path lookups each.
        let mut found: Vec<Option<Vec<u8>>> = ids.iter().map(|_| None).collect();
        self.fill_from_packs(&ids, &mut found, CONTENT_CAP);
        let left: Vec<usize> = (0..ids.len()).filter(|i| found[*i].is_none()).collect();
        let asked: Vec<&str> = left.iter().map(|i| ids[*i]).collect();
        for (i, got) in left
            .into_iter()
            .zip(self.loose_blobs_in(&dirs, &asked, CONTENT_CAP))
        {
            found[i] = got;
        }
        // The reader's questions, as the observation asks them: of the
        // sides in the store (a start's new side is in the quarantine,
        // which the reader does not see), the sizes of those not read
        // here (of all, for a commit, whose sizes are asked first) and,
        // when none is over the limit, their heads.
        let in_store = if quarantine.is_some() {
            old.len()
        } else {
            ids.len()
        };
        let unread: Vec<&str> = ids[..in_store]
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(id, _)| *id)
            .collect();
        let sized: Vec<&str> = if quarantine.is_some() {
            unread.clone()
        } else {
            ids.clone()
        };
        let mut ahead = Ahead {
            cap: CONTENT_CAP,
            blobs: BTreeMap::new(),
        };
        let mut bytes = 0usize;
        for (id, f) in ids.iter().zip(found) {
            if let Some(content) = f
                && bytes.saturating_add(content.len()) <= AHEAD_BYTES
            {
                bytes += content.len();
                ahead.blobs.insert((*id).to_string(), content);
            }
        }
        if let Ok(mut a) = self.shared().ahead.lock() {
            *a = Some(ahead);
        }
        self.ask_ahead(&sized, &unread);
    }

    /// The sizes of `sized`, then, when none is over the limit, the heads
    /// of `heads`, asked of git's reader (which keeps the answers); an
    /// error is left for the same question asked afterwards.
    fn ask_ahead(&self, sized: &[&str], heads: &[&str]) {
        if sized.is_empty() {
            return;
        }
        let Ok(sizes) = self.object_sizes(sized) else {
            return;
        };
        if sizes.iter().any(|s| *s > MAX_REVIEWED_FILE_BYTES) || heads.is_empty() {
            return;
        }
        let _ = self.object_heads_sized(heads, CONTENT_CAP);
    }

    /// The contents read ahead for `ids` with `cap` (the same cap), taken:
    /// `None` where none was; the rest of what was read ahead is dropped.
    pub(crate) fn take_ahead(&self, ids: &[&str], cap: usize) -> Vec<Option<Vec<u8>>> {
        let ahead = self.shared().ahead.lock().ok().and_then(|mut a| a.take());
        match ahead {
            Some(mut a) if a.cap == cap => ids.iter().map(|id| a.blobs.remove(*id)).collect(),
            _ => ids.iter().map(|_| None).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_blobs_names_each_side_a_file_or_link_has() {
        let z = "0".repeat(40);
        let (a, b, c) = ("a".repeat(40), "b".repeat(40), "c".repeat(40));
        let raw = format!(
            ":100644 100644 {a} {b} M\0f.rs\0\
             :000000 100755 {z} {c} A\0new.sh\0\
             :120000 000000 {a} {z} D\0link\0\
             :160000 160000 {a} {b} M\0sub\0\
             :100644 160000 {c} {b} T\0became-sub\0"
        );
        let (old, new) = raw_blobs(raw.as_bytes());
        assert_eq!(old, vec![a.clone(), a.clone(), c.clone()]);
        assert_eq!(new, vec![b.clone(), c.clone()]);
        // A truncated listing stops at the entry without its path.
        let (old, new) = raw_blobs(format!(":100644 100644 {a} {b} M").as_bytes());
        assert!(old.is_empty() && new.is_empty());
    }
}
