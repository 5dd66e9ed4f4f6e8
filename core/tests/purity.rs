//! `probity-core` stays pure: no file system, processes, network,
//! environment, threads, clocks or randomness anywhere in its sources, and no
//! dependency that brings them.

use std::path::Path;

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
];

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

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

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

#[test]
fn core_has_no_io_dependencies() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or("")
        .split("\n[")
        .next()
        .unwrap_or("");
    for line in deps.lines() {
        let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
        assert!(
            !FORBIDDEN_DEPS.contains(&name),
            "core depends on `{name}`, which does I/O or randomness"
        );
    }
}
