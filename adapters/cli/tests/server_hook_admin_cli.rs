//! The server hook as administrators install and run it (issue 21 §6), on
//! real bare repositories, some owned by another user (`nobody`) as a
//! shared or web-served repository is: git's configuration from the
//! environment reaches the gate, git's own refusal is reported, the
//! recorded binary must be one the repository's users can run, and a
//! broken server configuration is the administrator's, never the
//! pusher's, without the server's paths.
//!
//! The ownership cases need root (they `chown` to `nobody`); they say so
//! and stop elsewhere.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;
use support::*;

/// A clone `f` whose `main` is on a bare `server.git` with the server hook
/// installed, in a directory everyone may traverse (as a server's are), and
/// the medium change in the worktree.
struct Server {
    f: Fixture,
    dir: tempfile::TempDir,
    server: PathBuf,
    inputs: tempfile::TempDir,
}

impl Server {
    fn new() -> Self {
        let f = parser_base();
        let (dir, server) = bare_origin(&f, "server.git");
        chmod(dir.path(), "755");
        probity_ok(&server, &["hooks", "install", "--server"]);
        write_medium_change(&f);
        Self {
            f,
            dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    fn approve(&self) {
        approve_live(self.f.root(), self.inputs.path());
    }

    fn rev(&self, r: &str) -> String {
        rev_parse(&self.f, r)
    }

    fn server_rev(&self, r: &str) -> Option<String> {
        self.f
            .git_in(
                &self.server,
                &["-c", "safe.directory=*", "rev-parse", "-q", "--verify", r],
            )
            .ok()
            .map(|b| String::from_utf8(b).unwrap().trim().to_string())
    }

    /// A plain `git push --no-verify` from the clone over a stand-in ssh
    /// whose "server side" runs git with `server_env` exported, as an
    /// Apache `SetEnv` or an sshd environment gives it: Ok, or Err(stderr).
    fn push(&self, server_env: &[(&str, &str)], args: &[&str]) -> Result<(), String> {
        let exports: String = server_env
            .iter()
            .map(|(k, v)| format!("{k}=\"{v}\"; export {k}\n"))
            .collect();
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let ssh = self.inputs.path().join(format!("ssh-{n}"));
        probity_testkit::write_executable(
            &ssh,
            format!(
                "#!/bin/sh\n{exports}for a; do last=$a; done\nexec sh -c \"git ${{last#git-}}\"\n"
            )
            .as_bytes(),
        )
        .unwrap();
        let url = format!("ssh://fakehost{}", self.server.display());
        let mut cmd = Command::new("git");
        isolated(&mut cmd)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env("GIT_SSH_COMMAND", &ssh)
            .env("GIT_SSH_VARIANT", "simple")
            .current_dir(self.f.root())
            .args(["push", "-q", "--no-verify", &url])
            .args(args);
        let out = cmd.output().unwrap();
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// Gives the server repository to `nobody`: root's git now finds it of
    /// "dubious ownership" unless told it is safe.
    fn give_to_nobody(&self) {
        output_ok(
            Command::new("chown")
                .args(["-R", "nobody"])
                .arg(&self.server),
        );
    }
}

fn chmod(p: &Path, mode: &str) {
    let ok = Command::new("chmod").arg(mode).arg(p).status().unwrap();
    assert!(ok.success());
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `safe.directory` for every repository, as an Apache `SetEnv` gives it.
const SAFE_ENV: [(&str, &str); 3] = [
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "safe.directory"),
    ("GIT_CONFIG_VALUE_0", "*"),
];

#[test]
fn the_server_gate_reads_the_repository_with_gits_configuration_from_the_environment() {
    let s = Server::new();
    // `probity.protectedRefs` passed as `git -c` (GIT_CONFIG_PARAMETERS):
    // with it, a branch outside the protected ones takes an unreviewed
    // commit; without it, every branch is protected.
    s.f.commit_all("unreviewed").unwrap();
    let err = s.push(&[], &["HEAD:refs/heads/scratch"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    s.push(
        &[(
            "GIT_CONFIG_PARAMETERS",
            "'probity.protectedrefs'='refs/heads/main'",
        )],
        &["HEAD:refs/heads/scratch"],
    )
    .unwrap();
    assert_eq!(s.server_rev("refs/heads/scratch"), Some(s.rev("HEAD")));
    s.f.git(&["reset", "-q", "--soft", "HEAD~1"]).unwrap();

    if !is_root() {
        eprintln!("not root: the ownership case needs chown; skipped");
        return;
    }
    // A repository another user owns, made safe by the environment
    // (GIT_CONFIG_COUNT/KEY/VALUE): git accepts the push, and so must the
    // gate it runs.
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let tip = s.rev("HEAD");
    probity_ok(s.f.root(), &["publish"]);
    s.give_to_nobody();
    let err = s
        .push(&[], &["--atomic", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("dubious ownership"), "{err}");
    s.push(&SAFE_ENV, &["--atomic", "main", "refs/notes/probity"])
        .unwrap();
    assert_eq!(s.server_rev("main"), Some(tip));
}

#[test]
fn gits_own_refusal_is_reported_and_the_pusher_sees_no_server_path() {
    if !is_root() {
        eprintln!("not root: the ownership case needs chown; skipped");
        return;
    }
    let s = Server::new();
    s.f.commit_all("change").unwrap();
    let (old, new) = (s.rev("HEAD~1"), s.rev("HEAD"));
    s.give_to_nobody();
    // The administrator's forms: git's own text, not "not inside a git
    // repository".
    let range = probity(
        &s.server,
        &pre_receive_args(&format!("{old}..{new}"), "refs/heads/main"),
    );
    assert_ne!(range.code, 0);
    let message = range.json["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("dubious ownership"), "{}", range.stdout);
    assert!(
        !message.contains("not inside a git repository"),
        "{message}"
    );
    let install = probity(&s.server, &["hooks", "install", "--server"]);
    let message = install.json["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("dubious ownership"), "{}", install.stdout);

    // The hook's form (git's lines on stdin) answers the pusher: the
    // server is misconfigured, ask its administrator; no path.
    let hook = probity_stdin(
        &s.server,
        &["validate", "--gate", "pre-receive"],
        format!("{old} {new} refs/heads/main\n").as_bytes(),
    );
    assert_ne!(hook.code, 0);
    hook.assert_error("server_misconfigured");
    let all = format!("{}{}", hook.stdout, hook.stderr);
    assert!(all.contains("administrator"), "{all}");
    assert!(!all.contains(s.dir.path().to_str().unwrap()), "{all}");
}

#[test]
fn an_unreadable_allowed_signers_file_is_the_administrators_not_the_pushers() {
    let s = Server::new();
    let hidden = s.dir.path().join("admin-only").join("allowed_signers");
    require_signatures(&s.f, &s.server, &hidden);
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    probity_ok(s.f.root(), &["publish"]);
    let before = s.server_rev("main");
    let err = s
        .push(&[], &["--atomic", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("server_misconfigured"), "{err}");
    assert!(err.contains("ask its administrator"), "{err}");
    assert!(
        !err.contains("admin-only"),
        "a server path reached the pusher: {err}"
    );
    assert!(
        !err.contains("--sign"),
        "the pusher was told to re-sign: {err}"
    );
    assert_eq!(s.server_rev("main"), before);
    // The administrator's detail is kept on the server.
    let log = std::fs::read_to_string(s.server.join("probity-server.log")).unwrap();
    assert!(log.contains("admin-only"), "{log}");
}

#[test]
fn bad_signature_settings_are_the_servers_fault_too() {
    let s = Server::new();
    s.f.git_in(&s.server, &["config", "probity.requireSignature", "maybe"])
        .unwrap();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    probity_ok(s.f.root(), &["publish"]);
    let err = s
        .push(&[], &["--atomic", "main", "refs/notes/probity"])
        .unwrap_err();
    assert!(err.contains("server_misconfigured"), "{err}");
    // The detail (git's complaint about the value) stays on the server.
    assert!(!err.to_lowercase().contains("requiresignature"), "{err}");
    let log = std::fs::read_to_string(s.server.join("probity-server.log")).unwrap();
    assert!(log.to_lowercase().contains("requiresignature"), "{log}");
}

#[test]
fn a_push_refused_only_for_its_missing_notes_says_so() {
    let s = Server::new();
    s.approve();
    s.f.commit_all("reviewed").unwrap();
    let err = s.push(&[], &["main"]).unwrap_err();
    assert!(err.contains("receipt_missing"), "{err}");
    assert!(err.contains("does not carry refs/notes/probity"), "{err}");
    assert!(err.contains("probity push"), "{err}");
}

#[test]
fn the_server_hook_records_a_binary_the_repositorys_users_can_run() {
    if !is_root() {
        eprintln!("not root: the ownership case needs chown; skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), "755");
    let private = dir.path().join("root-home");
    let public = dir.path().join("bin");
    std::fs::create_dir(&private).unwrap();
    std::fs::create_dir(&public).unwrap();
    chmod(&private, "700");
    let copy = |to: &Path| {
        let ok = Command::new("cp")
            .arg(env!("CARGO_BIN_EXE_probity"))
            .arg(to)
            .status()
            .unwrap();
        assert!(ok.success());
    };
    let installer = private.join("probity");
    copy(&installer);
    let server = dir.path().join("server.git");
    let f = Fixture::new().unwrap();
    f.git(&["init", "-q", "--bare", server.to_str().unwrap()])
        .unwrap();
    let ok = Command::new("chown")
        .args(["-R", "nobody"])
        .arg(&server)
        .status()
        .unwrap();
    assert!(ok.success());
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join(".gitconfig"), "[safe]\n\tdirectory = *\n").unwrap();
    let install = |path: &str| {
        let out = isolated(&mut Command::new(&installer))
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .env("PATH", path)
            .arg("--json")
            .arg("--cwd")
            .arg(&server)
            .args(["hooks", "install", "--server"])
            .output()
            .unwrap();
        run_of(&out)
    };
    let hook = server.join("hooks").join("pre-receive");
    // Root's own copy, in a directory only root may enter, and no probity
    // on PATH: refused, nothing written.
    let r = install("/usr/bin:/bin");
    let next = r.assert_failed("hook_binary_unusable");
    assert!(next.contains("PATH"), "{next}");
    assert!(!hook.exists());
    // A probity on PATH the owner can run: that one is recorded.
    let usable = public.join("probity");
    copy(&usable);
    let r = install(&format!("{}:/usr/bin:/bin", public.display()));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let script = std::fs::read_to_string(&hook).unwrap();
    assert!(script.contains(usable.to_str().unwrap()), "{script}");
    assert!(!script.contains("root-home"), "{script}");
    // The answer says which binary the hook runs, and why not this one.
    let message = r.json["hooks"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains(usable.to_str().unwrap()), "{}", r.stdout);
}
