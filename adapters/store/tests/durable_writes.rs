//! The store's durability invariant, checked on its source: every store
//! file is written by temp file + fsync + rename + directory fsync, so the
//! calls that create or write a file appear in `adapters/store/src` only at
//! the sites listed in [`ALLOWED`], each named by (file, function, call):
//!
//! - `review_store/durable.rs`: the one atomic-write helper (`write_atomic`,
//!   `durable_temp`, and `publish_exclusive`'s hard link of a complete
//!   temp file);
//! - `review_store/creation.rs`: `write_new` (a file in a new lineage's
//!   folder, which only its start writes into and which appears whole by a
//!   rename), the lineage lock files (`new_lineage_lock`,
//!   `settle_unfinished`) and the reservation of the folder being made
//!   (`create_lineage`);
//! - `review_store/mod.rs`: the opening of a lineage's lock file (`lock`);
//! - `context_dir.rs`: context trees (`write_one`, and `write_files`'
//!   reservation). A context tree is not the review store: it is an
//!   entity-context snapshot written where `--out` names, outside every
//!   worktree, made whole under a sibling name and renamed into place.
//!
//! Everything else writes through `write_atomic` (repairs, attestations,
//! transcripts) or only reads (artifacts). The scan reads code only: comments, doc
//! comments, string and character literals and `#[cfg(test)]` items are
//! skipped. A site not listed fails the test, naming its file, line,
//! function and call; a listed site that is gone fails it too, so the list
//! stays the truth.

use std::path::Path;

/// (file under `src/`, function, call) for every allowed site.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "review_store/durable.rs",
        "durable_temp",
        "LockedTemp::new_in",
    ),
    (
        "review_store/durable.rs",
        "write_atomic",
        "probity_scratch::write_atomic",
    ),
    (
        "review_store/durable.rs",
        "publish_exclusive",
        "fs::hard_link",
    ),
    (
        "review_store/creation.rs",
        "write_new",
        "OpenOptions(write)",
    ),
    (
        "review_store/creation.rs",
        "new_lineage_lock",
        "OpenOptions(write)",
    ),
    (
        "review_store/creation.rs",
        "settle_unfinished",
        "OpenOptions(write)",
    ),
    (
        "review_store/creation.rs",
        "create_lineage",
        "Scratch::reserve_only",
    ),
    ("review_store/mod.rs", "lock", "OpenOptions(write)"),
    ("context_dir.rs", "write_one", "OpenOptions(write)"),
    ("context_dir.rs", "write_files", "Scratch::reserve"),
];

/// Calls that create or write a file, as token paths (`std::` and other
/// leading segments may precede them).
const CALLS: &[&[&str]] = &[
    &["fs", "::", "write"],
    &["fs", "::", "copy"],
    &["fs", "::", "hard_link"],
    &["fs", "::", "symlink"],
    &["File", "::", "create"],
    &["File", "::", "create_new"],
    // probity_scratch's entry points that create files.
    &["LockedTemp", "::", "new_in"],
    &["probity_scratch", "::", "write_atomic"],
    &["Scratch", "::", "reserve"],
    &["Scratch", "::", "reserve_only"],
];

/// `OpenOptions` methods that make an opening create or write.
const WRITE_OPTIONS: &[&str] = &["write", "append", "create", "create_new", "truncate"];

#[derive(Debug, Clone, PartialEq, Eq)]
struct Site {
    file: String,
    line: usize,
    function: String,
    call: String,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} in fn {}: {}",
            self.file, self.line, self.function, self.call
        )
    }
}

/// `source` with comments removed and every string or character literal
/// emptied (its newlines kept, so lines still count right).
fn code_only(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    // Keeps the newlines of c[from..to].
    let newlines = |out: &mut String, from: usize, to: usize| {
        for ch in &c[from..to.min(c.len())] {
            if *ch == '\n' {
                out.push('\n');
            }
        }
    };
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let start = i;
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            newlines(&mut out, start, i);
            out.push(' ');
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // A raw string: r"..", r#".."#, br#".."#.
            let start = i;
            i += if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= c.len() {
                    break;
                }
                if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push('"');
            newlines(&mut out, start, i);
            out.push('"');
        } else if c[i] == '"' {
            let start = i;
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push('"');
            newlines(&mut out, start, i);
            out.push('"');
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            // An escaped character literal: '\n', '\'', '\u{..}'.
            i += 3;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            // Code, a lifetime or a label.
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Identifiers, `::` and single punctuation characters, with their lines.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((c[start..i].iter().collect(), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(("::".into(), line));
            i += 2;
        } else {
            out.push((ch.to_string(), line));
            i += 1;
        }
    }
    out
}

