//! The bundle's tests (moved out of `mod.rs` to keep it under 1,000 lines).

use super::*;
use crate::review::fixtures;
use crate::review::lens::Lens;
use crate::review::state::ReviewState;

pub(super) fn approved() -> ReviewState {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let r1 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap();
    r1.accept_evidence(b"cargo test: 42 passed\n").unwrap()
}

pub(super) fn bundle() -> Bundle {
    Bundle::build(vec![approved().record().unwrap()], Vec::new()).unwrap()
}

/// A bundle of a review only started (the parser scenario, reviewing).
pub(super) fn pending_bundle() -> Bundle {
    let started = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    Bundle::build(vec![started.record().unwrap()], Vec::new()).unwrap()
}

pub(super) fn envelope() -> DsseEnvelope {
    DsseEnvelope {
        payload_type: "application/vnd.in-toto+json".into(),
        payload: "eyJhIjoxfQ==".into(),
        signatures: vec![DsseSignature {
            keyid: Some("SHA256:abc".into()),
            sig: "AAAA".into(),
        }],
    }
}

/// A review approved on a check Probity ran on its final tree, and
/// that check's document.
fn approved_on_a_check() -> (ReviewState, CommandEvidenceDocument) {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let r1 = r0
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap();
    let run = crate::review::evidence::CommandRun {
        argv: vec!["cargo".into(), "test".into()],
        exit: crate::review::evidence::ExitOutcome::Code(0),
        output_sha256: Sha256Digest::plain(b"ok\n"),
        output_bytes: 3,
    };
    let e = crate::review::evidence::command_evidence_on(&run, r1.final_candidate_tree()).unwrap();
    let doc = CommandEvidenceDocument::parse(&e.bytes).unwrap();
    let approved = r1
        .accept_evidence_reading(
            Sha256Digest::of(crate::review::evidence::EVIDENCE_DOMAIN, &e.bytes),
            &e.reading(),
        )
        .unwrap();
    (approved, doc)
}

#[test]
fn a_v2_bundle_carries_exactly_the_evidence_its_records_took() {
    let (state, doc) = approved_on_a_check();
    let record = state.record().unwrap();
    let mut stray = doc.clone();
    stray.argv = vec!["true".into()];
    let b = Bundle::build_carrying(
        vec![record.clone()],
        Vec::new(),
        vec![stray.clone(), doc.clone()],
    )
    .unwrap();
    assert_eq!(b.schema, BundleSchema::V2);
    assert_eq!(b.evidence, vec![doc.clone()]);
    assert_eq!(b.evidence_of(&record), Some(&doc));
    let bytes = b.to_bytes().unwrap();
    assert_eq!(Bundle::from_bytes(&bytes).unwrap(), b);
    // Without evidence a record took, the same chain is a v1 bundle,
    // byte for byte what `build` gives.
    let v1 = Bundle::build_carrying(vec![record.clone()], Vec::new(), vec![stray.clone()]).unwrap();
    assert_eq!(v1, Bundle::build(vec![record.clone()], Vec::new()).unwrap());
    assert_eq!(v1.schema, BundleSchema::V1);
    // Forged: a document no record took, evidence in a v1, a v2 with
    // none; each with its digest recomputed.
    let forge = |schema: BundleSchema, evidence: Vec<CommandEvidenceDocument>| {
        let mut w: BundleWire = serde_json::from_slice(&bytes).unwrap();
        w.schema = schema;
        w.evidence = evidence;
        w.digest = body_digest(
            w.schema,
            &w.lineage_id,
            &w.records,
            &w.receipts,
            &w.attestations,
            &w.evidence,
        )
        .unwrap();
        Bundle::from_bytes(&canonical_bytes(&w).unwrap()).unwrap_err()
    };
    for err in [
        forge(BundleSchema::V2, vec![stray.clone()]),
        forge(BundleSchema::V1, vec![doc.clone()]),
        forge(BundleSchema::V2, vec![]),
    ] {
        assert_eq!(err.code(), "bundle_invalid", "{err}");
    }
}

