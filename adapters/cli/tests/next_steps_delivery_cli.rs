//! Every next step works (issue 8 §6), for deliveries: pushes, stacks,
//! rebases, signatures, the status and MCP answers (moved out of
//! `next_steps_cli.rs`: moves only).

#[path = "support/next_steps.rs"]
mod next_steps;
mod support;

use next_steps::*;
use serde_json::Value;
use support::*;

/// The pre-push gate on `origin`.
fn pre_push(r: &Repo) -> Run {
    r.run(&["validate", "--gate", "pre-push", "--remote", "origin"])
}

/// Asserts the gate allowed.
fn assert_allows(d: &Run) {
    assert_eq!(d.json["decision"], "allow", "{}", d.stdout);
}

/// `lens submit --lineage LINEAGE --lens LENS RESULT`, asserted to exit 0.
fn submit(r: &Repo, lineage: &str, lens: &Value, result: &str) {
    let lens = lens.as_str().unwrap();
    let sub = r.run(&[
        "lens",
        "submit",
        "--lineage",
        lineage,
        "--lens",
        lens,
        result,
    ]);
    assert_eq!(sub.code, 0, "{}{}", sub.stdout, sub.stderr);
}

/// `finalize --lineage L` with the clean result for every selected lens,
/// then `tail`.
fn finalize_all_clean(r: &Repo, l: &str, tail: &[&str]) -> Run {
    let clean = r.doc("clean.json", CLEAN_RESULT);
    let st = r.run(&["status", "--lineage", l]);
    let mut args = finalize_args(l, st.json["selected_lenses"].as_array().unwrap(), &clean);
    args.extend(tail.iter().map(|a| (*a).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    r.run(&args)
}

/// A started review given every clean result and the check `PROGRAM`:
/// the repository, the lineage and the answer.
fn checked_with(program: &str) -> (Repo, String, Run) {
    let r = Repo::new();
    let l = r.start();
    let done = finalize_all_clean(&r, &l, &["--evidence-cmd", "--", program]);
    (r, l, done)
}

/// The gate's denial `d` is `reason`; its advice rebases onto `onto`, and
/// (done) names the start of the rebased range, which is followed: its
/// answer.
fn rebase_as_advised(r: &Repo, d: &Run, reason: &str, onto: &str) -> Run {
    assert_eq!(d.json["reason_code"], reason, "{}", d.stdout);
    let advice = text(&d.json);
    let rebase = command_in(&advice, "git rebase", &[]);
    assert_eq!(rebase, ["rebase".to_string(), onto.to_owned()]);
    r.f.git(&["rebase", "-q", &rebase[1]]).unwrap();
    r.follow(&advice, "probity start --range")
}

/// A check that leaves a marker file in `dir` when it runs: the marker and
/// the `sh -c` script.
fn marking_check(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let marker = dir.join("the-check-ran");
    let script = format!("touch '{}'", marker.display());
    (marker, script)
}

/// Asserts the run left the lineage in `state`.
fn assert_state(r: &Run, state: &str) {
    assert_eq!(r.json["state"], state, "{}", r.stdout);
}

/// Asserts the run was refused with `code`.
fn assert_error(d: &Run, code: &str) {
    assert_eq!(d.json["error"]["code"], code, "{}{}", d.stdout, d.stderr);
}

/// Committed, unreviewed work at pre-push names `probity start --commit`
/// with the real sha; following it (and the review it starts) allows.
#[test]
fn start_commit_review_advice_reviews_the_commit_as_committed() {
    let r = Repo::new();
    with_remote(&r);
    r.f.commit_all("committed before review").unwrap();
    let d = pre_push(&r);
    assert_eq!(d.json["reason_code"], "receipt_missing", "{}", d.stdout);
    assert_eq!(d.json["next_action"], "start_commit_review");
    let s = r.follow(&text(&d.json), "probity start --commit");
    approve_started(r.f.root(), r.tmp.path(), &s.json);
    assert_allows(&pre_push(&r));
}

/// A lineage superseded by its recovery names the leaf's status, which
/// answers and names the leaf's next input.
#[test]
fn receipt_superseded_advice_names_the_leaf() {
    let r = Repo::new();
    let approved = approve_live(r.f.root(), r.tmp.path());
    let lineage = string_at(&approved, "lineage_id");
    let rev = string_at(&approved, "store_revision");
    r.f.write("src/parser.rs", body(2)).unwrap();
    let succ = r.run(&recover_args(
        &lineage,
        &rev,
        "scope_changed",
        "a second look",
        "maintainer",
    ));
    assert_eq!(succ.code, 0, "{}{}", succ.stdout, succ.stderr);
    // Back to the candidate the predecessor approved: history, not authority.
    r.f.write("src/parser.rs", body(1)).unwrap();
    let st = r.gate_leads("receipt_superseded", "probity status");
    assert_eq!(st.json["lineage_id"], succ.json["lineage_id"]);
}

/// A push that does not fast-forward the remote names the git commands that
/// put the commits on its tip; after them, a reviewed commit rebased onto
/// work on other paths is allowed by the rebase proof.
#[test]
fn not_fast_forward_advice_rebases_and_the_review_carries_over() {
    let r = Repo::new();
    let bare = with_remote(&r);
    approve_live(r.f.root(), r.tmp.path());
    r.f.commit_all("reviewed").unwrap();
    let mine = head(&r);
    // Someone else's work on another path lands on the remote first.
    let other = r.tmp.path().join("other");
    r.f.git(&[
        "clone",
        "-q",
        "-b",
        "main",
        bare.to_str().unwrap(),
        other.to_str().unwrap(),
    ])
    .unwrap();
    for (k, v) in [
        ("user.name", "Other"),
        ("user.email", "other@example.invalid"),
    ] {
        r.f.git_in(&other, &["config", k, v]).unwrap();
    }
    std::fs::write(other.join("README.md"), "# elsewhere\n").unwrap();
    r.f.git_in(&other, &["add", "-A"]).unwrap();
    r.f.git_in(&other, &["commit", "-q", "-m", "elsewhere"])
        .unwrap();
    r.f.git_in(&other, &["push", "-q", "origin", "HEAD:refs/heads/main"])
        .unwrap();
    let theirs = rev_parse_in(&r.f, &other, "HEAD");
    let push = |local: &str| {
        let line = format!("refs/heads/main {local} refs/heads/main {theirs}\n");
        let out = output_with_stdin(
            std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
                .args(["--json", "--cwd", r.f.root().to_str().unwrap()])
                .args(["validate", "--gate", "pre-push", "--remote", "origin"])
                .arg("--stdin-updates")
                .env("HOME", r.tmp.path()),
            line.as_bytes(),
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let d = push(&mine);
    assert_eq!(d["reason_code"], "delivery_not_fast_forward", "{d}");
    // Follow the advice: `git fetch`, then `git rebase <their tip>`.
    let advice = text(&d);
    let rebase = command_in(&advice, "git rebase", &[]);
    assert_eq!(rebase, ["rebase".to_string(), theirs.clone()]);
    r.f.git(&["fetch", "-q", "origin"]).unwrap();
    r.f.git(&["rebase", "-q", &rebase[1]]).unwrap();
    let d = push(&head(&r));
    assert_eq!(d["decision"], "allow", "{d}");
    assert_eq!(d["proof"]["kind"], "rebased_onto", "{d}");
}

/// A merge commit in a push names the rebase that linearizes it onto what
/// the remote holds and the start that reviews the result; both are
/// accepted.
#[test]
fn delivery_partial_advice_linearizes_and_reviews_the_stack() {
    let r = Repo::new();
    with_remote(&r);
    let base = head(&r);
    r.f.commit_all("one side").unwrap();
    r.f.git(&["checkout", "-q", "-b", "other", &base]).unwrap();
    r.f.write("src/other.rs", "fn o() {}\nfn q() {}\n").unwrap();
    r.f.commit_all("other side").unwrap();
    r.f.git(&["checkout", "-q", "-"]).unwrap();
    r.f.git(&["merge", "-q", "--no-edit", "other"]).unwrap();
    let s = rebase_as_advised(&r, &pre_push(&r), "delivery_partial", &base);
    assert_eq!(
        s.json["lineages"].as_array().map(Vec::len),
        Some(2),
        "{}",
        s.stdout
    );
}

/// A base that advanced over the proposal's paths names the rebase onto it
/// and the start that reviews the rebased commit; both are accepted.
#[test]
fn base_advanced_advice_rebases_and_reviews_the_rebased_commit() {
    let r = Repo::new();
    with_remote(&r);
    // The proposal: the reviewed change, committed on a feature branch.
    r.f.git(&["checkout", "-q", "-b", "feature"]).unwrap();
    approve_live(r.f.root(), r.tmp.path());
    r.f.commit_all("the proposal").unwrap();
    // main advances over the same file, in another place.
    r.f.git(&["checkout", "-q", "main"]).unwrap();
    r.f.write("src/parser.rs", "// the parser\nfn a() {}\n")
        .unwrap();
    r.f.commit_all("upstream edit").unwrap();
    let tip = head(&r);
    r.f.git(&["checkout", "-q", "feature"]).unwrap();
    let d = r.run(&["validate", "--gate", "pre-pr", "--base", "main"]);
    let s = rebase_as_advised(&r, &d, "base_advanced", &tip);
    let started = &s.json["lineages"][0];
    approve_started(r.f.root(), r.tmp.path(), started);
    let d = r.run(&["validate", "--gate", "pre-pr", "--base", "main"]);
    assert_allows(&d);
}

/// Regression (issue 12): a malformed refuter or validator document was
/// pointed at `probity schema reviewer`; the advice names its own schema,
/// which parses, and nothing changed.
#[test]
fn malformed_documents_name_their_own_schema() {
    let r = Repo::new();
    let lineage = r.start();
    let before = store_snapshot(&r.f);
    for (flag, role) in [
        ("--refuter", "refuter"),
        ("--validation", "validator"),
        ("--result", "reviewer"),
    ] {
        let bad = r.doc(&format!("bad-{role}.json"), r#"{"nope": 1}"#);
        let d = r.finalize(&lineage, &[flag, &bad]);
        assert_eq!(d.code, 3, "{}", d.stdout);
        assert_eq!(d.json["error"]["code"], "malformed_input");
        let next = d.next_action();
        assert!(next.contains(&format!("probity schema {role}")), "{next}");
        let schema = r.run(&["schema", role]);
        assert_eq!(schema.code, 0);
        assert!(store_snapshot(&r.f) == before, "the store changed");
    }
}

/// Regression: a review of committed work, walked one input at a time as
/// its messages say (submit, finalize, evidence in separate calls), reaches
/// approval; the evidence step used to answer `candidate_changed`, and the
/// submit's next step named a `probity finalize` that found no review.
#[test]
fn a_committed_review_walks_input_by_input_to_approval() {
    let r = Repo::new();
    with_remote(&r);
    r.f.commit_all("committed before review").unwrap();
    let s = r.run(&["start", "--commit", "HEAD"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    let lineage = string_at(&s.json, "lineage_id");
    assert!(text(&s.json).contains(&format!("--lineage {lineage}")));
    let result = r.doc("clean.json", r#"{"findings":[],"evidence":["read it"]}"#);
    for lens in s.json["selected_lenses"].as_array().unwrap() {
        submit(&r, &lineage, lens, &result);
    }
    // An exact resubmission answers again; its advice, followed as printed.
    let sub = r.run(&[
        "lens",
        "submit",
        "--lineage",
        &lineage,
        "--lens",
        s.json["selected_lenses"][0].as_str().unwrap(),
        &result,
    ]);
    let f = r.follow(&text(&sub.json), "probity finalize");
    assert_state(&f, "validating");
    let e = r.finalize(&lineage, &["--evidence-cmd", "--", "true"]);
    assert_eq!(e.code, 0, "{}{}", e.stdout, e.stderr);
    assert_eq!(e.json["state"], "approved");
    assert_allows(&pre_push(&r));
}

/// Issue 26 §1: after a failed check, finalize's own answer names the
/// recovery with the revision filled in (it printed `<rev>` though the
/// revision is in the same answer); followed as printed, it is accepted.
#[test]
fn a_failed_check_names_the_recovery_with_its_revision() {
    let (r, l, f) = checked_with("false");
    assert_state(&f, "escalated");
    let advice = text(&f.json);
    assert_eq!(placeholders(&advice), Vec::<String>::new(), "{advice}");
    assert!(
        advice.contains(f.json["store_revision"].as_str().unwrap()),
        "{advice}"
    );
    // The text answer says the same.
    let plain = std::process::Command::new(env!("CARGO_BIN_EXE_probity"))
        .args([
            "--cwd",
            r.f.root().to_str().unwrap(),
            "status",
            "--lineage",
            &l,
        ])
        .env("HOME", r.tmp.path())
        .output()
        .unwrap();
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    assert_eq!(placeholders(&plain), Vec::<String>::new(), "{plain}");
    let rec = r.follow(&advice, "probity recover");
    assert_eq!(rec.json["predecessor"]["lineage_id"], l.as_str());
}

/// Issue 26 §2: a worktree file whose name is not UTF-8 made the gate say
/// "run `probity start`", which refuses it (`path_not_utf8`). The gate
/// names the path and the way out; followed, the gate then leads on to a
/// start that is accepted.
#[test]
fn a_non_utf8_name_at_the_gate_names_the_way_out() {
    use std::os::unix::ffi::OsStrExt;
    let r = Repo::new();
    let name = std::ffi::OsStr::from_bytes(b"notes-\xff.txt");
    std::fs::write(r.f.root().join(name), "x\n").unwrap();
    let g = r.gate();
    assert_eq!(g.json["decision"], "deny", "{}", g.stdout);
    let advice = text(&g.json);
    let s = r.run(&["start"]);
    assert_eq!(s.json["error"]["code"], "path_not_utf8", "{}", s.stdout);
    assert!(
        advice.contains("not UTF-8") && advice.contains("path_not_utf8"),
        "the gate advises a start that refuses, without the way out: {advice}"
    );
    assert!(
        advice.contains("notes-\\xff.txt"),
        "the path is named: {advice}"
    );
    assert!(advice.contains(".git/info/exclude"), "{advice}");
    // The way out, as said: keep it out of the candidate.
    std::fs::write(r.f.root().join(".git/info/exclude"), b"notes-*.txt\n").unwrap();
    r.gate_leads("receipt_missing", "probity start");
}

/// Issue 26 §2: `wrong_stage` sends people to `probity status`; its plain
/// text answer names the next input (it printed no next line), and that
/// next input, followed, is accepted.
#[test]
fn wrong_stage_leads_to_a_status_that_names_the_next_input() {
    let r = Repo::new();
    let l = r.start();
    let blocked = r.finalize(&l, &["--result", &r.doc("b.json", PARSER_BLOCKER)]);
    assert_eq!(
        blocked.json["state"], "correction_required",
        "{}",
        blocked.stdout
    );
    let wrong = r.finalize(&l, &["--evidence", &r.doc("ev.txt", "ok\n")]);
    wrong.assert_error("wrong_stage");
    let advice = text(&wrong.json["error"]);
    let args = command_in(&advice, "probity status", &r.fill());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let said = plain(&r, &args);
    let next = said
        .lines()
        .find(|l| l.trim_start().starts_with("next:"))
        .unwrap_or_else(|| panic!("no next line in {said:?}"));
    let f = r.follow(
        next,
        &format!("probity finalize --lineage {l} --correction-lines"),
    );
    assert_eq!(f.json["action"], "provide_validation", "{}", f.stdout);
}

/// Issue 26 §2: once `lens submit` kept every selected lens result,
/// `status --next-transition` names the finalize that takes them (it still
/// said `run_lenses`); followed, it is accepted.
#[test]
fn status_after_every_lens_is_kept_names_finalize() {
    let r = Repo::new();
    let l = r.start();
    let clean = r.doc("clean.json", CLEAN_RESULT);
    let st = r.run(&["status", "--lineage", &l]);
    for lens in st.json["selected_lenses"].as_array().unwrap() {
        submit(&r, &l, lens, &clean);
    }
    let st = r.run(&["status", "--lineage", &l, "--next-transition"]);
    assert_eq!(
        st.json["next_transition"]["action"], "finalize",
        "{}",
        st.stdout
    );
    assert_eq!(st.json["action"], "finalize", "{}", st.stdout);
    let next = st.json["next_transition"]["message"].as_str().unwrap();
    assert_eq!(placeholders(next), Vec::<String>::new(), "{next}");
    let f = r.follow(next, "probity finalize");
    assert_state(&f, "validating");
}

/// Issue 26 §3 (R6.3): when `finalize` answers `correction_required`, it
/// hands the fixer the admitted claims and the paths a fix may touch, the
/// same hand-off `probity review --lineage` gives; its steps, followed with
/// only a person's values filled in, are accepted.
#[test]
fn finalize_hands_the_fixer_the_same_handoff_as_review() {
    let r = Repo::new();
    let l = r.start();
    let f = r.finalize(&l, &["--result", &r.doc("b.json", PARSER_BLOCKER)]);
    assert_state(&f, "correction_required");
    let handoff = &f.json["handoff"];
    assert_eq!(handoff["lineage_id"], l.as_str(), "{}", f.stdout);
    assert_eq!(
        handoff["findings"][0]["claim"], "b returns a negative sentinel",
        "{}",
        f.stdout
    );
    assert_eq!(
        handoff["allowed_paths"],
        serde_json::json!(["src/parser.rs"])
    );
    // `probity review --lineage` (no role is due: nothing asks the model)
    // hands over the same.
    let rev = probity_env(
        r.f.root(),
        &["review", "--lineage", &l],
        &[
            ("PROBITY_MODEL_BASE_URL", "http://127.0.0.1:9"),
            ("PROBITY_MODEL", "scripted"),
        ],
    );
    assert_eq!(
        &rev.json["handoff"], handoff,
        "{}{}",
        rev.stdout, rev.stderr
    );
    let steps: Vec<String> = handoff["next"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    for s in &steps {
        assert_eq!(placeholders(s), Vec::<String>::new(), "{s}");
    }
    let forecast = steps
        .iter()
        .find(|s| s.contains("--correction-lines"))
        .unwrap();
    r.follow(forecast, "probity finalize");
    r.f.write("src/parser.rs", body(0)).unwrap();
    let validate = steps.iter().find(|s| s.contains("--validation")).unwrap();
    let v = r.follow(validate, "probity finalize");
    assert_state(&v, "validating");
    // The text answer hands it over too.
    let r2 = Repo::new();
    let l2 = r2.start();
    let said = plain(
        &r2,
        &[
            "finalize",
            "--lineage",
            &l2,
            "--result",
            &r2.doc("b.json", PARSER_BLOCKER),
        ],
    );
    assert!(said.contains("fix exactly: "), "{said}");
}

/// Issue 26 §4: on a server that requires signatures, an unsigned bundle
/// on top of signed, published work was dropped silently and the push
/// denied `receipt_unrelated`, naming the earlier review. It is
/// `signature_missing`, naming the review to sign; signing it as said is
/// accepted and the push then allowed.
#[test]
fn an_unsigned_review_on_a_signing_server_is_signature_missing() {
    let (f, _dir, server) = hooked_origin();
    let tmp = tempfile::tempdir().unwrap();
    let alice = require_alice(&f, &server, tmp.path());
    f.git(&["config", "probity.signingKey", alice.to_str().unwrap()])
        .unwrap();
    // A first review, signed and delivered.
    write_medium_change(&f);
    let first = approve_live(f.root(), tmp.path());
    let l1 = first["lineage_id"].as_str().unwrap();
    let a = probity_home(f.root(), tmp.path(), &["attest", "--lineage", l1, "--sign"]);
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    f.commit_all("first, signed").unwrap();
    // A second review on top, not signed; both pushed at once.
    f.write("src/lexer.rs", "fn lex() {}\n").unwrap();
    let second = approve_live(f.root(), tmp.path());
    let l2 = string_at(&second, "lineage_id");
    f.commit_all("second, unsigned").unwrap();
    let p = probity_home(f.root(), tmp.path(), &["push", "origin", "main"]);
    assert_ne!(p.code, 0, "{}{}", p.stdout, p.stderr);
    let said = format!("{}{}", p.stdout, p.stderr);
    assert!(said.contains("signature_missing"), "{said}");
    assert!(!said.contains("receipt_unrelated"), "{said}");
    // The answer names what the server refused (git's porcelain report).
    let message = p.json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("refs/heads/main [remote rejected]"),
        "{message}"
    );
    let sign = format!("probity attest --lineage {l2} --sign");
    assert!(said.contains(&sign), "{said}");
    let a = probity_home(
        f.root(),
        tmp.path(),
        &["attest", "--lineage", &l2, "--sign"],
    );
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    let p = probity_home(f.root(), tmp.path(), &["push", "origin", "main"]);
    assert_eq!(p.code, 0, "{}{}", p.stdout, p.stderr);
}

/// Issue 26 §4: deleting a ref the server does not have (git sends the
/// hook `0000… 0000… ref` and warns "deleting a non-existent ref") was
/// refused as malformed hook input (`bad_receive_input`). It withdraws
/// nothing: the server gate lets it through, and nothing else moves.
#[test]
fn deleting_a_ref_the_server_lacks_is_not_bad_input() {
    let (f, _dir, server) = hooked_origin();
    let before = f.git_in(&server, &["rev-parse", "main"]).unwrap();
    let out = f.git(&["push", "origin", ":refs/heads/nope"]);
    assert!(out.is_ok(), "{out:?}");
    // By hand, as git hands it over.
    let zeros = "0".repeat(40);
    let r = probity_stdin(
        &server,
        &["validate", "--gate", "pre-receive"],
        format!("{zeros} {zeros} refs/heads/nope\n").as_bytes(),
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(f.git_in(&server, &["rev-parse", "main"]).unwrap(), before);
}

/// Issue 26 §5: during `git commit --amend` the pre-commit gate judged old
/// HEAD → the index and advised `probity start` (HEAD → worktree), which
/// pre-push then does not accept: the amended commit delivers HEAD~1 → the
/// index. The gate detects the amend and advises what pre-push accepts;
/// followed step by step, the commit is made and the push allowed.
#[test]
fn an_amend_at_pre_commit_is_advised_what_pre_push_accepts() {
    let r = Repo::new();
    with_remote(&r);
    let i = r.run(&["hooks", "install"]);
    assert_eq!(i.code, 0, "{}", i.stdout);
    approve_live(r.f.root(), r.tmp.path());
    r.f.git(&["add", "-A"]).unwrap();
    r.f.git(&["commit", "-q", "-m", "reviewed"]).unwrap();
    // Amend the reviewed commit with a further change.
    r.f.write("src/parser.rs", body(2)).unwrap();
    r.f.git(&["add", "-A"]).unwrap();
    let err =
        r.f.git(&["commit", "-q", "--amend", "-m", "reviewed, amended"])
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("amends HEAD"),
        "the amend is not recognized: {err}"
    );
    let reset = command_in(&err, "git reset", &[]);
    assert_eq!(reset, ["reset", "--soft", "HEAD~1"], "{err}");
    r.f.git(&reset.iter().map(String::as_str).collect::<Vec<_>>())
        .unwrap();
    let s = r.follow(&err, "probity start");
    approve_started(r.f.root(), r.tmp.path(), &s.json);
    let commit = command_in(&err, "git commit", &[]);
    r.f.git(&commit.iter().map(String::as_str).collect::<Vec<_>>())
        .unwrap();
    let log = String::from_utf8(r.f.git(&["log", "--format=%s"]).unwrap()).unwrap();
    assert_eq!(log.lines().next(), Some("reviewed"), "{log}");
    assert_allows(&pre_push(&r));
}

/// Issue 26 §6: one vocabulary. Every answer routes with `action` (the
/// gates said `next_action`, kept one version as a documented alias); the
/// text says `store_revision` as the JSON does.
#[test]
fn one_name_per_concept_in_json_and_text() {
    let r = Repo::new();
    let g = r.gate();
    assert_eq!(g.json["action"], "start_review", "{}", g.stdout);
    assert_eq!(g.json["next_action"], g.json["action"], "the alias stays");
    let l = r.start();
    let st = r.run(&["status", "--lineage", &l]);
    let rev = st.json["store_revision"].as_str().unwrap();
    let said = plain(&r, &["status", "--lineage", &l]);
    assert!(said.contains(&format!("store_revision: {rev}")), "{said}");
    assert!(!said.contains("  revision:"), "{said}");
    // The server gate's denial routes with `action` too (a protected
    // ref's deletion, as git hands it to the hook).
    let (f, _dir, server) = hooked_origin();
    let main = String::from_utf8(f.git_in(&server, &["rev-parse", "main"]).unwrap()).unwrap();
    let zeros = "0".repeat(40);
    let d = probity_stdin(
        &server,
        &["validate", "--gate", "pre-receive"],
        format!("{} {zeros} refs/heads/main\n", main.trim()).as_bytes(),
    );
    assert_eq!(
        d.json["reason_code"], "protected_ref_deleted",
        "{}{}",
        d.stdout, d.stderr
    );
    assert_eq!(d.json["action"], "keep_ref", "{}", d.stdout);
    assert_eq!(d.json["next_action"], d.json["action"], "{}", d.stdout);
}

/// Over MCP (issue 26 §2, §6): the tools answer in the same words, and the
/// answer's `action` names the tool to call next (the finalize tool says
/// "loop on the answer's `action`"); followed, the tools accept it.
#[test]
fn over_mcp_the_action_names_the_next_tool_and_it_accepts() {
    use serde_json::json;
    let r = Repo::new();
    let mut mcp = support::mcp::Session::start(r.f.root());
    let (err, v) = mcp.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{v}");
    assert_eq!(v["action"], "start_review", "{v}");
    let (err, s) = mcp.call("start", json!({}));
    assert!(!err, "{s}");
    let l = string_at(&s, "lineage_id");
    for lens in s["selected_lenses"].as_array().unwrap() {
        let (err, v) = mcp.call(
            "lens_submit",
            json!({"lineage": l, "lens": lens, "result": serde_json::from_str::<serde_json::Value>(CLEAN_RESULT).unwrap()}),
        );
        assert!(!err, "{v}");
    }
    let (err, st) = mcp.call("status", json!({"lineage": l, "next_transition": true}));
    assert!(!err, "{st}");
    assert_eq!(st["action"], "finalize", "{st}");
    let (err, f) = mcp.call("finalize", json!({"lineage": l}));
    assert!(!err, "{f}");
    assert_eq!(f["action"], "provide_evidence", "{f}");
    let (err, f) = mcp.call(
        "finalize",
        json!({"lineage": l, "evidence": "cargo test: ok"}),
    );
    assert!(!err, "{f}");
    assert_eq!(f["state"], "approved", "{f}");
    let (err, v) = mcp.call("validate", json!({"gate": "pre-commit"}));
    assert!(!err, "{v}");
    assert_eq!(v["decision"], "allow", "{v}");
    assert_eq!(v["action"], "none", "{v}");
}

/// Issue 26 §7: `finalize --evidence-cmd` on a lineage that already took
/// its final evidence refuses a check that cannot match it
/// (`different_retry`) before running it (it ran the whole check first);
/// an exact retry of the check it took still runs and answers the same;
/// the refusal's next step, followed, answers.
#[test]
fn evidence_cmd_on_a_final_lineage_is_refused_before_the_check_runs() {
    let (r, l, done) = checked_with("true");
    assert_state(&done, "approved");
    let before = store_snapshot(&r.f);
    // Another check: refused before it runs.
    let (marker, script) = marking_check(r.tmp.path());
    let other = r.finalize(&l, &["--evidence-cmd", "--", "sh", "-c", &script]);
    assert_error(&other, "different_retry");
    assert!(!marker.exists(), "the check ran before the refusal");
    assert_eq!(store_snapshot(&r.f), before);
    let st = r.follow(&text(&other.json["error"]), "probity status");
    assert_state(&st, "approved");
    // The same check again: an exact retry, answered as before.
    let again = r.finalize(&l, &["--evidence-cmd", "--", "true"]);
    assert_eq!(
        again.json["state"], "approved",
        "{}{}",
        again.stdout, again.stderr
    );
    // A lineage approved on opaque evidence: no check can match it.
    let r2 = Repo::new();
    let approved = approve_live(r2.f.root(), r2.tmp.path());
    let l2 = approved["lineage_id"].as_str().unwrap();
    let (marker2, script2) = marking_check(r2.tmp.path());
    let other = r2.finalize(l2, &["--evidence-cmd", "--", "sh", "-c", &script2]);
    assert_error(&other, "different_retry");
    assert!(!marker2.exists(), "the check ran before the refusal");
}

/// Issue 26 §2: a committed path that is not UTF-8, at pre-push. The gate
/// said "review it as committed with `probity start --commit`", which
/// refuses it (`path_not_utf8`). It names the path and the way out in the
/// commit; followed (renamed, amended), the gate leads on to a review of
/// the commit that is accepted.
#[test]
fn a_committed_non_utf8_name_at_pre_push_names_the_way_out_in_the_commit() {
    use std::os::unix::ffi::OsStrExt;
    let r = Repo::new();
    let name = std::ffi::OsStr::from_bytes(b"notes-\xff.txt");
    std::fs::write(r.f.root().join(name), "x\n").unwrap();
    r.f.git(&["add", "-A"]).unwrap();
    r.f.git(&["commit", "-q", "--no-verify", "-m", "notes"])
        .unwrap();
    let g = r.run(&["validate", "--gate", "pre-push", "--range", "HEAD~1..HEAD"]);
    assert_eq!(g.json["decision"], "deny", "{}", g.stdout);
    let advice = text(&g.json);
    assert!(
        advice.contains("notes-\\xff.txt"),
        "the path is named: {advice}"
    );
    assert!(advice.contains("path_not_utf8"), "{advice}");
    assert!(
        advice.contains("git commit --amend"),
        "the way out in the commit: {advice}"
    );
    // The way out, as said: rename it in the commit, then review it.
    let renamed = r.f.root().join("notes.txt");
    std::fs::rename(r.f.root().join(name), &renamed).unwrap();
    r.f.git(&["add", "-A"]).unwrap();
    r.f.git(&["commit", "-q", "--no-verify", "--amend", "--no-edit"])
        .unwrap();
    r.follow(&advice, "probity start --commit");
}
