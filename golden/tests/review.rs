//! Canonical bytes of review authority, pinned: state records, receipts,
//! schemas and a denial. A change here changes what other tools verify.

#[path = "support/approved.rs"]
mod golden_review;

use golden_review::approved;
use probity_core::review::Forecast;
use probity_core::review::Lens;
use probity_core::review::LiveTarget;
use probity_core::review::Receipt;
use probity_core::review::ReviewerResult;
use probity_core::review::SchemaDoc;
use probity_core::review::fixtures;
use probity_core::review::{Authority, decide_pre_commit};
use probity_core::review::{RepoPath, TreeId};
use probity_core::review::{ReviewState, StateRecord};
use serde_json::{Value, json};

fn text(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap()
}

/// The receipt file `s` derives: its receipt's canonical bytes.
fn receipt_file(s: &ReviewState) -> Vec<u8> {
    Receipt::derive(s).unwrap().to_bytes().unwrap()
}

/// `s`'s final candidate on its base, as the live target.
fn final_target(s: &ReviewState) -> LiveTarget {
    LiveTarget::new(
        s.snapshot().base_tree.clone(),
        s.final_candidate_tree().clone(),
    )
}

#[test]
fn state_records_of_the_parser_scenario() {
    let (r0, r1, r2) = approved();
    for (name, s) in [("reviewing", r0), ("validating", r1), ("approved", r2)] {
        let bytes = s.record().unwrap().to_bytes().unwrap();
        // The pinned bytes load back to the same record.
        assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &s);
        insta::assert_snapshot!(format!("state_record_{name}"), text(bytes));
    }
}

/// A lineage started with frozen prompt digests (issue 10): the record
/// names each selected lens's prompt digest, the refuter's and the
/// validator's, and its lens binding is v2, naming the lens's digest.
#[test]
fn a_state_record_with_frozen_prompts_and_its_v2_binding() {
    use probity_core::review::PromptSet;
    let mut input =
        fixtures::start_input(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    input.prompts = Some(PromptSet::builtin().freeze(&input.lenses));
    let s = ReviewState::start(input).unwrap();
    let bytes = s.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &s);
    insta::assert_snapshot!("state_record_reviewing_with_prompts", text(bytes));
    let bindings = s.lens_bindings();
    insta::assert_snapshot!(
        "lens_binding_v2",
        format!("{}\n{}", bindings[0].binding, bindings[0].token)
    );
}

#[test]
fn receipt_of_the_parser_scenario() {
    let (_, _, r2) = approved();
    let receipt = Receipt::derive(&r2).unwrap();
    let bytes = receipt.to_bytes().unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 14, "exactly fourteen fields");
    insta::assert_snapshot!("receipt_approved", text(bytes));
}

#[test]
fn receipt_of_an_escalated_review() {
    let (r0, _, _) = approved();
    let escalating = ReviewerResult::parse(
        br#"{"findings":[{"location":"src/parser.rs:9","severity":"CRITICAL","claim":"new timeout under load","proof_refs":["load test p99"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["ran the load test"]}"#,
    )
    .unwrap();
    let esc = r0
        .accept_results(vec![escalating], &Default::default())
        .unwrap();
    assert_eq!(esc.stage().name(), "escalated");
    insta::assert_snapshot!("receipt_escalated", text(receipt_file(&esc)));
}