#[test]
fn a_built_bundle_round_trips_through_its_bytes() {
    let b = bundle();
    let bytes = b.to_bytes().unwrap();
    assert_eq!(Bundle::from_bytes(&bytes).unwrap(), b);
    let mut with_lf = bytes.clone();
    with_lf.push(b'\n');
    assert_eq!(Bundle::from_bytes(&with_lf).unwrap(), b);
    assert_eq!(b.receipts.len(), 1);
    assert!(!String::from_utf8(bytes).unwrap().contains("attestations"));
}

#[test]
fn edited_bytes_fail_the_digest_and_a_recomputed_digest_fails_the_record() {
    let b = bundle();
    let text = String::from_utf8(b.to_bytes().unwrap()).unwrap();
    // A finding's claim, edited after the fact.
    let edited = text.replacen("reserve capacity", "reserve memory!", 1);
    assert_ne!(edited, text);
    let err = Bundle::from_bytes(edited.as_bytes()).unwrap_err();
    assert_eq!(err.code(), "bundle_digest_mismatch", "{err}");
    // A forger recomputes the bundle digest: the record's revision
    // still catches the edit.
    let mut forged: BundleWire = serde_json::from_str(&edited).unwrap();
    forged.digest = body_digest(
        forged.schema,
        &forged.lineage_id,
        &forged.records,
        &forged.receipts,
        &forged.attestations,
        &forged.evidence,
    )
    .unwrap();
    let bytes = canonical_bytes(&forged).unwrap();
    let err = Bundle::from_bytes(&bytes).unwrap_err();
    assert_eq!(err.code(), "bundle_record_invalid", "{err}");
}

#[test]
fn a_receipt_that_is_not_the_projection_is_refused() {
    let mut b = bundle();
    b.receipts.clear();
    b.digest = body_digest(
        b.schema,
        &b.lineage_id,
        &b.records,
        &b.receipts,
        &b.attestations,
        &b.evidence,
    )
    .unwrap();
    let err = Bundle::from_bytes(&canonical_bytes(&b).unwrap()).unwrap_err();
    assert_eq!(err.code(), "receipt_mismatch");
}

#[test]
fn non_canonical_oversized_and_schema_invalid_bytes_are_typed() {
    let b = bundle();
    let pretty = serde_json::to_vec_pretty(&b).unwrap();
    assert_eq!(
        Bundle::from_bytes(&pretty).unwrap_err().code(),
        "bundle_not_canonical"
    );
    let big = vec![b' '; MAX_BUNDLE_BYTES + 1];
    assert_eq!(
        Bundle::from_bytes(&big).unwrap_err().code(),
        "input_too_large"
    );
    let bytes = b.to_bytes().unwrap();
    let truncated = &bytes[..bytes.len() / 2];
    assert_eq!(
        Bundle::from_bytes(truncated).unwrap_err().code(),
        "bundle_invalid"
    );
    let unknown = String::from_utf8(bytes)
        .unwrap()
        .replacen("{", "{\"extra\":1,", 1);
    assert_eq!(
        Bundle::from_bytes(unknown.as_bytes()).unwrap_err().code(),
        "bundle_invalid"
    );
}

#[test]
fn attestations_are_carried_sorted_and_checked_for_shape() {
    let mut e2 = envelope();
    e2.payload_type = "application/x".into();
    let b = Bundle::build(
        vec![approved().record().unwrap()],
        vec![envelope(), e2.clone(), envelope()],
    )
    .unwrap();
    assert_eq!(b.attestations.len(), 2);
    let back = Bundle::from_bytes(&b.to_bytes().unwrap()).unwrap();
    assert_eq!(back.attestations, b.attestations);
    let mut bad = envelope();
    bad.payload = "not base64!".into();
    let err = Bundle::build(vec![approved().record().unwrap()], vec![bad]).unwrap_err();
    assert_eq!(err.code(), "bundle_invalid");
}

#[test]
fn a_chain_must_start_at_generation_one() {
    let r = approved().record().unwrap();
    let err = Bundle::build(vec![r.clone(), r], Vec::new()).unwrap_err();
    assert_eq!(err.code(), "bundle_invalid");
    assert_eq!(
        Bundle::build(Vec::new(), Vec::new()).unwrap_err().code(),
        "bundle_invalid"
    );
}

