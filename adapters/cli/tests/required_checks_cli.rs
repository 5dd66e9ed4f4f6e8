//! Required checks read from the protected base (issue 20 §2, D-R69), on a
//! real bare remote with the server hook: `.probity/checks.json` names the
//! check an approval of `src/**` must rest on; the command evidence travels
//! in the review's bundle (`probity.review-bundle/v2`), so the server holds
//! every approval to it. An agent's own check (`-- true`), a file it wrote,
//! or a checks file it deletes in its own change do not pass; the required
//! check does.

mod support;

use std::path::PathBuf;

use probity_git::fixture::Fixture;
use support::*;

/// The check the base requires for `src/**`: it reads the reviewed tree.
const CHECK: [&str; 3] = ["sh", "-c", "grep -q parse src/parser.rs"];

fn checks_json() -> String {
    format!(
        r#"{{"schema":"probity-checks/v1","checks":[{{"name":"tests","paths":["src/**"],"argv":["{}","{}","{}"]}}]}}"#,
        CHECK[0], CHECK[1], CHECK[2]
    )
}

/// A repository whose protected base holds the required checks, served by
/// a bare remote with the server hook.
struct Checked {
    f: Fixture,
    _dir: tempfile::TempDir,
    server: PathBuf,
    inputs: tempfile::TempDir,
}

impl Checked {
    fn new() -> Self {
        let f = parser_base();
        f.write(".probity/checks.json", checks_json()).unwrap();
        f.commit_all("the required checks").unwrap();
        let (dir, server) = gated_origin(&f);
        Self {
            f,
            _dir: dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        }
    }

    fn start(&self) -> serde_json::Value {
        let st = probity_ok(self.f.root(), &["start"]);
        st.json
    }

    fn server_main(&self) -> Option<String> {
        rev(&self.f, &self.server, "main")
    }
}

fn evidence_cmd(argv: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec!["--evidence-cmd", "--"];
    a.extend_from_slice(argv);
    a
}

#[test]
fn an_approval_on_the_required_check_carries_it_to_the_server_and_lands() {
    let t = Checked::new();
    write_medium_change(&t.f);
    let started = t.start();
    approve_started_with(t.f.root(), t.inputs.path(), &started, &evidence_cmd(&CHECK));
    let c = commit_all(&t.f, "reviewed on the required check");
    probity_ok(t.f.root(), &["push", "origin", "main"]);
    assert_eq!(t.server_main(), Some(c.clone()));
    // The note on the server carries a v2 bundle with the check's document.
    let note =
        t.f.git(&[
            "--git-dir",
            t.server.to_str().unwrap(),
            "notes",
            "--ref=probity",
            "show",
            &c,
        ])
        .unwrap();
    let note = String::from_utf8(note).unwrap();
    assert!(note.contains("probity.review-bundle/v2"), "{note}");
    assert!(note.contains("grep -q parse src/parser.rs"), "{note}");
    // `policy show` names the check the base requires.
    let s = probity_ok(t.f.root(), &["policy", "show", "--at", "origin/main"]);
    assert!(s.stdout.contains("required check `tests`"), "{}", s.stdout);
}

#[test]
fn another_check_or_a_file_is_refused_before_anything_is_written_and_the_required_check_lands() {
    let t = Checked::new();
    write_medium_change(&t.f);
    let started = t.start();
    let before = store_snapshot(&t.f);
    // The agent's own check, then a log file it wrote: each refused with
    // the code and the required check named, nothing written.
    let file = input(t.inputs.path(), "log.txt", "all tests passed\n");
    for evidence in [evidence_cmd(&["true"]), vec!["--evidence", file.as_str()]] {
        let r = finalize_started_with(t.f.root(), t.inputs.path(), &started, &evidence);
        assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(said.contains("checks_unmet"), "{said}");
        assert!(said.contains("grep -q parse src/parser.rs"), "{said}");
        assert_eq!(store_snapshot(&t.f), before);
    }
    // The way on: the required check, on the same lineage.
    approve_started_with(t.f.root(), t.inputs.path(), &started, &evidence_cmd(&CHECK));
    let c = commit_all(&t.f, "reviewed");
    probity_ok(t.f.root(), &["push", "origin", "main"]);
    assert_eq!(t.server_main(), Some(c));
}

