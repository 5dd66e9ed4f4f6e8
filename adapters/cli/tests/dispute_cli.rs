//! R12.6, the dispute edge, through the real binary on a real repository: a
//! deterministic BLOCKER the maintainer holds a false positive no longer
//! forces an escalation and an authorized recovery. It is disputed with
//! evidence and an authorization, recorded and counted, and listed with the
//! receipt's resolved findings.

mod support;

use support::*;

const BLOCKER: &str = r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"more() panics on empty input","proof_refs":["test_more fails on the candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran test_more on base and candidate"]}"#;

fn dispute(cwd: &std::path::Path, lineage: &str, finding: &str, ev: &str, auth: &str) -> Run {
    probity(
        cwd,
        &[
            "dispute",
            "--lineage",
            lineage,
            "--finding",
            finding,
            "--evidence",
            ev,
            "--reason",
            "test_more asserts on a fixture the change did not touch",
            "--actor",
            "maintainer",
            "--authorization",
            auth,
        ],
    )
}

#[test]
fn a_disputed_blocker_is_recorded_counted_and_resolved_in_the_receipt() {
    let f = medium_change();
    let dir = tempfile::tempdir().unwrap();
    let lineage = start_lineage(f.root());
    let judged = finalize_result(f.root(), dir.path(), &lineage, BLOCKER);
    assert_eq!(
        judged.json["state"], "correction_required",
        "{}",
        judged.stdout
    );
    let finding = judged.json["findings"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ev = input(
        dir.path(),
        "why.txt",
        "test_more reads tests/fixtures/empty.txt, which this change never touches\n",
    );

    // Refused: a blank authorization, empty evidence, another finding.
    let before = store_snapshot(&f);
    let blank = dispute(f.root(), &lineage, &finding, &ev, " ");
    assert_eq!(blank.code, 2, "{}", blank.stdout);
    let empty = input(dir.path(), "empty.txt", "");
    let no_ev = dispute(f.root(), &lineage, &finding, &empty, "OPS-7");
    no_ev.assert_error("empty_evidence");
    let other = dispute(f.root(), &lineage, "R3-009", &ev, "OPS-7");
    other.assert_error("not_disputable");
    assert_eq!(store_snapshot(&f), before);

    let done = dispute(f.root(), &lineage, &finding, &ev, "OPS-7, the lead");
    assert_eq!(done.code, 0, "{}{}", done.stdout, done.stderr);
    assert_eq!(done.json["state"], "validating", "{}", done.stdout);
    assert_eq!(done.json["disputes"], 1);
    assert_eq!(done.json["findings"][0]["route"], "disputed");
    // The same dispute again changes nothing.
    let after = store_snapshot(&f);
    let again = dispute(f.root(), &lineage, &finding, &ev, "OPS-7, the lead");
    assert_eq!(again.json["state"], "validating", "{}", again.stdout);
    assert_eq!(store_snapshot(&f), after);
    // Recorded in the lineage, with the authorization.
    let state: serde_json::Value = lineage_json(&f, &lineage, "state.json");
    let d = &state["state"]["stage"]["judgment"]["disputes"][0];
    assert_eq!(d["finding_id"], finding.as_str());
    assert_eq!(d["authorization"], "OPS-7, the lead");

    // Evidence approves; the receipt lists the disputed finding as resolved.
    let evd = input(dir.path(), "ev.txt", "tests passed\n");
    let approved = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--evidence", &evd],
    );
    assert_eq!(approved.json["state"], "approved", "{}", approved.stdout);
    // Counted in every answer about the lineage after it, not only the
    // dispute's own, with the finding's route.
    assert_eq!(approved.json["disputes"], 1, "{}", approved.stdout);
    assert_eq!(approved.json["findings"][0]["route"], "disputed");
    let receipt: serde_json::Value = lineage_json(&f, &lineage, "receipt.json");
    assert_eq!(
        receipt["resolved_finding_ids"],
        serde_json::json!([finding.as_str()])
    );
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(gate.json["decision"], "allow", "{}", gate.stdout);
}
