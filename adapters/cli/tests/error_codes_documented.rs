//! Every machine-readable error code the CLI can emit is documented in
//! `docs/errors.md`.
//!
//! The sources under `adapters/cli/src` are tokenized by hand (comments
//! skipped, string literals kept whole) and every string literal used as an
//! error code is collected:
//! - the second argument of `CliError::new(kind, "code", ...)`;
//! - the tuples `(ErrorKind::X, "code", next)` / `(X, "code", next)` a
//!   `match` maps a driver error through;
//! - the first argument of a helper declared `fn name(code: &str, ...)`
//!   (`usage("bad_range", ...)`);
//! - the `(code, next)` arms of `let (code, next) = match ...`;
//! - the fallback of `.code().unwrap_or("code")`.
//!
//! The test fails naming each code `docs/errors.md` does not mention in
//! backticks, and it fails if the scanner finds too few codes (so it can
//! never pass by finding none).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The variants of `ErrorKind` (adapters/cli/src/output.rs).
const KINDS: [&str; 6] = [
    "Usage",
    "RejectedInput",
    "Conflict",
    "Repository",
    "Integrity",
    "Io",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
}

/// A token and the 1-based line it starts on.
type Token = (Tok, usize);

/// Tokenizes Rust source: identifiers (and numbers), string literals
/// (plain, byte and raw; the contents unescaped only as far as a code
/// needs), single punctuation characters. Comments, char literals and
/// lifetimes produce nothing that could be taken for a code.
fn tokenize(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0usize;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some((text, end, lines)) = raw_string(&c, i) {
            out.push((Tok::Str(text), line));
            line += lines;
            i = end;
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            let start_line = line;
            i += if ch == 'b' { 2 } else { 1 };
            let mut text = String::new();
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    if at(i + 1) == '\n' {
                        line += 1;
                    }
                    text.push(at(i + 1));
                    i += 2;
                    continue;
                }
                if c[i] == '\n' {
                    line += 1;
                }
                text.push(c[i]);
                i += 1;
            }
            i += 1;
            out.push((Tok::Str(text), start_line));
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                // An escaped char literal: '\n', '\'', '\u{..}'.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime or label: the name is tokenized as an identifier.
                i += 1;
            }
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// A raw string literal (`r"..."`, `r#"..."#`, `br"..."`) starting at `i`:
/// its text, the index after it and the newlines it spans.
fn raw_string(c: &[char], i: usize) -> Option<(String, usize, usize)> {
    // Not the tail of an identifier (`bar"` is not a raw string).
    if i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    let start = j;
    loop {
        if j >= c.len() {
            return None;
        }
        if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
            let text: String = c[start..j].iter().collect();
            let lines = text.matches('\n').count();
            return Some((text, j + 1 + hashes, lines));
        }
        j += 1;
    }
}