#[test]
fn approves_names_the_leafs_final_target_only() {
    let b = bundle();
    let s = &b.records[0].state;
    assert!(b.approves(&s.snapshot.base_tree, &s.snapshot.candidate_tree));
    assert!(!b.approves(&s.snapshot.candidate_tree, &s.snapshot.base_tree));
    let pending = pending_bundle();
    assert!(!pending.approves(&s.snapshot.base_tree, &s.snapshot.candidate_tree));
    assert_eq!(b.trees().len(), 2);
}

#[test]
fn scope_is_checked_against_the_repositorys_listing() {
    let b = bundle();
    let r = &b.records[0];
    let entry = |p: &RepoPath, status| ManifestEntry {
        path: p.clone(),
        status,
        old_mode: None,
        new_mode: None,
        old_blob: None,
        new_blob: None,
    };
    let paths = &r.state.snapshot.paths;
    let untracked = &r.state.snapshot.intended_untracked;
    assert!(!untracked.is_empty());
    let status = |p: &RepoPath| {
        if untracked.contains(p) {
            ChangeStatus::Added
        } else {
            ChangeStatus::Modified
        }
    };
    let facts = RepoFacts {
        initial: paths.iter().map(|p| entry(p, status(p))).collect(),
        final_paths: paths.clone(),
    };
    assert_eq!(check_scope(r, &facts), Ok(()));
    // The intended-untracked proof: a path the base already had.
    let all_modified = RepoFacts {
        initial: paths
            .iter()
            .map(|p| entry(p, ChangeStatus::Modified))
            .collect(),
        final_paths: paths.clone(),
    };
    assert!(matches!(
        check_scope(r, &all_modified),
        Err(ScopeError::Untracked { .. })
    ));
    let mut fewer = facts.clone();
    fewer.initial.pop();
    assert!(matches!(
        check_scope(r, &fewer),
        Err(ScopeError::Paths { .. })
    ));
    let mut outside = facts.clone();
    outside
        .final_paths
        .push(RepoPath::parse("zzz/other.rs").unwrap());
    assert!(matches!(
        check_scope(r, &outside),
        Err(ScopeError::FinalScope { .. })
    ));
}

/// `obs`'s change with its first file made high risk (a process-spawning
/// line).
fn process_spawning(obs: &crate::review::CandidateObservation) -> Vec<ChangedFile> {
    let mut high = obs.changed.clone();
    high[0] = fixtures::text_change(
        "src/parser.rs",
        30,
        22,
        "import subprocess\nsubprocess.run([\"sh\"])\n",
    );
    high
}

/// A correction whose tree is a higher tier than the review ran at is
/// refused whatever else holds (D-R127); one within the tier passes.
#[test]
fn a_correction_may_not_raise_the_tier_the_review_ran_at() {
    let obs = fixtures::parser_observation();
    let r = approved().record().unwrap();
    assert_eq!(r.state.frozen.risk_level, RiskLevel::Medium);
    assert_eq!(check_final_tier(&r, &obs.changed, &[]), Ok(()));
    assert!(matches!(
        check_final_tier(&r, &process_spawning(&obs), &[]),
        Err(DerivationError::RiskRaisedByCorrection {
            recorded: RiskLevel::Medium,
            derived: RiskLevel::High,
            ..
        })
    ));
}

