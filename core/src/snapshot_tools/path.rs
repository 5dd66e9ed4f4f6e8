//! Repo-relative paths and globs, validated and resolved lexically (S1.4).
//!
//! A [`SnapshotPath`] is the only path type a subject adapter accepts: it is
//! non-empty, relative, free of NUL, `.`, `..` and empty components, and has
//! no `.git` component. Paths are bytes so that non-UTF-8 names survive; they
//! render lossily for people and models.

use std::borrow::Cow;
use std::fmt;

/// Why a path (or glob) was refused. The text is what the reviewer reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathRefusal {
    #[error("refused: the path is empty")]
    Empty,
    #[error("refused: the path contains a NUL byte")]
    Nul,
    #[error("refused: the path is absolute; paths are relative to the repository root")]
    Absolute,
    #[error("refused: the path escapes the repository root (`..` above the root)")]
    Escapes,
    #[error("refused: `.git` is not part of the snapshot")]
    GitDir,
    #[error("refused: the path names the repository root, not a file")]
    Root,
    #[error("refused: a glob may not contain `..`")]
    GlobParent,
    #[error("refused: the path goes through a symbolic link ({0})")]
    ThroughSymlink(String),
    #[error("refused: the path resolves outside the root")]
    OutsideRoot,
}

/// A validated, lexically normalized repo-relative path (`a/../b` → `b`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SnapshotPath(Vec<u8>);

/// The result of resolving a caller's path: the root itself, or a path under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Root,
    Path(SnapshotPath),
}

fn is_git_component(c: &[u8]) -> bool {
    c.eq_ignore_ascii_case(b".git")
}

/// `/x`, `\\x` and a drive root `C:/x` or `C:\\x`. (`a:b` is a relative name.)
fn is_absolute(raw: &[u8]) -> bool {
    raw.first() == Some(&b'/')
        || raw.first() == Some(&b'\\')
        || (raw.len() >= 3
            && raw[0].is_ascii_alphabetic()
            && raw[1] == b':'
            && (raw[2] == b'/' || raw[2] == b'\\'))
}

impl SnapshotPath {
    /// Resolves `raw` lexically under the root. `.` and `a/..` resolve to
    /// [`Resolved::Root`].
    pub fn resolve(raw: &[u8]) -> Result<Resolved, PathRefusal> {
        if raw.is_empty() {
            return Err(PathRefusal::Empty);
        }
        if raw.contains(&0) {
            return Err(PathRefusal::Nul);
        }
        if is_absolute(raw) {
            return Err(PathRefusal::Absolute);
        }
        let mut parts: Vec<&[u8]> = Vec::new();
        for c in raw.split(|b| *b == b'/') {
            match c {
                b"" | b"." => {}
                b".." => {
                    if parts.pop().is_none() {
                        return Err(PathRefusal::Escapes);
                    }
                }
                c if is_git_component(c) => return Err(PathRefusal::GitDir),
                c => parts.push(c),
            }
        }
        if parts.is_empty() {
            return Ok(Resolved::Root);
        }
        Ok(Resolved::Path(SnapshotPath(parts.join(&b'/'))))
    }

    /// Resolves `raw` and requires a path under the root (not the root).
    pub fn parse(raw: &[u8]) -> Result<Self, PathRefusal> {
        match Self::resolve(raw)? {
            Resolved::Root => Err(PathRefusal::Root),
            Resolved::Path(p) => Ok(p),
        }
    }

    /// The normalized bytes (`/`-separated).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The components, in order.
    pub fn components(&self) -> impl Iterator<Item = &[u8]> {
        self.0.split(|b| *b == b'/')
    }

    /// True when this path is `dir` or lies under it.
    pub fn is_within(&self, dir: &SnapshotPath) -> bool {
        self.0 == dir.0 || (self.0.starts_with(&dir.0) && self.0.get(dir.0.len()) == Some(&b'/'))
    }

    /// A lossy rendering for people and models.
    pub fn display(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// True when the bytes are valid UTF-8.
    pub fn is_utf8(&self) -> bool {
        std::str::from_utf8(&self.0).is_ok()
    }
}

impl fmt::Debug for SnapshotPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SnapshotPath({:?})", self.display())
    }
}

impl fmt::Display for SnapshotPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// A validated glob for `list`.
///
/// Syntax: `*` and `?` match within one path component, `**` matches across
/// components (`**/` also matches no directory), `[abc]`, `[a-z]`, `[!a]`
/// classes, `\` escapes. A glob without `/` matches the file name at any
/// depth (`*.rs`); a glob without wildcards matches that path or anything
/// under it (`src`).
#[derive(Clone, PartialEq, Eq)]
pub struct Glob {
    raw: Vec<u8>,
    tokens: Vec<Token>,
    anchored: bool,
    literal: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Lit(u8),
    Any,
    Star,
    DoubleStar,
    DoubleStarSlash,
    Class { negated: bool, items: Vec<(u8, u8)> },
}

