//! The reports people read (issue 22 §4), pinned: the Markdown report,
//! the SARIF log and the `probity log` timeline of one fixed recovery
//! chain. The SARIF log is validated against the official OASIS SARIF
//! 2.1.0 JSON schema (vendored byte for byte under tests/fixtures, with its
//! source and notice, D-R108) by the `jsonschema` crate, and by
//! `check-jsonschema` (a validator this project did not write) when
//! `PROBITY_CHECK_JSONSCHEMA` names it (.ci/run does).

use probity_core::digest::Sha256Digest;
use probity_core::review::Forecast;
use probity_core::review::Lens;
use probity_core::review::fixtures;
use probity_core::review::{ChainEntry, CheckSummary, Report};
use probity_core::review::{CommandRun, ExitOutcome, command_evidence_on};
use probity_core::review::{CommitId, LineageId, NonBlank};
use probity_core::review::{Disposition, RecoverRequest, ScopeEvidence, successor};
use probity_core::review::{RefuterResult, ReviewerResult};
use serde_json::Value;

const SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/sarif-schema-2.1.0.json"
);

/// The official OASIS SARIF 2.1.0 (errata01) schema's SHA-256: the bytes
/// of `sarif-2.1/schema/sarif-schema-2.1.0.json` in oasis-tcs/sarif-spec
/// at e0583813964ec43cea53b6b531b402866095ed1f (D-R108).
const OFFICIAL_SHA256: &str = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e";

/// The vendored schema is the official one, byte for byte, with the OASIS
/// notice its redistribution requires beside it.
#[test]
fn the_vendored_schema_is_the_official_oasis_file() {
    let bytes = std::fs::read(SCHEMA).unwrap();
    assert_eq!(Sha256Digest::plain(&bytes).hex(), OFFICIAL_SHA256);
    let schema: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        schema["id"],
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    );
    let notice = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sarif-schema-2.1.0.NOTICE.md"
    ))
    .unwrap();
    assert!(notice.contains("Copyright © OASIS Open"), "{notice}");
    assert!(
        notice.contains("may be copied and furnished to"),
        "{notice}"
    );
    assert!(
        notice.contains("e0583813964ec43cea53b6b531b402866095ed1f"),
        "{notice}"
    );
}

