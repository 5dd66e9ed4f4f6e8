//! The injection floor: instruction-like text and hidden HTML
//! containers.

use regex::Regex;

use super::*;

/// Injection floor: counts matches per category.
pub(super) fn scan_injection(e: &Engine, s: &str, f: &mut Findings) {
    scan_injection_with(e, s, &triggered(e, s), f);
}

/// [`scan_injection`] with the keyword prefilter's result for `s`.
pub(super) fn scan_injection_with(e: &Engine, s: &str, t: &Triggered, f: &mut Findings) {
    let mut folds: Option<bool> = None;
    for (i, d) in e.injections.iter().enumerate() {
        if t.injections[i] {
            f.add(d.code, count_matches(e, d, i, s, t, &mut folds));
        }
    }
    if t.hidden {
        let mut n = 0;
        for inner in hidden_containers(e, s) {
            let mut sub = Findings::default();
            for d in &e.injections {
                sub.add(d.code, d.re.find_iter(inner).count() as u64);
            }
            if !sub.is_empty() || e.hidden_instruction.is_match(inner) {
                n += 1;
            }
        }
        f.add("injection.hidden_html", n);
    }
}

/// Fewer candidate starts than one per this many bytes: the anchored
/// searches are tried; more, and one pass of the regex is cheaper.
const BYTES_PER_START: usize = 32;

/// `d.re.find_iter(s).count()`, found with anchored searches at the
/// candidate starts when `d` has start literals (`injection_starts`).
///
/// `find_iter` reports the leftmost-first match from the end of the
/// previous one: the match at the smallest start `p` where one exists, and
/// at `p` the one the anchored search at `p` finds. Every match begins
/// with a start literal, so with the literal occurrences in order the
/// first anchored match at or after the previous end is that match. The
/// anchored search at `p > 0` reads the character before `p` (its
/// pattern's `(?s:.)`), so `(?-u:\b)` at `p` sees what it sees in `s`;
/// everything after `p` is the same text to the same end. A text holding
/// U+017F or U+212A (Unicode case folds them to `s` and `k`, which the
/// ASCII literal search does not) goes to the regex, as does an empty
/// match (none of these patterns has one).
pub(super) fn count_matches(
    e: &Engine,
    d: &InjectionDetector,
    i: usize,
    s: &str,
    t: &Triggered,
    folds: &mut Option<bool>,
) -> u64 {
    let regex = || d.re.find_iter(s).count() as u64;
    let Some((first, after)) = &d.anchored else {
        return regex();
    };
    let folds = *folds
        .get_or_insert_with(|| !s.is_ascii() && (s.contains('\u{17F}') || s.contains('\u{212A}')));
    if folds {
        return regex();
    }
    let starts = t.injection_starts(e, i);
    if starts.len() > s.len() / BYTES_PER_START {
        return regex();
    }
    count_at_starts(first, after, s, &starts).unwrap_or_else(regex)
}

/// The anchored searches of [`count_matches`] at `starts` (in order): the
/// number of matches, or None at an empty match.
pub(super) fn count_at_starts(
    first: &Regex,
    after: &Regex,
    s: &str,
    starts: &[usize],
) -> Option<u64> {
    let (mut n, mut done) = (0u64, 0usize);
    for &p in starts {
        if p < done || !s.is_char_boundary(p) {
            continue;
        }
        let end = if p == 0 {
            first.find(s).map(|m| m.end())
        } else {
            let q = floor_char_boundary(s, p - 1);
            after.find(&s[q..]).map(|m| q + m.end())
        };
        match end {
            Some(end) if end > p => {
                n += 1;
                done = end;
            }
            Some(_) => return None,
            None => {}
        }
    }
    Some(n)
}

/// The most characters a hiding tag's content may have before its `</`.
pub(super) const HIDDEN_CONTENT_CHARS: usize = 4000;

/// Character counts of a text at byte positions, by 64-byte blocks (built
/// once, on first use, for non-ASCII text).
pub(super) struct CharIndex<'a> {
    pub(super) s: &'a [u8],
    pub(super) blocks: Option<Vec<usize>>,
}

