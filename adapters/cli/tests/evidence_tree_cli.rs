//! Issue 20 §1: the check `--evidence-cmd` runs sees the lineage's frozen
//! candidate tree (a scratch checkout), never the live worktree; its
//! outcome is visible (a failure prints its exit status and output tail,
//! exits non-zero, and its output stays readable); no process of it
//! outlives it; and its evidence document names the tree it checked.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use probity_core::digest::Sha256Digest;
use probity_core::review::EVIDENCE_DOMAIN;
use probity_git::fixture::Fixture;
use serde_json::Value;
use support::*;

/// A committed change whose `src/value.txt` holds `value`, started with
/// `start --commit HEAD` and given its clean lens results: the lineage
/// awaits evidence. Returns the fixture, the lineage and the inputs dir.
fn committed_awaiting_evidence(value: &str) -> (Fixture, String, tempfile::TempDir) {
    let f = Fixture::new().unwrap();
    f.write("src/value.txt", "base\n").unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\n")
        .unwrap();
    f.commit_all("base").unwrap();
    f.write("src/value.txt", format!("{value}\n")).unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    f.commit_all("change").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start", "--commit", "HEAD"]);
    let lineage = string_at(&st.json, "lineage_id");
    await_evidence(&f, tmp.path(), &st.json);
    (f, lineage, tmp)
}

/// Gives the started lineage one clean result per selected lens.
fn await_evidence(f: &Fixture, dir: &Path, started: &Value) {
    let r = finalize_started_with(f.root(), dir, started, &[]);
    assert_eq!(r.json["state"], "validating", "{}{}", r.stdout, r.stderr);
}

fn finalize_cmd<'a>(lineage: &'a str, check: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["finalize", "--lineage", lineage, "--evidence-cmd", "--"];
    args.extend(check);
    args
}

/// `finalize_cmd` with `--evidence-timeout SECONDS` before the check.
fn finalize_timed<'a>(lineage: &'a str, seconds: &'a str, check: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["finalize", "--lineage", lineage];
    args.extend(["--evidence-timeout", seconds, "--evidence-cmd", "--"]);
    args.extend(check);
    args
}

/// `finalize` of the lineage with the check `sh -c SCRIPT`.
fn finalize_sh(f: &Fixture, lineage: &str, script: &str) -> Run {
    probity(f.root(), &finalize_cmd(lineage, &["sh", "-c", script]))
}

