//! The repository policy on a forge with no server hook (GitHub, GitLab),
//! where a CI job is the gate (`ci/probity-gate.sh`, both forms): the
//! default branch's policy governs a protected branch made before it, a
//! spent approval is refused even when its note is dropped or replayed
//! within one proposal, and notes on commits the forge lacks jam nothing.

#[path = "support/policy_team.rs"]
mod policy_team;
mod support;

use std::path::PathBuf;

use policy_team::*;
use support::*;

/// A forge with no server hook (GitHub, GitLab), where a CI job is the
/// gate: a bare copy of the team's server whose protected branch `old`
/// sits at `main~1`, from before the policy. `t`'s clone calls it
/// `forge` and has `old` checked out there.
struct Forge<'a> {
    t: &'a Team,
    path: PathBuf,
    old: String,
}

impl<'a> Forge<'a> {
    fn new(t: &'a Team) -> Self {
        let path = t.dir.path().join("forge.git");
        let p = path.to_str().unwrap();
        t.f.git(&["clone", "-q", "--bare", t.server.to_str().unwrap(), p])
            .unwrap();
        t.f.git(&["remote", "add", "forge", p]).unwrap();
        let old = rev_parse(&t.f, "main~1");
        t.f.git(&["push", "-q", "forge", "main~1:refs/heads/old"])
            .unwrap();
        t.f.git(&["checkout", "-q", "-b", "old", "main~1"]).unwrap();
        Forge { t, path, old }
    }

    /// Pushes `refs` to the forge, past every client hook.
    fn push(&self, refs: &[&str]) {
        let mut args = vec!["push", "-q", "--no-verify", "forge"];
        args.extend_from_slice(refs);
        self.t.f.git(&args).unwrap();
    }

    /// The job: a fresh clone of the forge named `name`, at `at`, running
    /// `ci/probity-gate.sh` with `vars` as the forge would set them.
    fn job(&self, name: &str, at: &str, vars: &[(&str, &str)]) -> std::process::Output {
        let ci = self.t.dir.path().join(name);
        let ci_path = ci.to_str().unwrap();
        let f = &self.t.f;
        f.git(&["clone", "-q", self.path.to_str().unwrap(), ci_path])
            .unwrap();
        f.git(&["-C", ci_path, "checkout", "-q", "--detach", at])
            .unwrap();
        support::ci::gate(&ci, f.home(), vars)
    }
}

/// The script's answer: exit `code`, and its JSON document.
fn ci_answer(o: &std::process::Output, code: i32) -> serde_json::Value {
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(code), "{said}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {said}"))
}

/// Signs `lineage` as a reviewer after a CI denial whose next step names
/// the publication by `range`, follows it, and pushes the notes.
fn sign_as_the_denial_says(
    forge: &Forge<'_>,
    denial: &serde_json::Value,
    lineage: &str,
    range: &str,
) {
    assert_eq!(denial["reason_code"], "roles_unmet", "{denial}");
    let next = denial["next_step"].as_str().unwrap();
    assert!(
        next.contains(&format!("probity publish --range {range}")),
        "{next}"
    );
    let t = forge.t;
    t.sign(&t.agent, lineage);
    probity_ok(t.f.root(), &["publish", "--range", range]);
    forge.push(&["refs/notes/probity"]);
}

/// Finding 1 in the CI form: the job after the push is the gate, and its
/// checkout has the pushed commit as `HEAD`; the script names the default
/// branch, and the push onto a protected branch made before the policy
/// answers to its policy there too. Signed by a reviewer after the push,
/// and published as the denial says (the commits are on the remote
/// already, so by range), the same push is allowed.
#[test]
fn in_ci_a_protected_branch_made_before_the_policy_still_answers_to_the_default_branchs() {
    let t = Team::new();
    let forge = Forge::new(&t);
    let (lineage, _, c) = t.review_medium();
    probity_ok(t.f.root(), &["publish"]);
    forge.push(&["old", "refs/notes/probity"]);
    let vars = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "push"),
        ("PROBITY_BEFORE", forge.old.as_str()),
        ("GITHUB_SHA", c.as_str()),
        ("GITHUB_REF", "refs/heads/old"),
        ("PROBITY_DEFAULT_BRANCH", "main"),
    ];
    let denied = ci_answer(&forge.job("ci-1", &c, &vars), 1);
    sign_as_the_denial_says(&forge, &denied, &lineage, &format!("{}..{c}", forge.old));
    ci_answer(&forge.job("ci-2", &c, &vars), 0);
}

