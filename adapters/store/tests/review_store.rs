//! The file store: CAS, idempotent retries, locks, fail-closed loads.

use probity_core::review::Forecast;
use std::time::Duration;

use probity_core::review::Lens;
use probity_core::review::Successor;
use probity_core::review::fixtures;
use probity_core::review::{StateRecord, Transition};
use probity_ports::review::{
    ChainStore, Created, IndexStore, ReceiptStore, RecordStore, ResultStore, StoreError,
};
use probity_store::FileStore;

mod common;
use common::{created, files, first, started};

/// The checked transition from `prev` to `next` (a legal successor).
fn step(prev: &StateRecord, next: &StateRecord) -> Transition {
    Transition::check(prev, next.state().clone()).expect("a legal transition")
}

fn validating(r: &StateRecord) -> StateRecord {
    r.state()
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .record()
        .unwrap()
}

/// `r` invalidated, for `reason`.
fn invalidated(r: &StateRecord, reason: &str) -> StateRecord {
    r.state()
        .invalidate(probity_core::review::NonBlank::parse(reason).unwrap())
        .unwrap()
        .record()
        .unwrap()
}

/// `r` (validating) with passing evidence: approved.
fn approved(r: &StateRecord) -> StateRecord {
    r.state()
        .accept_evidence(b"evidence")
        .unwrap()
        .record()
        .unwrap()
}

/// `rel` in the folder of `r`'s lineage, in the store at `dir`.
fn in_lineage(dir: &tempfile::TempDir, r: &StateRecord, rel: &str) -> std::path::PathBuf {
    dir.path().join(r.state().lineage_id().as_str()).join(rel)
}

#[test]
fn create_indexes_by_target_and_resumes_a_second_start() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    let r = started();
    assert_eq!(store.create(&first(&r)).unwrap(), Created::New);
    assert_eq!(
        store.lookup_target(&r.state().snapshot().target).unwrap(),
        Some(r.state().lineage_id().clone())
    );
    assert_eq!(store.load(r.state().lineage_id()).unwrap(), Some(r.clone()));
    // The same start retried is idempotent.
    assert_eq!(
        store.create(&first(&r)).unwrap(),
        Created::Existing(r.state().lineage_id().clone())
    );
}

#[test]
fn replace_is_compare_and_swap_and_exact_retries_succeed() {
    let (_dir, store, r0) = created();
    let r1 = validating(&r0);
    store.replace(&step(&r0, &r1)).unwrap();
    // Exact retry: same successor, same expected revision.
    store.replace(&step(&r0, &r1)).unwrap();
    // A stale writer expecting r0 with another successor is rejected.
    let other = r0
        .state()
        .accept_results(
            vec![
                probity_core::review::ReviewerResult::parse(
                    br#"{"findings":[],"evidence":["another reading"]}"#,
                )
                .unwrap(),
            ],
            &Default::default(),
        )
        .unwrap()
        .record()
        .unwrap();
    let stale = store.replace(&step(&r0, &other)).unwrap_err();
    assert!(matches!(stale, StoreError::Conflict { .. }), "{stale}");
    let r2 = approved(&r1);
    // The legal successor lands, and writes the receipt and the base index.
    store.replace(&step(&r1, &r2)).unwrap();
    assert!(
        store
            .read_receipt(r2.state().lineage_id())
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store.lookup_base(&r2.state().snapshot().base_tree).unwrap(),
        Some(r2.state().lineage_id().clone())
    );
}

#[test]
fn an_illegal_successor_is_rejected_without_writing() {
    let (dir, _store, r0) = created();
    let state_file = in_lineage(&dir, &r0, "state.json");
    let before = std::fs::read(&state_file).unwrap();
    // Changed frozen fields (the authored lines, and the budget derived
    // from them, so the state is valid on its own).
    let forged = fixtures::forge(validating(&r0).state(), |w| {
        w["frozen"]["authored_lines"] = 62.into();
        w["frozen"]["correction_budget"] = 31.into();
    })
    .unwrap();
    // No transition can even be made of it: `replace` takes only a
    // checked one, so nothing reaches the store.
    assert!(Transition::check(&r0, forged).is_err());
    assert_eq!(std::fs::read(&state_file).unwrap(), before);
}

