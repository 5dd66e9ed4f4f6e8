//! What the classifier looks for in a path and in content: the automata
//! over the spawn patterns and the document code markers (never a search
//! per pattern), the views v2 and v3 compare them in (without whitespace;
//! without comments too), walked in one pass with no copy ([`Fused`]),
//! agent and auto-run paths, install scripts in a package manifest, and
//! indented code lines.

use std::borrow::Cow;

use super::RiskPolicy;

mod fused;
use crate::review::snapshot::CandidateContent;
use fused::{Fused, Views};

/// One automaton over the non-empty `patterns` (`None` when there are
/// none): what `contains` over each pattern answers, in one pass.
pub(super) fn matcher(patterns: &[String]) -> Option<aho_corasick::AhoCorasick> {
    let non_empty: Vec<&str> = patterns
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    if non_empty.is_empty() {
        return None;
    }
    // A handful of short literals: the builder cannot fail on them; a
    // failure would only cost the fast path (the naive search answers).
    aho_corasick::AhoCorasick::new(non_empty).ok()
}

/// The multi-byte (UTF-8) characters a lexer skips as whitespace: Rust's
/// `Pattern_White_Space` beyond ASCII (NEL, LRM, RLM, LS, PS) and
/// JavaScript's (NBSP, BOM and the other `Zs` spaces).
const WIDE_SPACES: &[&[u8]] = &[
    "\u{85}".as_bytes(),
    "\u{a0}".as_bytes(),
    "\u{1680}".as_bytes(),
    "\u{2000}".as_bytes(),
    "\u{2001}".as_bytes(),
    "\u{2002}".as_bytes(),
    "\u{2003}".as_bytes(),
    "\u{2004}".as_bytes(),
    "\u{2005}".as_bytes(),
    "\u{2006}".as_bytes(),
    "\u{2007}".as_bytes(),
    "\u{2008}".as_bytes(),
    "\u{2009}".as_bytes(),
    "\u{200a}".as_bytes(),
    "\u{200e}".as_bytes(),
    "\u{200f}".as_bytes(),
    "\u{2028}".as_bytes(),
    "\u{2029}".as_bytes(),
    "\u{202f}".as_bytes(),
    "\u{205f}".as_bytes(),
    "\u{3000}".as_bytes(),
    "\u{feff}".as_bytes(),
];

/// How many bytes of whitespace start `rest` (0: none): ASCII whitespace
/// and the vertical tab, or one of [`WIDE_SPACES`].
fn space_at(rest: &[u8]) -> usize {
    match rest.first() {
        Some(b) if b.is_ascii_whitespace() || *b == 0x0b => 1,
        Some(b) if *b >= 0xc2 => WIDE_SPACES
            .iter()
            .find(|w| rest.starts_with(w))
            .map_or(0, |w| w.len()),
        _ => 0,
    }
}

/// `bytes` with every whitespace character ([`space_at`]) removed, one
/// pass.
fn without_spaces(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match space_at(&bytes[i..]) {
            0 => {
                out.push(bytes[i]);
                i += 1;
            }
            n => i += n,
        }
    }
    out
}

/// `bytes` as the policy compares them: with every whitespace character a
/// lexer skips removed when `strip` (one pass), else as they are.
pub(super) fn prepare(bytes: &[u8], strip: bool) -> Cow<'_, [u8]> {
    if strip {
        Cow::Owned(without_spaces(bytes))
    } else {
        Cow::Borrowed(bytes)
    }
}

/// `bytes` without `/* ... */` and `// ...` comments (read naively: a
/// `//` in a string hides the rest of its line here, which is why this
/// view is searched besides the whole content, never instead of it), then
/// without whitespace when `strip`. One pass each.
pub(super) fn uncommented(bytes: &[u8], strip: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match &bytes[i..] {
            [b'/', b'*', ..] => {
                i = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |p| i + 2 + p + 2);
            }
            [b'/', b'/', ..] => {
                i = bytes[i..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(bytes.len(), |p| i + p);
            }
            [b, ..] => {
                out.push(*b);
                i += 1;
            }
            [] => break,
        }
    }
    if strip { without_spaces(&out) } else { out }
}

