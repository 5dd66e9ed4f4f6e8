//! Every machine-readable error code the CLI can emit is documented in
//! `docs/errors.md`.
//!
//! The sources under `adapters/cli/src`, core's `review` error types and
//! the ports' `ReviewError` are tokenized by hand (comments
//! skipped, string literals kept whole) and every string literal used as an
//! error code is collected:
//! - the second argument of `CliError::new(kind, "code", ...)`;
//! - the tuples `(ErrorKind::X, "code", next)` / `(X, "code", next)` a
//!   `match` maps a driver error through, and the `(Class, "code")` of
//!   the error types' own `classify` in core and the ports;
//! - the first argument of a helper declared `fn name(code: &str, ...)`
//!   (`usage("bad_range", ...)`);
//! - the `(code, next)` arms of `let (code, next) = match ...`;
//! - the fallback of `.code().unwrap_or("code")`.
//!
//! The test fails naming each code `docs/errors.md` does not mention in
//! backticks, and it fails if the scanner finds too few codes (so it can
//! never pass by finding none).
//!
//! The exit codes are checked too (the cli invariant: documented exit
//! codes). Statically, the `kind` → exit table of `docs/errors.md` is the
//! mapping `ErrorKind::exit_code` in `adapters/cli/src/output.rs` spells (read
//! as text) and the list `probity --help` prints. By behaviour, one error of
//! every kind (and a few more) is provoked through the binary in real
//! repositories: its exit is the one the table gives its `kind`, the one
//! the code's own row gives it, and the same without `--json` (where the
//! error is `error[<code>]` and its `next:` on stderr; a usage error clap
//! itself refuses is clap's text). Statically again, every code whose kind
//! the source spells beside it (`CliError::new(Kind, "code", ..)`,
//! `(Kind, "code", next)`) is documented with that kind's exit. An answer
//! that cannot be written to stdout exits 7.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use probity_git::fixture::Fixture;

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

/// Whether the tokens from `k` on spell `pattern`: its space-separated
/// pieces, each one punctuation character or an identifier.
fn spells(t: &[Token], k: usize, pattern: &str) -> bool {
    pattern.split(' ').enumerate().all(|(i, piece)| {
        let mut chars = piece.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if !(c.is_alphanumeric() || c == '_') => is_punct(t.get(k + i), c),
            _ => is_ident(t.get(k + i), piece),
        }
    })
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
        if spells(t, k, "CliError : : new (")
            && let Some(comma) = argument_end(t, k + 5)
            && let Some((s, line)) = string_at(t, comma + 1)
            && is_punct(t.get(comma + 2), ',')
        {
            push(s, line);
        }
        // (Kind, "code", next), and the error types' own (Class, "code")
        if is_punct(t.get(k), '(')
            && let Some(after) = kind_path(t, k + 1)
            && is_punct(t.get(after), ',')
            && let Some((s, line)) = string_at(t, after + 1)
            && (is_punct(t.get(after + 2), ',') || is_punct(t.get(after + 2), ')'))
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
        if spells(t, k, "let ( code")
            && let Some(close) = closing(t, k + 1)
            && spells(t, close + 1, "= match")
            && let Some(open) = (close + 3..t.len()).find(|&j| is_punct(t.get(j), '{'))
            && let Some(end) = closing(t, open)
        {
            for j in open..end {
                if spells(t, j, "= > (")
                    && let Some((s, line)) = string_at(t, j + 3)
                {
                    push(s, line);
                }
            }
        }
        // .code().unwrap_or("code")
        if spells(t, k, "code ( ) . unwrap_or (")
            && let Some((s, line)) = string_at(t, k + 6)
        {
            push(s, line);
        }
    }
    found
}

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// The sources whose error codes the CLI can emit: its own, and the error
/// types of core and the ports, which carry their codes and classes
/// themselves (`classify`, issue 25 §5).
fn code_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("../../core/src/review"), &mut files);
    files.push(root.join("../../ports/src/review/error.rs"));
    files
}