/// Evidence that reports a failure escalates (`evidence_failed`): the record
/// keeps the failing evidence's hash and the receipt binds it.
#[test]
fn an_escalation_by_failed_evidence() {
    use probity_core::digest::Sha256Digest;
    use probity_core::review::{CommandRun, ExitOutcome, command_evidence};
    let (_, r1, _) = approved();
    let doc = command_evidence(&CommandRun {
        argv: vec!["cargo".into(), "test".into(), "--locked".into()],
        exit: ExitOutcome::Code(101),
        output_sha256: Sha256Digest::plain(b"test result: FAILED. 41 passed; 1 failed\n"),
        output_bytes: 41,
    })
    .unwrap()
    .bytes;
    let esc = r1.accept_evidence(&doc).unwrap();
    assert_eq!(esc.stage().name(), "escalated");
    let record = esc.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&record).unwrap().state(), &esc);
    let receipt = receipt_file(&esc);
    let state_schema = jsonschema::validator_for(&SchemaDoc::State.schema()).unwrap();
    let receipt_schema = jsonschema::validator_for(&SchemaDoc::Receipt.schema()).unwrap();
    assert!(state_schema.is_valid(&serde_json::from_slice(&record).unwrap()));
    assert!(receipt_schema.is_valid(&serde_json::from_slice(&receipt).unwrap()));
    insta::assert_snapshot!("state_record_escalated_evidence_failed", text(record));
    insta::assert_snapshot!("receipt_escalated_evidence_failed", text(receipt));
}

