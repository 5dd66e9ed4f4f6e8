//! Unicode safety: the floor classes, NUL, terminal escapes, controls,
//! other `Cf`, NFKC.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use super::*;

/// `Cf` (format) characters of Unicode 18.0.0 (`DerivedGeneralCategory`,
/// 21 ranges, 170 code points; the same set since 16.0), the version the
/// NFKC tables are pinned to ([`NFKC_UNICODE_VERSION`]): one Unicode
/// version for this filter version.
pub(super) const CF_RANGES: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

pub(super) fn is_cf(c: u32) -> bool {
    if c < 0xAD {
        return false;
    }
    CF_RANGES.iter().any(|&(a, b)| (a..=b).contains(&c))
}

/// The finding code for a character the Unicode stage removes, if any.
pub(super) fn removed_class(c: char) -> Option<&'static str> {
    let u = c as u32;
    Some(match u {
        0x0000 => "unicode.nul",
        0x0009 | 0x000A => return None,
        0x0001..=0x001F | 0x007F | 0x0080..=0x009F => "unicode.control",
        0xE0000..=0xE007F => "unicode.tag",
        0x200B..=0x200D | 0xFEFF => "unicode.zero_width",
        0x202A..=0x202E | 0x2066..=0x2069 => "unicode.bidi",
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => "unicode.variation_selector",
        0xFFF9..=0xFFFB => "unicode.interlinear_annotation",
        0x2028 | 0x2029 => "unicode.line_separator",
        _ if is_cf(u) => "unicode.format",
        _ => return None,
    })
}

/// CRLF and lone CR become LF (D5: normalization, not modification);
/// borrows `s` when it has no CR.
pub(super) fn line_endings(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find('\r') else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut at = first;
    loop {
        // `rest[at]` is a CR: keep what precedes it, then one LF for the CR
        // and the LF that may follow it.
        out.push_str(&rest[..at]);
        out.push('\n');
        let skip = if rest.as_bytes().get(at + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        rest = &rest[at + skip..];
        match rest.find('\r') {
            Some(next) => at = next,
            None => break,
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The canonical trailing-LF form (no trailing LF when empty, a body of
/// only line feeds being empty; otherwise exactly one) of
/// [`line_endings`], borrowing `s` when it is already in that form. The
/// pipeline builds it only with the Unicode stage
/// (`canonical_unicode_safety`); the tests compare the two.
#[cfg(test)]
pub(super) fn canonical_body(s: &str) -> Cow<'_, str> {
    let normalized = line_endings(s);
    let trimmed = normalized.trim_end_matches('\n').len();
    if trimmed == 0 {
        return Cow::Borrowed("");
    }
    if normalized.len() == trimmed + 1 {
        return normalized;
    }
    let mut out = normalized.into_owned();
    out.truncate(trimmed);
    out.push('\n');
    Cow::Owned(out)
}

pub(super) fn needs_strip(s: &str) -> bool {
    plain_len(s.as_bytes()) < s.len()
}

/// A byte the Unicode stage keeps without a closer look: printable ASCII,
/// tab or line feed.
fn is_plain(b: u8) -> bool {
    (0x20..0x7F).contains(&b) || b == b'\t' || b == b'\n'
}

/// The length of the prefix of `b` made of plain bytes (`is_plain`).
/// Eight bytes at a time: a word with no byte below 0x20 and none above 0x7E
/// is plain (both word tests are exact); other words go byte by byte.
fn plain_len(b: &[u8]) -> usize {
    const fn lanes(n: u8) -> u64 {
        u64::from_ne_bytes([n; 8])
    }
    let mut i = 0;
    loop {
        while let Some(w) = b.get(i..i + 8) {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            let x = u64::from_ne_bytes(x);
            let below_space = x.wrapping_sub(lanes(0x20)) & !x & lanes(0x80);
            let above_tilde = (x.wrapping_add(lanes(0x01)) | x) & lanes(0x80);
            if (below_space | above_tilde) != 0 {
                break;
            }
            i += 8;
        }
        let stop = (i + 8).min(b.len());
        while i < stop && is_plain(b[i]) {
            i += 1;
        }
        if i < stop || i == b.len() {
            return i;
        }
    }
}

/// Removes terminal escape sequences, NUL, controls, floor classes,
/// U+2028/U+2029 and other `Cf` characters, recording each.
pub(super) fn strip_unsafe<'a>(s: &'a str, f: &mut Findings) -> Cow<'a, str> {
    if !needs_strip(s) {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut i, mut run) = (0, 0);
    while i < b.len() {
        i += plain_len(&b[i..]);
        let Some(&byte) = b.get(i) else {
            break;
        };
        if byte == 0x1B {
            out.push_str(&s[run..i]);
            i += 1 + escape_len(&b[i + 1..]);
            run = i;
            f.add("unicode.terminal_escape", 1);
            continue;
        }
        // `i` is on a char boundary: it only advances by whole chars.
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        if let Some(code) = removed_class(c) {
            out.push_str(&s[run..i]);
            f.add(code, 1);
            i += c.len_utf8();
            run = i;
        } else {
            i += c.len_utf8();
        }
    }
    out.push_str(&s[run..]);
    Cow::Owned(out)
}

/// Length in bytes of an escape sequence body after ESC. Every byte it
/// consumes before a terminator is matched as ASCII, so the end is always a
/// char boundary.
pub(super) fn escape_len(rest: &[u8]) -> usize {
    match rest.first() {
        Some(b'[') => {
            // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E.
            let mut j = 1;
            while j < rest.len() && (0x30..=0x3F).contains(&rest[j]) {
                j += 1;
            }
            while j < rest.len() && (0x20..=0x2F).contains(&rest[j]) {
                j += 1;
            }
            if j < rest.len() && (0x40..=0x7E).contains(&rest[j]) {
                j += 1;
            }
            j
        }
        Some(b']' | b'P' | b'X' | b'^' | b'_') => {
            // OSC/DCS/SOS/PM/APC: up to BEL or ST (ESC \), or the end.
            let mut j = 1;
            while j < rest.len() {
                if rest[j] == 0x07 {
                    return j + 1;
                }
                if rest[j] == 0x1B && rest.get(j + 1) == Some(&b'\\') {
                    return j + 2;
                }
                j += 1;
            }
            j
        }
        Some(&c) if (0x20..=0x7E).contains(&c) => 1,
        _ => 0,
    }
}

/// Unicode safety: strip, then NFKC (reported), to a fixed point. Borrows
/// `s` when nothing changes (ASCII text without controls, or text already
/// in NFKC without unsafe characters).
pub(super) fn unicode_safety<'a>(
    s: &'a str,
    f: &mut Findings,
) -> Result<Cow<'a, str>, FilterError> {
    normalize_to_fixed_point(strip_unsafe(s, f), f)
}