#[test]
fn load_fails_closed_on_tampering() {
    let (dir, store, r) = created();
    let state_file = in_lineage(&dir, &r, "state.json");
    let good = std::fs::read_to_string(&state_file).unwrap();
    for (name, bad) in [
        ("truncated", good[..good.len() / 2].to_string()),
        ("pretty-printed", serde_json_pretty(&good)),
        ("revision", flip_revision(&good)),
        (
            "unknown field",
            good.replacen("{\"revision\"", "{\"extra\":1,\"revision\"", 1),
        ),
        (
            "budget",
            good.replace("\"correction_budget\":30", "\"correction_budget\":31"),
        ),
    ] {
        std::fs::write(&state_file, &bad).unwrap();
        let err = store.load(r.state().lineage_id()).unwrap_err();
        assert!(matches!(err, StoreError::Corrupted { .. }), "{name}: {err}");
    }
}

fn flip_revision(s: &str) -> String {
    let at = s.find("\"revision\":\"sha256:").unwrap() + "\"revision\":\"sha256:".len();
    let mut b = s.as_bytes().to_vec();
    b[at] = if b[at] == b'0' { b'1' } else { b'0' };
    String::from_utf8(b).unwrap()
}

fn serde_json_pretty(s: &str) -> String {
    // Same content, other bytes: still rejected (stored bytes are canonical).
    s.replacen('{', "{ ", 1)
}

#[test]
fn writers_of_different_lineages_never_block_each_other() {
    let dir = tempfile::tempdir().unwrap();
    // No waiting at all: a writer that needed another lineage's lock would
    // report contention at once.
    let store = FileStore::at(dir.path().to_path_buf()).with_lock_wait(Duration::ZERO);
    let a = started();
    let mut obs = fixtures::parser_observation();
    obs.changed.pop();
    obs.intended_untracked.clear();
    obs.candidate_tree =
        probity_core::review::TreeId::parse("2222222222222222222222222222222222222222").unwrap();
    let b = fixtures::start(&obs, Lens::Reliability)
        .unwrap()
        .record()
        .unwrap();
    assert_ne!(a.state().lineage_id(), b.state().lineage_id());
    store.create(&first(&a)).unwrap();
    store.create(&first(&b)).unwrap();
    // Hold A's lock as another process would.
    let lock = std::fs::File::options()
        .write(true)
        .open(
            dir.path()
                .join(a.state().lineage_id().as_str())
                .join("LOCK"),
        )
        .unwrap();
    lock.lock().unwrap();
    store.replace(&step(&b, &validating(&b))).unwrap();
    let err = store.replace(&step(&a, &validating(&a))).unwrap_err();
    assert!(matches!(err, StoreError::Contention { .. }), "{err}");
    lock.unlock().unwrap();
    store.replace(&step(&a, &validating(&a))).unwrap();
}

#[test]
fn injected_fault_leaves_the_last_committed_state() {
    use probity_testkit::{Crash, Faulty, is_injected};
    let dir = tempfile::tempdir().unwrap();
    let r0 = started();
    FileStore::at(dir.path().to_path_buf())
        .create(&first(&r0))
        .unwrap();
    let faulty = Faulty::new(
        FileStore::at(dir.path().to_path_buf()),
        0,
        Crash::BeforeReplace,
    );
    let r1 = validating(&r0);
    assert!(matches!(
        faulty.replace(&step(&r0, &r1)),
        Err(e) if is_injected(&e)
    ));
    let store = FileStore::at(dir.path().to_path_buf());
    assert_eq!(
        store.load(r0.state().lineage_id()).unwrap(),
        Some(r0.clone())
    );
    store.replace(&step(&r0, &r1)).unwrap();
    // A crash after the state write: the successor is durable, the caller
    // told it failed; an exact retry answers it.
    let r2 = approved(&r1);
    let late = Faulty::new(store, 0, Crash::AfterStateWrite);
    assert!(matches!(late.replace(&step(&r1, &r2)), Err(e) if is_injected(&e)));
    let store = late.into_inner();
    assert_eq!(
        store.load(r0.state().lineage_id()).unwrap(),
        Some(r2.clone())
    );
    store.replace(&step(&r1, &r2)).unwrap();
}