/// The `probity-command-evidence/v2` document (issue 20): v1's fields and
/// the tree the check ran on, canonical; v1's bytes are unchanged (above).
#[test]
fn a_command_evidence_document_v2_names_its_tree() {
    use probity_core::digest::Sha256Digest;
    use probity_core::review::TreeId;
    use probity_core::review::{CommandRun, ExitOutcome, command_evidence_on};
    let tree = TreeId::parse("4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap();
    let doc = command_evidence_on(
        &CommandRun {
            argv: vec!["cargo".into(), "test".into(), "--locked".into()],
            exit: ExitOutcome::Code(101),
            output_sha256: Sha256Digest::plain(b"test result: FAILED. 41 passed; 1 failed\n"),
            output_bytes: 41,
        },
        &tree,
    )
    .unwrap()
    .bytes;
    insta::assert_snapshot!("command_evidence_v2", text(doc));
}

/// A dispute (R12.6): the record keeps it in the judgment and the receipt
/// lists the disputed finding with the resolved ones.
#[test]
fn a_disputed_finding() {
    use probity_core::digest::Sha256Digest;
    use probity_core::review::{DISPUTE_DOMAIN, Dispute};
    use probity_core::review::{FindingId, NonBlank, Timestamp};
    let s = fixtures::budget_scenario().unwrap();
    let id = s.stage().judgment().unwrap().correction_ids()[0];
    let disputed = s
        .accept_dispute(Dispute {
            finding_id: FindingId::parse(&id.to_string()).unwrap(),
            evidence_hash: Sha256Digest::of(
                DISPUTE_DOMAIN,
                b"TestExpiry reads a fixture this change never touches\n",
            ),
            reason: NonBlank::parse("the failing test does not exercise the change").unwrap(),
            actor: NonBlank::parse("maintainer").unwrap(),
            authorization: NonBlank::parse("OPS-7, approved by the lead").unwrap(),
            disputed_at: Timestamp::from_unix_seconds(1_796_000_100),
        })
        .unwrap();
    let approved = disputed
        .accept_evidence(b"cargo test: 80 passed\n")
        .unwrap();
    let record = disputed.record().unwrap().to_bytes().unwrap();
    let state_schema = jsonschema::validator_for(&SchemaDoc::State.schema()).unwrap();
    assert!(state_schema.is_valid(&serde_json::from_slice(&record).unwrap()));
    insta::assert_snapshot!("state_record_disputed", text(record));
    insta::assert_snapshot!(
        "receipt_approved_with_a_dispute",
        text(receipt_file(&approved))
    );
}

/// The documents the authority's maintenance writes: a preserved result
/// (R3.6), a repair audit record (R9.4) and a consumption tombstone
/// (R10.5), pinned as canonical bytes.
#[test]
fn maintenance_documents() {
    use probity_core::digest::Sha256Digest;
    use probity_core::review::{
        BurnRequest, QuarantinedFile, RepairClass, RepairRequest, Survey, audit_record,
        consumption_tombstone, prove_unique,
    };
    use probity_core::review::{NonBlank, Timestamp};
    let (r0, _, r2) = approved();
    let nb = |s: &str| NonBlank::parse(s).unwrap();
    let preserved = probity_core::review::preserve(
        r0.lineage_id(),
        &r0.snapshot().target,
        Lens::Reliability,
        Some("lbt1-0123456789abcdef0123"),
        nb("lineage review-1 is locked by another writer (waited 5000 ms)"),
        br#"{"findings":[],"evidence":["read the whole candidate diff"]}"#,
    )
    .unwrap();
    insta::assert_snapshot!("preserved_result", text(preserved));
    let request = RepairRequest {
        lineage: r2.lineage_id().clone(),
        class: RepairClass::CorruptedRecord,
        reason: nb("a sync tool overwrote the record"),
        actor: nb("maintainer"),
        authorization: nb("OPS-12, approved by the lead"),
    };
    let proof = prove_unique(
        r2.lineage_id(),
        &Survey {
            class: RepairClass::CorruptedRecord,
            scanned: 3,
            anomalies: vec![r2.lineage_id().clone()],
            complete: true,
        },
    )
    .unwrap();
    let audit = audit_record(
        &request,
        &proof,
        &Timestamp::from_unix_seconds(1_796_000_300),
        &[QuarantinedFile {
            path: format!("{}/state.json", r2.lineage_id()),
            sha256: Sha256Digest::plain(b"garbage"),
            bytes: 7,
        }],
    )
    .unwrap();
    insta::assert_snapshot!("repair_audit_record", text(audit));
    let receipt = receipt_file(&r2);
    let tombstone = consumption_tombstone(
        &BurnRequest {
            lineage: r2.lineage_id().clone(),
            reason: nb("delivered in v1.4"),
            actor: nb("release bot"),
        },
        &r2.record().unwrap(),
        None,
        &receipt,
        &Timestamp::from_unix_seconds(1_796_000_400),
    )
    .unwrap();
    insta::assert_snapshot!("consumption_tombstone", text(tombstone));
}

#[test]
fn schemas() {
    for doc in SchemaDoc::ALL {
        let s = serde_json::to_string_pretty(&doc.schema()).unwrap();
        insta::assert_snapshot!(format!("schema_{}", doc.name()), s);
    }
}

#[test]
fn a_scope_changed_denial() {
    let (_, _, r2) = approved();
    let live = LiveTarget::new(
        r2.snapshot().base_tree.clone(),
        TreeId::parse("1111111111111111111111111111111111111111").unwrap(),
    );
    let differing = vec![RepoPath::parse("src/parser.rs").unwrap()];
    let d = decide_pre_commit(
        &live,
        Authority::Prior {
            state: &r2,
            differing_paths: &differing,
            superseded_by: None,
        },
    );
    insta::assert_snapshot!(
        "denial_scope_changed",
        serde_json::to_string_pretty(&d).unwrap()
    );
}

#[test]
fn a_pre_push_denial_with_its_deliveries() {
    use probity_core::review::CommitId;
    use probity_core::review::{
        DeliveredRange, Gate, RangeCommit, combine_deliveries, decide_target, delivery_commit,
    };
    let (_, _, r2) = approved();
    let commit = |s: &str| CommitId::parse(s).unwrap();
    let delivered = RangeCommit {
        commit: commit("2222222222222222222222222222222222222222"),
        tree: r2.final_candidate_tree().clone(),
        parents: vec![commit("3333333333333333333333333333333333333333")],
    };
    let one = DeliveredRange {
        refs: vec!["refs/heads/main".into(), "refs/heads/feature".into()],
        tip: delivered.commit.clone(),
        commits: vec![delivered],
        count: 1,
        problem: None,
    };
    let live = final_target(&r2);
    assert!(delivery_commit(Gate::PrePush, &one).is_ok());
    let allowed = decide_target(
        Gate::PrePush,
        &live,
        Authority::Exact {
            state: &r2,
            receipt_file: Some(&receipt_file(&r2)),
            superseded_by: None,
        },
    );
    let two = DeliveredRange {
        refs: vec!["refs/heads/wip".into()],
        tip: commit("4444444444444444444444444444444444444444"),
        commits: vec![RangeCommit {
            commit: commit("4444444444444444444444444444444444444444"),
            tree: r2.final_candidate_tree().clone(),
            parents: vec![commit("5555555555555555555555555555555555555555")],
        }],
        count: 3,
        problem: None,
    };
    let Err(partial) = delivery_commit(Gate::PrePush, &two) else {
        panic!("three commits are not one delivery")
    };
    let d = combine_deliveries(Gate::PrePush, vec![(one, allowed), (two, partial)]);
    insta::assert_snapshot!(
        "denial_pre_push_partial",
        serde_json::to_string_pretty(&d).unwrap()
    );
}

#[test]
fn an_invalidated_review_and_its_successor() {
    use probity_core::review::NonBlank;
    use probity_core::review::{Disposition, RecoverRequest, successor};
    let (r0, _, _) = approved();
    let inv = r0
        .invalidate(NonBlank::parse("started on the wrong branch").unwrap())
        .unwrap()
        .record()
        .unwrap();
    let next = successor(
        &inv,
        RecoverRequest {
            expected_revision: inv.revision(),
            disposition: Disposition::Invalidated,
            reason: NonBlank::parse("review it again").unwrap(),
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
    for (name, rec) in [
        ("state_record_invalidated", &inv),
        ("state_record_successor", &next),
    ] {
        let bytes = rec.to_bytes().unwrap();
        assert_eq!(StateRecord::from_bytes(&bytes).unwrap(), *rec);
        insta::assert_snapshot!(name, String::from_utf8(bytes).unwrap());
    }
}

#[test]
fn a_receipt_as_an_in_toto_statement() {
    use probity_core::review::{manifest_bytes, statement, statement_bytes};
    let (_, _, r2) = approved();
    let receipt = Receipt::derive(&r2).unwrap();
    let entries = fixtures::parser_manifest_entries();
    let manifest = manifest_bytes(&receipt, entries).unwrap();
    insta::assert_snapshot!(
        "candidate_manifest",
        String::from_utf8(manifest.clone()).unwrap()
    );
    let bytes = statement_bytes(&statement(&receipt, &manifest)).unwrap();
    insta::assert_snapshot!("in_toto_statement", String::from_utf8(bytes).unwrap());
}

/// Parsing and the printed schema agree, both ways.
#[test]
fn reviewer_schema_and_parser_agree() {
    let schema = SchemaDoc::Reviewer.schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let finding = |extra: Value| {
        let mut f = json!({"location": "a.rs:1", "severity": "CRITICAL", "claim": "c", "proof_refs": ["p"],
                           "evidence_class": "deterministic", "causal_disposition": "introduced"});
        for (k, v) in extra.as_object().unwrap() {
            if v.is_null() {
                f.as_object_mut().unwrap().remove(k);
            } else {
                f[k] = v.clone();
            }
        }
        f
    };
    let docs = [
        json!({"findings": [], "evidence": ["x"]}),
        json!({"evidence": ["x"]}),
        json!({"findings": [finding(json!({}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"severity": "WARNING", "evidence_class": null, "causal_disposition": null, "proof_refs": null}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"evidence_class": null}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"causal_disposition": null}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"proof_refs": []}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"proof_refs": [" "]}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"severity": "MAJOR"}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"causal_disposition": "maybe"}))], "evidence": ["x"]}),
        json!({"findings": [finding(json!({"id": "R3-001"}))], "evidence": ["x"]}),
        json!({"findings": [], "evidence": []}),
        json!({"findings": [], "evidence": [""]}),
        json!({"findings": [], "evidence": ["\t\n"]}),
        json!({"findings": [], "evidence": ["x"], "lens": "risk"}),
        json!({"findings": vec![finding(json!({"severity": "WARNING"})); 999], "evidence": ["x"]}),
        json!({"findings": vec![finding(json!({"severity": "WARNING"})); 1000], "evidence": ["x"]}),
        json!({"findings": []}),
        json!([]),
    ];
    for doc in docs {
        let parsed = ReviewerResult::parse(doc.to_string().as_bytes()).is_ok();
        assert_eq!(
            parsed,
            validator.is_valid(&doc),
            "parser and schema disagree on {doc}"
        );
    }
}