/// Generation 1: the R5.6 payments scenario, escalated (a severe finding
/// with unknown causality). Generation 2: its successor, authorized by a
/// maintainer; a blocker corrected, an inferential finding refuted, a
/// warning whose text tries to inject Markdown; approved by a passing
/// check on the corrected tree, signed, delivered.
fn chain() -> (Vec<ChainEntry>, LineageId, LineageId) {
    let (state, results, facts) = fixtures::payments_scenario().unwrap();
    let g1 = state.accept_results(results, &facts).unwrap();
    assert_eq!(g1.stage().name(), "escalated");
    let g1 = g1.record().unwrap();
    let input = fixtures::start_input(&payments_observation(), Lens::Reliability).unwrap();
    let g2 = successor(
        &g1,
        RecoverRequest {
            expected_revision: g1.revision(),
            disposition: Disposition::EscalationAuthorized,
            reason: NonBlank::parse("the timeout was the load rig's; review again").unwrap(),
            actor: NonBlank::parse("maintainer").unwrap(),
            authorization: Some(NonBlank::parse("OPS-9, approved by the lead").unwrap()),
        },
        ScopeEvidence {
            differing_paths: &[],
            owned_by_chain: false,
        },
        input,
    )
    .unwrap();
    let lens1 = ReviewerResult::parse(
        br#"{"findings":[
          {"location":"src/payments/charge.rs:14","severity":"BLOCKER","claim":"the candidate accepts a negative amount","proof_refs":["TestNegativeAmount fails on candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"},
          {"location":"src/payments/charge.rs:12-13","severity":"CRITICAL","claim":"the amount may overflow","proof_refs":["i64 arithmetic"],"evidence_class":"inferential","causal_disposition":"introduced"},
          {"location":"src/payments/charge.rs:3","severity":"WARNING","claim":"<b>bold</b> | [click](http://x) @admin `x`","proof_refs":["src/payments/charge.rs:3"]}
        ],"evidence":["ran TestNegativeAmount"]}"#,
    )
    .unwrap();
    let clean =
        || ReviewerResult::parse(br#"{"findings":[],"evidence":["read the diff"]}"#).unwrap();
    let judged = g2
        .accept_results(vec![lens1, clean(), clean(), clean()], &facts)
        .unwrap();
    let refuted = judged
        .accept_refuter(
            RefuterResult::parse(
                br#"{"outcomes":[{"finding_id":"R1-002","outcome":"refuted","evidence":["amounts are bounded by the caller"]}]}"#,
            )
            .unwrap(),
        )
        .unwrap();
    let corrected = refuted
        .accept_forecast(Forecast::new(6).unwrap())
        .unwrap()
        .accept_validation(fix(), fixtures::validation(true))
        .unwrap();
    let tree = corrected.final_candidate_tree().clone();
    let argv = vec!["cargo".to_string(), "test".into(), "--locked".into()];
    let evidence = command_evidence_on(
        &CommandRun {
            argv: argv.clone(),
            exit: ExitOutcome::Code(0),
            output_sha256: Sha256Digest::plain(b"test result: ok. 42 passed\n"),
            output_bytes: 27,
        },
        &tree,
    )
    .unwrap();
    let approved = corrected.accept_evidence(&evidence.bytes).unwrap();
    assert_eq!(approved.stage().name(), "approved");
    let g2 = approved.record().unwrap();
    let evidence_hash = match g2.state().stage() {
        probity_core::review::Stage::Approved { evidence_hash, .. } => *evidence_hash,
        other => panic!("not approved: {}", other.name()),
    };
    let (l1, l2) = (
        g1.state().lineage_id().clone(),
        g2.state().lineage_id().clone(),
    );
    let chain = vec![
        ChainEntry {
            record: g1,
            commit: None,
            check: None,
            signers: vec![],
        },
        ChainEntry {
            record: g2,
            commit: Some(CommitId::parse("c0ffee0000000000000000000000000000000042").unwrap()),
            check: Some(CheckSummary {
                argv,
                tree,
                exit: "exit status 0".into(),
                passed: true,
                evidence_hash,
            }),
            signers: vec!["SHA256:uJr1TlKmtlxLJNxGfc0mDj7mH1aTLVfgnOSzAh6wbWA".into()],
        },
    ];
    (chain, l1, l2)
}

/// The payments observation again (the successor reviews the same change).
fn payments_observation() -> probity_core::review::CandidateObservation {
    probity_core::review::CandidateObservation {
        base_tree: probity_core::review::TreeId::parse("5d1c2a0e6f0b6a1e3b1f7a8c9d0e1f2a3b4c5d6e")
            .unwrap(),
        candidate_tree: probity_core::review::TreeId::parse(
            "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d",
        )
        .unwrap(),
        unborn_head: false,
        changed: vec![fixtures::text_change(
            "src/payments/charge.rs",
            24,
            6,
            "pub fn charge(amount: i64) {}\n",
        )],
        intended_untracked: vec![],
    }
}

fn fix() -> probity_core::review::FixMeasurement {
    probity_core::review::FixMeasurement {
        to_tree: probity_core::review::TreeId::parse("00000000000000000000000000000000000000f1")
            .unwrap(),
        paths: vec![probity_core::review::RepoPath::parse("src/payments/charge.rs").unwrap()],
        actual_lines: 5,
        tier: probity_core::review::RiskLevel::Low,
    }
}