/// Whether `b` may continue an identifier after Rust's raw prefix `r#`:
/// an ASCII letter, digit or `_`, or any byte of a multi-byte character.
fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// `bytes` as v5 compares them once whitespace (and comments) are gone:
/// `r#` dropped where an identifier byte follows it when `raw` (Rust's raw
/// identifiers: `std::r#process` reads `std::process`), then, when
/// `join`, a quote followed by the same quote dropped with it (adjacent
/// string literals joined: `"sub""process"` reads `"subprocess"`, and
/// `"sub"\"process"`, a line continuation between them, too). One pass
/// each; what [`Fused`] computes byte by byte.
pub(super) fn normalized(bytes: &[u8], raw: bool, join: bool) -> Cow<'_, [u8]> {
    if !(raw || join) {
        return Cow::Borrowed(bytes);
    }
    let mut mid = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if raw
            && bytes[i] == b'r'
            && bytes.get(i + 1) == Some(&b'#')
            && bytes.get(i + 2).is_some_and(|b| ident_byte(*b))
        {
            i += 2;
        } else {
            mid.push(bytes[i]);
            i += 1;
        }
    }
    if !join {
        return Cow::Owned(mid);
    }
    let mut out = Vec::with_capacity(mid.len());
    let mut i = 0;
    while i < mid.len() {
        let quote = matches!(mid[i], b'"' | b'\'');
        if quote && mid.get(i + 1) == Some(&mid[i]) {
            i += 2;
        } else if quote && mid.get(i + 1) == Some(&b'\\') && mid.get(i + 2) == Some(&mid[i]) {
            // A line continuation between the literals (`'sub' \` and
            // `'process'` on the next line).
            i += 3;
        } else {
            out.push(mid[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// Whether a submodule at `path` (a directory whose files the repository
/// does not list) could hold a path `pattern` names: a tail of `path/`
/// starting at a path segment (only the whole of it when `root_only`, as
/// CI prefixes are matched at the root) begins `pattern`, ASCII
/// case-insensitively: `.husky` could hold `.husky/`, `.github` could
/// hold `.github/workflows/`, `a/.vscode` could hold `.vscode/tasks.json`.
pub(super) fn could_hold(path: &str, pattern: &str, root_only: bool) -> bool {
    let p = pattern.as_bytes();
    if p.is_empty() {
        return false;
    }
    let d = path.as_bytes();
    let fits = |i: usize| {
        let tail = &d[i..];
        p.len() > tail.len() && p[..tail.len()].eq_ignore_ascii_case(tail) && p[tail.len()] == b'/'
    };
    if root_only {
        fits(0)
    } else {
        (0..d.len())
            .filter(|&i| i == 0 || d[i - 1] == b'/')
            .any(fits)
    }
}

/// `patterns` as compared: whitespace removed when `strip`; a pattern of
/// whitespace only becomes empty and is dropped by [`matcher`].
pub(super) fn compared(patterns: &[String], strip: bool) -> Vec<String> {
    patterns
        .iter()
        .map(|p| {
            if strip {
                String::from_utf8_lossy(&without_spaces(p.as_bytes())).into_owned()
            } else {
                p.clone()
            }
        })
        .collect()
}

/// A policy's automata, built once for a built-in policy.
pub(super) struct Scan {
    /// Over the spawn patterns as compared.
    pub(super) spawn: Option<aho_corasick::AhoCorasick>,
    /// Over the document code markers as compared.
    doc_code: Option<aho_corasick::AhoCorasick>,
    /// The markers as compared, for the search the automaton stands for.
    markers: Vec<String>,
    /// The one-pass scan ([`Scan::find`]); `None` when the policy compares
    /// the content as it is (v1), whose plain search is one pass already,
    /// or when its automaton cannot be built: then each view is copied and
    /// searched, as v2 first did.
    fused: Option<Fused>,
}

/// What a file's content holds, as the policy compares it: a spawn
/// pattern (in the content without whitespace, or in it without comments
/// too when the policy ignores them), a document code marker (in the
/// content without whitespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    pub(super) spawn: bool,
    pub(super) doc_code: bool,
}

impl Scan {
    pub(super) fn of(policy: &RiskPolicy) -> Scan {
        let markers = compared(&policy.doc_code_markers, policy.spawn_ignores_whitespace);
        let spawn_patterns = policy.spawn_patterns();
        Scan {
            spawn: matcher(&spawn_patterns),
            doc_code: matcher(&markers),
            fused: Fused::of(
                &spawn_patterns,
                &markers,
                Views {
                    strip: policy.spawn_ignores_whitespace,
                    comments: policy.spawn_ignores_comments,
                    raw: policy.spawn_strips_raw_identifiers,
                    join: policy.spawn_joins_string_literals,
                },
            ),
            markers,
        }
    }

    /// What `content` holds, in one pass over its bytes ([`Fused`]), or,
    /// without the fused automaton, by copying each view and searching it.
    pub(super) fn find(&self, policy: &RiskPolicy, content: &[u8]) -> Found {
        match &self.fused {
            Some(f) => f.find(content),
            None => self.find_by_copies(policy, content),
        }
    }

    /// [`Scan::find`] as v2 first computed it: a copy without whitespace
    /// searched for spawn patterns and markers, and, when the content holds
    /// `/*` or `//`, a copy without comments searched again.
    pub(super) fn find_by_copies(&self, policy: &RiskPolicy, content: &[u8]) -> Found {
        let prepared = prepare(content, policy.spawn_ignores_whitespace);
        let prepared = normalized(
            &prepared,
            policy.spawn_strips_raw_identifiers,
            policy.spawn_joins_string_literals,
        );
        Found {
            spawn: policy.spawns(&prepared, &self.spawn)
                || policy.spawns_between_comments(content, self),
            doc_code: self.has_doc_code(&prepared),
        }
    }

    /// Whether `prepared` content holds a document code marker.
    pub(super) fn has_doc_code(&self, prepared: &[u8]) -> bool {
        match &self.doc_code {
            Some(m) => m.is_match(prepared),
            None => self
                .markers
                .iter()
                .any(|p| super::contains(prepared, p.as_bytes())),
        }
    }
}

/// Whether `path` matches one of `patterns` (ASCII case-insensitively) at
/// a path segment: a pattern ending `/` names a directory, matching a path
/// that starts with it or holds it after a `/`; another names a file,
/// matching the whole path or its end after a `/`, a `*` in its last
/// segment standing for any characters but `/` (`mise.*.toml`). No
/// allocation: the paths of a large change are each read against every
/// pattern.
pub(super) fn path_matches(path: &str, patterns: &[String]) -> bool {
    patterns
        .iter()
        .any(|p| path_matches_one(path.as_bytes(), p.as_bytes()))
}

fn path_matches_one(path: &[u8], p: &[u8]) -> bool {
    if p.is_empty() {
        return false;
    }
    if p.ends_with(b"/") {
        // At the start or right after a `/`.
        return (0..path.len())
            .filter(|&i| i == 0 || path[i - 1] == b'/')
            .any(|i| path.len() - i >= p.len() && path[i..i + p.len()].eq_ignore_ascii_case(p));
    }
    if p.contains(&b'*') {
        let want = p.split(|b| *b == b'/').count();
        let have = path.split(|b| *b == b'/').count();
        return have >= want
            && path
                .split(|b| *b == b'/')
                .skip(have - want)
                .zip(p.split(|b| *b == b'/'))
                .all(|(s, q)| segment_glob(s, q));
    }
    path.eq_ignore_ascii_case(p)
        || (path.len() > p.len()
            && path[path.len() - p.len() - 1] == b'/'
            && path[path.len() - p.len()..].eq_ignore_ascii_case(p))
}

/// Whether the path segment `s` matches `q`, whose first `*` stands for
/// any run of characters (ASCII case-insensitively).
fn segment_glob(s: &[u8], q: &[u8]) -> bool {
    match q.iter().position(|b| *b == b'*') {
        None => s.eq_ignore_ascii_case(q),
        Some(star) => {
            let (pre, post) = (&q[..star], &q[star + 1..]);
            s.len() >= pre.len() + post.len()
                && s[..pre.len()].eq_ignore_ascii_case(pre)
                && s[s.len() - post.len()..].eq_ignore_ascii_case(post)
        }
    }
}

impl super::ScriptsRule {
    /// Whether a changed file named `name` with `content` is one of the
    /// manifests and names an install-time script in its `scripts` object,
    /// or does not parse as a JSON object (a byte order mark aside): a
    /// parser more lenient than `serde_json` (comments, trailing commas)
    /// may still read its scripts, so it cannot be shown free of them. A
    /// deleted manifest runs nothing.
    pub(in crate::review) fn runs_on_install(
        &self,
        name: &str,
        content: &CandidateContent,
    ) -> bool {
        if !self.manifests.iter().any(|m| m == name) {
            return false;
        }
        let Some(bytes) = content.bytes() else {
            return false;
        };
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(serde_json::Value::Object(doc)) => match doc.get("scripts") {
                Some(serde_json::Value::Object(scripts)) => {
                    self.scripts.iter().any(|s| scripts.contains_key(s))
                }
                _ => false,
            },
            _ => true,
        }
    }
}

/// Whether `bytes`, its leading whitespace aside (ASCII, NEL and NBSP, as
/// Go's `TrimSpace`, which Git LFS reads a pointer with), starts with one
/// of `prefixes`.
pub(super) fn starts_with_any(bytes: &[u8], prefixes: &[String]) -> bool {
    if prefixes.is_empty() {
        return false;
    }
    let mut rest = bytes;
    loop {
        if let Some((b, r)) = rest.split_first()
            && (b.is_ascii_whitespace() || *b == 0x0b)
        {
            rest = r;
        } else if let Some(r) = rest
            .strip_prefix("\u{85}".as_bytes())
            .or_else(|| rest.strip_prefix("\u{a0}".as_bytes()))
        {
            rest = r;
        } else {
            break;
        }
    }
    prefixes.iter().any(|p| rest.starts_with(p.as_bytes()))
}

impl super::ManifestKeysRule {
    /// Whether a changed file named `name` with `content` is one of the
    /// manifests and names one of the keys: on a line with whitespace and
    /// quotes removed and `\uXXXX`/`\UXXXXXXXX` escapes read, the key
    /// followed by `=`, at the line's start or after `.`, `{`, `,` or `]`
    /// (a dotted, quoted, escaped or inline-table key; not a comment, not
    /// a longer key). Content that is not UTF-8 cannot be shown free of
    /// the keys. A deleted manifest runs nothing.
    pub(in crate::review) fn names_key(&self, name: &str, content: &CandidateContent) -> bool {
        if !self.manifests.iter().any(|m| m.eq_ignore_ascii_case(name)) {
            return false;
        }
        let Some(bytes) = content.bytes() else {
            return false;
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            return true;
        };
        text.lines().any(|line| {
            let flat = key_view(line);
            self.keys.iter().any(|k| {
                let want = format!("{k}=");
                flat.match_indices(&want).any(|(i, _)| {
                    i == 0 || matches!(flat.as_bytes()[i - 1], b'.' | b'{' | b',' | b']')
                })
            })
        })
    }
}

/// A TOML line as its keys read: escapes (`\u0069`) decoded, whitespace
/// and quotes removed.
fn key_view(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('u' | 'U')) {
            let width = if chars.next() == Some('u') { 4 } else { 8 };
            let hex: String = chars.by_ref().take(width).collect();
            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                Some(d) => out.push(d),
                None => out.push_str(&hex),
            }
        } else if !(c.is_whitespace() || c == '"' || c == '\'') {
            out.push(c);
        }
    }
    out
}