#[test]
fn what_start_froze_is_re_derived_from_the_trees() {
    let obs = fixtures::parser_observation();
    let set = PromptSet::builtin();
    let r = approved().record().unwrap();
    assert_eq!(check_derivation(&r, &obs.changed, &[], &set), Ok(()));
    // Fewer authored lines in the trees than the record froze: its
    // budget is not the trees'.
    let mut fewer = obs.changed.clone();
    fewer[0] = fixtures::text_change("src/parser.rs", 3, 2, "pub fn parse() {}\n");
    assert!(matches!(
        check_derivation(&r, &fewer, &[], &set),
        Err(DerivationError::AuthoredLines {
            recorded: 60,
            derived: 13,
            ..
        })
    ));
    // Trees whose change is high risk (a process-spawning line): the
    // record claims medium and one lens.
    assert!(matches!(
        check_derivation(&r, &process_spawning(&obs), &[], &set),
        Err(DerivationError::RiskUnderstated {
            recorded: RiskLevel::Medium,
            derived: RiskLevel::High,
            ..
        })
    ));
    // A record that claims low risk (and so no lens) for a code change,
    // hand-written with every hash recomputed: refused.
    let started = fixtures::start(&obs, Lens::Reliability).unwrap();
    let low = fixtures::forge(&started, |w| {
        w["frozen"]["risk_level"] = serde_json::json!("low");
        w["frozen"]["risk_reasons"] = serde_json::json!(["docs_only"]);
        w["frozen"]["selected_lenses"] = serde_json::json!([]);
    });
    let low = low.expect("a hand-written low-risk record still reads");
    assert!(matches!(
        check_derivation(&low.record().unwrap(), &obs.changed, &[], &set),
        Err(DerivationError::RiskUnderstated { .. })
    ));
    // Another policy digest is refused when the record is read.
    let other = fixtures::forge(&approved(), |w| {
        w["frozen"]["policy_hash"] = serde_json::json!(format!("sha256:{}", "0".repeat(64)));
    });
    assert!(other.is_err());
}

#[test]
fn every_approved_record_of_a_chain_must_be_vouched_for() {
    let b = bundle();
    let only: Vec<&LineageId> = b
        .records_to_vouch_for()
        .iter()
        .map(|r| &r.state.lineage_id)
        .collect();
    assert_eq!(only, vec![&b.lineage_id]);
    // A record still in review needs no signature: it authorizes
    // nothing.
    let started = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let pending = Bundle::build(vec![started.record().unwrap()], Vec::new()).unwrap();
    assert!(pending.records_to_vouch_for().is_empty());
}

#[test]
fn frozen_prompts_must_be_the_ones_this_build_knows() {
    let obs = fixtures::parser_observation();
    let builtin = PromptSet::builtin();
    let mut input = fixtures::start_input(&obs, Lens::Reliability).unwrap();
    input.prompts = Some(builtin.freeze(&input.lenses));
    let r0 = ReviewState::start(input).unwrap();
    let r = r0.record().unwrap();
    assert_eq!(check_derivation(&r, &obs.changed, &[], &builtin), Ok(()));
    // A build whose prompts differ does not know these digests.
    let other = PromptSet::from_files(|name| {
        let text = builtin_file(name)?;
        Some(format!("{text}\nanother line\n").into_bytes())
    })
    .unwrap();
    assert!(matches!(
        check_derivation(&r, &obs.changed, &[], &other),
        Err(DerivationError::Prompts { .. })
    ));
}

fn builtin_file(name: &str) -> Option<String> {
    crate::review::prompts::builtin_text(name).map(str::to_string)
}

/// The record `start` makes of `obs` under `policy` (whose digest is
/// `hash`).
fn record_under(
    policy: &RiskPolicy,
    hash: Sha256Digest,
    obs: &crate::review::CandidateObservation,
) -> StateRecord {
    fixtures::start_under(policy, hash, obs, Lens::Reliability)
        .unwrap()
        .record()
        .unwrap()
}

/// `record` rated `recorded`, checked against `changed`: understated, the
/// newest policy derives `derived`.
fn assert_understated(
    record: &StateRecord,
    changed: &[crate::review::ChangedFile],
    recorded: RiskLevel,
    derived: RiskLevel,
) {
    assert_understated_linked(record, changed, &[], recorded, derived);
}

/// As [`assert_understated`], the trees holding `links`.
fn assert_understated_linked(
    record: &StateRecord,
    changed: &[crate::review::ChangedFile],
    links: &[crate::review::Symlink],
    recorded: RiskLevel,
    derived: RiskLevel,
) {
    assert_eq!(record.state.frozen.risk_level, recorded);
    assert_eq!(
        check_derivation(record, changed, links, &PromptSet::builtin()),
        Err(DerivationError::RiskUnderstated {
            lineage: record.state.lineage_id.clone(),
            recorded,
            derived,
        })
    );
}

