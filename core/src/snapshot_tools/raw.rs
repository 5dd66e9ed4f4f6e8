//! What a subject adapter returns, before shaping, and how it fails.

use super::path::{PathRefusal, quote_name};

/// A path as an error names it: on one line, quoted when not plain.
fn q(path: &str) -> std::borrow::Cow<'_, str> {
    quote_name(path, &[])
}

/// The most bytes a subject adapter loads for one `read`; a larger file is
/// refused with its size (its lines could not be paged without loading it).
pub const READ_MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// What a `read` found at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawRead {
    /// A regular file's bytes.
    File(Vec<u8>),
    /// A symbolic link: its target, never followed.
    Symlink {
        /// The link's target as stored (blob bytes or `readlink`), not
        /// resolved or checked.
        target: Vec<u8>,
    },
    /// A submodule (gitlink) entry: only its commit is in the snapshot.
    Submodule {
        /// The gitlink's commit id, as hex.
        commit: String,
    },
}

/// One `grep` match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepHit {
    /// The matching file, repo-relative, as raw (possibly non-UTF-8) bytes.
    pub path: Vec<u8>,
    /// 1-based line number.
    pub line: u64,
    /// The matching line without its line feed, at most
    /// [`GREP_KEEP_LINE_BYTES`] of it ([`kept_line`]).
    pub text: Vec<u8>,
}

/// `grep` matches in path order; `more` when the adapter stopped early.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawGrep {
    /// The matches, in path order then line order, at most the `max_hits`
    /// the caller asked for.
    pub hits: Vec<GrepHit>,
    /// True when there were more matches than `max_hits` (or a walk was cut
    /// short): the shaper says the result is truncated.
    pub more: bool,
    /// Files not searched because they are larger than
    /// [`GREP_MAX_FILE_BYTES`] (as `read` refuses them), in path order.
    pub skipped: Vec<Vec<u8>>,
}

/// Files larger than this are not searched: one budgeted call never scans
/// more of a file than `read` would return.
pub const GREP_MAX_FILE_BYTES: u64 = READ_MAX_FILE_BYTES;

/// At most this many bytes of one matching line are shown by the shaper
/// (`shape` re-exports it; it is defined here, below the shaper, so the
/// subjects' bound can be derived from it without a cycle).
pub const GREP_MAX_LINE_BYTES: usize = 400;

/// At most this many leading bytes of one matching line are kept by a
/// subject (the shaper shows at most [`GREP_MAX_LINE_BYTES`] of them): a
/// one-line file of any size costs a bounded amount of memory.
pub const GREP_KEEP_LINE_BYTES: usize = 4 * GREP_MAX_LINE_BYTES;

/// The kept part of a matching line: at most [`GREP_KEEP_LINE_BYTES`],
/// cut before a UTF-8 continuation byte so a cut never invents a decoding
/// error.
pub fn kept_line(line: &[u8]) -> &[u8] {
    if line.len() <= GREP_KEEP_LINE_BYTES {
        return line;
    }
    let mut end = GREP_KEEP_LINE_BYTES;
    while end > GREP_KEEP_LINE_BYTES - 3 && line[end] & 0b1100_0000 == 0b1000_0000 {
        end -= 1;
    }
    &line[..end]
}

/// What a listed path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (executable or not).
    File,
    /// A symbolic link, listed but never followed.
    Symlink,
    /// A submodule (gitlink): its files are not in the snapshot.
    Submodule,
}

/// One path of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListEntry {
    /// Repo-relative, `/`-separated, as raw (possibly non-UTF-8) bytes.
    pub path: Vec<u8>,
    /// What the entry is; `list` marks links and submodules.
    pub kind: EntryKind,
}

/// Why a subject could not answer. Rendered as the tool result (fail-open,
/// S2.4); never a crash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectError {
    /// The subject holds nothing at the path: untracked (S1.3), deleted in
    /// the working tree, unmerged, absent from the frozen tree or the disk.
    #[error("{}: not in the snapshot ({why})", q(.path))]
    NotInSnapshot {
        /// The path asked for, repo-relative and lossy.
        path: String,
        /// Why it is absent, for the reviewer (`untracked; only tracked
        /// files are in the snapshot`, `not in tree <oid>`).
        why: String,
    },
    /// The path was refused before or while resolving it (S1.4).
    #[error("{0}")]
    Refused(#[from] PathRefusal),
    /// `read` named a directory; carries the path, repo-relative and lossy.
    #[error("{}: is a directory; use `list` with a glob such as `{}/*`", q(.0), .0.escape_debug())]
    IsDirectory(String),
    /// `read` named something that is not a regular file (a FIFO, socket or
    /// device), which is never opened.
    #[error("{}: not a regular file ({what})", q(.path))]
    NotAFile {
        /// The path asked for, repo-relative and lossy.
        path: String,
        /// What it is instead, for the reviewer.
        what: String,
    },
    /// The file is larger than [`READ_MAX_FILE_BYTES`], so it is neither
    /// loaded nor searched.
    #[error("{}: the file is {size} bytes; larger than the {max} bytes a read will load", q(.path))]
    TooLarge {
        /// The path asked for, repo-relative and lossy.
        path: String,
        /// The file's size in bytes.
        size: u64,
        /// The ceiling it passed, in bytes ([`READ_MAX_FILE_BYTES`]).
        max: u64,
    },
    /// Git or the file system failed (a command, an I/O error, unexpected
    /// output) or the subject is unavailable; carries the cause.
    #[error("the snapshot could not be read: {0}")]
    Backend(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_lines_are_bounded_and_cut_on_a_character_boundary() {
        assert_eq!(kept_line(b"short"), b"short");
        let long = vec![b'a'; 10 * GREP_KEEP_LINE_BYTES];
        assert_eq!(kept_line(&long).len(), GREP_KEEP_LINE_BYTES);
        // A three-byte character straddling the cut is dropped whole.
        let mut s = vec![b'a'; GREP_KEEP_LINE_BYTES - 1];
        s.extend_from_slice("€€".as_bytes());
        let k = kept_line(&s);
        assert_eq!(k.len(), GREP_KEEP_LINE_BYTES - 1);
        assert!(std::str::from_utf8(k).is_ok());
    }
}
