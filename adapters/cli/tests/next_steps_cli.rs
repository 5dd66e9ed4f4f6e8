//! Every next step works (issue 8 §6): the tool is driven into each reason
//! code and error code it can reach on a real repository, the command its
//! advice names is run with the ids it names (only the values a person
//! gives are filled in), and the tool accepts it.

#[path = "support/next_steps.rs"]
mod next_steps;
mod support;

use next_steps::*;
use support::*;

#[test]
fn receipt_missing_then_review_incomplete_advice_works() {
    let r = Repo::new();
    let s = r.gate_leads("receipt_missing", "probity start");
    let lineage = string_at(&s.json, "lineage_id");
    let g = r.gate();
    assert_eq!(g.json["reason_code"], "review_incomplete");
    assert!(text(&g.json).contains(&lineage));
    let st = r.follow(&text(&g.json), "probity status");
    assert_eq!(st.json["next_transition"]["action"], "run_lenses");
}

#[test]
fn review_escalated_advice_recovers_with_authorization() {
    let (r, l) = Repo::escalated();
    let g = r.gate_says("review_escalated");
    let rec = r.follow(&text(&g.json), "probity recover");
    assert_eq!(rec.json["predecessor"]["lineage_id"], l.as_str());
    assert_eq!(r.gate().json["reason_code"], "review_incomplete");
}

#[test]
fn review_invalidated_and_lineage_invalidated_advice_recovers() {
    let r = Repo::new();
    let l = r.start();
    let inv = r.run(&["invalidate", "--lineage", &l, "--reason", "wrong files"]);
    assert_eq!(inv.code, 0, "{}", inv.stdout);
    let g = r.gate();
    assert_eq!(g.json["reason_code"], "review_invalidated");
    // `start` on the same candidate names the same recovery.
    let before = store_snapshot(&r.f);
    let s = r.run(&["start"]);
    assert_eq!(s.json["error"]["code"], "lineage_invalidated");
    assert_eq!(store_snapshot(&r.f), before);
    command_in(&text(&s.json["error"]), "probity recover", &r.fill());
    let rec = r.follow(&text(&g.json), "probity recover");
    assert_eq!(rec.json["generation"], 2);
}

#[test]
fn a_deleted_receipt_is_rewritten_by_the_named_finalize() {
    let r = Repo::new();
    approve_live(r.f.root(), r.tmp.path());
    let g = r.gate();
    assert_eq!(g.json["reason_code"], "receipt_valid");
    let l = string_at(&g.json, "lineage_id");
    std::fs::remove_file(lineage_dir(&r.f, &l).join("receipt.json")).unwrap();
    r.gate_leads("receipt_mismatch", "probity finalize");
    assert_eq!(r.gate().json["reason_code"], "receipt_valid");
}

#[test]
fn scope_changed_and_unrelated_advice_starts_a_review() {
    let r = Repo::new();
    approve_live(r.f.root(), r.tmp.path());
    r.f.write("src/parser.rs", body(2)).unwrap();
    let s = r.gate_leads("receipt_scope_changed", "probity start");
    assert_eq!(s.json["resumed"], false);
    // The approved lineage on that base is current again once restored;
    // new work elsewhere is unrelated and gets its own start.
    r.f.write("src/parser.rs", body(1)).unwrap();
    r.f.write("src/other.rs", "fn o() {}\nfn p() {}\n").unwrap();
    r.gate_leads("receipt_unrelated", "probity start");
}

#[test]
fn correction_open_advice_finishes_the_correction() {
    let r = Repo::new();
    let l = r.start();
    r.finalize(&l, &["--result", &r.doc("b.json", PARSER_BLOCKER)]);
    // The gate on the live candidate, then start over the same paths.
    let s = r.run(&["start"]);
    assert_eq!(s.json["resumed"], true, "the frozen candidate resumes");
    r.f.write("src/parser.rs", body(0)).unwrap();
    let before = store_snapshot(&r.f);
    let s = r.run(&["start"]);
    assert_eq!(s.json["error"]["code"], "correction_open", "{}", s.stdout);
    assert_eq!(store_snapshot(&r.f), before);
    let advice = text(&s.json["error"]);
    let st = r.follow(&advice, "probity status");
    assert_eq!(st.json["next_transition"]["action"], "forecast_correction");
    r.follow(&advice, "probity finalize --lineage");
    let v = r.follow(
        &advice,
        &format!("probity finalize --lineage {l} --validation"),
    );
    assert_eq!(v.json["state"], "validating", "{}", v.stdout);
}

