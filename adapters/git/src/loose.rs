//! Blobs read in-process from loose objects when that is certainly git's
//! answer (issue 24): a new `start` reads the heads of every changed blob,
//! both sides, and the new side's are loose objects `git add` just wrote.
//! `git cat-file` opens a loose object once for its header and again for
//! its content; here it is opened once, read whole, inflated and hashed,
//! on every core.
//!
//! A blob is answered here only when all of this holds, and git's object
//! reader ([`crate::objects`]) is asked otherwise, as before:
//!
//! - the repository's object format is known (`sha1` or `sha256`) and the
//!   id is a full lower-case hex id of it;
//! - `objects/<2 hex>/<rest>` of the repository's own object directory is
//!   a regular file (never a link, a FIFO or a device) no larger than a
//!   compressed object of [`crate::candidate::CONTENT_CAP`] bytes can be;
//! - it is one zlib stream, ended, with nothing after it, that inflates to
//!   `blob <size>\0` in git's canonical form (no leading zero) and exactly
//!   `size` bytes, `size` at most the cap asked: an object the reader
//!   would only give the head of is git's to answer;
//! - those bytes hash to the id (SHA-1 with collision detection, as git's
//!   own, or SHA-256).
//!
//! - no pack index of these object directories lists the id, no
//!   multi-pack index is there, and there is no alternate store: git
//!   looks in every pack before any loose object and never hashes what it
//!   reads, so a pack's copy (even a bogus one) is what git would print
//!   (D-R155's review).
//!
//! The hash makes the answer the object's bytes; the last condition makes
//! it the copy git reads. A loose file that is corrupt, truncated or not
//! the object its name says is left to git, which decides what it is.
//! The tests compare every answer with `git cat-file`'s.

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use flate2::{Decompress, FlushDecompress, Status};

use crate::Repo;

/// The hash of an object format, by its id's length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Sha1,
    Sha256,
}

impl Format {
    fn of(name: &str) -> Option<Self> {
        match name {
            "sha1" => Some(Self::Sha1),
            "sha256" => Some(Self::Sha256),
            _ => None,
        }
    }

    fn hex_len(self) -> usize {
        match self {
            Self::Sha1 => 40,
            Self::Sha256 => 64,
        }
    }

    /// An id's length in bytes.
    pub(crate) fn hash_len(self) -> usize {
        self.hex_len() / 2
    }

    /// The object's id; `None` when SHA-1's collision detection fires
    /// (git refuses such an object: git decides).
    pub(crate) fn id_of(self, object: &[u8]) -> Option<Vec<u8>> {
        let raw = match self {
            Self::Sha256 => {
                use sha2::Digest as _;
                sha2::Sha256::digest(object).to_vec()
            }
            Self::Sha1 => {
                let mut h = sha1_checked::Sha1::new();
                sha1_checked::digest::Update::update(&mut h, object);
                let result = h.try_finalize();
                if result.has_collision() {
                    return None;
                }
                result.hash().to_vec()
            }
        };
        Some(raw)
    }
}

/// Fewer ids than this are read on one thread.
const PER_THREAD: usize = 64;

/// The whole content of each of `ids` that is a loose blob of at most
/// `cap` bytes in `objects` (see the module); `None` for every other (a
/// reader thread that panicked answers nothing: git is asked for its
/// part).
fn read_all(objects: &Path, format: Format, ids: &[&str], cap: usize) -> Vec<Option<Vec<u8>>> {
    crate::par::map_parts(ids, PER_THREAD, |part| {
        // One inflater per thread, reset for each object (a new one is
        // tens of KiB to allocate and clear).
        let mut z = Decompress::new(true);
        part.iter()
            .map(|id| loose_blob(objects, format, id, cap, &mut z))
            .collect()
    })
    .into_iter()
    .map(Option::flatten)
    .collect()
}

/// The path of a loose object and the id's bytes, when `id` is a full
/// lower-case hex id.
fn loose_path(objects: &Path, format: Format, id: &str) -> Option<(PathBuf, Vec<u8>)> {
    let raw = raw_id(format, id)?;
    Some((objects.join(&id[..2]).join(&id[2..]), raw))
}

