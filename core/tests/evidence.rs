//! Final evidence (R4.4) on plain values: evidence never approves by being
//! present. Opaque bytes and a passing check approve; a command evidence
//! document reporting a failure escalates (`evidence_failed`) with its hash
//! kept and bound into the receipt; the record's invariants tie the reason
//! and the hash together.

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::fixtures;
use probity_core::review::{CommandRun, EvidenceVerdict, ExitOutcome, command_evidence};
use probity_core::review::{
    EVIDENCE_DOMAIN, Escalation, NextInput, ReviewState, StateRecord, TransitionError,
    check_successor,
};
use probity_core::review::{Receipt, TerminalState};

fn validating() -> ReviewState {
    fixtures::start(&fixtures::parser_observation(), Lens::Reliability)
        .unwrap()
        .accept_results(vec![fixtures::clean_result()], &Default::default())
        .unwrap()
}

fn failing_doc(exit: ExitOutcome) -> Vec<u8> {
    let e = command_evidence(&CommandRun {
        argv: vec!["cargo".into(), "test".into()],
        exit,
        output_sha256: Sha256Digest::plain(b"1 failed\n"),
        output_bytes: 9,
    })
    .unwrap();
    assert_eq!(e.verdict, EvidenceVerdict::Failed);
    e.bytes
}

#[test]
fn a_failed_check_escalates_and_its_evidence_is_bound() {
    let v = validating();
    for exit in [ExitOutcome::Code(1), ExitOutcome::Signal(11)] {
        let doc = failing_doc(exit);
        let esc = v.accept_evidence(&doc).unwrap();
        let hash = Sha256Digest::of(EVIDENCE_DOMAIN, &doc);
        assert_eq!(
            esc.stage().escalation(),
            Some(Escalation::EvidenceFailed {
                evidence_hash: hash
            }),
            "escalated by the failed check, its evidence bound"
        );
        check_successor(&v, &esc).unwrap();
        assert_eq!(esc.next_action(), NextInput::None);
        let receipt = Receipt::derive(&esc).unwrap();
        assert_eq!(receipt.terminal_state, TerminalState::Escalated);
        assert_eq!(receipt.evidence_hash, hash);
        assert!(receipt.resolved_finding_ids.is_empty());
        // The record round-trips and validates.
        let bytes = esc.record().unwrap().to_bytes().unwrap();
        assert_eq!(StateRecord::from_bytes(&bytes).unwrap().state(), &esc);
        // The same failing evidence again is an unchanged retry; other
        // evidence (passing or not) is a different retry.
        assert_eq!(esc.accept_evidence(&doc).unwrap(), esc);
        assert!(matches!(
            esc.accept_evidence(b"all tests passed"),
            Err(TransitionError::DifferentRetry { .. })
        ));
    }
}

#[test]
fn opaque_and_passing_evidence_approve() {
    let v = validating();
    let passed = command_evidence(&CommandRun {
        argv: vec!["true".into()],
        exit: ExitOutcome::Code(0),
        output_sha256: Sha256Digest::plain(b""),
        output_bytes: 0,
    })
    .unwrap();
    assert_eq!(passed.verdict, EvidenceVerdict::Passed);
    for evidence in [&passed.bytes[..], b"test log: ok"] {
        let s = v.accept_evidence(evidence).unwrap();
        assert_eq!(s.stage().name(), "approved");
    }
}

