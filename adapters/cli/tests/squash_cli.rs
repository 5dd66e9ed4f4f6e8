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

/// A squash of two reviewed commits that change different paths (`first`
/// the medium change, `second` a new `src/lexer.rs`), delivered into
/// `server`'s main, then reverted (reviewed) and the revert delivered.
/// With `stale`, the second review's bundle is exported there while it is
/// still in review. Returns (the first commit, the second, the squash, the
/// revert).
fn delivered_then_reverted_squash(
    f: &Fixture,
    server: &Path,
    inputs: &Path,
    stale: Option<&Path>,
) -> (String, String, String, String) {
    write_medium_change(f);
    approve_live(f.root(), inputs);
    let first = commit_all(f, "first");
    f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    let st = probity_ok(f.root(), &["start"]);
    if let Some(out) = stale {
        let lineage = st.json["lineage_id"].as_str().unwrap();
        let out = out.to_str().unwrap();
        probity_ok(
            f.root(),
            &["bundle", "export", "--lineage", lineage, "--out", out],
        );
    }
    approve_started(f.root(), inputs, &st.json);
    let second = commit_all(f, "second");
    f.git(&["reset", "-q", "--soft", "HEAD~2"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "squashed"])
        .unwrap();
    let squash = rev(f, f.root(), "HEAD").unwrap();
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(f, server, "main").as_deref(), Some(squash.as_str()));
    let revert = reviewed_revert(f, inputs);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(f, server, "main").as_deref(), Some(revert.as_str()));
    (first, second, squash, revert)
}

/// The squash's note (every composed review's bundle) copied onto
/// `replay` and pushed past the client's gates: refused `approval_spent`
/// naming the squash, which spent the component's approval; `main` stays
/// at `tip`.
fn component_replay_refused(f: &Fixture, server: &Path, squash: &str, replay: &str, tip: &str) {
    f.git(&["notes", "--ref=probity", "copy", squash, replay])
        .unwrap();
    let err = push_main_and_notes(f).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(squash), "{err}");
    assert_eq!(rev(f, server, "main").as_deref(), Some(tip));
}

/// Red team round 5 (attempts 18, 19): an approval first delivered as one
/// component of a squash is spent by the squash's delivery. Once the
/// squash is reverted, the component re-applied alone with the squash's
/// note (its own bundle among the composed ones) is a replay, at the
/// server hook and in the CI form; the first component, and the second on
/// a base of its own (a rebase proof).
#[test]
fn a_component_of_a_delivered_squash_reapplied_alone_is_refused() {
    let (f, _dir, server, inputs) = served();
    let (first, _, squash, revert) =
        delivered_then_reverted_squash(&f, &server, inputs.path(), None);
    // The first component alone: exactly its approved trees.
    f.git(&["cherry-pick", "--no-commit", &first]).unwrap();
    let replay = commit_all(&f, "bring the first part back");
    // The CI form over the same notes refuses it too.
    f.git(&["notes", "--ref=probity", "copy", &squash, &replay])
        .unwrap();
    let ci = probity(
        f.root(),
        &notes_pre_pr_args(&revert, &["--head", &replay, "--json"]),
    );
    let said = format!("{}{}", ci.stdout, ci.stderr);
    assert_ne!(ci.code, 0, "{said}");
    assert!(said.contains("approval_spent"), "{said}");
    f.git(&["notes", "--ref=probity", "remove", &replay])
        .unwrap();
    component_replay_refused(&f, &server, &squash, &replay, &revert);
    // The next step the denial names: the change amended together with
    // other bytes, reviewed as committed, then pushed.
    amend_with_other_bytes_and_land(&f, &server, inputs.path());
}

#[test]
fn the_second_component_of_a_delivered_squash_reapplied_on_another_base_is_refused() {
    let (f, _dir, server, inputs) = served();
    let (_, second, squash, revert) =
        delivered_then_reverted_squash(&f, &server, inputs.path(), None);
    // The second component alone on the reverted base: its paths with its
    // approved bytes, on a base it was not reviewed on.
    f.git(&["cherry-pick", "--no-commit", &second]).unwrap();
    let replay = commit_all(&f, "bring the second part back");
    component_replay_refused(&f, &server, &squash, &replay, &revert);
}

/// D-R134's links are the earlier squash's own note lines, each verified
/// on its own, never what the scratch store holds: a stale twin of the
/// second component (its bundle exported while it was still in review),
/// carried in the replay's own note and imported first, does not hide the
/// approved one the squash composed.
#[test]
fn a_stale_twin_of_a_component_in_the_replay_does_not_hide_the_squash() {
    let (f, _dir, server, inputs) = served();
    let stale = inputs.path().join("stale-second.json");
    let (first, _, squash, revert) =
        delivered_then_reverted_squash(&f, &server, inputs.path(), Some(&stale));
    f.git(&["cherry-pick", "--no-commit", &first]).unwrap();
    let replay = commit_all(&f, "bring the first part back");
    // The stale twin first, then the squash's note (every composed
    // review's bundle, the first component's among them).
    let mut note = std::fs::read(&stale).unwrap();
    note.extend(f.git(&["notes", "--ref=probity", "show", &squash]).unwrap());
    let note_file = inputs.path().join("replay-note");
    std::fs::write(&note_file, note).unwrap();
    let note_file = note_file.to_str().unwrap();
    f.git(&["notes", "--ref=probity", "add", "-F", note_file, &replay])
        .unwrap();
    let err = push_main_and_notes(&f).unwrap_err();
    assert!(err.contains("approval_spent"), "{err}");
    assert!(err.contains(&squash), "{err}");
    assert_eq!(rev(&f, &server, "main").as_deref(), Some(revert.as_str()));
}
