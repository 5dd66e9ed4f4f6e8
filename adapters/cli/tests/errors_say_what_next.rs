//! The cli invariant of docs/ARCHITECTURE.md ("an error that always says
//! what to do next"), on the binary's shipped source: a `CliError` is made
//! only by `CliError::new` (no struct literal elsewhere), every call names
//! its four parts, and a next step written there as a literal, or set
//! afterwards (`err.next_action = ...`), is never blank; nothing empties
//! one (`clear`, `truncate`, `String::new()`). `error_codes_documented.rs`
//! provokes one error of each kind and checks, among other things, that
//! its `next_action` is not empty; this scan covers the sites no run
//! reaches.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// `text` with comments replaced by spaces (newlines kept); string,
/// raw string and character literals kept as written.
fn without_comments(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let after_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                if c[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if !after_ident && c[i] == 'r' && matches!(c.get(i + 1), Some('"' | '#')) {
            // A raw string, copied through its closing quote and hashes.
            let start = i;
            i += 1;
            let mut hashes = 0;
            while c.get(i) == Some(&'#') {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')))
            {
                i += 1;
            }
            i = (i + 1 + hashes).min(c.len());
            out.extend(&c[start..i]);
        } else if c[i] == '"' {
            let start = i;
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(c.len());
            out.extend(&c[start..i]);
        } else if c[i] == '\'' && (c.get(i + 2) == Some(&'\'') || c.get(i + 1) == Some(&'\\')) {
            let start = i;
            i += if c[i + 1] == '\\' { 3 } else { 2 };
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i = (i + 1).min(c.len());
            out.extend(&c[start..i]);
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The top-level arguments of the call whose `(` is at `open` in `code`,
/// trimmed (commas inside brackets and literals do not split).
fn arguments(code: &str, open: usize) -> Vec<String> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let mut chars = code[open..].chars();
    while let Some(ch) = chars.next() {
        match ch {
            '(' | '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                args.push(current.trim().to_string());
                current.clear();
                continue;
            }
            '"' => {
                current.push(ch);
                while let Some(c) = chars.next() {
                    current.push(c);
                    if c == '\\' {
                        current.extend(chars.next());
                    } else if c == '"' {
                        break;
                    }
                }
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    if !current.trim().is_empty() {
        args.push(current.trim().to_string());
    }
    args
}

/// Whether `expr` is a string literal with no words, written any way.
fn blank(expr: &str) -> bool {
    let e = expr.trim();
    let e = e
        .strip_suffix(".to_string()")
        .or_else(|| e.strip_suffix(".into()"))
        .or_else(|| e.strip_suffix(".to_owned()"))
        .unwrap_or(e)
        .trim();
    let literal = e.len() >= 2 && e.starts_with('"') && e.ends_with('"');
    (literal && e[1..e.len() - 1].trim().is_empty())
        || ["String::new()", "String::default()", "Default::default()"].contains(&e)
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// What breaks the invariant in one file's code.
fn breaches(file: &str, code: &str) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut calls = 0;
    for (at, m) in code.match_indices("CliError::new(") {
        calls += 1;
        let args = arguments(code, at + m.len() - 1);
        let line = line_of(code, at);
        if args.len() != 4 {
            out.push(format!(
                "{file}:{line}: CliError::new with {} arguments",
                args.len()
            ));
        } else if blank(&args[3]) {
            out.push(format!("{file}:{line}: a blank next step: {}", args[3]));
        }
    }
    for (at, _) in code.match_indices("CliError {") {
        let before = code[..at].trim_end();
        let declares = ["struct", "impl", "for", "->"]
            .iter()
            .any(|w| before.ends_with(w));
        if !declares {
            out.push(format!(
                "{file}:{}: a CliError made by a struct literal",
                line_of(code, at)
            ));
        }
    }
    for (at, m) in code.match_indices("next_action") {
        let rest = &code[at + m.len()..];
        let line = line_of(code, at);
        if let Some(rhs) = rest
            .trim_start()
            .strip_prefix('=')
            .filter(|r| !r.starts_with('='))
        {
            let rhs = &rhs[..rhs.find(';').unwrap_or(rhs.len())];
            if blank(rhs) {
                out.push(format!(
                    "{file}:{line}: a next step set blank: {}",
                    rhs.trim()
                ));
            }
        }
        for emptying in [".clear()", ".truncate(", ".drain("] {
            if rest.starts_with(emptying) {
                out.push(format!("{file}:{line}: a next step emptied by {emptying}"));
            }
        }
    }
    (out, calls)
}

#[test]
fn every_cli_error_is_made_with_a_next_step_that_is_never_blank() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let (mut found, mut calls) = (Vec::new(), 0);
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let (b, n) = breaches(
            &rel,
            &without_comments(&std::fs::read_to_string(f).unwrap()),
        );
        found.extend(b);
        calls += n;
    }
    assert!(
        calls > 100,
        "found only {calls} CliError::new calls: is src read?"
    );
    assert!(
        found.is_empty(),
        "errors that may not say what to do next:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_reports_planted_breaches_and_reads_code_not_comments() {
    let planted = r#####"
fn a() -> CliError {
    // CliError::new(k, "c", "m", "") in a comment is no call
    CliError::new(ErrorKind::Io, "c", format!("m, {x}"), "")
}
fn b() -> CliError {
    CliError::new(ErrorKind::Io, "c", "m, with a comma", " ".to_string())
}
fn c() -> CliError {
    CliError { kind, code, message, next_action: String::new(), argument: None, next_tool: None }
}
fn d(mut e: CliError) -> CliError {
    e.next_action = String::new();
    e.next_action.clear();
    e
}
fn ok() -> CliError {
    let s = r#"a // not a comment, "quoted""#;
    CliError::new(ErrorKind::Io, "c", s, "run `probity status`, then retry")
}
"#####;
    let (found, calls) = breaches("planted.rs", &without_comments(planted));
    let text = found.join("\n");
    assert_eq!(calls, 3, "{text}");
    for want in [
        "planted.rs:4: a blank next step: \"\"",
        "planted.rs:7: a blank next step: \" \".to_string()",
        "planted.rs:10: a CliError made by a struct literal",
        "planted.rs:13: a next step set blank: String::new()",
        "planted.rs:14: a next step emptied by .clear()",
    ] {
        assert!(text.contains(want), "missed {want}:\n{text}");
    }
    assert_eq!(found.len(), 5, "{text}");
    assert_eq!(
        arguments("f(a, g(b, c), \"d, e\", [f, g])", 1),
        ["a", "g(b, c)", "\"d, e\"", "[f, g]"]
    );
}
