//! Every spec item the sources cite (`R8.7`, `S2.4`, `C3`, …) resolves
//! inside the repository: `docs/spec.md` defines it (issue 14 §6). The spec
//! pages themselves live outside the repository (`../shared/spec/`);
//! `docs/spec.md` is their digest.
//!
//! Every `.rs` file under `core/`, `ports/`, `adapters/`, `golden/` and
//! `proptests/` is lexed by hand. Only the text of comments and string
//! literals is searched, so identifiers in code (a test's `const C2`
//! commit) are not taken for citations. A citation matches
//! `\b[RSC][0-9]{1,2}(\.[0-9]{1,2})?\b` except for:
//! - a project decision `D-R<n>` (its `R<n>` is not a spec item; decisions
//!   live in `docs/review-authority.md`);
//! - a finding ID such as `R3-001` (the id followed by `-` and a digit);
//! - a format-string argument such as `{C2}` (the id right after `{`).
//!
//! A bare lens prefix such as `"R3"` still matches: the prefixes R1–R4 are
//! also spec items, so they resolve anyway.
//!
//! An item is defined by a Markdown heading or a table row whose first
//! word or cell is the id. The test fails naming each cited id
//! `docs/spec.md` does not define. It also fails if the scan finds too few
//! ids, so it cannot pass by finding none. A second test checks that the
//! digest lists exactly the items of the three spec pages, and a third
//! that every path and test the digest names exists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The trees whose sources are scanned, relative to the workspace root.
const SCANNED: [&str; 5] = ["core", "ports", "adapters", "golden", "proptests"];

/// The scan must find at least this many distinct ids (it finds about a
/// hundred) and read at least this many files.
const MIN_IDS: usize = 40;
const MIN_FILES: usize = 100;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where a raw string opening at `c[i]` (`r"`, `r#"`, `br#"`, `cr"`) has
/// its body: the number of `#` and the index after the quote.
fn raw_string(c: &[char], i: usize) -> Option<(usize, usize)> {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let mut k = match (at(i), at(i + 1)) {
        ('r', _) => i + 1,
        ('b' | 'c', 'r') => i + 2,
        _ => return None,
    };
    let from = k;
    while at(k) == '#' {
        k += 1;
    }
    (at(k) == '"').then_some((k - from, k + 1))
}

/// The text of each comment and string literal of Rust source, with the
/// 1-based line it starts on. Code outside them (identifiers, numbers,
/// punctuation), char literals and lifetimes yield nothing.
fn texts(src: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let word = |k: usize| k < c.len() && (c[k].is_alphanumeric() || c[k] == '_');
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < c.len() {
        let ch = c[i];
        let start = line;
        if ch == '/' && at(i + 1) == '/' {
            let mut s = String::new();
            i += 2;
            while i < c.len() && c[i] != '\n' {
                s.push(c[i]);
                i += 1;
            }
            out.push((start, s));
        } else if ch == '/' && at(i + 1) == '*' {
            // Block comments nest.
            let mut s = String::new();
            let mut depth = 0usize;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                    s.push(' ');
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    s.push(' ');
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    s.push(c[i]);
                    i += 1;
                }
            }
            out.push((start, s));
        } else if let Some((hashes, body)) = raw_string(&c, i) {
            // Only ever at the start of a word: identifiers are skipped whole.
            i = body;
            let mut s = String::new();
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                    i += 1 + hashes;
                    break;
                }
                if c[i] == '\n' {
                    line += 1;
                }
                s.push(c[i]);
                i += 1;
            }
            out.push((start, s));
        } else if ch == '"' {
            // A plain (or byte, or C) string; an escape keeps its
            // character out of the way of the closing quote.
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != '"' {
                // An escape (`\n`, `\u{C1}`, `\"`) becomes blanks, so its
                // letter never glues onto a following id.
                let escaped = c[i] == '\\';
                if escaped {
                    s.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    if c[i] == '\n' {
                        line += 1;
                        s.push('\n');
                    } else {
                        s.push(if escaped { ' ' } else { c[i] });
                    }
                    i += 1;
                }
            }
            i += 1;
            out.push((start, s));
        } else if ch == '\'' {
            // A char literal (`'x'`, `'"'`, `'\''`, `'\u{2028}'`) or a
            // lifetime or label (`'a`), which has no closing quote.
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' && c[i] != '\n' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if word(i) {
            // An identifier or number, skipped whole so that a raw-string
            // prefix is only ever looked for at the start of a word.
            while word(i) {
                i += 1;
            }
        } else {
            if ch == '\n' {
                line += 1;
            }
            i += 1;
        }
    }
    out
}