/// The bytes of `id`, when it is a full lower-case hex id of `format`.
pub(crate) fn raw_id(format: Format, id: &str) -> Option<Vec<u8>> {
    if id.len() != format.hex_len() {
        return None;
    }
    let nibble = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    id.as_bytes()
        .chunks(2)
        .map(|pair| Some(nibble(pair[0])? << 4 | nibble(*pair.get(1)?)?))
        .collect::<Option<Vec<u8>>>()
}

/// The largest loose file read for `cap` bytes of content: deflate's
/// stored blocks add 5 bytes per 65,535, zlib 6 bytes, and the header at
/// most 32.
fn max_file_len(cap: usize) -> u64 {
    (cap as u64)
        .saturating_add(cap as u64 / 8_192)
        .saturating_add(1_024)
}

/// One loose blob's content (see the module); `None` to ask git.
fn loose_blob(
    objects: &Path,
    format: Format,
    id: &str,
    cap: usize,
    z: &mut Decompress,
) -> Option<Vec<u8>> {
    let (path, raw_id) = loose_path(objects, format, id)?;
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > max_file_len(cap) {
        return None;
    }
    let mut file = File::open(&path).ok()?;
    // Read at most one byte more than the file was: one that grew is
    // left to git.
    let mut compressed = Vec::with_capacity(usize::try_from(meta.len()).ok()? + 1);
    (&mut file)
        .take(meta.len().saturating_add(1))
        .read_to_end(&mut compressed)
        .ok()?;
    if compressed.len() as u64 != meta.len() {
        return None;
    }
    let object = inflate_blob(&compressed, cap, z)?;
    if format.id_of(&object)? != raw_id {
        return None;
    }
    let nul = object.iter().position(|b| *b == 0)?;
    Some(object[nul + 1..].to_vec())
}

/// The inflated object (`blob <size>\0` and its content) of a loose file,
/// when it is one whole zlib stream with nothing after it, its header is
/// a blob's in git's canonical form and its content `size` bytes, at most
/// `cap`; `None` otherwise.
fn inflate_blob(compressed: &[u8], cap: usize, z: &mut Decompress) -> Option<Vec<u8>> {
    // `blob ` and at most 20 digits and the NUL.
    const HEADER_MAX: usize = 32;
    z.reset(true);
    let mut object = Vec::with_capacity(HEADER_MAX);
    let status = z
        .decompress_vec(compressed, &mut object, FlushDecompress::None)
        .ok()?;
    let nul = object.iter().position(|b| *b == 0)?;
    let size = canonical_blob_size(&object[..nul])?;
    if size > cap {
        return None;
    }
    let total = nul + 1 + size;
    if status != Status::StreamEnd {
        // Room for one byte more than the header says: a longer stream
        // fills it and does not end, and is refused.
        object.reserve_exact((total + 1).saturating_sub(object.len()));
        inflate_to_end(compressed, &mut object, total, z)?;
    }
    (usize::try_from(z.total_in()).ok()? == compressed.len() && object.len() == total)
        .then_some(object)
}

/// Inflates the rest of `compressed` (what `z` has not taken yet) into
/// `out`'s spare room until the zlib stream ends: `None` when `out` grows
/// past `limit` bytes or the inflater stops moving first. The inflater
/// hands out what it holds a window at a time, so it is called until the
/// stream ends, the room is full or nothing moves.
pub(crate) fn inflate_to_end(
    compressed: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    z: &mut Decompress,
) -> Option<()> {
    loop {
        let (was_in, was_out) = (z.total_in(), z.total_out());
        let consumed = usize::try_from(was_in).ok()?;
        let status = z
            .decompress_vec(compressed.get(consumed..)?, out, FlushDecompress::Finish)
            .ok()?;
        if status == Status::StreamEnd {
            return Some(());
        }
        if out.len() > limit || (z.total_in(), z.total_out()) == (was_in, was_out) {
            return None;
        }
    }
}

