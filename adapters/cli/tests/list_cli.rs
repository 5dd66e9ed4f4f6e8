//! `probity list` (issue 21 §8) through the real binary on real
//! repositories: every lineage with its state, paths, age and trees, open
//! ones first, in an order that does not change between runs; read-only;
//! an empty store lists nothing; a bad place is a typed error with nothing
//! written.

mod support;

use probity_git::fixture::Fixture;
use serde_json::Value;
use support::*;

fn row<'a>(list: &'a Value, lineage: &str) -> &'a Value {
    list["lineages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["lineage_id"] == lineage)
        .unwrap_or_else(|| panic!("{lineage} is not listed: {list}"))
}

/// An escalated review, an invalidated one recovered by its successor, and
/// an open review of other work: four lineages in four conditions.
fn several() -> (Fixture, [String; 4]) {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    f.write("src/other.rs", "fn o() {}\n").unwrap();
    f.write("docs/a.md", "a\n").unwrap();
    f.commit_all("base").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // Escalated: src/parser.rs.
    f.write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -1\n}\n")
        .unwrap();
    let escalated = lineage_of(&probity(f.root(), &["start"]));
    let e = finalize_result(f.root(), tmp.path(), &escalated, PARSER_UNKNOWN);
    assert_eq!(e.json["state"], "escalated", "{}", e.stdout);
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    // Invalidated, then recovered: src/other.rs.
    f.write("src/other.rs", "fn o() {}\nfn p() {}\n").unwrap();
    let invalidated = lineage_of(&probity(f.root(), &["start"]));
    let inv = invalidate(&f, &invalidated, "wrong lens");
    assert_eq!(inv.code, 0, "{}", inv.stdout);
    let successor = lineage_of(&probity(
        f.root(),
        &recover_args(
            &invalidated,
            inv.json["store_revision"].as_str().unwrap(),
            "invalidated",
            "again",
            "me",
        ),
    ));
    // Open: other work, both docs and src/other.rs.
    f.write("src/other.rs", "fn o() {}\nfn q() {}\n").unwrap();
    f.write("docs/a.md", "b\n").unwrap();
    f.write("docs/b.md", "b\n").unwrap();
    f.write("docs/c.md", "c\n").unwrap();
    let open = lineage_of(&probity(f.root(), &["start"]));
    (f, [escalated, invalidated, successor, open])
}

#[test]
fn list_shows_every_lineage_its_state_paths_age_and_trees() {
    let (f, [escalated, invalidated, successor, open]) = several();
    let before = store_snapshot(&f);
    let l = probity_ok(f.root(), &["list"]);
    assert_eq!(store_snapshot(&f), before, "list wrote to the store");
    assert_eq!(
        (l.json["count"].as_u64(), l.json["open"].as_u64()),
        (Some(4), Some(2))
    );

    let e = row(&l.json, &escalated);
    assert_eq!(
        (
            e["state"].as_str(),
            e["open"].as_bool(),
            e["paths"].as_str()
        ),
        (Some("escalated"), Some(false), Some("src/parser.rs"))
    );
    let i = row(&l.json, &invalidated);
    assert_eq!(i["state"], "invalidated");
    assert_eq!(i["superseded_by"], successor.as_str());
    assert_eq!(i["open"], false);
    let s = row(&l.json, &successor);
    assert_eq!(
        (
            s["state"].as_str(),
            s["generation"].as_u64(),
            s["open"].as_bool()
        ),
        (Some("reviewing"), Some(2), Some(true))
    );
    let o = row(&l.json, &open);
    assert_eq!(o["path_count"], 4);
    assert_eq!(o["paths"], "docs/a.md, docs/b.md, docs/c.md, +1 more");
    // Each row names its trees and an age measured against `now`.
    for r in l.json["lineages"].as_array().unwrap() {
        for key in [
            "base_tree",
            "candidate_tree",
            "final_candidate_tree",
            "created_at",
        ] {
            assert!(r[key].is_string(), "{key} missing in {r}");
        }
        assert!(r["age_seconds"].as_u64().unwrap() < 600, "{r}");
        assert!(
            r["age"].as_str().unwrap().ends_with('s') || r["age"].as_str().unwrap().ends_with('m')
        );
    }
    // Open lineages first; the same order every time.
    let ids = |v: &Value| -> Vec<String> {
        v["lineages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["lineage_id"].as_str().unwrap().to_string())
            .collect()
    };
    let order = ids(&l.json);
    let opens: Vec<bool> = l.json["lineages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["open"].as_bool().unwrap())
        .collect();
    assert_eq!(opens, vec![true, true, false, false], "{}", l.stdout);
    assert_eq!(ids(&probity(f.root(), &["list"]).json), order);
    // --open keeps only the open ones, in the same order.
    let only = probity(f.root(), &["list", "--open"]);
    assert_eq!(ids(&only.json), order[..2].to_vec());
    // The human form names each lineage and its state.
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd).arg("--cwd").arg(f.root()).arg("list");
    let human = run_of(&cmd.output().unwrap());
    assert_eq!(human.code, 0, "{}", human.stderr);
    for l in [&escalated, &invalidated, &successor, &open] {
        assert!(human.stdout.contains(l.as_str()), "{}", human.stdout);
    }
    assert!(
        human.stdout.contains(&format!("superseded by {successor}")),
        "{}",
        human.stdout
    );
}

#[test]
fn an_empty_repository_lists_nothing_and_writes_nothing() {
    let f = Fixture::new().unwrap();
    let l = probity_ok(f.root(), &["list"]);
    assert_eq!(l.json["count"], 0);
    assert_eq!(l.json["lineages"], serde_json::json!([]));
    assert!(
        !f.root().join(".git/probity").exists(),
        "list created a store"
    );
}

#[test]
fn outside_a_repository_list_is_a_typed_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let l = probity(dir.path(), &["list"]);
    l.assert_refused(5, "repository_error");
    assert!(
        l.json["error"]["next_action"]
            .as_str()
            .unwrap()
            .contains("--cwd")
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "list wrote"
    );
}

