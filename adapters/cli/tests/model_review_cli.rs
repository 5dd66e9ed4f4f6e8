//! The model judging inside the lifecycle (issue 10 §2), through the real
//! binary on real repositories against a scripted chat-completions server
//! on 127.0.0.1 that answers by role: `probity review --lineage L` runs the
//! selected lenses over the frozen tree, binds each answer to its kept
//! transcript, submits it with its binding, finalizes, runs the refuter
//! when needed and the independent check; a BLOCKER reaches
//! `forecast_correction` with the fixer's hand-off, and `--validate` runs
//! the targeted validator after the fix.

#[path = "support/model_review.rs"]
mod model_review;
mod support;

use model_review::*;
use probity_core::digest::Sha256Digest;
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use support::model_server::{Lens, role_server};
use support::*;

#[test]
fn a_scripted_model_reviews_the_frozen_lineage_to_approval() {
    let f = medium_change();
    let status_before = f.status().unwrap();
    let lineage = started(&f);
    let server = role_server(Lens::Clean);
    let r = review(
        &f,
        &server.base_url,
        &[
            "--lineage",
            &lineage,
            "--evidence-cmd",
            "--",
            "grep",
            "-q",
            "fn more",
            "src/parser.rs",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["state"], "approved", "{}", r.stdout);
    assert_eq!(r.json["action"], "none");
    assert_eq!(r.json["evidence_ran"], true);
    assert!(r.json["receipt_path"].is_string());
    let role = &r.json["roles"][0];
    // The usage the provider reported is in the log, beside the tool events:
    // the lineage's log file in the git directory, not stderr (issue 22 §5).
    let log_path = f
        .root()
        .join(".git/probity-logs")
        .join(format!("review-{lineage}.jsonl"));
    assert_eq!(r.json["log_file"], log_path.to_str().unwrap());
    let log = std::fs::read_to_string(&log_path).unwrap();
    let usage_line = log
        .lines()
        .find(|l| l.contains("review.model.usage"))
        .unwrap_or_else(|| panic!("{log}"));
    let usage: serde_json::Value = serde_json::from_str(usage_line).unwrap();
    assert_eq!(usage["usage"]["output_tokens"], 15);
    assert!(log.contains("review.snapshot.read"), "{log}");
    assert!(
        !r.stderr.contains("review."),
        "no event on stderr: {}",
        r.stderr
    );
    assert_eq!(role["role"], "reliability");
    assert_eq!(role["ok"], true);
    assert_eq!(role["model_calls"], 2);
    assert_eq!(role["usage"]["input_tokens"], 190);

    // The conversation: the binding (v2, naming the frozen prompt), the
    // frozen diff, and a tool round over the frozen tree.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let user = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(user.starts_with("probity-lens-binding/v2 "), "{user}");
    assert!(user.contains("+fn more() {}"), "{user}");
    let tool = &requests[1]["messages"][3];
    assert_eq!(tool["role"], "tool");
    assert!(
        tool["content"].as_str().unwrap().contains("fn more()"),
        "{tool}"
    );

    // The transcript is kept, digests as bound, and the bound evidence
    // entry names it.
    let rel = role["transcript"].as_str().unwrap();
    let bytes = std::fs::read(f.root().join(".git/probity/reviews/v1").join(rel)).unwrap();
    let digest = Sha256Digest::of(TRANSCRIPT_DOMAIN, &bytes);
    assert_eq!(role["transcript_digest"], digest.to_string().as_str());
    let state = state_of(&f, &lineage);
    let evidence = &state["state"]["stage"]["judgment"]["results"][0]["evidence"];
    let entry = format!(
        "probity-transcript {digest} prompt {}",
        role["prompt_digest"].as_str().unwrap()
    );
    assert!(
        evidence
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str() == Some(&entry)),
        "{evidence}"
    );
    // The gate allows the reviewed candidate; the worktree is untouched.
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(gate.json["decision"], "allow", "{}", gate.stdout);
    assert_eq!(f.status().unwrap(), status_before);

    // A rerun runs nothing: every lens has its result, the lineage is final.
    let before = server.requests().len();
    let again = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert_eq!(again.json["state"], "approved");
    assert_eq!(again.json["roles"], serde_json::json!([]));
    assert_eq!(server.requests().len(), before);
}

