//! The one-pass scan (issue 24, D-R122, D-R135): one automaton over the
//! spawn patterns and the document code markers, stepped a byte at a time
//! through the views the policy compares, with no copy of the content.

use super::*;

/// What a byte is to the whitespace-blind view when nothing is held:
/// content, whitespace by itself ([`space_at`]: ASCII whitespace and the
/// vertical tab), or a byte that may begin one of [`WIDE_SPACES`].
const CONTENT: u8 = 0;
const SPACE: u8 = 1;
const WIDE_LEAD: u8 = 2;
const BYTE_KIND: [u8; 256] = {
    let mut t = [CONTENT; 256];
    let mut b = 0;
    while b < 128 {
        if (b as u8).is_ascii_whitespace() || b == 0x0b {
            t[b] = SPACE;
        }
        b += 1;
    }
    let mut i = 0;
    while i < WIDE_SPACES.len() {
        t[WIDE_SPACES[i][0] as usize] = WIDE_LEAD;
        i += 1;
    }
    t
};

/// The bytes v5's stages may hold: Rust's raw prefix's `r`, and quotes.
const STAGED: [bool; 256] = {
    let mut t = [false; 256];
    t[b'r' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t
};

/// One pass over a file's content for everything the policy compares
/// (issue 24): a single automaton over the spawn patterns and the document
/// code markers, as compared, stepped one byte at a time through two views
/// at once, never copied: the content without whitespace (spawns and
/// markers) and, when the policy ignores comments, the content without
/// comments and then without whitespace (spawns). Each view removes
/// whitespace as [`prepare`] does and comments as [`uncommented`] does,
/// byte for byte (`scan::tests` compares them on every input the
/// properties generate and on exhaustive short inputs).
pub(super) struct Fused {
    dfa: aho_corasick::dfa::DFA,
    /// Pattern `i` of the automaton is a spawn pattern when `i <
    /// spawns`, else a marker.
    spawns: usize,
    /// Whether there are markers at all.
    markers: bool,
    strip: bool,
    comments: bool,
    /// `r#` dropped before an identifier byte (v5, [`normalized`]).
    raw: bool,
    /// A quote and the same quote after it dropped (v5, [`normalized`]).
    join: bool,
}

/// Which views a policy compares its content in.
#[derive(Clone, Copy)]
pub(super) struct Views {
    pub(super) strip: bool,
    pub(super) comments: bool,
    pub(super) raw: bool,
    pub(super) join: bool,
}

/// Where one view's automaton stands, the bytes held back while they may
/// still be a multi-byte whitespace character, and what it has seen.
#[derive(Clone)]
struct Cursor {
    sid: aho_corasick::automaton::StateID,
    held: [u8; 3],
    n: usize,
    spawn: bool,
    marker: bool,
    /// Rust's raw prefix held: 1 after `r`, 2 after `r#` (v5).
    raw: u8,
    /// A quote held while the next byte may be the same quote (v5).
    quote: u8,
    /// A backslash held after the held quote (a line continuation).
    backslash: bool,
}

/// Where the comment-free view stands in the raw content.
#[derive(Clone, Copy)]
enum Comment {
    /// Outside a comment.
    None,
    /// In a `/* */` comment whose `/` is at this index.
    Block(usize),
    /// In a `//` comment, until the next `\n` (which is kept).
    Line,
}

impl Fused {
    pub(super) fn of(spawn: &[String], markers: &[String], views: Views) -> Option<Fused> {
        let Views {
            strip,
            comments,
            raw,
            join,
        } = views;
        let spawn: Vec<&str> = spawn
            .iter()
            .map(String::as_str)
            .filter(|p| !p.is_empty())
            .collect();
        let markers: Vec<&str> = markers
            .iter()
            .map(String::as_str)
            .filter(|p| !p.is_empty())
            .collect();
        // Without views to compare (v1: the content as it is), one search
        // of the content by the plain automata is one pass already, and
        // faster than stepping a byte at a time.
        if (spawn.is_empty() && markers.is_empty()) || !(strip || comments) {
            return None;
        }
        // `Standard` semantics: a match state names every pattern ending
        // there, so no occurrence hides behind a longer candidate.
        let dfa = aho_corasick::dfa::DFA::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .start_kind(aho_corasick::StartKind::Unanchored)
            .prefilter(false)
            .build(spawn.iter().chain(&markers))
            .ok()?;
        Some(Fused {
            dfa,
            spawns: spawn.len(),
            markers: !markers.is_empty(),
            strip,
            comments,
            raw,
            join,
        })
    }

    pub(super) fn find(&self, content: &[u8]) -> Found {
        use aho_corasick::Anchored;
        use aho_corasick::automaton::Automaton;
        let Ok(start) = self.dfa.start_state(Anchored::No) else {
            return Found {
                spawn: false,
                doc_code: false,
            };
        };
        let cursor = || Cursor {
            sid: start,
            held: [0; 3],
            n: 0,
            spawn: false,
            marker: false,
            raw: 0,
            quote: 0,
            backslash: false,
        };
        let mut whole = cursor();
        let done = |c: &Cursor| c.spawn && (c.marker || !self.markers);
        // The comment-free view takes the same bytes as the whole one until
        // the first comment: until there, one view is walked.
        let mut first = content.len();
        for (i, &b) in content.iter().enumerate() {
            if self.comments && b == b'/' && matches!(content.get(i + 1), Some(b'*' | b'/')) {
                first = i;
                break;
            }
            self.push(&mut whole, b);
            if done(&whole) {
                return Found {
                    spawn: true,
                    doc_code: whole.marker,
                };
            }
        }
        let mut bare = whole.clone();
        let mut comment = Comment::None;
        for (i, &b) in content.iter().enumerate().skip(first) {
            comment = match comment {
                Comment::None => match (b, content.get(i + 1)) {
                    (b'/', Some(b'*')) => Comment::Block(i),
                    (b'/', Some(b'/')) => Comment::Line,
                    _ => {
                        self.push(&mut bare, b);
                        Comment::None
                    }
                },
                // `/*` at `s` ends at the first `*/` whose `*` is at `s + 2`
                // or later.
                Comment::Block(s) if b == b'/' && i >= s + 3 && content[i - 1] == b'*' => {
                    Comment::None
                }
                Comment::Line if b == b'\n' => {
                    self.push(&mut bare, b);
                    Comment::None
                }
                other @ (Comment::Block(_) | Comment::Line) => other,
            };
            self.push(&mut whole, b);
            if (whole.spawn || bare.spawn) && (whole.marker || !self.markers) {
                break;
            }
        }
        self.flush(&mut whole);
        self.flush(&mut bare);
        self.finish(&mut whole);
        self.finish(&mut bare);
        Found {
            spawn: whole.spawn || bare.spawn,
            doc_code: whole.marker,
        }
    }

    /// The view without whitespace takes `b`: through the raw-identifier
    /// and literal-joining stages when the policy has them (v5), straight
    /// to the automaton otherwise.
    #[inline(always)]
    fn step(&self, c: &mut Cursor, b: u8) {
        // Only `r` and quotes, or a byte after one held, take the stages:
        // every other byte goes straight to the automaton.
        if (self.raw || self.join) && (c.raw != 0 || c.quote != 0 || STAGED[usize::from(b)]) {
            self.staged(c, b);
        } else {
            self.advance(c, b);
        }
    }

    #[inline(never)]
    fn staged(&self, c: &mut Cursor, b: u8) {
        if self.raw {
            self.raw_stage(c, b);
        } else {
            self.join_stage(c, b);
        }
    }

    /// `r#` followed by an identifier byte is dropped; `r` and `r#` are
    /// held until the byte that decides.
    fn raw_stage(&self, c: &mut Cursor, b: u8) {
        match c.raw {
            0 if b == b'r' => c.raw = 1,
            0 => self.join_stage(c, b),
            1 if b == b'#' => c.raw = 2,
            1 => {
                c.raw = 0;
                self.join_stage(c, b'r');
                self.raw_stage(c, b);
            }
            _ => {
                c.raw = 0;
                if !ident_byte(b) {
                    self.join_stage(c, b'r');
                    self.join_stage(c, b'#');
                }
                self.raw_stage(c, b);
            }
        }
    }

    /// A quote is held; the same quote next drops both.
    fn join_stage(&self, c: &mut Cursor, b: u8) {
        if !self.join {
            return self.advance(c, b);
        }
        if c.quote != 0 {
            let q = c.quote;
            if b == b'\\' && !c.backslash {
                c.backslash = true;
                return;
            }
            c.quote = 0;
            let backslash = std::mem::take(&mut c.backslash);
            if b == q {
                return;
            }
            self.advance(c, q);
            if backslash {
                self.advance(c, b'\\');
            }
        }
        if b == b'"' || b == b'\'' {
            c.quote = b;
        } else {
            self.advance(c, b);
        }
    }

    /// At the end: what the v5 stages hold goes to the automaton.
    fn finish(&self, c: &mut Cursor) {
        let held = c.raw;
        c.raw = 0;
        if held >= 1 {
            self.join_stage(c, b'r');
        }
        if held == 2 {
            self.join_stage(c, b'#');
        }
        if c.quote != 0 {
            let q = c.quote;
            c.quote = 0;
            self.advance(c, q);
            if std::mem::take(&mut c.backslash) {
                self.advance(c, b'\\');
            }
        }
    }

    /// The automaton takes `b`.
    #[inline(always)]
    fn advance(&self, c: &mut Cursor, b: u8) {
        use aho_corasick::Anchored;
        use aho_corasick::automaton::Automaton;
        c.sid = self.dfa.next_state(Anchored::No, c.sid, b);
        if self.dfa.is_match(c.sid) {
            self.record(c);
        }
    }

    #[cold]
    fn record(&self, c: &mut Cursor) {
        use aho_corasick::automaton::Automaton;
        for k in 0..self.dfa.match_len(c.sid) {
            if self.dfa.match_pattern(c.sid, k).as_usize() < self.spawns {
                c.spawn = true;
            } else {
                c.marker = true;
            }
        }
    }

    /// The view takes `b`: dropped when it is whitespace, held back while
    /// it may begin a multi-byte whitespace character ([`space_at`]).
    #[inline(always)]
    fn push(&self, c: &mut Cursor, b: u8) {
        if !self.strip {
            self.step(c, b);
        } else if c.n > 0 {
            self.hold(c, b);
        } else {
            match BYTE_KIND[usize::from(b)] {
                CONTENT => self.step(c, b),
                SPACE => {}
                _ => {
                    c.held[0] = b;
                    c.n = 1;
                }
            }
        }
    }

    /// `b` after held bytes: together a whitespace character (dropped), a
    /// beginning of one (held), or neither (the first held byte goes to the
    /// automaton and the rest are taken again).
    fn hold(&self, c: &mut Cursor, b: u8) {
        c.held[c.n] = b;
        c.n += 1;
        let held = &c.held[..c.n];
        if WIDE_SPACES.contains(&held) {
            c.n = 0;
        } else if !WIDE_SPACES
            .iter()
            .any(|w| w.len() > held.len() && w.starts_with(held))
        {
            self.flush(c);
        }
    }

    /// The held bytes, at the end or when they are no whitespace: the
    /// first is content, the rest are taken again.
    fn flush(&self, c: &mut Cursor) {
        let (held, n) = (c.held, c.n);
        c.n = 0;
        if n > 0 {
            self.step(c, held[0]);
            for &b in &held[1..n] {
                self.push(c, b);
            }
        }
    }
}