/// Every code the CLI can emit (see [`code_sources`]), with the places
/// that name it.
fn cli_codes() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = code_sources();
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
        "stale_revision",       // (Conflict, "stale_revision") in the ports
        "zero_forecast",        // (ErrorClass::RejectedInput, "zero_forecast") in core
        "binding_mismatch",     // (ErrorClass::RejectedInput, "binding_mismatch")
        "input_too_large",      // CliError::new(ErrorKind::RejectedInput, ...)
        "usage",                // CliError::new(output::ErrorKind::Usage, ...)
        "forge_unauthorized",   // (ErrorKind::RejectedInput, "...", format!(..))
        "bad_ref",              // usage("bad_ref", ...)
        "invalid_index_source", // let (code, next) = match ...
        "bundle_invalid",       // .code().unwrap_or("bundle_invalid")
        "context_dir_exists",
        "model_not_configured",
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
    // The codes whose kind is spelled beside them, with it.
    let kinded: Vec<(String, String)> = kinded_codes_in(&tokenize(src))
        .into_iter()
        .map(|(code, kind, _)| (code, kind))
        .collect();
    assert_eq!(
        kinded,
        [
            ("tuple_code".to_string(), "Integrity".to_string()),
            ("new_code".to_string(), "Usage".to_string()),
        ]
    );
}

fn errors_md() -> String {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    std::fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()))
}

/// The cells of a Markdown table row (`| a | b |` → `["a", "b"]`).
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// The backticked names in a cell (`` `a`, `b` `` → `["a", "b"]`).
fn ticked(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// `docs/errors.md`'s table of kinds: `kind` → exit.
fn documented_kinds(doc: &str) -> BTreeMap<String, u8> {
    let mut lines = doc.lines().skip_while(|l| {
        cells(l).is_none_or(|c| c.first() != Some(&"`kind`") || c.get(1) != Some(&"Exit"))
    });
    assert!(lines.next().is_some(), "docs/errors.md has no `kind` table");
    let mut kinds = BTreeMap::new();
    for line in lines.skip(1).map_while(cells) {
        let [kind] = ticked(line[0])[..] else {
            panic!("a kind row without one kind: {line:?}");
        };
        let exit = line[1].parse().unwrap_or_else(|_| panic!("{line:?}"));
        assert!(
            kinds.insert(kind.to_string(), exit).is_none(),
            "{kind} twice"
        );
    }
    kinds
}

/// The exits the rows documenting `code` give it (a code can be
/// documented for more than one command, e.g. `chain_broken`).
fn documented_exits(doc: &str, code: &str) -> BTreeSet<u8> {
    doc.lines()
        .filter_map(cells)
        .filter(|c| c.len() >= 3 && ticked(c[0]).contains(&code))
        .filter_map(|c| c[1].parse().ok())
        .collect()
}

/// `ErrorKind::exit_code` in output.rs, read as text: snake_case kind →
/// exit.
fn source_kinds() -> BTreeMap<String, u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/output.rs");
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = src
        .split_once("fn exit_code(self)")
        .expect("output.rs defines ErrorKind::exit_code")
        .1;
    let body = &body[..body.find("\n    }\n").expect("the end of exit_code")];
    let mut kinds = BTreeMap::new();
    for line in body.lines() {
        let Some((variant, exit)) = line.trim().split_once("=>") else {
            continue;
        };
        let variant = variant.trim().trim_start_matches("ErrorKind::");
        assert!(KINDS.contains(&variant), "an unknown variant `{variant}`");

        let exit = exit.trim().trim_end_matches(',').parse().unwrap();
        kinds.insert(snake(variant), exit);
    }
    kinds
}

