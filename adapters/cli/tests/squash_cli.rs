//! A squash of reviewed commits (issue 21 §3): accepted at every gate when
//! its delta is the composition of approved deltas on the same base, each
//! reviewed on the last one's result; anything else is refused with advice
//! that keeps the squash.

mod support;

use std::path::Path;

use probity_git::fixture::Fixture;
use support::*;

/// Two commits reviewed one after the other (the second on the first's
/// tree), then squashed into one commit.
fn squashed_pair(f: &Fixture, inputs: &Path) -> String {
    write_medium_change(f);
    approve_live(f.root(), inputs);
    commit_all(f, "first");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\n",
    )
    .unwrap();
    approve_live(f.root(), inputs);
    commit_all(f, "second");
    f.git(&["reset", "-q", "--soft", "HEAD~2"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "squashed"])
        .unwrap();
    rev(f, f.root(), "HEAD").unwrap()
}

#[test]
fn a_squash_of_two_reviewed_commits_passes_every_gate() {
    let (f, _dir, server, inputs) = served();
    let squash = squashed_pair(&f, inputs.path());
    probity_ok(f.root(), &pre_pr_args("origin/main", &["--json"]));
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(&f, &server, "main"), Some(squash));
}

#[test]
fn a_squash_with_an_unreviewed_edit_is_refused_with_advice_that_keeps_it() {
    let (f, _dir, server, inputs) = served();
    let before = rev(&f, &server, "main");
    squashed_pair(&f, inputs.path());
    f.write("src/extra.rs", "fn unreviewed() {}\n").unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&[
        "commit",
        "-q",
        "--no-verify",
        "--amend",
        "-m",
        "squashed, plus",
    ])
    .unwrap();
    let squash = rev(&f, f.root(), "HEAD").unwrap();
    let p = probity(f.root(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    let said = format!("{}{}", p.stdout, p.stderr);
    assert!(
        said.contains(&format!("probity start --commit {squash}")),
        "{said}"
    );
    assert!(!said.contains("git reset"), "{said}");
    assert_eq!(rev(&f, &server, "main"), before);
    // The advice works: the squash itself is reviewed and lands.
    land_reviewed_commit(&f, &server, inputs.path(), &squash);
}

#[test]
fn a_squash_that_replays_a_spent_approval_is_refused() {
    let (f, _dir, server, inputs) = served();
    // Review A delivers its change into main.
    write_medium_change(&f);
    let c1 = deliver_reviewed(&f, inputs.path());
    // A maintainer reverts it, reviewed as committed.
    let revert = reviewed_revert(&f, inputs.path());
    probity_ok(f.root(), &["push", "origin", "main"]);
    // The agent brings A's change back unreviewed, reviews only a small
    // follow-up on top of it (review B, based on A's approved tree), and
    // squashes both: the composition A then B is exactly the squash, but
    // A's approval was spent by its first delivery.
    revert_head(&f, "bring it back");
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn yet_more() {}\n",
    )
    .unwrap();
    approve_live(f.root(), inputs.path());
    commit_all(&f, "a small follow-up");
    f.git(&["reset", "-q", "--soft", "HEAD~2"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "squashed"])
        .unwrap();
    let p = probity(f.root(), &["push", "origin", "main"]);
    let said = format!("{}{}", p.stdout, p.stderr);
    assert_ne!(p.code, 0, "{said}");
    assert!(said.contains("approval_spent"), "{said}");
    assert!(said.contains(&c1), "{said}");
    assert_eq!(rev(&f, &server, "main"), Some(revert));
}
