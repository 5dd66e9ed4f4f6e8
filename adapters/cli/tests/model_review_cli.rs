//! The model judging inside the lifecycle (issue 10 §2), through the real
//! binary on real repositories against a scripted chat-completions server
//! on 127.0.0.1 that answers by role: `probity review --lineage L` runs the
//! selected lenses over the frozen tree, binds each answer to its kept
//! transcript, submits it with its binding, finalizes, runs the refuter
//! when needed and the independent check; a BLOCKER reaches
//! `forecast_correction` with the fixer's hand-off, and `--validate` runs
//! the targeted validator after the fix.

mod support;

use probity_core::digest::Sha256Digest;
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use support::model_server::{Lens, role_server, role_server_with};
use support::*;

fn env(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("PROBITY_MODEL_BASE_URL", url.to_string()),
        ("PROBITY_MODEL", "scripted".to_string()),
    ]
}

fn review(f: &probity_git::fixture::Fixture, url: &str, args: &[&str]) -> Run {
    let env = env(url);
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut all = vec!["review"];
    all.extend_from_slice(args);
    probity_env(f.root(), &all, &pairs)
}

fn started(f: &probity_git::fixture::Fixture) -> String {
    let st = probity_ok(f.root(), &["start"]);
    st.json["lineage_id"].as_str().unwrap().to_string()
}

fn state_of(f: &probity_git::fixture::Fixture, lineage: &str) -> serde_json::Value {
    lineage_json(f, lineage, "state.json")
}

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
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Blocker {
        location: "src/parser.rs:3".into(),
        claim: "more() does nothing the caller relies on".into(),
    });
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
    let f = medium_change();
    let lineage = started(&f);
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
    let f = parser_base();
    f.write(
        "src/auth/token.rs",
        "pub fn check(t: &str) -> bool {\n    !t.is_empty()\n}\n",
    )
    .unwrap();
    let lineage = started(&f);
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
    let ran: Vec<_> = r.json["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ran, ["resilience"]);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    // Only the missing lens asked the second server (a read, an answer).
    assert_eq!(good.requests().len(), 2);
}

#[test]
fn an_inferential_critical_runs_the_refuter_batch_once() {
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Inferential {
        location: "src/parser.rs:3".into(),
        claim: "more() may be called before parse() initialises state".into(),
    });
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let roles: Vec<_> = r.json["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(roles, ["reliability", "refuter"]);
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
    let f = medium_change();
    let lineage = started(&f);
    let before = store_snapshot(&f);
    let r = probity(f.root(), &["review", "--lineage", &lineage]);
    r.assert_refused(2, "model_not_configured");
    let bad = probity(f.root(), &["review", "--lineage", "review-zz"]);
    assert_eq!(bad.code, 2, "{}", bad.stdout);
    assert_eq!(store_snapshot(&f), before);
}

