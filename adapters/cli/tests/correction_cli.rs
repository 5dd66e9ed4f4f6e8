//! Causal admission, the refuter and bounded correction through the real
//! binary on real repositories.

mod support;

use probity_git::fixture::Fixture;
use serde_json::json;
use support::*;

/// A change of 8 authored lines in src/parser.rs (budget 4).
fn change() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    f.write("src/other.rs", "fn o() {}\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -1\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n").unwrap();
    f
}

impl Flow {
    /// `probity ARGS` is refused `error` (exit `exit`), the store as it was.
    fn refused_writing_nothing(&self, args: &[&str], exit: i32, error: &str) {
        let before = store_snapshot(&self.f);
        probity(self.f.root(), args).assert_refused(exit, error);
        assert_eq!(store_snapshot(&self.f), before);
    }

    /// The pre-commit gate exits `code` for `reason`.
    fn gate_says(&self, code: i32, reason: &str) {
        let g = probity(self.f.root(), &["validate", "--gate", "pre-commit"]);
        assert_eq!(
            (g.code, g.json["reason_code"].as_str()),
            (code, Some(reason)),
            "{}",
            g.stdout
        );
    }

    /// [`Flow::to_correction`], then the correction forecast at `lines`.
    fn forecast(lines: &str) -> Flow {
        let flow = Flow::to_correction();
        flow.run(&["--correction-lines", lines]);
        flow
    }

    fn to_correction() -> Flow {
        let (flow, s) = Flow::start(change());
        assert_eq!(s.json["correction_budget"], 4, "{}", s.stdout);
        let r = flow.doc("r.json", PARSER_BLOCKER);
        let fin = probity(flow.f.root(), &["finalize", "--result", &r]);
        assert_eq!(fin.json["state"], "correction_required", "{}", fin.stdout);
        assert_eq!(fin.json["action"], "forecast_correction");
        assert_eq!(
            fin.json["findings"],
            json!([{"id": "R3-001", "severity": "BLOCKER", "route": "correction"}])
        );
        flow
    }
}

/// [`change`] started (without `--lineage`), then finalized with the lens
/// `result`: the fixture, the inputs dir and the answer.
fn judged_with(result: &str) -> (Fixture, tempfile::TempDir, Run) {
    let f = change();
    let tmp = tempfile::tempdir().unwrap();
    probity(f.root(), &["start"]);
    let r = input(tmp.path(), "r.json", result);
    let answer = probity(f.root(), &["finalize", "--result", &r]);
    (f, tmp, answer)
}

#[test]
fn a_correction_is_measured_by_git_and_the_corrected_candidate_is_approved() {
    let flow = Flow::to_correction();
    let fc = flow.run(&["--correction-lines", "2"]);
    assert_eq!(
        (fc.json["state"].as_str(), fc.json["action"].as_str()),
        (Some("correction_required"), Some("provide_validation"))
    );
    // The fix: one line changed inside the genesis path.
    flow.f
        .write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    0\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n")
        .unwrap();
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    assert_eq!(v.json["state"], "validating", "{}", v.stdout);
    assert_eq!(
        v.json["charged_lines"], 2,
        "Git measured one removed and one added line"
    );
    assert_eq!(v.json["attempts"][0]["actual_lines"], 2);
    assert_eq!(v.json["attempts"][0]["forecast_lines"], 2);
    // The corrected candidate is discoverable by its own identity: starting
    // again resumes this lineage instead of opening a parallel one, and
    // finalize finds it without --lineage.
    let again = probity(flow.f.root(), &["start"]);
    assert_eq!(
        (
            again.json["lineage_id"].as_str(),
            again.json["resumed"].as_bool()
        ),
        (Some(flow.lineage.as_str()), Some(true)),
        "{}",
        again.stdout
    );
    assert_eq!(again.json["action"], "provide_evidence");
    let done = probity(
        flow.f.root(),
        &[
            "finalize",
            "--evidence",
            &flow.doc("ev.txt", "cargo test: ok\n"),
        ],
    );
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
    let receipt: serde_json::Value = serde_json::from_slice(
        &std::fs::read(done.json["receipt_path"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    assert_ne!(
        receipt["initial_review_tree"],
        receipt["final_candidate_tree"]
    );
    assert_eq!(receipt["resolved_finding_ids"], json!(["R3-001"]));
    // The gate allows the corrected candidate, discovered by its own identity.
    flow.gate_says(0, "receipt_valid");
    // And denies the uncorrected one.
    flow.f
        .write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -1\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n")
        .unwrap();
    flow.gate_says(1, "receipt_scope_changed");
    // And the uncorrected candidate is not reviewed again in this lineage.
    flow.refused_writing_nothing(&["start"], 4, "candidate_superseded");
}

#[test]
fn an_edit_outside_the_genesis_paths_is_refused_and_nothing_is_charged() {
    let flow = Flow::forecast("2");
    flow.f
        .write("src/other.rs", "fn o() { changed }\n")
        .unwrap();
    let before = store_snapshot(&flow.f);
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    v.assert_refused(3, "outside_genesis");
    assert_eq!(store_snapshot(&flow.f), before);
    // A new untracked file outside genesis is refused too.
    flow.f.git(&["checkout", "--", "src/other.rs"]).unwrap();
    flow.f.write("src/new.rs", "fn n() {}\n").unwrap();
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    assert_eq!(v.json["error"]["code"], "outside_genesis");
    assert_eq!(store_snapshot(&flow.f), before);
}

#[test]
fn a_zero_edit_attempt_escalates_at_once() {
    let flow = Flow::forecast("1");
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    assert_eq!(v.json["state"], "escalated", "{}", v.stdout);
    assert_eq!(v.json["escalation_reason"], "no_edit_attempt");
    assert!(v.json["receipt_path"].is_string());
}

#[test]
fn a_forecast_over_the_remaining_budget_escalates_before_the_edit() {
    let flow = Flow::forecast("2");
    flow.f
        .write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -2\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n")
        .unwrap();
    let failed = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_FAIL)]);
    assert_eq!(
        (
            failed.json["state"].as_str(),
            failed.json["charged_lines"].as_u64()
        ),
        (Some("correction_required"), Some(2))
    );
    // 2 charged + 3 forecast > 4: escalate before any edit.
    let over = flow.run(&["--correction-lines", "3"]);
    assert_eq!(over.json["state"], "escalated", "{}", over.stdout);
    assert_eq!(over.json["escalation_reason"], "forecast_over_budget");
    assert_eq!(over.json["charged_lines"], 2);
}