#[test]
fn a_stale_claim_on_a_corrected_target_is_taken_over_and_a_real_one_is_not() {
    use probity_core::review::fixtures::{fix, validation};
    use probity_core::review::target_identity;
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    let a0 = fixtures::budget_scenario().unwrap();
    let a1 = a0.accept_forecast(Forecast::new(5).unwrap()).unwrap();
    let a2 = a1.accept_validation(fix(7, 3), validation(true)).unwrap();
    let final_target = target_identity(&a2.snapshot().base_tree, a2.final_candidate_tree());
    // Another lineage left a claim on that target but never wrote a state
    // naming it (a crash between the claim and its state write).
    let other = started();
    store.create(&first(&other)).unwrap();
    let claim = dir.path().join("index/target").join(final_target.hex());
    std::fs::write(&claim, format!("{}\n", other.state().lineage_id())).unwrap();
    let (r0, r1, r2) = (
        a0.record().unwrap(),
        a1.record().unwrap(),
        a2.record().unwrap(),
    );
    store.create(&first(&r0)).unwrap();
    store.replace(&step(&r0, &r1)).unwrap();
    store.replace(&step(&r1, &r2)).unwrap();
    assert_eq!(
        store.lookup_target(&final_target).unwrap(),
        Some(r2.state().lineage_id().clone())
    );
}

/// Every file under `root`, path → bytes.
fn successor_of(pred: &StateRecord, reason: &str) -> Successor {
    use probity_core::review::NonBlank;
    use probity_core::review::{Disposition, RecoverRequest, successor};
    let record = successor(
        pred,
        RecoverRequest {
            expected_revision: pred.revision(),
            disposition: Disposition::Invalidated,
            reason: NonBlank::parse(reason).unwrap(),
            actor: NonBlank::parse("maintainer").unwrap(),
            authorization: None,
        },
        probity_core::review::ScopeEvidence {
            differing_paths: &[],
            owned_by_chain: false,
        },
        fixtures::start_input(&fixtures::parser_observation(), Lens::Reliability).unwrap(),
    )
    .unwrap()
    .record()
    .unwrap();
    Successor::check(pred, record).unwrap()
}

#[test]
fn a_successor_takes_over_its_predecessors_target_and_never_forks() {
    let (dir, store, r0) = created();
    // A successor of a predecessor that moved since is a conflict.
    let early = successor_of(&invalidated(&r0, "x"), "a");
    let inv = invalidated(&r0, "wrong branch");
    store.replace(&step(&r0, &inv)).unwrap();
    let before = files(dir.path());
    assert!(matches!(
        store.create_successor(&early),
        Err(StoreError::Conflict { .. })
    ));
    // Not a successor at all: no `Successor` can be made of it
    // (`Successor::check`, core's recovery tests), so none reaches a store.
    assert_eq!(files(dir.path()), before, "refusals write nothing");

    let s1 = successor_of(&inv, "again");
    assert_eq!(store.create_successor(&s1).unwrap(), Created::New);
    assert_eq!(
        store
            .lookup_target(&s1.record().state().snapshot().target)
            .unwrap(),
        Some(s1.record().state().lineage_id().clone())
    );
    assert_eq!(
        store.successor_of(inv.state().lineage_id()).unwrap(),
        Some(s1.record().state().lineage_id().clone())
    );
    // The predecessor's record is what it was.
    assert_eq!(
        store.load(inv.state().lineage_id()).unwrap(),
        Some(inv.clone())
    );
    // An exact retry answers the stored successor; another one is a fork.
    assert_eq!(
        store.create_successor(&s1).unwrap(),
        Created::Existing(s1.record().state().lineage_id().clone())
    );
    let s2 = successor_of(&inv, "a second successor");
    let before = files(dir.path());
    assert!(matches!(
        store.create_successor(&s2),
        Err(StoreError::AlreadySuperseded { .. })
    ));
    assert_eq!(files(dir.path()), before, "a refused fork writes nothing");
}

