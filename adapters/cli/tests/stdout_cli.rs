//! A closed or full stdout never makes a command panic (regression: every
//! command exited 101 with a panic message after its effect was committed).
//! The answer that could not be delivered is exit 7; a reader that closed
//! the pipe early gets no message, any other failure one line on stderr.

mod support;

use std::process::{Command, Stdio};

use support::{isolated, medium_change, store_snapshot};

/// Runs probity with stdout connected to a pipe whose reading end is
/// already closed, so every write fails with EPIPE.
fn with_closed_stdout(cwd: &std::path::Path, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run probity");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_is_exit_7_without_a_panic() {
    let f = medium_change();
    for args in [
        &["schema", "reviewer"][..],
        &["--json", "status"],
        &["validate", "--gate", "pre-commit"],
        &["--json", "validate", "--gate", "pre-commit"],
        &["--json", "no-such-command"],
    ] {
        let (code, stderr) = with_closed_stdout(f.root(), args);
        assert_eq!(code, 7, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // The reader went away: nothing to tell it.
        assert!(!stderr.contains("error[stdout]"), "{args:?}: {stderr}");
    }
}

#[test]
fn start_with_a_closed_stdout_commits_and_says_so_by_its_exit_code() {
    let f = medium_change();
    let before = store_snapshot(&f);
    let (code, stderr) = with_closed_stdout(f.root(), &["--json", "start"]);
    assert_eq!(code, 7, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The effect is committed (a retry resumes it), only the answer was lost.
    assert_ne!(store_snapshot(&f), before);
    let again = support::probity(f.root(), &["start"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.json["resumed"], true);
}

#[test]
fn a_full_stdout_is_exit_7_with_one_line_on_stderr() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux)");
    let f = medium_change();
    let out = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .arg("--cwd")
        .arg(f.root())
        .args(["schema", "reviewer"])
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .expect("run probity");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.matches("error[stdout]").count(), 1, "{stderr}");
}

/// The commands that write raw bytes (a bundle, a patch, a statement) treat
/// a closed pipe as every other command does (found by the error-code
/// audit: they printed `error[bundle_io]` / `error[stdout]` to a reader
/// that had simply gone away, e.g. `| head`).
#[test]
fn raw_byte_answers_treat_a_closed_pipe_like_every_answer() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = support::approve_live(f.root(), dir.path())["lineage_id"]
        .as_str()
        .unwrap()
        .to_string();
    for args in [
        &["bundle", "export", "--lineage", lineage.as_str()][..],
        &["export-context", "--lineage", lineage.as_str(), "--patch"],
        &["attest", "--lineage", lineage.as_str()],
    ] {
        let (code, stderr) = with_closed_stdout(f.root(), args);
        assert_eq!(code, 7, "{args:?}: {stderr}");
        assert!(!stderr.contains("error["), "{args:?}: {stderr}");
    }
}
