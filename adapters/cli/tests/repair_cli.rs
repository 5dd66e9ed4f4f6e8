//! R9.4 repair ceremonies and R10.5's `retired`, through the real binary on
//! real repositories: validation never learns an exception; a maintainer
//! quarantines the only anomaly of its class, byte-preserving, with an
//! audit record, and the lineage then answers `retired` everywhere.

mod support;

use probity_git::fixture::Fixture;
use support::*;

fn repair(f: &Fixture, lineage: &str, class: &str) -> Run {
    probity(
        f.root(),
        &[
            "repair",
            "--lineage",
            lineage,
            "--class",
            class,
            "--reason",
            "the record was overwritten by a broken sync tool",
            "--actor",
            "maintainer",
            "--authorization",
            "ticket OPS-12, approved by the lead",
        ],
    )
}

#[test]
fn a_corrupted_record_is_quarantined_only_when_it_is_the_only_one_and_retires() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = string_at(&approve_live(f.root(), dir.path()), "lineage_id");
    let state = lineage_dir(&f, &lineage).join("state.json");
    let original = b"{\"not\": \"a state record\"}\n".to_vec();
    std::fs::write(&state, &original).unwrap();
    // Validation fails closed and stays so.
    let st = probity(f.root(), &["status", "--lineage", &lineage]);
    assert_eq!(st.json["error"]["code"], "store_corrupted", "{}", st.stdout);

    // Not the right class, or a lineage with no anomaly: refused.
    let before = store_snapshot(&f);
    let wrong = repair(&f, &lineage, "receipt_mismatch");
    wrong.assert_error("not_anomalous");
    let blank = probity(
        f.root(),
        &[
            "repair",
            "--lineage",
            &lineage,
            "--class",
            "corrupted_record",
            "--reason",
            "r",
            "--actor",
            "a",
            "--authorization",
            " ",
        ],
    );
    assert_eq!(blank.code, 2, "{}", blank.stdout);
    assert_eq!(store_snapshot(&f), before);

    // A second corrupted lineage: not unique, nothing moves.
    let twin = lineage_dir(&f, "review-00000000000000aa");
    std::fs::create_dir_all(&twin).unwrap();
    std::fs::write(twin.join("state.json"), b"garbage").unwrap();
    let before = store_snapshot(&f);
    let two = repair(&f, &lineage, "corrupted_record");
    assert_eq!(two.json["error"]["code"], "not_unique", "{}", two.stdout);
    assert_eq!(store_snapshot(&f), before);
    std::fs::remove_dir_all(&twin).unwrap();

    // The only one: quarantined, the original bytes kept, audited.
    let done = repair(&f, &lineage, "corrupted_record");
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert_eq!(done.json["retired"], true);
    assert_eq!(done.json["proof"]["kind"], "only_anomaly_of_class");
    let store = f.root().join(".git/probity/reviews/v1");
    let audit_rel = done.json["audit"].as_str().unwrap();
    let audit: serde_json::Value =
        serde_json::from_slice(&std::fs::read(store.join(audit_rel)).unwrap()).unwrap();
    assert_eq!(audit["schema"], "probity.repair-audit/v1");
    assert_eq!(audit["class"], "corrupted_record");
    assert_eq!(
        audit["authorization"],
        "ticket OPS-12, approved by the lead"
    );
    let qdir = store.join(audit_rel).parent().unwrap().to_path_buf();
    let moved = qdir.join("moved").join(&lineage).join("state.json");
    assert_eq!(std::fs::read(&moved).unwrap(), original, "bytes preserved");
    let copied = qdir.join("copy").join(&lineage).join("state.json");
    assert_eq!(std::fs::read(&copied).unwrap(), original);
    assert!(!lineage_dir(&f, &lineage).exists());

    // Retired everywhere it is named, with the audit record: reads, a
    // finalize and a recovery from it.
    let rev = format!("sha256:{}", "0".repeat(64));
    let ev = input(dir.path(), "ev.txt", "tests passed\n");
    for args in [
        vec!["status", "--lineage", lineage.as_str()],
        vec!["export-context", "--lineage", lineage.as_str()],
        vec![
            "finalize",
            "--lineage",
            lineage.as_str(),
            "--evidence",
            ev.as_str(),
        ],
        vec![
            "recover",
            "--predecessor-lineage",
            lineage.as_str(),
            "--expected-predecessor-revision",
            rev.as_str(),
            "--disposition",
            "scope_changed",
            "--reason",
            "again",
            "--actor",
            "dev",
        ],
    ] {
        let r = probity(f.root(), &args);
        assert_eq!(r.json["error"]["code"], "lineage_retired", "{}", r.stdout);
        assert!(r.error_message().contains(audit_rel), "{}", r.stdout);
    }
    // No index entry names it any more: the gate sees no review, and a new
    // start reviews the candidate again.
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(
        gate.json["reason_code"], "receipt_missing",
        "{}",
        gate.stdout
    );
    let again = probity_ok(f.root(), &["start"]);
    assert_ne!(again.json["lineage_id"], lineage.as_str());
}