#[test]
fn a_successor_never_takes_a_target_another_lineage_owns() {
    let (dir, store, r0) = created();
    let inv = invalidated(&r0, "wrong branch");
    store.replace(&step(&r0, &inv)).unwrap();
    // Someone else's lineage owns the target index now.
    let other = probity_core::review::LineageId::parse("review-0123456789abcdef").unwrap();
    let index = dir
        .path()
        .join("index/target")
        .join(r0.state().snapshot().target.hex());
    std::fs::write(&index, format!("{other}\n")).unwrap();
    let before = files(dir.path());
    assert!(matches!(
        store.create_successor(&successor_of(&inv, "again")),
        Err(StoreError::TargetOwned { .. })
    ));
    assert_eq!(files(dir.path()), before);
}

#[test]
fn a_submitted_result_is_kept_once_and_an_exact_resubmission_is_answered() {
    use probity_ports::review::Submitted;
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    let r = started();
    let lineage = r.state().lineage_id();
    // No lineage, no submission (nothing written).
    assert!(matches!(
        store.submit_result(lineage, Lens::Reliability, b"{}"),
        Err(StoreError::NotFound(_))
    ));
    assert!(files(dir.path()).is_empty());
    store.create(&first(&r)).unwrap();
    assert_eq!(store.submitted_results(lineage).unwrap(), vec![]);
    assert_eq!(
        store
            .submit_result(lineage, Lens::Reliability, b"one")
            .unwrap(),
        Submitted::New
    );
    let kept = files(dir.path());
    assert_eq!(
        store
            .submit_result(lineage, Lens::Reliability, b"one")
            .unwrap(),
        Submitted::Existing
    );
    assert!(matches!(
        store.submit_result(lineage, Lens::Reliability, b"two"),
        Err(StoreError::ResultDiffers { .. })
    ));
    assert_eq!(files(dir.path()), kept, "refusals write nothing");
    store.submit_result(lineage, Lens::Risk, b"r").unwrap();
    // Canonical lens order, whatever order they were submitted in.
    assert_eq!(
        store.submitted_results(lineage).unwrap(),
        vec![
            (Lens::Risk, b"r".to_vec()),
            (Lens::Reliability, b"one".to_vec())
        ]
    );
    // The state record is untouched by submissions.
    assert_eq!(store.load(lineage).unwrap(), Some(r.clone()));
}

#[test]
fn an_oversized_submitted_result_on_disk_is_refused_unread() {
    let (dir, store, r) = created();
    let path = in_lineage(&dir, &r, "results");
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("reliability.json"), vec![b' '; (1 << 20) + 1]).unwrap();
    assert!(matches!(
        store.submitted_results(r.state().lineage_id()),
        Err(StoreError::Malformed { .. })
    ));
}

#[test]
fn an_escalation_is_indexed_by_its_base_and_rewritten_by_a_retry() {
    let (dir, store, r) = created();
    let base = r.state().snapshot().base_tree.clone();
    assert_eq!(store.lookup_escalated(&base).unwrap(), Vec::new());
    let unknown = probity_core::review::ReviewerResult::parse(
        br#"{"findings":[{"location":"src/parser.rs:1","severity":"BLOCKER","claim":"c","proof_refs":["p"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["e"]}"#,
    )
    .unwrap();
    let esc = r
        .state()
        .accept_results(vec![unknown], &Default::default())
        .unwrap()
        .record()
        .unwrap();
    assert_eq!(esc.state().stage().name(), "escalated");
    store.replace(&step(&r, &esc)).unwrap();
    assert_eq!(
        store.lookup_escalated(&base).unwrap(),
        vec![r.state().lineage_id().clone()]
    );
    // Only escalations are listed; a crash before the projection is
    // finished by the retry's projection pass.
    let entry = dir
        .path()
        .join("index/escalated")
        .join(base.as_str())
        .join(r.state().lineage_id().as_str());
    std::fs::remove_file(&entry).unwrap();
    assert_eq!(store.lookup_escalated(&base).unwrap(), Vec::new());
    store.ensure_projections(&esc).unwrap();
    assert!(entry.exists());
}