/// `unicode_safety(&canonical_body(s))` in one copy: the line endings are
/// normalized, the trailing line feeds made canonical and the unsafe
/// characters stripped in the one pass over `s` (then NFKC, as
/// `unicode_safety`). Borrows `s` when it is already a canonical body with
/// nothing to strip.
///
/// Stripping treats a CR as it treats the LF it becomes: neither is
/// removed, neither is a byte of a CSI sequence or after a lone ESC (both
/// stop there), and neither terminates an OSC-type sequence (only BEL or
/// ESC `\` do). So every sequence covers the same bytes either way, except
/// that an OSC-type sequence left open runs to the end of the text and then
/// also takes the canonical trailing line feed. `canonical_body` keeps the
/// text up to its last byte that is neither CR nor LF (such a byte never
/// ends a CRLF pair), normalized, then one line feed.
pub(super) fn canonical_unicode_safety<'a>(
    s: &'a str,
    f: &mut Findings,
) -> Result<Cow<'a, str>, FilterError> {
    normalize_to_fixed_point(canonical_strip(s, f), f)
}

/// `strip_unsafe(&canonical_body(s))` (see `canonical_unicode_safety`).
pub(super) fn canonical_strip<'a>(s: &'a str, f: &mut Findings) -> Cow<'a, str> {
    let body = s.trim_end_matches(['\r', '\n']);
    if body.is_empty() {
        return Cow::Borrowed("");
    }
    let b = body.as_bytes();
    let canonical = s.len() == body.len() + 1 && s.as_bytes().get(body.len()) == Some(&b'\n');
    // The output, from the first change on; `run` starts the bytes not yet
    // copied to it.
    let mut out: Option<String> = None;
    let (mut i, mut run) = (0, 0);
    let mut final_lf = true;
    while i < b.len() {
        i += plain_len(&b[i..]);
        let Some(&byte) = b.get(i) else {
            break;
        };
        if byte == b'\r' {
            let o = out.get_or_insert_with(|| String::with_capacity(body.len() + 1));
            o.push_str(&body[run..i]);
            o.push('\n');
            i += if b.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            run = i;
            continue;
        }
        if byte == 0x1B {
            let o = out.get_or_insert_with(|| String::with_capacity(body.len() + 1));
            o.push_str(&body[run..i]);
            let (len, to_end) = escape_extent(&b[i + 1..]);
            i += 1 + len;
            run = i;
            f.add("unicode.terminal_escape", 1);
            if to_end {
                final_lf = false;
            }
            continue;
        }
        // `i` is on a char boundary: it only advances by whole chars.
        let Some(c) = body[i..].chars().next() else {
            break;
        };
        if let Some(code) = removed_class(c) {
            let o = out.get_or_insert_with(|| String::with_capacity(body.len() + 1));
            o.push_str(&body[run..i]);
            f.add(code, 1);
            i += c.len_utf8();
            run = i;
        } else {
            i += c.len_utf8();
        }
    }
    match out {
        None if canonical => Cow::Borrowed(s),
        None => {
            let mut o = String::with_capacity(body.len() + 1);
            o.push_str(body);
            o.push('\n');
            Cow::Owned(o)
        }
        Some(mut o) => {
            o.push_str(&body[run..]);
            if final_lf {
                o.push('\n');
            }
            Cow::Owned(o)
        }
    }
}