/// Stored records and receipts validate against their printed schemas.
#[test]
fn state_and_receipt_documents_match_their_schemas() {
    let (r0, r1, r2) = approved();
    let state_schema = jsonschema::validator_for(&SchemaDoc::State.schema()).unwrap();
    for s in [&r0, &r1, &r2] {
        let v: Value = serde_json::from_slice(&s.record().unwrap().to_bytes().unwrap()).unwrap();
        assert!(state_schema.is_valid(&v), "{v}");
    }
    let receipt_schema = jsonschema::validator_for(&SchemaDoc::Receipt.schema()).unwrap();
    let v: Value = serde_json::from_slice(&receipt_file(&r2)).unwrap();
    assert!(receipt_schema.is_valid(&v));
    let mut extra = v.clone();
    extra["ledger_hash"] = json!("x");
    assert!(
        !receipt_schema.is_valid(&extra),
        "a fifteenth field must be refused"
    );
}

/// R5.6: the payments diff's four routes, and the escalated record.
#[test]
fn payments_four_routes() {
    let (state, results, facts) = fixtures::payments_scenario().unwrap();
    let next = state.accept_results(results, &facts).unwrap();
    let routes: Vec<Value> = next
        .stage()
        .judgment()
        .unwrap()
        .routed()
        .map(|(f, r)| json!({"id": f.id, "severity": f.severity, "route": r}))
        .collect();
    insta::assert_snapshot!(
        "payments_routes",
        serde_json::to_string_pretty(&routes).unwrap()
    );
    insta::assert_snapshot!(
        "payments_state_record",
        text(next.record().unwrap().to_bytes().unwrap())
    );
}