impl fmt::Debug for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Glob({:?})", String::from_utf8_lossy(&self.raw))
    }
}

impl Glob {
    /// Validates a glob. An empty glob (or `.`) means "everything": `None`.
    pub fn parse(raw: &[u8]) -> Result<Option<Self>, PathRefusal> {
        if raw.contains(&0) {
            return Err(PathRefusal::Nul);
        }
        // A leading `\` is an escape in a glob, not a root.
        if raw.first() == Some(&b'/') || (is_absolute(raw) && raw.first() != Some(&b'\\')) {
            return Err(PathRefusal::Absolute);
        }
        let mut parts: Vec<&[u8]> = Vec::new();
        for c in raw.split(|b| *b == b'/') {
            match c {
                b"" | b"." => {}
                b".." => return Err(PathRefusal::GlobParent),
                c if is_git_component(c) => return Err(PathRefusal::GitDir),
                c => parts.push(c),
            }
        }
        if parts.is_empty() {
            return Ok(None);
        }
        let norm = parts.join(&b'/');
        let tokens = tokenize(&norm);
        let literal = tokens.iter().all(|t| matches!(t, Token::Lit(_)));
        Ok(Some(Self {
            anchored: parts.len() > 1 || literal,
            raw: norm,
            tokens,
            literal,
        }))
    }

    /// The normalized glob text (lossy).
    pub fn display(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.raw)
    }

    /// Does `path` match?
    pub fn matches(&self, path: &[u8]) -> bool {
        if self.literal {
            let lit: Vec<u8> = self
                .tokens
                .iter()
                .filter_map(|t| match t {
                    Token::Lit(b) => Some(*b),
                    _ => None,
                })
                .collect();
            return path == lit.as_slice()
                || (path.starts_with(&lit) && path.get(lit.len()) == Some(&b'/'));
        }
        if self.anchored {
            return match_tokens(&self.tokens, path);
        }
        let base = match path.iter().rposition(|b| *b == b'/') {
            Some(i) => &path[i + 1..],
            None => path,
        };
        match_tokens(&self.tokens, base)
    }
}

fn tokenize(p: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' if i + 1 < p.len() => {
                out.push(Token::Lit(p[i + 1]));
                i += 2;
            }
            b'?' => {
                out.push(Token::Any);
                i += 1;
            }
            b'*' => {
                if p.get(i + 1) == Some(&b'*') {
                    if p.get(i + 2) == Some(&b'/') {
                        out.push(Token::DoubleStarSlash);
                        i += 3;
                    } else {
                        out.push(Token::DoubleStar);
                        i += 2;
                        while p.get(i) == Some(&b'*') {
                            i += 1;
                        }
                    }
                } else {
                    out.push(Token::Star);
                    i += 1;
                }
            }
            b'[' => match parse_class(&p[i..]) {
                Some((tok, used)) => {
                    out.push(tok);
                    i += used;
                }
                None => {
                    out.push(Token::Lit(b'['));
                    i += 1;
                }
            },
            b => {
                out.push(Token::Lit(b));
                i += 1;
            }
        }
    }
    out
}

/// Parses `[...]` at the start of `p`; returns the token and bytes used.
fn parse_class(p: &[u8]) -> Option<(Token, usize)> {
    let mut i = 1;
    let negated = matches!(p.get(i), Some(b'!') | Some(b'^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *p.get(i)?;
        if c == b']' && !first {
            return Some((Token::Class { negated, items }, i + 1));
        }
        first = false;
        let lo = if c == b'\\' {
            i += 1;
            *p.get(i)?
        } else {
            c
        };
        if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|b| *b != b']') {
            let hi = *p.get(i + 2)?;
            items.push((lo, hi));
            i += 3;
        } else {
            items.push((lo, lo));
            i += 1;
        }
    }
}

