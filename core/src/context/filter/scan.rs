//! Fast searches that give exactly the matches of a detector's regex
//! (`Regex::find_iter` / `captures_iter` over the whole text) without
//! running that regex over every byte.
//!
//! Two techniques, each tied to the exact pattern it was proven for
//! (`Search` in `rules`):
//!
//! - Direct scans, for patterns simple enough to match by hand: maximal
//!   runs of a byte class (`[A-Za-z0-9/+]{40,}`) and `[A-Za-z]{2}[0-9]{2}`.
//! - Line windows, for patterns whose matches never contain a line feed and
//!   use no `^`, `$`, `\A` or `\z`: the regex runs only on the lines a cheap
//!   scan says may hold a match, with the text cut at that line's end. A cut
//!   at a line feed changes nothing for such a pattern: a match ends before
//!   the line feed, and `(?-u:\b)` sees a non-word byte on both sides of the
//!   cut. Lines with no candidate hold no match (each candidate scan is a
//!   necessary condition), and matches within a line come in the same order
//!   as over the whole text.
//!
//! `tests::scan` checks each against the regex on generated text.

use regex::{Captures, Regex};

use super::Follow;

/// Byte ranges of matches, in order.
pub(super) type Ranges = Vec<(usize, usize)>;

/// The maximal runs of at least `min` bytes of `class`: exactly the matches
/// of `[class]{min,}` when `class` is a set of ASCII bytes (a leftmost match
/// starts where a long enough run starts and greedily takes the run).
///
/// A run of `min` bytes starting at `i` contains `i + min - 1`, so when that
/// byte is outside the class no run starts in `i..i + min` and the scan
/// skips ahead (text rarely has long runs, so most bytes are never read).
pub(super) fn class_runs(s: &str, class: &ByteClass, min: usize) -> Ranges {
    let mut out = Vec::new();
    push_class_runs(s.as_bytes(), class, min, 0, &mut out);
    out
}

/// Appends `class_runs` of `b` to `out`, each moved by `base` (`b` starts
/// at `base` in the text).
fn push_class_runs(b: &[u8], class: &ByteClass, min: usize, base: usize, out: &mut Ranges) {
    let min = min.max(1);
    // Invariant: `i == 0` or `b[i - 1]` is outside the class, so a run of
    // the class that reaches `i` starts at `i`.
    let mut i = 0;
    while i + min <= b.len() {
        let last = i + min - 1;
        if !class.has(b[last]) {
            i = last + 1;
            continue;
        }
        // The last byte outside the class in `i..last`, if any.
        if let Some(k) = b[i..last].iter().rposition(|&c| !class.has(c)) {
            i += k + 1;
            continue;
        }
        let start = i;
        let mut end = last + 1;
        while end < b.len() && class.has(b[end]) {
            end += 1;
        }
        out.push((base + start, base + end));
        i = end + 1;
    }
}

/// The maximal runs of at least `min` bytes of `class` that lie in the
/// ranges `outer` (in order): exactly `class_runs(s, class, min)` when
/// every such run of `s` lies in one of `outer` and the bytes just outside
/// each range are not in `class` (then a run of a range is a maximal run of
/// `s`). `token_runs` gives such ranges for both secret classes.
pub(super) fn runs_within(
    s: &str,
    outer: &[(usize, usize)],
    class: &ByteClass,
    min: usize,
) -> Ranges {
    let mut out = Vec::new();
    for &(a, z) in outer {
        if z - a >= min {
            push_class_runs(&s.as_bytes()[a..z], class, min, a, &mut out);
        }
    }
    out
}

/// The maximal runs of at least 27 bytes of `[A-Za-z0-9/+_-]`
/// (`classes.token`), the union of `base64` and `base64url`: every run of
/// 40 or more `base64` bytes (`AWS_SECRET_KEY`) and of 27 or more
/// `base64url` bytes (`dot_token_runs`) lies in one, and the bytes on
/// either side of one are in neither class. One skip-ahead scan of the text
/// serves both (`runs_within`), which then read only these runs.
pub(super) fn token_runs(s: &str, classes: &Classes) -> Ranges {
    class_runs(s, &classes.token, 27)
}