/// R6.8: the 120-line budget example, both branches, byte-pinned.
#[test]
fn budget_example_120_lines() {
    use fixtures::{fix, validation};
    let s = fixtures::budget_scenario().unwrap();
    let s2 = s
        .accept_forecast(Forecast::new(20).unwrap())
        .unwrap()
        .accept_validation(fix(1, 18), validation(false))
        .unwrap();
    let s3 = s2
        .accept_forecast(Forecast::new(25).unwrap())
        .unwrap()
        .accept_validation(fix(2, 22), validation(false))
        .unwrap();
    let over = s3.accept_forecast(Forecast::new(25).unwrap()).unwrap();
    let third = s3
        .accept_forecast(Forecast::new(15).unwrap())
        .unwrap()
        .accept_validation(fix(3, 14), validation(false))
        .unwrap();
    insta::assert_snapshot!(
        "budget_after_two_failures",
        text(s3.record().unwrap().to_bytes().unwrap())
    );
    insta::assert_snapshot!(
        "budget_forecast_over",
        text(over.record().unwrap().to_bytes().unwrap())
    );
    insta::assert_snapshot!(
        "budget_third_failure",
        text(third.record().unwrap().to_bytes().unwrap())
    );
}

/// A corrected, approved review's receipt: initial ≠ final tree.
#[test]
fn receipt_after_correction() {
    use fixtures::{fix, validation};
    let s = fixtures::budget_scenario().unwrap();
    let approved = s
        .accept_forecast(Forecast::new(10).unwrap())
        .unwrap()
        .accept_validation(fix(7, 9), validation(true))
        .unwrap()
        .accept_evidence(b"cargo test: 50 passed, 0 failed\n")
        .unwrap();
    insta::assert_snapshot!("receipt_corrected", text(receipt_file(&approved)));
}

