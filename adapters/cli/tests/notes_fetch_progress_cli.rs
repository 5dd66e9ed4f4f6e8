//! Long pushes show git's own progress (issue 22 §5): the fetch of the
//! remote's notes that `probity push` makes before pushing (another clone
//! published meanwhile) shows git's progress meter on a terminal's stderr,
//! as the push itself does, and nothing on a pipe: the `--json` answer
//! stays clean and parsable.

mod support;

use std::path::PathBuf;
use std::process::Command;

use support::transport::*;
use support::*;

/// Clone A pushed a reviewed `main` with its notes; clone B holds a
/// reviewed `feature` whose notes no longer fast-forward the server's, so
/// `probity push origin feature` in B fetches and merges the server's
/// notes first.
fn two_clones() -> (Setup, tempfile::TempDir, PathBuf) {
    let s = Setup::new();
    let (d, b) = s.reviewed_in_a_and_b();
    let pb = probity(&b, &["publish"]);
    assert_eq!(pb.code, 0, "{}{}", pb.stdout, pb.stderr);
    let pa = probity(s.f.root(), &["push", "origin", "main"]);
    assert_eq!(pa.code, 0, "{}{}", pa.stdout, pa.stderr);
    s.f.git_in(&b, &["fetch", "-q", "origin"]).unwrap();
    (s, d, b)
}

#[test]
fn on_a_pipe_the_notes_fetch_shows_nothing_and_the_json_stays_clean() {
    let (_s, _d, b) = two_clones();
    let pushed = probity(&b, &["push", "origin", "feature"]);
    assert_eq!(pushed.code, 0, "{}{}", pushed.stdout, pushed.stderr);
    // The whole of stdout is one JSON answer.
    let v: serde_json::Value = serde_json::from_str(&pushed.stdout).unwrap();
    assert_eq!(v["notes_merged_from_remote"], true);
    assert!(
        !pushed.stderr.contains("objects"),
        "no progress on a pipe:\n{}",
        pushed.stderr
    );
}

#[test]
fn on_a_terminal_the_notes_fetch_shows_gits_progress() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("script(1) is not installed: the terminal test is not run");
        return;
    }
    let (_s, _d, b) = two_clones();
    let exe = env!("CARGO_BIN_EXE_probity");
    // script(1) gives the command a pseudo-terminal (stdout and stderr).
    let line = format!("'{exe}' --cwd '{}' push origin feature", b.display());
    let tty = isolated(&mut Command::new("script"))
        .args(["-qec", &line, "/dev/null"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&tty.stdout);
    assert_eq!(tty.status.code(), Some(0), "{text}");
    // The serving side's meter of the fetch (a push's own meter is local,
    // without `remote: `; its server runs no pack-objects).
    assert!(text.contains("remote: Enumerating objects"), "{text}");
    assert!(text.contains("to origin"), "{text}");
    // Nothing of git's ref-update lines or Probity's scratch ref.
    assert!(!text.contains("refs/probity/"), "{text}");
}