/// Candidates for the Discord bot token pattern (`DISCORD_BOT`): the
/// starts of the maximal runs of at least 27 bytes of `[A-Za-z0-9_-]`
/// (`runs`, from `class_runs` or `runs_within`) that follow a dot with
/// another dot eight bytes before the run (`.XXXXXX.` then the run). A
/// match's third part is such a run: 27 or more bytes of the class after
/// the second dot, which is not in the class.
pub(super) fn dot_token_runs(s: &str, runs: &[(usize, usize)]) -> Vec<usize> {
    let b = s.as_bytes();
    runs.iter()
        .map(|&(a, _)| a)
        .filter(|&a| a >= 8 && b[a - 1] == b'.' && b[a - 8] == b'.')
        .collect()
}

/// A set of bytes.
pub(super) struct ByteClass([bool; 256]);

impl ByteClass {
    pub(super) fn new(member: impl Fn(u8) -> bool) -> ByteClass {
        let mut c = [false; 256];
        for b in 0..=255u8 {
            c[usize::from(b)] = member(b);
        }
        ByteClass(c)
    }
    fn has(&self, b: u8) -> bool {
        self.0[usize::from(b)]
    }
}

/// The classes the scans use.
pub(super) struct Classes {
    /// `[A-Za-z0-9/+]`.
    pub(super) base64: ByteClass,
    /// `[A-Za-z0-9_-]` (base64url: the parts of a dotted token).
    pub(super) base64url: ByteClass,
    /// `[A-Za-z0-9/+_-]`: both of the above (`token_runs`).
    pub(super) token: ByteClass,
}

