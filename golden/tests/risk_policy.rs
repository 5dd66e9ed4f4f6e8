//! The built-in risk policies, pinned: v1's digest (every record made
//! before D-R114 names it), v2's to v4's documents and digests, and a
//! state record and receipt made under each (D-R114, D-R122, D-R131). The v1 snapshots in `review.rs` keep their
//! bytes: their fixtures still start under v1.

use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::fixtures;
use probity_core::review::{Lens, Receipt, ReviewState, RiskPolicy, RiskReason, StateRecord};

fn text(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap()
}

/// The digest every record made under v1 names: unchanged by v2.
const V1_HASH: &str = "sha256:f34b674667cf4869e9c425145d2b9b296c85dc97aacf8e6c7b8f918778d36170";

#[test]
fn the_builtin_policies_and_their_digests() {
    assert_eq!(RiskPolicy::v1_hash().to_string(), V1_HASH);
    let v2 = canonical_bytes(RiskPolicy::v2()).unwrap();
    insta::assert_snapshot!(
        "risk_policy_v2",
        format!("{}\n{}", RiskPolicy::v2_hash(), text(v2))
    );
}

/// Starts `obs` under `policy` (whose digest is `hash`) at the fixtures'
/// fixed time and nonce.
fn start_under(
    policy: &RiskPolicy,
    hash: Sha256Digest,
    obs: &probity_core::review::CandidateObservation,
) -> ReviewState {
    fixtures::start_under(policy, hash, obs, Lens::Reliability).unwrap()
}

/// The parser scenario approved under `policy`: its state record and
/// receipt, pinned as `state_record_approved_<version>` and
/// `receipt_approved_<version>`.
fn approved_under(policy: &RiskPolicy, hash: Sha256Digest, version: &str) {
    let r0 = start_under(policy, hash, &fixtures::parser_observation());
    assert_eq!(r0.frozen().policy_hash, hash);
    let r2 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
        .accept_evidence(b"cargo test: 42 passed, 0 failed\n")
        .unwrap();
    let bytes = r2.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &r2);
    insta::assert_snapshot!(format!("state_record_approved_{version}"), text(bytes));
    let receipt = Receipt::derive(&r2).unwrap().to_bytes().unwrap();
    insta::assert_snapshot!(format!("receipt_approved_{version}"), text(receipt));
}

/// A state record of one changed file, started under `policy`: it gives
/// `reasons`, and is pinned as `name`.
fn one_file_under(
    policy: &RiskPolicy,
    hash: Sha256Digest,
    (path, content): (&str, &str),
    reasons: &[RiskReason],
    name: &str,
) {
    let mut obs = fixtures::parser_observation();
    obs.changed = vec![fixtures::text_change(path, 2, 0, content)];
    obs.intended_untracked = Vec::new();
    let s = start_under(policy, hash, &obs);
    assert_eq!(s.frozen().risk_reasons, reasons);
    let bytes = s.record().unwrap().to_bytes().unwrap();
    assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &s);
    insta::assert_snapshot!(name.to_string(), text(bytes));
}

/// The parser scenario under v2: the same tier as under v1, v2's digest.
#[test]
fn a_state_record_and_receipt_made_under_v2() {
    approved_under(RiskPolicy::v2(), RiskPolicy::v2_hash(), "policy_v2");
}

/// A v2 reason on the wire: a Claude Code command is medium
/// (`agent_instructions`).
#[test]
fn a_state_record_of_agent_instructions_under_v2() {
    one_file_under(
        RiskPolicy::v2(),
        RiskPolicy::v2_hash(),
        (".claude/commands/deploy.md", "Run the deploy script.\n"),
        &[RiskReason::AgentInstructions],
        "state_record_agent_instructions_policy_v2",
    );
}

/// v3's document and digest (D-R122); v1's and v2's above keep theirs.
#[test]
fn the_builtin_policy_v3_and_its_digest() {
    let v3 = canonical_bytes(RiskPolicy::v3()).unwrap();
    insta::assert_snapshot!(
        "risk_policy_v3",
        format!("{}\n{}", RiskPolicy::v3_hash(), text(v3))
    );
}

