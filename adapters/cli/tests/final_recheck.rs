//! R8.7, the final recheck, on real repositories through the gate drivers
//! the CLI calls: a writer acts between the derivation and the answer (the
//! drivers' `between` seam), and the allow becomes `authority_changed`.

mod support;

use probity_core::review::gate::{Decision, NextAction, ReasonCode};
use probity_ports::review::{
    self as drivers, Delivery, PushBoundary, validate_pre_commit_between, validate_pre_push_between,
};
use probity_store::FileStore;
use support::*;

fn receipt_path(f: &probity_git::fixture::Fixture, lineage: &str) -> std::path::PathBuf {
    f.root()
        .join(".git/probity/reviews/v1")
        .join(lineage)
        .join("receipt.json")
}

#[test]
fn a_receipt_or_a_recovery_changed_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = approve_live(f.root(), dir.path())["lineage_id"]
        .as_str()
        .unwrap()
        .to_string();
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());

    // Nothing moves: allowed, as ever.
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {}).unwrap();
    assert_eq!(d.decision, Decision::Allow, "{}", d.message);

    // A writer rewrites the receipt file while the gate decides.
    let path = receipt_path(&f, &lineage);
    let original = std::fs::read(&path).unwrap();
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {
        std::fs::write(&path, b"{}\n").unwrap();
    })
    .unwrap();
    assert_eq!(d.decision, Decision::Deny);
    assert_eq!(d.reason_code, ReasonCode::AuthorityChanged);
    assert_eq!(d.next_action, NextAction::Retry);
    assert!(d.message.contains("receipt file"), "{}", d.message);
    std::fs::write(&path, &original).unwrap();

    // A recovery lands while the gate decides: the lineage is history now.
    let before = store_snapshot(&f);
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {
        f.write("src/parser.rs", "// parser\nfn parse() {}\nfn other() {}\n")
            .unwrap();
        let st = probity(f.root(), &["status", "--lineage", &lineage]);
        let rev = st.json["store_revision"].as_str().unwrap().to_string();
        let rec = probity(
            f.root(),
            &[
                "recover",
                "--predecessor-lineage",
                &lineage,
                "--expected-predecessor-revision",
                &rev,
                "--disposition",
                "scope_changed",
                "--reason",
                "changed",
                "--actor",
                "dev",
            ],
        );
        assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    })
    .unwrap();
    assert_eq!(d.reason_code, ReasonCode::AuthorityChanged, "{}", d.message);
    assert!(d.message.contains("a recovery of"), "{}", d.message);
    // The gate itself wrote nothing: only the recovery did.
    let after = store_snapshot(&f);
    assert!(after.len() > before.len());
}

#[test]
fn a_revision_that_moves_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    let base = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap())
        .unwrap()
        .trim()
        .to_string();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "reviewed"])
        .unwrap();
    f.git(&["branch", "topic"]).unwrap();
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let boundary = PushBoundary::Range {
        base: base.clone(),
        tip: "topic".into(),
    };
    let d = drivers::validate_pre_push(&repo, &store, &boundary).unwrap();
    assert_eq!(d.decision, Decision::Allow, "{}", d.message);
    let d = validate_pre_push_between(&repo, &store, &boundary, &mut || {
        f.git(&["branch", "-f", "topic", &base]).unwrap();
    })
    .unwrap();
    assert_eq!(d.decision, Decision::Deny);
    assert_eq!(d.reason_code, ReasonCode::AuthorityChanged);
    assert!(
        d.message.contains("`topic` now names another commit"),
        "{}",
        d.message
    );
}
