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
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn quick(cwd: &Path, args: &[&str]) -> Run {
    probity_with(cwd, args, None, Duration::from_secs(20))
}

fn code(r: &Run) -> (i32, Option<&str>) {
    (r.code, r.json["error"]["code"].as_str())
}

fn token_of(s: &Run, i: usize) -> String {
    s.json["lens_bindings"][i]["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A repository whose change is high risk (four lenses selected).
fn high_change() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/a.c", "int a;\n").unwrap();
    f.commit_all("base").unwrap();
    let mut body = String::from("int a;\n");
    for i in 0..600 {
        body.push_str(&format!("int v{i};\n"));
    }
    f.write("src/a.c", body).unwrap();
    f
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
    let sub = quick(
        f.root(),
        &[
            "lens",
            "submit",
            "--lens",
            "reliability",
            "--binding",
            &token,
            &r,
        ],
    );
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
    let again = quick(
        f.root(),
        &[
            "lens",
            "submit",
            "--lens",
            "reliability",
            "--lineage",
            &lineage,
            &r,
        ],
    );
    assert_eq!(
        (again.code, &again.json["stored"]),
        (0, &Value::Bool(false))
    );
    assert_eq!(store_snapshot(&f), before);
    // A different result for the same lens is refused.
    let other = input(
        tmp.path(),
        "other.json",
        r#"{"findings":[],"evidence":["another reading"]}"#,
    );
    let differs = quick(
        f.root(),
        &["lens", "submit", "--lens", "reliability", &other],
    );
    assert_eq!(
        code(&differs),
        (4, Some("result_differs")),
        "{}",
        differs.stdout
    );
    assert_eq!(store_snapshot(&f), before);
    // finalize --result naming that lens with other bytes is refused too.
    let spec = format!("reliability={other}");
    let clash = quick(f.root(), &["finalize", "--result", &spec]);
    assert_eq!(
        code(&clash),
        (4, Some("result_differs")),
        "{}",
        clash.stdout
    );
    assert_eq!(store_snapshot(&f), before);

    // finalize takes the submitted result.
    let fin = quick(f.root(), &["finalize"]);
    assert_eq!(fin.json["state"], "validating", "{}", fin.stdout);
    // Resubmitting the same bytes after it landed is still answered.
    let late = quick(f.root(), &["lens", "submit", "--lens", "reliability", &r]);
    assert_eq!(
        (late.code, &late.json["stored"]),
        (0, &Value::Bool(false)),
        "{}",
        late.stdout
    );
    let done = quick(f.root(), &["finalize", "--evidence-cmd", "--", "true"]);
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
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
    assert_eq!(
        (sub.code, &sub.json["stored"]),
        (0, &Value::Bool(true)),
        "{}",
        sub.stdout
    );
    let fin = quick(f.root(), &["finalize"]);
    assert_eq!(fin.json["state"], "validating", "{}", fin.stdout);
}

#[test]
fn a_stale_or_foreign_result_is_refused_naming_what_was_expected() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let a = quick(f.root(), &["start"]);
    let (lin_a, tok_a) = (string_at(&a.json, "lineage_id"), token_of(&a, 0));
    let bind_a = a.json["lens_bindings"][0]["binding"]
        .as_str()
        .unwrap()
        .to_string();
    // The candidate moves on: a new lineage with its own binding.
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() {}\nfn again() {}\n",
    )
    .unwrap();
    let b = quick(f.root(), &["start"]);
    let (lin_b, tok_b) = (string_at(&b.json, "lineage_id"), token_of(&b, 0));
    assert_ne!(lin_a, lin_b);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    let before = store_snapshot(&f);
    // A's binding (or its token) does not prove a result for B.
    for given in [tok_a.as_str(), bind_a.as_str()] {
        let stale = quick(
            f.root(),
            &[
                "lens",
                "submit",
                "--lens",
                "reliability",
                "--binding",
                given,
                &r,
            ],
        );
        assert_eq!(
            code(&stale),
            (3, Some("binding_mismatch")),
            "{}",
            stale.stdout
        );
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
    assert_eq!(
        code(&moved),
        (4, Some("candidate_changed")),
        "{}",
        moved.stdout
    );
    // A lens that is not selected.
    let risk = quick(f.root(), &["lens", "submit", "--lens", "risk", &r]);
    assert_eq!(
        code(&risk),
        (3, Some("result_not_selected")),
        "{}",
        risk.stdout
    );
    let msg = risk.error_message();
    assert!(msg.contains("`risk`") && msg.contains(&lin_b), "{msg}");
    // A malformed result.
    let bad = input(tmp.path(), "bad.json", r#"{"findings":[]}"#);
    let malformed = quick(f.root(), &["lens", "submit", "--lens", "reliability", &bad]);
    assert_eq!(
        code(&malformed),
        (3, Some("malformed_input")),
        "{}",
        malformed.stdout
    );
    assert_eq!(store_snapshot(&f), before, "no refusal stored anything");
    // B's own token lands.
    let ok = quick(
        f.root(),
        &[
            "lens",
            "submit",
            "--lens",
            "reliability",
            "--binding",
            &tok_b,
            &r,
        ],
    );
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
    let spec = |lens: &str, file: &str| format!("{lens}={file}");
    // A bare FILE with four lenses selected: refused, naming the spelling.
    let bare = quick(f.root(), &["finalize", "--result", &clean]);
    assert_eq!(code(&bare), (2, Some("result_unnamed")), "{}", bare.stdout);
    let msg = bare.error_message();
    assert!(
        msg.contains("--result LENS=FILE")
            && msg.contains("risk, resilience, readability, reliability"),
        "{msg}"
    );
    // A duplicate lens, a missing lens and an unknown name.
    let dup = quick(
        f.root(),
        &[
            "finalize",
            "--result",
            &spec("risk", &clean),
            "--result",
            &spec("risk", &clean),
        ],
    );
    assert_eq!(code(&dup), (3, Some("result_duplicate")), "{}", dup.stdout);
    let missing = quick(f.root(), &["finalize", "--result", &spec("risk", &clean)]);
    assert_eq!(
        code(&missing),
        (3, Some("result_missing")),
        "{}",
        missing.stdout
    );
    assert!(
        missing
            .error_message()
            .contains("resilience, readability, reliability"),
        "{}",
        missing.stdout
    );
    let typo = quick(
        f.root(),
        &["finalize", "--result", &spec("relability", &clean)],
    );
    assert_eq!(code(&typo), (2, Some("bad_result_spec")), "{}", typo.stdout);
    assert_eq!(store_snapshot(&f), before);

    // Two submitted, two given, in reverse order: the risk finding is R1.
    for lens in ["readability", "resilience"] {
        let sub = quick(f.root(), &["lens", "submit", "--lens", lens, &clean]);
        assert_eq!(sub.code, 0, "{}", sub.stdout);
    }
    let fin = quick(
        f.root(),
        &[
            "finalize",
            "--result",
            &spec("reliability", &clean),
            "--result",
            &spec("risk", &minor),
        ],
    );
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
    assert_eq!(code(&r), (3, Some("result_not_selected")), "{}", r.stdout);
    assert!(r.error_message().contains("reliability"));
    assert_eq!(store_snapshot(&f), before);
    // The plain FILE form stands for the only selected lens.
    let ok = quick(f.root(), &["finalize", "--result", &clean]);
    assert_eq!(ok.json["state"], "validating", "{}", ok.stdout);
}

#[test]
fn evidence_cmd_binds_argv_exit_status_and_output() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    quick(f.root(), &["start"]);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    quick(f.root(), &["finalize", "--result", &r]);
    let before = store_snapshot(&f);
    // A check that outlives its timeout is killed and refused, quickly.
    let started = Instant::now();
    let slow = quick(
        f.root(),
        &[
            "finalize",
            "--evidence-timeout",
            "1",
            "--evidence-cmd",
            "--",
            "sleep",
            "30",
        ],
    );
    assert_eq!(
        code(&slow),
        (3, Some("evidence_timeout")),
        "{}",
        slow.stdout
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(store_snapshot(&f), before);
    // A program that does not exist.
    let absent = quick(
        f.root(),
        &[
            "finalize",
            "--evidence-cmd",
            "--",
            "probity-no-such-program-xyz",
        ],
    );
    assert_eq!(
        code(&absent),
        (3, Some("evidence_cmd_unavailable")),
        "{}",
        absent.stdout
    );
    // The check runs in the `--cwd` directory (the test's own cwd has no
    // src/parser_test.rs): it failed there once, escalating a good review.
    let here = quick(
        f.root(),
        &[
            "finalize",
            "--evidence-cmd",
            "--",
            "test",
            "-f",
            "src/parser_test.rs",
        ],
    );
    assert_eq!(
        here.json["state"], "approved",
        "{}{}",
        here.stdout, here.stderr
    );
    // A fresh review for the next checks.
    f.write("src/parser_test.rs", "#[test]\nfn t() {}\nfn u() {}\n")
        .unwrap();
    let s = quick(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    quick(f.root(), &["finalize", "--result", &r]);
    // No shell: the metacharacters are one argument to printf.
    let ok = quick(
        f.root(),
        &[
            "finalize",
            "--evidence-cmd",
            "--",
            "printf",
            "%s",
            "a; exit 1",
        ],
    );
    assert_eq!(ok.json["state"], "approved", "{}", ok.stdout);
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
    assert_eq!(
        receipt["evidence_hash"],
        Sha256Digest::of(EVIDENCE_DOMAIN, &doc).to_string()
    );
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
    let s = quick(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    quick(f.root(), &["finalize", "--result", &r]);
    let check = ["sh", "-c", "echo out; echo err >&2; exit 3"];
    let mut args = vec!["finalize", "--evidence-cmd", "--"];
    args.extend(check);
    let failed = quick(f.root(), &args);
    // A failing check exits 1 (issue 20), its status and output shown.
    assert_eq!(failed.code, 1, "{}{}", failed.stdout, failed.stderr);
    assert_eq!(failed.json["evidence_check"]["exit"], "exit status 3");
    assert_eq!(failed.json["evidence_check"]["output_tail"], "out\nerr\n");
    assert_eq!(failed.json["state"], "escalated", "{}", failed.stdout);
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
    assert_eq!(
        receipt["evidence_hash"],
        Sha256Digest::of(EVIDENCE_DOMAIN, &doc).to_string()
    );
    // The gate denies the escalated candidate.
    let gate = quick(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_ne!(gate.code, 0, "{}", gate.stdout);
    // Retrying the same failing check changes nothing; a passing one is no
    // longer legal.
    let after = store_snapshot(&f);
    let again = quick(f.root(), &args);
    assert_eq!(again.json["state"], "escalated", "{}", again.stdout);
    assert_eq!(store_snapshot(&f), after);
    let pass = quick(
        f.root(),
        &[
            "finalize",
            "--lineage",
            &lineage,
            "--evidence-cmd",
            "--",
            "true",
        ],
    );
    assert_ne!(pass.code, 0, "{}", pass.stdout);
    assert_eq!(store_snapshot(&f), after);

    // The next step works as the message gives it (an audit found the
    // message advised a `probity start` that is refused): fix the
    // candidate; a plain start is refused, as the message says; the
    // recovery it names, with the revision status prints, reviews the fix.
    f.write("src/parser.rs", "// the parser, fixed\nfn parse() {}\n")
        .unwrap();
    let fresh = quick(f.root(), &["start"]);
    assert_eq!(
        code(&fresh),
        (4, Some("lineage_escalated")),
        "{}",
        fresh.stdout
    );
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
    assert_eq!(approved.json["state"], "approved", "{}", approved.stdout);
}

/// The command evidence document handed over as a file is read for what it
/// reports: a failure escalates like `--evidence-cmd`; a document that names
/// the schema but is not one is refused with nothing changed.
#[test]
fn an_evidence_document_reporting_failure_escalates_and_a_malformed_one_is_refused() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let s = quick(f.root(), &["start"]);
    let lineage = string_at(&s.json, "lineage_id");
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    quick(f.root(), &["finalize", "--result", &r]);
    let before = store_snapshot(&f);
    let sha = Sha256Digest::plain(b"log");
    let malformed = input(
        tmp.path(),
        "bad.json",
        &format!(
            r#"{{"schema":"probity-command-evidence/v1","argv":["make","test"],"output_sha256":"{sha}","output_bytes":3}}"#
        ),
    );
    let refused = quick(f.root(), &["finalize", "--evidence", &malformed]);
    assert_eq!(
        code(&refused),
        (3, Some("evidence_malformed")),
        "{}",
        refused.stdout
    );
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
    let padded_doc = tmp.path().join("padded.json");
    std::fs::write(&padded_doc, &padded).unwrap();
    let refused = quick(
        f.root(),
        &["finalize", "--evidence", padded_doc.to_str().unwrap()],
    );
    assert_eq!(
        code(&refused),
        (3, Some("evidence_malformed")),
        "{}",
        refused.stdout
    );
    assert!(refused.stdout.contains("65536"), "{}", refused.stdout);
    assert_eq!(store_snapshot(&f), before);
    // A failure report that is not strict JSON: refused, never opaque
    // bytes that approve (found by audit: each of these approved).
    let failing = String::from_utf8(
        command_evidence(&CommandRun {
            argv: vec!["make".into(), "test".into()],
            exit: ExitOutcome::Code(2),
            output_sha256: sha,
            output_bytes: 3,
        })
        .unwrap()
        .bytes,
    )
    .unwrap();
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
        let refused = quick(f.root(), &["finalize", "--evidence", &doc]);
        assert_eq!(
            code(&refused),
            (3, Some("evidence_malformed")),
            "{name}: {}",
            refused.stdout
        );
        assert_eq!(store_snapshot(&f), before, "{name}");
    }
    let doc = command_evidence(&CommandRun {
        argv: vec!["make".into(), "test".into()],
        exit: ExitOutcome::Signal(6),
        output_sha256: sha,
        output_bytes: 3,
    })
    .unwrap()
    .bytes;
    let failed_doc = tmp.path().join("failed.json");
    std::fs::write(&failed_doc, &doc).unwrap();
    let failed = quick(
        f.root(),
        &["finalize", "--evidence", failed_doc.to_str().unwrap()],
    );
    assert_eq!(failed.json["state"], "escalated", "{}", failed.stdout);
    assert_eq!(failed.json["escalation_reason"], "evidence_failed");
    assert_eq!(
        receipt_of(&f, &lineage)["evidence_hash"],
        Sha256Digest::of(EVIDENCE_DOMAIN, &doc).to_string()
    );
}

#[test]
fn evidence_cmd_usage_is_checked() {
    let f = medium_change();
    quick(f.root(), &["start"]);
    let before = store_snapshot(&f);
    let bare = quick(f.root(), &["finalize", "--evidence-cmd"]);
    assert_eq!(bare.code, 2, "{}{}", bare.stdout, bare.stderr);
    let both = quick(
        f.root(),
        &[
            "finalize",
            "--evidence",
            "x",
            "--evidence-cmd",
            "--",
            "true",
        ],
    );
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
            let r = quick(f.root(), &["finalize", "--evidence", path]);
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
    assert_eq!(code(&r), (3, Some("input_too_large")), "{}", r.stdout);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(store_snapshot(&f), before, "no refusal changed the store");
}

#[test]
fn evidence_file_and_stdin_keep_working() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    quick(f.root(), &["start"]);
    let r = input(tmp.path(), "r.json", CLEAN_RESULT);
    quick(f.root(), &["finalize", "--result", &r]);
    let ev = probity_with(
        f.root(),
        &["finalize", "--evidence", "-"],
        Some(b"tests passed\n"),
        Duration::from_secs(20),
    );
    assert_eq!(ev.json["state"], "approved", "{}", ev.stdout);
    // The same bytes from a file are the same evidence (an exact retry).
    let file = input(tmp.path(), "ev.txt", "tests passed\n");
    let again = quick(f.root(), &["finalize", "--evidence", &file]);
    assert_eq!(again.json["state"], "approved", "{}", again.stdout);
    let other = input(tmp.path(), "ev2.txt", "other\n");
    let differs = quick(f.root(), &["finalize", "--evidence", &other]);
    assert_eq!(
        code(&differs),
        (4, Some("different_retry")),
        "{}",
        differs.stdout
    );
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
    let early = quick(
        f.root(),
        &["finalize", "--evidence-cmd", "--", "touch", &marker_s],
    );
    assert_eq!(code(&early), (3, Some("wrong_stage")), "{}", early.stdout);
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
    let done = quick(f.root(), &["finalize", "--evidence-cmd", "--", "true"]);
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
}

#[test]
fn finalize_checks_the_bindings_it_is_given() {
    let f = medium_change();
    let tmp = tempfile::tempdir().unwrap();
    let a = quick(f.root(), &["start"]);
    let tok_a = token_of(&a, 0);
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn other() {}\n")
        .unwrap();
    let b = quick(f.root(), &["start"]);
    let tok_b = token_of(&b, 0);
    let r = format!("reliability={}", input(tmp.path(), "r.json", CLEAN_RESULT));
    let before = store_snapshot(&f);
    let stale_binding = format!("reliability={tok_a}");
    let stale = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", &stale_binding],
    );
    assert_eq!(
        code(&stale),
        (3, Some("binding_mismatch")),
        "{}",
        stale.stdout
    );
    assert!(stale.error_message().contains(&tok_b));
    let bad = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", "nolens"],
    );
    assert_eq!(code(&bad), (2, Some("bad_binding_spec")), "{}", bad.stdout);
    assert_eq!(store_snapshot(&f), before);
    let good_binding = format!("reliability={tok_b}");
    let ok = quick(
        f.root(),
        &["finalize", "--result", &r, "--binding", &good_binding],
    );
    assert_eq!(ok.json["state"], "validating", "{}", ok.stdout);
}