/// The parser scenario under v3: the same tier as under v1 and v2, v3's
/// digest.
#[test]
fn a_state_record_and_receipt_made_under_v3() {
    approved_under(RiskPolicy::v3(), RiskPolicy::v3_hash(), "policy_v3");
}

/// A v3 reason on the wire: the editor's tasks are high
/// (`auto_run_config`).
#[test]
fn a_state_record_of_auto_run_configuration_under_v3() {
    one_file_under(
        RiskPolicy::v3(),
        RiskPolicy::v3_hash(),
        (
            ".vscode/tasks.json",
            "{\"tasks\":[{\"command\":\"./setup\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n",
        ),
        &[RiskReason::AutoRunConfig],
        "state_record_auto_run_policy_v3",
    );
}

/// D-R132: the third schema revisions accept a record escalated because
/// its correction raised the tier, which the first and second (pinned
/// byte for byte) refuse; they accept every record the second accepts.
#[test]
fn the_third_schema_revision_accepts_a_raised_tier_escalation() {
    use probity_core::review::{Bundle, SchemaDoc};
    let s = fixtures::budget_forecast(10).unwrap();
    let mut raising = fixtures::fix(9, 3);
    raising.tier = probity_core::review::RiskLevel::High;
    let raised = s
        .accept_validation(raising, fixtures::validation(true))
        .unwrap();
    let passed =
        fixtures::attempt(&fixtures::budget_scenario().unwrap(), 10, (9, 3), true).unwrap();
    let docs = |state: &ReviewState| {
        let record = state.record().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&record.to_bytes().unwrap()).unwrap();
        let bundle = Bundle::build(vec![record], Vec::new()).unwrap();
        let bundle: serde_json::Value =
            serde_json::from_slice(&bundle.to_bytes().unwrap()).unwrap();
        (json, bundle)
    };
    let validator = |doc: SchemaDoc| jsonschema::validator_for(&doc.schema()).unwrap();
    let (raised_state, raised_bundle) = docs(&raised);
    let (passed_state, passed_bundle) = docs(&passed);
    for (doc, is_state, accepts_raised) in [
        (SchemaDoc::State, true, false),
        (SchemaDoc::StateR2, true, false),
        (SchemaDoc::StateR3, true, true),
        (SchemaDoc::Bundle, false, false),
        (SchemaDoc::BundleR2, false, false),
        (SchemaDoc::BundleR3, false, true),
    ] {
        let v = validator(doc);
        let (raised, passed) = if is_state {
            (&raised_state, &passed_state)
        } else {
            (&raised_bundle, &passed_bundle)
        };
        assert_eq!(v.is_valid(raised), accepts_raised, "{}", doc.name());
        assert!(v.is_valid(passed), "{}", doc.name());
    }
}

/// v4's document and digest (D-R131; v1's to v3's above keep theirs),
/// and the parser scenario approved under it: the same tier as under v1
/// to v3, v4's digest.
#[test]
fn the_builtin_policy_v4_its_digest_and_an_approval_under_it() {
    let (v4, hash) = (RiskPolicy::v4(), RiskPolicy::v4_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v4).unwrap()));
    insta::assert_snapshot!("risk_policy_v4", document);
    approved_under(v4, hash, "policy_v4");
}

/// A v4 rule on the wire, with a reason v3 already gives: a Cargo
/// manifest naming a build script is high (`auto_run_config`).
#[test]
fn a_state_record_of_a_manifest_naming_a_build_script_under_v4() {
    one_file_under(
        RiskPolicy::v4(),
        RiskPolicy::v4_hash(),
        (
            "Cargo.toml",
            "[package]\nname = \"parser\"\nbuild = \"gen/build.rs\"\n",
        ),
        &[RiskReason::AutoRunConfig],
        "state_record_manifest_build_policy_v4",
    );
}

/// v5's document and digest (D-R135; v1's to v4's above keep theirs),
/// and the parser scenario approved under it: the same tier as under v1
/// to v4, v5's digest.
#[test]
fn the_builtin_policy_v5_its_digest_and_an_approval_under_it() {
    let (v5, hash) = (RiskPolicy::v5(), RiskPolicy::v5_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v5).unwrap()));
    insta::assert_snapshot!("risk_policy_v5", document);
    approved_under(v5, hash, "policy_v5");
}

