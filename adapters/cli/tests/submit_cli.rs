//! Probity's own inputs never join the candidate: `lens submit` keeps lens
//! results in the store, results are matched to their lens by name and
//! proven by their binding, `--evidence-cmd` runs the independent check
//! itself, and every input document is bounded and read only from a
//! regular file (or stdin).

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use probity_core::digest::Sha256Digest;
use probity_core::review::EVIDENCE_DOMAIN;
use probity_core::review::TreeId;
use probity_core::review::{CommandRun, ExitOutcome, command_evidence, command_evidence_on};
use probity_git::fixture::Fixture;
use serde_json::Value;
use support::fifo::mkfifo;
use support::*;

const RISK_SUGGESTION: &str = r#"{"findings":[{"location":"src/a.c:1","severity":"SUGGESTION","claim":"naming"}],"evidence":["read src/a.c"]}"#;

/// Runs `probity --json --cwd <cwd> args...` with `stdin` fed in and a
/// deadline: a command that blocks is killed and the test fails.
fn probity_with(cwd: &Path, args: &[&str], stdin: Option<&[u8]>, deadline: Duration) -> Run {
    let mut child = isolated(&mut Command::new(env!("CARGO_BIN_EXE_probity")))
        .arg("--json")
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // A refusal may close stdin early: a broken pipe is fine.
        let _ = pipe.write_all(bytes);
    }
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("probity {args:?} blocked for more than {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    run_of(&child.wait_with_output().unwrap())
}

fn quick(cwd: &Path, args: &[&str]) -> Run {
    probity_with(cwd, args, None, Duration::from_secs(20))
}

fn code(r: &Run) -> (i32, Option<&str>) {
    (r.code, r.json["error"]["code"].as_str())
}

/// Asserts the run was refused with exit `exit` and error `error`.
fn assert_code(r: &Run, exit: i32, error: &str) {
    assert_eq!(code(r), (exit, Some(error)), "{}", r.stdout);
}

/// Asserts the run left the lineage in `state`.
fn assert_state(r: &Run, state: &str) {
    assert_eq!(r.json["state"], state, "{}", r.stdout);
}

/// Asserts `lens submit` exited 0, having stored the result or not.
fn assert_stored(r: &Run, stored: bool) {
    assert_eq!(
        (r.code, &r.json["stored"]),
        (0, &Value::Bool(stored)),
        "{}",
        r.stdout
    );
}

/// `lens submit --lens LENS ARGS...`.
fn submit(f: &Fixture, lens: &str, args: &[&str]) -> Run {
    let mut all = vec!["lens", "submit", "--lens", lens];
    all.extend(args);
    quick(f.root(), &all)
}

/// `finalize --evidence-cmd -- CHECK...`, with `before` ahead of
/// `--evidence-cmd`.
fn evidence_cmd(f: &Fixture, before: &[&str], check: &[&str]) -> Run {
    let mut all = vec!["finalize"];
    all.extend(before);
    all.extend(["--evidence-cmd", "--"]);
    all.extend(check);
    quick(f.root(), &all)
}