impl Classes {
    pub(super) fn new() -> Classes {
        Classes {
            base64: ByteClass::new(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'+'),
            base64url: ByteClass::new(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            token: ByteClass::new(|b| b.is_ascii_alphanumeric() || b"/+_-".contains(&b)),
        }
    }
}

/// Candidate positions for the digit detectors, from one pass over the
/// maximal runs of ASCII digits; each list is in increasing order.
#[derive(Default)]
pub(super) struct DigitScan {
    /// `[0-9]{3}[- ][0-9]{2}[- ][0-9]{4}` occurs here (a necessary
    /// condition of the SSN pattern).
    pub(super) ssn: Vec<usize>,
    /// `[0-9]{4}\.[0-9]{4}\.[0-9]{4}\.[0-9]` occurs here (the dotted card).
    pub(super) dotted: Vec<usize>,
    /// `[0-9]{3}\.[0-9]{2}\.[0-9]{4}` occurs here (the dotted SSN).
    pub(super) ssn_dot: Vec<usize>,
    /// `[0-9]{4}/[0-9]{4}/[0-9]{4}/[0-9]` occurs here (the slashed card).
    pub(super) slashed: Vec<usize>,
    /// A chain of digit runs joined by single spaces or dashes holding 13
    /// or more digits starts here (the separated card run).
    pub(super) card: Vec<usize>,
    /// Exactly the matches of `[A-Za-z]{2}[0-9]{2}` (they never overlap:
    /// a match is two letters then two digits, and no suffix of one is a
    /// prefix of another).
    pub(super) iban: Ranges,
}

fn digits_at(b: &[u8], at: usize, n: usize) -> bool {
    b.get(at..at + n)
        .is_some_and(|w| w.iter().all(u8::is_ascii_digit))
}

fn byte_in(b: &[u8], at: usize, set: &[u8]) -> bool {
    b.get(at).is_some_and(|c| set.contains(c))
}

/// Whether groups of `widths` digits follow `at`, each after one byte of
/// `seps` (`at` is that first byte).
fn groups_follow(b: &[u8], mut at: usize, seps: &[u8], widths: &[usize]) -> bool {
    for &w in widths {
        if !(byte_in(b, at, seps) && digits_at(b, at + 1, w)) {
            return false;
        }
        at += 1 + w;
    }
    true
}

/// One pass over the maximal runs of ASCII digits (found eight bytes at a
/// time): the SSN and dotted-card shapes that start with a run, the chains
/// of runs joined by single spaces or dashes (cards), and the IBAN starts.
pub(super) fn digit_scan(s: &str) -> DigitScan {
    let b = s.as_bytes();
    let mut out = DigitScan::default();
    // The current chain of digit runs joined by single spaces or dashes:
    // its start, digit count and the end of its last run.
    let (mut chain_start, mut chain_digits, mut chain_end) = (0usize, 0usize, usize::MAX);
    let mut chain_reported = false;
    let mut next = next_digit(b, 0);
    while let Some(a) = next {
        let mut z = a + 1;
        while z < b.len() && b[z].is_ascii_digit() {
            z += 1;
        }
        let len = z - a;
        // Each shape's first separator is the byte after the run: only the
        // shapes it can start are checked.
        match b.get(z) {
            // SSN shape, dashes or spaces in either place.
            Some(b'-' | b' ') if len >= 3 && groups_follow(b, z, b"- ", &[2, 4]) => {
                out.ssn.push(z - 3);
            }
            Some(b'.') => {
                if len >= 4 && groups_follow(b, z, b".", &[4, 4, 1]) {
                    out.dotted.push(z - 4);
                }
                if len >= 3 && groups_follow(b, z, b".", &[2, 4]) {
                    out.ssn_dot.push(z - 3);
                }
            }
            Some(b'/') if len >= 4 && groups_follow(b, z, b"/", &[4, 4, 1]) => {
                out.slashed.push(z - 4);
            }
            _ => {}
        }
        if len >= 2 && a >= 2 && b[a - 1].is_ascii_alphabetic() && b[a - 2].is_ascii_alphabetic() {
            out.iban.push((a - 2, a + 2));
        }
        // This run continues the chain when exactly one space or dash
        // separates it from the previous run.
        if chain_end != usize::MAX && a == chain_end + 1 && byte_in(b, chain_end, b" -") {
            chain_digits += len;
        } else {
            chain_start = a;
            chain_digits = len;
            chain_reported = false;
        }
        chain_end = z;
        if chain_digits >= 13 && !chain_reported {
            out.card.push(chain_start);
            chain_reported = true;
        }
        // `b[z]` is no digit; runs one byte apart (a timestamp's) are
        // common, so the byte after it is tried before the word scan.
        next = if b.get(z + 1).is_some_and(u8::is_ascii_digit) {
            Some(z + 1)
        } else {
            next_digit(b, z + 1)
        };
    }
    out
}

/// The first ASCII digit at or after `i`.
fn next_digit(b: &[u8], mut i: usize) -> Option<usize> {
    const fn lanes(n: u8) -> u64 {
        u64::from_le_bytes([n; 8])
    }
    while let Some(w) = b.get(i..i + 8) {
        let mut x = [0u8; 8];
        x.copy_from_slice(w);
        let x = u64::from_le_bytes(x);
        // Per byte, exactly: `x ^ 0x30` is below 10 (no carry crosses a
        // byte: the low seven bits plus 0x76 stay below 0x100).
        let y = x ^ lanes(0x30);
        let ten_or_more = ((y & lanes(0x7F)) + lanes(0x76)) & lanes(0x80);
        let digits = !(y | ten_or_more) & lanes(0x80);
        if digits != 0 {
            return Some(i + (digits.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(u8::is_ascii_digit)
        .map(|k| i + k)
}

/// The line of `s` holding byte `at`: (start, end), the end at its line
/// feed or the end of the text.
fn line_of(s: &str, at: usize) -> (usize, usize) {
    let start = s[..at].rfind('\n').map_or(0, |k| k + 1);
    (start, line_end(s, at))
}

fn line_end(s: &str, at: usize) -> usize {
    s[at..].find('\n').map_or(s.len(), |k| at + k)
}

/// Candidate lines closer than this many bytes share one search window
/// (one regex call instead of one per line; the lines between hold no
/// match start, so searching them changes nothing).
const WINDOW_GAP: usize = 256;

/// The next window of whole lines to search: the line of the first
/// candidate at or after `done`, extended over the lines of the candidates
/// that follow within `WINDOW_GAP` bytes. `k` indexes `candidates`.
fn next_window(
    s: &str,
    candidates: &[usize],
    k: &mut usize,
    done: usize,
) -> Option<(usize, usize)> {
    while candidates.get(*k).is_some_and(|&p| p < done) {
        *k += 1;
    }
    let p = *candidates.get(*k).filter(|&&p| p < s.len())?;
    let (start, mut end) = line_of(s, p);
    *k += 1;
    while let Some(&q) = candidates.get(*k) {
        if q >= s.len() || q > end + WINDOW_GAP {
            break;
        }
        if q > end {
            end = line_end(s, q);
        }
        *k += 1;
    }
    Some((start, end))
}

/// The matches of a line-local `re` (see the module comment) over `s`,
/// given positions such that every line holding a match holds one of them
/// (in increasing order).
pub(super) fn line_matches(re: &Regex, s: &str, candidates: &[usize]) -> Ranges {
    let mut out = Vec::new();
    // Everything before `done` has been searched.
    let (mut done, mut k) = (0, 0);
    while let Some((start, end)) = next_window(s, candidates, &mut k, done) {
        // Cut at the window's last line feed: no match runs past it.
        let hay = &s[..end];
        let mut at = start.max(done);
        while at <= end {
            let Some(m) = re.find_at(hay, at) else {
                break;
            };
            out.push((m.start(), m.end()));
            // These patterns never match the empty string; stepping one
            // byte past an empty match would still end the loop.
            at = if m.end() > m.start() {
                m.end()
            } else {
                m.end() + 1
            };
        }
        done = end + 1;
    }
    out
}

/// The captures of `re` over `s`, for a pattern whose every match contains
/// one of the positions in `candidates` on the line where the match starts
/// (a keyword of its name), and that is line-local except on lines holding
/// `"""` or `'''` (a triple-quoted value may run over lines); a window
/// holding one is searched with the rest of the text after it.
pub(super) fn keyword_line_captures<'s>(
    re: &Regex,
    s: &'s str,
    candidates: &[usize],
) -> Vec<Captures<'s>> {
    let mut out = Vec::new();
    let (mut done, mut k) = (0, 0);
    while let Some((start, end)) = next_window(s, candidates, &mut k, done) {
        let multiline = has_triple_quote(&s.as_bytes()[start..end]);
        let hay = if multiline { s } else { &s[..end] };
        let mut at = start.max(done);
        let mut last_end = end;
        while at <= end {
            let Some(c) = re.captures_at(hay, at) else {
                break;
            };
            let Some(m) = c.get(0) else {
                break;
            };
            at = if m.end() > m.start() {
                m.end()
            } else {
                m.end() + 1
            };
            last_end = last_end.max(at);
            out.push(c);
        }
        // A match found past this window (multi-line search) was the next
        // match of the whole text: searching resumes after it.
        done = (end + 1).max(last_end);
    }
    out
}

/// Whether `line` holds `"""` or `'''`. Three consecutive bytes always
/// cover one index that is 2 modulo 3, so only those are read first.
pub(super) fn has_triple_quote(line: &[u8]) -> bool {
    let mut i = 2;
    while let Some(&c) = line.get(i) {
        if (c == b'"' || c == b'\'')
            && (i - 2..=i).any(|k| line.get(k..k + 3) == Some(&[c, c, c][..]))
        {
            return true;
        }
        i += 3;
    }
    false
}

/// The starts of the keyword occurrences `hits` (in order) that may lie in
/// a match of a keyword-line detector whose matches are followed as
/// `follow` says (`keyword_may_match`), without repeats.
pub(super) fn keyword_starts_that_may_match(
    follow: Follow,
    s: &str,
    hits: &[(usize, usize)],
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(hits.len());
    let mut memo = RunMemo::default();
    for &(a, z) in hits {
        if out.last() != Some(&a) && keyword_may_match(follow, s, a, z, &mut memo) {
            out.push(a);
        }
    }
    out
}

/// The last name run read: from `from`, the run ends at `end`, and the
/// check after the run gave `verdict`. Keywords of one run share the run's
/// end, so a run of many keywords (or a long run of JSON name bytes, which
/// include the blank) is read once.
#[derive(Default)]
pub(super) struct RunMemo {
    run: Option<(usize, usize, bool)>,
}

/// `NAME_BYTES[c] & NAME`: `c` is a name byte, `[A-Za-z0-9_.-]`.
pub(super) const NAME: u8 = 1;
/// `NAME_BYTES[c] & NAME_OR_SPACE`: `c` is a name byte or a space (a JSON
/// key's name run).
pub(super) const NAME_OR_SPACE: u8 = 2;
/// Each byte's `NAME` and `NAME_OR_SPACE` bits (a table lookup per byte of
/// a name run, instead of a chain of range tests).
pub(super) const NAME_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-' {
            t[c] = NAME | NAME_OR_SPACE;
        } else if b == b' ' {
            t[c] = NAME_OR_SPACE;
        }
        c += 1;
    }
    t
};

