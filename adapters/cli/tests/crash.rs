//! Crash safety (R4.5): finalize commits each valid intermediate state; a
//! simulated crash after the Nth replace leaves the last committed state,
//! and re-running resumes without re-running a lens or re-charging budget.

use probity_core::review::{Lens, LineageId};
use probity_git::Repo;
use probity_git::fixture::Fixture;
use probity_ports::review::{
    self as drivers, EvidenceInput, FinalizeInput, LensResultInput, ReceiptStore, RecordStore,
    ReviewError, StoreError,
};
use probity_store::FileStore;
use probity_testkit::documents::{BLOCKER, CLEAN, VALIDATOR_FAIL as FAIL, named};
use probity_testkit::{Crash, Faulty, FixedClock, is_injected};

fn repo() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/a.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write(
        "src/a.rs",
        "fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n",
    )
    .unwrap();
    f
}

/// The repository, its store, and a review started in it.
fn started(f: &Fixture) -> (Repo, FileStore, LineageId) {
    let repo = f.repo().unwrap();
    let store = FileStore::for_common_dir(repo.common_dir());
    let started = drivers::start(&repo, &store, &FixedClock::fixture(), Lens::Reliability).unwrap();
    let lineage = started.record.state().lineage_id().clone();
    (repo, store, lineage)
}

/// The repository's store, crashing at `crash` on its first replace.
fn crashing_store(repo: &Repo, crash: Crash) -> Faulty<FileStore> {
    Faulty::new(FileStore::for_common_dir(repo.common_dir()), 1, crash)
}

/// The clean result and evidence, in one finalize.
fn clean_and_evidence() -> FinalizeInput {
    FinalizeInput {
        results: vec![LensResultInput::unnamed(named("r.json", CLEAN))],
        evidence: Some(EvidenceInput::Bytes(named("ev.txt", "ok\n"))),
        ..Default::default()
    }
}

/// The pre-commit gate's reason code, as JSON.
fn gate_reason(repo: &Repo, store: &FileStore) -> serde_json::Value {
    let gate = drivers::validate_pre_commit(repo, store, &drivers::Delivery::Worktree).unwrap();
    serde_json::to_value(gate.reason_code()).unwrap()
}

fn is_crash(e: &ReviewError) -> bool {
    matches!(e, ReviewError::Store(s @ StoreError::Io { .. }) if is_injected(s))
}

#[test]
fn a_crash_between_results_and_evidence_resumes_without_the_lens() {
    let f = repo();
    let (repo, store, lineage) = started(&f);

    // Crash after the first replace: results are durable, evidence is not.
    let crashing = crashing_store(&repo, Crash::BeforeReplace);
    let err = drivers::finalize(&repo, &crashing, clean_and_evidence()).unwrap_err();
    assert!(is_crash(&err), "{err}");
    let after_crash = store.load(&lineage).unwrap().unwrap();
    assert_eq!(after_crash.state().stage().name(), "validating");
    assert!(store.read_receipt(&lineage).unwrap().is_none());

    // Resume with the evidence only: the lens is not asked again.
    let resumed = drivers::finalize(
        &repo,
        &store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            evidence: Some(EvidenceInput::Bytes(named("ev.txt", "ok\n"))),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(resumed.record.state().stage().name(), "approved");
    assert_eq!(
        resumed.record.state().stage().judgment(),
        after_crash.state().stage().judgment()
    );
    assert!(store.read_receipt(&lineage).unwrap().is_some());
}

#[test]
fn a_crash_during_correction_never_charges_twice() {
    let f = repo();
    let (repo, store, lineage) = started(&f);
    drivers::finalize(
        &repo,
        &store,
        FinalizeInput {
            results: vec![LensResultInput::unnamed(named("r.json", BLOCKER))],
            ..Default::default()
        },
    )
    .unwrap();
    f.write(
        "src/a.rs",
        "fn a() {}\nfn b() { 2 }\nfn c() {}\nfn d() {}\n",
    )
    .unwrap();

    // Forecast and validation in one call; crash after the forecast lands.
    let crashing = crashing_store(&repo, Crash::BeforeReplace);
    let both = FinalizeInput {
        lineage: Some(lineage.clone()),
        correction_lines: Some(2),
        validation: Some(named("v.json", FAIL)),
        ..Default::default()
    };
    assert!(is_crash(
        &drivers::finalize(&repo, &crashing, both.clone()).unwrap_err()
    ));
    let mid = store.load(&lineage).unwrap().unwrap();
    let c = mid.state().stage().correction().unwrap();
    assert_eq!(
        (mid.state().stage().forecast(), c.attempts.len()),
        (Some(2), 0)
    );

    // Re-running the same command: the forecast is an exact retry, the
    // validation lands once, and Git's measurement is charged once.
    let done = drivers::finalize(&repo, &store, both.clone()).unwrap();
    let c = done.record.state().stage().correction().unwrap();
    assert_eq!((c.attempts.len(), c.charged_lines()), (1, 2));
    // Running it yet again is an exact retry: no second attempt.
    let again = drivers::finalize(&repo, &store, both.clone()).unwrap();
    assert_eq!(again.record, done.record);
    // Malformed JSON is not an attempt and charges nothing.
    let bad = FinalizeInput {
        lineage: Some(lineage.clone()),
        validation: Some(named("v.json", "{not json")),
        ..Default::default()
    };
    assert!(matches!(
        drivers::finalize(&repo, &store, bad),
        Err(ReviewError::MalformedInput { .. })
    ));
    assert_eq!(store.load(&lineage).unwrap().unwrap(), done.record);
}

#[test]
fn a_crash_after_the_state_write_is_finished_by_the_next_finalize() {
    let f = repo();
    let (repo, store, lineage) = started(&f);
    // The approval is durable, but the process dies before the receipt
    // and the base index are written: the crash strikes after the state
    // write, and the projections a dying process never wrote are removed.
    let crashing = crashing_store(&repo, Crash::AfterStateWrite);
    assert!(is_crash(
        &drivers::finalize(&repo, &crashing, clean_and_evidence()).unwrap_err()
    ));
    let approved = store.load(&lineage).unwrap().unwrap();
    assert_eq!(approved.state().stage().name(), "approved");
    let root = store.root();
    for projection in [
        root.join(lineage.as_str()).join("receipt.json"),
        root.join("index/base")
            .join(approved.state().snapshot().base_tree.as_str()),
        root.join("index/final")
            .join(approved.state().final_candidate_tree().as_str()),
    ] {
        std::fs::remove_file(&projection).unwrap();
    }
    assert!(store.read_receipt(&lineage).unwrap().is_none());
    assert_eq!(gate_reason(&repo, &store), "receipt_mismatch");
    // Any finalize of the lineage, even with no input, finishes the job.
    drivers::finalize(
        &repo,
        &store,
        FinalizeInput {
            lineage: Some(lineage.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(store.read_receipt(&lineage).unwrap().is_some());
    assert_eq!(gate_reason(&repo, &store), "receipt_valid");
}
