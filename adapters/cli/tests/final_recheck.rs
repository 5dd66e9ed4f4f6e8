//! R8.7, the final recheck, on real repositories through the gate drivers
//! the CLI calls: a writer acts between the derivation and the answer (the
//! drivers' `between` seam), and the allow becomes a denial
//! (`authority_changed`, or at release `release_revision_moved` /
//! `release_evidence_changed`). The gate itself writes nothing: the store
//! after the answer is byte-identical to the store the writer left.

mod support;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use probity_core::digest::Sha256Digest;
use probity_core::review::parse_checksums;
use probity_core::review::{Decision, GateDecision, NextAction, ReasonCode};
use probity_git::Repo;
use probity_git::fixture::Fixture;
use probity_ports::review::{
    self as drivers, Delivery, PushBoundary, ReleaseEvidence, validate_pre_commit_between,
    validate_pre_pr_between, validate_pre_push_between, validate_release_between,
};
use probity_store::{ArtifactDir, FileStore};
use serde_json::Value;
use support::*;

type Snapshot = BTreeMap<PathBuf, Vec<u8>>;

/// Runs `write` as the writer between derivation and answer, and keeps the
/// store as the writer left it (what the gate must not change).
fn writer<'a>(
    f: &'a probity_git::fixture::Fixture,
    left: &'a RefCell<Option<Snapshot>>,
    mut write: impl FnMut() + 'a,
) -> impl FnMut() + 'a {
    move || {
        write();
        *left.borrow_mut() = Some(store_snapshot(f));
    }
}

fn assert_gate_wrote_nothing(f: &probity_git::fixture::Fixture, left: &RefCell<Option<Snapshot>>) {
    let left = left.borrow();
    let left = left.as_ref().expect("the writer ran");
    assert!(
        *left == store_snapshot(f),
        "the gate wrote to the store after the writer"
    );
}

/// Runs `gate` with `write` as the writer between its derivation and its
/// answer; asserts the gate wrote nothing after the writer, and returns
/// the gate's answer.
fn with_writer<T>(f: &Fixture, write: impl FnMut(), gate: impl FnOnce(&mut dyn FnMut()) -> T) -> T {
    let left = RefCell::new(None);
    let answer = gate(&mut writer(f, &left, write));
    assert_gate_wrote_nothing(f, &left);
    answer
}

fn rev(f: &probity_git::fixture::Fixture, what: &str) -> String {
    rev_parse(f, what)
}

fn receipt_path(f: &probity_git::fixture::Fixture, lineage: &str) -> std::path::PathBuf {
    lineage_dir(f, lineage).join("receipt.json")
}

/// The medium change approved live: its fixture, the scratch directory
/// and the approval's answer.
fn approved() -> (Fixture, tempfile::TempDir, Value) {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let approval = approve_live(f.root(), dir.path());
    (f, dir, approval)
}

/// The fixture's repository and its store.
fn repo_and_store(f: &Fixture) -> (Repo, FileStore) {
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    (repo, store)
}

/// Commits everything as `reviewed` and names it `topic`.
fn commit_topic(f: &Fixture) {
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "reviewed"])
        .unwrap();
    f.git(&["branch", "topic"]).unwrap();
}

fn assert_allowed(d: &GateDecision) {
    assert_eq!(d.decision(), Decision::Allow, "{}", d.message());
}

/// Asserts the answer is `code`, its message naming `text`.
fn assert_denied(d: &GateDecision, code: ReasonCode, text: &str) {
    assert_eq!(d.reason_code(), code, "{}", d.message());
    assert!(d.message().contains(text), "{}", d.message());
}

#[test]
fn a_receipt_or_a_recovery_changed_mid_gate_denies_the_allow() {
    let (f, _dir, approval) = approved();
    let lineage = string_at(&approval, "lineage_id");
    let (repo, store) = repo_and_store(&f);

    // Nothing moves: allowed, as ever.
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {}).unwrap();
    assert_allowed(&d);

    // A writer rewrites the receipt file while the gate decides.
    let path = receipt_path(&f, &lineage);
    let original = std::fs::read(&path).unwrap();
    let d = with_writer(
        &f,
        || std::fs::write(&path, b"{}\n").unwrap(),
        |between| validate_pre_commit_between(&repo, &store, &Delivery::Worktree, between),
    )
    .unwrap();
    assert_eq!(d.decision(), Decision::Deny);
    assert_eq!(d.next_action(), NextAction::Retry);
    assert_denied(&d, ReasonCode::AuthorityChanged, "receipt file");
    std::fs::write(&path, &original).unwrap();

    // A recovery lands while the gate decides: the lineage is history now.
    let before = store_snapshot(&f);
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {
        f.write("src/parser.rs", "// parser\nfn parse() {}\nfn other() {}\n")
            .unwrap();
        let st = probity(f.root(), &["status", "--lineage", &lineage]);
        let rev = string_at(&st.json, "store_revision");
        probity_ok(
            f.root(),
            &recover_args(&lineage, &rev, "scope_changed", "changed", "dev"),
        );
    })
    .unwrap();
    assert_denied(&d, ReasonCode::AuthorityChanged, "a recovery of");
    // Only the recovery wrote.
    let after = store_snapshot(&f);
    assert!(after.len() > before.len());
}

