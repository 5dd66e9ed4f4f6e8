//! Progress on stderr (issue 8 §7): shown when stderr is a terminal and the
//! command works past the delay, never on a pipe. The delay is shortened to
//! 0 ms here (`PROBITY_PROGRESS_AFTER_MS`) so any command shows it.

mod support;

use std::process::Command;

use support::*;

#[test]
fn progress_shows_on_a_terminal_only() {
    let f = medium_change();
    let exe = env!("CARGO_BIN_EXE_probity");
    // A pipe: no progress, and the JSON answer is untouched.
    let piped = isolated(&mut Command::new(exe))
        .args(["--json", "--cwd"])
        .arg(f.root())
        .arg("start")
        .env("PROBITY_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&piped.stdout).unwrap();
    assert!(v["lineage_id"].is_string());
    // A terminal (script(1) gives the command a pseudo-terminal).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("script(1) is not installed: the terminal half is not run");
        return;
    }
    let line = format!("'{exe}' --cwd '{}' status", f.root().display());
    let tty = isolated(&mut Command::new("script"))
        .args(["-qec", &line, "/dev/null"])
        .env("PROBITY_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&tty.stdout);
    assert!(text.contains("probity: still working"), "{text}");
}