/// A v5 rule on the wire, with a reason v4 already gives: Python's
/// joined string literals naming `subprocess` are `process_spawn`.
#[test]
fn a_state_record_of_a_joined_literal_import_under_v5() {
    one_file_under(
        RiskPolicy::v5(),
        RiskPolicy::v5_hash(),
        ("tools/run.py", "sp = 'sub' 'process'\n"),
        &[RiskReason::ProcessSpawn],
        "state_record_joined_literal_policy_v5",
    );
}

/// v6's document and digest (D-R143; v1's to v5's above keep theirs),
/// and the parser scenario approved under it: the same tier as under v1
/// to v5, v6's digest.
#[test]
fn the_builtin_policy_v6_its_digest_and_an_approval_under_it() {
    let (v6, hash) = (RiskPolicy::v6(), RiskPolicy::v6_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v6).unwrap()));
    insta::assert_snapshot!("risk_policy_v6", document);
    approved_under(v6, hash, "policy_v6");
}

/// A v6 rule on the wire, with a reason v2 already gives: an rst
/// `testcleanup` directive, its body in rst's 3-space indentation, is
/// `doc_code_block` (docs_only under v5).
#[test]
fn a_state_record_of_an_executable_rst_directive_under_v6() {
    one_file_under(
        RiskPolicy::v6(),
        RiskPolicy::v6_hash(),
        (
            "docs/usage.rst",
            "Usage\n=====\n\n.. testcleanup::\n\n   cleanup()\n",
        ),
        &[RiskReason::DocCodeBlock],
        "state_record_rst_directive_policy_v6",
    );
}

/// v7's document and digest (D-R165; v1's to v6's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v7_its_digest_and_an_approval_under_it() {
    let (v7, hash) = (RiskPolicy::v7(), RiskPolicy::v7_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v7).unwrap()));
    insta::assert_snapshot!("risk_policy_v7", document);
    approved_under(v7, hash, "policy_v7");
}

/// v8's document and digest (D-R167; v1's to v7's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v8_its_digest_and_an_approval_under_it() {
    let (v8, hash) = (RiskPolicy::v8(), RiskPolicy::v8_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v8).unwrap()));
    insta::assert_snapshot!("risk_policy_v8", document);
    approved_under(v8, hash, "policy_v8");
}

/// v9's document and digest (D-R168; v1's to v8's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v9_its_digest_and_an_approval_under_it() {
    let (v9, hash) = (RiskPolicy::v9(), RiskPolicy::v9_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v9).unwrap()));
    insta::assert_snapshot!("risk_policy_v9", document);
    approved_under(v9, hash, "policy_v9");
}

/// v10's document and digest (D-R169; v1's to v9's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v10_its_digest_and_an_approval_under_it() {
    let (v10, hash) = (RiskPolicy::v10(), RiskPolicy::v10_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v10).unwrap()));
    insta::assert_snapshot!("risk_policy_v10", document);
    approved_under(v10, hash, "policy_v10");
}