#[test]
fn the_documented_exit_of_every_kind_is_the_one_the_source_and_help_give() {
    let doc = errors_md();
    let documented = documented_kinds(&doc);
    assert_eq!(documented.len(), KINDS.len(), "{documented:?}");
    let source = source_kinds();
    assert_eq!(source.len(), KINDS.len(), "{source:?}");
    assert_eq!(documented, source, "docs/errors.md vs ErrorKind::exit_code");
    // The distinct exits 2 to 7, one per kind.
    let exits: BTreeSet<u8> = documented.values().copied().collect();
    assert_eq!(exits, (2..=7).collect(), "{documented:?}");
    // Every code row names the exit of some kind (0 and 1 are answers,
    // never an error's).
    let mut rows = 0;
    for line in doc.lines().filter_map(cells) {
        if line.len() >= 3
            && !ticked(line[0]).is_empty()
            && let Ok(exit) = line[1].parse::<u8>()
        {
            assert!(exits.contains(&exit), "{line:?}: exit {exit}");
            rows += 1;
        }
    }
    assert!(rows >= 150, "only {rows} code rows in docs/errors.md");
    // `probity --help` lists the same exits, 0 and 1 (allow, deny) first.
    let out = Command::new(env!("CARGO_BIN_EXE_probity"))
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<u8> = help
        .lines()
        .skip_while(|l| *l != "Exit codes:")
        .skip(1)
        .map_while(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(listed, (0..=7).collect::<Vec<u8>>(), "{help}");
}

/// A provoked error: the code it must be, and the arguments (`--cwd`
/// included) that provoke it.
struct Case {
    want: &'static str,
    args: Vec<String>,
}

fn case(want: &'static str, args: Vec<String>) -> Case {
    Case { want, args }
}

/// What the cases' repositories and directories live in, until dropped.
type Keep = Vec<Box<dyn std::any::Any>>;

fn at(f: &Fixture, args: &[&str]) -> Vec<String> {
    let mut v = vec!["--cwd".to_string(), f.root().display().to_string()];
    v.extend(args.iter().map(|a| a.to_string()));
    v
}

fn raw(args: &[String], json: bool) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    support::isolated(&mut cmd)
        .args(json.then_some("--json"))
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null());
    cmd.output().expect("run probity")
}

/// One error of each kind, and more, each where it really happens.
fn provoked() -> (Vec<Case>, Keep) {
    let mut cases = Vec::new();
    // usage (2): clap refuses a flag; a value the command refuses itself.
    let f = support::medium_change();
    cases.push(case("usage", at(&f, &["start", "--no-such-flag"])));
    cases.push(case("bad_range", at(&f, &["start", "--range", "nodots"])));
    // rejected_input (3): nothing uncommitted to review; not a lineage id.
    let clean = support::parser_base();
    cases.push(case("nothing_to_review", at(&clean, &["start"])));
    cases.push(case(
        "bad_lineage",
        at(&clean, &["status", "--lineage", "not-a-lineage"]),
    ));
    // repository (5): --cwd outside every repository.
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().display().to_string();
    cases.push(case(
        "repository_error",
        vec!["--cwd".into(), dir, "status".into()],
    ));
    // conflict (4): a managed hook edited since it was installed.
    let hooked = support::parser_base();
    support::probity_ok(hooked.root(), &["hooks", "install"]);
    let hook = hooked.root().join(".git/hooks/pre-commit");
    let mut text = std::fs::read_to_string(&hook).unwrap();
    text.push_str("# my own line\n");
    std::fs::write(&hook, text).unwrap();
    cases.push(case(
        "hook_changed",
        at(&hooked, &["hooks", "install", "--hook", "pre-commit"]),
    ));
    // integrity (6): a hook's record, and a stored lineage, that fail
    // validation.
    std::fs::write(
        hooked.root().join(".git/probity/hooks/v1/pre-push.json"),
        "not a record\n",
    )
    .unwrap();
    cases.push(case(
        "hook_record_corrupted",
        at(&hooked, &["hooks", "uninstall", "--hook", "pre-push"]),
    ));
    let st = support::probity_ok(f.root(), &["start"]);
    let lineage = st.json["lineage_id"].as_str().unwrap().to_string();
    let state = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&lineage)
        .join("state.json");
    assert!(state.is_file(), "{}", state.display());
    std::fs::write(&state, "{}\n").unwrap();
    cases.push(case(
        "store_corrupted",
        at(&f, &["status", "--lineage", &lineage]),
    ));
    // io (7): a snapshot root that cannot be opened; a log file that cannot
    // be created.
    let gone = tempfile::tempdir().unwrap();
    let missing = gone.path().join("missing");
    cases.push(case(
        "bad_root",
        vec![
            "--cwd".into(),
            missing.display().to_string(),
            "snapshot".into(),
            "list".into(),
            "--subject".into(),
            "disk".into(),
        ],
    ));
    let log = missing.join("log.jsonl").display().to_string();
    cases.push(case(
        "log_file_unwritable",
        at(
            &hooked,
            &["mcp", "--subject", "worktree", "--log-file", log.as_str()],
        ),
    ));
    let keep: Keep = vec![
        Box::new(f),
        Box::new(clean),
        Box::new(outside),
        Box::new(hooked),
        Box::new(gone),
    ];
    (cases, keep)
}