/// Starts a review of the change and gives it the clean result (the lens
/// stage done): the lineage and the result file.
fn awaiting_evidence(f: &Fixture, tmp: &Path) -> (String, String) {
    let s = quick(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    let r = input(tmp, "r.json", CLEAN_RESULT);
    quick(f.root(), &["finalize", "--result", &r]);
    (lineage, r)
}

/// Asserts the receipt binds the command evidence document `doc`.
fn assert_evidence_hash(receipt: &Value, doc: &[u8]) {
    assert_eq!(
        receipt["evidence_hash"],
        Sha256Digest::of(EVIDENCE_DOMAIN, doc).to_string()
    );
}

/// `finalize --evidence PATH`.
fn finalize_evidence(f: &Fixture, path: &str) -> Run {
    quick(f.root(), &["finalize", "--evidence", path])
}

/// The command evidence document of `make test` exiting `exit`, its
/// output the 3 bytes `log`.
fn make_test_evidence(exit: ExitOutcome) -> Vec<u8> {
    command_evidence(&CommandRun {
        argv: vec!["make".into(), "test".into()],
        exit,
        output_sha256: Sha256Digest::plain(b"log"),
        output_bytes: 3,
    })
    .unwrap()
    .bytes
}

/// Writes `bytes` to `dir/name`; returns its path.
fn write_input(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

/// `start`, then `src/parser.rs` rewritten to `parser` and `start` again:
/// both answers.
fn start_twice(f: &Fixture, parser: &str) -> (Run, Run) {
    let a = quick(f.root(), &["start"]);
    f.write("src/parser.rs", parser).unwrap();
    let b = quick(f.root(), &["start"]);
    (a, b)
}

fn token_of(s: &Run, i: usize) -> String {
    s.json["lens_bindings"][i]["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A repository whose change is high risk (four lenses selected).
fn high_change() -> Fixture {
    large_c_change("int a;\n")
}

#[test]
fn lens_submit_keeps_the_result_in_the_store_and_finalize_uses_it() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let s = quick(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    let token = token_of(&s, 0);
    assert!(token.starts_with("lbt1-"), "{}", s.stdout);
    let status = worktree_status(&f);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let sub = submit(&f, "reliability", &["--binding", &token, &r]);
    assert_eq!(sub.code, 0, "{}", sub.stdout);
    assert_eq!(sub.json["stored"], true);
    assert_eq!(sub.json["lineage_id"], lineage.as_str());
    assert_eq!(sub.json["missing"], serde_json::json!([]));
    assert_eq!(sub.json["state"], "reviewing", "submission moves no state");
    let kept = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&lineage)
        .join("results/reliability.json");
    assert_eq!(std::fs::read(&kept).unwrap(), CLEAN_RESULT.as_bytes());
    assert_eq!(worktree_status(&f), status, "nothing joined the worktree");

    // An exact resubmission is answered, nothing written.
    let before = store_snapshot(&f);
    let again = submit(&f, "reliability", &["--lineage", &lineage, &r]);
    assert_stored(&again, false);
    assert_eq!(store_snapshot(&f), before);
    // A different result for the same lens is refused.
    let other = input(
        tmp.path(),
        "other.json",
        r#"{"findings":[],"evidence":["another reading"]}"#,
    );
    let differs = submit(&f, "reliability", &[&other]);
    assert_code(&differs, 4, "result_differs");
    assert_eq!(store_snapshot(&f), before);
    // finalize --result naming that lens with other bytes is refused too.
    let spec = format!("reliability={other}");
    let clash = quick(f.root(), &["finalize", "--result", &spec]);
    assert_code(&clash, 4, "result_differs");
    assert_eq!(store_snapshot(&f), before);

    // finalize takes the submitted result.
    let fin = quick(f.root(), &["finalize"]);
    assert_state(&fin, "validating");
    // Resubmitting the same bytes after it landed is still answered.
    let late = submit(&f, "reliability", &[&r]);
    assert_stored(&late, false);
    let done = evidence_cmd(&f, &[], &["true"]);
    assert_state(&done, "approved");
    assert_eq!(worktree_status(&f), status, "nothing joined the worktree");
    let gate = quick(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(gate.code, 0, "{}", gate.stdout);
}

#[test]
fn lens_submit_reads_stdin() {
    let f = medium_change();
    quick(f.root(), &["start"]);
    let sub = probity_with(
        f.root(),
        &["lens", "submit", "--lens", "reliability"],
        Some(CLEAN_RESULT.as_bytes()),
        Duration::from_secs(20),
    );
    assert_stored(&sub, true);
    let fin = quick(f.root(), &["finalize"]);
    assert_state(&fin, "validating");
}

#[test]
fn a_stale_or_foreign_result_is_refused_naming_what_was_expected() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    // The candidate moves on: a new lineage with its own binding.
    let (a, b) = start_twice(
        &f,
        "// parser\nfn parse() {}\nfn more() {}\nfn again() {}\n",
    );
    let (lin_a, tok_a) = (string_at(&a.json, "lineage_id"), token_of(&a, 0));
    let bind_a = a.json["lens_bindings"][0]["binding"]
        .as_str()
        .unwrap()
        .to_string();
    let (lin_b, tok_b) = (string_at(&b.json, "lineage_id"), token_of(&b, 0));
    assert_ne!(lin_a, lin_b);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let before = store_snapshot(&f);
    // A's binding (or its token) does not prove a result for B.
    for given in [tok_a.as_str(), bind_a.as_str()] {
        let stale = submit(&f, "reliability", &["--binding", given, &r]);
        assert_code(&stale, 3, "binding_mismatch");
        let msg = stale.error_message();
        assert!(msg.contains(&tok_b) && msg.contains(&lin_b), "{msg}");
    }
    // Submitting to A while the live candidate is B's: A's candidate is stale.
    let moved = quick(
        f.root(),
        &[
            "lens",
            "submit",
            "--lineage",
            &lin_a,
            "--lens",
            "reliability",
            "--binding",
            &tok_a,
            &r,
        ],
    );
    assert_code(&moved, 4, "candidate_changed");
    // A lens that is not selected.
    let risk = submit(&f, "risk", &[&r]);
    assert_code(&risk, 3, "result_not_selected");
    let msg = risk.error_message();
    assert!(msg.contains("`risk`") && msg.contains(&lin_b), "{msg}");
    // A malformed result.
    let bad = input(tmp.path(), "bad.json", r#"{"findings":[]}"#);
    let malformed = submit(&f, "reliability", &[&bad]);
    assert_code(&malformed, 3, "malformed_input");
    assert_eq!(store_snapshot(&f), before, "no refusal stored anything");
    // B's own token lands.
    let ok = submit(&f, "reliability", &["--binding", &tok_b, &r]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
}

#[test]
fn results_are_placed_by_lens_name_never_by_position() {
    let f = high_change();
    let tmp = tempfile::tempdir().unwrap();
    let s = quick(f.root(), &["start"]);
    assert_eq!(s.json["risk_level"], "high", "{}", s.stdout);
    let clean = input(tmp.path(), "clean.json", CLEAN_RESULT);
    let minor = input(tmp.path(), "minor.json", RISK_SUGGESTION);
    let before = store_snapshot(&f);
    // `finalize --result LENS=FILE...`.
    let results = |given: &[(&str, &str)]| {
        let specs: Vec<String> = given.iter().map(|(l, p)| format!("{l}={p}")).collect();
        let mut args = vec!["finalize"];
        for spec in &specs {
            args.extend(["--result", spec.as_str()]);
        }
        quick(f.root(), &args)
    };
    // A bare FILE with four lenses selected: refused, naming the spelling.
    let bare = quick(f.root(), &["finalize", "--result", &clean]);
    assert_code(&bare, 2, "result_unnamed");
    let msg = bare.error_message();
    assert!(
        msg.contains("--result LENS=FILE")
            && msg.contains("risk, resilience, readability, reliability"),
        "{msg}"
    );
    // A duplicate lens, a missing lens and an unknown name.
    let dup = results(&[("risk", &clean), ("risk", &clean)]);
    assert_code(&dup, 3, "result_duplicate");
    let missing = results(&[("risk", &clean)]);
    assert_code(&missing, 3, "result_missing");
    assert!(
        missing
            .error_message()
            .contains("resilience, readability, reliability"),
        "{}",
        missing.stdout
    );
    let typo = results(&[("relability", &clean)]);
    assert_code(&typo, 2, "bad_result_spec");
    assert_eq!(store_snapshot(&f), before);

    // Two submitted, two given, in reverse order: the risk finding is R1.
    for lens in ["readability", "resilience"] {
        let sub = submit(&f, lens, &[&clean]);
        assert_eq!(sub.code, 0, "{}", sub.stdout);
    }
    let fin = results(&[("reliability", &clean), ("risk", &minor)]);
    assert_eq!(fin.code, 0, "{}", fin.stdout);
    assert_eq!(fin.json["findings"][0]["id"], "R1-001", "{}", fin.stdout);
}

#[test]
fn a_result_for_a_lens_that_is_not_selected_is_refused() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    quick(f.root(), &["start"]);
    let clean = input(tmp.path(), "clean.json", CLEAN_RESULT);
    let before = store_snapshot(&f);
    let r = quick(
        f.root(),
        &["finalize", "--result", &format!("risk={clean}")],
    );
    assert_code(&r, 3, "result_not_selected");
    assert!(r.error_message().contains("reliability"));
    assert_eq!(store_snapshot(&f), before);
    // The plain FILE form stands for the only selected lens.
    let ok = quick(f.root(), &["finalize", "--result", &clean]);
    assert_state(&ok, "validating");
}

#[test]
fn evidence_cmd_binds_argv_exit_status_and_output() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    awaiting_evidence(&f, tmp.path());
    let before = store_snapshot(&f);
    // A check that outlives its timeout is killed and refused, quickly.
    let started = Instant::now();
    let slow = evidence_cmd(&f, &["--evidence-timeout", "1"], &["sleep", "30"]);
    assert_code(&slow, 3, "evidence_timeout");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(store_snapshot(&f), before);
    // A program that does not exist.
    let absent = evidence_cmd(&f, &[], &["probity-no-such-program-xyz"]);
    assert_code(&absent, 3, "evidence_cmd_unavailable");
    // The check runs in the `--cwd` directory (the test's own cwd has no
    // src/parser_test.rs): it failed there once, escalating a good review.
    let here = evidence_cmd(&f, &[], &["test", "-f", "src/parser_test.rs"]);
    assert_eq!(
        here.json["state"], "approved",
        "{}{}",
        here.stdout, here.stderr
    );
    // A fresh review for the next checks.
    f.write("src/parser_test.rs", "#[test]\nfn t() {}\nfn u() {}\n")
        .unwrap();
    let (lineage, _) = awaiting_evidence(&f, tmp.path());
    // No shell: the metacharacters are one argument to printf.
    let ok = evidence_cmd(&f, &[], &["printf", "%s", "a; exit 1"]);
    assert_state(&ok, "approved");
    let receipt: Value = lineage_json(&f, &lineage, "receipt.json");
    // The v2 document: it names the tree the check ran on, the final
    // candidate tree.
    let tree = TreeId::parse(receipt["final_candidate_tree"].as_str().unwrap()).unwrap();
    let doc = command_evidence_on(
        &CommandRun {
            argv: vec!["printf".into(), "%s".into(), "a; exit 1".into()],
            exit: ExitOutcome::Code(0),
            output_sha256: Sha256Digest::plain(b"a; exit 1"),
            output_bytes: 9,
        },
        &tree,
    )
    .unwrap()
    .bytes;
    assert_evidence_hash(&receipt, &doc);
}

/// Evidence never approves by being present (issue 11): a check that ran
/// and failed moves `validating → escalated` (`evidence_failed`), with the
/// failing run's document hashed into the receipt, and the next step names
/// both ways on (review the fix, or a person's recovery). Once escalated,
/// the same failing evidence is an unchanged retry and passing evidence is
/// no longer a legal input.
#[test]
fn a_failing_check_escalates_with_its_evidence_bound() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (lineage, r) = awaiting_evidence(&f, tmp.path());
    let check = ["sh", "-c", "echo out; echo err >&2; exit 3"];
    let mut args = vec!["finalize", "--evidence-cmd", "--"];
    args.extend(check);
    let failed = quick(f.root(), &args);
    // A failing check exits 1 (issue 20), its status and output shown.
    assert_eq!(failed.code, 1, "{}{}", failed.stdout, failed.stderr);
    assert_eq!(failed.json["evidence_check"]["exit"], "exit status 3");
    assert_eq!(failed.json["evidence_check"]["output_tail"], "out\nerr\n");
    assert_state(&failed, "escalated");
    assert_eq!(failed.json["escalation_reason"], "evidence_failed");
    assert_eq!(failed.json["action"], "none");
    let message = failed.json["message"].as_str().unwrap().to_string();
    assert!(
        message.contains(&format!(
            "probity recover --predecessor-lineage {lineage} --expected-predecessor-revision {} --disposition escalation_authorized",
            failed.json["store_revision"].as_str().unwrap()
        )),
        "{message}"
    );
    let receipt = receipt_of(&f, &lineage);
    assert_eq!(receipt["terminal_state"], "escalated");
    assert_eq!(receipt["resolved_finding_ids"], serde_json::json!([]));
    let tree = TreeId::parse(receipt["final_candidate_tree"].as_str().unwrap()).unwrap();
    let doc = command_evidence_on(
        &CommandRun {
            argv: check.iter().map(|a| a.to_string()).collect(),
            exit: ExitOutcome::Code(3),
            output_sha256: Sha256Digest::plain(b"out\nerr\n"),
            output_bytes: 8,
        },
        &tree,
    )
    .unwrap()
    .bytes;
    assert_evidence_hash(&receipt, &doc);
    // The gate denies the escalated candidate.
    let gate = quick(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_ne!(gate.code, 0, "{}", gate.stdout);
    // Retrying the same failing check changes nothing; a passing one is no
    // longer legal.
    let after = store_snapshot(&f);
    let again = quick(f.root(), &args);
    assert_state(&again, "escalated");
    assert_eq!(store_snapshot(&f), after);
    let pass = evidence_cmd(&f, &["--lineage", &lineage], &["true"]);
    assert_ne!(pass.code, 0, "{}", pass.stdout);
    assert_eq!(store_snapshot(&f), after);

    // The next step works as the message gives it (an audit found the
    // message advised a `probity start` that is refused): fix the
    // candidate; a plain start is refused, as the message says; the
    // recovery it names, with the revision status prints, reviews the fix.
    f.write("src/parser.rs", "// the parser, fixed\nfn parse() {}\n")
        .unwrap();
    let fresh = quick(f.root(), &["start"]);
    assert_code(&fresh, 4, "lineage_escalated");
    // The revision is filled in (issue 26 §1); only a person's values stay.
    let advised: Vec<String> = message
        .split('`')
        .find(|c| c.starts_with("probity recover"))
        .unwrap()
        .split(' ')
        .skip(1)
        .map(|w| match w {
            "X" => "maintainer-approved-the-fix".to_string(),
            "R" => "the-change-broke-the-check".to_string(),
            "A" => "dev".to_string(),
            w => w.to_string(),
        })
        .collect();
    assert!(
        advised.iter().all(|a| !a.contains('<')),
        "every placeholder filled: {advised:?}"
    );
    let argv: Vec<&str> = advised.iter().map(String::as_str).collect();
    let rec = quick(f.root(), &argv);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let successor = string_at(&rec.json, "lineage_id");
    let st = quick(f.root(), &["status"]);
    assert_eq!(st.json["lineage_id"], successor.as_str(), "{}", st.stdout);
    let mut args = vec!["finalize", "--lineage", &successor];
    let results: Vec<String> = rec.json["selected_lenses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}={r}", l.as_str().unwrap()))
        .collect();
    for result in &results {
        args.extend(["--result", result]);
    }
    args.extend(["--evidence-cmd", "--", "true"]);
    let approved = quick(f.root(), &args);
    assert_state(&approved, "approved");
}

/// The command evidence document handed over as a file is read for what it
/// reports: a failure escalates like `--evidence-cmd`; a document that names
/// the schema but is not one is refused with nothing changed.
#[test]
fn an_evidence_document_reporting_failure_escalates_and_a_malformed_one_is_refused() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (lineage, _) = awaiting_evidence(&f, tmp.path());
    let before = store_snapshot(&f);
    let sha = Sha256Digest::plain(b"log");
    let malformed = input(
        tmp.path(),
        "bad.json",
        &format!(
            r#"{{"schema":"probity-command-evidence/v1","argv":["make","test"],"output_sha256":"{sha}","output_bytes":3}}"#
        ),
    );
    let refused = finalize_evidence(&f, &malformed);
    assert_code(&refused, 3, "evidence_malformed");
    assert_eq!(store_snapshot(&f), before);
    // A document reporting a failure, padded past the 64 KiB a command
    // evidence document may have: refused, never read as opaque bytes
    // that approve by being there (found by audit: it approved).
    let padded = command_evidence(&CommandRun {
        argv: std::iter::once("make".to_string())
            .chain((0..9000).map(|i| format!("--flag-{i}")))
            .collect(),
        exit: ExitOutcome::Code(1),
        output_sha256: sha,
        output_bytes: 3,
    })
    .unwrap()
    .bytes;
    assert!(padded.len() > 64 * 1024);
    let padded_doc = write_input(tmp.path(), "padded.json", &padded);
    let refused = finalize_evidence(&f, &padded_doc);
    assert_code(&refused, 3, "evidence_malformed");
    assert!(refused.stdout.contains("65536"), "{}", refused.stdout);
    assert_eq!(store_snapshot(&f), before);
    // A failure report that is not strict JSON: refused, never opaque
    // bytes that approve (found by audit: each of these approved).
    let failing = String::from_utf8(make_test_evidence(ExitOutcome::Code(2))).unwrap();
    let open = failing.strip_suffix('}').unwrap();
    for (name, text) in [
        ("trailing comma", format!("{open},}}")),
        (
            "duplicate key",
            failing.replacen("\"exit_code\":2", "\"exit_code\":2,\"exit_code\":0", 1),
        ),
        ("byte order mark", format!("\u{feff}{failing}")),
        ("trailing text", format!("{failing}\nx")),
    ] {
        assert_ne!(text, failing, "{name}");
        let doc = input(tmp.path(), "sloppy.json", &text);
        let refused = finalize_evidence(&f, &doc);
        assert_eq!(
            code(&refused),
            (3, Some("evidence_malformed")),
            "{name}: {}",
            refused.stdout
        );
        assert_eq!(store_snapshot(&f), before, "{name}");
    }
    let doc = make_test_evidence(ExitOutcome::Signal(6));
    let failed = finalize_evidence(&f, &write_input(tmp.path(), "failed.json", &doc));
    assert_state(&failed, "escalated");
    assert_eq!(failed.json["escalation_reason"], "evidence_failed");
    assert_evidence_hash(&receipt_of(&f, &lineage), &doc);
}

#[test]
fn evidence_cmd_usage_is_checked() {
    let f = medium_change();
    quick(f.root(), &["start"]);
    let before = store_snapshot(&f);
    let bare = quick(f.root(), &["finalize", "--evidence-cmd"]);
    assert_eq!(bare.code, 2, "{}{}", bare.stdout, bare.stderr);
    let both = evidence_cmd(&f, &["--evidence", "x"], &["true"]);
    assert_eq!(both.code, 2, "{}{}", both.stdout, both.stderr);
    assert_eq!(store_snapshot(&f), before);
}

#[test]
fn oversized_and_non_regular_inputs_are_refused_at_once() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    quick(f.root(), &["start"]);
    // A 2 MiB result: valid JSON whose evidence is one long string.
    let big = format!(
        r#"{{"findings":[],"evidence":["{}"]}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    let big = input(tmp.path(), "big.json", &big);
    let fifo = tmp.path().join("fifo");
    mkfifo(&fifo);
    let fifo = fifo.display().to_string();
    let dir = tmp.path().display().to_string();
    let before = store_snapshot(&f);
    let started = Instant::now();
    for (path, want) in [
        (big.as_str(), "input_too_large"),
        (fifo.as_str(), "input_not_regular"),
        (dir.as_str(), "input_not_regular"),
        ("/dev/zero", "input_not_regular"),
    ] {
        let spec = format!("reliability={path}");
        for args in [
            vec!["finalize", "--result", path],
            vec!["finalize", "--result", spec.as_str()],
            vec!["finalize", "--refuter", path],
            vec!["finalize", "--validation", path],
            vec!["lens", "submit", "--lens", "reliability", path],
        ] {
            let r = quick(f.root(), &args);
            assert_eq!(code(&r), (3, Some(want)), "{args:?}: {}", r.stdout);
        }
        if want == "input_not_regular" {
            let r = finalize_evidence(&f, path);
            assert_eq!(code(&r), (3, Some(want)), "--evidence {path}: {}", r.stdout);
        }
    }
    // Oversized on stdin too, bounded while reading.
    let r = probity_with(
        f.root(),
        &["lens", "submit", "--lens", "reliability", "-"],
        Some(&vec![b' '; 2 * 1024 * 1024]),
        Duration::from_secs(20),
    );
    assert_code(&r, 3, "input_too_large");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(store_snapshot(&f), before, "no refusal changed the store");
}

#[test]
fn evidence_file_and_stdin_keep_working() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    awaiting_evidence(&f, tmp.path());
    let ev = probity_with(
        f.root(),
        &["finalize", "--evidence", "-"],
        Some(b"tests passed\n"),
        Duration::from_secs(20),
    );
    assert_state(&ev, "approved");
    // The same bytes from a file are the same evidence (an exact retry).
    let file = input(tmp.path(), "ev.txt", "tests passed\n");
    let again = finalize_evidence(&f, &file);
    assert_state(&again, "approved");
    let other = input(tmp.path(), "ev2.txt", "other\n");
    let differs = finalize_evidence(&f, &other);
    assert_code(&differs, 4, "different_retry");
}

