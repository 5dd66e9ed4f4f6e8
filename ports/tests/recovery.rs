//! The recovery drivers on in-memory adapters: `dispute` (R12.6),
//! `repair` (R9.4, on the in-memory store's `RepairStore`), `burn` (R10.5
//! `consumed`), `replay_preserved` (R3.6) and `start_history` (R8.8). Each
//! does what it promises on the happy path; each refusal is a typed error
//! and leaves the store byte-identical.

mod common;

use std::collections::BTreeMap;

use common::*;
use probity_core::digest::Sha256Digest;
use probity_core::review::Disposition;
use probity_core::review::Lens;
use probity_core::review::MAX_ROLE_DOCUMENT_BYTES;
use probity_core::review::Route;
use probity_core::review::{BurnError, BurnRequest, RepairClass, RepairError, RepairRequest};
use probity_core::review::{DISPUTE_DOMAIN, PreflightError, Stage, StateRecord, TransitionError};
use probity_core::review::{FindingId, LineageId, NonBlank};
use probity_core::review::{PreservedError, preserve};
use probity_ports::review::{
    self as drivers, CommitGit, Delivery, DisputeInput, ReceiptStore, RecordStore, Repaired,
    ResultStore, ReviewError, StoreError, Submitted,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents, verdict};

fn text(s: &str) -> NonBlank {
    NonBlank::parse(s).unwrap()
}

/// Another clock: a start after a lineage went freezes a new lineage id.
fn later() -> FixedClock {
    FixedClock::at("2027-01-01T00:00:00Z", "ffffffffffffffffffffffffffffffff").unwrap()
}

fn unknown() -> LineageId {
    LineageId::parse("review-00000000000000ff").unwrap()
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).unwrap()
}

/// Recovers `pred` (approved) as scope-changed onto the fix.
fn recover_onto_fix(w: &World, pred: &StateRecord) -> StateRecord {
    w.git.write("src/a.rs", FIX).unwrap();
    w.recover(
        pred.state().lineage_id(),
        recover_request(pred, Disposition::ScopeChanged, "more work", "dev"),
    )
    .unwrap()
    .record
}

// --- dispute ---------------------------------------------------------------

fn blocker_id(record: &StateRecord) -> FindingId {
    let judgment = record.state().stage().judgment().unwrap();
    judgment.findings().next().unwrap().id
}

/// A lineage started and judged into correction, and its blocker.
fn in_correction(w: &World) -> (LineageId, FindingId) {
    let judged = w.in_correction();
    (judged.state().lineage_id().clone(), blocker_id(&judged))
}

fn dispute_input(lineage: &LineageId, finding: FindingId, reason: &str) -> DisputeInput {
    DisputeInput {
        lineage: lineage.clone(),
        finding,
        evidence_hash: Sha256Digest::of(
            DISPUTE_DOMAIN,
            b"t reads a fixture the change never touches\n",
        ),
        reason: text(reason),
        actor: text("maintainer"),
        authorization: text("OPS-7, the lead"),
    }
}

#[test]
fn a_disputed_blocker_is_recorded_and_evidence_then_approves_it_resolved() {
    let w = world();
    let (l, finding) = in_correction(&w);
    let input = dispute_input(&l, finding, "a false positive");
    let disputed = drivers::dispute(&w.store, &w.clock, input.clone()).unwrap();
    // The only finding in correction is disputed: nothing is left to fix.
    assert_eq!(disputed.state().stage().name(), "validating");
    let judgment = disputed.state().stage().judgment().unwrap();
    assert_eq!(judgment.disputes.len(), 1);
    let d = &judgment.disputes[0];
    assert_eq!(d.finding_id, finding);
    assert_eq!(d.evidence_hash, input.evidence_hash);
    assert_eq!(d.authorization, text("OPS-7, the lead"));
    assert_eq!(d.disputed_at, probity_ports::review::Clock::now(&w.clock));
    let f = judgment.findings().next().unwrap();
    assert_eq!(judgment.route_of(f), Route::Disputed);
    assert_eq!(w.load(&l), disputed);

    // The same dispute again is an exact retry.
    let held = w.store.dump();
    assert_eq!(
        drivers::dispute(&w.store, &w.clock, input).unwrap(),
        disputed
    );
    assert_eq!(w.store.dump(), held);

    approve_on_evidence(&w.git, &w.store, l.clone());
    let receipt = json(&w.store.read_receipt(&l).unwrap().unwrap());
    assert_eq!(
        receipt["resolved_finding_ids"],
        serde_json::json!([finding.to_string()])
    );
    assert_eq!(w.gate(), says("allow", "receipt_valid"));
}