fn transcripts(f: &probity_git::fixture::Fixture, lineage: &str) -> Vec<String> {
    std::fs::read_dir(lineage_dir(f, lineage).join("transcripts"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Regression: after a frozen path was edited, `review --lineage` asked the
/// model (the whole prompt sent), was then refused `candidate_changed` at
/// submission, and left the transcript in the store; every rerun paid
/// again. The live candidate is checked (as `lens submit` checks it) before
/// any model call.
#[test]
fn a_changed_candidate_is_refused_before_any_model_is_asked() {
    let f = medium_change();
    let lineage = started(&f);
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn other() {}\n")
        .unwrap();
    let before = store_snapshot(&f);
    let server = role_server(Lens::Clean);
    for _ in 0..2 {
        let r = review(&f, &server.base_url, &["--lineage", &lineage]);
        r.assert_refused(4, "candidate_changed");
        assert!(r.error_message().contains("src/parser.rs"), "{}", r.stdout);
        assert_eq!(server.requests().len(), 0, "no model was asked");
        assert_eq!(store_snapshot(&f), before, "the store is unchanged");
    }
}

/// Regression: a transcript was kept before its answer was submitted, so a
/// refused submission (here: the candidate moved while the model thought)
/// left it in the store. It is kept only once the answer is accepted.
#[test]
fn a_lens_answer_refused_at_submission_keeps_no_transcript() {
    let f = medium_change();
    let lineage = started(&f);
    let before = store_snapshot(&f);
    let root = f.root().to_path_buf();
    // The candidate changes while the model is asked: the check before the
    // run passed, the submission after it is refused.
    let server = role_server_with(Lens::Clean, move |_| {
        std::fs::write(
            root.join("src/parser.rs"),
            "// parser\nfn parse() {}\nfn other() {}\n",
        )
        .unwrap();
    });
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 4, "{}{}", r.stdout, r.stderr);
    assert!(!server.requests().is_empty());
    let role = &r.json["roles"][0];
    assert_eq!(role["ok"], false, "{}", r.stdout);
    assert_eq!(role["error"]["code"], "candidate_changed", "{}", r.stdout);
    assert_eq!(transcripts(&f, &lineage), Vec::<String>::new());
    assert_eq!(store_snapshot(&f), before, "the store is byte-identical");
}

/// The refuter's transcript likewise: kept only once `finalize` took its
/// batch. A refused batch is the refuter's role error; the lens results
/// already submitted and finalized are answered as they stand.
#[test]
fn a_refuter_batch_refused_by_finalize_keeps_no_transcript() {
    let f = medium_change();
    let lineage = started(&f);
    let root = f.root().to_path_buf();
    let at_refuter = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = at_refuter.clone();
    let server = role_server_with(
        Lens::Inferential {
            location: "src/parser.rs:3".into(),
            claim: "more() may be called before parse() initialises state".into(),
        },
        move |body| {
            let mut seen = seen.lock().unwrap();
            if support::model_server::role(body).0 == "refuter" && seen.is_none() {
                *seen = Some(store_snapshot_at(&root));
                std::fs::write(
                    root.join("src/parser.rs"),
                    "// parser\nfn parse() {}\nfn other() {}\n",
                )
                .unwrap();
            }
        },
    );
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 4, "{}{}", r.stdout, r.stderr);
    let roles = r.json["roles"].as_array().unwrap();
    assert_eq!(roles.len(), 2, "{}", r.stdout);
    assert_eq!(roles[0]["role"], "reliability");
    assert_eq!(roles[0]["ok"], true);
    assert_eq!(roles[1]["role"], "refuter");
    assert_eq!(roles[1]["ok"], false);
    assert_eq!(
        roles[1]["error"]["code"], "candidate_changed",
        "{}",
        r.stdout
    );
    assert_eq!(r.json["state"], "reviewing", "{}", r.stdout);
    assert_eq!(r.json["action"], "provide_refuter", "{}", r.stdout);
    let before = at_refuter.lock().unwrap().take().expect("the refuter ran");
    assert_eq!(store_snapshot(&f), before, "nothing the refuter did stayed");
    assert!(
        transcripts(&f, &lineage)
            .iter()
            .all(|t| t.starts_with("reliability-")),
        "{:?}",
        transcripts(&f, &lineage)
    );
}

/// Issue 26 §4: a store fault while finalizing the refuter's batch is the
/// command's error (`store_corrupted`, its exit code and next step), not
/// the refuter's failure: the refuter answered; the store could not take it.
#[test]
fn a_store_fault_finalizing_the_refuter_batch_is_the_commands_error() {
    let f = medium_change();
    let lineage = started(&f);
    let state = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&lineage)
        .join("state.json");
    let corrupt = state.clone();
    let server = role_server_with(
        Lens::Inferential {
            location: "src/parser.rs:3".into(),
            claim: "more() may be called before parse() initialises state".into(),
        },
        move |body| {
            if support::model_server::role(body).0 == "refuter" {
                std::fs::write(&corrupt, b"{not a state").unwrap();
            }
        },
    );
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(
        r.json["error"]["code"], "store_corrupted",
        "{}{}",
        r.stdout, r.stderr
    );
    assert_eq!(r.code, 6, "{}{}", r.stdout, r.stderr);
    assert_eq!(std::fs::read(&state).unwrap(), b"{not a state");
}

