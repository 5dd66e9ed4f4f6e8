//! `ci/probity-gate.sh`, the shell steps the GitHub Actions composite action
//! and the GitLab CI template share, run for real against a local
//! repository with the built `probity` on PATH and the environment each
//! forge sets.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use probity_git::fixture::Fixture;
use support::{approve_live, clone_as, medium_change, notes_pre_pr_args, string_at};

/// Runs the script in `f`'s worktree (see [`support::ci::gate`]).
fn gate(f: &Fixture, vars: &[(&str, &str)]) -> Output {
    support::ci::gate(f.root(), f.home(), vars)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn rev(f: &Fixture, r: &str) -> String {
    text(&f.git(&["rev-parse", r]).unwrap()).trim().to_string()
}

/// Asserts the script exited `code` (its stdout and stderr the failure
/// message) and returns its stdout as JSON.
fn answer(out: &Output, code: i32) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Asserts the script exited `code` with `why` on stderr.
fn assert_refused(out: &Output, code: i32, why: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{why}: {}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(why),
        "{why}: {}",
        text(&out.stderr)
    );
}

/// The command a dry run prints, a word a line.
fn dry_run_words(out: &Output) -> Vec<String> {
    text(&out.stdout).lines().map(String::from).collect()
}

/// Makes `origin` a bare repository under `dir` and pushes `main` there.
fn bare_origin(f: &Fixture, dir: &Path) {
    let bare = dir.join("origin.git");
    f.git(&["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()])
        .unwrap();
    f.git(&["remote", "add", "origin", bare.to_str().unwrap()])
        .unwrap();
    f.git(&["push", "-q", "origin", "main"]).unwrap();
}

/// Publishes the reviews of `main..HEAD` as notes and pushes them to
/// `origin`.
fn publish_notes(f: &Fixture) {
    support::probity_ok(f.root(), &["publish", "--range", "main..HEAD"]);
    f.git(&["push", "-q", "origin", "refs/notes/probity"])
        .unwrap();
}

/// The variables of a GitHub pull request against `main` with `head`.
fn github_pr(head: &str) -> Vec<(&'static str, &str)> {
    vec![
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_BASE_REF", "main"),
        ("PROBITY_HEAD", head),
    ]
}

/// The variables of a GitLab push to `branch` from `before` to `after`.
fn gitlab_push<'a>(
    before: &'a str,
    after: &'a str,
    branch: &'a str,
) -> Vec<(&'static str, &'a str)> {
    vec![
        ("GITLAB_CI", "true"),
        ("CI_PIPELINE_SOURCE", "push"),
        ("CI_COMMIT_BEFORE_SHA", before),
        ("CI_COMMIT_SHA", after),
        ("CI_COMMIT_BRANCH", branch),
    ]
}

/// A clone whose `origin` is a local bare repository holding `main` and
/// published notes; `feature` carries one reviewed delivery commit.
/// Returns the fixture, the bare repository and the delivery commit.
fn proposal() -> (Fixture, tempfile::TempDir, String) {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    bare_origin(&f, tmp.path());
    approve_live(f.root(), tmp.path());
    f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    f.commit_all("the reviewed change").unwrap();
    f.git(&["push", "-q", "origin", "feature"]).unwrap();
    // Authority published as notes on the remote, absent locally, so the
    // script has to fetch it.
    publish_notes(&f);
    f.git(&["update-ref", "-d", "refs/notes/probity"]).unwrap();
    f.git(&["update-ref", "-d", "refs/remotes/origin/main"])
        .unwrap();
    let head = rev(&f, "HEAD");
    (f, tmp, head)
}

#[test]
fn a_github_pull_request_runs_pre_pr_against_its_base() {
    let (f, tmp, head) = proposal();
    let mut vars = github_pr(&head);
    // GitHub checks out a merge commit; the action passes the head.
    vars.push(("GITHUB_SHA", "0000000000000000000000000000000000000000"));
    let v = answer(&gate(&f, &vars), 0);
    assert_eq!(v["gate"], "pre-pr");
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["reason_code"], "receipt_valid");
    // The notes and the base were fetched from the remote.
    let remote_notes = text(
        &f.git(&["ls-remote", "origin", "refs/notes/probity"])
            .unwrap(),
    );
    assert!(remote_notes.starts_with(&rev(&f, "refs/notes/probity")));
    assert_eq!(rev(&f, "refs/remotes/origin/main"), rev(&f, "main"));
    drop(tmp);
}

