//! R3.6, preserved reviewer results, through the real binary on real
//! repositories: a lens result whose capture failed (here: the lineage's
//! lock held by another writer past the wait) is kept as an incident
//! artifact outside the store, is refused wherever a result is taken, and
//! is replayed through the full verification path into its own candidate
//! only.

mod support;

use support::*;

#[test]
fn a_result_whose_capture_failed_is_preserved_refused_as_a_result_and_replayed() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = start_lineage(f.root());
    let result = input(dir.path(), "r.json", CLEAN_RESULT);
    let artifact = dir.path().join("preserved.json");
    let art = artifact.to_str().unwrap();

    // Another writer holds the lineage's lock past the wait.
    let lock = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&lineage)
        .join("LOCK");
    let submit_while_held = || {
        let held = std::fs::File::open(&lock).unwrap();
        held.lock().unwrap();
        let args = [
            "lens",
            "submit",
            "--lens",
            "reliability",
            "--preserve-to",
            art,
            &result,
        ];
        probity(f.root(), &args)
    };
    let before = store_snapshot(&f);
    let failed = submit_while_held();
    assert_ne!(failed.code, 0, "{}", failed.stdout);
    let next = failed.next_action();
    assert!(next.contains("probity lens replay"), "{next}");
    assert!(artifact.is_file(), "the artifact is written");
    assert_eq!(store_snapshot(&f), before, "the store is untouched");
    // Made whole beside its path and renamed there: private, and no
    // temporary file left.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&artifact).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let leftovers = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(".probity-preserve-")
            })
            .count()
    };
    assert_eq!(leftovers(), 0);
    // Never over a file already there: the first artifact is kept as it
    // was, and the answer says nothing was preserved.
    let kept = std::fs::read(&artifact).unwrap();
    let again = submit_while_held();
    assert_ne!(again.code, 0, "{}", again.stdout);
    assert!(
        again.stdout.contains("could not be preserved")
            || again.stderr.contains("could not be preserved"),
        "{}{}",
        again.stdout,
        again.stderr
    );
    assert_eq!(std::fs::read(&artifact).unwrap(), kept);
    assert_eq!(leftovers(), 0);
    assert_eq!(store_snapshot(&f), before, "the store is untouched");

    // Wherever a result is taken, the artifact is refused by its schema.
    let as_result = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--result", art],
    );
    as_result.assert_error("preserved_result");
    let as_submit = probity(f.root(), &["lens", "submit", "--lens", "reliability", art]);
    assert_eq!(as_submit.json["error"]["code"], "preserved_result");
    // As a refuter batch or a validator result too: every role document.
    for flag in ["--refuter", "--validation"] {
        let r = probity(f.root(), &["finalize", "--lineage", &lineage, flag, art]);
        assert_eq!(
            r.json["error"]["code"], "preserved_result",
            "{flag}: {}",
            r.stdout
        );
    }
    assert_eq!(store_snapshot(&f), before);

    // Tampered: another candidate, or a payload that is not the one kept.
    let bytes = std::fs::read(&artifact).unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let mut other = v.clone();
    other["target"] = serde_json::json!(format!("sha256:{}", "0".repeat(64)));
    let other_path = input(dir.path(), "other.json", &other.to_string());
    let r = probity(f.root(), &["lens", "replay", &other_path]);
    r.assert_error("preserved_other_candidate");
    v["payload"] = serde_json::json!("e30=");
    let bad_path = input(dir.path(), "bad.json", &v.to_string());
    let r = probity(f.root(), &["lens", "replay", &bad_path]);
    r.assert_error("preserved_malformed");
    assert_eq!(store_snapshot(&f), before);

    // Replayed: the same checks as a fresh submission, then finalize.
    let replayed = probity_ok(f.root(), &["lens", "replay", art]);
    assert_eq!(replayed.json["stored"], true);
    assert_eq!(replayed.json["lineage_id"], lineage.as_str());
    let ev = input(dir.path(), "ev.txt", "tests passed\n");
    let done = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--evidence", &ev],
    );
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
}

/// A preserved payload that is not a valid result fails the replay exactly
/// as a fresh submission of it would: nothing in the artifact is trusted.
#[test]
fn a_replayed_payload_pays_the_full_verification() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = start_lineage(f.root());
    let record: serde_json::Value = lineage_json(&f, &lineage, "state.json");
    let target = record["state"]["snapshot"]["target"]
        .as_str()
        .unwrap()
        .to_string();
    let bytes = probity_core::review::preserve(
        &probity_core::review::LineageId::parse(lineage.clone()).unwrap(),
        &target.parse().unwrap(),
        probity_core::review::Lens::Reliability,
        None,
        probity_core::review::NonBlank::parse("the disk was full").unwrap(),
        br#"{"findings":[],"evidence":["read it"],"verdict":"PASS"}"#,
    )
    .unwrap();
    let art = dir.path().join("a.json");
    std::fs::write(&art, bytes).unwrap();
    let before = store_snapshot(&f);
    let r = probity(f.root(), &["lens", "replay", art.to_str().unwrap()]);
    assert_eq!(r.json["error"]["code"], "malformed_input", "{}", r.stdout);
    assert_eq!(store_snapshot(&f), before);
}