/// The validator's transcript likewise: kept only once `finalize
/// --validation` took its document. Here the base moves while the
/// validator is asked (a commit of another file), so finalize refuses the
/// fix (`base_changed`) and the store stays as it was.
/// A lineage whose BLOCKER (from a scripted lens) was admitted to
/// correction, forecast at one line and fixed in the worktree: the next
/// step is `review --lineage L --validate`.
fn fixed_and_awaiting_the_validator() -> (probity_git::fixture::Fixture, String) {
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Blocker {
        location: "src/parser.rs:3".into(),
        claim: "more() does nothing the caller relies on".into(),
    });
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.json["action"], "forecast_correction", "{}", r.stdout);
    let forecast = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--correction-lines", "1"],
    );
    assert_eq!(forecast.code, 0, "{}", forecast.stdout);
    f.write(
        "src/parser.rs",
        "// parser\nfn parse() {}\nfn more() { parse() }\n",
    )
    .unwrap();
    (f, lineage)
}

#[test]
fn a_validation_refused_by_finalize_keeps_no_transcript() {
    let (f, lineage) = fixed_and_awaiting_the_validator();
    let before = store_snapshot(&f);
    let (root, home) = (f.root().to_path_buf(), f.home().to_path_buf());
    let mut moved = false;
    let server = role_server_with(Lens::Clean, move |body| {
        if support::model_server::role(body).0 == "validator" && !moved {
            moved = true;
            std::fs::write(root.join("NOTES.txt"), "elsewhere\n").unwrap();
            let git = |args: &[&str]| {
                probity_testkit::git_env::git_bytes(&root, Some(&home), args).unwrap();
            };
            git(&["add", "NOTES.txt"]);
            git(&["commit", "-q", "-m", "moves the base"]);
        }
    });
    let v = review(&f, &server.base_url, &["--lineage", &lineage, "--validate"]);
    v.assert_refused(4, "base_changed");
    assert!(!server.requests().is_empty(), "the validator was asked");
    assert!(
        transcripts(&f, &lineage)
            .iter()
            .all(|t| !t.starts_with("validator-")),
        "{:?}",
        transcripts(&f, &lineage)
    );
    assert_eq!(store_snapshot(&f), before, "the store is byte-identical");
}

/// The validator judges the corrected candidate it was shown: an edit made
/// while it is asked (inside the allowed paths, so the fix itself changed)
/// is `candidate_changed`, never its verdict attached to a tree it did not
/// read (found by review: finalize measured whatever was live by then).
#[test]
fn a_fix_edited_while_the_validator_is_asked_is_refused_candidate_changed() {
    let (f, lineage) = fixed_and_awaiting_the_validator();
    let before = store_snapshot(&f);
    let root = f.root().to_path_buf();
    let mut edited = false;
    let server = role_server_with(Lens::Clean, move |body| {
        if support::model_server::role(body).0 == "validator" && !edited {
            edited = true;
            std::fs::write(
                root.join("src/parser.rs"),
                "// parser\nfn parse() {}\nfn more() { parse(); parse() }\n",
            )
            .unwrap();
        }
    });
    let v = review(&f, &server.base_url, &["--lineage", &lineage, "--validate"]);
    v.assert_refused(4, "candidate_changed");
    assert!(
        v.stdout.contains("src/parser.rs"),
        "names the path: {}",
        v.stdout
    );
    assert!(!server.requests().is_empty(), "the validator was asked");
    assert_eq!(store_snapshot(&f), before, "the store is byte-identical");
}

/// A configuration running `script` (under `/bin/sh -c`) as the agent of
/// the `command` provider, written into `dir`.
fn agent_config(dir: &std::path::Path, script: &str) -> String {
    let config = serde_json::json!({
        "reviewModelProvider": "command",
        "reviewModelCommand": ["/bin/sh", "-c", script],
    });
    input(dir, "agent.json", &config.to_string())
}