/// A record stamped with policy v1 is checked against the newest policy's
/// tier (D-R114): its name cannot pick the weaker rules. Reviews v2 does
/// not raise still pass, and one made under v2 passes.
#[test]
fn a_v1_record_is_held_to_the_newest_policys_tier() {
    let set = PromptSet::builtin();
    let doc = |path: &str, content: &str| fixtures::text_change(path, 2, 0, content);
    let obs_of = |files: Vec<crate::review::ChangedFile>| {
        let mut obs = fixtures::parser_observation();
        obs.changed = files;
        obs.intended_untracked = Vec::new();
        obs
    };
    let under = |v2: bool, obs: &crate::review::CandidateObservation| {
        if v2 {
            record_under(RiskPolicy::v2(), RiskPolicy::v2_hash(), obs)
        } else {
            record_under(RiskPolicy::v1(), RiskPolicy::v1_hash(), obs)
        }
    };
    for (path, content) in [
        (
            ".claude/commands/deploy.md",
            "Run `./deploy.sh --prod` first.\n",
        ),
        ("AGENT.md", "Always run the installer.\n"),
        ("README.md", "# proj\n\n```rust\nlet _ = 1;\n```\n"),
    ] {
        let obs = obs_of(vec![doc(path, content)]);
        let v1 = under(false, &obs);
        assert_understated(&v1, &obs.changed, RiskLevel::Low, RiskLevel::Medium);
        let v2 = under(true, &obs);
        assert_eq!(v2.state.frozen.risk_level, RiskLevel::Medium, "{path}");
        assert_eq!(
            check_derivation(&v2, &obs.changed, &[], &set),
            Ok(()),
            "{path}"
        );
    }
    // Spaced tokens in a document: v1 saw a low document, v2 a spawn.
    let spaced = "```rust\nlet _ = std :: process :: Command :: new (\"sh\");\n```\n";
    let obs = obs_of(vec![doc("README.md", spaced)]);
    assert!(matches!(
        check_derivation(&under(false, &obs), &obs.changed, &[], &set),
        Err(DerivationError::RiskUnderstated {
            recorded: RiskLevel::Low,
            derived: RiskLevel::High,
            ..
        })
    ));
    // A plain document, and the parser scenario's code: v2 rates them as
    // v1 did, so reviews made before the upgrade keep passing.
    let plain = obs_of(vec![doc("docs/guide.md", "# Guide\n\nRead the *code*.\n")]);
    let r = under(false, &plain);
    assert_eq!(r.state.frozen.risk_level, RiskLevel::Low);
    assert_eq!(check_derivation(&r, &plain.changed, &[], &set), Ok(()));
    let parser = fixtures::parser_observation();
    assert_eq!(
        check_derivation(&approved().record().unwrap(), &parser.changed, &[], &set),
        Ok(())
    );
}