#[test]
fn the_markdown_report_of_a_recovered_approved_review() {
    let (chain, _, l2) = chain();
    let md = Report::new(&l2, chain).unwrap().markdown();
    // Reviewer text reaches the comment escaped: no HTML, link or mention.
    assert!(!md.contains("<b>") && !md.contains("](http") && !md.contains("@admin"));
    insta::assert_snapshot!("report_markdown_approved", md);
}

#[test]
fn the_markdown_report_of_the_superseded_generation() {
    let (chain, l1, _) = chain();
    let md = Report::new(&l1, chain).unwrap().markdown();
    assert!(md.contains("superseded"));
    insta::assert_snapshot!("report_markdown_superseded", md);
}

#[test]
fn the_timeline_of_the_chain() {
    let (chain, _, l2) = chain();
    let report = Report::new(&l2, chain).unwrap();
    insta::assert_snapshot!("log_timeline_text", report.timeline_text());
    insta::assert_snapshot!(
        "log_timeline_json",
        serde_json::to_string_pretty(&report.timeline()).unwrap()
    );
}

/// The vendored schema as both validators read it: the official file as
/// it is (the npm copy used before needed its two `language` patterns
/// mended; this one does not, D-R108).
fn schema_text() -> String {
    std::fs::read_to_string(SCHEMA).unwrap()
}

fn sarif_of(lineage: &LineageId) -> Value {
    let (chain, _, _) = chain();
    Report::new(lineage, chain).unwrap().sarif("0.0.0-golden")
}

#[test]
fn the_sarif_log_is_valid_sarif_2_1_0() {
    let schema: Value = serde_json::from_str(&schema_text()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (_, l1, l2) = chain();
    for lineage in [&l1, &l2] {
        let sarif = sarif_of(lineage);
        let errors: Vec<String> = validator
            .iter_errors(&sarif)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{lineage}: {errors:#?}");
    }
    // The validator is not vacuous: a wrong version, a result without a
    // message and an unknown property are refused.
    let mut bad = sarif_of(&l2);
    bad["version"] = "2.0.0".into();
    assert!(!validator.is_valid(&bad));
    let mut bad = sarif_of(&l2);
    bad["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&bad));
    let mut bad = sarif_of(&l2);
    bad["runs"][0]["tool"]["driver"]["colour"] = "red".into();
    assert!(!validator.is_valid(&bad));
    insta::assert_snapshot!(
        "report_sarif",
        serde_json::to_string_pretty(&sarif_of(&l2)).unwrap()
    );
}

/// The same SARIF logs through `check-jsonschema`, an independent
/// validator, when `PROBITY_CHECK_JSONSCHEMA` names its binary (.ci/run
/// sets it); without it the test says so and checks nothing else.
#[test]
fn the_sarif_log_passes_an_independent_validator() {
    let Some(bin) = std::env::var_os("PROBITY_CHECK_JSONSCHEMA") else {
        eprintln!("PROBITY_CHECK_JSONSCHEMA unset: check-jsonschema not run (.ci/run runs it)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("probity-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("sarif-schema-2.1.0.json");
    std::fs::write(&schema, schema_text()).unwrap();
    let (_, l1, l2) = chain();
    let mut files = Vec::new();
    for lineage in [&l1, &l2] {
        let p = dir.join(format!("{lineage}.sarif"));
        std::fs::write(&p, serde_json::to_vec_pretty(&sarif_of(lineage)).unwrap()).unwrap();
        files.push(p);
    }
    let bad = dir.join("bad.sarif");
    let mut b = sarif_of(&l2);
    b["version"] = "2.0.0".into();
    std::fs::write(&bad, serde_json::to_vec(&b).unwrap()).unwrap();
    let run = |f: &std::path::Path| {
        std::process::Command::new(&bin)
            .arg("--schemafile")
            .arg(&schema)
            .arg(f)
            .output()
            .unwrap()
    };
    for f in &files {
        let o = run(f);
        assert!(
            o.status.success(),
            "{}: {}{}",
            f.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(
        !run(&bad).status.success(),
        "check-jsonschema accepted a bad log"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