/// Whether the keyword occurrence `start..end` of `s` may lie in a match of
/// a keyword-line detector whose matches are followed as `follow` says (a
/// necessary condition; `Follow::Any` accepts everything).
///
/// `ENV` and `JSON`: every match's name holds one of the detector's
/// keywords (letters only), and the name runs to the end of its run of
/// name bytes: what follows a name in the pattern (a quote, `]`, a blank,
/// `:`, `=`, `?`) is no name byte. So from the keyword's end the run is
/// read to its end and the pattern's next bytes are checked there. `URL`:
/// the keyword is the `://` after the scheme.
fn keyword_may_match(
    follow: Follow,
    s: &str,
    start: usize,
    end: usize,
    memo: &mut RunMemo,
) -> bool {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let blank = |c: Option<u8>| matches!(c, Some(b' ' | b'\t'));
    let run_end = |space: bool| -> (usize, Option<bool>) {
        if let Some((from, e, verdict)) = memo.run
            && from <= end
            && end <= e
        {
            return (e, Some(verdict));
        }
        let bit = if space { NAME_OR_SPACE } else { NAME };
        let rest = b.get(end..).unwrap_or_default();
        let n = rest
            .iter()
            .position(|&c| NAME_BYTES[usize::from(c)] & bit == 0)
            .unwrap_or(rest.len());
        (end + n, None)
    };
    match follow {
        Follow::Any => true,
        Follow::Env => {
            let (r, known) = run_end(false);
            if let Some(v) = known {
                return v;
            }
            let mut i = r;
            if matches!(at(i), Some(b'"' | b'\'')) {
                i += 1;
            }
            if at(i) == Some(b']') {
                i += 1;
            }
            while blank(at(i)) {
                i += 1;
            }
            let v = matches!(at(i), Some(b':' | b'=' | b'?'));
            memo.run = Some((end, r, v));
            v
        }
        Follow::Json => {
            let (r, known) = run_end(true);
            if let Some(v) = known {
                return v;
            }
            let mut i = r;
            let v = matches!(at(i), Some(b'"' | b'\'')) && {
                i += 1;
                while blank(at(i)) {
                    i += 1;
                }
                at(i) == Some(b':')
            };
            memo.run = Some((end, r, v));
            v
        }
        Follow::Url => {
            let ws = |c: u8| matches!(c, b'\t' | b'\n' | 0x0C | b'\r' | b' ');
            let mut i = end.max(start);
            while at(i).is_some_and(|c| !ws(c) && c != b'/' && c != b':') {
                i += 1;
            }
            if at(i) != Some(b':') {
                return false;
            }
            let mut j = i + 2;
            while let Some(c) = at(j) {
                if ws(c) {
                    return false;
                }
                if c == b'@' {
                    return true;
                }
                j += 1;
            }
            false
        }
    }
}