#[test]
fn a_gitlab_merge_request_runs_pre_pr_and_an_unreviewed_head_is_denied() {
    let (f, _tmp, head) = proposal();
    let mr = |sha: &str| {
        gate(
            &f,
            &[
                ("GITLAB_CI", "true"),
                ("CI_PIPELINE_SOURCE", "merge_request_event"),
                ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
                ("CI_COMMIT_SHA", sha),
            ],
        )
    };
    answer(&mr(&head), 0);
    // One more commit nobody reviewed: the gate denies, the job fails.
    f.write("src/parser.rs", "// parser\nfn parse() { todo() }\n")
        .unwrap();
    f.commit_all("unreviewed").unwrap();
    let denied = mr(&rev(&f, "HEAD"));
    let v = answer(&denied, 1);
    assert_eq!(v["decision"], "deny");
    assert!(text(&denied.stderr).contains("pre-pr denies"));
}

#[test]
fn a_protected_push_builds_the_pre_receive_command() {
    let (f, _tmp, head) = proposal();
    let base = rev(&f, "main");
    let expect = |out: Output, before: &str, after: &str, r: &str| {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(
            dry_run_words(&out),
            [
                "probity",
                "validate",
                "--gate",
                "pre-receive",
                "--range",
                &format!("{before}..{after}"),
                "--ref",
                r,
                "--policy-base",
                "refs/remotes/origin/main",
                "--json"
            ]
        );
    };
    let gh = gate(
        &f,
        &[
            ("PROBITY_GATE_DRY_RUN", "1"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", "push"),
            ("PROBITY_BEFORE", &base),
            ("GITHUB_SHA", &head),
            ("GITHUB_REF", "refs/heads/main"),
            ("PROBITY_DEFAULT_BRANCH", "main"),
        ],
    );
    expect(gh, &base, &head, "refs/heads/main");
    let dry = ("PROBITY_GATE_DRY_RUN", "1");
    let mut vars = gitlab_push(&base, &head, "release/1.x");
    vars.extend([dry, ("CI_DEFAULT_BRANCH", "main")]);
    let gl = gate(&f, &vars);
    expect(gl, &base, &head, "refs/heads/release/1.x");
    // Every pushed ref answers to the default branch's policy too. A push
    // that creates the branch (an all-zero old tip) delivers what the
    // default branch does not hold. A dry run asks the remote nothing:
    // without a variable naming the default branch, nothing runs.
    let zero = "0000000000000000000000000000000000000000";
    let mut vars = gitlab_push(zero, &head, "feature");
    vars.extend([dry, ("CI_DEFAULT_BRANCH", "main")]);
    let created = gate(&f, &vars);
    expect(
        created,
        "refs/remotes/origin/main",
        &head,
        "refs/heads/feature",
    );
    let unknown = gate(
        &f,
        &[
            dry,
            ("PROBITY_GATE_MODE", "pre-receive"),
            ("PROBITY_BEFORE", zero),
            ("PROBITY_AFTER", &head),
            ("PROBITY_REF", "refs/heads/feature"),
        ],
    );
    assert_refused(&unknown, 2, "PROBITY_DEFAULT_BRANCH");
    // The same dry run for a proposal names the remote-tracking base and
    // default branch.
    let pr = gate(
        &f,
        &[
            dry,
            ("PROBITY_GATE_MODE", "pre-pr"),
            ("PROBITY_BASE", "release"),
            ("PROBITY_HEAD", &head),
            ("PROBITY_REMOTE", "upstream"),
            ("PROBITY_DEFAULT_BRANCH", "main"),
        ],
    );
    assert_eq!(
        dry_run_words(&pr),
        [
            &["probity"][..],
            &notes_pre_pr_args(
                "refs/remotes/upstream/release",
                &[
                    "--head",
                    &head,
                    "--policy-base",
                    "refs/remotes/upstream/main",
                    "--json",
                ],
            ),
        ]
        .concat()
    );
}

#[test]
fn what_the_script_cannot_tell_is_a_usage_error_that_runs_nothing() {
    let (f, _tmp, head) = proposal();
    let before = rev(&f, "refs/heads/main");
    for (vars, why) in [
        (vec![], "not in GitHub Actions or GitLab CI"),
        (
            vec![
                ("GITHUB_ACTIONS", "true"),
                ("GITHUB_EVENT_NAME", "schedule"),
            ],
            "neither a pull request nor a push",
        ),
        (vec![("PROBITY_GATE_MODE", "pre-merge")], "unknown mode"),
        (vec![("PROBITY_GATE_MODE", "pre-pr")], "no target branch"),
        (
            vec![
                ("PROBITY_GATE_MODE", "pre-pr"),
                ("PROBITY_BASE", "--upload-pack=x"),
            ],
            "not a plain value",
        ),
        (
            vec![("PROBITY_GATE_MODE", "pre-pr"), ("PROBITY_BASE", "a..b")],
            "not a branch name",
        ),
        (
            vec![
                ("PROBITY_GATE_MODE", "pre-receive"),
                ("PROBITY_AFTER", head.as_str()),
            ],
            "no old tip",
        ),
        (
            vec![
                ("PROBITY_GATE_MODE", "pre-receive"),
                ("PROBITY_BEFORE", before.as_str()),
                ("PROBITY_AFTER", head.as_str()),
                ("PROBITY_REF", "main"),
            ],
            "not a full ref name",
        ),
    ] {
        let out = gate(&f, &vars);
        assert_refused(&out, 2, why);
        assert!(out.stdout.is_empty(), "{why}");
    }
    // Nothing was fetched by any of them.
    assert!(
        f.git(&["rev-parse", "--verify", "-q", "refs/notes/probity"])
            .is_err()
    );
}

/// The protected-push mode run for real, as GitLab CI runs it after a push:
/// the script asks the remote for its default branch (no variable names
/// it here), fetches the notes, and the server-side gate judges the pushed
/// range from them alone (the reviewed commit allows); a commit nobody
/// reviewed on top is denied.
#[test]
fn a_protected_push_is_judged_from_the_fetched_notes() {
    let (f, tmp, head) = proposal();
    let before = rev(&f, "main");
    let run = |after: &str| gate(&f, &gitlab_push(&before, after, "feature"));
    let v = answer(&run(&head), 0);
    assert_eq!(v["gate"], "pre-receive");
    assert_eq!(v["decision"], "allow");
    // An unreviewed commit on top, pushed around every client hook.
    f.write("src/unreviewed.rs", "fn x() {}\n").unwrap();
    f.commit_all("unreviewed").unwrap();
    f.git(&["push", "-q", "--no-verify", "origin", "feature"])
        .unwrap();
    let tip = rev(&f, "HEAD");
    let denied = run(&tip);
    let v = answer(&denied, 1);
    assert_eq!(v["decision"], "deny");
    assert!(
        text(&denied.stdout).contains(&tip),
        "{}",
        text(&denied.stdout)
    );
    drop(tmp);
}

/// The notes and server forms refuse the other gates' flags instead of
/// ignoring them (found by the error-code audit: `--ref` on pre-pr and
/// `--staged` with `--authority notes` were accepted and ignored).
#[test]
fn the_notes_and_server_forms_refuse_flags_they_do_not_take() {
    let f = support::medium_change();
    let before = support::store_snapshot(&f);
    let notes_pr = |extra: &[&'static str]| notes_pre_pr_args("HEAD", extra);
    let usage = "flag_not_for_gate";
    let range_form = |extra: &[&'static str]| {
        let mut args = vec![
            "validate",
            "--gate",
            "pre-receive",
            "--range",
            "HEAD..HEAD",
            "--ref",
            "refs/heads/main",
        ];
        args.extend_from_slice(extra);
        args
    };
    // `--policy-base` belongs to the CI forms (the range form with `--ref`,
    // pre-pr with `--authority notes`), and a base that names no commit is
    // an error, not a base read as empty.
    for (args, code) in [
        (notes_pr(&["--ref", "refs/heads/x"]), usage),
        (notes_pr(&["--staged"]), usage),
        (notes_pr(&["--revision", "v1"]), usage),
        (range_form(&["--base", "HEAD"]), usage),
        (
            vec!["validate", "--gate", "pre-commit", "--policy-base", "HEAD"],
            usage,
        ),
        (
            vec![
                "validate",
                "--gate",
                "pre-pr",
                "--base",
                "HEAD",
                "--policy-base",
                "HEAD",
            ],
            usage,
        ),
        (
            vec!["validate", "--gate", "pre-receive", "--policy-base", "HEAD"],
            usage,
        ),
        (
            notes_pr(&["--policy-base", "refs/heads/no-such-branch"]),
            "repository_error",
        ),
        (
            range_form(&["--policy-base", "refs/heads/no-such-branch"]),
            "repository_error",
        ),
    ] {
        let r = support::probity(f.root(), &args);
        let exit = if code == usage { 2 } else { 5 };
        assert_eq!(r.code, exit, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], code, "{args:?}: {}", r.stderr);
    }
    assert_eq!(support::store_snapshot(&f), before);
}

/// A proposal that adds its own key to the repository's allowed-signers
/// file and signs its review with that key (issue 20 §2: trust material
/// is read from the protected base, never from the proposal). The base
/// lists alice; the proposal lists mallory and is signed by mallory.
fn self_signed_proposal() -> (Fixture, tempfile::TempDir, String) {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let alice = support::keygen(tmp.path(), "alice");
    let mallory = support::keygen(tmp.path(), "mallory");
    let line = |who: &str, key: &Path| format!("{who} {}\n", support::public(key));
    // The base's file, committed on main before the change.
    std::fs::create_dir_all(f.root().join(".github")).unwrap();
    let signers = ".github/allowed_signers";
    f.write(signers, line("alice@example.invalid", &alice))
        .unwrap();
    f.git(&["add", signers]).unwrap();
    f.git(&["commit", "-q", "-m", "the maintainers' keys"])
        .unwrap();
    bare_origin(&f, tmp.path());
    // The proposal: the change, and mallory's key in the file.
    f.write(signers, line("mallory@example.invalid", &mallory))
        .unwrap();
    let lineage = string_at(&approve_live(f.root(), tmp.path()), "lineage_id");
    f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    f.commit_all("the change, and my key").unwrap();
    f.git(&["config", "probity.signingKey", mallory.to_str().unwrap()])
        .unwrap();
    let signed = Command::new(env!("CARGO_BIN_EXE_probity"))
        .args(["--cwd", f.root().to_str().unwrap()])
        .args(["attest", "--lineage", &lineage, "--sign"])
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    assert!(signed.status.success(), "{}", text(&signed.stderr));
    f.git(&["push", "-q", "origin", "feature"]).unwrap();
    publish_notes(&f);
    let head = rev(&f, "HEAD");
    (f, tmp, head)
}

#[test]
fn an_allowed_signers_file_in_the_proposal_is_read_from_the_base() {
    let (f, tmp, head) = self_signed_proposal();
    let before = rev(&f, "main");
    let signing = [
        ("PROBITY_ALLOWED_SIGNERS", ".github/allowed_signers"),
        ("PROBITY_REQUIRE_SIGNATURE", "true"),
    ];
    // The pull request: the base's file lists alice only.
    let mut vars = github_pr(&head);
    vars.extend(signing);
    let v = answer(&gate(&f, &vars), 1);
    assert_eq!(v["reason_code"], "signer_not_allowed", "{v}");
    // The push to the protected branch: read from its old tip.
    let mut vars = gitlab_push(&before, &head, "main");
    vars.extend(signing);
    let v = answer(&gate(&f, &vars), 1);
    assert_eq!(v["reason_code"], "signer_not_allowed", "{v}");
    // The worktree's copy (the proposal's) is neither read nor changed,
    // and nothing of the base's copy is left in it.
    assert!(
        std::fs::read_to_string(f.root().join(".github/allowed_signers"))
            .unwrap()
            .starts_with("mallory@")
    );
    assert!(f.status().unwrap().is_empty());
    // A base without the file: the gate cannot tell who may sign, and says
    // so before judging anything.
    let mut vars = github_pr(&head);
    vars.extend([
        ("PROBITY_ALLOWED_SIGNERS", ".github/missing_signers"),
        ("PROBITY_REQUIRE_SIGNATURE", "true"),
    ]);
    let missing = gate(&f, &vars);
    assert_refused(&missing, 2, "not on the protected base");
    drop(tmp);
}

/// A fresh CI clone that fetches only what the script fetches (the branch
/// and `refs/notes/probity`) verifies a rebased push the server accepted:
/// the trees the review froze travel in the notes history (issue 21 §4),
/// and the server holds no ref per review.
#[test]
fn a_fresh_ci_clone_verifies_a_rebased_push_from_the_notes_alone() {
    let (f, _dir, server) = support::hooked_origin();
    let inputs = tempfile::tempdir().unwrap();
    support::write_medium_change(&f);
    support::approve_live(f.root(), inputs.path());
    f.commit_all("reviewed here").unwrap();
    // A teammate lands reviewed work on another path meanwhile.
    let (_d, b) = clone_as(&f, &server, "b");
    support::transport::land_reviewed_upstream(&f, &b, inputs.path());
    let before = text(&f.git_in(&server, &["rev-parse", "main"]).unwrap())
        .trim()
        .to_string();
    f.git(&["pull", "-q", "--rebase", "origin", "main"])
        .unwrap();
    support::probity_ok(f.root(), &["push", "origin", "main"]);
    let after = rev(&f, "HEAD");
    let refs = f
        .git_in(&server, &["for-each-ref", "refs/probity/"])
        .unwrap();
    assert!(refs.is_empty(), "{}", text(&refs));
    // CI: a new repository that fetches the branch over file:// (only
    // what refs reach travels), then the script.
    let ci = Fixture::new().unwrap();
    let url = format!("file://{}", server.display());
    ci.git(&["remote", "add", "origin", &url]).unwrap();
    ci.git(&["fetch", "-q", "origin", "main"]).unwrap();
    ci.git(&["checkout", "-q", "-B", "main", "FETCH_HEAD"])
        .unwrap();
    let run = gate(
        &ci,
        &[
            ("PROBITY_GATE_MODE", "pre-receive"),
            ("PROBITY_BEFORE", &before),
            ("PROBITY_AFTER", &after),
            ("PROBITY_REF", "refs/heads/main"),
        ],
    );
    let v = answer(&run, 0);
    assert_eq!(v["decision"], "allow", "{v}");
}

/// docs/ci.md's table of the action's inputs lists every input `action.yml`
/// declares (issue 23 §5: `default-branch` was missing), and names none it
/// does not.
#[test]
fn the_ci_page_lists_every_action_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let action = std::fs::read_to_string(root.join("action.yml")).unwrap();
    let doc = std::fs::read_to_string(root.join("docs/ci.md")).unwrap();
    // The keys two spaces in under `inputs:`.
    let declared: Vec<&str> = action
        .split("\ninputs:\n")
        .nth(1)
        .expect("action.yml declares inputs")
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.trim().strip_suffix(':'))
        .collect();
    assert!(declared.len() >= 10, "{declared:?}");
    // The rows of the inputs table: `| `name` | default | meaning |`.
    let documented: Vec<&str> = doc
        .split("| input | default | meaning |")
        .nth(1)
        .expect("docs/ci.md has the inputs table")
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('`').nth(1))
        .collect();
    assert_eq!(
        documented, declared,
        "docs/ci.md's inputs table, in action.yml's order"
    );
}

/// Issue 22 §4: with `PROBITY_REPORT_FILE` (the Action sets it to
/// `$GITHUB_STEP_SUMMARY`), the script appends the Markdown report of the
/// range it judged, read from the fetched notes; the gate's answer and
/// exit are unchanged.
#[test]
fn the_gate_appends_the_markdown_report_to_the_job_summary() {
    let (f, tmp, head) = proposal();
    let summary = tmp.path().join("step-summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let mut vars = github_pr(&head);
    vars.push(("PROBITY_REPORT_FILE", summary.to_str().unwrap()));
    let v = answer(&gate(&f, &vars), 0);
    assert_eq!(v["decision"], "allow");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n# Probity reviews of `refs/remotes/origin/main.."),
        "{md}"
    );
    assert!(md.contains(&format!("Commit `{head}`")), "{md}");
    assert!(md.contains("### Probity review: ✅ approved"), "{md}");
}