/// Red team round 2, attempt 36: the same in the pre-PR form. A proposal
/// that targets the protected branch made before the policy answers to
/// the default branch's policy too, not only its target's.
#[test]
fn in_ci_a_proposal_to_a_branch_made_before_the_policy_answers_to_the_default_branchs() {
    let t = Team::new();
    let forge = Forge::new(&t);
    t.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    let (lineage, _, c) = t.review_medium();
    probity_ok(t.f.root(), &["publish"]);
    forge.push(&["feature", "refs/notes/probity"]);
    let vars = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request_target"),
        ("GITHUB_BASE_REF", "old"),
        ("PROBITY_HEAD", c.as_str()),
        ("PROBITY_DEFAULT_BRANCH", "main"),
    ];
    let denied = ci_answer(&forge.job("ci-1", &forge.old, &vars), 1);
    sign_as_the_denial_says(&forge, &denied, &lineage, &format!("{}..{c}", forge.old));
    ci_answer(&forge.job("ci-2", &forge.old, &vars), 0);
}

/// Red team round 2, attempt 27: on a forge the CI jobs are the gate, and
/// `refs/notes/probity` is any pusher's to rewrite. A reviewed and signed
/// change lands (C1) and is reverted (C2, reviewed and signed too); the
/// revert of the revert (C3) delivers exactly what C1's approval approved,
/// and carries C1's note. An approval is spent by its first delivery
/// (D-R56): the pre-PR gate did not check it at all, and the range form
/// found C1 only through its note, which a force-push of the notes drops.
/// Both now read the base's own history too.
#[test]
fn in_ci_a_spent_approval_is_refused_even_when_its_note_is_dropped() {
    let t = Team::new();
    let forge = Forge::new(&t);
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    let (lineage, _, c1) = t.review_medium();
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    forge.push(&["main", "refs/notes/probity"]);
    t.f.git(&["revert", "--no-commit", "HEAD"]).unwrap();
    let (revert, _, c2) = t.review_commit("Revert the change");
    t.sign(&t.agent, &revert);
    probity_ok(t.f.root(), &["publish"]);
    forge.push(&["main", "refs/notes/probity"]);
    // The revert of the revert, unreviewed, with C1's note copied.
    t.f.git(&["checkout", "-q", "-b", "again"]).unwrap();
    t.f.git(&["revert", "--no-edit", "HEAD"]).unwrap();
    let c3 = rev_parse(&t.f, "HEAD");
    assert_eq!(
        rev_parse(&t.f, &format!("{c3}^{{tree}}")),
        rev_parse(&t.f, &format!("{c1}^{{tree}}"))
    );
    let note = t.f.git(&["notes", "--ref=probity", "show", &c1]).unwrap();
    let copied = t.inputs.path().join("note");
    std::fs::write(&copied, note).unwrap();
    t.f.git(&[
        "notes",
        "--ref=probity",
        "add",
        "-f",
        "-F",
        copied.to_str().unwrap(),
        &c3,
    ])
    .unwrap();
    forge.push(&["again", "refs/notes/probity"]);
    let pr = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request_target"),
        ("GITHUB_BASE_REF", "main"),
        ("PROBITY_HEAD", c3.as_str()),
        ("PROBITY_DEFAULT_BRANCH", "main"),
    ];
    let push = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "push"),
        ("PROBITY_BEFORE", c2.as_str()),
        ("GITHUB_SHA", c3.as_str()),
        ("GITHUB_REF", "refs/heads/main"),
        ("PROBITY_DEFAULT_BRANCH", "main"),
    ];
    let spent = |o: &std::process::Output| {
        let v = ci_answer(o, 1);
        assert_eq!(v["reason_code"], "approval_spent", "{v}");
    };
    spent(&forge.job("pr-1", &c2, &pr));
    spent(&forge.job("push-1", &c3, &push));
    // C1's note dropped by a force-push of the notes: still spent.
    t.f.git(&["notes", "--ref=probity", "remove", &c1]).unwrap();
    forge.push(&["+refs/notes/probity"]);
    spent(&forge.job("pr-2", &c2, &pr));
    spent(&forge.job("push-2", &c3, &push));
}

/// The pre-PR and the push forms' variables for `head` proposed against,
/// or pushed onto, `main` from `before`.
fn ci_forms<'a>(before: &'a str, head: &'a str) -> [Vec<(&'static str, &'a str)>; 2] {
    [
        vec![
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "pull_request_target"),
            ("GITHUB_BASE_REF", "main"),
            ("PROBITY_HEAD", head),
            ("PROBITY_DEFAULT_BRANCH", "main"),
        ],
        vec![
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "push"),
            ("PROBITY_BEFORE", before),
            ("GITHUB_SHA", head),
            ("GITHUB_REF", "refs/heads/main"),
            ("PROBITY_DEFAULT_BRANCH", "main"),
        ],
    ]
}

