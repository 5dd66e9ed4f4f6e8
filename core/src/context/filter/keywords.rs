//! The keyword prefilter's automaton as one flat transition table, walked
//! by a tight loop.
//!
//! The table is read off an `aho_corasick` DFA built with the same options
//! as `Engine::prefilter` (ASCII case-insensitive, standard match
//! semantics): every state reachable from the unanchored start state, its
//! successor for every byte, and the patterns each state matches, in the
//! automaton's order. Walking it reports exactly the matches of that
//! automaton's `find_overlapping_iter`, in the same order
//! (`tests::fast` compares them), without the iterator's per-byte
//! bookkeeping: one table load per byte, and a comparison telling a match
//! state (match states are numbered last, so a state is a match state when
//! it is at least the first of them). States are premultiplied 16-bit
//! offsets into a table of 2^16 entries (plus one row of slack, so that a
//! state plus a class always indexes it) whose first 256 entries are the
//! byte classes: both loads of a step use the one base address (fewer
//! registers in the four-lane loop).

use std::collections::BTreeMap;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::{Anchored, MatchKind};

/// The entries a table may hold: every state is a `u16`.
const ENTRIES: usize = 1 << 16;
/// Where the transitions start in the table: its first 256 entries are the
/// byte classes, so that one base address serves both loads of a step.
const CLASSES: usize = 256;
/// The table's length: `ENTRIES` plus a row of slack, so that any `u16`
/// state plus any `u8` class indexes it without a bounds check.
const TABLE: usize = ENTRIES + 256;
/// The fewest bytes a lane of `KeywordDfa::each_event` walks (below, the
/// text is walked as one lane).
const LANE_MIN: usize = 64;

pub(super) struct KeywordDfa {
    /// The number of classes: state `k` is stored at `CLASSES + k * stride`.
    stride: u32,
    /// `table[b]` for a byte `b`: its equivalence class (bytes no state
    /// tells apart share one). `table[state + class]`: the successor, a
    /// state (premultiplied, offset by `CLASSES`).
    table: Box<[u16; TABLE]>,
    start: u16,
    /// Match states are the states from here on (not premultiplied).
    first_match: usize,
    /// The first match state, premultiplied: a state is a match state
    /// when it is at least this.
    match_from: u16,
    /// For match state `first_match + k`: its patterns and their lengths,
    /// in the automaton's order.
    matches: Vec<Vec<(u32, u32)>>,
    /// The length in bytes of the longest pattern.
    pub(super) max_len: usize,
    /// The patterns, for the tests.
    #[cfg(test)]
    pub(super) patterns: Vec<String>,
}