#[test]
fn a_refuted_inferential_finding_is_kept_and_the_review_proceeds() {
    let inferential = PARSER_BLOCKER.replace("deterministic", "inferential");
    let (f, tmp, r) = judged_with(&inferential);
    assert_eq!(
        (r.json["state"].as_str(), r.json["action"].as_str()),
        (Some("reviewing"), Some("provide_refuter"))
    );
    assert_eq!(r.json["findings"][0]["route"], "refuter");
    let before = store_snapshot(&f);
    let unknown = input(
        tmp.path(),
        "u.json",
        r#"{"outcomes":[{"finding_id":"R3-002","outcome":"refuted","evidence":["x"]}]}"#,
    );
    let bad = probity(f.root(), &["finalize", "--refuter", &unknown]);
    assert_eq!(
        (bad.code, bad.json["error"]["code"].as_str()),
        (3, Some("refuter_mismatch"))
    );
    assert_eq!(store_snapshot(&f), before);
    let batch = input(
        tmp.path(),
        "b.json",
        r#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["the sentinel is documented"]}]}"#,
    );
    let ok = probity(f.root(), &["finalize", "--refuter", &batch]);
    assert_eq!(ok.json["state"], "validating", "{}", ok.stdout);
    assert_eq!(ok.json["findings"][0]["route"], "refuted");
}

#[test]
fn a_causal_claim_outside_the_change_is_downgraded_and_escalates() {
    let outside = PARSER_BLOCKER.replace("src/parser.rs:3", "src/parser.rs:1");
    let (_f, _tmp, r) = judged_with(&outside);
    assert_eq!(r.json["state"], "escalated", "{}", r.stdout);
    assert_eq!(r.json["findings"][0]["route"], "escalation");
    assert_eq!(
        r.json["findings"][0]["causal_downgrade"],
        json!({"claimed": "introduced", "reason": "outside_changed_hunks"})
    );
}

#[test]
fn a_fix_is_charged_every_line_it_changes_whatever_it_claims_to_be() {
    let flow = Flow::forecast("2");
    // A "fix" that marks the file generated and adds 300 lines, and a NUL
    // byte so git would call it binary: all of it is charged.
    let mut body = String::from("// @generated\nfn a() {}\nfn b() -> i32 {\n    0\n}\n");
    for i in 0..300 {
        body.push_str(&format!("fn extra{i}() {{}}\n"));
    }
    body.push('\0');
    flow.f.write("src/parser.rs", body).unwrap();
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    assert_eq!(v.json["state"], "escalated", "{}", v.stdout);
    assert_eq!(v.json["escalation_reason"], "budget_exceeded");
    assert!(
        v.json["charged_lines"].as_u64().unwrap() > 300,
        "{}",
        v.stdout
    );
}