/// A dispute the driver refuses, checked to write nothing.
fn refused_dispute(w: &World, input: DisputeInput) -> ReviewError {
    let held = w.store.dump();
    let err = drivers::dispute(&w.store, &w.clock, input).unwrap_err();
    assert_eq!(w.store.dump(), held, "a refused dispute ({err}) wrote");
    err
}

#[test]
fn a_dispute_is_refused_with_nothing_written() {
    let w = world();
    let (l, finding) = in_correction(&w);
    // A finding the judgment does not hold.
    let other = FindingId::new(Lens::Reliability, 9).unwrap();
    assert_err!(
        refused_dispute(&w, dispute_input(&l, other, "x")),
        ReviewError::Transition(TransitionError::NotDisputable { .. })
    );
    // A lineage the store does not hold.
    assert_err!(
        refused_dispute(&w, dispute_input(&unknown(), finding, "x")),
        ReviewError::Store(StoreError::NotFound(_))
    );

    // Once a correction is under way (its forecast given), too late.
    w.finalize_with(&l, |i| i.correction_lines = Some(2))
        .unwrap();
    assert_err!(
        refused_dispute(&w, dispute_input(&l, finding, "x")),
        ReviewError::Transition(TransitionError::DisputeAfterCorrection { .. })
    );

    // Before any judgment there is nothing to dispute.
    let (w, l) = started();
    assert_err!(
        refused_dispute(&w, dispute_input(&l, finding, "x")),
        ReviewError::Transition(TransitionError::WrongStage { .. })
    );

    // A disputed finding is not disputed again otherwise.
    let w = world();
    let l = w.in_correction().state().lineage_id().clone();
    drivers::dispute(&w.store, &w.clock, dispute_input(&l, finding, "first")).unwrap();
    assert_err!(
        refused_dispute(&w, dispute_input(&l, finding, "second")),
        ReviewError::Transition(TransitionError::DifferentRetry { .. })
    );

    // A superseded lineage takes no dispute, whatever it names.
    let w = world();
    let approved = w.approve();
    let successor = recover_onto_fix(&w, &approved);
    let input = dispute_input(approved.state().lineage_id(), finding, "x");
    assert_err!(
        refused_dispute(&w, input),
        ReviewError::Store(StoreError::AlreadySuperseded { successor: s, .. })
            if s == successor.state().lineage_id()
    );
}

// --- repair ----------------------------------------------------------------

fn repair_request(lineage: &LineageId, class: RepairClass) -> RepairRequest {
    RepairRequest {
        lineage: lineage.clone(),
        class,
        reason: text("a disk fault corrupted it"),
        actor: text("maintainer"),
        authorization: text("INC-42"),
    }
}

/// `repair` of `lineage` as `class`, on the world's store and clock.
fn repair(w: &World, lineage: &LineageId, class: RepairClass) -> Result<Repaired, ReviewError> {
    drivers::repair(&w.store, &w.clock, repair_request(lineage, class))
}

/// A repair of `lineage` as `class` is refused `NotAnomalous` and writes
/// nothing.
fn assert_not_anomalous(w: &World, lineage: &LineageId, class: RepairClass) {
    let held = w.store.dump();
    let err = repair(w, lineage, class).unwrap_err();
    assert_err!(err, ReviewError::Repair(RepairError::NotAnomalous { .. }));
    assert_eq!(w.store.dump(), held);
}