/// Whether a text document may hold an indented code block (which
/// rustdoc, for one, runs as a doctest): a line indented at least
/// `columns` (a tab reaching the next multiple of 4) that is not blank and
/// does not continue a paragraph, that is, that comes first or after a line
/// that is blank (`>` markers aside), a heading (`#`), HTML (`<`), a table
/// row (`|`) or a rule or underline (`-`, `=`, `*`, `_` only). A
/// conservative reading of CommonMark: a list's continuation after a blank
/// line counts too. `columns` 0: never. One pass.
pub(super) fn indented_code(bytes: &[u8], columns: u64) -> bool {
    if columns == 0 {
        return false;
    }
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let mut may_start = true;
    for line in lines(bytes) {
        // Block quote markers (`>`, each with the one space it may take)
        // are containers: what follows them is measured from there (red
        // team round 3: `>     code` is a code block rustdoc runs).
        let (col, rest) = indentation(quoted(line));
        // A list item's first line: its content starts after the marker and
        // one to four spaces; five or more open a code block in the item
        // (`-     code`, `1.\t\tcode`), whatever came before.
        if col < columns
            && let Some(content) = list_marker(rest)
        {
            let (gap, after) = indentation(content);
            if !after.is_empty() && gap > columns {
                return true;
            }
        }
        let blank = rest.is_empty();
        if !blank && col >= columns && may_start {
            return true;
        }
        may_start = blank || ends_a_block(rest);
    }
    false
}