/// Drops every item under `#[cfg(test)]` (its further attributes, then up
/// to its `;` or through its matching `}`).
fn without_test_items(toks: Vec<(String, usize)>) -> Vec<(String, usize)> {
    const CFG_TEST: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let at_cfg_test = toks.len() - i >= CFG_TEST.len()
            && CFG_TEST.iter().zip(&toks[i..]).all(|(w, (t, _))| w == t);
        if !at_cfg_test {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += CFG_TEST.len();
        let mut depth = 0usize;
        while i < toks.len() {
            let t = toks[i].0.as_str();
            i += 1;
            match t {
                "{" | "(" | "[" => depth += 1,
                "}" | ")" | "]" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && t == "}" {
                        break;
                    }
                }
                ";" if depth == 0 => break,
                _ => {}
            }
        }
    }
    out
}

/// The file-creating or file-writing calls in one source file.
fn scan_source(file: &str, source: &str) -> Vec<Site> {
    let toks = without_test_items(tokens(&code_only(source)));
    let text = |k: usize| toks.get(k).map(|t| t.0.as_str());
    let mut sites = Vec::new();
    // The enclosing named functions: (name, brace depth of its body).
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut pending: Option<String> = None;
    let (mut braces, mut parens) = (0usize, 0usize);
    for (k, (t, line)) in toks.iter().enumerate() {
        let line = *line;
        match t.as_str() {
            "fn" => {
                if let Some(name) =
                    text(k + 1).filter(|n| n.starts_with(|c: char| c.is_alphabetic() || c == '_'))
                {
                    pending = Some(name.to_string());
                    parens = 0;
                }
            }
            "(" | "[" => parens += 1,
            ")" | "]" => parens = parens.saturating_sub(1),
            ";" if parens == 0 => pending = None,
            "{" => {
                if let Some(name) = pending.take() {
                    stack.push((name, braces));
                }
                braces += 1;
            }
            "}" => {
                braces = braces.saturating_sub(1);
                if stack.last().is_some_and(|f| f.1 == braces) {
                    stack.pop();
                }
            }
            _ => {}
        }
        let function = || {
            stack
                .last()
                .map_or_else(|| "<module>".to_string(), |f| f.0.clone())
        };
        for call in CALLS {
            if call.iter().enumerate().all(|(j, w)| text(k + j) == Some(w)) {
                sites.push(Site {
                    file: file.to_string(),
                    line,
                    function: function(),
                    call: call.concat(),
                });
            }
        }
        let builder =
            (t == "OpenOptions" && text(k + 1) == Some("::") && text(k + 2) == Some("new"))
                || (t == "File" && text(k + 1) == Some("::") && text(k + 2) == Some("options"));
        if builder {
            // The builder's chain, up to its `.open(` (or the statement's
            // end: a builder kept and opened elsewhere is not told apart).
            let mut j = k + 3;
            let mut writes = false;
            let mut opened = false;
            while let Some(w) = text(j) {
                if w == ";" || w == "{" {
                    break;
                }
                if w == "." && text(j + 2) == Some("(") {
                    let method = text(j + 1).unwrap_or_default();
                    if method == "open" {
                        opened = true;
                        break;
                    }
                    if WRITE_OPTIONS.contains(&method) && text(j + 3) != Some("false") {
                        writes = true;
                    }
                }
                j += 1;
            }
            if writes || !opened {
                sites.push(Site {
                    file: file.to_string(),
                    line,
                    function: function(),
                    call: if opened {
                        "OpenOptions(write)".into()
                    } else {
                        "OpenOptions(not opened in its chain)".into()
                    },
                });
            }
        }
    }
    sites
}