/// The entries of `dump` that are live authority naming `lineage`: its
/// own files and the index entries naming it.
fn live_entries(dump: &BTreeMap<String, Vec<u8>>, lineage: &LineageId) -> Vec<String> {
    let named = format!("{lineage}\n").into_bytes();
    dump.iter()
        .filter(|(path, bytes)| {
            path.starts_with(&format!("{lineage}/"))
                || (path.starts_with("index/")
                    && (path.ends_with(&format!("/{lineage}")) || **bytes == named))
        })
        .map(|(path, _)| path.clone())
        .collect()
}

#[test]
fn repair_retires_the_only_corrupted_record_keeping_its_bytes_in_quarantine() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let original = b"{\"not\": \"a state record\"}\n".to_vec();
    w.store.overwrite_state(&l, original.clone());
    let err = drivers::status(&w.git, &w.store, Some(&l)).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::Corrupted { .. }));

    // The wrong class: nothing to repair.
    assert_not_anomalous(&w, &l, RepairClass::ReceiptMismatch);

    // Two corrupted records are a systemic failure, not one to quarantine.
    let second = second_review(&w);
    let l2 = second.state().lineage_id().clone();
    w.store.overwrite_state(&l2, b"{}".to_vec());
    let held = w.store.dump();
    let err = repair(&w, &l, RepairClass::CorruptedRecord).unwrap_err();
    assert_err!(
        err,
        ReviewError::Repair(RepairError::NotUnique { count: 2, .. })
    );
    assert_eq!(w.store.dump(), held);
    w.store.overwrite_state(&l2, second.to_bytes().unwrap());

    // The only one: quarantined in two phases, the lineage retired.
    let before = w.store.dump();
    let moved = live_entries(&before, &l);
    assert!(moved.contains(&format!("{l}/state.json")), "{moved:?}");
    assert!(
        moved.iter().any(|p| p.starts_with("index/")),
        "an approved lineage is indexed: {moved:?}"
    );
    let repaired = repair(&w, &l, RepairClass::CorruptedRecord).unwrap();
    assert!(repaired.retired && !repaired.receipt_rewritten);
    assert_eq!(repaired.proof.kind, "only_anomaly_of_class");
    assert_eq!((repaired.proof.scanned, repaired.proof.anomalies), (2, 1));
    let qdir = repaired.audit.strip_suffix("/audit.json").unwrap();
    assert!(
        qdir.starts_with(&format!("quarantine/{l}-corrupted_record-")),
        "{qdir}"
    );
    let after = w.store.dump();
    let audit = json(&after[&repaired.audit]);
    assert_eq!(audit["schema"], "probity.repair-audit/v1");
    assert_eq!(audit["class"], "corrupted_record");
    assert_eq!(audit["authorization"], "INC-42");
    let listed: Vec<&str> = audit["quarantined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, moved.iter().map(String::as_str).collect::<Vec<_>>());
    // Nothing deleted: each original is moved (and copied) byte for byte.
    for path in &moved {
        assert_eq!(
            after[&format!("{qdir}/moved/{path}")],
            before[path],
            "{path}"
        );
        assert_eq!(
            after[&format!("{qdir}/copy/{path}")],
            before[path],
            "{path}"
        );
    }
    assert_eq!(after[&format!("{qdir}/moved/{l}/state.json")], original);
    assert!(live_entries(&after, &l).is_empty());
    assert_eq!(
        after[&format!("retired/{l}")],
        format!("{}\n", repaired.audit).into_bytes()
    );
    // The other lineage is untouched.
    assert_eq!(
        live_entries(&after, &l2),
        live_entries(&before, &l2),
        "only the anomaly moved"
    );

    // Retired wherever it is named, with the audit record.
    let retired = |err: ReviewError| {
        assert_err!(err, ReviewError::Store(StoreError::Retired { lineage, audit })
                if *lineage == l && *audit == repaired.audit);
    };
    retired(drivers::status(&w.git, &w.store, Some(&l)).unwrap_err());
    retired(
        w.finalize_with(&l, |i| i.evidence = Some(documents::passing_check()))
            .unwrap_err(),
    );
    retired(
        drivers::burn(
            &w.store,
            &w.clock,
            BurnRequest {
                lineage: l.clone(),
                reason: text("delivered"),
                actor: text("bot"),
            },
        )
        .unwrap_err(),
    );
    // Nothing is indexed for its candidate now: a review starts afresh.
    assert_eq!(w.gate(), says("deny", "receipt_missing"));
    let again = drivers::start(&w.git, &w.store, &later(), Lens::Reliability).unwrap();
    assert!(!again.resumed);
    assert_ne!(again.record.state().lineage_id(), &l);
}