/// Whether `text` is `canonical_body(s)`, without building it.
pub(super) fn is_canonical_body(text: &str, s: &str) -> bool {
    let body = s.trim_end_matches(['\r', '\n']);
    if body.is_empty() {
        return text.is_empty();
    }
    let Some(mut t) = text.strip_suffix('\n') else {
        return false;
    };
    let mut b = body;
    // Each CR of `b` (with the LF after it) is one LF of `t`.
    while let Some(at) = b.find('\r') {
        let (tb, bb) = (t.as_bytes(), b.as_bytes());
        if tb.get(..at) != bb.get(..at) || tb.get(at) != Some(&b'\n') {
            return false;
        }
        // `t[at]` and `b[at]` are ASCII: both cuts are char boundaries.
        t = &t[at + 1..];
        let skip = if bb.get(at + 1) == Some(&b'\n') { 2 } else { 1 };
        b = &b[at + skip..];
    }
    t == b
}

/// The length of the escape sequence body after an ESC that starts `rest`
/// (`escape_len`), and whether it is an OSC-type sequence that found no
/// terminator (it runs to the end of the text, and would take any byte
/// after `rest` too).
fn escape_extent(rest: &[u8]) -> (usize, bool) {
    let len = escape_len(rest);
    let osc = matches!(rest.first(), Some(b']' | b'P' | b'X' | b'^' | b'_'));
    let terminated =
        len >= 2 && (rest[len - 1] == 0x07 || (rest[len - 1] == b'\\' && rest[len - 2] == 0x1B));
    (len, osc && !terminated)
}

/// NFKC (reported) then stripping again, from the first strip's result `cur`,
/// to a fixed point.
fn normalize_to_fixed_point<'a>(
    mut cur: Cow<'a, str>,
    f: &mut Findings,
) -> Result<Cow<'a, str>, FilterError> {
    for _ in 0..4 {
        if cur.is_ascii() {
            return Ok(cur);
        }
        let quick = unicode_normalization::is_nfkc_quick(cur.chars());
        if quick == unicode_normalization::IsNormalized::Yes {
            return Ok(cur);
        }
        let n: String = cur.nfkc().collect();
        if n == *cur {
            return Ok(cur);
        }
        f.add("unicode.nfkc", 1);
        cur = if needs_strip(&n) {
            Cow::Owned(strip_unsafe(&n, f).into_owned())
        } else {
            Cow::Owned(n)
        };
    }
    Err(FilterError::UnicodeNotConverged)
}
