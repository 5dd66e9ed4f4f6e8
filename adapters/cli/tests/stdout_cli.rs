//! A closed or full stdout never makes a command panic (regression: every
//! command exited 101 with a panic message after its effect was committed).
//! The answer that could not be delivered is exit 7; a reader that closed
//! the pipe early gets no message, any other failure one line on stderr.

mod support;

use std::process::{Command, Stdio};

use support::{isolated, medium_change, probity_in, store_snapshot, string_at};

/// Runs probity with stdout connected to a pipe whose reading end is
/// already closed, so every write fails with EPIPE.
fn with_closed_stdout(cwd: &std::path::Path, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = probity_in(cwd)
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
    let out = probity_in(f.root())
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
    let lineage = string_at(&support::approve_live(f.root(), dir.path()), "lineage_id");
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

/// How `probity mcp` is given a stdout that takes no answer.
#[derive(Clone, Copy, Debug)]
enum DeadStdout {
    /// A pipe whose reader is gone (EPIPE).
    Closed,
    /// `/dev/full` (ENOSPC).
    Full,
}

/// Runs `probity mcp ARGS` with a dead stdout: sends `initialize` (whose
/// answer cannot be delivered) and `initialized`, gives the server up to
/// 10 s to stop on its own, then sends `call` (a `tools/call`) and closes
/// stdin. Returns the exit code and stderr. A watchdog kills the child
/// (by its pid) after 60 s so a server that never stops fails the test.
fn mcp_with_dead_stdout(
    cwd: &std::path::Path,
    args: &[&str],
    stdout: DeadStdout,
    call: serde_json::Value,
) -> (i32, String) {
    use std::io::Write as _;
    let stdout = match stdout {
        DeadStdout::Closed => {
            let (reader, writer) = std::io::pipe().expect("pipe");
            drop(reader);
            Stdio::from(writer)
        }
        DeadStdout::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full (Linux)"),
        ),
    };
    let mut child = probity_in(cwd)
        .arg("mcp")
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run probity");
    let watchdog = support::watchdog::Watchdog::start(child.id(), 60, "-KILL");
    let mut stdin = child.stdin.take().expect("stdin");
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probity-test", "version": "0"}}});
    let _ = writeln!(stdin, "{init}");
    let _ = writeln!(
        stdin,
        "{}",
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    let _ = stdin.flush();
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(10) {
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // A server that kept serving runs this call.
    let request = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": call});
    let _ = writeln!(stdin, "{request}");
    let _ = stdin.flush();
    drop(stdin);
    let out = child.wait_with_output().expect("wait for probity");
    watchdog.done();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Regression (issue 12): `probity mcp` with a closed or full stdout exited
/// 0 and kept executing tool calls whose answers went nowhere (an
/// `--authority` `start` created a lineage). Now the first failed write
/// stops serving: nothing more is executed, and the exit is 7, quiet for a
/// closed pipe, one `error[stdout]` line for a full disk.
#[test]
fn mcp_with_a_dead_stdout_stops_serving_and_exits_7() {
    for dead in [DeadStdout::Closed, DeadStdout::Full] {
        // The review lifecycle: no lineage is started.
        let f = medium_change();
        let before = store_snapshot(&f);
        let (code, stderr) = mcp_with_dead_stdout(
            f.root(),
            &["--authority"],
            dead,
            serde_json::json!({"name": "start", "arguments": {}}),
        );
        assert_eq!(code, 7, "{dead:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{dead:?}: {stderr}");
        assert!(
            store_snapshot(&f) == before,
            "{dead:?}: a lineage was started"
        );
        match dead {
            DeadStdout::Closed => assert!(!stderr.contains("error["), "{stderr}"),
            DeadStdout::Full => {
                assert_eq!(stderr.matches("error[stdout]").count(), 1, "{stderr}")
            }
        }
        // The snapshot tools: no call is run (none is logged).
        let log = tempfile::NamedTempFile::new().unwrap();
        let (code, stderr) = mcp_with_dead_stdout(
            f.root(),
            &[
                "--subject",
                "worktree",
                "--log-file",
                log.path().to_str().unwrap(),
            ],
            dead,
            serde_json::json!({"name": "list", "arguments": {}}),
        );
        assert_eq!(code, 7, "{dead:?}: {stderr}");
        let logged = std::fs::read_to_string(log.path()).unwrap();
        assert!(
            !logged.contains("review.snapshot.list"),
            "{dead:?}: the call ran: {logged}"
        );
        match dead {
            DeadStdout::Closed => assert!(!stderr.contains("error["), "{stderr}"),
            DeadStdout::Full => {
                assert_eq!(stderr.matches("error[stdout]").count(), 1, "{stderr}")
            }
        }
    }
}

/// Regression (issue 12): `--help`, `--version` and `help start`, which
/// clap prints itself, exited 0 into a closed pipe or a full disk. They
/// take the same path as every answer: exit 7, quiet for a closed pipe,
/// one `error[stdout]` line for a full disk.
#[test]
fn help_and_version_into_a_dead_stdout_are_exit_7() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["--help"][..], &["--version"], &["help", "start"]] {
        let (code, stderr) = with_closed_stdout(dir.path(), args);
        assert_eq!(code, 7, "{args:?}: {stderr}");
        assert!(!stderr.contains("error["), "{args:?}: {stderr}");
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full (Linux)");
        let out = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
            .args(args)
            .stdout(Stdio::from(full))
            .stderr(Stdio::piped())
            .output()
            .expect("run probity");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {stderr}");
        assert_eq!(
            stderr.matches("error[stdout]").count(),
            1,
            "{args:?}: {stderr}"
        );
    }
}

/// `finalize` into a full disk (issue 23 §7): its error is said once on
/// stderr, whatever the state, with or without `--json`, answer or error.
#[test]
fn finalize_into_a_full_stdout_says_its_error_once() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full (Linux)")
    };
    let run = |args: &[&str], json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
        isolated(&mut cmd).arg("--cwd").arg(f.root());
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args(args)
            .stdout(Stdio::from(full()))
            .stderr(Stdio::piped())
            .output()
            .expect("run probity");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let result = support::input(tmp.path(), "r.json", support::CLEAN_RESULT);
    let evidence = support::input(tmp.path(), "ev.txt", "tests passed\n");
    // No review yet (an error), a review started, results in, approved.
    for step in 0..4 {
        for json in [false, true] {
            let args: Vec<&str> = match step {
                0 | 1 => vec!["finalize"],
                2 => vec!["finalize", "--result", &result],
                _ => vec!["finalize", "--evidence", &evidence],
            };
            let (code, stderr) = run(&args, json);
            assert!(!stderr.contains("panicked"), "{stderr}");
            let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
            assert_eq!(
                lines.len(),
                1,
                "step {step}, json {json}: one error line expected: {stderr}"
            );
            // Without --json an error goes to stderr only: stdout is never
            // written, so the error's own exit stands.
            let want = if step == 0 && !json { 3 } else { 7 };
            assert_eq!(code, Some(want), "step {step}, json {json}: {stderr}");
        }
        if step == 0 {
            assert_eq!(support::probity(f.root(), &["start"]).code, 0);
        }
    }
}
