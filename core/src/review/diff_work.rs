//! The bound on diff work (D-R130): how many lines git's line diff (xdiff)
//! may be asked to compare, per file and per check.
//!
//! Authored lines are counted exactly by git's numstat, whose cost on a
//! pathological pair (every line drawn from two values) grows faster than
//! the file: a 16 MiB file of one-byte lines costs minutes. The work is
//! bounded before any diff runs, by a rule every check applies the same
//! way:
//! - a file changed in place (a blob on each side) has the *diff lines*
//!   [`diff_lines`] gives: the lines of both sides that remain once their
//!   common leading and trailing lines are set aside, the part xdiff must
//!   actually compare (an edit at one place in a large lockfile has few);
//! - no file may have more than [`MAX_DIFF_LINES_PER_FILE`];
//! - one check (a `start`, one gate run: a server hook, a CI run, over
//!   every pair of trees it diffs) may not diff more than
//!   [`MAX_DIFF_LINES_PER_CHECK`] in all ([`DiffWork`]).
//!
//! A file added or deleted is not compared line by line and is not
//! counted. Lines never outnumber bytes, so sizes settle most files
//! without reading them.

/// The most diff lines ([`diff_lines`]) one file may have: git compares
/// two random 200,000-line files of `a` and `b` lines in about 1 s here
/// (docs/perf.md).
pub const MAX_DIFF_LINES_PER_FILE: u64 = 400_000;

/// The most diff lines one check may compare over every file of every
/// pair of trees it diffs: ten files at [`MAX_DIFF_LINES_PER_FILE`],
/// about 10 s at worst (docs/perf.md).
pub const MAX_DIFF_LINES_PER_CHECK: u64 = 4_000_000;

/// Lines in `bytes`: its newlines, and a last line without one.
fn lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'))
}

/// The diff lines of a file changed in place from `old` to `new`: the
/// lines of both sides once the lines they share at their start and at
/// their end are set aside (a line is shared whole, its newline with it).
pub fn diff_lines(old: &[u8], new: &[u8]) -> u64 {
    let (old_mid, new_mid) = middles(old, new);
    lines(old_mid) + lines(new_mid)
}

/// The middle parts of `old` and `new` ([`diff_lines`]).
fn middles<'a>(old: &'a [u8], new: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    let same = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    if same == old.len() && same == new.len() {
        return (&[], &[]);
    }
    // The shared leading lines end at the last newline both share.
    let lead = old[..same]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let (old, new) = (&old[lead..], &new[lead..]);
    let tail = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len())
        .min(new.len());
    // The shared trailing lines start at a line start on both sides: the
    // shared bytes' own start when a newline (or the middle's start)
    // precedes it on both, else just past the first newline they hold.
    let starts_line = |side: &[u8]| {
        let at = side.len() - tail;
        at == 0 || side[at - 1] == b'\n'
    };
    let tail = if starts_line(old) && starts_line(new) {
        tail
    } else {
        let shared = &old[old.len() - tail..];
        shared
            .iter()
            .position(|b| *b == b'\n')
            .map_or(0, |i| tail - (i + 1))
    };
    (&old[..old.len() - tail], &new[..new.len() - tail])
}

/// A check's diff over the bound ([`MAX_DIFF_LINES_PER_FILE`],
/// [`MAX_DIFF_LINES_PER_CHECK`]): refused before git diffs it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffTooLarge {
    /// One file has more diff lines than a file may.
    #[error(
        "{path} has {lines} diff lines (the lines of both sides between their common first and last lines), over the {limit}-line limit for one file (D-R130)"
    )]
    File {
        /// The file's path.
        path: String,
        /// Its diff lines.
        lines: u64,
        /// [`MAX_DIFF_LINES_PER_FILE`].
        limit: u64,
    },
    /// The check would diff more lines in all than a check may; `path` is
    /// the file of the diff that would pass the limit with the most lines.
    #[error(
        "diffing {path} and the rest of its change brings this check to {lines} diff lines, over the {limit}-line limit for one check (D-R130)"
    )]
    Check {
        /// The largest file of the diff refused.
        path: String,
        /// The check's diff lines with that diff.
        lines: u64,
        /// [`MAX_DIFF_LINES_PER_CHECK`].
        limit: u64,
    },
}