#[test]
fn every_kind_of_error_exits_as_documented() {
    let doc = errors_md();
    let kinds = documented_kinds(&doc);
    let mut seen: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let (cases, _keep) = provoked();
    for c in &cases {
        let out = raw(&c.args, true);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{:?}: not one JSON document ({e}): {stdout}", c.args));
        let err = &v["error"];
        assert_eq!(err["code"], c.want, "{:?}: {v}", c.args);
        let kind = err["kind"].as_str().expect("an error names its kind");
        let exit = out.status.code().expect("an exit code, not a signal");
        // The kind's exit, as the table of kinds documents it.
        assert_eq!(
            Some(&u8::try_from(exit).unwrap()),
            kinds.get(kind),
            "`{}` (kind `{kind}`) exited {exit}; docs/errors.md gives `{kind}` {:?}",
            c.want,
            kinds.get(kind)
        );
        // And as the code's own row documents it.
        let rows = documented_exits(&doc, c.want);
        assert!(
            rows.contains(&u8::try_from(exit).unwrap()),
            "`{}` exited {exit}; its rows in docs/errors.md say {rows:?}",
            c.want
        );
        assert!(!err["next_action"].as_str().unwrap_or_default().is_empty());
        // Without --json: the same exit, the error on stderr, nothing on
        // stdout.
        let human = raw(&c.args, false);
        let stderr = String::from_utf8_lossy(&human.stderr);
        assert_eq!(human.status.code(), Some(exit), "{:?}: {stderr}", c.args);
        assert!(human.stdout.is_empty(), "{:?}", c.args);
        if c.want == "usage" {
            // clap's own text (`error: unexpected argument '--x' found`,
            // the usage line, a pointer to --help), not `error[usage]`.
            assert!(
                stderr.starts_with("error: ") && stderr.contains("--help"),
                "{:?}: {stderr}",
                c.args
            );
        } else {
            assert!(
                stderr.contains(&format!("error[{}]: ", c.want)) && stderr.contains("\n  next: "),
                "{:?}: {stderr}",
                c.args
            );
        }
        seen.entry(kind.to_string()).or_default().push(c.want);
    }
    // Every documented kind was provoked.
    assert_eq!(
        seen.keys().collect::<Vec<_>>(),
        kinds.keys().collect::<Vec<_>>(),
        "kinds provoked: {seen:?}"
    );
}

