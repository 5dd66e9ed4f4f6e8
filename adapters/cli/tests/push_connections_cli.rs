//! `probity push` makes one connection per push where git allows (issue 21
//! §5, issue 24): with Probity's managed pre-push hook in place, the hook
//! judges inside the push's own connection (the remote's tips are what
//! git's ref advertisement says), so no dry run goes first; the notes are
//! fetched and merged only when the remote's moved on. A denial is still
//! `push_denied`, with the gate's reason, and nothing is pushed. Every
//! connection is counted by wrapping the remote's `git-receive-pack` and
//! `git-upload-pack` (`remote.origin.receivepack` / `uploadpack`).

mod support;

use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use support::*;

/// Points `cwd`'s `origin` at wrappers that log each connection to `log`
/// (`receive` for a push or a dry run, `upload` for a fetch or ls-remote).
fn count_connections(f: &Fixture, cwd: &Path, dir: &Path) -> PathBuf {
    let log = dir.join("connections.log");
    for (kind, program, key) in [
        ("receive", "git-receive-pack", "remote.origin.receivepack"),
        ("upload", "git-upload-pack", "remote.origin.uploadpack"),
    ] {
        let wrapper = dir.join(format!("wrap-{kind}"));
        probity_testkit::write_executable(
            &wrapper,
            format!(
                "#!/bin/sh\necho {kind} >> '{log}'\nexec {program} \"$@\"\n",
                log = log.display()
            )
            .as_bytes(),
        )
        .unwrap();
        f.git_in(cwd, &["config", key, wrapper.to_str().unwrap()])
            .unwrap();
    }
    log
}

fn connections(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// `hooked_origin()` with Probity's managed client hooks installed.
fn hooked_clone() -> (Fixture, tempfile::TempDir, PathBuf) {
    let (f, dir, server) = hooked_origin();
    probity_ok(f.root(), &["hooks", "install"]);
    (f, dir, server)
}

#[test]
fn a_reviewed_push_with_the_managed_hook_makes_one_connection() {
    let (f, _dir, server) = hooked_clone();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let head = commit_all(&f, "reviewed");
    let log = count_connections(&f, f.root(), inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(head.clone()));
    assert!(rev(&f, &server, "refs/notes/probity").is_some());
    assert_eq!(connections(&log), vec!["receive"]);
}

/// A denial names the remote as the user did (`origin`, not the URL git
/// hands the hook), and is judged inside the one push: the only other
/// connection is the denial path's `ls-remote`, which tells a stale
/// clone to fetch first, as the dry-run path does.
#[test]
fn an_unreviewed_push_with_the_managed_hook_is_denied_with_the_gates_reason() {
    let (f, _dir, server) = hooked_clone();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    commit_all(&f, "unreviewed");
    let before = rev(&f, &server, "main");
    let log = count_connections(&f, f.root(), inputs.path());
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["error"]["code"], "push_denied", "{}", p.stdout);
    let message = p.json["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("receipt_missing"), "{}", p.stdout);
    assert!(message.contains("nothing was pushed"), "{}", p.stdout);
    let next = p.json["error"]["next_action"].as_str().unwrap_or_default();
    assert!(next.contains("probity start"), "{}", p.stdout);
    assert!(!message.contains(server.to_str().unwrap()), "{}", p.stdout);
    assert_eq!(rev(&f, &server, "main"), before);
    assert_eq!(connections(&log), vec!["receive", "upload"]);
}

/// A teammate published notes meanwhile: the first push is refused for the
/// notes alone, which are then fetched and merged, and the push lands with
/// both notes on the server (three connections: push, fetch, push).
#[test]
fn notes_another_clone_published_are_merged_and_the_push_lands() {
    let (f, _dir, server) = hooked_clone();
    let inputs = tempfile::tempdir().unwrap();
    let (_d, b) = clone_as(&f, &server, "b");
    let theirs = teammate_commits_docs(&f, &b, inputs.path());
    probity_ok(&b, &["push", "origin", "HEAD:refs/heads/docs"]);
    // Here: reviewed work on main, whose notes do not hold the teammate's.
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let mine = commit_all(&f, "mine");
    let log = count_connections(&f, f.root(), inputs.path());
    let p = probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(p.json["notes_merged_from_remote"], true, "{}", p.stdout);
    assert_eq!(rev(&f, &server, "main"), Some(mine.clone()));
    for c in [&mine, &theirs] {
        let note = f.git_in(&server, &["notes", "--ref=probity", "show", c]);
        assert!(note.is_ok(), "the server lost the note of {c}");
    }
    assert_eq!(connections(&log), vec!["receive", "upload", "receive"]);
}

/// The verdict file a hooked push makes (in `$TMPDIR`) is removed when the
/// push is interrupted (Ctrl-C, SIGTERM) while git runs, not only on a
/// normal end: it is registered with the interruption cleanup.
#[test]
fn an_interrupted_hooked_push_leaves_no_verdict_file() {
    use support::signals::{each_signal_leaves_nothing, in_tmp, names_starting};
    let (f, _dir, _server) = hooked_clone();
    write_medium_change(&f);
    commit_all(&f, "unreviewed: the hook denies, the push runs a while");
    let tmp = tempfile::tempdir().unwrap();
    each_signal_leaves_nothing(
        || in_tmp(f.root(), tmp.path(), &["push", "origin", "main"]),
        || names_starting(tmp.path(), ".tmp"),
        "a verdict file",
    );
}

/// A hooked push whose verdict file cannot be made ($TMPDIR unusable) is
/// refused with its reason and a next step, before anything is pushed.
#[test]
fn a_hooked_push_without_a_usable_tmpdir_pushes_nothing() {
    let (f, _dir, server) = hooked_clone();
    let inputs = tempfile::tempdir().unwrap();
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    commit_all(&f, "reviewed");
    let before = rev(&f, &server, "main");
    let missing = inputs.path().join("no-such-dir");
    let r = probity_env(
        f.root(),
        &["push", "origin", "main"],
        &[("TMPDIR", missing.to_str().unwrap())],
    );
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["error"]["code"], "push_failed", "{}", r.stdout);
    let next = r.json["error"]["next_action"].as_str().unwrap_or_default();
    assert!(next.contains("check $TMPDIR"), "{}", r.stdout);
    assert!(next.contains("nothing was pushed"), "{}", r.stdout);
    assert_eq!(rev(&f, &server, "main"), before);
    assert!(!missing.exists());
}