/// A file changed in place, as a check is about to diff it: its path, its
/// two sides' sizes in bytes, and how its adapter finds its bytes (`K`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InPlaceFile<K> {
    /// The file's path.
    pub path: String,
    /// The old side's size in bytes.
    pub old_size: u64,
    /// The new side's size in bytes.
    pub new_size: u64,
    /// What the counting function is given to read both sides.
    pub key: K,
}

/// What one check has diffed so far (see the module): the diff lines
/// counted, and the files only sized so far (their bytes bound their
/// lines), counted once the bound on bytes no longer proves the check
/// within its limit.
#[derive(Debug, Clone)]
pub struct DiffWork<K> {
    counted: u64,
    sized: Vec<(u64, K)>,
    sized_bytes: u64,
}

impl<K> Default for DiffWork<K> {
    fn default() -> Self {
        Self {
            counted: 0,
            sized: Vec::new(),
            sized_bytes: 0,
        }
    }
}

impl<K> DiffWork<K> {
    /// Charges the in-place files of one diff (one pair of trees) to the
    /// check: `Ok(Err(_))` when a file or the check would be over its
    /// limit, and then nothing of this diff is charged. `count` gives a
    /// file's [`diff_lines`] from its key; it is asked only for a file
    /// whose size could put it over [`MAX_DIFF_LINES_PER_FILE`], and for
    /// every file sized so far once the sizes could put the check over
    /// [`MAX_DIFF_LINES_PER_CHECK`]. The answer depends only on the files'
    /// contents and the order of the diffs.
    pub fn charge<E>(
        &mut self,
        files: Vec<InPlaceFile<K>>,
        mut count: impl FnMut(&K) -> Result<u64, E>,
    ) -> Result<Result<(), DiffTooLarge>, E> {
        let mut counted = 0u64;
        let mut sized: Vec<(u64, K, String)> = Vec::new();
        let mut largest: Option<(u64, String)> = None;
        for f in files {
            let bytes = f.old_size.saturating_add(f.new_size);
            if bytes <= MAX_DIFF_LINES_PER_FILE {
                sized.push((bytes, f.key, f.path));
                continue;
            }
            let lines = count(&f.key)?;
            if lines > MAX_DIFF_LINES_PER_FILE {
                return Ok(Err(DiffTooLarge::File {
                    path: f.path,
                    lines,
                    limit: MAX_DIFF_LINES_PER_FILE,
                }));
            }
            counted = counted.saturating_add(lines);
            if largest.as_ref().is_none_or(|(n, _)| lines > *n) {
                largest = Some((lines, f.path));
            }
        }
        let bytes: u64 = sized.iter().map(|(b, _, _)| *b).sum();
        let bound = self
            .counted
            .saturating_add(self.sized_bytes)
            .saturating_add(counted)
            .saturating_add(bytes);
        if bound <= MAX_DIFF_LINES_PER_CHECK {
            self.counted += counted;
            self.sized_bytes += bytes;
            self.sized.extend(sized.into_iter().map(|(b, k, _)| (b, k)));
            return Ok(Ok(()));
        }
        // The sizes no longer prove it: count every file sized so far
        // (what earlier diffs charged stays charged, counted now).
        for (_, key) in std::mem::take(&mut self.sized) {
            self.counted = self.counted.saturating_add(count(&key)?);
        }
        self.sized_bytes = 0;
        for (_, key, path) in &sized {
            let lines = count(key)?;
            counted = counted.saturating_add(lines);
            if largest.as_ref().is_none_or(|(n, _)| lines > *n) {
                largest = Some((lines, path.clone()));
            }
        }
        let total = self.counted.saturating_add(counted);
        if total > MAX_DIFF_LINES_PER_CHECK {
            return Ok(Err(DiffTooLarge::Check {
                path: largest.map(|(_, p)| p).unwrap_or_default(),
                lines: total,
                limit: MAX_DIFF_LINES_PER_CHECK,
            }));
        }
        self.counted = total;
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lines_are_the_lines_between_the_common_ends() {
        let cases: &[(&str, &str, u64)] = &[
            ("", "", 0),
            ("a\nb\n", "a\nb\n", 0),
            ("a\n", "a\nb\n", 1),
            ("a\nb\n", "b\n", 1),
            ("x\ny\nz\n", "x\nQ\nz\n", 2),
            ("x\ny\nz\n", "x\nQ\nR\nz\n", 3),
            // A last line without a newline is a line; shared whole only.
            ("x\na", "y\na", 2),
            ("a", "a\n", 2),
            ("a", "ab", 2),
            // Bytes shared across a line start are no shared line.
            ("ab\ncd\n", "xb\ncd\n", 2),
            ("ab\n", "ac\n", 2),
            ("a\nb\nc\n", "c\n", 2),
            ("a\na\n", "a\n", 1),
            ("", "a\nb\n", 2),
        ];
        for (old, new, n) in cases {
            assert_eq!(
                diff_lines(old.as_bytes(), new.as_bytes()),
                *n,
                "{old:?} -> {new:?}"
            );
            assert_eq!(diff_lines(new.as_bytes(), old.as_bytes()), *n);
        }
    }

    #[test]
    fn one_edit_in_a_large_file_is_a_few_diff_lines() {
        let old: String = (0..300_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replacen("line 150000\n", "line changed\n", 1);
        assert_eq!(diff_lines(old.as_bytes(), new.as_bytes()), 2);
    }

    fn file(path: &str, size: u64, lines: u64) -> InPlaceFile<u64> {
        InPlaceFile {
            path: path.into(),
            old_size: size / 2,
            new_size: size - size / 2,
            key: lines,
        }
    }

    #[test]
    fn a_file_over_its_limit_is_refused_by_name_and_nothing_is_charged() {
        let mut work = DiffWork::default();
        let mut asked = Vec::new();
        let mut count = |k: &u64| -> Result<u64, ()> {
            asked.push(*k);
            Ok(*k)
        };
        // Small in bytes: never read.
        assert_eq!(
            work.charge(vec![file("small", 1000, 10)], &mut count),
            Ok(Ok(()))
        );
        let big = MAX_DIFF_LINES_PER_FILE + 1;
        assert_eq!(
            work.charge(vec![file("big", 2 * big, big)], &mut count),
            Ok(Err(DiffTooLarge::File {
                path: "big".into(),
                lines: big,
                limit: MAX_DIFF_LINES_PER_FILE
            }))
        );
        // Large in bytes, few diff lines: counted, taken.
        assert_eq!(
            work.charge(vec![file("lock", 2 * big, 2)], &mut count),
            Ok(Ok(()))
        );
        assert_eq!(asked, vec![big, 2]);
        assert_eq!(work.counted, 2);
        assert_eq!(work.sized_bytes, 1000);
    }

    #[test]
    fn a_check_over_its_limit_refuses_the_diff_that_passes_it() {
        let mut work = DiffWork::default();
        let per = MAX_DIFF_LINES_PER_FILE;
        let count = |k: &u64| -> Result<u64, ()> { Ok(*k) };
        let n = MAX_DIFF_LINES_PER_CHECK / per;
        for i in 0..n {
            let f = file(&format!("f{i}"), 2 * per, per);
            assert_eq!(work.charge(vec![f], count), Ok(Ok(())), "{i}");
        }
        let over = work.charge(vec![file("a", 10, 1), file("last", 2 * per, 5)], count);
        assert_eq!(
            over,
            Ok(Err(DiffTooLarge::Check {
                path: "last".into(),
                lines: MAX_DIFF_LINES_PER_CHECK + 6,
                limit: MAX_DIFF_LINES_PER_CHECK
            }))
        );
        // Nothing of the refused diff was charged: an unchanged one passes.
        assert_eq!(work.charge(Vec::new(), count), Ok(Ok(())));
        assert_eq!(work.counted, MAX_DIFF_LINES_PER_CHECK);
    }

    #[test]
    fn sizes_are_counted_once_they_no_longer_prove_the_check_within() {
        let mut work = DiffWork::default();
        let mut asked = 0;
        let mut count = |k: &u64| -> Result<u64, ()> {
            asked += 1;
            Ok(*k)
        };
        // Many small files whose bytes add up past the check's limit but
        // whose diff lines do not.
        let files = MAX_DIFF_LINES_PER_CHECK / 100_000 + 1;
        for i in 0..files {
            let f = file(&format!("f{i}"), 100_000, 3);
            assert_eq!(work.charge(vec![f], &mut count), Ok(Ok(())));
        }
        assert_eq!(asked, files as usize);
        assert_eq!(work.counted, 3 * files);
    }
}
