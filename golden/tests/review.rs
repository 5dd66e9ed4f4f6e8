//! Canonical bytes of review authority, pinned: state records, receipts,
//! schemas and a denial. A change here changes what other tools verify.

use probity_core::review::finding::ReviewerResult;
use probity_core::review::fixtures;
use probity_core::review::gate::{Authority, decide_pre_commit};
use probity_core::review::ids::{RepoPath, TreeId};
use probity_core::review::lens::Lens;
use probity_core::review::receipt::Receipt;
use probity_core::review::schema::SchemaDoc;
use probity_core::review::snapshot::LiveTarget;
use probity_core::review::state::{ReviewState, StateRecord};
use serde_json::{Value, json};

fn text(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap()
}

fn approved() -> (ReviewState, ReviewState, ReviewState) {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let r1 = r0.accept_results(vec![fixtures::clean_result()]).unwrap();
    let r2 = r1
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .unwrap();
    (r0, r1, r2)
}

#[test]
fn state_records_of_the_parser_scenario() {
    let (r0, r1, r2) = approved();
    for (name, s) in [("reviewing", r0), ("validating", r1), ("approved", r2)] {
        let bytes = s.record().unwrap().to_bytes().unwrap();
        // The pinned bytes load back to the same record.
        assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state, s);
        insta::assert_snapshot!(format!("state_record_{name}"), text(bytes));
    }
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
    let esc = r0.accept_results(vec![escalating]).unwrap();
    assert_eq!(esc.stage.name(), "escalated");
    insta::assert_snapshot!(
        "receipt_escalated",
        text(Receipt::derive(&esc).unwrap().to_bytes().unwrap())
    );
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
        r2.snapshot.base_tree.clone(),
        TreeId::parse("1111111111111111111111111111111111111111").unwrap(),
    );
    let differing = vec![RepoPath::parse("src/parser.rs").unwrap()];
    let d = decide_pre_commit(
        &live,
        Authority::Prior {
            state: &r2,
            differing_paths: &differing,
        },
    );
    insta::assert_snapshot!(
        "denial_scope_changed",
        serde_json::to_string_pretty(&d).unwrap()
    );
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
    let v: Value =
        serde_json::from_slice(&Receipt::derive(&r2).unwrap().to_bytes().unwrap()).unwrap();
    assert!(receipt_schema.is_valid(&v));
    let mut extra = v.clone();
    extra["ledger_hash"] = json!("x");
    assert!(
        !receipt_schema.is_valid(&extra),
        "a fifteenth field must be refused"
    );
}