#[test]
fn evidence_naming_the_schema_must_be_a_document() {
    let v = validating();
    let e = v
        .accept_evidence(br#"{"schema":"probity-command-evidence/v1","argv":["x"]}"#)
        .unwrap_err();
    assert!(matches!(e, TransitionError::EvidenceDocument(_)), "{e}");
}

#[test]
fn evidence_is_taken_only_while_validating() {
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    let doc = failing_doc(ExitOutcome::Code(2));
    assert!(matches!(
        r0.accept_evidence(&doc),
        Err(TransitionError::WrongStage { .. })
    ));
}

/// The reason and the hash come together: an `evidence_failed` escalation
/// without its hash, or another escalation with one, is not a valid record.
#[test]
fn the_reason_and_the_hash_are_tied_in_the_record() {
    let v = validating();
    let esc = v
        .accept_evidence(&failing_doc(ExitOutcome::Code(1)))
        .unwrap();
    let without = fixtures::forge(&esc, |w| {
        w["stage"].as_object_mut().unwrap().remove("evidence_hash");
    });
    let err = without.expect_err("evidence_failed without its hash was read");
    assert!(
        err.to_string().contains("exactly when the evidence failed"),
        "{err}"
    );
    let other = fixtures::forge(&esc, |w| {
        w["stage"]["reason"] = "finding_escalated".into();
    });
    let err = other.expect_err("another escalation with a hash was read");
    assert!(
        err.to_string().contains("exactly when the evidence failed"),
        "{err}"
    );
    // And an escalation from `reviewing` cannot claim failed evidence.
    let r0 = fixtures::start(&fixtures::parser_observation(), Lens::Reliability).unwrap();
    assert!(check_successor(&r0, &esc).is_err());
}

/// Evidence longer than a command evidence document may be is opaque,
/// unless it is shaped as one: a failing document padded past the bound
/// (its `schema` member last, in canonical order, or first, as written by
/// hand) is refused, never taken as opaque bytes that pass.
#[test]
fn a_document_padded_past_its_bound_is_refused_and_long_logs_stay_opaque() {
    use probity_core::review::{
        EVIDENCE_TAIL_BYTES, EvidenceDocError, MAX_COMMAND_EVIDENCE_BYTES, evidence_verdict,
        evidence_verdict_streamed,
    };
    let padded = command_evidence(&CommandRun {
        argv: std::iter::once("make".to_string())
            .chain((0..9000).map(|i| format!("--flag-{i}")))
            .collect(),
        exit: ExitOutcome::Code(1),
        output_sha256: Sha256Digest::plain(b""),
        output_bytes: 0,
    })
    .unwrap()
    .bytes;
    assert!(padded.len() as u64 > MAX_COMMAND_EVIDENCE_BYTES);
    assert!(matches!(
        evidence_verdict(&padded),
        Err(EvidenceDocError::Malformed(m)) if m.contains("65536")
    ));
    assert!(matches!(
        validating().accept_evidence(&padded),
        Err(TransitionError::EvidenceDocument(_))
    ));
    // Streamed: the head and the tail are what the adapter keeps.
    let head = &padded[..MAX_COMMAND_EVIDENCE_BYTES as usize + 1];
    let tail = &padded[padded.len() - EVIDENCE_TAIL_BYTES..];
    assert!(evidence_verdict_streamed(head, tail, padded.len() as u64).is_err());
    // Written by hand, schema first, padded with whitespace.
    let mut by_hand = br#"{ "schema" : "probity-command-evidence/v1", "argv": ["x"],"#.to_vec();
    by_hand.extend(std::iter::repeat_n(b' ', 70_000));
    by_hand.extend(br#""exit_code": 1}"#);
    assert!(evidence_verdict(&by_hand).is_err());
    // A long log that merely mentions the schema, or a JSON log whose
    // `schema` is something else, stays opaque.
    let mut log = b"test evidence::probity-command-evidence/v1 ... ok\n".to_vec();
    log.extend(std::iter::repeat_n(b'.', 70_000));
    assert_eq!(evidence_verdict(&log), Ok(EvidenceVerdict::Passed));
    let mut json_log = br#"{"schema":"junit/v2","cases":["#.to_vec();
    json_log.extend(std::iter::repeat_n(b' ', 70_000));
    json_log.extend(br#"], "note": "probity-command-evidence/v1"}"#);
    assert_eq!(evidence_verdict(&json_log), Ok(EvidenceVerdict::Passed));
}

/// Issue 20: a `probity-command-evidence/v2` document names the tree its
/// check ran on; a lineage takes it only for its final candidate tree, and
/// v1 documents are read as before.
#[test]
fn a_v2_document_is_taken_only_for_the_final_candidate_tree() {
    use probity_core::review::{
        COMMAND_EVIDENCE_SCHEMA_V2, EvidenceDocError, command_evidence_on, evidence_reading,
    };
    let v = validating();
    let run = CommandRun {
        argv: vec!["true".into()],
        exit: ExitOutcome::Code(0),
        output_sha256: Sha256Digest::plain(b""),
        output_bytes: 0,
    };
    let tree = v.final_candidate_tree().clone();
    let on = command_evidence_on(&run, &tree).unwrap();
    let text = String::from_utf8(on.bytes.clone()).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"argv":["true"],"exit_code":0,"output_bytes":0,"output_sha256":"{}","schema":"{COMMAND_EVIDENCE_SCHEMA_V2}","tree":"{tree}"}}"#,
            Sha256Digest::plain(b"")
        )
    );
    assert_eq!(evidence_reading(&on.bytes).unwrap(), on.reading());
    let approved = v.accept_evidence(&on.bytes).unwrap();
    assert_eq!(approved.stage().name(), "approved");
    // Another tree: refused, whatever the verdict.
    let other = v.snapshot().base_tree.clone();
    assert_ne!(other, tree);
    for exit in [ExitOutcome::Code(0), ExitOutcome::Code(1)] {
        let doc = command_evidence_on(
            &CommandRun {
                exit,
                ..run.clone()
            },
            &other,
        )
        .unwrap();
        assert!(matches!(
            v.accept_evidence(&doc.bytes),
            Err(TransitionError::EvidenceTree { evidence_tree, final_tree, .. })
                if evidence_tree == other && final_tree == tree
        ));
    }
    // v1 stays as it was (no tree); a tree in v1, or none in v2, is malformed.
    let v1 = command_evidence(&run).unwrap();
    assert_eq!(evidence_reading(&v1.bytes).unwrap().tree, None);
    let v1_with_tree = String::from_utf8(v1.bytes.clone())
        .unwrap()
        .replace('}', &format!(r#","tree":"{tree}"}}"#));
    let v2_without = String::from_utf8(v1.bytes).unwrap().replace("/v1", "/v2");
    for bad in [v1_with_tree, v2_without] {
        assert!(
            matches!(
                evidence_reading(bad.as_bytes()),
                Err(EvidenceDocError::Malformed(_))
            ),
            "{bad}"
        );
    }
}
