//! `probity demo` runs end to end and shows what it claims.

mod support;

use std::process::Command;

use support::output_ok;

fn demo(args: &[&str]) -> serde_json::Value {
    demo_in(None, args)
}

/// `probity demo --json args...`, its scratch repositories in `tmp` when
/// given (`TMPDIR`).
fn demo_in(tmp: Option<&std::path::Path>, args: &[&str]) -> serde_json::Value {
    // An empty home: the demo's git reads no global configuration.
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    cmd.env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .arg("demo")
        .arg("--json")
        .args(args);
    if let Some(tmp) = tmp {
        cmd.env("TMPDIR", tmp);
    }
    serde_json::from_slice(&output_ok(&mut cmd).stdout).unwrap()
}

fn results(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"].clone())
        .collect()
}

#[test]
fn the_ordinary_demo_walks_all_five_actions() {
    let r = results(&demo(&[]));
    assert_eq!(r[0]["state"], "reviewing");
    assert_eq!(
        r[0]["intended_untracked"],
        serde_json::json!(["src/parser_test.rs"])
    );
    assert_eq!(r[3]["finalize"]["state"], "approved");
    assert_eq!(r[3]["receipt"].as_object().unwrap().len(), 14);
    let gates: Vec<_> = r[4..]
        .iter()
        .map(|g| (g["decision"].clone(), g["reason_code"].clone()))
        .collect();
    assert_eq!(
        gates,
        [
            ("allow", "receipt_valid"),
            ("allow", "receipt_valid"),
            ("deny", "receipt_scope_changed"),
            ("deny", "receipt_unrelated"),
            ("allow", "receipt_valid"),
            ("deny", "receipt_scope_changed"),
        ]
        .map(|(d, c)| (serde_json::json!(d), serde_json::json!(c)))
    );
    // The last two are pre-push decisions over the committed candidate.
    assert_eq!(r[8]["gate"], "pre-push");
    assert_eq!(r[8]["deliveries"][0]["commits"], 1);
    assert_eq!(r[9]["gate"], "pre-push");
}

#[test]
fn the_correction_demo_corrects_and_approves() {
    let r = results(&demo(&["--scenario", "correction"]));
    let states: Vec<_> = r
        .iter()
        .filter_map(|x| x["finalize"]["state"].as_str().map(String::from))
        .collect();
    assert_eq!(
        states,
        [
            "correction_required",
            "correction_required",
            "validating",
            "approved"
        ]
    );
    let receipt = &r[6]["receipt"];
    assert_ne!(
        receipt["initial_review_tree"],
        receipt["final_candidate_tree"]
    );
    assert_eq!(
        receipt["resolved_finding_ids"],
        serde_json::json!(["R3-001"])
    );
    assert_eq!(r[7]["decision"], "allow");
    assert_eq!(r[8]["reason_code"], "receipt_scope_changed");
}

#[test]
fn the_server_demo_denies_the_unreviewed_push_and_allows_the_reviewed_one() {
    let r = results(&demo(&["--scenario", "server"]));
    assert_eq!(r[2]["finalize"]["state"], "approved");
    assert_eq!(r[3]["accepted"], false);
    let said = r[3]["remote"].to_string();
    assert!(said.contains("receipt_missing"), "{said}");
    assert_eq!(r[4]["written"].as_array().unwrap().len(), 1);
    // Each written note names its delivery commit and the lineage.
    let note = &r[4]["written"][0];
    assert_eq!(note.as_object().unwrap().len(), 2, "{note}");
    assert_eq!(note["commit"].as_str().unwrap().len(), 40, "{note}");
    assert!(
        note["lineage_id"].as_str().unwrap().starts_with("review-"),
        "{note}"
    );
    assert_eq!(r[5]["accepted"], true, "{}", r[5]);
}

/// The model judges inside the lifecycle (issue 10): the built-in scripted
/// model reports a BLOCKER through `probity review`, the fixer gets the
/// hand-off, the validator passes the fix, the check runs, approval. No
/// network.
#[test]
fn the_model_demo_judges_corrects_and_approves_without_a_network() {
    let r = results(&demo(&["--scenario", "model"]));
    assert_eq!(r.len(), 6);
    assert!(
        r[0]["lens_bindings"][0]["binding"]
            .as_str()
            .unwrap()
            .starts_with("probity-lens-binding/v2 ")
    );
    assert_eq!(r[1]["state"], "correction_required");
    assert_eq!(r[1]["action"], "forecast_correction");
    assert_eq!(r[1]["handoff"]["findings"][0]["id"], "R3-001");
    assert_eq!(r[3]["state"], "validating");
    assert_eq!(r[4]["finalize"]["state"], "approved");
    assert_eq!(
        r[4]["receipt"]["resolved_finding_ids"],
        serde_json::json!(["R3-001"])
    );
    assert_eq!(r[5]["decision"], "allow");
}

/// Without `--keep` the scratch repositories are removed when the demo
/// ends; with it they are kept (and no longer registered for removal) at
/// the path the answer names.
#[test]
fn the_demo_removes_its_repositories_unless_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let entries = || std::fs::read_dir(tmp.path()).unwrap().count();
    let v = demo_in(Some(tmp.path()), &[]);
    assert!(v["repository"].is_null(), "{v}");
    assert_eq!(entries(), 0, "the demo left its repositories");
    let v = demo_in(Some(tmp.path()), &["--keep"]);
    let kept = std::path::PathBuf::from(v["repository"].as_str().unwrap());
    assert!(kept.starts_with(tmp.path()), "{}", kept.display());
    assert!(kept.join(".git").is_dir(), "{}", kept.display());
    assert!(kept.join("src/parser.rs").is_file());
}