#[test]
fn repair_sets_a_mismatched_receipt_aside_and_writes_the_derived_one() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let good = w.store.read_receipt(&l).unwrap().unwrap();
    let forged = b"{\"forged\":true}\n".to_vec();
    w.store.overwrite_receipt(&l, forged.clone());
    assert_eq!(w.gate(), says("deny", "receipt_mismatch"));

    let held = w.store.dump();
    assert_not_anomalous(&w, &l, RepairClass::CorruptedRecord);

    let repaired = repair(&w, &l, RepairClass::ReceiptMismatch).unwrap();
    assert!(repaired.receipt_rewritten && !repaired.retired);
    assert_eq!(w.store.read_receipt(&l).unwrap(), Some(good));
    let after = w.store.dump();
    let qdir = repaired.audit.strip_suffix("/audit.json").unwrap();
    assert_eq!(after[&format!("{qdir}/moved/{l}/receipt.json")], forged);
    let audit = json(&after[&repaired.audit]);
    assert_eq!(audit["class"], "receipt_mismatch");
    assert_eq!(
        audit["quarantined"][0]["sha256"],
        Sha256Digest::plain(&forged).to_string()
    );
    // The record was never touched, and the gate allows again.
    assert_eq!(
        after[&format!("{l}/state.json")],
        held[&format!("{l}/state.json")]
    );
    assert_eq!(w.gate(), says("allow", "receipt_valid"));

    // Repaired once: nothing left to repair.
    assert_not_anomalous(&w, &l, RepairClass::ReceiptMismatch);
}

// --- burn ------------------------------------------------------------------

fn burn_request(lineage: &LineageId) -> BurnRequest {
    BurnRequest {
        lineage: lineage.clone(),
        reason: text("delivered in v1.4"),
        actor: text("release bot"),
    }
}

#[test]
fn burn_consumes_an_approved_lineage_and_leaves_its_tombstone() {
    let (w, l) = started();
    let held = w.store.dump();
    let err = drivers::burn(&w.store, &w.clock, burn_request(&l)).unwrap_err();
    assert_err!(
        err,
        ReviewError::Burn(BurnError::NotApproved {
            state: "reviewing",
            ..
        })
    );
    assert_eq!(w.store.dump(), held);

    let approved = w
        .finalize_with(&l, |i| {
            i.results = vec![documents::result(documents::CLEAN)];
            i.evidence = Some(documents::passing_check());
        })
        .unwrap()
        .record;
    let receipt = w.store.read_receipt(&l).unwrap().unwrap();
    assert!(!live_entries(&w.store.dump(), &l).is_empty());
    let tombstone = drivers::burn(&w.store, &w.clock, burn_request(&l)).unwrap();
    assert_eq!(tombstone, format!("consumed/{l}"));
    let after = w.store.dump();
    let t = json(&after[&tombstone]);
    assert_eq!(t["schema"], "probity.consumption/v1");
    assert_eq!(t["lineage_id"], l.as_str());
    assert_eq!(t["revision"], approved.revision().to_string());
    assert_eq!(t["target"], approved.state().snapshot().target.to_string());
    assert_eq!(
        t["receipt_sha256"],
        Sha256Digest::plain(&receipt).to_string()
    );
    assert_eq!(t["reason"], "delivered in v1.4");
    assert!(
        live_entries(&after, &l).is_empty(),
        "the lineage and every index entry naming it are gone"
    );

    // Consumed wherever it is named; an unknown lineage is another answer.
    let consumed = |err: ReviewError| {
        assert_err!(err, ReviewError::Store(StoreError::Consumed { lineage, tombstone: t })
                if *lineage == l && *t == tombstone);
    };
    consumed(drivers::burn(&w.store, &w.clock, burn_request(&l)).unwrap_err());
    consumed(drivers::status(&w.git, &w.store, Some(&l)).unwrap_err());
    consumed(
        drivers::dispute(
            &w.store,
            &w.clock,
            dispute_input(&l, FindingId::new(Lens::Reliability, 1).unwrap(), "x"),
        )
        .unwrap_err(),
    );
    let err = drivers::burn(&w.store, &w.clock, burn_request(&unknown())).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::NotFound(_)));
    assert_eq!(w.store.dump(), after);
    // No index names it: the gate sees no review of its candidate.
    assert_eq!(w.gate(), says("deny", "receipt_missing"));
}

