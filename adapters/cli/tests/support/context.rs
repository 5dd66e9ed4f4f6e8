//! What the `probity context` tests share (`context_cli`, `context_fetch`):
//! the binary run without a repository, its JSON answer, and the
//! `assemble` and `verify` calls each of them makes.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_probity");

/// `probity ARGS` (no `--cwd`, no isolation: these commands read no
/// repository configuration).
pub fn probity(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// The run's stdout as JSON; a failure shows stdout and stderr.
pub fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// Asserts the run exited 0, showing its stdout and stderr otherwise.
pub fn assert_success(o: &Output) {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `probity context assemble --input INPUT --out OUT`, with `--json` when
/// `json`.
pub fn assemble_to(input: &Path, out: &Path, json: bool) -> Output {
    let mut args = vec![
        "context",
        "assemble",
        "--input",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    if json {
        args.push("--json");
    }
    probity(&args)
}

/// `probity context verify DIR --index-digest DIGEST --json`.
pub fn verify_tree(dir: &Path, digest: &str) -> Output {
    probity(&[
        "context",
        "verify",
        dir.to_str().unwrap(),
        "--index-digest",
        digest,
        "--json",
    ])
}
