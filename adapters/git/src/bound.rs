//! Core's bound on diff work (D-R130) applied before git diffs a pair of
//! trees: the files changed in place are sized through the object reader
//! (headers only), and only a file whose sizes could put it over the
//! bound, or every file once the sizes could put the run over it, is read
//! (through the same reader) and its diff lines counted; a blob the run
//! already read (a start's heads) is not asked again. Core decides;
//! this module only finds the sizes and the bytes. One [`DiffWork`] per
//! repository handle (a `start`, one hook or CI run), each pair of trees
//! charged once, its answer kept.

use std::collections::HashMap;

use probity_core::review::{
    DiffTooLarge, DiffWork, InPlaceFile, MAX_REVIEWED_FILE_BYTES, diff_lines,
};

use crate::Repo;
use crate::candidate::RawEntry;
use crate::cmd::GitError;

/// The run's diff work, each charged pair's answer, and the diff lines of
/// each pair of blobs counted (read once per run, however many pairs of
/// trees hold them).
#[derive(Debug, Default)]
pub(crate) struct Bound {
    work: DiffWork<(String, String)>,
    answers: HashMap<(String, String), Option<DiffTooLarge>>,
    counted: HashMap<(String, String), u64>,
}

/// What the bound says of a pair of trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charged {
    /// Within the bound: git may diff it.
    Within,
    /// A changed blob is over the reviewed-file size limit: not charged,
    /// and not to be diffed (the size check refuses it, `file_too_large`).
    Oversized,
}

impl Repo {
    /// Charges the pair `from` → `to` (its raw entries `raw`) to the run's
    /// diff work, once: [`GitError::DiffTooLarge`] when core's bound
    /// refuses it (then and on every later ask).
    pub(crate) fn charge_diff(
        &self,
        from: &str,
        to: &str,
        raw: &[RawEntry],
    ) -> Result<Charged, GitError> {
        self.charge_diff_read(from, to, raw, &Read::new())
    }

    /// [`Repo::charge_diff`] where `read` holds blobs already read this
    /// run (a start's heads, [`crate::candidate`]): their sizes and whole
    /// contents are taken from it, the same answers the object reader
    /// gives, and only the others are asked of git.
    pub(crate) fn charge_diff_read(
        &self,
        from: &str,
        to: &str,
        raw: &[RawEntry],
        read: &Read<'_>,
    ) -> Result<Charged, GitError> {
        let key = (from.to_string(), to.to_string());
        let mut bound = self
            .shared()
            .diff_bound
            .lock()
            .map_err(|_| parse("diff bound poisoned"))?;
        if let Some(answer) = bound.answers.get(&key) {
            return match answer {
                Some(e) => Err(GitError::DiffTooLarge(e.clone())),
                None => Ok(Charged::Within),
            };
        }
        let in_place: Vec<(&RawEntry, &str, &str)> = raw
            .iter()
            .filter_map(|e| {
                Some((
                    e,
                    e.old_blob.as_ref()?.as_str(),
                    e.new_blob.as_ref()?.as_str(),
                ))
            })
            .collect();
        let ids: Vec<&str> = in_place.iter().flat_map(|(_, o, n)| [*o, *n]).collect();
        let sizes = self.sizes_read(&ids, read)?;
        if sizes.iter().any(|s| *s > MAX_REVIEWED_FILE_BYTES) {
            return Ok(Charged::Oversized);
        }
        let files: Vec<InPlaceFile<(String, String)>> = in_place
            .iter()
            .zip(sizes.chunks(2))
            .map(|((e, o, n), s)| InPlaceFile {
                path: e.path.to_string(),
                old_size: s.first().copied().unwrap_or(0),
                new_size: s.get(1).copied().unwrap_or(0),
                key: (o.to_string(), n.to_string()),
            })
            .collect();
        let Bound {
            work,
            answers,
            counted,
        } = &mut *bound;
        let answer = work
            .charge(files, |blobs| match counted.get(blobs) {
                Some(n) => Ok::<u64, GitError>(*n),
                None => {
                    let n = self.diff_lines_of(&blobs.0, &blobs.1, read)?;
                    counted.insert(blobs.clone(), n);
                    Ok(n)
                }
            })?
            .err();
        answers.insert(key, answer.clone());
        match answer {
            Some(e) => Err(GitError::DiffTooLarge(e)),
            None => Ok(Charged::Within),
        }
    }

    /// Core's diff lines of two blobs, both read whole through the object
    /// reader (each within the reviewed-file size limit, sized before).
    fn diff_lines_of(&self, old: &str, new: &str, read: &Read<'_>) -> Result<u64, GitError> {
        if let (Some((_, Some(a))), Some((_, Some(b)))) = (read.get(old), read.get(new)) {
            return Ok(diff_lines(a, b));
        }
        let cap = usize::try_from(MAX_REVIEWED_FILE_BYTES).unwrap_or(usize::MAX);
        let heads = self.object_heads(&[old, new], cap)?;
        match &heads[..] {
            [(a, true), (b, true)] => Ok(diff_lines(a, b)),
            _ => Err(parse("a blob over the reviewed-file size limit")),
        }
    }
}

/// Blobs already read by id: the size, and the whole content when it was
/// read whole.
pub(crate) type Read<'a> = HashMap<&'a str, (u64, Option<&'a [u8]>)>;

impl Repo {
    /// The sizes of `ids`: from `read` where it holds them, the others
    /// from one batch of the object reader (headers only), in order.
    fn sizes_read(&self, ids: &[&str], read: &Read<'_>) -> Result<Vec<u64>, GitError> {
        let ask: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| !read.contains_key(id))
            .collect();
        let mut asked = self.object_sizes(&ask)?.into_iter();
        ids.iter()
            .map(|id| match read.get(id) {
                Some((size, _)) => Ok(*size),
                None => asked.next().ok_or_else(|| parse("fewer sizes than asked")),
            })
            .collect()
    }
}

fn parse(detail: &str) -> GitError {
    GitError::Parse {
        args: "cat-file --batch-command".into(),
        detail: detail.into(),
    }
}