#[test]
fn only_the_leaf_of_a_recovery_chain_is_burned() {
    let w = world();
    let approved = w.approve();
    let successor = recover_onto_fix(&w, &approved);
    let held = w.store.dump();
    let err = drivers::burn(
        &w.store,
        &w.clock,
        burn_request(approved.state().lineage_id()),
    )
    .unwrap_err();
    assert_err!(err, ReviewError::Burn(BurnError::Superseded { leaf, .. })
            if leaf == successor.state().lineage_id());
    assert_eq!(w.store.dump(), held);
    // The leaf, once approved, is burned; its predecessor stays history.
    let leaf = successor.state().lineage_id().clone();
    w.finalize_with(&leaf, |i| {
        i.results = vec![documents::result(documents::CLEAN)];
        i.evidence = Some(documents::passing_check());
    })
    .unwrap();
    drivers::burn(&w.store, &w.clock, burn_request(&leaf)).unwrap();
    assert_eq!(w.load(approved.state().lineage_id()), approved);
}

#[test]
fn a_burn_landing_while_a_gate_decides_leaves_no_allow() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let result =
        drivers::validate_pre_commit_between(&w.git, &w.store, &Delivery::Worktree, &mut || {
            drivers::burn(&w.store, &w.clock, burn_request(&l)).unwrap();
        });
    // The recheck reads the record again and finds it consumed: what the
    // gate read moved, so it answers a denial that says to run it again
    // (not a store error), and the run again denies for the burn.
    let d = result.unwrap();
    assert_eq!(verdict(&d), says("deny", "authority_changed"));
    assert_eq!(d.lineage_id(), Some(&l));
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["next_action"], "retry", "{json}");
    assert_eq!(w.gate(), says("deny", "receipt_missing"));
}

// --- replay_preserved ------------------------------------------------------

/// The artifact `lens submit` preserves when the capture of `payload` for
/// the started lineage fails.
fn preserved(started: &StateRecord, binding: Option<&str>, payload: &[u8]) -> Vec<u8> {
    preserve(
        started.state().lineage_id(),
        &started.state().snapshot().target,
        Lens::Reliability,
        binding,
        text("the lineage's lock was held past the wait"),
        payload,
    )
    .unwrap()
}

#[test]
fn a_preserved_result_is_replayed_into_its_own_candidate_and_finalize_takes_it() {
    let w = world();
    let started = w.start();
    let l = started.state().lineage_id().clone();
    let token = started.state().lens_bindings()[0].token.clone();
    let artifact = documents::named(
        "preserved.json",
        preserved(&started, Some(&token), documents::CLEAN.as_bytes()),
    );
    let replayed = drivers::replay_preserved(&w.git, &w.store, &artifact, None).unwrap();
    assert_eq!(replayed.outcome, Submitted::New);
    assert_eq!(replayed.submitted, vec![Lens::Reliability]);
    assert_eq!(replayed.record, started, "a replay changes no state");
    assert_eq!(
        w.store.submitted_results(&l).unwrap(),
        vec![(Lens::Reliability, documents::CLEAN.as_bytes().to_vec())]
    );
    // Again, naming its lineage: the same bytes are kept once.
    let held = w.store.dump();
    let again = drivers::replay_preserved(&w.git, &w.store, &artifact, Some(&l)).unwrap();
    assert_eq!(again.outcome, Submitted::Existing);
    assert_eq!(w.store.dump(), held);
    // Finalize with no result given takes the replayed one.
    approve_on_evidence(&w.git, &w.store, l.clone());
    assert_eq!(w.gate(), says("allow", "receipt_valid"));
}