#[test]
fn evidence_cmd_is_not_run_when_the_evidence_cannot_land() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    quick(f.root(), &["start"]);
    let marker = tmp.path().join("ran");
    let marker_s = marker.display().to_string();
    let before = store_snapshot(&f);
    // Still awaiting lens results: evidence is not the next input.
    let early = evidence_cmd(&f, &[], &["touch", &marker_s]);
    assert_code(&early, 3, "wrong_stage");
    assert!(!marker.exists(), "the check ran although it could not land");
    assert_eq!(store_snapshot(&f), before);
}

#[test]
fn evidence_cmd_approves_a_review_with_no_lens_selected() {
    let f = Fixture::new().unwrap();
    f.write("README.md", "# x\n").unwrap();
    f.commit_all("base").unwrap();
    f.write("README.md", "# x\n\nMore words.\n").unwrap();
    let s = quick(f.root(), &["start"]);
    assert_eq!(
        s.json["selected_lenses"],
        serde_json::json!([]),
        "{}",
        s.stdout
    );
    let done = evidence_cmd(&f, &[], &["true"]);
    assert_state(&done, "approved");
}

#[test]
fn finalize_checks_the_bindings_it_is_given() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = start_twice(&f, "// parser\nfn parse() {}\nfn other() {}\n");
    let tok_a = token_of(&a, 0);
    let tok_b = token_of(&b, 0);
    let r = format!("reliability={}", input(tmp.path(), "r.json", CLEAN_RESULT));
    let before = store_snapshot(&f);
    let stale_binding = format!("reliability={tok_a}");
    let stale = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", &stale_binding],
    );
    assert_code(&stale, 3, "binding_mismatch");
    assert!(stale.error_message().contains(&tok_b));
    let bad = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", "nolens"],
    );
    assert_code(&bad, 2, "bad_binding_spec");
    assert_eq!(store_snapshot(&f), before);
    let good_binding = format!("reliability={tok_b}");
    let ok = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", &good_binding],
    );
    assert_state(&ok, "validating");
}