fn is_word(ch: Option<char>) -> bool {
    ch.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Counts the ASCII digits at `c[from..]`, at most `max + 1` of them.
fn digits(c: &[char], from: usize, max: usize) -> usize {
    c.iter()
        .skip(from)
        .take(max + 1)
        .take_while(|d| d.is_ascii_digit())
        .count()
}

/// The spec item ids cited in `text`, with their offset in lines from the
/// text's start.
fn cited(text: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = text.chars().collect();
    let get = |k: usize| c.get(k).copied();
    let mut out = Vec::new();
    let mut line = 0;
    let mut i = 0;
    while i < c.len() {
        if c[i] == '\n' {
            line += 1;
        }
        let before = if i == 0 { None } else { get(i - 1) };
        if !matches!(c[i], 'R' | 'S' | 'C') || is_word(before) {
            i += 1;
            continue;
        }
        let major = digits(&c, i + 1, 2);
        if !(1..=2).contains(&major) {
            i += 1;
            continue;
        }
        let mut end = i + 1 + major;
        // The optional `.N` part, taken only when it is a whole one or two
        // digit number (`R1.123` cites `R1`).
        if get(end) == Some('.') {
            let minor = digits(&c, end + 1, 2);
            if (1..=2).contains(&minor) && !is_word(get(end + 1 + minor)) {
                end += 1 + minor;
            }
        }
        let decision =
            i >= 2 && c[i - 1] == '-' && c[i - 2] == 'D' && (i < 3 || !is_word(get(i - 3)));
        let finding_id = get(end) == Some('-') && get(end + 1).is_some_and(|d| d.is_ascii_digit());
        let format_arg = before == Some('{');
        if !is_word(get(end)) && !decision && !finding_id && !format_arg {
            out.push((line, c[i..end].iter().collect()));
        }
        i = end;
    }
    out
}

fn is_item_id(s: &str) -> bool {
    let c: Vec<char> = s.chars().collect();
    if c.is_empty() || !matches!(c[0], 'R' | 'S' | 'C' | 'D') {
        return false;
    }
    let major = digits(&c, 1, 2);
    if !(1..=2).contains(&major) {
        return false;
    }
    let rest = &c[1 + major..];
    match rest {
        [] => true,
        ['.', tail @ ..] => (1..=2).contains(&tail.len()) && tail.iter().all(char::is_ascii_digit),
        _ => false,
    }
}

/// The ids `docs/spec.md` defines, each with how many times it is defined:
/// the first word of a heading or the first cell of a table row.
fn defined(markdown: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for line in markdown.lines() {
        let line = line.trim();
        let first = if let Some(h) = line.strip_prefix('#') {
            h.trim_start_matches('#').split_whitespace().next()
        } else if let Some(row) = line.strip_prefix('|') {
            row.split('|').next().map(str::trim)
        } else {
            None
        };
        let Some(first) = first else { continue };
        let id = first.trim_matches(|c: char| c == '*' || c == '`' || c == ':' || c == '.');
        if is_item_id(id) {
            *out.entry(id.to_owned()).or_insert(0) += 1;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && name != "target" && !name.starts_with('.') {
            rust_files(&e.path(), out);
        } else if kind.is_file() && name.ends_with(".rs") {
            out.push(e.path());
        }
    }
}

/// Sorts `R2` before `R10` and `R8.7` before `R8.10`.
fn natural(id: &str) -> (char, u32, u32) {
    let kind = id.chars().next().unwrap_or(' ');
    let mut parts = id[1..].split('.').map(|p| p.parse().unwrap_or(0));
    (kind, parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

#[test]
fn every_cited_spec_item_is_defined_in_the_digest() {
    let root = workspace();
    let spec = fs::read_to_string(root.join("docs/spec.md")).expect("docs/spec.md");
    let defined = defined(&spec);

    let mut files = Vec::new();
    for dir in SCANNED {
        rust_files(&root.join(dir), &mut files);
    }
    // Each cited id with the first place that cites it.
    let mut citations: BTreeMap<String, String> = BTreeMap::new();
    for file in &files {
        let Ok(src) = fs::read_to_string(file) else {
            continue;
        };
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (start, text) in texts(&src) {
            for (offset, id) in cited(&text) {
                citations
                    .entry(id)
                    .or_insert_with(|| format!("{rel}:{}", start + offset));
            }
        }
    }

    assert!(
        files.len() >= MIN_FILES,
        "read only {} .rs files under {SCANNED:?}: is the workspace root {}?",
        files.len(),
        root.display()
    );
    assert!(
        citations.len() >= MIN_IDS,
        "found only {} distinct cited ids ({:?}): the scanner is broken",
        citations.len(),
        citations.keys().collect::<Vec<_>>()
    );
    let mut missing: Vec<(&String, &String)> = citations
        .iter()
        .filter(|(id, _)| !defined.contains_key(*id))
        .collect();
    missing.sort_by_key(|(id, _)| natural(id));
    assert!(
        missing.is_empty(),
        "cited but not defined in docs/spec.md (add a row for each):\n{}",
        missing
            .iter()
            .map(|(id, at)| format!("  {id} (first cited at {at})"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The items of the three spec pages: each group and the number of its
/// sub-items. Changing a spec page means changing this list and the digest.
const REVIEW_AUTHORITY: [(u32, u32); 12] = [
    (1, 4),
    (2, 11),
    (3, 6),
    (4, 5),
    (5, 6),
    (6, 8),
    (7, 7),
    (8, 10),
    (9, 4),
    (10, 6),
    (11, 1),
    (12, 7),
];
const SNAPSHOT_TOOLS: [(u32, u32); 6] = [(1, 5), (2, 4), (3, 3), (4, 2), (5, 3), (6, 0)];
const CONTEXT_PARTS: u32 = 5;
const CONTEXT_DECISIONS: u32 = 11;

#[test]
fn the_digest_lists_exactly_the_items_of_the_spec_pages() {
    let spec = fs::read_to_string(workspace().join("docs/spec.md")).expect("docs/spec.md");
    let defined = defined(&spec);
    let mut expected = BTreeSet::new();
    for (kind, groups) in [('R', &REVIEW_AUTHORITY[..]), ('S', &SNAPSHOT_TOOLS[..])] {
        for &(group, subs) in groups {
            expected.insert(format!("{kind}{group}"));
            expected.extend((1..=subs).map(|s| format!("{kind}{group}.{s}")));
        }
    }
    expected.extend((1..=CONTEXT_PARTS).map(|n| format!("C{n}")));
    expected.extend((1..=CONTEXT_DECISIONS).map(|n| format!("D{n}")));

    let absent: Vec<&String> = expected
        .iter()
        .filter(|id| !defined.contains_key(*id))
        .collect();
    let extra: Vec<&String> = defined
        .keys()
        .filter(|id| !expected.contains(*id))
        .collect();
    let twice: Vec<&String> = defined
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, _)| id)
        .collect();
    assert!(
        absent.is_empty() && extra.is_empty() && twice.is_empty(),
        "docs/spec.md: missing {absent:?}, not a spec item {extra:?}, defined twice {twice:?}"
    );
}

#[test]
fn the_scanner_reads_citations_not_identifiers_or_finding_ids() {
    let src = r##"
//! The gate (R8.7, D-R25; R9.1–R9.3). See S2.4 and C3.
/* outer /* nested R6.2 */ still R6.3 */
const C2: &str = "2222";
fn f() -> &'static str {
    let q = '"';
    let e = '\'';
    let id = "R3-001 and R2-014";
    let fmt = format!("commit {C2} (2 of 3)");
    let raw = r#"a "quoted" R10.5"#;
    let prefix = "R3";
    let esc = "one\nR5.6 \u{C1}";
    let other = "R123 R1.123 R8.10. AR1 R1x 0xC1 D-R40–D-R43";
    'outer: loop { break 'outer; }
    id
}
"##;
    let found: Vec<(usize, String)> = texts(src)
        .into_iter()
        .flat_map(|(line, text)| cited(&text).into_iter().map(move |(o, id)| (line + o, id)))
        .collect();
    let ids: Vec<&str> = found.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "R8.7", "R9.1", "R9.3", "S2.4", "C3", "R6.2", "R6.3", "R10.5", "R3", "R5.6", "R1",
            "R8.10"
        ]
    );
    // Lines are those of the source.
    assert_eq!(found[0].0, 2);
    assert_eq!(found[5].0, 3);
    assert_eq!(found[7].0, 10);

    let md = concat!(
        "## R1 The facade\n",
        "| R1.1 | x |\n",
        "| `S2` | y |\n",
        "|---|---|\n",
        "| Item | z |\n",
        "R2 in prose\n",
        "| D7 | w |\n",
    );
    let d = defined(md);
    assert_eq!(
        d.keys().map(String::as_str).collect::<Vec<_>>(),
        ["D7", "R1", "R1.1", "S2"]
    );
}

/// The backticked repository paths of a digest row (`core/src/x.rs`,
/// `adapters/store/src/review_store/`), each with the test it names after
/// `::`, if any.
fn named_paths(markdown: &str) -> Vec<(String, Option<String>)> {
    let roots = [
        "core/",
        "ports/",
        "adapters/",
        "golden/",
        "proptests/",
        "docs/",
    ];
    let mut out = Vec::new();
    for line in markdown.lines().filter(|l| l.starts_with('|')) {
        for (i, span) in line.split('`').enumerate() {
            // Odd pieces are inside backticks.
            if i % 2 == 0 || !roots.iter().any(|r| span.starts_with(r)) {
                continue;
            }
            let (path, test) = match span.split_once("::") {
                Some((p, t)) => (p, Some(t.to_string())),
                None => (span, None),
            };
            out.push((path.to_string(), test));
        }
    }
    out
}

/// Whether `name` is a function of `file` (or of a `.rs` file under the
/// directory `file`).
fn defines_fn(file: &Path, name: &str) -> bool {
    let mut files = Vec::new();
    if file.is_dir() {
        rust_files(file, &mut files);
    } else {
        files.push(file.to_path_buf());
    }
    let needle = format!("fn {name}(");
    files.iter().any(|f| {
        fs::read_to_string(f)
            .map(|src| src.contains(&needle))
            .unwrap_or(false)
    })
}

#[test]
fn every_path_and_test_the_digest_names_exists() {
    let root = workspace();
    let spec = fs::read_to_string(root.join("docs/spec.md")).expect("docs/spec.md");
    let named = named_paths(&spec);
    assert!(named.len() > 100, "found only {} paths", named.len());
    assert!(
        named.iter().filter(|(_, t)| t.is_some()).count() > 50,
        "found too few tests"
    );
    let mut broken = Vec::new();
    for (path, test) in &named {
        let at = root.join(path.split('#').next().unwrap_or(path));
        if !at.exists() {
            broken.push(format!("  {path}: no such file or directory"));
        } else if let Some(t) = test
            && !defines_fn(&at, t)
        {
            broken.push(format!("  {path}::{t}: no such test"));
        }
    }
    assert!(
        broken.is_empty(),
        "docs/spec.md names what the repository does not have:\n{}",
        broken.join("\n")
    );
}