#[test]
fn a_blocker_reaches_forecast_correction_with_the_fixers_hand_off_then_the_validator() {
    let (f, lineage) = medium_started();
    let server = role_server(blocker("more() does nothing the caller relies on"));
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["state"], "correction_required", "{}", r.stdout);
    assert_eq!(r.json["action"], "forecast_correction");
    let h = &r.json["handoff"];
    assert_eq!(h["findings"][0]["id"], "R3-001");
    assert_eq!(h["findings"][0]["location"], "src/parser.rs:3");
    assert_eq!(
        h["allowed_paths"],
        serde_json::json!(["src/parser.rs", "src/parser_test.rs"])
    );
    assert!(
        h["next"][0]
            .as_str()
            .unwrap()
            .contains("--correction-lines")
    );

    // The fixer forecasts, edits inside the allowed paths, and the
    // targeted validator runs over the corrected candidate.
    let forecast = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--correction-lines", "1"],
    );
    assert_eq!(
        forecast.json["action"], "provide_validation",
        "{}",
        forecast.stdout
    );
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { parse() }\n",
    )
    .unwrap();
    let v = review(&f, &server.base_url, &["--lineage", &lineage, "--validate"]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert_eq!(v.json["roles"][0]["role"], "validator");
    assert_eq!(v.json["state"], "validating", "{}", v.stdout);
    let validator = server
        .requests()
        .into_iter()
        .rev()
        .find(|b| {
            b["messages"][0]["content"]
                .as_str()
                .unwrap_or("")
                .contains("role=validator")
        })
        .unwrap();
    let user = validator["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("R3-001"), "{user}");
    assert!(user.contains("+fn more() { parse() }"), "{user}");
}

#[test]
fn an_answer_that_stays_prose_is_refused_and_nothing_is_submitted() {
    let (f, lineage) = medium_started();
    let before = store_snapshot(&f);
    let server = role_server(Lens::Prose);
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["roles"][0]["ok"], false);
    assert_eq!(
        r.json["roles"][0]["error"]["code"], "lens_result_invalid",
        "{}",
        r.stdout
    );
    assert_eq!(r.json["state"], "reviewing");
    assert_eq!(r.json["action"], "run_lenses");
    // Three model calls: the read, the prose, the prose after the repair
    // turn (which quoted the refusal).
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let repair = requests[2]["messages"].as_array().unwrap().last().unwrap();
    assert!(
        repair["content"]
            .as_str()
            .unwrap()
            .contains("not a valid `reviewer` document"),
        "{repair}"
    );
    assert_eq!(store_snapshot(&f), before, "nothing was kept or submitted");

    // Prose once, then the document: repaired, submitted, finalized.
    let server = role_server(Lens::ProseThenClean);
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["roles"][0]["repaired"], true);
    assert_eq!(r.json["state"], "validating");
    assert_eq!(r.json["action"], "provide_evidence");
}

/// A high-risk change: four lenses, run two at a time; one lens's model
/// fails, the other three are submitted; a rerun runs only that one.
#[test]
fn a_failed_lens_never_blocks_the_others_and_a_rerun_runs_only_it() {
    let (f, lineage) = high_risk_started();
    let st = probity(f.root(), &["status", "--lineage", &lineage]);
    assert_eq!(st.json["risk_level"], "high", "{}", st.stdout);
    let failing = role_server(Lens::FailsFor("resilience".into()));
    let r = review(
        &f,
        &failing.base_url,
        &["--lineage", &lineage, "--jobs", "2"],
    );
    assert_eq!(r.code, 7, "{}{}", r.stdout, r.stderr);
    let roles = r.json["roles"].as_array().unwrap();
    assert_eq!(roles.len(), 4);
    let failed: Vec<_> = roles
        .iter()
        .filter(|x| x["ok"] == false)
        .map(|x| x["role"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["resilience"]);
    assert_eq!(r.json["state"], "reviewing");
    let kept = probity(
        f.root(),
        &["lens", "preflight", "--lineage", &lineage, "--lens", "risk"],
    );
    assert!(kept.code == 0 || kept.code == 3, "{}", kept.stdout);

    let good = role_server(Lens::Clean);
    let r = review(&f, &good.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let ran = roles_of(&r);
    assert_eq!(ran, ["resilience"]);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    // Only the missing lens asked the second server (a read, an answer).
    assert_eq!(good.requests().len(), 2);
}

#[test]
fn an_inferential_critical_runs_the_refuter_batch_once() {
    let (f, lineage) = medium_started();
    let server = role_server(inferential(BEFORE_PARSE));
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(roles_of(&r), ["reliability", "refuter"]);
    // Corroborated and candidate-causal: admitted to correction.
    assert_eq!(r.json["state"], "correction_required", "{}", r.stdout);
    assert_eq!(r.json["findings"][0]["route"], "correction");
    let refuter = server
        .requests()
        .into_iter()
        .find(|b| {
            b["messages"][0]["content"]
                .as_str()
                .unwrap_or("")
                .contains("role=refuter")
        })
        .unwrap();
    assert!(
        refuter["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("- R3-001 (CRITICAL)")
    );
}

#[test]
fn without_a_model_the_review_is_refused_before_anything_runs() {
    let (f, lineage) = medium_started();
    let before = store_snapshot(&f);
    let r = probity(f.root(), &["review", "--lineage", &lineage]);
    r.assert_refused(2, "model_not_configured");
    let bad = probity(f.root(), &["review", "--lineage", "review-zz"]);
    assert_eq!(bad.code, 2, "{}", bad.stdout);
    assert_eq!(store_snapshot(&f), before);
}