#[test]
fn a_preserved_result_is_refused_with_nothing_written() {
    let w = world();
    let started = w.start();
    let bytes = preserved(&started, None, documents::CLEAN.as_bytes());
    let mut v = json(&bytes);
    // Another lineage in the same store, on another repository.
    let git = FakeGit::with_base(&[("src/other.rs", BASE)]).unwrap();
    git.write("src/other.rs", CHANGE).unwrap();
    let other = drivers::start(&git, &w.store, &w.clock, Lens::Reliability)
        .unwrap()
        .record;
    let held = w.store.dump();
    let replay = |name: &str, bytes: Vec<u8>, lineage: Option<&LineageId>| {
        let err =
            drivers::replay_preserved(&w.git, &w.store, &documents::named(name, bytes), lineage)
                .unwrap_err();
        assert_eq!(w.store.dump(), held, "{name} ({err}) wrote");
        err
    };
    let preserved_error = |err: &ReviewError| match err {
        ReviewError::Preserved { source, .. } => (**source).clone(),
        other => panic!("expected a preserved-result refusal, got {other}"),
    };

    // Preserved for another candidate (its target altered).
    let mut other_target = v.clone();
    other_target["target"] = serde_json::json!(format!("sha256:{}", "0".repeat(64)));
    let err = replay("other-target", other_target.to_string().into_bytes(), None);
    assert!(
        matches!(preserved_error(&err), PreservedError::OtherCandidate { .. }),
        "{err}"
    );
    // Replayed into another lineage than it names.
    let err = replay(
        "other-lineage",
        bytes.clone(),
        Some(other.state().lineage_id()),
    );
    assert!(
        matches!(preserved_error(&err), PreservedError::OtherCandidate { .. }),
        "{err}"
    );
    // Into a lineage the store does not hold.
    let err = replay("unknown", bytes.clone(), Some(&unknown()));
    assert_err!(err, ReviewError::Store(StoreError::NotFound(_)));
    // A payload that is not the one its digest names.
    let mut tampered = v.clone();
    tampered["payload"] = serde_json::json!("e30=");
    let err = replay("tampered", tampered.to_string().into_bytes(), None);
    assert_eq!(
        preserved_error(&err),
        PreservedError::PayloadDigest,
        "{err}"
    );
    // Not the artifact's shape.
    v["extra"] = serde_json::json!(1);
    let err = replay("extra", v.to_string().into_bytes(), None);
    assert!(
        matches!(preserved_error(&err), PreservedError::Malformed(_)),
        "{err}"
    );
    let err = replay("a result", documents::CLEAN.as_bytes().to_vec(), None);
    assert!(
        matches!(preserved_error(&err), PreservedError::Malformed(_)),
        "{err}"
    );
    // Over the artifact's bound, refused before it is parsed.
    let big = vec![b' '; (MAX_ROLE_DOCUMENT_BYTES * 2 + 1) as usize];
    let err = replay("big", big, None);
    assert_err!(err, ReviewError::InputTooLarge { .. });
    // A payload that is no valid result pays the full verification.
    let err = replay(
        "not a result",
        preserved(&started, None, br#"{"findings":[],"verdict":"PASS"}"#),
        None,
    );
    assert_err!(
        err,
        ReviewError::MalformedInput {
            role: "reviewer",
            ..
        }
    );
    // A binding that is not the lens's.
    let err = replay(
        "another binding",
        preserved(&started, Some("nope"), documents::CLEAN.as_bytes()),
        None,
    );
    assert_err!(
        err,
        ReviewError::Submission {
            source: PreflightError::BindingMismatch { .. },
            ..
        }
    );
}

// --- start_history ---------------------------------------------------------

/// A history of two commits from a root: `src/a.rs`, then `src/b.rs`.
fn two_commit_history() -> (World, CommitIds) {
    let git = FakeGit::unborn();
    git.write("src/a.rs", CHANGE).unwrap();
    let root = git.commit("root").unwrap();
    git.write("src/b.rs", "fn b() {}\nfn c() {}\n").unwrap();
    let tip = git.commit("more").unwrap();
    let w = World {
        git,
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    };
    (w, CommitIds { root, tip })
}

struct CommitIds {
    root: probity_core::review::CommitId,
    tip: probity_core::review::CommitId,
}

#[test]
fn start_history_freezes_the_whole_history_against_the_empty_tree_and_resumes() {
    let (w, c) = two_commit_history();
    let started =
        drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD").unwrap();
    assert_eq!(started.commit, c.tip);
    assert_eq!(started.parent, None, "the base is the empty tree");
    let s = started.started.unwrap();
    assert!(!s.resumed);
    let snapshot = s.record.state().snapshot();
    assert_eq!(snapshot.base_tree, w.git.empty_tree().unwrap());
    assert_eq!(snapshot.candidate_tree, w.git.commit_tree(&c.tip).unwrap());
    let paths: Vec<&str> = snapshot.paths.iter().map(|p| p.as_str()).collect();
    assert_eq!(paths, ["src/a.rs", "src/b.rs"]);
    assert!(matches!(s.record.state().stage(), Stage::Reviewing));

    // An exact retry resumes, by any name of the commit.
    let held = w.store.dump();
    let again = drivers::start_history(
        &w.git,
        &w.store,
        &w.clock,
        Lens::Reliability,
        c.tip.as_str(),
    )
    .unwrap()
    .started
    .unwrap();
    assert!(again.resumed);
    assert_eq!(again.record, s.record);
    assert_eq!(w.store.dump(), held);

    // The history of the root alone is the root commit's own change: a
    // `start --commit` of it resumes that review.
    let root =
        drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD~1").unwrap();
    assert_eq!((root.commit.clone(), root.parent.clone()), (c.root, None));
    let root = root.started.unwrap();
    assert!(!root.resumed);
    assert_ne!(
        root.record.state().lineage_id(),
        s.record.state().lineage_id()
    );
    let by_commit = drivers::start_commit(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD~1")
        .unwrap()
        .started
        .unwrap();
    assert!(by_commit.resumed);
    assert_eq!(by_commit.record, root.record);
}

#[test]
fn start_history_refuses_what_has_nothing_to_review_with_nothing_written() {
    // A history whose tip holds no file: nothing against the empty tree.
    let git = FakeGit::unborn();
    let empty = git.commit("empty root").unwrap();
    let store = InMemoryStore::new();
    let clock = FixedClock::fixture();
    let err = drivers::start_history(&git, &store, &clock, Lens::Reliability, "HEAD").unwrap_err();
    assert_err!(err, ReviewError::CommitNoChange { commit } if *commit == empty);
    assert!(store.dump().is_empty());

    let (w, _) = two_commit_history();
    // A revision that names no commit.
    let err =
        drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "nope").unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
    // A repository that cannot derive the diff anchor.
    w.git.fail("frozen_diff");
    let err =
        drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD").unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
    assert!(w.store.dump().is_empty());
    w.git.heal("frozen_diff");
    drivers::start_history(&w.git, &w.store, &w.clock, Lens::Reliability, "HEAD").unwrap();
    assert!(!w.store.dump().is_empty());
}

#[test]
fn recover_commit_refuses_a_commit_with_no_change_or_no_name_with_nothing_written() {
    let w = world();
    let pred = w.approve();
    w.git.commit("the approved change").unwrap();
    w.git.commit("empty").unwrap();
    let held = w.store.dump();
    let recover_commit = |rev: &str| {
        drivers::recover_commit(
            &w.git,
            &w.store,
            &w.clock,
            Lens::Reliability,
            pred.state().lineage_id(),
            recover_request(&pred, Disposition::ScopeChanged, "amended", "dev"),
            rev,
        )
    };
    let err = recover_commit("HEAD").unwrap_err();
    assert_err!(err, ReviewError::CommitNoChange { .. });
    let err = recover_commit("nope").unwrap_err();
    assert_err!(err, ReviewError::Repository(_));
    assert_eq!(w.store.dump(), held);
    // The commit that holds the change is recovered.
    let started = recover_commit("HEAD~1").unwrap();
    assert_eq!(
        started.record.state().predecessor().map(|p| &p.lineage_id),
        Some(pred.state().lineage_id())
    );
}

/// A crash at the `replace` of a dispute or an invalidation leaves the
/// lineage's last committed state, and the same call again lands it.
#[test]
fn a_crash_at_a_dispute_or_an_invalidation_leaves_the_last_committed_state() {
    use probity_testkit::{Crash, Faulty, is_injected};
    // A dispute of the blocker in correction.
    let w = world();
    let (l, finding) = in_correction(&w);
    let input = dispute_input(&l, finding, "a false positive");
    let held = w.store.dump();
    let crashing = Faulty::new(w.store, 0, Crash::BeforeReplace);
    let err = drivers::dispute(&crashing, &w.clock, input.clone()).unwrap_err();
    assert_err!(err, ReviewError::Store(e) if is_injected(e));
    let store = crashing.into_inner();
    assert_eq!(store.dump(), held);
    let disputed = drivers::dispute(&store, &w.clock, input).unwrap();
    assert_eq!(disputed.state().stage().name(), "validating");
    // An invalidation of a pristine lineage.
    let w = world();
    let l = w.start().state().lineage_id().clone();
    let held = w.store.dump();
    let crashing = Faulty::new(w.store, 0, Crash::BeforeReplace);
    let reason = NonBlank::parse("the change moved on").unwrap();
    let err = drivers::invalidate(&crashing, &l, reason.clone()).unwrap_err();
    assert_err!(err, ReviewError::Store(e) if is_injected(e));
    let store = crashing.into_inner();
    assert_eq!(store.dump(), held);
    let invalidated = drivers::invalidate(&store, &l, reason).unwrap();
    assert_eq!(invalidated.state().stage().name(), "invalidated");
}

/// The in-memory store keeps the records it parsed (issue 24, D-R151):
/// a load of the same bytes is the same record, and any other bytes,
/// another lineage's valid record included, are read again and refused
/// as before.
#[test]
fn a_record_read_before_does_not_hide_new_bytes() {
    let w = world();
    let l = w.approve().state().lineage_id().clone();
    let first = w.store.load(&l).unwrap().unwrap();
    assert_eq!(w.store.load(&l).unwrap().unwrap(), first);
    let second = second_review(&w);
    let l2 = second.state().lineage_id().clone();
    assert_eq!(w.store.load(&l2).unwrap().unwrap(), second);
    // l's file now holds l2's record: parsed, and refused for its lineage.
    w.store.overwrite_state(&l, second.to_bytes().unwrap());
    let err = w.store.load(&l).unwrap_err();
    assert!(
        matches!(&err, StoreError::Malformed { detail, .. } if detail.contains("holds lineage")),
        "{err:?}"
    );
    // Its own bytes again: the same record.
    w.store.overwrite_state(&l, first.to_bytes().unwrap());
    assert_eq!(w.store.load(&l).unwrap().unwrap(), first);
    w.store.overwrite_state(&l, b"{}".to_vec());
    assert!(matches!(
        w.store.load(&l),
        Err(StoreError::Corrupted { .. })
    ));
}

/// A second review in `w`'s store, of another repository's change.
fn second_review(w: &World) -> StateRecord {
    let git = FakeGit::with_base(&[("src/other.rs", BASE)]).unwrap();
    git.write("src/other.rs", CHANGE).unwrap();
    drivers::start(&git, &w.store, &w.clock, Lens::Reliability)
        .unwrap()
        .record
}