/// `line` after its block quote markers: each `>` (after up to three
/// spaces) and the one space or tab that may follow it.
fn quoted(line: &[u8]) -> &[u8] {
    let mut rest = line;
    loop {
        let trimmed = rest.iter().take(3).take_while(|b| **b == b' ').count();
        match rest[trimmed..].split_first() {
            Some((b'>', tail)) => {
                rest = tail
                    .strip_prefix(b" ")
                    .or_else(|| tail.strip_prefix(b"\t"))
                    .unwrap_or(tail);
            }
            _ => return rest,
        }
    }
}

/// The columns of `line`'s leading spaces and tabs (a tab to the next
/// multiple of four), and what follows them.
fn indentation(line: &[u8]) -> (u64, &[u8]) {
    let mut col = 0u64;
    let mut rest = line;
    while let Some((&b, tail)) = rest.split_first() {
        match b {
            b' ' => col += 1,
            b'\t' => col = (col / 4 + 1) * 4,
            _ => break,
        }
        rest = tail;
    }
    (col, rest)
}

/// What follows a list item's marker (`-`, `*`, `+`, or one to nine
/// digits and `.` or `)`) at the start of `rest`, when the marker is
/// followed by a space or a tab.
fn list_marker(rest: &[u8]) -> Option<&[u8]> {
    let digits = rest
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_digit())
        .count();
    let after = match rest.get(digits) {
        Some(b'-' | b'*' | b'+') if digits == 0 => &rest[1..],
        Some(b'.' | b')') if digits > 0 => &rest[digits + 1..],
        _ => return None,
    };
    matches!(after.first(), Some(b' ' | b'\t')).then_some(after)
}