#[test]
fn an_index_entry_that_moves_mid_gate_denies_the_allow() {
    let (f, _dir, _) = approved();
    let (repo, store) = repo_and_store(&f);
    let targets = f.root().join(".git/probity/reviews/v1/index/target");
    let entry = std::fs::read_dir(&targets)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let d = with_writer(
        &f,
        || std::fs::remove_file(&entry).unwrap(),
        |between| validate_pre_commit_between(&repo, &store, &Delivery::Worktree, between),
    )
    .unwrap();
    assert_denied(
        &d,
        ReasonCode::AuthorityChanged,
        "the store's index entry for target",
    );
}

#[test]
fn the_index_a_commit_delivers_changing_mid_gate_denies_the_allow() {
    let (f, _dir, _) = approved();
    f.git(&["add", "-A"]).unwrap();
    let (repo, store) = repo_and_store(&f);
    let index = f.root().join(".git/index");
    let staged = Delivery::Index(index.clone());
    assert_allowed(&drivers::validate_pre_commit(&repo, &store, &staged).unwrap());
    let sneak = || {
        f.write(
            "src/parser.rs",
            "// parser\nfn parse() {}\nfn sneaked() {}\n",
        )
        .unwrap();
        f.git(&["add", "src/parser.rs"]).unwrap();
    };
    let d = with_writer(&f, sneak, |between| {
        validate_pre_commit_between(&repo, &store, &staged, between)
    })
    .unwrap();
    assert_denied(&d, ReasonCode::AuthorityChanged, "the live target changed");
}

#[test]
fn a_proposal_whose_head_moves_mid_gate_denies_the_allow() {
    let (f, _dir, _) = approved();
    let base = rev(&f, "HEAD");
    f.git(&["branch", "main-base", &base]).unwrap();
    commit_topic(&f);
    let (repo, store) = repo_and_store(&f);
    let pr = drivers::validate_pre_pr(&repo, &store, "main-base", "topic").unwrap();
    assert_allowed(&pr.decision);
    let move_topic = || {
        f.git(&["branch", "-f", "topic", &base]).unwrap();
    };
    let pr = with_writer(&f, move_topic, |between| {
        validate_pre_pr_between(&repo, &store, "main-base", "topic", between)
    })
    .unwrap();
    assert_denied(
        &pr.decision,
        ReasonCode::AuthorityChanged,
        "`topic` now names another commit",
    );
}

#[test]
fn a_release_whose_tag_or_artifacts_change_mid_gate_is_denied() {
    let (f, dir, _) = approved();
    f.commit_all("release").unwrap();
    let released = rev(&f, "HEAD");
    f.git(&["tag", "v1"]).unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    std::fs::write(dist.join("app.tar.gz"), b"tarball").unwrap();
    let sums = format!("{}  app.tar.gz\n", Sha256Digest::plain(b"tarball").hex());
    let expected = parse_checksums(&sums).unwrap();
    let artifacts = ArtifactDir::new(&dist);
    let evidence = || {
        Some(ReleaseEvidence {
            expected: &expected,
            artifacts: &artifacts,
        })
    };
    let (repo, store) = repo_and_store(&f);

    let ok = drivers::validate_release(&repo, &store, "v1", evidence()).unwrap();
    assert_allowed(&ok.decision);
    assert!(
        ok.decision
            .message()
            .contains("1 release artifact(s) match")
    );

    // The artifact is rebuilt while the gate decides.
    let release_between = |write: &dyn Fn()| {
        with_writer(&f, write, |between| {
            validate_release_between(&repo, &store, "v1", evidence(), between)
        })
        .unwrap()
        .decision
    };
    let d = release_between(&|| {
        std::fs::write(dist.join("app.tar.gz"), b"rebuilt").unwrap();
    });
    assert_denied(&d, ReasonCode::ReleaseEvidenceChanged, "app.tar.gz");
    assert_eq!(d.lineage_id(), ok.decision.lineage_id());
    std::fs::write(dist.join("app.tar.gz"), b"tarball").unwrap();

    // The tag is moved while the gate decides.
    let d = release_between(&|| {
        f.git(&["tag", "-f", "v1", "HEAD~1"]).unwrap();
    });
    assert_denied(&d, ReasonCode::ReleaseRevisionMoved, &released);
}

#[test]
fn a_revision_that_moves_mid_gate_denies_the_allow() {
    let (f, _dir, _) = approved();
    let base = rev_parse(&f, "HEAD");
    commit_topic(&f);
    let (repo, store) = repo_and_store(&f);
    let boundary = PushBoundary::Range {
        base: base.clone(),
        tip: "topic".into(),
    };
    assert_allowed(&drivers::validate_pre_push(&repo, &store, &boundary).unwrap());
    let move_topic = || {
        f.git(&["branch", "-f", "topic", &base]).unwrap();
    };
    let d = with_writer(&f, move_topic, |between| {
        validate_pre_push_between(&repo, &store, &boundary, between)
    })
    .unwrap();
    assert_eq!(d.decision(), Decision::Deny);
    assert_denied(
        &d,
        ReasonCode::AuthorityChanged,
        "`topic` now names another commit",
    );
}