/// D-R128: the state and bundle schemas' second revision (what `probity
/// schema state` and `bundle` print) accepts the reasons v2 and v3 give
/// and a repository policy's `policy_floor:<rule>`; the first revision,
/// pinned byte for byte, refuses them, which is why the revision exists.
#[test]
fn the_second_schema_revision_accepts_every_reason() {
    use probity_core::review::{Bundle, RISK_REASON_PATTERN_R2, SchemaDoc, select_lenses};
    let one_file = |policy: &RiskPolicy, hash, path: &str, content: &str| {
        let mut obs = fixtures::parser_observation();
        obs.changed = vec![fixtures::text_change(path, 2, 0, content)];
        obs.intended_untracked = Vec::new();
        fixtures::start_input_under(policy, hash, &obs, Lens::Reliability).unwrap()
    };
    let (v2, v3) = (RiskPolicy::v2(), RiskPolicy::v3());
    let mut floor = one_file(v3, RiskPolicy::v3_hash(), "docs/a.md", "# a\n");
    floor.assessment = floor
        .assessment
        .with_floor(vec![RiskReason::PolicyFloor("path#0".into())]);
    floor.lenses = select_lenses(floor.assessment.level(), Lens::Reliability);
    let inputs = [
        one_file(v2, RiskPolicy::v2_hash(), "AGENT.md", "Be careful.\n"),
        one_file(v3, RiskPolicy::v3_hash(), ".vscode/tasks.json", "{}\n"),
        floor,
    ];
    let validator = |doc: SchemaDoc| jsonschema::validator_for(&doc.schema()).unwrap();
    let (state_r1, state_r2) = (validator(SchemaDoc::State), validator(SchemaDoc::StateR2));
    let (bundle_r1, bundle_r2) = (validator(SchemaDoc::Bundle), validator(SchemaDoc::BundleR2));
    let (state_r3, bundle_r3) = (
        validator(SchemaDoc::StateR3),
        validator(SchemaDoc::BundleR3),
    );
    for input in inputs {
        let record = ReviewState::start(input).unwrap().record().unwrap();
        let reasons = record.state().frozen().risk_reasons.clone();
        let state: serde_json::Value = serde_json::from_slice(&record.to_bytes().unwrap()).unwrap();
        let bundle = Bundle::build(vec![record], Vec::new()).unwrap();
        let bundle: serde_json::Value =
            serde_json::from_slice(&bundle.to_bytes().unwrap()).unwrap();
        assert!(state_r2.is_valid(&state), "{reasons:?}");
        assert!(bundle_r2.is_valid(&bundle), "{reasons:?}");
        assert!(state_r3.is_valid(&state), "{reasons:?}");
        assert!(bundle_r3.is_valid(&bundle), "{reasons:?}");
        assert!(!state_r1.is_valid(&state), "{reasons:?}");
        assert!(!bundle_r1.is_valid(&bundle), "{reasons:?}");
    }
    // The pattern accepts exactly what the parser accepts.
    let pattern = jsonschema::validator_for(
        &serde_json::json!({"type": "string", "pattern": RISK_REASON_PATTERN_R2}),
    )
    .unwrap();
    for code in [
        "path_token:auth",
        "adjacent_tokens:service+token",
        "adjacent_tokens:a+b+c",
        "adjacent_tokens:+a",
        "adjacent_tokens:a+",
        "shell_source",
        "ci_config",
        "executable_bit_change",
        "process_spawn",
        "unscanned_content",
        "large_change",
        "agent_hooks",
        "auto_run_config",
        "policy_floor:path#0",
        "policy_floor:content#12",
        "policy_floor:policy_dir",
        "policy_floor:",
        "policy_floor:a b",
        "policy_floor:a\tb",
        "policy_floor:a\u{a0}b",
        "policy_floor:a\u{2028}b",
        "policy_floor:a\u{85}",
        "docs_only",
        "code_change",
        "agent_instructions",
        "doc_code_block",
        "path_token:",
        "auto_run",
        "Docs_only",
        "docs_only ",
    ] {
        let parsed = serde_json::from_value::<RiskReason>(serde_json::json!(code)).is_ok();
        assert_eq!(
            pattern.is_valid(&serde_json::json!(code)),
            parsed,
            "{code:?}"
        );
    }
}

/// v11's document and digest (D-R170; v1's to v10's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v11_its_digest_and_an_approval_under_it() {
    let (v11, hash) = (RiskPolicy::v11(), RiskPolicy::v11_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v11).unwrap()));
    insta::assert_snapshot!("risk_policy_v11", document);
    approved_under(v11, hash, "policy_v11");
}

/// v12's document and digest (D-R174; v1's to v11's above keep theirs),
/// and the parser scenario approved under it.
#[test]
fn the_builtin_policy_v12_its_digest_and_an_approval_under_it() {
    let (v12, hash) = (RiskPolicy::v12(), RiskPolicy::v12_hash());
    let document = format!("{hash}\n{}", text(canonical_bytes(v12).unwrap()));
    insta::assert_snapshot!("risk_policy_v12", document);
    approved_under(v12, hash, "policy_v12");
}
