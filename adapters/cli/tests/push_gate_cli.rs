//! `probity push` as a gate and a good git citizen (issue 21 §5), through
//! the real binary, real `git push` and real remotes: the pre-push
//! judgement runs first whether or not a hook is installed, the user's
//! transport settings reach the git that talks to the remote, a local
//! hook's refusal reaches the user, and a server without atomic push is
//! named with what to do.

mod support;

use std::path::{Path, PathBuf};

use support::*;

/// A stand-in ssh: it records each invocation (its arguments, one per
/// line) in `log` and runs the git command it is given on this machine, as
/// sshd would on the host. An `ssh -G` probe (git's variant detection) is
/// refused, as a plain ssh-like program would.
fn fake_ssh(dir: &Path, log: &Path) -> PathBuf {
    let p = dir.join("fake-ssh");
    probity_testkit::write_executable(
        &p,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{log}'\n[ \"$1\" = -G ] && exit 1\nfor a; do last=$a; done\nexec sh -c \"git ${{last#git-}}\"\n",
            log = log.display()
        )
        .as_bytes(),
    )
    .unwrap();
    p
}

#[test]
fn probity_push_talks_to_the_remote_through_the_users_git_ssh_command() {
    let s = Origin::with_medium_change();
    s.approve();
    s.f.commit_all("reviewed change").unwrap();
    let tip = s.rev("HEAD");
    let log = s.inputs.path().join("ssh.log");
    let ssh = fake_ssh(s.inputs.path(), &log);
    let url = format!("ssh://fakehost{}", s.remote.display());
    s.f.git(&["remote", "set-url", "origin", &url]).unwrap();
    let push = || {
        let env = [
            ("GIT_SSH_COMMAND", ssh.to_str().unwrap()),
            ("GIT_SSH_VARIANT", "simple"),
        ];
        probity_env(s.f.root(), &["push", "origin", "main"], &env)
    };

    let p = push();
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(s.remote_rev("main").as_deref(), Some(tip.as_str()));
    assert!(s.remote_rev("refs/notes/probity").is_some());
    let calls = std::fs::read_to_string(&log).unwrap();
    // Every connection went through the user's ssh, to the named host.
    assert!(calls.contains("fakehost git-receive-pack"), "{calls}");
    assert!(calls.contains("fakehost git-upload-pack"), "{calls}");
    assert!(
        !calls.contains("-G"),
        "GIT_SSH_VARIANT was dropped: {calls}"
    );

    // A second reviewed push, the local notes already ahead of the
    // remote's: the dry run (which also asks about the notes) and the push,
    // two connections, no fetch.
    std::fs::remove_file(&log).unwrap();
    s.f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    s.approve();
    s.f.commit_all("second reviewed change").unwrap();
    let p = push();
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["notes_merged_from_remote"], false);
    assert_eq!(s.remote_rev("main"), Some(s.rev("HEAD")));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls.lines().count(), 2, "{calls}");
    assert!(!calls.contains("git-upload-pack"), "{calls}");
}

#[test]
fn an_unreviewed_commit_is_refused_without_any_hook_and_nothing_is_pushed() {
    let s = Origin::with_medium_change();
    s.f.commit_all("unreviewed change").unwrap();
    assert!(!s.f.root().join(".git/hooks/pre-push").exists());
    let before = s.remote_refs();
    let notes_before = s.f.git(&["for-each-ref", "refs/notes/"]).unwrap();

    let p = probity(s.f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["error"]["code"], "push_denied", "{}", p.stdout);
    let message = p.error_message();
    assert!(message.contains("receipt_missing"), "{message}");
    assert!(message.contains("nothing was pushed"), "{message}");
    assert_eq!(s.remote_refs(), before, "the remote changed");
    assert_eq!(
        s.f.git(&["for-each-ref", "refs/notes/"]).unwrap(),
        notes_before,
        "a refused push published notes"
    );
    // The text form says why, too.
    let text = probity_in(s.f.root())
        .args(["push", "origin", "main"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(!text.status.success());
    assert!(stderr.contains("receipt_missing"), "{stderr}");
    assert_eq!(s.remote_refs(), before);
}

#[test]
fn a_local_hooks_refusal_reaches_the_user() {
    let s = Origin::with_medium_change();
    s.approve();
    s.f.commit_all("reviewed change").unwrap();
    let before = s.remote_refs();
    probity_testkit::write_executable(
        &s.f.root().join(".git/hooks/pre-push"),
        b"#!/bin/sh\necho 'team policy: no pushes on Fridays' >&2\nexit 1\n",
    )
    .unwrap();
    for json in [true, false] {
        let (code, stderr) = if json {
            let p = probity(s.f.root(), &["push", "origin", "main"]);
            assert_eq!(p.json["error"]["code"], "push_rejected", "{}", p.stdout);
            (p.code, p.stderr)
        } else {
            let out = probity_in(s.f.root())
                .args(["push", "origin", "main"])
                .output()
                .unwrap();
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        assert_ne!(code, 0);
        assert!(
            stderr.contains("team policy: no pushes on Fridays"),
            "json={json}: {stderr}"
        );
        assert_eq!(s.remote_refs(), before, "json={json}");
    }
}

#[test]
fn a_server_without_atomic_push_is_named_with_what_to_do() {
    let s = Origin::with_medium_change();
    s.approve();
    s.f.commit_all("reviewed change").unwrap();
    s.f.git_in(&s.remote, &["config", "receive.advertiseAtomic", "false"])
        .unwrap();
    let before = s.remote_refs();
    let p = probity(s.f.root(), &["push", "origin", "main"]);
    let next = p.assert_failed("atomic_unsupported");
    assert!(
        next.contains("git push origin refs/notes/probity"),
        "{next}"
    );
    assert_eq!(s.remote_refs(), before);
}

/// Issue 21 §5: a new branch pushed from a clone that has not fetched a
/// teammate's push is measured against history this clone lacks; the
/// refusal says to fetch first, and after `git fetch` the same push lands.
#[test]
fn a_new_branch_from_a_stale_clone_is_told_to_fetch_first_and_then_lands() {
    let (f, _dir, server) = hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    // A teammate lands reviewed work on main.
    let (_d, b) = clone_as(&f, &server, "b");
    teammate_commits_docs(&f, &b, inputs.path());
    probity_ok(&b, &["push", "origin", "main"]);
    // Here, without fetching: reviewed work on a new branch.
    write_medium_change(&f);
    approve_live(f.root(), inputs.path());
    let head = commit_all(&f, "mine");
    let p = probity(f.root(), &["push", "origin", "HEAD:refs/heads/feature"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert_eq!(p.json["error"]["code"], "push_denied", "{}", p.stdout);
    let next = p.json["error"]["next_action"].as_str().unwrap_or_default();
    assert!(next.contains("git fetch origin"), "{}", p.stdout);
    assert!(rev(&f, &server, "refs/heads/feature").is_none());
    // The advice works.
    f.git(&["fetch", "-q", "origin"]).unwrap();
    probity_ok(f.root(), &["push", "origin", "HEAD:refs/heads/feature"]);
    assert_eq!(rev(&f, &server, "refs/heads/feature"), Some(head));
}