/// The check's document is kept before the lineage takes the check
/// (issue 20 §1): when it cannot be kept, the approval is not written
/// either, so no approval stands that its bundle cannot prove to the
/// server; the rerun, once the store is writable, lands.
#[test]
fn a_check_whose_document_cannot_be_kept_approves_nothing_and_the_rerun_lands() {
    let t = Checked::new();
    write_medium_change(&t.f);
    let started = t.start();
    // The store's evidence directory cannot be made: a file holds its name.
    let blocker = t.f.root().join(".git/probity/reviews/v1/evidence");
    std::fs::write(&blocker, b"not a directory\n").unwrap();
    let before = store_snapshot(&t.f);
    let r = finalize_started_with(t.f.root(), t.inputs.path(), &started, &evidence_cmd(&CHECK));
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_ne!(r.json["state"], "approved", "{}{}", r.stdout, r.stderr);
    let said = format!("{}{}", r.stdout, r.stderr);
    assert!(said.contains("store_io"), "{said}");
    assert!(said.contains("nothing was changed"), "{said}");
    assert_eq!(store_snapshot(&t.f), before);
    // The way on: the same check once the store takes it.
    std::fs::remove_file(&blocker).unwrap();
    approve_started_with(t.f.root(), t.inputs.path(), &started, &evidence_cmd(&CHECK));
    // Nothing pending is left beside the kept document.
    let kept = t.f.root().join(".git/probity/reviews/v1/evidence");
    let names: Vec<String> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(!names[0].contains("pending"), "{names:?}");
    let c = commit_all(&t.f, "reviewed on the required check");
    probity_ok(t.f.root(), &["push", "origin", "main"]);
    assert_eq!(t.server_main(), Some(c));
}

#[test]
fn an_agent_that_deletes_the_checks_in_its_own_change_is_refused_at_the_server() {
    let t = Checked::new();
    let before = t.server_main();
    // The agent removes the required checks and reviews the removal (it
    // changes no path a check covers), then reviews its src change on top
    // with its own check: locally the base of that review has no checks.
    std::fs::remove_file(t.f.root().join(".probity/checks.json")).unwrap();
    let started = t.start();
    approve_started_with(
        t.f.root(),
        t.inputs.path(),
        &started,
        &evidence_cmd(&["true"]),
    );
    commit_all(&t.f, "drop the checks");
    write_medium_change(&t.f);
    let started = t.start();
    approve_started_with(
        t.f.root(),
        t.inputs.path(),
        &started,
        &evidence_cmd(&["true"]),
    );
    commit_all(&t.f, "the change, on its own check");
    // The client's gate reads the checks from what the remote holds, and
    // refuses before pushing.
    let p = probity(t.f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    let said = format!("{}{}", p.stdout, p.stderr);
    assert!(said.contains("checks_unmet"), "{said}");
    assert_eq!(t.server_main(), before);
    // Past the client (published, `git push --no-verify`), the server
    // judges both commits under the protected base's checks.
    probity_ok(t.f.root(), &["publish"]);
    let err =
        t.f.git(&[
            "push",
            "-q",
            "--no-verify",
            "--atomic",
            "origin",
            "main",
            "refs/notes/probity",
        ])
        .unwrap_err()
        .to_string();
    assert!(err.contains("checks_unmet"), "{err}");
    assert_eq!(t.server_main(), before);
}

#[test]
fn paths_no_check_covers_need_none() {
    let t = Checked::new();
    t.f.write("README.md", "# readme\n").unwrap();
    approve_live(t.f.root(), t.inputs.path());
    let c = commit_all(&t.f, "docs only");
    probity_ok(t.f.root(), &["push", "origin", "main"]);
    assert_eq!(t.server_main(), Some(c));
}

#[test]
fn a_malformed_checks_file_is_refused_by_policy_check() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = input(
        tmp.path(),
        "checks.json",
        r#"{"schema":"probity-checks/v1","checks":[{"name":"t","paths":["src/**"],"argv":[]}]}"#,
    );
    let r = probity(tmp.path(), &["policy", "check", "--checks", &bad, "--json"]);
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains("policy_invalid"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    let good = input(tmp.path(), "good.json", &checks_json());
    let r = probity_ok(tmp.path(), &["policy", "check", "--checks", &good]);
    assert_eq!(
        r.json["checks"]["checks"][0]["name"], "tests",
        "{}",
        r.stdout
    );
    assert!(
        r.json["on"][0]
            .as_str()
            .unwrap()
            .contains("required check `tests`"),
        "{}",
        r.stdout
    );
}