/// Regression: the `command` provider ran its agent in the caller's
/// directory (here the repository itself), where it would read the live
/// worktree, and its stdin named `read`, `grep` and `list` tools it does
/// not offer. The agent runs in an empty scratch directory, and its stdin
/// ends with a note: no tools here, and the exact command serving them
/// over the frozen tree.
#[test]
fn the_command_agent_runs_outside_the_repository_and_is_told_how_to_read_the_frozen_tree() {
    let f = medium_change();
    let st = probity(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let tree = st.json["candidate_tree"].as_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    std::fs::create_dir(&seen).unwrap();
    let script = r#"cat > "$SEEN/stdin"; pwd -P > "$SEEN/cwd"; ls -A > "$SEEN/ls"; printf '{"findings":[],"evidence":["read the frozen diff"]}'"#;
    let config = agent_config(dir.path(), script);
    let seen_s = seen.display().to_string();
    let r = probity_env(
        f.root(),
        &["review", "--lineage", &lineage, "--config", &config],
        &[("SEEN", &seen_s)],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    let cwd = std::fs::read_to_string(seen.join("cwd")).unwrap();
    let cwd = std::path::Path::new(cwd.trim());
    let root = f.root().canonicalize().unwrap();
    assert!(
        !cwd.starts_with(&root),
        "{} is in the repository",
        cwd.display()
    );
    assert!(!cwd.exists(), "{} outlived the call", cwd.display());
    assert_eq!(std::fs::read_to_string(seen.join("ls")).unwrap(), "");
    let stdin = std::fs::read_to_string(seen.join("stdin")).unwrap();
    let (_, note) = stdin
        .rsplit_once("\n[probity: note]\n")
        .unwrap_or_else(|| panic!("{stdin}"));
    assert!(note.contains("No tools are offered"), "{note}");
    let root_word = f.root().display().to_string();
    assert!(
        note.contains(&format!(" mcp --cwd {root_word} --subject tree:{tree}`")),
        "{note}"
    );
    assert!(
        note.contains(&format!("{} mcp", env!("CARGO_BIN_EXE_probity"))),
        "{note}"
    );
}

/// `probity review` without `--json`: the human answer.
fn review_human(f: &probity_git::fixture::Fixture, url: &str, args: &[&str]) -> Run {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .arg("--cwd")
        .arg(f.root())
        .arg("review")
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY");
    for (k, v) in env(url) {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::Value::Null,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Regression: with the provider reporting usage and cost, the human
/// answer said only "answered in N model call(s); transcript ...": it now
/// carries each role's footers, as the free-form review does (what was
/// read beyond the declared context, what the model calls used). And the
/// log named a role two ways (``lens `reliability` `` on tool events,
/// `reliability` on the usage line): it is the plain name throughout.
#[test]
fn the_human_answer_shows_each_roles_reads_and_usage_and_the_log_names_roles_one_way() {
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Inferential {
        location: "src/parser.rs:3".into(),
        claim: "more() may be called before parse() initialises state".into(),
    });
    let r = review_human(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    for role in ["reliability", "refuter"] {
        let at = lines
            .iter()
            .position(|l| l.starts_with(&format!("{role}: answered in 2 model call(s)")))
            .unwrap_or_else(|| panic!("{}", r.stdout));
        assert!(
            lines[at + 1].starts_with("  read 1 file (")
                && lines[at + 1].contains("beyond the declared context: src/parser.rs"),
            "{}",
            r.stdout
        );
        assert_eq!(
            lines[at + 2],
            "  model: 190 input / 15 output tokens over 2 calls, $0.002100",
            "{}",
            r.stdout
        );
    }
    assert!(
        !r.stderr.contains("review."),
        "no event on stderr: {}",
        r.stderr
    );
    let log_path = f
        .root()
        .join(".git/probity-logs")
        .join(format!("review-{lineage}.jsonl"));
    assert!(
        r.stdout
            .contains(&format!("tool events: {}", log_path.display())),
        "{}",
        r.stdout
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    let mut named = std::collections::BTreeSet::new();
    for line in log.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}"));
        if let Some(role) = v.get("role") {
            named.insert((
                v["event"].as_str().unwrap_or("").to_string(),
                role.to_string(),
            ));
        }
    }
    let roles: std::collections::BTreeSet<_> = named.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(
        roles,
        ["\"refuter\"", "\"reliability\""].into_iter().collect(),
        "{named:?}"
    );
    assert!(
        named.iter().any(|(e, _)| e == "review.snapshot.read"),
        "{named:?}"
    );
    assert!(
        named.iter().any(|(e, _)| e == "review.model.usage"),
        "{named:?}"
    );
}

fn state_path(f: &probity_git::fixture::Fixture, lineage: &str) -> std::path::PathBuf {
    lineage_dir(f, lineage).join("state.json")
}

/// A lineage whose frozen lens prompt is not this build's (as one another
/// build started): `review --lineage` asks no model for it
/// (`prompt_changed`, exit 3, both digests named) and writes nothing; `lens
/// context` refuses it the same way.
#[test]
fn a_lineage_frozen_with_another_prompt_is_refused_prompt_changed() {
    let f = medium_change();
    let lineage = started(&f);
    // The state as another build would have frozen it: the lens's prompt
    // digest differs (the record stays canonical and valid).
    let path = state_path(&f, &lineage);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let prompts = &mut v["state"]["frozen"]["prompts"];
    let ours = prompts["lenses"][0]["digest"].as_str().unwrap().to_string();
    let theirs = prompts["refuter"].clone();
    prompts["lenses"][0]["digest"] = theirs.clone();
    let state = probity_core::canonical::canonical_bytes(&v["state"]).unwrap();
    v["revision"] = serde_json::json!(
        Sha256Digest::of(probity_core::review::REVISION_DOMAIN, &state).to_string()
    );
    let mut bytes = probity_core::canonical::canonical_bytes(&v).unwrap();
    bytes.push(b'\n');
    std::fs::write(&path, bytes).unwrap();
    let st = probity(f.root(), &["status", "--lineage", &lineage]);
    assert_eq!(st.code, 0, "the store takes the record: {}", st.stdout);

    let before = store_snapshot(&f);
    let server = role_server(Lens::Clean);
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    let role = &r.json["roles"][0];
    assert_eq!(role["ok"], false, "{}", r.stdout);
    assert_eq!(role["error"]["code"], "prompt_changed", "{}", r.stdout);
    let message = role["error"]["message"].as_str().unwrap();
    assert!(message.contains(&ours), "{message}");
    assert!(message.contains(theirs.as_str().unwrap()), "{message}");
    assert_eq!(r.json["state"], "reviewing");
    assert_eq!(server.requests().len(), 0, "no model was asked");
    assert_eq!(store_snapshot(&f), before);

    let c = probity(
        f.root(),
        &[
            "lens",
            "context",
            "--lineage",
            &lineage,
            "--lens",
            "reliability",
        ],
    );
    assert_eq!(c.code, 3, "{}", c.stdout);
    assert_eq!(c.json["error"]["code"], "prompt_changed", "{}", c.stdout);
    assert_eq!(store_snapshot(&f), before);
}

/// `--validate` before the correction was forecast: the validator is not
/// awaited (`role_not_now`, exit 3); no model is asked, nothing written.
#[test]
fn validate_before_a_forecast_is_role_not_now() {
    let f = medium_change();
    let lineage = started(&f);
    let server = role_server(Lens::Blocker {
        location: "src/parser.rs:3".into(),
        claim: "more() does nothing the caller relies on".into(),
    });
    // While the lenses are still awaited, too.
    let before = store_snapshot(&f);
    let early = review(&f, &server.base_url, &["--lineage", &lineage, "--validate"]);
    assert_eq!(early.code, 3, "{}{}", early.stdout, early.stderr);
    assert_eq!(early.json["roles"][0]["error"]["code"], "role_not_now");
    assert_eq!(server.requests().len(), 0);
    assert_eq!(store_snapshot(&f), before);

    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.json["action"], "forecast_correction", "{}", r.stdout);
    let asked = server.requests().len();
    let before = store_snapshot(&f);
    let v = review(&f, &server.base_url, &["--lineage", &lineage, "--validate"]);
    assert_eq!(v.code, 3, "{}{}", v.stdout, v.stderr);
    let role = &v.json["roles"][0];
    assert_eq!(role["role"], "validator");
    assert_eq!(role["ok"], false);
    assert_eq!(role["error"]["code"], "role_not_now", "{}", v.stdout);
    assert_eq!(v.json["state"], "correction_required");
    assert_eq!(v.json["action"], "forecast_correction");
    assert_eq!(server.requests().len(), asked, "no model was asked");
    assert_eq!(store_snapshot(&f), before);
}

/// `lens context` for a lineage the store does not hold
/// (`lineage_not_found`), a malformed id (`bad_lineage`), and a lineage
/// that no longer awaits lens results (`role_not_now`): each exit 3,
/// nothing written.
#[test]
fn lens_context_refuses_an_unknown_lineage_and_a_wrong_stage() {
    let f = medium_change();
    let lineage = started(&f);
    let before = store_snapshot(&f);
    let context = |l: &str| {
        probity(
            f.root(),
            &["lens", "context", "--lineage", l, "--lens", "reliability"],
        )
    };
    let ok = context(&lineage);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert_eq!(ok.json["subject"].as_str().unwrap().len(), 45);
    let unknown = context("review-0123456789abcdef");
    assert_eq!(unknown.code, 3, "{}", unknown.stdout);
    assert_eq!(unknown.json["error"]["code"], "lineage_not_found");
    let bad = context("not-a-lineage");
    assert_eq!(bad.code, 3, "{}", bad.stdout);
    assert_eq!(bad.json["error"]["code"], "bad_lineage");
    assert_eq!(store_snapshot(&f), before);

    // Judged: the lens is no longer awaited.
    let server = role_server(Lens::Clean);
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    let before = store_snapshot(&f);
    let late = context(&lineage);
    assert_eq!(late.code, 3, "{}", late.stdout);
    assert_eq!(
        late.json["error"]["code"], "role_not_now",
        "{}",
        late.stdout
    );
    assert_eq!(store_snapshot(&f), before);
}

/// Regression: `--jobs 0` and `--jobs 99` were silently clamped. The
/// documented range is 1 to 4 (at most four lens runs at once); outside
/// it is a usage error naming the range, before anything runs.
#[test]
fn jobs_outside_one_to_four_is_a_usage_error() {
    let f = medium_change();
    let lineage = started(&f);
    let before = store_snapshot(&f);
    let server = role_server(Lens::Clean);
    for jobs in ["0", "5", "99"] {
        let r = review(
            &f,
            &server.base_url,
            &["--lineage", &lineage, "--jobs", jobs],
        );
        assert_eq!(r.code, 2, "--jobs {jobs}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.json["error"]["code"], "usage", "{}", r.stdout);
        assert!(r.error_message().contains("1..=4"), "{}", r.stdout);
        assert_eq!(r.json["error"]["argument"], "--jobs <N>", "{}", r.stdout);
    }
    assert_eq!(server.requests().len(), 0);
    assert_eq!(store_snapshot(&f), before);
    for jobs in ["1", "4"] {
        let r = review(
            &f,
            &server.base_url,
            &["--lineage", &lineage, "--jobs", jobs],
        );
        assert_eq!(r.code, 0, "--jobs {jobs}: {}{}", r.stdout, r.stderr);
    }
}

/// A high-risk change (four lenses) reviewed by a `command` agent that
/// waits until `want` agents are in flight at once (bounded: alone too
/// long, it fails), recording how many were in flight when it started.
fn high_risk_run(jobs: &str, want: usize) -> (Run, Vec<usize>) {
    let f = parser_base();
    f.write(
        "src/auth/token.rs",
        "pub fn check(t: &str) -> bool {\n    !t.is_empty()\n}\n",
    )
    .unwrap();
    let lineage = started(&f);
    let dir = tempfile::tempdir().unwrap();
    let flight = dir.path().join("in-flight");
    std::fs::create_dir(&flight).unwrap();
    let log = dir.path().join("seen");
    // Deterministic: no timing is asserted. An agent proceeds once `want`
    // markers exist (its own among them); the 30 s bound only turns a
    // run that never reaches `want` into a failure instead of a hang.
    let script = format!(
        r#"cat >/dev/null
me=$(mktemp "$FLIGHT/agent.XXXXXX")
ls "$FLIGHT" | wc -l >> "$SEEN"
i=0
while [ "$(ls "$FLIGHT" | wc -l)" -lt {want} ]; do
  i=$((i+1)); if [ $i -gt 600 ]; then echo "alone too long" >&2; exit 1; fi
  sleep 0.05
done
printf '{{"findings":[],"evidence":["judged beside the other lenses"]}}'
[ {want} -gt 1 ] || rm "$me""#
    );
    let config = agent_config(dir.path(), &script);
    let (flight_s, log_s) = (flight.display().to_string(), log.display().to_string());
    let r = probity_env(
        f.root(),
        &[
            "review",
            "--lineage",
            &lineage,
            "--jobs",
            jobs,
            "--config",
            &config,
        ],
        &[("FLIGHT", &flight_s), ("SEEN", &log_s)],
    );
    let seen = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    (r, seen)
}

/// With `--jobs 4` the four lenses of a high-risk change are asked at
/// once: each agent waits for the other three and all are submitted.
/// With `--jobs 1` they run one after another: each agent is alone.
#[test]
fn lenses_run_concurrently_up_to_jobs() {
    let (r, seen) = high_risk_run("4", 4);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let roles = r.json["roles"].as_array().unwrap();
    assert_eq!(roles.len(), 4, "{}", r.stdout);
    assert!(roles.iter().all(|x| x["ok"] == true), "{}", r.stdout);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    assert_eq!(seen.len(), 4, "{seen:?}");

    let (r, seen) = high_risk_run("1", 1);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    assert_eq!(seen, [1, 1, 1, 1], "one agent at a time");
}

/// Regression: `probity review --help` spoke of "a chat-completions model"
/// only and `probity mcp --help` of read, grep and list only; start's next
/// step named only hand submission.
#[test]
fn help_and_starts_next_step_name_the_model_run() {
    // What the command says it does: the help text before its usage.
    let help = |cmd: &str| {
        let out = isolated(&mut std::process::Command::new(env!(
            "CARGO_BIN_EXE_probity"
        )))
        .args([cmd, "--help"])
        .output()
        .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.split("Usage:").next().unwrap().to_string()
    };
    let review_help = help("review");
    for word in [
        "--lineage L",
        "openai",
        "anthropic",
        "agent command",
        "--subject S",
    ] {
        assert!(review_help.contains(word), "{word}: {review_help}");
    }
    let mcp_help = help("mcp");
    for word in ["--authority", "--subject S", "lifecycle"] {
        assert!(mcp_help.contains(word), "{word}: {mcp_help}");
    }

    let f = medium_change();
    let st = probity(f.root(), &["start"]);
    let lineage = st.json["lineage_id"].as_str().unwrap();
    let message = st.json["message"].as_str().unwrap();
    assert!(message.contains("probity lens submit"), "{message}");
    assert!(
        message.contains(&format!("`probity review --lineage {lineage}`")),
        "{message}"
    );
    // The human answer says the same (the same start, resumed).
    let out = probity_in(f.root())
        .arg("start")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains(&format!("`probity review --lineage {lineage}`")),
        "{human}"
    );
}