impl KeywordDfa {
    pub(super) fn new(patterns: &[String]) -> Result<KeywordDfa, String> {
        let dfa = aho_corasick::dfa::Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(patterns)
            .map_err(|e| e.to_string())?;
        let start = dfa.start_state(Anchored::No).map_err(|e| e.to_string())?;
        if dfa.is_match(start) {
            return Err("a keyword is empty".to_owned());
        }
        // Every reachable state, breadth first, and its 256 successors (as
        // indices into `order`).
        let mut index: BTreeMap<StateID, usize> = BTreeMap::from([(start, 0)]);
        let mut order: Vec<StateID> = vec![start];
        let mut rows: Vec<Vec<usize>> = Vec::new();
        while let Some(&sid) = order.get(rows.len()) {
            let mut row = Vec::with_capacity(256);
            for b in 0..=255u8 {
                let next = dfa.next_state(Anchored::No, sid, b);
                let k = match index.get(&next) {
                    Some(&k) => k,
                    None => {
                        order.push(next);
                        index.insert(next, order.len() - 1);
                        order.len() - 1
                    }
                };
                row.push(k);
            }
            rows.push(row);
        }
        // Byte classes: bytes whose columns are equal.
        let mut class_of: BTreeMap<Vec<usize>, u8> = BTreeMap::new();
        let mut classes = [0u8; 256];
        let mut representative: Vec<usize> = Vec::new();
        for b in 0..256 {
            let column: Vec<usize> = rows.iter().map(|r| r[b]).collect();
            let n = class_of.len();
            // At most 256 classes, one per byte: `n` fits.
            let c = *class_of.entry(column).or_insert_with(|| {
                representative.push(b);
                u8::try_from(n).unwrap_or(u8::MAX)
            });
            classes[b] = c;
        }
        let stride = representative.len();
        // Non-match states first, then match states, each in BFS order.
        let is_match: Vec<bool> = order.iter().map(|&s| dfa.is_match(s)).collect();
        let mut renumber = vec![0usize; order.len()];
        let mut next_id = 0;
        for pass in [false, true] {
            for (k, &m) in is_match.iter().enumerate() {
                if m == pass {
                    renumber[k] = next_id;
                    next_id += 1;
                }
            }
        }
        let first_match = is_match.iter().filter(|m| !**m).count();
        if CLASSES + order.len() * stride > ENTRIES {
            return Err(format!(
                "the keyword table has more than 2^16 entries ({} states, {stride} classes)",
                order.len()
            ));
        }
        let to_u32 = |v: usize| u32::try_from(v).map_err(|_| "table too large".to_owned());
        // Below 2^16, checked above.
        let state = |id: usize| u16::try_from(CLASSES + id * stride).unwrap_or(0);
        let mut trans = vec![0u16; TABLE];
        for (b, &c) in classes.iter().enumerate() {
            trans[b] = u16::from(c);
        }
        let mut matches = vec![Vec::new(); order.len() - first_match];
        for (k, row) in rows.iter().enumerate() {
            let id = renumber[k];
            for (c, &b) in representative.iter().enumerate() {
                let next = state(renumber[row[b]]);
                trans[CLASSES + id * stride + c] = next;
            }
            if is_match[k] {
                let sid = order[k];
                let list = (0..dfa.match_len(sid))
                    .map(|i| {
                        let p = dfa.match_pattern(sid, i);
                        Ok((to_u32(p.as_usize())?, to_u32(dfa.pattern_len(p))?))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                matches[id - first_match] = list;
            }
        }
        let table: Box<[u16; TABLE]> = trans
            .into_boxed_slice()
            .try_into()
            .map_err(|_| "the keyword table has a fixed length".to_owned())?;
        Ok(KeywordDfa {
            stride: to_u32(stride)?,
            table,
            start: state(renumber[0]),
            first_match,
            match_from: u16::try_from(CLASSES + first_match * stride).unwrap_or(u16::MAX),
            matches,
            max_len: patterns.iter().map(String::len).max().unwrap_or(0),
            #[cfg(test)]
            patterns: patterns.to_vec(),
        })
    }

    /// Calls `f(pattern, start, end)` for every occurrence of every pattern
    /// in `hay`, in the order of `find_overlapping_iter` (by end, then as
    /// the automaton lists a state's patterns).
    pub(super) fn each_match(&self, hay: &[u8], mut f: impl FnMut(usize, usize, usize)) {
        self.each_event(hay, |k, end| {
            for &(p, len) in self.patterns(k) {
                f(p as usize, end - len as usize, end);
            }
        });
    }

    /// The patterns of match state `k` (as `each_event` names it) and
    /// their lengths, in the automaton's order.
    pub(super) fn patterns(&self, k: usize) -> &[(u32, u32)] {
        self.matches.get(k).map_or(&[], Vec::as_slice)
    }

    /// The number of match states.
    pub(super) fn match_states(&self) -> usize {
        self.matches.len()
    }

    /// Calls `f(k, end)` each time the walk over `hay` enters a match
    /// state, `k` numbering the match states (`patterns(k)` are the
    /// patterns ending at `end`), in order of `end`.
    ///
    /// A text whose quarter `q` is at least `LANE_MIN` bytes and the
    /// longest pattern's length is walked as four lanes at once (the walk of one lane is a chain of dependent table loads;
    /// four chains keep the processor busy). Lane `i > 0` owns the bytes
    /// from `i * q` but starts at the start state `w = max_len` bytes
    /// before them: the state after a text is that of its longest suffix
    /// that is a prefix of a pattern, never longer than the longest
    /// pattern, so the lane is in the whole walk's state when its own bytes
    /// begin; the events it passes on the way are the lane before's. Every
    /// lane walks `q + w` bytes in the one loop (lane 0 from the text's
    /// start, past its own end) and reports only the events ending in the
    /// bytes it owns; lane 3 then walks the last few bytes alone. The
    /// events of lanes 1 to 3 are reported after those of lane 0, in lane
    /// order.
    #[inline]
    pub(super) fn each_event(&self, hay: &[u8], mut f: impl FnMut(usize, usize)) {
        const LANES: usize = 4;
        let q = hay.len() / LANES;
        let w = self.max_len;
        let index = |s: u16| (usize::from(s) - CLASSES) / self.stride as usize - self.first_match;
        if q < w.max(LANE_MIN) {
            self.walk(self.start, hay, 0, |s, end| f(index(s), end));
            return;
        }
        // Lane `i` walks `hay[o_i..o_i + len]` and owns the ends in
        // `(i * q, (i + 1) * q]` (lane 3: up to the text's end).
        let len = q + w;
        let (o1, o2, o3) = (q - w, 2 * q - w, 3 * q - w);
        // Room for an event every 32 bytes (about twice what prose
        // holds): most texts then need no reallocation.
        let mut later: [Vec<(u16, usize)>; LANES - 1] =
            std::array::from_fn(|_| Vec::with_capacity(q / 32 + 4));
        let s3 = self.lanes(
            [
                &hay[..len],
                &hay[o1..o1 + len],
                &hay[o2..o2 + len],
                &hay[o3..o3 + len],
            ],
            |lane, s, j| {
                // `j + 1` bytes of the lane walked.
                match lane {
                    0 => {
                        if j < q {
                            f(index(s), j + 1);
                        }
                    }
                    _ => {
                        let o = lane * q - w;
                        let end = o + j + 1;
                        if end > lane * q && (lane == 3 || end <= (lane + 1) * q) {
                            later[lane - 1].push((s, end));
                        }
                    }
                }
            },
        );
        // The last lane's remainder (fewer than four bytes).
        self.walk(s3, &hay[4 * q..], 4 * q, |s, end| later[2].push((s, end)));
        for lane in &later {
            for &(s, end) in lane {
                f(index(s), end);
            }
        }
    }

    /// Walks four slices of one length side by side from the start state,
    /// calling `on(lane, state, j)` at every match state entered at byte
    /// `j` of a lane; returns the last state of lane 3.
    #[inline(always)]
    fn lanes(&self, h: [&[u8]; 4], mut on: impl FnMut(usize, u16, usize)) -> u16 {
        let m = self.match_from;
        let [h0, h1, h2, h3] = h;
        let (mut s0, mut s1, mut s2, mut s3) = (self.start, self.start, self.start, self.start);
        let bytes = h0.iter().zip(h1).zip(h2).zip(h3);
        for (j, (((&b0, &b1), &b2), &b3)) in bytes.enumerate() {
            s0 = self.step(s0, b0);
            s1 = self.step(s1, b1);
            s2 = self.step(s2, b2);
            s3 = self.step(s3, b3);
            if s0.max(s1).max(s2).max(s3) >= m {
                for (lane, s) in [s0, s1, s2, s3].into_iter().enumerate() {
                    if s >= m {
                        on(lane, s, j);
                    }
                }
            }
        }
        s3
    }

    #[inline(always)]
    fn step(&self, s: u16, b: u8) -> u16 {
        // A byte, and a `u16` state plus a class (below 256), are below
        // `TABLE`: no bounds check.
        let class = self.table[usize::from(b)] & 0xFF;
        self.table[usize::from(s) + usize::from(class)]
    }

    /// Walks `hay` (at offset `base` of the text) from state `s`, calling
    /// `on(state, end)` at every match state; returns the last state.
    #[inline(always)]
    fn walk(&self, mut s: u16, hay: &[u8], base: usize, mut on: impl FnMut(u16, usize)) -> u16 {
        for (i, &b) in hay.iter().enumerate() {
            s = self.step(s, b);
            if s >= self.match_from {
                on(s, base + i + 1);
            }
        }
        s
    }
}