/// A record stamped with policy v2 is checked against v3's tier (D-R122):
/// the editor's tasks and a manifest with an install script, medium under
/// v2, are high; the same changes made under v3 pass, and a change v3 does
/// not raise (ordinary code) passes under v2 as before.
#[test]
fn a_v2_record_is_held_to_v3s_tier() {
    let set = PromptSet::builtin();
    let obs_of = |path: &str, content: &str| {
        let mut obs = fixtures::parser_observation();
        obs.changed = vec![fixtures::text_change(path, 2, 0, content)];
        obs.intended_untracked = Vec::new();
        obs
    };
    for (path, content) in [
        (
            ".vscode/tasks.json",
            r#"{"tasks":[{"command":"./x","runOptions":{"runOn":"folderOpen"}}]}"#,
        ),
        ("package.json", r#"{"scripts":{"postinstall":"node x.js"}}"#),
    ] {
        let obs = obs_of(path, content);
        let v2 = record_under(RiskPolicy::v2(), RiskPolicy::v2_hash(), &obs);
        assert_understated(&v2, &obs.changed, RiskLevel::Medium, RiskLevel::High);
        let v3 = record_under(RiskPolicy::v3(), RiskPolicy::v3_hash(), &obs);
        assert_eq!(v3.state.frozen.risk_level, RiskLevel::High, "{path}");
        assert_eq!(
            check_derivation(&v3, &obs.changed, &[], &set),
            Ok(()),
            "{path}"
        );
    }
    let obs = obs_of("src/lib.rs", "pub fn f() {}\n");
    let v2 = record_under(RiskPolicy::v2(), RiskPolicy::v2_hash(), &obs);
    assert_eq!(check_derivation(&v2, &obs.changed, &[], &set), Ok(()));
}

/// A record stamped with policy v3 is checked against v4's tier, the
/// trees' symbolic links given (D-R131): an edit to the file `AGENTS.md`
/// links to, low under v3, is medium; one to the settings a `.claude`
/// link reaches, medium under v3, is high. Without the links (a tree that
/// holds none) they rate as before, and a correction that reaches them is
/// refused as a raised tier.
#[test]
fn a_v3_record_is_held_to_v4s_tier_through_the_trees_links() {
    let set = PromptSet::builtin();
    let link = |path: &str, target: &str| crate::review::Symlink {
        path: crate::review::RepoPath::parse(path).unwrap(),
        target: target.as_bytes().to_vec(),
    };
    let links = [
        link("AGENTS.md", "docs/ai/guide.md"),
        link(".claude", "tools/claude"),
    ];
    for (path, content, v3_tier, v4_tier) in [
        (
            "docs/ai/guide.md",
            "Always run `./x` first.\n",
            RiskLevel::Low,
            RiskLevel::Medium,
        ),
        (
            "tools/claude/settings.json",
            r#"{"hooks":{}}"#,
            RiskLevel::Medium,
            RiskLevel::High,
        ),
    ] {
        let mut obs = fixtures::parser_observation();
        obs.changed = vec![fixtures::text_change(path, 2, 0, content)];
        obs.intended_untracked = Vec::new();
        let v3 = record_under(RiskPolicy::v3(), RiskPolicy::v3_hash(), &obs);
        assert_understated_linked(&v3, &obs.changed, &links, v3_tier, v4_tier);
        assert_eq!(
            check_derivation(&v3, &obs.changed, &[], &set),
            Ok(()),
            "{path}"
        );
        assert_eq!(check_final_tier(&v3, &obs.changed, &[]), Ok(()), "{path}");
        assert!(matches!(
            check_final_tier(&v3, &obs.changed, &links),
            Err(DerivationError::RiskRaisedByCorrection { .. })
        ));
    }
}

/// Two signers in two clones each publish a line of the same lineage
/// carrying one envelope: the signatures a gate checks for either line are
/// both lines' (sorted, without duplicates); another lineage's lines lend
/// nothing.
#[test]
fn a_lines_signatures_count_with_its_notes_other_lines_of_the_lineage() {
    let mut bob = bundle();
    bob.attestations = vec![envelope()];
    let mut alice = bundle();
    let mut other = envelope();
    other.signatures[0].sig = "BBBB".into();
    alice.attestations = vec![other.clone()];
    let mut stranger = pending_bundle();
    stranger.lineage_id = LineageId::parse("review-0000000000000001").unwrap();
    let mut third = envelope();
    third.signatures[0].sig = "CCCC".into();
    stranger.attestations = vec![third];
    let note = [&bob, &alice, &stranger, &bob];
    let seen = with_note_attestations(&bob, &note);
    assert_eq!(seen.attestations, vec![envelope(), other.clone()]);
    assert_eq!(seen.records, bob.records);
    assert_eq!(
        with_note_attestations(&alice, &note).attestations,
        seen.attestations
    );
    // Alone, a line keeps its own.
    assert_eq!(
        with_note_attestations(&alice, &[]).attestations,
        vec![other]
    );
}

/// D-R141: the change a bundle approved is its leaf's (base tree, final
/// candidate tree), and a bundle only started approves none.
#[test]
fn a_bundle_names_the_change_it_approved_and_only_when_approved() {
    let a = approved();
    assert_eq!(
        crate::review::server::approved_change(&bundle()),
        Some((
            a.snapshot.base_tree.clone(),
            a.final_candidate_tree().clone()
        ))
    );
    assert_eq!(
        crate::review::server::approved_change(&pending_bundle()),
        None
    );
}