#[test]
fn a_mismatched_receipt_is_quarantined_and_the_derived_one_written() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = string_at(&approve_live(f.root(), dir.path()), "lineage_id");
    let receipt = lineage_dir(&f, &lineage).join("receipt.json");
    let good = std::fs::read(&receipt).unwrap();
    std::fs::write(&receipt, b"{\"forged\":true}\n").unwrap();
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(
        gate.json["reason_code"], "receipt_mismatch",
        "{}",
        gate.stdout
    );
    // The wrong class for this anomaly: refused, nothing written.
    let before = store_snapshot(&f);
    let wrong = repair(&f, &lineage, "corrupted_record");
    wrong.assert_error("not_anomalous");
    assert_eq!(store_snapshot(&f), before);
    let done = repair(&f, &lineage, "receipt_mismatch");
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert_eq!(done.json["receipt_rewritten"], true);
    assert_eq!(std::fs::read(&receipt).unwrap(), good);
    // The forged bytes are kept in quarantine, named by the audit record.
    let store = f.root().join(".git/probity/reviews/v1");
    let audit_rel = done.json["audit"].as_str().unwrap();
    let audit: serde_json::Value =
        serde_json::from_slice(&std::fs::read(store.join(audit_rel)).unwrap()).unwrap();
    assert_eq!(audit["class"], "receipt_mismatch");
    let kept = store
        .join(audit_rel)
        .parent()
        .unwrap()
        .join("copy")
        .join(&lineage)
        .join("receipt.json");
    assert_eq!(std::fs::read(&kept).unwrap(), b"{\"forged\":true}\n");
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(gate.json["decision"], "allow", "{}", gate.stdout);
    // Nothing left to repair, and the refusal writes nothing.
    let before = store_snapshot(&f);
    let again = repair(&f, &lineage, "receipt_mismatch");
    assert_eq!(again.json["error"]["code"], "not_anomalous");
    assert_eq!(store_snapshot(&f), before);
}

/// R10.5's `consumed`: an approved lineage whose authority was used is
/// burned; its tombstone stays, and it answers `lineage_consumed` wherever
/// it is named (distinct from `lineage_not_found` and `lineage_retired`).
#[test]
fn a_burned_lineage_is_consumed_everywhere_and_only_an_approved_one_burns() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    // Not approved yet: refused, nothing written.
    let st = probity(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let burn = |l: &str| {
        probity(
            f.root(),
            &[
                "burn",
                "--lineage",
                l,
                "--reason",
                "delivered in v1.4",
                "--actor",
                "release bot",
            ],
        )
    };
    let before = store_snapshot(&f);
    let early = burn(&lineage);
    early.assert_error("not_approved");
    assert_eq!(store_snapshot(&f), before);

    approve_started(f.root(), dir.path(), &st.json);
    let done = burn(&lineage);
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert_eq!(done.json["consumed"], true);
    let tombstone: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            f.root()
                .join(".git/probity/reviews/v1/consumed")
                .join(&lineage),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(tombstone["schema"], "probity.consumption/v1");
    assert_eq!(tombstone["reason"], "delivered in v1.4");
    assert!(!lineage_dir(&f, &lineage).exists());
    for args in [
        vec!["status", "--lineage", lineage.as_str()],
        vec!["export-context", "--lineage", lineage.as_str()],
    ] {
        let r = probity(f.root(), &args);
        assert_eq!(r.json["error"]["code"], "lineage_consumed", "{}", r.stdout);
    }
    let again = burn(&lineage);
    assert_eq!(again.json["error"]["code"], "lineage_consumed");
    // The three refusals are distinct.
    let unknown = probity(
        f.root(),
        &["export-context", "--lineage", "review-00000000000000ff"],
    );
    assert_eq!(unknown.json["error"]["code"], "lineage_not_found");
    // No index entry names it: the gate sees no review of its candidate.
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(
        gate.json["reason_code"], "receipt_missing",
        "{}",
        gate.stdout
    );
}