/// What an error code looks like: lowercase snake case.
fn is_code(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn is_punct(t: Option<&Token>, p: char) -> bool {
    matches!(t, Some((Tok::Punct(q), _)) if *q == p)
}

fn is_ident(t: Option<&Token>, name: &str) -> bool {
    matches!(t, Some((Tok::Ident(n), _)) if n == name)
}

fn string_at(t: &[Token], k: usize) -> Option<(&str, usize)> {
    match t.get(k) {
        Some((Tok::Str(s), line)) => Some((s.as_str(), *line)),
        _ => None,
    }
}

/// The index of the bracket closing the one at `open` (any of `([{`).
fn closing(t: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, (tok, _)) in t.iter().enumerate().skip(open) {
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The index of the first `,` at bracket depth 0 from `from` (the end of a
/// call's argument), stopping at the call's closing bracket.
fn argument_end(t: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, (tok, _)) in t.iter().enumerate().skip(from) {
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') if depth == 0 => return None,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// After `(` at `k`: a path (`ErrorKind::Usage`, `Usage`,
/// `output::ErrorKind::Io`) ending in an `ErrorKind` variant; returns the
/// index after it.
fn kind_path(t: &[Token], mut k: usize) -> Option<usize> {
    loop {
        let Some((Tok::Ident(name), _)) = t.get(k) else {
            return None;
        };
        if is_punct(t.get(k + 1), ':') && is_punct(t.get(k + 2), ':') {
            k += 3;
            continue;
        }
        return KINDS.contains(&name.as_str()).then_some(k + 1);
    }
}

/// Every error code in one file's tokens, with the line it is on.
fn codes_in(t: &[Token]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut push = |s: &str, line: usize| {
        if is_code(s) {
            found.push((s.to_owned(), line));
        }
    };
    // Helpers whose first parameter is the code: `fn usage(code: &str, ...)`.
    let helpers: BTreeSet<&str> = (0..t.len())
        .filter_map(|k| match (&t[k].0, t.get(k + 1)) {
            (Tok::Ident(f), Some((Tok::Ident(name), _)))
                if f == "fn"
                    && is_punct(t.get(k + 2), '(')
                    && is_ident(t.get(k + 3), "code")
                    && is_punct(t.get(k + 4), ':') =>
            {
                Some(name.as_str())
            }
            _ => None,
        })
        .collect();
    for k in 0..t.len() {
        // CliError::new(<kind>, "code", ...)
        if is_ident(t.get(k), "CliError")
            && is_punct(t.get(k + 1), ':')
            && is_punct(t.get(k + 2), ':')
            && is_ident(t.get(k + 3), "new")
            && is_punct(t.get(k + 4), '(')
            && let Some(comma) = argument_end(t, k + 5)
            && let Some((s, line)) = string_at(t, comma + 1)
            && is_punct(t.get(comma + 2), ',')
        {
            push(s, line);
        }
        // (Kind, "code", next)
        if is_punct(t.get(k), '(')
            && let Some(after) = kind_path(t, k + 1)
            && is_punct(t.get(after), ',')
            && let Some((s, line)) = string_at(t, after + 1)
            && is_punct(t.get(after + 2), ',')
        {
            push(s, line);
        }
        // usage("code", ...), for a helper declared with a `code` parameter
        if let Some((Tok::Ident(name), _)) = t.get(k)
            && helpers.contains(name.as_str())
            && !is_ident(k.checked_sub(1).and_then(|p| t.get(p)), "fn")
            && is_punct(t.get(k + 1), '(')
            && let Some((s, line)) = string_at(t, k + 2)
        {
            push(s, line);
        }
        // let (code, next) = match e { A => ("code", "next"), ... }
        if is_ident(t.get(k), "let")
            && is_punct(t.get(k + 1), '(')
            && is_ident(t.get(k + 2), "code")
            && let Some(close) = closing(t, k + 1)
            && is_punct(t.get(close + 1), '=')
            && is_ident(t.get(close + 2), "match")
            && let Some(open) = (close + 3..t.len()).find(|&j| is_punct(t.get(j), '{'))
            && let Some(end) = closing(t, open)
        {
            for j in open..end {
                if is_punct(t.get(j), '=')
                    && is_punct(t.get(j + 1), '>')
                    && is_punct(t.get(j + 2), '(')
                    && let Some((s, line)) = string_at(t, j + 3)
                {
                    push(s, line);
                }
            }
        }
        // .code().unwrap_or("code")
        if is_ident(t.get(k), "code")
            && is_punct(t.get(k + 1), '(')
            && is_punct(t.get(k + 2), ')')
            && is_punct(t.get(k + 3), '.')
            && is_ident(t.get(k + 4), "unwrap_or")
            && is_punct(t.get(k + 5), '(')
            && let Some((s, line)) = string_at(t, k + 6)
        {
            push(s, line);
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every code under `adapters/cli/src`, with the places that use it.
fn cli_codes() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() >= 10, "found only {} source files", files.len());
    let mut codes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
        for (code, line) in codes_in(&tokenize(&src)) {
            codes
                .entry(code)
                .or_default()
                .insert(format!("{rel}:{line}"));
        }
    }
    codes
}

#[test]
fn every_error_code_is_documented() {
    let codes = cli_codes();
    assert!(
        codes.len() >= 100,
        "the scanner found only {} error codes: {:?}",
        codes.len(),
        codes.keys().collect::<Vec<_>>()
    );
    // One code found by each pattern the scanner knows.
    for known in [
        "stale_revision",       // (Conflict, "stale_revision", ...)
        "binding_mismatch",     // (RejectedInput, "binding_mismatch", ...)
        "input_too_large",      // CliError::new(ErrorKind::RejectedInput, ...)
        "usage",                // CliError::new(output::ErrorKind::Usage, ...)
        "forge_unauthorized",   // (ErrorKind::RejectedInput, "...", format!(..))
        "bad_ref",              // usage("bad_ref", ...)
        "invalid_index_source", // let (code, next) = match ...
        "bundle_invalid",       // .code().unwrap_or("bundle_invalid")
        "context_dir_exists",
        "model_not_configured",
        "zero_forecast",
    ] {
        assert!(
            codes.contains_key(known),
            "the scanner missed `{known}`; it found {:?}",
            codes.keys().collect::<Vec<_>>()
        );
    }
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    let doc = std::fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()));
    let missing: Vec<String> = codes
        .iter()
        .filter(|(code, _)| !doc.contains(&format!("`{code}`")))
        .map(|(code, places)| {
            format!(
                "`{code}` ({})",
                places.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/errors.md does not document {} error code(s) the CLI emits:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

#[test]
fn the_scanner_reads_codes_not_comments_or_sentences() {
    let src = r####"
        // CliError::new(ErrorKind::Io, "in_a_line_comment", "x", "y")
        /* CliError::new(ErrorKind::Io, "in_a_block_comment", "x", "y") /* nested */ */
        fn f<'a>(c: char) -> CliError {
            let _ = ('"', '\'', "CliError::new(ErrorKind::Io, \"inside_a_string\", a, b)");
            let _ = r#"CliError::new(ErrorKind::Io, "inside_a_raw_string", a, b)"#;
            let (kind, next) = match e {
                A => (ErrorKind::Conflict, "a sentence, not a code",),
            };
            let (code, next) = match e {
                B => ("arm_code", "the next step"),
            };
            fn usage(code: &str, m: &str, n: &str) -> CliError { todo!() }
            let _ = usage("helper_code", "m", "n");
            let _ = e.code().unwrap_or("fallback_code");
            let _ = (Integrity, "tuple_code", "next");
            CliError::new(
                crate::output::ErrorKind::Usage,
                "new_code",
                format!("{}, {}", a, b),
                "next",
            )
        }
    "####;
    let found: BTreeSet<String> = codes_in(&tokenize(src))
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    let expected: BTreeSet<String> = [
        "arm_code",
        "helper_code",
        "fallback_code",
        "tuple_code",
        "new_code",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, expected);
}