#[test]
fn candidate_superseded_advice_restores_the_corrected_candidate() {
    let (r, l) = Repo::corrected();
    r.finalize(&l, &["--validation", &r.doc("p.json", VALIDATION_PASS)]);
    let done = r.finalize(&l, &["--evidence", &r.doc("ev.txt", "ok\n")]);
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
    // Back to the uncorrected candidate: start refuses to review it again.
    r.f.write("src/parser.rs", body(1)).unwrap();
    let s = r.run(&["start"]);
    s.assert_error("candidate_superseded");
    let args = command_in(&text(&s.json["error"]), "git restore", &[]);
    r.f.git(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(r.gate().json["reason_code"], "receipt_valid");
}

#[test]
fn recovery_errors_name_the_revision_and_the_successor() {
    let (r, l) = Repo::escalated();
    let st = r.run(&["status", "--lineage", &l]);
    let cmd = st.json["recover_command"].as_str().unwrap().to_string();
    // A stale revision: the answer names the current one.
    let stale = cmd.replace(
        st.json["store_revision"].as_str().unwrap(),
        &format!("sha256:{}", "0".repeat(64)),
    );
    let bad = r.refused_with(
        &format!("`{stale}`"),
        "probity recover",
        "revision_mismatch",
    );
    let fixed = text(&bad.json["error"]);
    assert!(fixed.contains(st.json["store_revision"].as_str().unwrap()));
    // Recover as printed; another request then names the successor.
    let ok = r.follow(&format!("`{cmd}`"), "probity recover");
    let succ = string_at(&ok.json, "lineage_id");
    let other = cmd.replace(" R ", " other ");
    let again = r.refused_with(
        &format!("`{other}`"),
        "probity recover",
        "already_superseded",
    );
    let next = text(&again.json["error"]);
    assert!(next.contains(&succ), "{next}");
    r.follow(&next, "probity status");
    // A review that is not terminal has no receipt to attest: the advice
    // names the next input of that lineage.
    let a = r.run(&["attest", "--lineage", &succ]);
    assert_eq!(a.json["error"]["code"], "not_terminal", "{}", a.stdout);
    r.follow(&text(&a.json["error"]), "probity status");
}

#[test]
fn json_usage_errors_name_the_argument() {
    let r = Repo::new();
    let missing = r.run(&["recover", "--predecessor-lineage", "x"]);
    assert_eq!(missing.code, 2);
    let arg = missing.json["error"]["argument"].as_str().unwrap();
    assert!(arg.contains("--expected-predecessor-revision"), "{arg}");
    assert!(missing.error_message().contains("--actor"));
    let bad = r.run(&["finalize", "--correction-lines", "many"]);
    assert_eq!(bad.json["error"]["argument"], "--correction-lines <N>");
    let next = bad.next_action();
    assert!(
        next.contains("many") && next.contains("probity finalize --help"),
        "{next}"
    );
    let unknown = r.run(&["start", "--frob"]);
    assert_eq!(unknown.json["error"]["argument"], "--frob");
}

#[test]
fn the_gate_during_an_open_correction_names_the_correction_not_a_start() {
    let (r, l) = Repo::corrected();
    let g = r.gate();
    assert_eq!(
        (g.json["decision"].as_str(), g.json["next_action"].as_str()),
        (Some("deny"), Some("finalize")),
        "{}",
        g.stdout
    );
    assert_eq!(g.json["lineage_id"], l.as_str());
    let advice = text(&g.json);
    assert!(!advice.contains("probity start"), "{advice}");
    let v = r.follow(
        &advice,
        &format!("probity finalize --lineage {l} --validation"),
    );
    assert_eq!(v.json["state"], "validating", "{}", v.stdout);
}