/// Every site in the `.rs` files below `dir`, named relative to `root`.
fn scan_dir(root: &Path, dir: &Path, out: &mut Vec<Site>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scan_dir(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.extend(scan_source(&rel, &std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn allowed(site: &Site) -> bool {
    ALLOWED
        .iter()
        .any(|(f, func, call)| site.file == *f && site.function == *func && site.call == *call)
}

#[test]
fn store_files_are_created_or_written_only_at_the_listed_sites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    scan_dir(&root, &root, &mut found);
    let unlisted: Vec<String> = found
        .iter()
        .filter(|s| !allowed(s))
        .map(|s| format!("  {s}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "files created or written outside the store's durable helpers \
         (write through review_store::write_atomic instead):\n{}",
        unlisted.join("\n")
    );
    let gone: Vec<String> = ALLOWED
        .iter()
        .filter(|(f, func, call)| {
            !found
                .iter()
                .any(|s| s.file == *f && s.function == *func && s.call == *call)
        })
        .map(|(f, func, call)| format!("  {f} in fn {func}: {call}"))
        .collect();
    assert!(
        gone.is_empty(),
        "listed sites that no longer exist (shrink ALLOWED):\n{}",
        gone.join("\n")
    );
}

/// The scanner itself, on a planted file: it finds each kind of call in
/// the function it is in, and nothing in comments, literals, read-only
/// openings or test items.
#[test]
fn the_scanner_finds_planted_writes_and_nothing_else() {
    let planted = r####"
//! fs::write(p) in a doc comment; File::create(p) too.
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
/* fs::write( /* nested */ File::create( */
const S: &str = "fs::write(p, b) File::create(";
const R: &str = r#"a "quoted" fs::copy( "#;
const C: char = '"';
const Q: char = '\'';
const E: char = '\u{7b}';
struct W<'a>(&'a str);
trait T {
    fn declared(&self, a: [u8; 4]) -> u8;
}
fn reads(p: &Path) {
    let _ = OpenOptions::new().read(true).write(false).custom_flags(1).open(p);
}
fn sneaky(p: &Path) {
    let _ = std::fs::write(p, b"x");
}
fn appends(p: &Path) {
    OpenOptions::new().append(true).open(p).unwrap();
}
fn options(p: &Path) {
    let _ = File::options().write(true).open(p);
}
fn split(p: &Path) {
    let mut o = OpenOptions::new();
    o.write(true);
}
fn outer(a: [u8; 2]) {
    let f = |p: &Path| { File::create_new(p) };
    fn inner(p: &Path) {
        fs::copy(p, p);
    }
    probity_scratch::write_atomic(p, b"", ".tmp-", None);
}
fn after_inner(p: &Path) {
    File::create(p);
}
#[cfg(test)]
mod tests {
    fn planted() {
        std::fs::write("x", "y").unwrap();
    }
}
#[cfg(not(test))]
fn not_test(p: &Path) {
    fs::write(p, b"");
}
"####;
    let found: Vec<(usize, String, String)> = scan_source("planted.rs", planted)
        .into_iter()
        .map(|s| (s.line, s.function, s.call))
        .collect();
    let want: Vec<(usize, String, String)> = [
        (19, "sneaky", "fs::write"),
        (22, "appends", "OpenOptions(write)"),
        (25, "options", "OpenOptions(write)"),
        (28, "split", "OpenOptions(not opened in its chain)"),
        (32, "outer", "File::create_new"),
        (34, "inner", "fs::copy"),
        (36, "outer", "probity_scratch::write_atomic"),
        (39, "after_inner", "File::create"),
        (49, "not_test", "fs::write"),
    ]
    .into_iter()
    .map(|(l, f, c)| (l, f.to_string(), c.to_string()))
    .collect();
    assert_eq!(found, want);

    // A planted site is reported by the real check's rule.
    let site = Site {
        file: "repair.rs".into(),
        line: 1,
        function: "copy_exact".into(),
        call: "File::create_new".into(),
    };
    assert!(!allowed(&site));
    assert_eq!(
        site.to_string(),
        "repair.rs:1 in fn copy_exact: File::create_new"
    );
}