/// An answer that cannot be written to stdout (a full disk) exits 7, the
/// `io` kind's exit, with `error[stdout]` on stderr: with and without
/// `--json`, a success and an error alike.
#[test]
fn an_answer_that_cannot_be_written_exits_7() {
    if !Path::new("/dev/full").exists() {
        eprintln!("no /dev/full here: skipped");
        return;
    }
    let kinds = documented_kinds(&errors_md());
    let f = support::parser_base();
    let root = f.root().display().to_string();
    for args in [
        vec!["schema", "reviewer"],
        vec!["--json", "schema", "reviewer"],
        vec!["--json", "--cwd", root.as_str(), "status", "--lineage", "x"],
        vec!["--cwd", root.as_str(), "validate", "--gate", "pre-commit"],
        vec![
            "--json",
            "--cwd",
            root.as_str(),
            "validate",
            "--gate",
            "pre-commit",
        ],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
        support::isolated(&mut cmd)
            .args(&args)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create("/dev/full").unwrap());
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code().map(|c| u8::try_from(c).unwrap()),
            kinds.get("io").copied(),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("error[stdout]: could not write the answer"),
            "{args:?}: {stderr}"
        );
    }
}

/// The `ErrorKind` variant a [`kind_path`] from `k` ends in.
fn kind_at(t: &[Token], k: usize) -> Option<&str> {
    let end = kind_path(t, k)?;
    match t.get(end - 1) {
        Some((Tok::Ident(name), _)) => Some(name.as_str()),
        _ => None,
    }
}

/// The error codes whose kind the source spells beside them, with that
/// kind (a variant of `ErrorKind`) and the line: `CliError::new(Kind,
/// "code", ...)` and `(Kind, "code", next)`. (A helper's or a `match`
/// arm's code takes its kind elsewhere, and is not here.)
fn kinded_codes_in(t: &[Token]) -> Vec<(String, String, usize)> {
    let mut found = Vec::new();
    for k in 0..t.len() {
        if spells(t, k, "CliError : : new (")
            && let Some(kind) = kind_at(t, k + 5)
            && let Some(comma) = argument_end(t, k + 5)
            && kind_path(t, k + 5) == Some(comma)
            && let Some((s, line)) = string_at(t, comma + 1)
            && is_punct(t.get(comma + 2), ',')
            && is_code(s)
        {
            found.push((s.to_owned(), kind.to_owned(), line));
        }
        // (`CliError::new(Kind, "code", ..)` is matched above, not again.)
        if is_punct(t.get(k), '(')
            && !is_ident(k.checked_sub(1).and_then(|p| t.get(p)), "new")
            && let Some(kind) = kind_at(t, k + 1)
            && let Some(after) = kind_path(t, k + 1)
            && is_punct(t.get(after), ',')
            && let Some((s, line)) = string_at(t, after + 1)
            && (is_punct(t.get(after + 2), ',') || is_punct(t.get(after + 2), ')'))
            && is_code(s)
        {
            found.push((s.to_owned(), kind.to_owned(), line));
        }
    }
    found
}

/// `RejectedInput` → `rejected_input`.
fn snake(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if i > 0 && c.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Statically, for the codes whose kind the source names beside them: the
/// exit that kind maps to is among the exits docs/errors.md gives the
/// code (a code can be documented twice, e.g. `chain_broken`: 3 for a
/// bundle's chain, 6 for the store's).
#[test]
fn every_code_is_documented_with_its_kinds_exit() {
    let doc = errors_md();
    let kinds = documented_kinds(&doc);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = code_sources();
    let mut checked = BTreeSet::new();
    let mut wrong = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
        for (code, kind, line) in kinded_codes_in(&tokenize(&src)) {
            let kind = snake(&kind);
            let exit = kinds[&kind];
            let rows = documented_exits(&doc, &code);
            checked.insert(code.clone());
            if !rows.contains(&exit) {
                wrong.push(format!(
                    "`{code}` ({rel}:{line}) is `{kind}`, exit {exit}; docs/errors.md says {rows:?}"
                ));
            }
        }
    }
    assert!(
        checked.len() >= 120,
        "only {} codes: {checked:?}",
        checked.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
