//! The pre-PR gate (R8.4) through the real binary: an explicit base, no
//! fallback, and a base that advanced accepted only with an ancestry proof.

mod support;

use probity_git::fixture::Fixture;
use support::*;

/// `main` on a bare `origin`, and `feature` carrying one reviewed commit
/// on it.
fn proposal() -> (Fixture, tempfile::TempDir) {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\n")
        .unwrap();
    f.write("docs/guide.md", "# guide\n").unwrap();
    f.commit_all("base").unwrap();
    let (dir, _origin) = bare_origin(&f, "origin.git");
    f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    approve_live(f.root(), dir.path());
    f.commit_all("reviewed change").unwrap();
    (f, dir)
}

fn pr(f: &Fixture, base: &str) -> Run {
    probity(f.root(), &["validate", "--gate", "pre-pr", "--base", base])
}

/// Advances a local `upstream` branch from origin/main by one commit
/// writing `path`.
fn advance_base(f: &Fixture, path: &str) {
    f.git(&["branch", "-q", "upstream", "origin/main"]).unwrap();
    f.git(&["checkout", "-q", "upstream"]).unwrap();
    f.write(path, "advanced\n").unwrap();
    f.git(&["add", path]).unwrap();
    f.git(&["commit", "-q", "-m", "base moves on"]).unwrap();
    f.git(&["checkout", "-q", "feature"]).unwrap();
}

#[test]
fn a_reviewed_proposal_on_its_base_passes() {
    let (f, _d) = proposal();
    let before = store_snapshot(&f);
    let d = pr(&f, "origin/main");
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["gate"], "pre-pr");
    assert_eq!(d.json["reason_code"], "receipt_valid");
    assert_eq!(d.json["base"], "origin/main");
    assert_eq!(d.json["head"], "HEAD");
    assert!(d.json["base_advance"].is_null());
    assert_eq!(d.json["deliveries"][0]["commits"], 1);
    assert!(store_snapshot(&f) == before, "a gate wrote to the store");
}

#[test]
fn a_base_that_advanced_elsewhere_is_accepted_with_its_proof() {
    let (f, _d) = proposal();
    advance_base(&f, "docs/changelog.md");
    let d = pr(&f, "upstream");
    assert_eq!(d.code, 0, "{}{}", d.stdout, d.stderr);
    assert_eq!(d.json["reason_code"], "receipt_valid");
    let adv = &d.json["base_advance"];
    assert_eq!(
        adv["base_changed_paths"],
        serde_json::json!(["docs/changelog.md"])
    );
    assert_eq!(
        adv["reviewed_base"],
        String::from_utf8(f.git(&["rev-parse", "origin/main"]).unwrap())
            .unwrap()
            .trim()
    );
}

#[test]
fn a_base_that_advanced_over_a_delivered_path_is_denied() {
    let (f, _d) = proposal();
    advance_base(&f, "src/parser.rs");
    let d = pr(&f, "upstream");
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "base_advanced");
    assert_eq!(d.json["stage"], "boundary");
    assert_eq!(
        d.json["differing_paths"],
        serde_json::json!(["src/parser.rs"])
    );
    assert_eq!(d.json["next_action"], "start_review");
}

#[test]
fn an_unavailable_base_denies_and_never_falls_back() {
    let (f, _d) = proposal();
    let d = pr(&f, "upstream/main");
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.json["reason_code"], "base_unavailable");
    assert_eq!(d.json["stage"], "boundary");
    assert!(
        d.json["message"]
            .as_str()
            .unwrap()
            .contains("upstream/main")
    );
    let missing = probity(f.root(), &["validate", "--gate", "pre-pr"]);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.json["error"]["code"], "base_required");
    let mixed = probity(
        f.root(),
        &["validate", "--gate", "pre-push", "--base", "origin/main"],
    );
    assert_eq!(mixed.json["error"]["code"], "flag_not_for_gate");
}

#[test]
fn a_fork_proposal_is_judged_against_the_upstream_it_targets() {
    let (f, d) = proposal();
    // origin is the contributor's fork, whose main has moved on by itself;
    // the proposal targets upstream's main.
    let upstream = d.path().join("upstream.git");
    f.git(&[
        "clone",
        "-q",
        "--bare",
        d.path().join("origin.git").to_str().unwrap(),
        upstream.to_str().unwrap(),
    ])
    .unwrap();
    f.git(&["remote", "add", "upstream", upstream.to_str().unwrap()])
        .unwrap();
    f.git(&["fetch", "-q", "upstream"]).unwrap();
    f.git(&["checkout", "-q", "main"]).unwrap();
    f.write("src/parser.rs", "// fork-only change\n").unwrap();
    f.commit_all("fork main").unwrap();
    f.git(&["push", "-q", "origin", "main"]).unwrap();
    f.git(&["checkout", "-q", "feature"]).unwrap();
    assert_eq!(pr(&f, "upstream/main").json["reason_code"], "receipt_valid");
    // Against the fork's own main, which moved over a delivered path, the
    // merge result was never reviewed.
    assert_eq!(pr(&f, "origin/main").json["reason_code"], "base_advanced");
}

#[test]
fn a_stacked_proposal_passes_only_when_every_commit_is_reviewed() {
    let (f, d) = proposal();
    f.write("docs/guide.md", "# guide\nmore\n").unwrap();
    f.commit_all("second").unwrap();
    let second = rev_parse(&f, "HEAD");
    let before = store_snapshot(&f);
    let denied = pr(&f, "origin/main");
    assert_eq!(denied.code, 1, "{}", denied.stdout);
    assert_eq!(denied.json["deliveries"][0]["commits"], 2);
    // The unreviewed commit is named, with the command that reviews it.
    assert_eq!(denied.json["next_action"], "start_commit_review");
    let message = denied.json["message"].as_str().unwrap();
    let command = format!("probity start --commit {second}");
    assert!(message.contains(&command), "{message}");
    let stack = denied.json["deliveries"][0]["stack"].as_array().unwrap();
    assert_eq!(stack[0]["decision"], "allow");
    assert_eq!(stack[1]["commit"], second.as_str());
    assert!(store_snapshot(&f) == before, "a gate wrote to the store");

    // Following the advice makes the stack pass.
    let st = probity_ok(f.root(), &["start", "--commit", &second]);
    assert_eq!(st.json["commit"], second.as_str());
    approve_started(f.root(), d.path(), &st.json);
    let ok = pr(&f, "origin/main");
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert_eq!(ok.json["reason_code"], "receipt_valid");
    assert_eq!(
        ok.json["deliveries"][0]["stack"].as_array().map(Vec::len),
        Some(2)
    );
    // --head names another proposal.
    let first = probity(f.root(), &pre_pr_args("origin/main", &["--head", "HEAD~1"]));
    assert_eq!(
        first.json["reason_code"], "receipt_valid",
        "{}",
        first.stdout
    );
}

#[test]
fn an_ambiguous_base_is_never_guessed() {
    let (f, _d) = proposal();
    // A local branch named like the remote-tracking ref.
    f.git(&["branch", "origin/main", "HEAD"]).unwrap();
    let d = pr(&f, "origin/main");
    assert_eq!(d.code, 5, "{}", d.stdout);
    assert!(
        d.error_message().contains("more than one ref"),
        "{}",
        d.stdout
    );
    let full = pr(&f, "refs/remotes/origin/main");
    assert_eq!(full.json["reason_code"], "receipt_valid", "{}", full.stdout);
}