/// The size in a loose blob's header (`blob <size>`), when it is written
/// as git writes it: decimal, no sign, no leading zero.
fn canonical_blob_size(header: &[u8]) -> Option<usize> {
    let digits = header.strip_prefix(b"blob ")?;
    if digits.is_empty()
        || digits.len() > 19
        || !digits.iter().all(u8::is_ascii_digit)
        || (digits.len() > 1 && digits[0] == b'0')
    {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

impl Repo {
    /// The whole content of each of `ids` read in-process when it is a
    /// loose blob of at most `cap` bytes and certainly git's answer (see
    /// the module); `None` for every other, which git's object reader is
    /// asked for. Nothing is read when the object format is not yet known
    /// (it is not asked for here: that would start a git).
    /// Those read ahead while git wrote the patch ([`crate::ahead`]) are
    /// taken, not read again.
    pub(crate) fn loose_blobs(&self, ids: &[&str], cap: usize) -> Vec<Option<Vec<u8>>> {
        let mut found = self.take_ahead(ids, cap);
        let rest: Vec<usize> = (0..ids.len()).filter(|i| found[*i].is_none()).collect();
        if !rest.is_empty() {
            let asked: Vec<&str> = rest.iter().map(|i| ids[*i]).collect();
            let objects = [self.common_dir().join("objects")];
            for (i, got) in rest
                .into_iter()
                .zip(self.loose_blobs_in(&objects, &asked, cap))
            {
                found[i] = got;
            }
        }
        found
    }

    /// The object format, when already known (never asked here: that
    /// would start a git).
    pub(crate) fn known_format(&self) -> Option<Format> {
        self.shared()
            .object_format
            .lock()
            .ok()
            .and_then(|f| f.as_deref().and_then(Format::of))
    }

    /// [`Repo::loose_blobs`] from the object directories `dirs` (each
    /// blob from the first that holds it as [`crate::loose`] requires),
    /// nothing taken from what was read ahead.
    pub(crate) fn loose_blobs_in(
        &self,
        dirs: &[PathBuf],
        ids: &[&str],
        cap: usize,
    ) -> Vec<Option<Vec<u8>>> {
        let mut found: Vec<Option<Vec<u8>>> = ids.iter().map(|_| None).collect();
        let Some(format) = self.known_format() else {
            return found;
        };
        // git looks in every pack (its alternates' too) before any loose
        // object and never hashes what it reads: a loose blob is answered
        // only when no pack lists it and there is no alternate store.
        if ids.is_empty()
            || dirs
                .iter()
                .any(|d| d.join("info").join("alternates").exists())
        {
            return found;
        }
        let Some(listed) = self.listed_in(dirs, format, ids.len()) else {
            return found;
        };
        let unlisted: Vec<bool> = ids
            .iter()
            .map(|id| raw_id(format, id).is_some_and(|raw| !listed.iter().any(|l| l.has(&raw))))
            .collect();
        for dir in dirs {
            let rest: Vec<usize> = (0..ids.len())
                .filter(|i| found[*i].is_none() && unlisted[*i])
                .collect();
            if rest.is_empty() {
                break;
            }
            let asked: Vec<&str> = rest.iter().map(|i| ids[*i]).collect();
            for (i, got) in rest.into_iter().zip(read_all(dir, format, &asked, cap)) {
                found[i] = got;
            }
        }
        found
    }

    /// [`Repo::object_heads_sized`] with the loose blobs read in-process
    /// ([`Repo::loose_blobs`]) and only the others asked of git's reader,
    /// in one batch; the same answers, in the order of `ids`.
    pub(crate) fn blob_heads_sized(
        &self,
        ids: &[&str],
        cap: usize,
    ) -> Result<Vec<(u64, Vec<u8>, bool)>, crate::GitError> {
        let mut found = self.loose_blobs(ids, cap);
        self.fill_from_packs(ids, &mut found, cap);
        self.heads_with(ids, found, cap)
    }

    /// The heads of `ids` where `found` (in the order of `ids`) holds what
    /// was read in-process and git's reader is asked for the rest.
    pub(crate) fn heads_with(
        &self,
        ids: &[&str],
        found: Vec<Option<Vec<u8>>>,
        cap: usize,
    ) -> Result<Vec<(u64, Vec<u8>, bool)>, crate::GitError> {
        let ask: Vec<&str> = ids
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(id, _)| *id)
            .collect();
        let mut asked = self.object_heads_sized(&ask, cap)?.into_iter();
        found
            .into_iter()
            .map(|f| match f {
                Some(bytes) => Ok((bytes.len() as u64, bytes, true)),
                None => asked.next().ok_or_else(|| crate::GitError::Parse {
                    args: "cat-file --batch-command".into(),
                    detail: "fewer objects than asked".into(),
                }),
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "loose_tests.rs"]
mod tests;
