//! Abandoned work (issue 21 §8) through the real binary on real
//! repositories: a review abandoned with `probity invalidate` blocks no
//! other work on its paths and is not the lineage `status` or a gate names
//! when another lineage or none is current; an escalated review is set
//! aside only by the maintainer-authorized recovery.

mod support;

use probity_git::fixture::Fixture;
use support::*;

fn base() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    f.write("src/other.rs", "fn o() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f
}

/// A review of `fn c` in `src/parser.rs`, started over [`base`] and
/// abandoned (invalidated) with `reason`: the repository and the lineage.
fn abandoned(reason: &str) -> (Fixture, String) {
    let f = base();
    f.write("src/parser.rs", "fn a() {}\nfn c() {}\n").unwrap();
    let lineage = lineage_of(&probity(f.root(), &["start"]));
    let inv = invalidate(&f, &lineage, reason);
    assert_eq!(inv.code, 0, "{}", inv.stdout);
    (f, lineage)
}

#[test]
fn an_abandoned_review_neither_blocks_nor_is_named_for_other_work() {
    let (f, abandoned) = abandoned("wrong approach");

    // Other work on the same path, no lineage current: status and the gate
    // say to start a review, naming no lineage.
    f.write("src/parser.rs", "fn a() {}\nfn d() {}\n").unwrap();
    let st = probity(f.root(), &["status"]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    assert_eq!(
        st.json["lineage_id"],
        serde_json::Value::Null,
        "{}",
        st.stdout
    );
    assert_eq!(st.json["action"], "start_review");
    let g = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(g.json["decision"], "deny", "{}", g.stdout);
    assert_eq!(
        g.json["lineage_id"],
        serde_json::Value::Null,
        "{}",
        g.stdout
    );
    assert!(!g.stdout.contains(&abandoned), "{}", g.stdout);

    // A review of that work starts, and is the one status and the gate name.
    let current = lineage_of(&probity(f.root(), &["start"]));
    assert_ne!(current, abandoned);
    let st = probity(f.root(), &["status"]);
    assert_eq!(st.json["lineage_id"], current.as_str(), "{}", st.stdout);
    let g = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(g.json["lineage_id"], current.as_str(), "{}", g.stdout);
    assert!(!g.stdout.contains(&abandoned), "{}", g.stdout);
    // The listing shows it as what it is: closed.
    let l = probity(f.root(), &["list"]);
    let row = l.json["lineages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["lineage_id"] == abandoned.as_str())
        .unwrap();
    assert_eq!(
        (row["state"].as_str(), row["open"].as_bool()),
        (Some("invalidated"), Some(false))
    );
}

#[test]
fn abandoned_bytes_once_committed_are_reviewed_again_by_the_printed_recovery() {
    let (f, _) = abandoned("later");
    f.git(&["commit", "-q", "--no-verify", "-am", "the same bytes"])
        .unwrap();
    // The commit's review is the abandoned one: its way on is printed, and
    // works although nothing is uncommitted.
    let refused = probity(f.root(), &["start", "--commit", "HEAD"]);
    refused.assert_error("lineage_invalidated");
    let next = refused.next_action();
    let from = next.find("`probity recover ").unwrap() + 1;
    let to = from + next[from..].find('`').unwrap();
    let args: Vec<String> = next[from..to]
        .split_whitespace()
        .skip(1)
        .map(|w| match w {
            "R" => "again".to_string(),
            "A" => "me".to_string(),
            other => other.to_string(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rec = probity_ok(f.root(), &args);
    let again = probity(f.root(), &["start", "--commit", "HEAD"]);
    assert_eq!(
        again.json["lineage_id"], rec.json["lineage_id"],
        "{}",
        again.stdout
    );
}

#[test]
fn an_escalated_review_is_set_aside_only_by_an_authorized_recovery() {
    let f = base();
    f.write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -1\n}\n")
        .unwrap();
    let escalated = lineage_of(&probity(f.root(), &["start"]));
    let tmp = tempfile::tempdir().unwrap();
    let e = finalize_result(f.root(), tmp.path(), &escalated, PARSER_UNKNOWN);
    assert_eq!(e.json["state"], "escalated", "{}", e.stdout);
    let rev = string_at(&e.json, "store_revision");
    let before = store_snapshot(&f);
    // Not by invalidation, nor by a recovery without an authorization.
    let inv = invalidate(&f, &escalated, "drop it");
    assert_eq!(inv.code, 3, "{}", inv.stdout);
    let unauthorized = probity(
        f.root(),
        &recover_args(&escalated, &rev, "escalation_authorized", "drop it", "me"),
    );
    assert_ne!(unauthorized.code, 0, "{}", unauthorized.stdout);
    assert_eq!(store_snapshot(&f), before, "a refused set-aside wrote");
    // The escalation still blocks its change, edited or not.
    f.write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -2\n}\n")
        .unwrap();
    let blocked = probity(f.root(), &["start"]);
    blocked.assert_error("lineage_escalated");
    // The authorized recovery sets it aside: the escalation blocks nothing.
    probity_ok(
        f.root(),
        &[
            "recover",
            "--predecessor-lineage",
            &escalated,
            "--expected-predecessor-revision",
            &rev,
            "--disposition",
            "escalation_authorized",
            "--reason",
            "reviewed by hand",
            "--actor",
            "maintainer",
            "--authorization",
            "decision #3",
        ],
    );
    f.write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    2\n}\n")
        .unwrap();
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
}
