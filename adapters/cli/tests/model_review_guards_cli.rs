//! The model judging inside the lifecycle (issue 10 §2), its guards: what
//! a review refuses before or instead of submitting (a changed candidate, a
//! refused answer, a changed prompt, a wrong stage), the command agent, the
//! human answer and the concurrency of lenses (moved out of
//! `model_review_cli.rs`: moves only).

#[path = "support/model_review.rs"]
mod model_review;
mod support;

use model_review::*;
use probity_core::digest::Sha256Digest;
use support::model_server::{Lens, role_server, role_server_with};
use support::*;

/// A request hook that runs `act` once, when `role` is first asked.
fn once_for(
    role: &'static str,
    act: impl FnOnce() + Send + 'static,
) -> impl FnMut(&serde_json::Value) + Send + 'static {
    let mut act = Some(act);
    move |body| {
        if support::model_server::role(body).0 == role
            && let Some(act) = act.take()
        {
            act();
        }
    }
}

/// Writes `text` to `path` under `root`.
fn write_at(root: &std::path::Path, path: &str, text: &str) {
    std::fs::write(root.join(path), text).unwrap();
}

/// Regression: after a frozen path was edited, `review --lineage` asked the
/// model (the whole prompt sent), was then refused `candidate_changed` at
/// submission, and left the transcript in the store; every rerun paid
/// again. The live candidate is checked (as `lens submit` checks it) before
/// any model call.
#[test]
fn a_changed_candidate_is_refused_before_any_model_is_asked() {
    let (f, lineage) = medium_started();
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
    let (f, lineage) = medium_started();
    let root = f.root().to_path_buf();
    let before = store_snapshot(&f);
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
    let (f, lineage) = medium_started();
    let root = f.root().to_path_buf();
    let at_refuter = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = at_refuter.clone();
    let server = role_server_with(
        inferential(BEFORE_PARSE),
        once_for("refuter", move || {
            *seen.lock().unwrap() = Some(store_snapshot_at(&root));
            write_at(
                &root,
                "src/parser.rs",
                "// parser\nfn parse() {}\nfn other() {}\n",
            );
        }),
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
    let (f, lineage) = medium_started();
    let state = f
        .root()
        .join(".git/probity/reviews/v1")
        .join(&lineage)
        .join("state.json");
    let corrupt = state.clone();
    let server = role_server_with(inferential(BEFORE_PARSE), move |body| {
        if support::model_server::role(body).0 == "refuter" {
            std::fs::write(&corrupt, b"{not a state").unwrap();
        }
    });
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(
        r.json["error"]["code"], "store_corrupted",
        "{}{}",
        r.stdout, r.stderr
    );
    assert_eq!(r.code, 6, "{}{}", r.stdout, r.stderr);
    assert_eq!(std::fs::read(&state).unwrap(), b"{not a state");
}

#[test]
fn a_validation_refused_by_finalize_keeps_no_transcript() {
    let (f, lineage) = fixed_and_awaiting_the_validator();
    let before = store_snapshot(&f);
    let (root, home) = (f.root().to_path_buf(), f.home().to_path_buf());
    let server = role_server_with(
        Lens::Clean,
        once_for("validator", move || {
            write_at(&root, "NOTES.txt", "elsewhere\n");
            let git = |args: &[&str]| {
                probity_testkit::git_env::git_bytes(&root, Some(&home), args).unwrap();
            };
            git(&["add", "NOTES.txt"]);
            git(&["commit", "-q", "-m", "moves the base"]);
        }),
    );
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
    let server = role_server_with(
        Lens::Clean,
        once_for("validator", move || {
            let fix = "// parser\nfn parse() {}\nfn more() { parse(); parse() }\n";
            write_at(&root, "src/parser.rs", fix);
        }),
    );
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

/// Regression: with the provider reporting usage and cost, the human
/// answer said only "answered in N model call(s); transcript ...": it now
/// carries each role's footers, as the free-form review does (what was
/// read beyond the declared context, what the model calls used). And the
/// log named a role two ways (``lens `reliability` `` on tool events,
/// `reliability` on the usage line): it is the plain name throughout.
#[test]
fn the_human_answer_shows_each_roles_reads_and_usage_and_the_log_names_roles_one_way() {
    let server = role_server(inferential(BEFORE_PARSE));
    let (f, lineage) = medium_started();
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

/// A lineage whose frozen lens prompt is not this build's (as one another
/// build started): `review --lineage` asks no model for it
/// (`prompt_changed`, exit 3, both digests named) and writes nothing; `lens
/// context` refuses it the same way.
#[test]
fn a_lineage_frozen_with_another_prompt_is_refused_prompt_changed() {
    let (f, lineage) = medium_started();
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
    c.assert_refused(3, "prompt_changed");
    assert_eq!(store_snapshot(&f), before);
}

/// `--validate` before the correction was forecast: the validator is not
/// awaited (`role_not_now`, exit 3); no model is asked, nothing written.
#[test]
fn validate_before_a_forecast_is_role_not_now() {
    let (f, lineage) = medium_started();
    let server = role_server(blocker("more() does nothing the caller relies on"));
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
    let (f, lineage) = medium_started();
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
    unknown.assert_refused(3, "lineage_not_found");
    let bad = context("not-a-lineage");
    bad.assert_refused(3, "bad_lineage");
    assert_eq!(store_snapshot(&f), before);

    // Judged: the lens is no longer awaited.
    let server = role_server(Lens::Clean);
    let r = review(&f, &server.base_url, &["--lineage", &lineage]);
    assert_eq!(r.json["state"], "validating", "{}", r.stdout);
    let before = store_snapshot(&f);
    let late = context(&lineage);
    late.assert_refused(3, "role_not_now");
    assert_eq!(store_snapshot(&f), before);
}

/// Regression: `--jobs 0` and `--jobs 99` were silently clamped. The
/// documented range is 1 to 4 (at most four lens runs at once); outside
/// it is a usage error naming the range, before anything runs.
#[test]
fn jobs_outside_one_to_four_is_a_usage_error() {
    let (f, lineage) = medium_started();
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
