//! "No `unwrap`, `expect` or `panic!` outside tests (... the two
//! deliberate uses on fixed literals say why)" (docs/ARCHITECTURE.md,
//! "every crate"): the workspace lints deny the three in shipped code, and
//! an attribute can lift them. This scan of every member's `src/` holds
//! that only the two documented exceptions do, each under a comment that
//! says why. A new one fails here until it is argued in the document and
//! listed below.

use std::path::{Path, PathBuf};

#[path = "common/sources.rs"]
mod sources;
use sources::rust_files;

/// The workspace lints that keep `unwrap`, `expect` and `panic!` out of
/// shipped code.
const LINTS: &[&str] = &[
    "clippy::unwrap_used",
    "clippy::expect_used",
    "clippy::panic",
];

/// (file, lint) of each deliberate exception.
const EXCEPTIONS: &[(&str, &str)] = &[
    // The embedded risk policy, a compile-time constant.
    ("core/src/review/risk/builtins.rs", "clippy::expect_used"),
    // The test fixtures, which parse their own fixed literals.
    ("core/src/review/fixtures.rs", "clippy::panic"),
];

/// The (line index, lint) of every attribute in `text` that names one of
/// [`LINTS`] (`allow`, `expect` or a `cfg_attr` of them).
fn lifted(text: &str) -> Vec<(usize, &'static str)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if !(code.starts_with("#[") || code.starts_with("#![")) {
            continue;
        }
        for lint in LINTS {
            let named = code.match_indices(lint).any(|(at, _)| {
                !code[at + lint.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            });
            if named {
                out.push((n, *lint));
            }
        }
    }
    out
}

/// Every member's `src/` (the workspace's `[workspace] members`, read
/// from its manifest).
fn member_sources(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list");
    let dirs: Vec<PathBuf> = members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root.join(m).join("src"))
        .collect();
    assert!(dirs.len() >= 10, "found only {} members", dirs.len());
    let mut files = Vec::new();
    for d in &dirs {
        rust_files(d, &mut files);
    }
    files
}

#[test]
fn only_the_two_argued_exceptions_lift_the_unwrap_expect_and_panic_lints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let files = member_sources(root);
    assert!(files.len() > 100, "found only {} sources", files.len());
    let mut found = Vec::new();
    let mut unargued = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let lines: Vec<&str> = text.lines().collect();
        for (n, lint) in lifted(&text) {
            let why = n > 0 && lines[n - 1].trim_start().starts_with("//");
            if !why {
                unargued.push(format!("{rel}:{}: {lint}", n + 1));
            }
            found.push((rel.clone(), lint));
        }
    }
    let expected: Vec<(String, &str)> = EXCEPTIONS
        .iter()
        .map(|(f, l)| (f.to_string(), *l))
        .collect();
    found.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(
        found, want,
        "the unwrap/expect/panic lints are lifted elsewhere than the argued exceptions"
    );
    assert!(
        unargued.is_empty(),
        "exceptions with no comment saying why: {unargued:?}"
    );
}

#[test]
fn the_scan_sees_each_form_of_the_attribute() {
    let planted = "\
// why
#[allow(clippy::expect_used)]
#![allow(clippy::panic, clippy::unwrap_used)]
#[cfg_attr(test, expect(clippy::panic))]
#[allow(clippy::panic_in_result_fn)]
// #[allow(clippy::unwrap_used)]
let s = \"clippy::panic\";
";
    assert_eq!(
        lifted(planted),
        [
            (1, "clippy::expect_used"),
            (2, "clippy::unwrap_used"),
            (2, "clippy::panic"),
            (3, "clippy::panic"),
        ]
    );
}
