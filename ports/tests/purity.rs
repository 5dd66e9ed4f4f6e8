//! "ports performs no I/O itself" (docs/ARCHITECTURE.md), in its sources:
//! no file system, processes, network, environment, clocks or randomness,
//! and of threads only scoped ones sized by the machine's parallelism.
//! Clippy denies the same APIs by path (clippy.toml, `ports/src/lib.rs`);
//! this scan also sees what a path lint does not: a grouped import, a
//! macro reading the environment, a crate that does I/O named in code.

use std::fs;
use std::path::{Path, PathBuf};

const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "std::env",
    "SystemTime",
    "Instant::now",
    "rand::",
    "getrandom",
    "tokio::",
    "ureq",
    "reqwest",
    "File::open",
    "env!(",
    "option_env!(",
    "RandomState",
];

/// The only thread APIs ports may name.
const THREADS_ALLOWED: &[&str] = &["std::thread::scope", "std::thread::available_parallelism"];

/// Every `.rs` file under `dir`, sorted (`probity_testkit::sources`).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(probity_testkit::sources::rust_files(dir).unwrap());
}

/// What a line of shipped code names that ports must not.
fn violations(line: &str) -> Vec<String> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let mut out: Vec<String> = FORBIDDEN
        .iter()
        .filter(|p| code.contains(*p))
        .map(|p| p.to_string())
        .collect();
    let mut rest = code;
    while let Some(at) = rest.find("std::thread") {
        let tail = &rest[at..];
        if !THREADS_ALLOWED.iter().any(|a| tail.starts_with(a)) {
            out.push("std::thread (only scope and available_parallelism)".into());
        }
        rest = &rest[at + "std::thread".len()..];
    }
    if code.contains("std::{")
        && ["fs", "process", "net", "env", "thread"]
            .iter()
            .any(|m| code.contains(&format!("{{{m}")) || code.contains(&format!(" {m}")))
    {
        out.push("a grouped std import of an I/O module".into());
    }
    out
}

#[test]
fn the_scan_sees_what_ports_must_not_name() {
    assert!(violations("std::thread::scope(|s| {})").is_empty());
    assert!(violations("let n = std::thread::available_parallelism();").is_empty());
    assert!(violations("// std::fs::read is fine in a comment").is_empty());
    assert_eq!(violations("std::thread::spawn(f);").len(), 1);
    assert_eq!(violations("let t = std::time::SystemTime::now();").len(), 1);
    assert_eq!(violations("use std::{fs, io};").len(), 1);
    assert!(violations("use std::{collections::BTreeMap, io};").is_empty());
    assert_eq!(violations("let v = env!(\"X\");").len(), 1);
}

#[test]
fn ports_sources_do_no_io() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 10,
        "found too few sources under {}",
        src.display()
    );
    let mut hits = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for v in violations(line) {
                hits.push(format!("{}:{}: {v}", f.display(), n + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "ports performs no I/O itself (an adapter does it behind a port):\n{}",
        hits.join("\n")
    );
}