#[test]
fn a_lineage_that_does_not_load_fails_the_listing_closed() {
    let (f, [escalated, ..]) = several();
    let state = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&escalated)
        .join("state.json");
    std::fs::write(&state, b"{\"not\": \"a record\"}\n").unwrap();
    let before = store_snapshot(&f);
    let l = probity(f.root(), &["list"]);
    l.assert_refused(6, "store_corrupted");
    assert!(l.stdout.contains(&escalated), "{}", l.stdout);
    assert_eq!(store_snapshot(&f), before);
}

#[test]
fn list_has_help() {
    let l = probity(Fixture::new().unwrap().root(), &["list", "--help"]);
    assert_eq!(l.code, 0, "{}", l.stderr);
    assert!(l.stdout.contains("--open"), "{}", l.stdout);
}

/// A review of a commit names the commit that holds its change; a review
/// of uncommitted work names none.
#[test]
fn a_committed_review_names_its_commit() {
    let f = medium_change();
    f.commit_all("the change").unwrap();
    let st = probity(f.root(), &["start", "--commit", "HEAD"]);
    let committed = lineage_of(&st);
    f.write("src/extra.rs", "fn e() {}\n").unwrap();
    let uncommitted = lineage_of(&probity(f.root(), &["start"]));
    let l = probity(f.root(), &["list"]);
    assert_eq!(l.code, 0, "{}", l.stdout);
    let head = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
    assert_eq!(row(&l.json, &committed)["commit"], head.trim());
    assert_eq!(row(&l.json, &uncommitted)["commit"], Value::Null);
}

/// A recovery interrupted after the successor's record was written but
/// before its predecessor was marked superseded (the store's step 3 of 4)
/// leaves a half-made successor: it is not listed as open, the row names
/// the unfinished recovery, and rerunning the recovery finishes it.
#[test]
fn a_half_made_successor_is_not_open_and_rerunning_the_recovery_finishes_it() {
    let (f, [_, invalidated, successor, _]) = several();
    let store = f.root().join(".git/probity/reviews/v1");
    // The state a crash between the store's steps 3 and 4 leaves.
    let pred = store.join(&invalidated);
    std::fs::remove_file(pred.join("superseded-by")).unwrap();
    std::fs::copy(
        store.join(&successor).join("state.json"),
        pred.join("successor.pending"),
    )
    .unwrap();
    let l = probity_ok(f.root(), &["list"]);
    let s = row(&l.json, &successor);
    assert_eq!(s["open"], false, "{s}");
    assert_eq!(s["recovery_unfinished"], invalidated.as_str(), "{s}");
    assert_eq!(l.json["open"].as_u64(), Some(1));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd).arg("--cwd").arg(f.root()).arg("list");
    let human = run_of(&cmd.output().unwrap());
    assert!(
        human
            .stdout
            .contains(&format!("recovery of {invalidated} unfinished")),
        "{}",
        human.stdout
    );
    // The way on the row names: the same recovery again.
    let st = probity(f.root(), &["status", "--lineage", &invalidated]);
    let again = probity(
        f.root(),
        &recover_args(
            &invalidated,
            st.json["store_revision"].as_str().unwrap(),
            "invalidated",
            "again",
            "me",
        ),
    );
    assert_eq!(
        again.json["lineage_id"],
        successor.as_str(),
        "{}{}",
        again.stdout,
        again.stderr
    );
    let l = probity(f.root(), &["list"]);
    assert_eq!(row(&l.json, &successor)["open"], true);
    assert!(
        row(&l.json, &successor)
            .get("recovery_unfinished")
            .is_none()
    );
}