/// The medium change started and given its clean lens results: the
/// inputs dir, the start answer and the lineage.
fn medium_awaiting_evidence(f: &Fixture) -> (tempfile::TempDir, Value, String) {
    let tmp = tempfile::tempdir().unwrap();
    let st = probity(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    await_evidence(f, tmp.path(), &st.json);
    (tmp, st.json, lineage)
}

/// Asserts the run left the lineage in `state` (`what` says which run).
fn assert_state(done: &Run, state: &str, what: &str) {
    assert_eq!(
        done.json["state"], state,
        "{what}: {}{}",
        done.stdout, done.stderr
    );
}

/// The lineage's kept check output.
fn kept_output(f: &Fixture, lineage: &str) -> std::path::PathBuf {
    f.root()
        .join(".git/probity/reviews/v1")
        .join(lineage)
        .join("check-output")
}

/// The committed change holding `value`, awaiting evidence, with `edit`
/// (path, content) written to the worktree after start, then finalized with
/// the check `sh -c SCRIPT`.
fn check_after_edit(value: &str, edit: (&str, &str), script: &str) -> Run {
    let (f, lineage, _tmp) = committed_awaiting_evidence(value);
    f.write(edit.0, edit.1).unwrap();
    finalize_sh(&f, &lineage, script)
}

/// The candidate's own check fails; a fix the worktree holds (an untracked
/// file the candidate does not) must not make it pass.
#[test]
fn a_fix_only_in_the_worktree_does_not_pass_the_frozen_trees_check() {
    // After start: the "fix", uncommitted, in another file.
    let fix = ("src/override.txt", "fixed\n");
    let check = "test -f src/override.txt || grep -qx good src/value.txt";
    let done = check_after_edit("bad", fix, check);
    assert_state(&done, "escalated", "the frozen tree's check fails");
    assert_ne!(done.code, 0, "a failing check exits non-zero");
}

/// A good commit's check passes, whatever unrelated uncommitted edit the
/// worktree holds after start.
#[test]
fn an_unrelated_uncommitted_edit_does_not_break_the_check() {
    let check = "test ! -e src/broken.txt && grep -qx good src/value.txt";
    let done = check_after_edit("good", ("src/broken.txt", "oops\n"), check);
    assert_state(&done, "approved", "a good commit");
    assert_eq!(done.code, 0);
}

/// Each lineage of a `--range` stack is checked on its own commit's tree.
#[test]
fn each_commit_of_a_stack_is_checked_on_its_own_tree() {
    let f = Fixture::new().unwrap();
    f.write("src/value.txt", "base\n").unwrap();
    f.commit_all("base").unwrap();
    let base = rev_parse(&f, "HEAD");
    for v in ["one", "two"] {
        f.write("src/value.txt", format!("{v}\n")).unwrap();
        f.commit_all(v).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start", "--range", &format!("{base}..HEAD")]);
    let lineages = st.json["lineages"].as_array().unwrap().clone();
    assert_eq!(lineages.len(), 2);
    for (l, want) in lineages.iter().zip(["one", "two"]) {
        await_evidence(&f, tmp.path(), l);
        let id = l["lineage_id"].as_str().unwrap();
        let script = format!("grep -qx {want} src/value.txt");
        let done = finalize_sh(&f, id, &script);
        assert_state(&done, "approved", want);
    }
}

/// Files the check writes join neither the worktree nor the candidate: the
/// pre-commit gate still allows.
#[test]
fn files_the_check_writes_join_neither_worktree_nor_candidate() {
    let f = medium_change();
    let (_tmp, _, lineage) = medium_awaiting_evidence(&f);
    let status = worktree_status(&f);
    let done = finalize_sh(
        &f,
        &lineage,
        "echo x > written.txt && mkdir -p out && echo y > out/f && echo z >> src/parser.rs",
    );
    assert_state(&done, "approved", "a writing check");
    assert_eq!(worktree_status(&f), status, "nothing joined the worktree");
    assert!(!f.root().join("written.txt").exists());
    let gate = probity(f.root(), &["validate", "--gate", "pre-commit"]);
    assert_eq!(gate.code, 0, "{}", gate.stdout);
}

/// A check that cannot start is refused, with nothing changed.
#[test]
fn a_check_that_cannot_start_is_refused_with_nothing_changed() {
    let f = medium_change();
    f.write("check.sh", "#!/bin/sh\nexit 0\n").unwrap();
    let (_tmp, _, lineage) = medium_awaiting_evidence(&f);
    let before = store_snapshot(&f);
    let status = worktree_status(&f);
    for check in [&["probity-no-such-program-xyz"][..], &["./check.sh"][..]] {
        let r = probity(f.root(), &finalize_cmd(&lineage, check));
        assert_eq!(
            (r.code, r.json["error"]["code"].as_str()),
            (3, Some("evidence_cmd_unavailable")),
            "{check:?}: {}{}",
            r.stdout,
            r.stderr
        );
        assert_eq!(store_snapshot(&f), before, "{check:?}");
        assert_eq!(worktree_status(&f), status);
    }
}

/// A failing check prints its exit status and its output's tail, exits
/// non-zero, and its output stays readable (`probity show evidence`).
#[test]
fn a_failing_check_shows_its_status_and_output_and_keeps_it() {
    let f = medium_change();
    let (_tmp, _, lineage) = medium_awaiting_evidence(&f);
    let script = "i=0; while [ $i -lt 3000 ]; do echo \"noise line $i\"; i=$((i+1)); done; echo BOOM-TAIL >&2; exit 7";
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .arg("--cwd")
        .arg(f.root())
        .args(finalize_cmd(&lineage, &["sh", "-c", script]))
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE");
    let out = run_of(&cmd.output().unwrap());
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(text.contains("exit status 7"), "{text}");
    assert!(text.contains("BOOM-TAIL"), "{text}");
    assert!(!text.contains("noise line 0\n"), "only the tail: {text}");
    // The kept output: the tail, the full length and hash.
    let shown = probity_ok(f.root(), &["show", "evidence", "--lineage", &lineage]);
    let tail = shown.json["output_tail"].as_str().unwrap();
    assert!(tail.ends_with("BOOM-TAIL\n"), "{tail}");
    assert_eq!(shown.json["exit"], "exit status 7");
    let mut full = String::new();
    for i in 0..3000 {
        full.push_str(&format!("noise line {i}\n"));
    }
    full.push_str("BOOM-TAIL\n");
    assert_eq!(shown.json["output_bytes"], full.len() as u64);
    assert_eq!(
        shown.json["output_sha256"],
        Sha256Digest::plain(full.as_bytes()).to_string()
    );
    assert!(full.ends_with(tail) && tail.len() <= 64 * 1024);
    // A lineage without a kept check output says so.
    let g = medium_change();
    let none = probity(g.root(), &["show", "evidence", "--lineage", &lineage]);
    assert_ne!(none.code, 0, "{}", none.stdout);
}

fn alive(pid: &str) -> bool {
    Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

fn read_pid(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap().trim().to_string()
}

/// The pid the daemon wrote to `pidfile`, and whether it is still alive
/// (then it is killed).
fn daemon_left(pidfile: &Path) -> (String, bool) {
    let pid = read_pid(pidfile);
    let left = alive(&pid);
    if left {
        let _ = Command::new("kill").args(["-9", &pid]).status();
    }
    (pid, left)
}

/// A check whose child leaves its process group (`setsid`) leaves no
/// process behind, whether the child keeps the output open or not.
#[test]
fn no_process_of_the_check_outlives_it() {
    for keeps_output in [false, true] {
        let f = medium_change();
        let (tmp, _, lineage) = medium_awaiting_evidence(&f);
        let pidfile = tmp.path().join("daemon.pid");
        let redirect = if keeps_output { "" } else { ">/dev/null 2>&1" };
        let script = format!(
            "setsid sh -c 'echo $$ > {p}; exec sleep 30' {redirect} </dev/null & \
             while [ ! -s {p} ]; do sleep 0.05; done; exit 0",
            p = pidfile.display()
        );
        let started = Instant::now();
        let done = probity(
            f.root(),
            &finalize_timed(&lineage, "25", &["sh", "-c", &script]),
        );
        let (pid, left) = daemon_left(&pidfile);
        assert_state(&done, "approved", &format!("keeps output {keeps_output}"));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "keeps output {keeps_output}: waited for the daemon"
        );
        assert!(
            !left,
            "keeps output {keeps_output}: the daemon {pid} outlived the check"
        );
    }
}

/// The evidence document names the tree it checked: the final candidate
/// tree; a hand-made document naming another tree is refused.
#[test]
fn the_evidence_document_names_the_checked_tree() {
    let f = medium_change();
    let (tmp, st, lineage) = medium_awaiting_evidence(&f);
    let tree = st["candidate_tree"].as_str().unwrap().to_string();
    let doc = |tree: &str| {
        format!(
            r#"{{"argv":["true"],"exit_code":0,"output_bytes":0,"output_sha256":"{}","schema":"probity-command-evidence/v2","tree":"{tree}"}}"#,
            Sha256Digest::plain(b"")
        )
    };
    // Another tree (the base's): refused, nothing written.
    let base = rev_parse(&f, "HEAD^{tree}");
    assert_ne!(base, tree);
    let before = store_snapshot(&f);
    let wrong = input(tmp.path(), "wrong.json", &doc(&base));
    let r = probity(
        f.root(),
        &["finalize", "--lineage", &lineage, "--evidence", &wrong],
    );
    r.assert_refused(3, "evidence_tree_mismatch");
    assert_eq!(store_snapshot(&f), before);
    // `--evidence-cmd` writes the document naming the frozen tree.
    let done = probity(f.root(), &finalize_cmd(&lineage, &["true"]));
    assert_eq!(done.json["state"], "approved", "{}", done.stdout);
    let receipt = receipt_of(&f, &lineage);
    assert_eq!(receipt["final_candidate_tree"], tree.as_str());
    assert_eq!(
        receipt["evidence_hash"],
        Sha256Digest::of(EVIDENCE_DOMAIN, doc(&tree).as_bytes()).to_string()
    );
    let shown = probity(f.root(), &["show", "evidence", "--lineage", &lineage]);
    assert_eq!(shown.json["tree"], tree.as_str(), "{}", shown.stdout);
}

/// After a correction the check runs on the corrected tree (its final
/// candidate tree), whether the validation lands in the same call or
/// before.
#[test]
fn after_a_correction_the_check_runs_on_the_corrected_tree() {
    for same_call in [true, false] {
        let f = Fixture::new().unwrap();
        f.write("src/parser.rs", "fn a() {}\n").unwrap();
        f.commit_all("base").unwrap();
        let body = |v: &str| {
            format!(
                "fn a() {{}}\nfn b() -> i32 {{\n    {v}\n}}\nfn c() {{}}\nfn d() {{}}\nfn e() {{}}\nfn g() {{}}\nfn h() {{}}\n"
            )
        };
        f.write("src/parser.rs", body("-1")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let s = probity(f.root(), &["start"]);
        let lineage = string_at(&s.json, "lineage_id");
        let r = input(tmp.path(), "r.json", PARSER_BLOCKER);
        let run = |args: &[&str]| {
            let mut a = vec!["finalize", "--lineage", lineage.as_str()];
            a.extend_from_slice(args);
            probity(f.root(), &a)
        };
        assert_eq!(run(&["--result", &r]).json["state"], "correction_required");
        run(&["--correction-lines", "2"]);
        f.write("src/parser.rs", body("0")).unwrap();
        let v = input(tmp.path(), "v.json", VALIDATION_PASS);
        let check = ["sh", "-c", "grep -qx '    0' src/parser.rs"];
        let done = if same_call {
            let mut a = vec!["--validation", v.as_str(), "--evidence-cmd", "--"];
            a.extend(check);
            run(&a)
        } else {
            assert_eq!(run(&["--validation", &v]).json["state"], "validating");
            let mut a = vec!["--evidence-cmd", "--"];
            a.extend(check);
            run(&a)
        };
        assert_state(&done, "approved", &format!("same call {same_call}"));
        let receipt = receipt_of(&f, &lineage);
        assert_eq!(
            done.json["evidence_check"]["tree"], receipt["final_candidate_tree"],
            "{}",
            done.stdout
        );
        assert_ne!(receipt["final_candidate_tree"], s.json["candidate_tree"]);
    }
}

/// Run from a subdirectory, the check runs in the same subdirectory of the
/// checkout; it sees none of the repository's `GIT_*` variables, and `PWD`
/// names its directory.
#[test]
fn the_check_runs_in_the_same_subdirectory_with_the_repositorys_git_env_removed() {
    let f = medium_change();
    let (_tmp, _, lineage) = medium_awaiting_evidence(&f);
    let sub = f.root().join("src");
    let check = [
        "sh",
        "-c",
        "test -f parser_test.rs && test -z \"$GIT_WORK_TREE\" && test -z \"$GIT_INDEX_FILE\" \
         && test \"$PWD\" = \"$(/bin/pwd)\" && test \"$PROBITY_TEST_KEPT\" = yes \
         && ! git rev-parse --git-dir >/dev/null 2>&1",
    ];
    let done = probity_env(
        &sub,
        &finalize_cmd(&lineage, &check),
        &[
            ("GIT_WORK_TREE", f.root().to_str().unwrap()),
            ("PROBITY_TEST_KEPT", "yes"),
        ],
    );
    assert_state(&done, "approved", "from src");
}

/// A check that times out leaves no process either, even one that left
/// its group.
#[test]
fn a_timed_out_check_leaves_no_process() {
    let f = medium_change();
    let (tmp, _, lineage) = medium_awaiting_evidence(&f);
    let before = store_snapshot(&f);
    let pidfile = tmp.path().join("daemon.pid");
    let script = format!(
        "setsid sh -c 'echo $$ > {p}; exec sleep 30' >/dev/null 2>&1 </dev/null & sleep 30",
        p = pidfile.display()
    );
    let done = probity(
        f.root(),
        &finalize_timed(&lineage, "2", &["sh", "-c", &script]),
    );
    let (pid, left) = daemon_left(&pidfile);
    done.assert_error("evidence_timeout");
    assert!(!left, "the daemon {pid} outlived the timed-out check");
    assert_eq!(store_snapshot(&f), before);
}

/// `review --lineage L --evidence-cmd` runs the check the same way: on the
/// frozen tree, what it writes joining nothing; its answer names the tree.
#[test]
fn review_runs_the_check_on_the_frozen_tree() {
    use support::model_server::{Lens, role_server};
    let f = medium_change();
    let st = probity(f.root(), &["start"]);
    let lineage = string_at(&st.json, "lineage_id");
    let status = worktree_status(&f);
    let server = role_server(Lens::Clean);
    let check = "echo x > written.txt && grep -q 'fn more' src/parser.rs";
    let done = probity_env(
        f.root(),
        &sh_check_args("review", &lineage, check),
        &[
            ("PROBITY_MODEL_BASE_URL", server.base_url.as_str()),
            ("PROBITY_MODEL", "scripted"),
        ],
    );
    assert_state(&done, "approved", "review");
    assert_eq!(
        done.json["evidence_check"]["tree"],
        st.json["candidate_tree"]
    );
    assert_eq!(worktree_status(&f), status, "nothing joined the worktree");
}

/// The medium change (on the parser base) started: its fixture, the inputs
/// dir, the start run and where its lineage keeps a check's output.
fn started_with_kept_output() -> (Fixture, tempfile::TempDir, Run, std::path::PathBuf) {
    let f = parser_base();
    write_medium_change(&f);
    let inputs = tempfile::tempdir().unwrap();
    let st = probity_ok(f.root(), &["start"]);
    let kept = kept_output(&f, &string_at(&st.json, "lineage_id"));
    (f, inputs, st, kept)
}

/// The check's output and document are kept before the lineage takes the
/// check, and put back when it does not: a lineage that took one check and
/// is handed another in the same call refuses it, and its kept output,
/// documents and records stay byte for byte as they were.
#[test]
fn a_check_the_lineage_refuses_leaves_its_kept_output_as_it_was() {
    let (f, inputs, st, kept) = started_with_kept_output();
    let first = ["--evidence-cmd", "--", "sh", "-c", "echo first"];
    approve_started_with(f.root(), inputs.path(), &st.json, &first);
    assert!(std::fs::read(&kept).unwrap().ends_with(b"first\n"));
    let before = store_snapshot(&f);
    let second = ["--evidence-cmd", "--", "sh", "-c", "echo second"];
    let r = finalize_started_with(f.root(), inputs.path(), &st.json, &second);
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["error"]["code"], "different_retry", "{}", r.stdout);
    assert_eq!(store_snapshot(&f), before);
}

/// A kept check output over its bound (written by hand: Probity keeps at
/// most 64 KiB of output) is a diagnostic, not authority: the next check
/// replaces it instead of being refused with advice no one can follow.
#[test]
fn a_malformed_kept_output_is_replaced_by_the_next_check() {
    let (f, inputs, st, kept) = started_with_kept_output();
    std::fs::write(&kept, vec![b'x'; 200 * 1024]).unwrap();
    let check = ["--evidence-cmd", "--", "sh", "-c", "echo checked"];
    approve_started_with(f.root(), inputs.path(), &st.json, &check);
    assert!(std::fs::read(&kept).unwrap().ends_with(b"checked\n"));
}