#[test]
fn an_approval_projects_its_final_tree_and_its_delta_keys_idempotently() {
    use probity_core::digest::{Domain, Sha256Digest};
    let (dir, store, r0) = created();
    let r1 = validating(&r0);
    store.replace(&step(&r0, &r1)).unwrap();
    let key = Sha256Digest::of(Domain::new("test/delta"), b"d");
    let entry = Sha256Digest::of(Domain::new("test/entry"), b"e");
    // Only the stored approved record is indexed by its delta: a record in
    // another stage is refused and nothing is written.
    let before = files(dir.path());
    let refused = store.index_delta(&r1, &key, &[entry]).unwrap_err();
    assert!(matches!(refused, StoreError::Malformed { .. }), "{refused}");
    assert_eq!(files(dir.path()), before);
    assert_eq!(
        store
            .lookup_final(r1.state().final_candidate_tree())
            .unwrap(),
        None
    );

    let r2 = approved(&r1);
    // A record that is not the stored one is a conflict, not an index.
    let stale = store.index_delta(&r2, &key, &[entry]).unwrap_err();
    assert!(matches!(stale, StoreError::Conflict { .. }), "{stale}");
    assert_eq!(files(dir.path()), before);

    store.replace(&step(&r1, &r2)).unwrap();
    let id = Some(r2.state().lineage_id().clone());
    // The final-tree index is a projection of the record alone.
    assert_eq!(
        store
            .lookup_final(r2.state().final_candidate_tree())
            .unwrap(),
        id
    );
    store.index_delta(&r2, &key, &[entry]).unwrap();
    assert_eq!(store.lookup_delta(&key).unwrap(), id);
    assert_eq!(store.lookup_delta_entry(&entry).unwrap(), id);
    // Idempotent: a retry changes no byte.
    let after = files(dir.path());
    store.index_delta(&r2, &key, &[entry]).unwrap();
    store.ensure_projections(&r2).unwrap();
    assert_eq!(files(dir.path()), after);
}

/// A writer killed between its temp file and the rename leaves a `.tmp-*`
/// file behind. The next start removes every such orphan anywhere in the
/// store, told by its lock (a live writer holds its temp file locked from
/// creation to rename), never by its age: a fresh orphan goes, an old temp
/// file a live writer holds stays, and everything else is left alone.
#[test]
fn a_new_start_scavenges_orphaned_temp_files_by_their_lock() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::at(dir.path().to_path_buf());
    let old = SystemTime::now() - Duration::from_secs(3600);
    let orphan = |rel: &str, modified: SystemTime| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"half").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        p
    };
    let in_lineage = orphan("review-0000000000000000/.tmp-a1", old);
    let in_index = orphan("index/open/abc/.tmp-b2", old);
    let fresh_orphan = orphan("index/base/.tmp-d4", SystemTime::now());
    let in_flight = orphan("index/target/.tmp-c3", old);
    let held = std::fs::File::open(&in_flight).unwrap();
    held.lock().unwrap();
    let not_temp = orphan("index/final/keep", old);
    store.create(&first(&started())).unwrap();
    assert!(!in_lineage.exists());
    assert!(!in_index.exists());
    assert!(
        !fresh_orphan.exists(),
        "an unheld temp file is an orphan, however new"
    );
    assert!(
        in_flight.exists(),
        "a held temp file is a live write, however old"
    );
    assert!(not_temp.exists());
    drop(held);
}