/// The refuter and validator schemas agree with their parsers.
#[test]
fn refuter_and_validator_schemas_agree_with_parsers() {
    use probity_core::review::{RefuterResult, ValidatorResult};
    let refuter = jsonschema::validator_for(&SchemaDoc::Refuter.schema()).unwrap();
    let o = |id: &str, outcome: &str, ev: Value| json!({"finding_id": id, "outcome": outcome, "evidence": ev});
    for doc in [
        json!({"outcomes": [o("R3-001", "refuted", json!(["x"]))]}),
        json!({"outcomes": [o("R3-001", "refuted", json!(["x"])), o("R1-002", "corroborated", json!(["y"]))]}),
        json!({"outcomes": []}),
        json!({"outcomes": [o("R3-001", "refuted", json!([]))]}),
        json!({"outcomes": [o("R3-001", "refuted", json!([" "]))]}),
        json!({"outcomes": [o("R9-001", "refuted", json!(["x"]))]}),
        json!({"outcomes": [o("R3-000", "refuted", json!(["x"]))]}),
        json!({"outcomes": [o("R3-1000", "refuted", json!(["x"]))]}),
        json!({"outcomes": [o("R3-001", "maybe", json!(["x"]))]}),
        json!({"outcomes": [o("R3-001", "refuted", json!(["x"]))], "extra": 1}),
    ] {
        assert_eq!(
            RefuterResult::parse(doc.to_string().as_bytes()).is_ok(),
            refuter.is_valid(&doc),
            "refuter: {doc}"
        );
    }
    // The one rule JSON Schema cannot state: a finding named twice (with
    // different outcomes). The schema says so in its description; the
    // parser refuses it.
    let twice = json!({"outcomes": [o("R3-001", "refuted", json!(["x"])), o("R3-001", "corroborated", json!(["y"]))]});
    assert!(RefuterResult::parse(twice.to_string().as_bytes()).is_err());
    assert!(
        SchemaDoc::Refuter.schema()["properties"]["outcomes"]["description"]
            .as_str()
            .unwrap()
            .contains("only once")
    );
    let validator = jsonschema::validator_for(&SchemaDoc::Validator.schema()).unwrap();
    let c = |p: bool, ev: Value| json!({"passed": p, "evidence": ev});
    for doc in [
        json!({"original_criteria": c(true, json!(["a"])), "correction_regression": c(false, json!(["b"])), "follow_ups": []}),
        json!({"original_criteria": c(true, json!(["a"])), "correction_regression": c(true, json!(["b"]))}),
        json!({"original_criteria": c(true, json!([])), "correction_regression": c(true, json!(["b"]))}),
        json!({"original_criteria": c(true, json!(["a"]))}),
        json!({"original_criteria": c(true, json!(["a"])), "correction_regression": c(true, json!(["b"])), "follow_ups": [""]}),
        json!({"original_criteria": {"passed": "yes", "evidence": ["a"]}, "correction_regression": c(true, json!(["b"]))}),
    ] {
        assert_eq!(
            ValidatorResult::parse(doc.to_string().as_bytes()).is_ok(),
            validator.is_valid(&doc),
            "validator: {doc}"
        );
    }
}

#[test]
fn a_rebased_allow_names_its_proof() {
    use probity_core::review::{Gate, decide_target};
    use probity_core::review::{GateProof, ProofKind, RebaseCheck};
    let (_, _, r2) = approved();
    let live_base = TreeId::parse("2222222222222222222222222222222222222222").unwrap();
    let live = LiveTarget::new(
        live_base.clone(),
        TreeId::parse("1111111111111111111111111111111111111111").unwrap(),
    );
    let check = RebaseCheck::Proven(GateProof {
        kind: ProofKind::RebasedOnto,
        receipt_base: r2.snapshot().base_tree.clone(),
        live_base,
        chain: Vec::new(),
    });
    let d = decide_target(
        Gate::PrePush,
        &live,
        Authority::Rebased {
            state: &r2,
            receipt_file: Some(&receipt_file(&r2)),
            superseded_by: None,
            check: &check,
        },
    );
    insta::assert_snapshot!(
        "allow_rebased_onto",
        serde_json::to_string_pretty(&d).unwrap()
    );
}