/// C1 (reviewed and signed) and its revert C2 (reviewed and signed)
/// committed on `main` and published; returns (c1, c2).
fn reviewed_and_reverted(t: &Team) -> (String, String) {
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    let (lineage, _, c1) = t.review_medium();
    t.sign(&t.agent, &lineage);
    t.f.git(&["revert", "--no-commit", "HEAD"]).unwrap();
    let (revert, _, c2) = t.review_commit("Revert the change");
    t.sign(&t.agent, &revert);
    probity_ok(t.f.root(), &["publish"]);
    (c1, c2)
}

/// C3: C1's change brought back on `HEAD` (a revert of its revert, or C1
/// cherry-picked), unreviewed, carrying C1's note.
fn brought_back_with_its_note(t: &Team, c1: &str) -> String {
    t.f.git(&["cherry-pick", "--no-commit", c1]).unwrap();
    let c3 = commit_all(&t.f, "bring it back");
    t.f.git(&["notes", "--ref=probity", "copy", c1, &c3])
        .unwrap();
    c3
}

/// Red team round 4, finding 1 (c): C1, its revert C2 and C3 (C1's change
/// again, carrying C1's note) proposed, or pushed, together: C1 spends the
/// approval within the proposal, so C3 replays it, in both CI forms
/// (D-R125).
#[test]
fn in_ci_an_approval_replayed_within_the_proposal_is_refused() {
    let t = Team::new();
    let forge = Forge::new(&t);
    let base = rev_parse(&t.f, "main");
    let (c1, _) = reviewed_and_reverted(&t);
    let c3 = brought_back_with_its_note(&t, &c1);
    forge.push(&[&format!("{c3}:refs/heads/again"), "refs/notes/probity"]);
    for (i, vars) in ci_forms(&base, &c3).iter().enumerate() {
        let v = ci_answer(&forge.job(&format!("ci-{i}"), &base, vars), 1);
        assert_eq!(v["reason_code"], "approval_spent", "{v}");
        assert!(v.to_string().contains(&c1), "{v}");
    }
}

/// Red team round 4, finding 3: 10,001 empty commits (each passes every
/// gate as `no_change`) between C2 and C3 do not push C1 out of the
/// history the CI forms read, once C1's note is dropped.
#[test]
fn in_ci_empty_commits_do_not_push_a_spent_approval_out_of_the_window() {
    let t = Team::new();
    let forge = Forge::new(&t);
    let (c1, _) = reviewed_and_reverted(&t);
    let mut stream = String::new();
    for i in 0..10_001 {
        stream.push_str("commit refs/heads/main\ncommitter A <a@example.org> 0 +0000\ndata 0\n");
        if i == 0 {
            stream.push_str("from refs/heads/main^0\n");
        }
        stream.push('\n');
    }
    let mut import = std::process::Command::new("git")
        .args(["fast-import", "--quiet", "--force"])
        .current_dir(t.f.root())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    import
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(import.wait().unwrap().success());
    t.f.git(&["reset", "-q", "--hard", "main"]).unwrap();
    let before = rev_parse(&t.f, "main");
    forge.push(&["main", "refs/notes/probity"]);
    let c3 = brought_back_with_its_note(&t, &c1);
    t.f.git(&["notes", "--ref=probity", "remove", &c1]).unwrap();
    forge.push(&[&format!("{c3}:refs/heads/again"), "+refs/notes/probity"]);
    for (i, vars) in ci_forms(&before, &c3).iter().enumerate() {
        let v = ci_answer(&forge.job(&format!("ci-{i}"), &before, vars), 1);
        assert_eq!(v["reason_code"], "approval_spent", "{v}");
    }
}

/// Red team round 4, findings 4, 5 and 14: notes naming an approval on
/// commits the forge does not hold (the reviewed commit before its message
/// was amended, and junk on an absent id) do not fail the CI forms judging
/// the amended commit's delivery.
#[test]
fn in_ci_a_note_on_a_commit_the_forge_lacks_does_not_jam_the_delivery() {
    let t = Team::new();
    let forge = Forge::new(&t);
    t.f.git(&["checkout", "-q", "main"]).unwrap();
    let base = rev_parse(&t.f, "main");
    let (lineage, _, c) = t.review_medium();
    t.sign(&t.agent, &lineage);
    probity_ok(t.f.root(), &["publish"]);
    t.f.git(&["commit", "-q", "--amend", "--no-verify", "-m", "reworded"])
        .unwrap();
    let amended = rev_parse(&t.f, "HEAD");
    assert_ne!(amended, c);
    probity_ok(t.f.root(), &["publish"]);
    force_note(&t.f, "0000000000000000000000000000000000000001", &lineage);
    forge.push(&[&format!("{amended}:refs/heads/again"), "refs/notes/probity"]);
    for (i, vars) in ci_forms(&base, &amended).iter().enumerate() {
        ci_answer(&forge.job(&format!("ci-{i}"), &base, vars), 0);
    }
}
