//! What the `probity context` tests share (`context_cli`, `context_fetch`):
//! the binary run without a repository, its JSON answer, and the
//! `assemble` and `verify` calls each of them makes.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
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

/// The example input `name` under `examples/context`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/context")
        .join(name)
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Makes `cmd` start with SIGINT and SIGTERM at their default disposition
/// and unblocked, whatever this test process inherited (a test run started
/// in the background inherits an ignored SIGINT, which Probity rightly
/// keeps ignoring), so Probity installs its own handlers for both.
pub fn catching_signals(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls
    // (signal(2), sigemptyset(3), sigaddset(3), sigprocmask(2)) on local
    // values.
    unsafe {
        cmd.pre_exec(|| {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGINT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
                libc::sigaddset(&mut set, sig);
            }
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
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