impl CharIndex<'_> {
    fn is_char_start(b: u8) -> bool {
        (b as i8) >= -0x40
    }
    /// The number of characters in `s[..to]` (`to` on a char boundary).
    fn chars_before(&mut self, to: usize) -> usize {
        let s = self.s;
        let blocks = self.blocks.get_or_insert_with(|| {
            let mut v = Vec::with_capacity(s.len() / 64 + 1);
            let mut n = 0;
            v.push(0);
            for chunk in s.chunks(64) {
                n += chunk.iter().filter(|&&b| Self::is_char_start(b)).count();
                v.push(n);
            }
            v
        });
        let to = to.min(s.len());
        let k = to / 64;
        blocks.get(k).copied().unwrap_or(0)
            + s[k * 64..to]
                .iter()
                .filter(|&&b| Self::is_char_start(b))
                .count()
    }
}

/// The contents of the hidden containers of `s`, in order: a comment to its
/// `-->` or the end of the text; a hiding tag to the first `</` within 4000
/// characters after its `>`, or to the end of the text when that is within
/// 4000 characters (a tag with neither is no container, and the search goes
/// on from the character after its `<`). These are exactly the containers
/// of the `probity-filter/2` regex `<tag…>(.{0,4000}?)(?:</|\z)`, found in
/// linear time (`hidden_containers_are_those_of_the_v2_regex`).
///
/// One subtlety of that regex is kept: its attribute alternative
/// `[ \t]hidden>` may consume the tag's first `>`, so the opening tag then
/// runs to the second `>` (tried first) and, if that fails and another
/// hiding attribute precedes, to the first `>`.
pub(super) fn hidden_containers<'a>(e: &Engine, s: &'a str) -> Vec<&'a str> {
    hidden_containers_within(e, s, HIDDEN_CONTENT_CHARS)
}

pub(super) fn hidden_containers_within<'a>(e: &Engine, s: &'a str, limit: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let ascii = s.is_ascii();
    let mut index = CharIndex {
        s: s.as_bytes(),
        blocks: None,
    };
    // Every `</`, found once when the first hiding tag needs it.
    let mut closes: Option<Vec<usize>> = None;
    // The end of a tag's content opening at `inner`: `Some((end of content,
    // end of match))`, or None when there is no `</` (nor the end of the
    // text) within `limit` characters.
    let mut content = |inner: usize| -> Option<(usize, usize)> {
        let closes = closes.get_or_insert_with(|| s.match_indices("</").map(|(i, _)| i).collect());
        let close = closes.get(closes.partition_point(|&p| p < inner)).copied();
        let stop = close.unwrap_or(s.len());
        let bytes = stop - inner;
        let within = bytes <= limit
            || (!ascii
                && bytes / 4 <= limit
                && index.chars_before(stop) - index.chars_before(inner) <= limit);
        within.then(|| (stop, close.map_or(s.len(), |p| p + 2)))
    };
    let mut pos = 0;
    while pos < s.len() {
        let Some(c) = e.hidden_open.captures_at(s, pos) else {
            break;
        };
        let Some(open) = c.get(0) else {
            break;
        };
        if c.get(1).is_none() {
            // A comment.
            let rest = &s[open.end()..];
            match rest.find("-->") {
                Some(k) => {
                    out.push(&rest[..k]);
                    pos = open.end() + k + 3;
                }
                None => {
                    out.push(rest);
                    pos = s.len();
                }
            }
            continue;
        }
        // The opening tags this start allows, in the regex's order.
        let mut ends = vec![open.end()];
        let first_gt = s[open.start()..].find('>').map(|k| open.start() + k + 1);
        if let Some(gt) = first_gt.filter(|&gt| gt < open.end())
            && e.hidden_open_first_gt.is_match(&s[open.start()..gt])
        {
            ends.push(gt);
        }
        let found = ends
            .into_iter()
            .find_map(|inner| content(inner).map(|(stop, end)| (&s[inner..stop], end)));
        match found {
            Some((inner, end)) => {
                out.push(inner);
                pos = end;
            }
            // `<` is one byte: the next character starts right after it.
            None => pos = open.start() + 1,
        }
    }
    out
}
