//! Issue 20's "done when", played as the agent under review would play it:
//! write access to its clone, its own SSH key, a model server that always
//! approves, and a shell. The protected base of a server-gated bare remote
//! holds a policy (a medium change needs a `reviewer` signature, held only
//! by the CI principal; a high one a maintainer's too) and a required check
//! for `src/**`. Each way the agent tries is refused by the client and,
//! pushed past it, by the server; the legitimate way (CI re-runs the check
//! and signs) lands.

mod support;

use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;
use support::*;

/// The check the base requires for `src/**`.
const CHECK: [&str; 3] = ["sh", "-c", "grep -q 'fn more' src/parser.rs"];

struct Repo {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    keys: tempfile::TempDir,
    agent: PathBuf,
    ci: PathBuf,
    inputs: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let f = parser_base();
        let (keys, agent, ci, _alice) = team_signers(&f);
        f.write(
            ".probity/policy.json",
            format!(
                r#"{{"schema":"probity-policy/v1","allowed_signers":".probity/allowed_signers","roles":{{"reviewer":["{CI}"],"maintainer":["{ALICE}"]}},"signatures":{{"medium":["reviewer"],"high":["reviewer","maintainer"]}},"authorize":["maintainer"]}}"#
            ),
        )
        .unwrap();
        f.write(
            ".probity/checks.json",
            format!(
                r#"{{"schema":"probity-checks/v1","checks":[{{"name":"parser","paths":["src/**"],"argv":["{}","{}","{}"]}}]}}"#,
                CHECK[0],
                CHECK[1],
                CHECK[2]
            ),
        )
        .unwrap();
        f.commit_all("the team's policy and checks").unwrap();
        let (dir, server) = gated_origin(&f);
        write_medium_change(&f);
        Self {
            f,
            _dir: dir,
            server,
            keys,
            agent,
            ci,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    fn start(&self) -> serde_json::Value {
        let st = probity_ok(self.f.root(), &["start"]);
        st.json
    }

    fn sign(&self, key: &Path, lineage: &str) {
        sign_with(self.f.root(), key, self.keys.path(), lineage);
    }

    fn main(&self) -> Option<String> {
        rev(&self.f, &self.server, "main")
    }

    /// The client refuses `probity push` with `code`; pushed past it
    /// (published, `git push --no-verify`), the server refuses with `code`
    /// too; the protected branch does not move.
    fn refused_everywhere(&self, code: &str) {
        let before = self.main();
        let p = probity(self.f.root(), &["push", "origin", "main"]);
        let said = format!("{}{}", p.stdout, p.stderr);
        assert_ne!(p.code, 0, "{said}");
        assert!(said.contains(code), "the client said: {said}");
        let err = push_past_client(&self.f).unwrap_err();
        assert!(err.contains(code), "the server said: {err}");
        assert_eq!(self.main(), before);
    }
}

fn with_check(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec!["--evidence-cmd", "--"];
    a.extend_from_slice(extra);
    a
}

#[test]
fn the_agents_own_results_check_and_key_do_not_land_its_change() {
    let r = Repo::new();
    let started = r.start();
    let lineage = string_at(&started, "lineage_id");
    approve_started_with(r.f.root(), r.inputs.path(), &started, &with_check(&CHECK));
    commit_all(&r.f, "the agent's change");
    // Unsigned: the policy's reviewer role is missing.
    r.refused_everywhere("roles_unmet");
    // Signed with its own key, which the allowed signers list but no
    // role holds.
    r.sign(&r.agent, &lineage);
    r.refused_everywhere("roles_unmet");
}

#[test]
fn a_model_server_that_always_approves_gets_no_further_than_its_own_results() {
    use support::model_server::{Lens, role_server};
    let r = Repo::new();
    let started = r.start();
    let lineage = string_at(&started, "lineage_id");
    let server = role_server(Lens::Clean);
    let mut args = vec!["review", "--lineage", lineage.as_str()];
    args.extend(with_check(&CHECK));
    let done = probity_env(
        r.f.root(),
        &args,
        &[
            ("PROBITY_MODEL_BASE_URL", server.base_url.as_str()),
            ("PROBITY_MODEL", "scripted"),
        ],
    );
    assert_eq!(
        done.json["state"], "approved",
        "{}{}",
        done.stdout, done.stderr
    );
    commit_all(&r.f, "approved by the agent's own model");
    r.sign(&r.agent, &lineage);
    r.refused_everywhere("roles_unmet");
}

#[test]
fn its_own_check_a_log_it_wrote_or_a_check_that_swallows_failures_is_refused_at_finalize() {
    let r = Repo::new();
    let started = r.start();
    let before = store_snapshot(&r.f);
    let log = input(r.inputs.path(), "log.txt", "42 passed\n");
    // A command evidence document it wrote itself, naming the required
    // argv and the frozen tree: it never travels (only a check Probity ran
    // does), so the server would refuse it; finalize refuses it first.
    let forged = input(
        r.inputs.path(),
        "forged.json",
        &format!(
            r#"{{"argv":["sh","-c","grep -q 'fn more' src/parser.rs"],"exit_code":0,"output_bytes":0,"output_sha256":"sha256:{}","schema":"probity-command-evidence/v2","tree":"{}"}}"#,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            started["candidate_tree"].as_str().unwrap()
        ),
    );
    for evidence in [
        with_check(&["true"]),
        vec!["--evidence", log.as_str()],
        vec!["--evidence", forged.as_str()],
        with_check(&["sh", "-c", "grep -q 'fn more' src/parser.rs || true"]),
    ] {
        let done = finalize_started_with(r.f.root(), r.inputs.path(), &started, &evidence);
        let said = format!("{}{}", done.stdout, done.stderr);
        assert_ne!(done.code, 0, "{said}");
        assert!(said.contains("checks_unmet"), "{said}");
        assert_eq!(store_snapshot(&r.f), before);
    }
}

/// A shadowed interpreter on `PATH` runs the exact required argv and
/// "passes": the document is indistinguishable from an honest run, so the
/// check rule lets it through, and what stops it is the role. The CI
/// principal re-runs the check honestly and signs: the legitimate flow
/// lands.
#[test]
fn a_shadowed_interpreter_passes_the_check_rule_but_not_the_role_and_the_ci_signature_lands() {
    let r = Repo::new();
    let started = r.start();
    let lineage = string_at(&started, "lineage_id");
    let fake = tempfile::tempdir().unwrap();
    let sh = fake.path().join("sh");
    std::fs::write(&sh, "#!/bin/bash\nexit 0\n").unwrap();
    std::fs::set_permissions(&sh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let clean = input(r.inputs.path(), "r.json", CLEAN_RESULT);
    let mut args = finalize_args(
        &lineage,
        started["selected_lenses"].as_array().unwrap(),
        &clean,
    );
    args.extend(with_check(&CHECK).iter().map(|a| a.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = probity_env(r.f.root(), &a, &[("PATH", path.as_str())]);
    assert_eq!(
        done.json["state"], "approved",
        "{}{}",
        done.stdout, done.stderr
    );
    let c = commit_all(&r.f, "checked by a shadowed sh");
    r.sign(&r.agent, &lineage);
    r.refused_everywhere("roles_unmet");
    // CI fetches nothing new here (the same clone stands for it): it
    // re-runs the required check on the reviewed tree itself, and signs
    // only when it passes.
    let tree = rev(&r.f, r.f.root(), "HEAD^{tree}").unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let archive = r.f.git(&["archive", "--format=tar", &tree]).unwrap();
    let tar = scratch.path().join("t.tar");
    std::fs::write(&tar, archive).unwrap();
    let untar = std::process::Command::new("tar")
        .args([
            "-xf",
            tar.to_str().unwrap(),
            "-C",
            scratch.path().to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(untar.success());
    let rerun = std::process::Command::new(CHECK[0])
        .args(&CHECK[1..])
        .current_dir(scratch.path())
        .status()
        .unwrap();
    assert!(
        rerun.success(),
        "the honest check passes on the reviewed tree"
    );
    r.sign(&r.ci, &lineage);
    probity_ok(r.f.root(), &["push", "origin", "main"]);
    assert_eq!(r.main(), Some(c));
}
