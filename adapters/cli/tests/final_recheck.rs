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
use probity_core::review::{Decision, NextAction, ReasonCode};
use probity_ports::review::{
    self as drivers, Delivery, PushBoundary, ReleaseEvidence, validate_pre_commit_between,
    validate_pre_pr_between, validate_pre_push_between, validate_release_between,
};
use probity_store::{ArtifactDir, FileStore};
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

fn rev(f: &probity_git::fixture::Fixture, what: &str) -> String {
    rev_parse(f, what)
}

fn receipt_path(f: &probity_git::fixture::Fixture, lineage: &str) -> std::path::PathBuf {
    lineage_dir(f, lineage).join("receipt.json")
}

#[test]
fn a_receipt_or_a_recovery_changed_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = string_at(&approve_live(f.root(), dir.path()), "lineage_id");
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());

    // Nothing moves: allowed, as ever.
    let d = validate_pre_commit_between(&repo, &store, &Delivery::Worktree, &mut || {}).unwrap();
    assert_eq!(d.decision(), Decision::Allow, "{}", d.message());

    // A writer rewrites the receipt file while the gate decides.
    let path = receipt_path(&f, &lineage);
    let original = std::fs::read(&path).unwrap();
    let left = RefCell::new(None);
    let d = validate_pre_commit_between(
        &repo,
        &store,
        &Delivery::Worktree,
        &mut writer(&f, &left, || std::fs::write(&path, b"{}\n").unwrap()),
    )
    .unwrap();
    assert_gate_wrote_nothing(&f, &left);
    assert_eq!(d.decision(), Decision::Deny);
    assert_eq!(d.reason_code(), ReasonCode::AuthorityChanged);
    assert_eq!(d.next_action(), NextAction::Retry);
    assert!(d.message().contains("receipt file"), "{}", d.message());
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
    assert_eq!(
        d.reason_code(),
        ReasonCode::AuthorityChanged,
        "{}",
        d.message()
    );
    assert!(d.message().contains("a recovery of"), "{}", d.message());
    // Only the recovery wrote.
    let after = store_snapshot(&f);
    assert!(after.len() > before.len());
}

#[test]
fn an_index_entry_that_moves_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let targets = f.root().join(".git/probity/reviews/v1/index/target");
    let entry = std::fs::read_dir(&targets)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let left = RefCell::new(None);
    let d = validate_pre_commit_between(
        &repo,
        &store,
        &Delivery::Worktree,
        &mut writer(&f, &left, || std::fs::remove_file(&entry).unwrap()),
    )
    .unwrap();
    assert_eq!(
        d.reason_code(),
        ReasonCode::AuthorityChanged,
        "{}",
        d.message()
    );
    assert!(
        d.message().contains("the store's index entry for target"),
        "{}",
        d.message()
    );
    assert_gate_wrote_nothing(&f, &left);
}

#[test]
fn the_index_a_commit_delivers_changing_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    f.git(&["add", "-A"]).unwrap();
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let index = f.root().join(".git/index");
    let staged = Delivery::Index(index.clone());
    let d = drivers::validate_pre_commit(&repo, &store, &staged).unwrap();
    assert_eq!(d.decision(), Decision::Allow, "{}", d.message());
    let left = RefCell::new(None);
    let d = validate_pre_commit_between(
        &repo,
        &store,
        &staged,
        &mut writer(&f, &left, || {
            f.write(
                "src/parser.rs",
                "// parser\nfn parse() {}\nfn sneaked() {}\n",
            )
            .unwrap();
            f.git(&["add", "src/parser.rs"]).unwrap();
        }),
    )
    .unwrap();
    assert_eq!(
        d.reason_code(),
        ReasonCode::AuthorityChanged,
        "{}",
        d.message()
    );
    assert!(
        d.message().contains("the live target changed"),
        "{}",
        d.message()
    );
    assert_gate_wrote_nothing(&f, &left);
}

#[test]
fn a_proposal_whose_head_moves_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    let base = rev(&f, "HEAD");
    f.git(&["branch", "main-base", &base]).unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", "reviewed"])
        .unwrap();
    f.git(&["branch", "topic"]).unwrap();
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let pr = drivers::validate_pre_pr(&repo, &store, "main-base", "topic").unwrap();
    assert_eq!(
        pr.decision.decision(),
        Decision::Allow,
        "{}",
        pr.decision.message()
    );
    let left = RefCell::new(None);
    let pr = validate_pre_pr_between(
        &repo,
        &store,
        "main-base",
        "topic",
        &mut writer(&f, &left, || {
            f.git(&["branch", "-f", "topic", &base]).unwrap();
        }),
    )
    .unwrap();
    let d = pr.decision;
    assert_eq!(
        d.reason_code(),
        ReasonCode::AuthorityChanged,
        "{}",
        d.message()
    );
    assert!(
        d.message().contains("`topic` now names another commit"),
        "{}",
        d.message()
    );
    assert_gate_wrote_nothing(&f, &left);
}

#[test]
fn a_release_whose_tag_or_artifacts_change_mid_gate_is_denied() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
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
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());

    let ok = drivers::validate_release(&repo, &store, "v1", evidence()).unwrap();
    assert_eq!(
        ok.decision.decision(),
        Decision::Allow,
        "{}",
        ok.decision.message()
    );
    assert!(
        ok.decision
            .message()
            .contains("1 release artifact(s) match")
    );

    // The artifact is rebuilt while the gate decides.
    let left = RefCell::new(None);
    let d = validate_release_between(
        &repo,
        &store,
        "v1",
        evidence(),
        &mut writer(&f, &left, || {
            std::fs::write(dist.join("app.tar.gz"), b"rebuilt").unwrap();
        }),
    )
    .unwrap()
    .decision;
    assert_eq!(
        d.reason_code(),
        ReasonCode::ReleaseEvidenceChanged,
        "{}",
        d.message()
    );
    assert!(d.message().contains("app.tar.gz"), "{}", d.message());
    assert_eq!(d.lineage_id(), ok.decision.lineage_id());
    assert_gate_wrote_nothing(&f, &left);
    std::fs::write(dist.join("app.tar.gz"), b"tarball").unwrap();

    // The tag is moved while the gate decides.
    let left = RefCell::new(None);
    let d = validate_release_between(
        &repo,
        &store,
        "v1",
        evidence(),
        &mut writer(&f, &left, || {
            f.git(&["tag", "-f", "v1", "HEAD~1"]).unwrap();
        }),
    )
    .unwrap()
    .decision;
    assert_eq!(
        d.reason_code(),
        ReasonCode::ReleaseRevisionMoved,
        "{}",
        d.message()
    );
    assert!(d.message().contains(&released), "{}", d.message());
    assert_gate_wrote_nothing(&f, &left);
}

#[test]
fn a_revision_that_moves_mid_gate_denies_the_allow() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    approve_live(f.root(), dir.path());
    let base = rev_parse(&f, "HEAD");
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
    assert_eq!(d.decision(), Decision::Allow, "{}", d.message());
    let left = RefCell::new(None);
    let d = validate_pre_push_between(
        &repo,
        &store,
        &boundary,
        &mut writer(&f, &left, || {
            f.git(&["branch", "-f", "topic", &base]).unwrap();
        }),
    )
    .unwrap();
    assert_gate_wrote_nothing(&f, &left);
    assert_eq!(d.decision(), Decision::Deny);
    assert_eq!(d.reason_code(), ReasonCode::AuthorityChanged);
    assert!(
        d.message().contains("`topic` now names another commit"),
        "{}",
        d.message()
    );
}
