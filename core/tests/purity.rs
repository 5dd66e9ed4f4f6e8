//! `probity-core` stays pure: no file system, processes, network,
//! environment, threads, clocks or randomness anywhere in its sources, and no
//! dependency that brings them.

use std::path::Path;

#[path = "common/run.rs"]
mod run;
#[path = "common/sources.rs"]
mod sources;
use sources::rust_files;

const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "std::env",
    "std::thread",
    "SystemTime",
    "Instant::now",
    "rand::",
    "getrandom",
    "tokio::",
    "reqwest",
    "ureq",
    "File::open",
    "env!(",
    "option_env!(",
    // The default hasher is seeded from the OS: iteration order (and so
    // anything derived from it) would differ between runs.
    "HashMap",
    "HashSet",
    "RandomState",
];

/// The modules of `std` core must not reach, as they may appear inside a
/// grouped import (`use std::{fs, io};`), which the plain patterns above
/// would not see.
const FORBIDDEN_STD_MODULES: &[&str] = &["fs", "process", "net", "env", "thread"];

/// The `std` modules a grouped `use std::{…}` in `text` names (a nested
/// group included), with the line each group starts on.
fn grouped_std_modules(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(at) = rest.find("std::{") {
        let start = offset + at;
        let body = &text[start + "std::{".len()..];
        let mut depth = 1;
        let mut end = body.len();
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = text[..start].lines().count().max(1);
        // Top-level names of the group: `fs`, `io::Read`, `thread::{…}`.
        let mut depth = 0;
        let mut item = String::new();
        for c in body[..end].chars().chain([',']) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    let head = item
                        .trim()
                        .split("::")
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    if !head.is_empty() {
                        out.push((line, head));
                    }
                    item.clear();
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                item.push(c);
            }
        }
        offset = start + "std::{".len();
        rest = &text[offset..];
    }
    out
}

#[test]
fn a_grouped_import_is_seen_through() {
    let planted = "use std::{\n    collections::BTreeMap,\n    fs::{self, File},\n    io,\n};\n";
    let names: Vec<String> = grouped_std_modules(planted)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(names, ["collections", "fs", "io"]);
}

const FORBIDDEN_DEPS: &[&str] = &[
    "tokio",
    "rand",
    "getrandom",
    "reqwest",
    "ureq",
    "hyper",
    "rmcp",
    "tempfile",
];