#[test]
fn the_delta_identity_of_a_fixed_delta() {
    use probity_core::review::FileMode;
    use probity_core::review::ObjectId;
    use probity_core::review::{DeltaEntry, EntrySide, TreeDelta};
    let side = |mode, o: &str| {
        Some(EntrySide {
            mode,
            object: ObjectId::parse(o).unwrap(),
        })
    };
    let delta = TreeDelta::new(vec![
        DeltaEntry {
            path: RepoPath::parse("src/parser.rs").unwrap(),
            base: side(
                FileMode::Regular,
                "1111111111111111111111111111111111111111",
            ),
            candidate: side(
                FileMode::Regular,
                "2222222222222222222222222222222222222222",
            ),
        },
        DeltaEntry {
            path: RepoPath::parse("bin/run").unwrap(),
            base: None,
            candidate: side(
                FileMode::Executable,
                "3333333333333333333333333333333333333333",
            ),
        },
    ])
    .unwrap();
    let keys: Vec<String> = delta
        .entry_identities()
        .iter()
        .map(|(k, e)| format!("{} {}", e.path, k))
        .collect();
    insta::assert_snapshot!(
        "delta_identity",
        format!("delta {}\n{}", delta.identity(), keys.join("\n"))
    );
}

#[test]
fn bundle_of_the_parser_scenario() {
    use probity_core::review::Bundle;
    let (_, _, r2) = approved();
    let bundle = Bundle::build(vec![r2.record().unwrap()], Vec::new()).unwrap();
    let bytes = bundle.to_bytes().unwrap();
    // The pinned bytes verify and load back to the same bundle.
    assert_eq!(Bundle::from_bytes(&bytes).unwrap(), bundle);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let schema = jsonschema::validator_for(&SchemaDoc::Bundle.schema()).unwrap();
    assert!(
        schema.is_valid(&v),
        "the bundle validates against its schema"
    );
    insta::assert_snapshot!("bundle_approved", text(bytes));
}

/// The successor of `pred` (scope changed) reviewing one more change on
/// top of `pred`'s final candidate, approved.
fn stitched_successor(pred: &ReviewState) -> ReviewState {
    use probity_core::review::CandidateObservation;
    use probity_core::review::NonBlank;
    use probity_core::review::{Disposition, RecoverRequest, ScopeEvidence, successor};
    let obs = CandidateObservation {
        base_tree: pred.final_candidate_tree().clone(),
        candidate_tree: TreeId::parse("2222222222222222222222222222222222222222").unwrap(),
        unborn_head: false,
        changed: vec![fixtures::text_change(
            "src/parser.rs",
            3,
            1,
            "fn yet_more() {}\n",
        )],
        intended_untracked: Vec::new(),
    };
    let record = pred.record().unwrap();
    let differing = [RepoPath::parse("src/parser.rs").unwrap()];
    successor(
        &record,
        RecoverRequest {
            expected_revision: record.revision(),
            disposition: Disposition::ScopeChanged,
            reason: NonBlank::parse("more work on the parser").unwrap(),
            actor: NonBlank::parse("dev").unwrap(),
            authorization: None,
        },
        ScopeEvidence {
            differing_paths: &differing,
            owned_by_chain: false,
        },
        fixtures::start_input(&obs, Lens::Reliability).unwrap(),
    )
    .unwrap()
    .accept_results(vec![fixtures::clean_result()], &Default::default())
    .unwrap()
    .accept_evidence(b"cargo test: 43 passed, 0 failed\n")
    .unwrap()
}