const FIXED: &str =
    "fn a() {}\nfn b() -> i32 {\n    0\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n";
const BUGGY: &str = "fn a() {}\nfn b() -> i32 {\n    -1\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n";

#[test]
fn evidence_is_refused_while_the_live_candidate_is_the_uncorrected_one() {
    let flow = Flow::forecast("2");
    flow.f.write("src/parser.rs", FIXED).unwrap();
    assert_eq!(
        flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)])
            .json["state"],
        "validating"
    );
    flow.f.write("src/parser.rs", BUGGY).unwrap();
    let before = store_snapshot(&flow.f);
    let ev = flow.doc("ev.txt", "tests: ok\n");
    let out = probity(flow.f.root(), &["finalize", "--evidence", &ev]);
    out.assert_refused(4, "candidate_changed");
    assert_eq!(store_snapshot(&flow.f), before);
}

#[test]
fn a_repeated_validation_after_a_new_forecast_is_a_no_edit_attempt() {
    let flow = Flow::forecast("1");
    flow.f
        .write("src/parser.rs", FIXED.replace("    0\n", "    -2\n"))
        .unwrap();
    let fail = flow.doc("fail.json", VALIDATION_FAIL);
    assert_eq!(
        flow.run(&["--validation", &fail]).json["state"],
        "correction_required"
    );
    flow.run(&["--correction-lines", "1"]);
    // Nothing edited since the failed attempt, the same validator document.
    let again = flow.run(&["--validation", &fail]);
    assert_eq!(
        again.json["escalation_reason"], "no_edit_attempt",
        "{}",
        again.stdout
    );
}

#[test]
fn a_correction_is_found_from_its_base_and_blocks_a_parallel_review() {
    let flow = Flow::forecast("2");
    flow.f.write("src/parser.rs", FIXED).unwrap();
    // `start` on the fix would open a fresh budget over the same paths.
    flow.refused_writing_nothing(&["start"], 4, "correction_open");
    // finalize finds the correction without --lineage.
    let v = probity(
        flow.f.root(),
        &[
            "finalize",
            "--validation",
            &flow.doc("v.json", VALIDATION_PASS),
        ],
    );
    assert_eq!(
        (v.code, v.json["lineage_id"].as_str()),
        (0, Some(flow.lineage.as_str())),
        "{}",
        v.stdout
    );
    assert_eq!(v.json["state"], "validating");
}

#[test]
fn an_illegal_input_late_in_one_call_changes_nothing() {
    let f = change();
    let tmp = tempfile::tempdir().unwrap();
    probity(f.root(), &["start"]);
    let before = store_snapshot(&f);
    let clean = input(tmp.path(), "r.json", CLEAN_RESULT);
    let batch = input(
        tmp.path(),
        "b.json",
        r#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]}]}"#,
    );
    // The results are legal, the refuter batch is not (nothing awaits it):
    // the whole call is refused and the results did not land either.
    let r = probity(
        f.root(),
        &["finalize", "--result", &clean, "--refuter", &batch],
    );
    r.assert_refused(3, "wrong_stage");
    assert_eq!(store_snapshot(&f), before);
}