fn match_tokens(t: &[Token], s: &[u8]) -> bool {
    match t.split_first() {
        None => s.is_empty(),
        Some((tok, rest)) => match tok {
            Token::Lit(c) => s.first() == Some(c) && match_tokens(rest, &s[1..]),
            Token::Any => s.first().is_some_and(|b| *b != b'/') && match_tokens(rest, &s[1..]),
            Token::Class { negated, items } => {
                s.first().is_some_and(|b| {
                    *b != b'/' && (items.iter().any(|(lo, hi)| lo <= b && b <= hi) != *negated)
                }) && match_tokens(rest, &s[1..])
            }
            Token::Star => {
                let mut i = 0;
                loop {
                    if match_tokens(rest, &s[i..]) {
                        return true;
                    }
                    if i >= s.len() || s[i] == b'/' {
                        return false;
                    }
                    i += 1;
                }
            }
            Token::DoubleStar => (0..=s.len()).any(|i| match_tokens(rest, &s[i..])),
            Token::DoubleStarSlash => {
                if match_tokens(rest, s) {
                    return true;
                }
                s.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'/')
                    .any(|(i, _)| match_tokens(rest, &s[i + 1..]))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Resolved, PathRefusal> {
        SnapshotPath::resolve(s.as_bytes())
    }

    fn path(s: &str) -> Resolved {
        Resolved::Path(SnapshotPath(s.as_bytes().to_vec()))
    }

    #[test]
    fn resolves_lexically() {
        assert_eq!(p("a/../b"), Ok(path("b")));
        assert_eq!(p("./a//b/."), Ok(path("a/b")));
        assert_eq!(p("a/.."), Ok(Resolved::Root));
        assert_eq!(p("."), Ok(Resolved::Root));
        assert_eq!(p("-rf"), Ok(path("-rf")));
    }

    #[test]
    fn refuses_escapes_with_reason() {
        assert_eq!(p(""), Err(PathRefusal::Empty));
        assert_eq!(p(".."), Err(PathRefusal::Escapes));
        assert_eq!(p("a/../../b"), Err(PathRefusal::Escapes));
        assert_eq!(p("/etc/passwd"), Err(PathRefusal::Absolute));
        assert_eq!(p("C:/x"), Err(PathRefusal::Absolute));
        assert_eq!(p("c:\\x"), Err(PathRefusal::Absolute));
        assert_eq!(p("a:b"), Ok(path("a:b")));
        assert_eq!(p("a\0b"), Err(PathRefusal::Nul));
        assert_eq!(p(".git/config"), Err(PathRefusal::GitDir));
        assert_eq!(p("sub/.GIT/HEAD"), Err(PathRefusal::GitDir));
        assert_eq!(SnapshotPath::parse(b"a/.."), Err(PathRefusal::Root));
        assert!(
            PathRefusal::Escapes
                .to_string()
                .contains("escapes the repository root")
        );
    }

    #[test]
    fn git_like_names_are_not_git() {
        assert_eq!(p(".gitignore"), Ok(path(".gitignore")));
        assert_eq!(p("a/.github/x"), Ok(path("a/.github/x")));
    }

    #[test]
    fn non_utf8_survives() {
        let r = SnapshotPath::parse(b"caf\xe9.txt").unwrap();
        assert_eq!(r.as_bytes(), b"caf\xe9.txt");
        assert!(!r.is_utf8());
        assert_eq!(r.display(), "caf\u{fffd}.txt");
    }

    #[test]
    fn within() {
        let a = SnapshotPath::parse(b"src/a.rs").unwrap();
        assert!(a.is_within(&SnapshotPath::parse(b"src").unwrap()));
        assert!(!a.is_within(&SnapshotPath::parse(b"sr").unwrap()));
    }

    fn g(s: &str) -> Glob {
        Glob::parse(s.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn globs() {
        assert!(g("*.rs").matches(b"src/deep/a.rs"));
        assert!(g("*.rs").matches(b"a.rs"));
        assert!(!g("src/*.rs").matches(b"src/deep/a.rs"));
        assert!(g("src/*.rs").matches(b"src/a.rs"));
        assert!(g("src/**/*.rs").matches(b"src/a.rs"));
        assert!(g("src/**/*.rs").matches(b"src/x/y/a.rs"));
        assert!(g("src/**").matches(b"src/x/y/a.rs"));
        assert!(g("src").matches(b"src/x/y/a.rs"));
        assert!(!g("src").matches(b"srcx/a"));
        assert!(g("a[0-9].t?t").matches(b"a5.txt"));
        assert!(!g("a[!0-9].txt").matches(b"a5.txt"));
        assert!(g("-*").matches(b"-rf"));
        assert!(g("\\*").matches(b"*"));
        assert!(Glob::parse(b"").unwrap().is_none());
        assert_eq!(Glob::parse(b"../x"), Err(PathRefusal::GlobParent));
        assert_eq!(Glob::parse(b".git/*"), Err(PathRefusal::GitDir));
        assert_eq!(Glob::parse(b"/x"), Err(PathRefusal::Absolute));
    }
}