/// The lines of `bytes` as CommonMark ends them: at `\n`, `\r\n` or a
/// lone `\r`.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(bytes);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.iter().position(|b| *b == b'\n' || *b == b'\r') {
            Some(i) => {
                let skip = if r[i..].starts_with(b"\r\n") { 2 } else { 1 };
                rest = Some(&r[i + skip..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// A line (indentation removed) after which an indented line starts a
/// block rather than continuing a paragraph.
fn ends_a_block(line: &[u8]) -> bool {
    let quoted_blank = line.iter().all(|b| *b == b'>' || b.is_ascii_whitespace());
    let rule = line.len() >= 3
        && line
            .iter()
            .all(|b| matches!(b, b'-' | b'=' | b'*' | b'_') || b.is_ascii_whitespace());
    quoted_blank || rule || matches!(line.first(), Some(b'#' | b'<' | b'|'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexer_whitespace_and_comments_are_removed() {
        let wide = "a\u{200e}::\u{a0}b\u{2028}(\u{feff}\x0b".as_bytes();
        assert_eq!(&*prepare(wide, true), b"a::b(");
        assert_eq!(
            uncommented(b"C/* x */:: /**/new // y\n(\"//\")", true),
            b"C::new(\""
        );
        assert_eq!(uncommented(b"a /* open", true), b"a");
        assert_eq!(uncommented(b"a // b\nc", false), b"a \nc");
    }

    #[test]
    fn whitespace_is_removed_from_both_sides() {
        assert_eq!(&*prepare(b"a :: b\n::\tC (\r\n", true), b"a::b::C(");
        assert_eq!(&*prepare(b"a b", false), b"a b");
        assert_eq!(
            compared(&["Command as".into(), " ".into()], true),
            ["Commandas", ""]
        );
        assert_eq!(compared(&["Command as".into()], false), ["Command as"]);
    }

    #[test]
    fn paths_match_at_a_segment() {
        let dirs: &[&str] = &[".claude/", ".github/prompts/"];
        let files: &[&str] = &[".mcp.json"];
        // A `*` in a file pattern's last segment (v3).
        let globs: &[&str] = &["mise.*.toml", "*.code-workspace"];
        let deep: &[&str] = &["gradle/wrapper/*.jar"];
        for (patterns, path, want) in [
            (dirs, ".claude/commands/deploy.md", true),
            (dirs, "pkg/.claude/agents/a.md", true),
            (dirs, ".CLAUDE/skills/x/SKILL.md", true),
            (dirs, ".github/prompts/fix.prompt.md", true),
            (dirs, "docs/x.claude/a.md", false),
            (dirs, "docs/claude/a.md", false),
            (dirs, ".github/README.md", false),
            (files, ".mcp.json", true),
            (files, "tools/.mcp.json", true),
            (files, "x.mcp.json", false),
            (files, ".mcp.json.md", false),
            (&[], ".mcp.json", false),
            (globs, "mise.local.toml", true),
            (globs, "svc/MISE.Dev.toml", true),
            (globs, "team.code-workspace", true),
            (globs, "a/b/.code-workspace", true),
            (globs, "mise.toml", false),
            (globs, "mise.local.toml/x", false),
            (globs, "x.code-workspace.md", false),
            (deep, "app/gradle/wrapper/gradle-wrapper.jar", true),
            (deep, "wrapper/gradle-wrapper.jar", false),
            (deep, "app/xgradle/wrapper/a.jar", false),
        ] {
            let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
            assert_eq!(path_matches(path, &patterns), want, "{path} {patterns:?}");
        }
    }

    /// Fragments the fused scan must treat as the copies do: comment
    /// openers and closers, whitespace (multi-byte ones whole and cut),
    /// pieces of spawn patterns and of document code markers.
    const PIECES: &[&[u8]] = &[
        b"/",
        b"*",
        b"\n",
        b" ",
        b"\x0b",
        "\u{a0}".as_bytes(),
        b"\xc2",
        b"\xa0",
        b"\xe2\x80",
        b"\x8e",
        b"\xef\xbb",
        b"\xbf",
        b"Command",
        b"::",
        b"new(",
        b"``",
        b"`",
        b"~~",
        b">>",
        b"system(",
        b"Comm",
        b"and::new(",
        b"x",
        // v5's views: raw identifiers, joined literals, continuations.
        b"r",
        b"#",
        b"\"",
        b"'",
        b"\\",
        b"process",
    ];

    /// The fused one-pass scan answers exactly as copying each view and
    /// searching it did, for every built-in policy that compares views (v1
    /// searches its content as it is, by the plain automata): on every
    /// sequence of up to four of [`PIECES`], and on 20,000 longer ones.
    #[test]
    fn the_one_pass_scan_answers_as_the_copies_did() {
        let policies = [
            RiskPolicy::v1(),
            RiskPolicy::v2(),
            RiskPolicy::v3(),
            RiskPolicy::v4(),
            RiskPolicy::v5(),
            RiskPolicy::v6(),
        ];
        let scans: Vec<Scan> = policies.iter().map(|p| Scan::of(p)).collect();
        assert!(scans[0].fused.is_none());
        assert!(scans[1..].iter().all(|s| s.fused.is_some()));
        let check = |bytes: &[u8]| {
            for (p, s) in policies.iter().zip(&scans) {
                assert_eq!(
                    s.find(p, bytes),
                    s.find_by_copies(p, bytes),
                    "{} {:?}",
                    p.schema,
                    String::from_utf8_lossy(bytes)
                );
            }
        };
        let k = PIECES.len();
        let mut n = 0;
        for len in 0..=4u32 {
            for mut code in 0..k.pow(len) {
                let mut bytes = Vec::new();
                for _ in 0..len {
                    bytes.extend_from_slice(PIECES[code % k]);
                    code /= k;
                }
                check(&bytes);
                n += 1;
            }
        }
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize
        };
        for _ in 0..20_000 {
            let len = next() % 40;
            let bytes: Vec<u8> = (0..len)
                .flat_map(|_| PIECES[next() % k].iter().copied())
                .collect();
            check(&bytes);
            n += 1;
        }
        // Whole spawns and markers, apart and commented apart.
        for text in [
            &b"Command :: new (\"sh\")"[..],
            b"Command/* c */::new(",
            b"Command// c\n::new(",
            b"Comm\xc2/**/\xa0and::new(",
            b"/*/ Command::new( */",
            b"Comm/*/and::new(*/",
            b"Comm/**/and::new(",
            b"Comm//x\nand::new(",
            b"```rust\n```",
            b"// ```\n",
            b"std::pro/**/cess",
            b"std::r#process",
            b"std::r#/**/process",
            b"r#r#x r#",
            b"'sub' \\\n 'process'",
            b"\"sub\"/* c */\"process\"",
            b"'''''",
        ] {
            check(text);
        }
        assert!(n > 200_000, "{n}");
    }

    /// What `path_matches` answered before it stopped allocating: both
    /// sides lowercased, then `starts_with`/`contains` and `==`/`ends_with`.
    fn path_matches_by_copies(path: &str, patterns: &[String]) -> bool {
        let path = path.to_ascii_lowercase();
        patterns.iter().any(|p| {
            let p = p.to_ascii_lowercase();
            if p.is_empty() {
                return false;
            }
            let inner = format!("/{p}");
            if p.ends_with('/') {
                path.starts_with(&p) || path.contains(&inner)
            } else {
                path == p || path.ends_with(&inner)
            }
        })
    }

    /// v2's answers are unchanged: every pattern of v2 (none holds a `*`)
    /// against paths built from the patterns' own pieces, at every depth
    /// and case, answers as the copying search did.
    #[test]
    fn path_matching_answers_as_the_copying_search_did() {
        let v2 = RiskPolicy::v2();
        let mut patterns: Vec<String> = v2.agent_instruction_paths.clone();
        patterns.extend(v2.agent_hook_paths.iter().cloned());
        assert!(patterns.iter().all(|p| !p.contains('*')));
        let mut pieces: Vec<String> = vec!["".into(), "x".into(), "a/b".into(), "/".into()];
        for p in &patterns {
            pieces.push(p.clone());
            pieces.push(p.trim_end_matches('/').to_string());
            pieces.push(p.to_ascii_uppercase());
            pieces.push(p[1..].to_string());
            pieces.push(format!("x{p}"));
        }
        let mut n = 0;
        for a in &pieces {
            for b in &pieces {
                let path = format!("{a}/{b}");
                for candidate in [path.as_str(), path.trim_start_matches('/'), a.as_str()] {
                    for p in &patterns {
                        let one = std::slice::from_ref(p);
                        assert_eq!(
                            path_matches(candidate, one),
                            path_matches_by_copies(candidate, one),
                            "{candidate} {p}"
                        );
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 1_000_000, "{n}");
    }

    #[test]
    fn indented_code_lines_are_found_where_a_block_may_start() {
        assert!(indented_code(b"    let x = 1;\n", 4));
        assert!(indented_code(b"# T\n\n    code\n", 4));
        assert!(indented_code(b"# T\n    code\n", 4));
        assert!(indented_code(b"Title\n=====\n    code\n", 4));
        assert!(indented_code(b"text\r\n\r\n\tcode\r\n", 4));
        assert!(indented_code(b"> quote\n>\n    code\n", 4));
        assert!(indented_code(b"  \t code\n", 4));
        // Red team round 3: code in a block quote or a list item.
        assert!(indented_code(b">     code\n", 4));
        assert!(indented_code(b"> quote\n>\n>     code\n", 4));
        assert!(indented_code(b"-     code\n", 4));
        assert!(indented_code(b"text\n\n1.\t\tcode\n", 4));
        assert!(indented_code(b"* a\n*      code\n", 4));
        assert!(!indented_code(b"- an item\n- another\n", 4));
        assert!(!indented_code(b"> a quote\n> goes on\n", 4));
        assert!(!indented_code(b"1. first\n2.  second\n", 4));
        // A paragraph's continuation, a list's nested item, too little
        // indentation, blank indented lines: no block starts.
        assert!(!indented_code(b"text\n    more text\n", 4));
        assert!(!indented_code(b"- item\n    - nested\n    - nested\n", 4));
        assert!(!indented_code(b"\n   three\n", 4));
        assert!(!indented_code(b"a\n\n    \n\t\nb\n", 4));
        assert!(!indented_code(b"    code\n", 0));
        // CommonMark's other line endings, and a byte order mark.
        assert!(indented_code(b"# T\r    code\r", 4));
        assert!(indented_code("\u{feff}    code\n".as_bytes(), 4));
        assert!(!indented_code(b"text\r    more\r", 4));
    }
}