#[test]
fn a_deleted_receipt_is_rewritten_by_finalize_from_state() {
    let flow = Flow::forecast("2");
    flow.f.write("src/parser.rs", FIXED).unwrap();
    flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    let done = flow.run(&["--evidence", &flow.doc("ev.txt", "ok\n")]);
    let receipt = done.json["receipt_path"].as_str().unwrap().to_string();
    let bytes = std::fs::read(&receipt).unwrap();
    std::fs::remove_file(&receipt).unwrap();
    let g = probity(flow.f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(g.json["reason_code"], "receipt_mismatch");
    assert_eq!(flow.run(&[]).code, 0);
    assert_eq!(std::fs::read(&receipt).unwrap(), bytes);
    assert_eq!(
        probity(flow.f.root(), &["validate", "--gate", "pre-commit"]).code,
        0
    );
}

#[test]
fn two_open_corrections_on_one_base_each_get_their_own_fix() {
    let f = Fixture::new().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    f.write("src/a.rs", "fn a() {}\n").unwrap();
    f.write("src/b.rs", "fn b() {}\n").unwrap();
    f.commit_all("base").unwrap();
    let blocker = |path: &str| PARSER_BLOCKER.replace("src/parser.rs:3", &format!("{path}:2"));
    // The live candidate judged with a BLOCKER on `path`: a correction.
    let correction_required = |name: &str, path: &str| {
        let r = input(tmp.path(), name, &blocker(path));
        assert_eq!(
            probity(f.root(), &["finalize", "--result", &r]).json["state"],
            "correction_required"
        );
    };
    // A corrects src/a.rs.
    f.write("src/a.rs", "fn a() {}\nfn a2() -> i32 { -1 }\n")
        .unwrap();
    let a = string_at(&probity(f.root(), &["start"]).json, "lineage_id");
    correction_required("ra.json", "src/a.rs");
    // B, on the same base, corrects src/b.rs (no overlap: allowed).
    f.git(&["checkout", "--", "src/a.rs"]).unwrap();
    f.write("src/b.rs", "fn b() {}\nfn b2() -> i32 { -1 }\n")
        .unwrap();
    let b = probity(f.root(), &["start"]);
    assert_eq!(b.code, 0, "{}", b.stdout);
    let b = string_at(&b.json, "lineage_id");
    correction_required("rb.json", "src/b.rs");
    // Back on A's candidate: a forecast without --lineage lands on A.
    f.git(&["checkout", "--", "src/b.rs"]).unwrap();
    f.write("src/a.rs", "fn a() {}\nfn a2() -> i32 { -1 }\n")
        .unwrap();
    let fc = probity(f.root(), &["finalize", "--correction-lines", "1"]);
    assert_eq!(
        fc.json["lineage_id"].as_str(),
        Some(a.as_str()),
        "{}",
        fc.stdout
    );
    assert_eq!(fc.json["action"], "provide_validation");
    assert_ne!(a, b);
    // With the worktree back at the base, the live candidate could be a
    // "fix" of either correction: discovery refuses to guess.
    f.git(&["checkout", "--", "src/a.rs"]).unwrap();
    let before = store_snapshot(&f);
    let amb = probity(
        f.root(),
        &[
            "finalize",
            "--validation",
            &input(tmp.path(), "v.json", VALIDATION_PASS),
        ],
    );
    amb.assert_refused(3, "ambiguous_correction");
    assert_eq!(store_snapshot(&f), before);
    f.write("src/a.rs", "fn a() {}\nfn a2() -> i32 { -1 }\n")
        .unwrap();
    // And a new review of A's paths is refused while A corrects them.
    f.write("src/a.rs", "fn a() {}\nfn a2() -> i32 { 0 }\n")
        .unwrap();
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.json["error"]["code"], "correction_open", "{}", s.stdout);
}

#[test]
fn a_mode_only_fix_is_charged() {
    let flow = Flow::forecast("1");
    let p = flow.f.root().join("src/parser.rs");
    let mut perms = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&p, perms).unwrap();
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    assert_eq!(v.json["charged_lines"], 1, "{}", v.stdout);
}

#[test]
fn a_fix_on_a_moved_head_is_refused() {
    let flow = Flow::forecast("2");
    flow.f.write("src/parser.rs", FIXED).unwrap();
    flow.f.commit_all("moves HEAD").unwrap();
    let before = store_snapshot(&flow.f);
    let v = flow.run(&["--validation", &flow.doc("v.json", VALIDATION_PASS)]);
    v.assert_refused(4, "base_changed");
    assert_eq!(store_snapshot(&flow.f), before);
}

/// Issue 22 §5: in text, a correction shows its budget as charged N of M,
/// and an escalation says why.
#[test]
fn text_answers_show_the_budget_charged_and_why_it_escalated() {
    let flow = Flow::to_correction();
    let text = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
            .arg("--cwd")
            .arg(flow.f.root())
            .args(["finalize", "--lineage", flow.lineage.as_str()])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let forecast = text(&["--correction-lines", "2"]);
    assert!(
        forecast.contains("  correction budget: charged 0 of 4 line(s), 0 attempt(s)\n"),
        "{forecast}"
    );
    flow.f
        .write("src/parser.rs", "fn a() {}\nfn b() -> i32 {\n    -2\n}\nfn c() {}\nfn d() {}\nfn e() {}\nfn g() {}\nfn h() {}\n")
        .unwrap();
    let failed = text(&["--validation", &flow.doc("v.json", VALIDATION_FAIL)]);
    assert!(
        failed.contains("  correction budget: charged 2 of 4 line(s), 1 attempt(s)\n"),
        "{failed}"
    );
    let over = text(&["--correction-lines", "3"]);
    assert!(
        over.contains("  escalated: forecast_over_budget (the correction's forecast lines exceed its budget, before any edit)\n"),
        "{over}"
    );
    assert!(over.contains("charged 2 of 4"), "{over}");
}