/// Discovery is a lookup, never a scan: a lineage folder holding garbage
/// (and an index entry naming it) beside an approved lineage changes
/// nothing any read or write of the approved one answers, though loading
/// the garbage fails closed and the repair survey (the one walk that reads
/// every lineage) reports it. A read that walked the store would fail on it.
#[test]
fn a_garbage_lineage_elsewhere_never_reaches_another_lineages_lookups() {
    use probity_core::digest::{Domain, Sha256Digest};
    use probity_core::review::RepairClass;
    use probity_core::review::{LineageId, TreeId};
    use probity_ports::review::RepairStore;
    let (dir, store, r0) = created();
    let r1 = validating(&r0);
    store.replace(&step(&r0, &r1)).unwrap();
    let r2 = approved(&r1);
    store.replace(&step(&r1, &r2)).unwrap();
    let delta = Sha256Digest::of(Domain::new("test/delta"), b"d");
    let entry = Sha256Digest::of(Domain::new("test/entry"), b"e");
    store.index_delta(&r2, &delta, &[entry]).unwrap();
    let lineage = r2.state().lineage_id().clone();

    // The garbage: an unrelated lineage's record, and an index entry on
    // another base tree naming it.
    let garbage = LineageId::parse("review-00000000000000aa".to_string()).unwrap();
    let garbage_dir = dir.path().join(garbage.as_str());
    std::fs::create_dir_all(&garbage_dir).unwrap();
    std::fs::write(garbage_dir.join("state.json"), b"\xff\xfe not a record").unwrap();
    std::fs::write(garbage_dir.join("receipt.json"), b"{").unwrap();
    let other_tree = "1".repeat(40);
    std::fs::write(
        dir.path().join("index/base").join(&other_tree),
        format!("{garbage}\n"),
    )
    .unwrap();
    assert!(
        store.load(&garbage).is_err(),
        "the garbage must fail closed"
    );
    let survey = store.survey(RepairClass::CorruptedRecord).unwrap();
    assert_eq!(survey.anomalies, vec![garbage.clone()], "{survey:?}");

    // Every read of the approved lineage answers as before.
    let id = Some(lineage.clone());
    let state = r2.state();
    let base = &state.snapshot().base_tree;
    assert_eq!(store.load(&lineage).unwrap(), Some(r2.clone()));
    assert_eq!(store.lookup_target(&state.snapshot().target).unwrap(), id);
    assert_eq!(store.lookup_base(base).unwrap(), id);
    assert_eq!(
        store.lookup_final(state.final_candidate_tree()).unwrap(),
        id
    );
    assert_eq!(store.lookup_delta(&delta).unwrap(), id);
    assert_eq!(store.lookup_delta_entry(&entry).unwrap(), id);
    assert_eq!(store.lookup_open(base).unwrap(), Vec::new());
    assert_eq!(store.lookup_escalated(base).unwrap(), Vec::new());
    assert!(store.read_receipt(&lineage).unwrap().is_some());
    assert_eq!(store.successor_of(&lineage).unwrap(), None);
    assert_eq!(store.pending_successor_of(&lineage).unwrap(), None);
    assert_eq!(store.submitted_results(&lineage).unwrap(), Vec::new());
    let mut ran = false;
    store.under_lock(&lineage, &mut || ran = true).unwrap();
    assert!(ran);
    // Lookups of what nothing indexes answer none, not an error.
    let unknown = TreeId::parse("2".repeat(40)).unwrap();
    assert_eq!(store.lookup_base(&unknown).unwrap(), None);
    assert_eq!(store.lookup_open(&unknown).unwrap(), Vec::new());

    // Writes go on: the approved lineage's projections and delta index are
    // idempotent, and another candidate's lineage is created and advanced.
    store.ensure_projections(&r2).unwrap();
    store.index_delta(&r2, &delta, &[entry]).unwrap();
    let other = fixtures::payments_scenario().unwrap().0.record().unwrap();
    assert_eq!(store.create(&first(&other)).unwrap(), Created::New);
    assert_eq!(
        store
            .lookup_target(&other.state().snapshot().target)
            .unwrap(),
        Some(other.state().lineage_id().clone())
    );
    assert_eq!(store.load(other.state().lineage_id()).unwrap(), Some(other));
    // The garbage is where it was, untouched.
    assert_eq!(
        std::fs::read(garbage_dir.join("state.json")).unwrap(),
        b"\xff\xfe not a record"
    );
}