/// R8.9: the allow a recovery chain gives a delivery of its first segment
/// (the `recovery_chain` proof naming the run), and the denial it started
/// from.
#[test]
fn a_recovery_chain_allow_names_its_run() {
    use probity_core::review::{ChainLink, Gate, decide_target, rebind};
    let (_, _, l1) = approved();
    let l2 = stitched_successor(&l1);
    let (r1, r2) = (receipt_file(&l1), receipt_file(&l2));
    let live = final_target(&l1);
    let denied = decide_target(
        Gate::PrePush,
        &live,
        Authority::Exact {
            state: &l1,
            receipt_file: Some(&r1),
            superseded_by: Some(l2.lineage_id()),
        },
    );
    insta::assert_snapshot!(
        "denial_receipt_superseded",
        serde_json::to_string_pretty(&denied).unwrap()
    );
    let chain = [
        ChainLink {
            state: &l1,
            receipt_file: Some(&r1),
        },
        ChainLink {
            state: &l2,
            receipt_file: Some(&r2),
        },
    ];
    let d = rebind(Gate::PrePush, &live, denied, &chain);
    insta::assert_snapshot!(
        "allow_recovery_chain",
        serde_json::to_string_pretty(&d).unwrap()
    );
}

/// R8.8: a first publication of a whole reviewed history (the
/// `first_publication` proof), and the denial when the history carries a
/// blob the reviewed tree does not (`history_not_reviewed`, naming it and
/// the squash).
#[test]
fn a_first_publication_allow_and_its_history_denial() {
    use probity_core::review::{
        BlobsOutside, DeliveredRange, Gate, RangeCommit, RangeJudgment, decide_target,
        judge_first_publication,
    };
    use probity_core::review::{CommitId, ObjectId};
    let empty = TreeId::parse("4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap();
    // The whole history reviewed as one change: from the empty tree.
    let mut whole_history = fixtures::parser_observation();
    whole_history.base_tree = empty.clone();
    let r2 = fixtures::start(&whole_history, Lens::Reliability)
        .unwrap()
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .unwrap();
    let commit = |n: u8| CommitId::parse(format!("{n:040x}")).unwrap();
    let history: Vec<RangeCommit> = (1..=3u8)
        .map(|i| RangeCommit {
            commit: commit(i),
            tree: if i == 3 {
                r2.final_candidate_tree().clone()
            } else {
                TreeId::parse(format!("{i:039x}f")).unwrap()
            },
            parents: if i == 1 {
                Vec::new()
            } else {
                vec![commit(i - 1)]
            },
        })
        .collect();
    let range = DeliveredRange {
        refs: vec!["refs/heads/main".into()],
        tip: commit(3),
        commits: history.iter().rev().cloned().collect(),
        count: history.len(),
        problem: None,
    };
    let oldest_first: Vec<&RangeCommit> = history.iter().collect();
    // What the commit-by-commit judgment said: no review of the root.
    let stack = || {
        RangeJudgment::boundary(decide_target(
            Gate::PrePush,
            &LiveTarget::new(empty.clone(), history[0].tree.clone()),
            Authority::None { changed_paths: &[] },
        ))
    };
    // The whole history's review: (empty tree, the tip's tree).
    let whole = decide_target(
        Gate::PrePush,
        &final_target(&r2),
        Authority::Exact {
            state: &r2,
            receipt_file: Some(&receipt_file(&r2)),
            superseded_by: None,
        },
    );
    let allowed = judge_first_publication(
        Gate::PrePush,
        &range,
        &oldest_first,
        stack(),
        whole.clone(),
        &empty,
        Some(&BlobsOutside::default()),
    );
    insta::assert_snapshot!(
        "allow_first_publication",
        serde_json::to_string_pretty(&allowed.decision).unwrap()
    );
    let outside = BlobsOutside {
        blobs: vec![(
            ObjectId::parse("d97c5eada5d8c52079031eef0107a4430a9617c5").unwrap(),
            "config/keys.txt".into(),
        )],
        more: false,
    };
    let denied = judge_first_publication(
        Gate::PrePush,
        &range,
        &oldest_first,
        stack(),
        whole,
        &empty,
        Some(&outside),
    );
    insta::assert_snapshot!(
        "denial_history_not_reviewed",
        serde_json::to_string_pretty(&denied.decision).unwrap()
    );
}