#[test]
fn core_sources_use_no_io_clock_env_threads_or_randomness() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 5,
        "found too few sources under {}",
        src.display()
    );
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, module) in grouped_std_modules(&text) {
            if FORBIDDEN_STD_MODULES.contains(&module.as_str()) {
                hits.push(format!("{}:{line}: std::{{{module}…}}", f.display()));
            }
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for pat in FORBIDDEN {
                if code.contains(pat) {
                    hits.push(format!("{}:{}: {pat}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "core/ must stay pure:\n{}",
        hits.join("\n")
    );
}

/// Everything `probity-core` links in a normal build: the resolved
/// dependency graph (`cargo metadata`, normal edges only, features as
/// resolved), not the manifest's list, so a crate that brings I/O,
/// threads or randomness transitively is caught too.
fn resolved_closure() -> Vec<String> {
    // The host's graph only: other platforms' crates need not be
    // downloaded (and the build links only the host's).
    let rustc = std::process::Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc names its host");
    let out = run::cargo_stdout(&[
        "metadata",
        "--format-version",
        "1",
        "--locked",
        "--offline",
        "--filter-platform",
        &host,
    ]);
    let meta: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let name_of = |id: &str| -> String {
        meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .and_then(|p| p["name"].as_str())
            .unwrap_or("?")
            .to_string()
    };
    let core = nodes
        .iter()
        .find(|n| name_of(n["id"].as_str().unwrap()) == "probity-core")
        .expect("probity-core in the graph");
    let mut seen: Vec<String> = Vec::new();
    let mut stack = vec![core["id"].as_str().unwrap().to_string()];
    while let Some(id) = stack.pop() {
        if seen.contains(&id) {
            continue;
        }
        let node = nodes.iter().find(|n| n["id"] == id.as_str()).unwrap();
        for dep in node["deps"].as_array().into_iter().flatten() {
            let normal = dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| k["kind"].is_null());
            if normal {
                stack.push(dep["pkg"].as_str().unwrap().to_string());
            }
        }
        seen.push(id);
    }
    seen.iter().map(|id| name_of(id)).collect()
}

#[test]
fn core_links_nothing_that_does_io_threads_or_randomness() {
    let closure = resolved_closure();
    assert!(
        closure.len() > 5 && closure.iter().any(|n| n == "serde_json"),
        "the resolved graph looks wrong: {closure:?}"
    );
    let bad: Vec<&String> = closure
        .iter()
        .filter(|n| FORBIDDEN_DEPS.contains(&n.as_str()) || FORBIDDEN_LINKED.contains(&n.as_str()))
        .collect();
    assert!(
        bad.is_empty(),
        "probity-core links {bad:?} (I/O, threads or randomness) through its resolved dependencies"
    );
}

/// Crates that only reach core transitively but bring what core must not
/// have: OS randomness and thread parking.
const FORBIDDEN_LINKED: &[&str] = &[
    "getrandom",
    "parking_lot",
    "parking_lot_core",
    "ahash",
    "jsonschema",
];

/// Every crate core itself links, each reviewed for I/O, threads, clocks
/// and randomness (issue 25 §7): an allowlist, not a denylist, so a new
/// dependency (direct or transitive) fails here until someone reads it and
/// adds it. Read with core's own feature resolution (`cargo tree -p
/// probity-core`, normal edges, this host): what core asks for. The
/// workspace's unification adds features other crates ask for to the
/// same crates (the MCP adapter's `rmcp` turns on `schemars`' chrono
/// support, which brings `chrono` and `iana-time-zone`); core calls none of
/// them, its sources are checked above, and the denylist test keeps the
/// unified graph free of the crates that would matter.
const REVIEWED: &[&str] = &[
    "aho-corasick",
    "block-buffer",
    "cfg-if",
    "const-oid",
    "cpufeatures",
    "crypto-common",
    "digest",
    "dyn-clone",
    "equivalent",
    "hashbrown",
    "hybrid-array",
    "indexmap",
    "itoa",
    "memchr",
    "probity-core",
    "proc-macro2",
    "quote",
    "ref-cast",
    "ref-cast-impl",
    "regex",
    "regex-automata",
    "regex-syntax",
    "ryu-js",
    "schemars",
    "schemars_derive",
    "serde",
    "serde_core",
    "serde_derive",
    "serde_derive_internals",
    "serde_json",
    "serde_json_canonicalizer",
    "sha2",
    "syn",
    "thiserror",
    "thiserror-impl",
    "tinyvec",
    // TOML's parser (D-R176), read: no `std::fs`, `std::env`, clocks,
    // threads or randomness; winnow's only `std::env` is its `debug`
    // feature's, which nothing turns on.
    "toml_datetime",
    "toml_edit",
    "toml_parser",
    "typenum",
    "unicode-ident",
    "unicode-normalization",
    "winnow",
    "zmij",
];

#[test]
fn core_links_only_reviewed_crates() {
    let out = run::cargo_stdout(&[
        "tree",
        "-p",
        "probity-core",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "--locked",
        "--offline",
    ]);
    let mut linked: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    linked.sort();
    linked.dedup();
    assert!(
        linked.iter().any(|n| n == "serde_json"),
        "the tree looks wrong: {linked:?}"
    );
    let unreviewed: Vec<&String> = linked
        .iter()
        .filter(|n| !REVIEWED.contains(&n.as_str()))
        .collect();
    assert!(
        unreviewed.is_empty(),
        "probity-core links {unreviewed:?}, which no one reviewed: read each for I/O, threads, clocks and randomness, then add it to REVIEWED (core/tests/purity.rs)"
    );
}
