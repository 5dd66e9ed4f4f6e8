//! Shared helpers for CLI tests: run the real binary against fixture
//! repositories and snapshot the store byte for byte.

#![allow(dead_code)]

pub mod signals;
pub mod team;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use probity_git::fixture::Fixture;
use serde_json::Value;

pub mod ci;
pub mod fifo;
pub mod forged;
mod keys;
#[allow(unused_imports)] // not every test binary signs
pub use keys::*;
pub mod mcp;
pub mod model_server;
pub mod raw_tree;
pub mod transport;
pub mod watchdog;

pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the run is the refusal `error` (its `error.code`) with exit
    /// `code`; stdout and stderr are the failure message.
    pub fn assert_refused(&self, code: i32, error: &str) {
        assert_eq!(
            (self.code, self.json["error"]["code"].as_str()),
            (code, Some(error)),
            "{}{}",
            self.stdout,
            self.stderr
        );
    }

    /// Asserts the run answered the error `error` (its `error.code`),
    /// whatever its exit; stdout is the failure message.
    pub fn assert_error(&self, error: &str) {
        assert_eq!(self.json["error"]["code"], error, "{}", self.stdout);
    }

    /// Asserts the run failed (a non-zero exit) with the refusal `error`
    /// (its `error.code`); returns its `error.next_action`.
    pub fn assert_failed(&self, error: &str) -> &str {
        assert_ne!(self.code, 0, "{}{}", self.stdout, self.stderr);
        self.assert_error(error);
        self.next_action()
    }

    /// The refusal's `error.next_action` (the run must carry one).
    pub fn next_action(&self) -> &str {
        self.json["error"]["next_action"]
            .as_str()
            .unwrap_or_else(|| panic!("no next action: {}{}", self.stdout, self.stderr))
    }

    /// The refusal's `error.message` (the run must be a JSON refusal).
    pub fn error_message(&self) -> &str {
        self.json["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {}{}", self.stdout, self.stderr))
    }
}

/// An empty home for every `probity` a test starts: no global git
/// configuration (a user's `core.hooksPath` would otherwise receive the
/// hooks tests install), and no `PROBITY_*` settings from the caller.
/// One directory per test binary under cargo's `target/tmp`, emptied when
/// the binary first needs it: a static is never dropped, so a temporary
/// directory held in one was left in `/tmp` by every run.
pub fn isolated(cmd: &mut Command) -> &mut Command {
    static HOME: std::sync::LazyLock<std::path::PathBuf> = std::sync::LazyLock::new(|| {
        let home =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(concat!("home-", env!("CARGO_CRATE_NAME")));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).expect("create the tests' home");
        home
    });
    let home: &Path = &HOME;
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env_remove("PROBITY_GIT")
        .env_remove("PROBITY_REVIEW_CWD")
        .env_remove("PROBITY_MODEL_BASE_URL")
        .env_remove("PROBITY_MODEL")
        .env_remove("PROBITY_MODEL_API_KEY")
}

/// `probity --cwd <cwd>`, isolated (no `--json`: the caller adds its
/// arguments).
pub fn probity_in(cwd: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd).arg("--cwd").arg(cwd);
    cmd
}

/// `probity --json --cwd <cwd> args...`, isolated, with the caller's
/// `GIT_DIR` and `GIT_INDEX_FILE` removed.
pub fn json_command(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probity"));
    isolated(&mut cmd)
        .arg("--json")
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE");
    cmd
}

/// A finished run's exit code, stdout (and its JSON, `Null` when it is not
/// JSON) and stderr.
pub fn run_of(out: &std::process::Output) -> Run {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `git` in `dir` with no system configuration and a fixed author and
/// committer (`t <t@example.invalid>`), for repositories a test makes
/// without the fixture.
pub fn plain_git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
    cmd
}

/// Runs `cmd` to its end and asserts it exited 0 (its stderr is the
/// failure message); returns its output.
pub fn output_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `probity --json --cwd <cwd> args...`.
pub fn probity(cwd: &Path, args: &[&str]) -> Run {
    let out = json_command(cwd, args).output().expect("run probity");
    run_of(&out)
}

/// The string `v[key]` (a lineage id, a store revision), owned.
pub fn string_at(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("no string `{key}` in {v}"))
        .to_string()
}

/// The arguments of `probity validate --gate pre-receive --range RANGE
/// --ref REF`, the CI range form.
pub fn pre_receive_args<'a>(range: &'a str, reference: &'a str) -> [&'a str; 7] {
    [
        "validate",
        "--gate",
        "pre-receive",
        "--range",
        range,
        "--ref",
        reference,
    ]
}

/// The arguments of `probity validate --gate pre-pr --base BASE`, then
/// `extra`: the proposal gate on the local store.
pub fn pre_pr_args<'a>(base: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["validate", "--gate", "pre-pr", "--base", base];
    args.extend(extra);
    args
}

/// The arguments of `probity validate --gate pre-pr --authority notes
/// --base BASE`, then `extra`: the CI form of the proposal gate.
pub fn notes_pre_pr_args<'a>(base: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["validate", "--gate", "pre-pr", "--authority", "notes"];
    args.extend(["--base", base]);
    args.extend(extra);
    args
}

/// The arguments of `probity COMMAND --lineage LINEAGE --evidence-cmd --
/// sh -c SCRIPT` (`finalize` or `review`).
pub fn sh_check_args<'a>(command: &'a str, lineage: &'a str, script: &'a str) -> [&'a str; 8] {
    [
        command,
        "--lineage",
        lineage,
        "--evidence-cmd",
        "--",
        "sh",
        "-c",
        script,
    ]
}

/// The arguments of `probity recover` of `lineage` (expected at store
/// revision `rev`) with `disposition`, `reason` and `actor`.
pub fn recover_args<'a>(
    lineage: &'a str,
    rev: &'a str,
    disposition: &'a str,
    reason: &'a str,
    actor: &'a str,
) -> [&'a str; 11] {
    [
        "recover",
        "--predecessor-lineage",
        lineage,
        "--expected-predecessor-revision",
        rev,
        "--disposition",
        disposition,
        "--reason",
        reason,
        "--actor",
        actor,
    ]
}

/// The directory of `lineage` in `f`'s store.
pub fn lineage_dir(f: &Fixture, lineage: &str) -> PathBuf {
    f.root().join(".git/probity/reviews/v1").join(lineage)
}

/// The JSON document `file` (`state.json`, `receipt.json`) of `lineage`
/// in `f`'s store.
pub fn lineage_json(f: &Fixture, lineage: &str, file: &str) -> Value {
    serde_json::from_slice(&std::fs::read(lineage_dir(f, lineage).join(file)).unwrap()).unwrap()
}

/// The receipt of `lineage` in `f`'s store, as JSON.
pub fn receipt_of(f: &Fixture, lineage: &str) -> Value {
    lineage_json(f, lineage, "receipt.json")
}

/// The git status of `f`'s worktree, untracked and ignored files listed.
pub fn worktree_status(f: &Fixture) -> Vec<u8> {
    f.git(&[
        "status",
        "--porcelain=v1",
        "--untracked-files=all",
        "--ignored",
    ])
    .unwrap()
}

/// The `probity recover` command an answer's `next` prints, as arguments
/// after `probity`, with what a person gives filled in: `R` the `reason`,
/// `A` the actor `maintainer`, `X` the `authorization`.
pub fn printed_recover_filled(next: &str, reason: &str, authorization: &str) -> Vec<String> {
    let start = next.find("`probity recover ").expect("a recover command") + 1;
    let end = start + next[start..].find('`').expect("closing backtick");
    next[start..end]
        .split_whitespace()
        .skip(1)
        .map(|w| match w {
            "R" => reason.to_string(),
            "A" => "maintainer".to_string(),
            "X" => authorization.to_string(),
            other => other.to_string(),
        })
        .collect()
}

/// Merges the notes at `from` into `f`'s `refs/notes/probity` as the
/// transport does (`cat_sort_uniq`: every line of both kept once).
pub fn merge_notes(f: &Fixture, from: &str) {
    f.git(&[
        "notes",
        "--ref=probity",
        "merge",
        "-q",
        "-s",
        "cat_sort_uniq",
        from,
    ])
    .unwrap();
}

/// `probity start` in `cwd`: the started lineage's id.
pub fn start_lineage(cwd: &Path) -> String {
    let st = probity(cwd, &["start"]);
    st.json["lineage_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no lineage started: {}{}", st.stdout, st.stderr))
        .to_string()
}

/// The lineage a run answered (`lineage_id`), asserting it exited 0.
pub fn lineage_of(run: &Run) -> String {
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run.json["lineage_id"].as_str().unwrap().to_string()
}

/// `probity finalize --lineage LINEAGE --result FILE`, the lens result
/// `result` written to `dir` (a file named after the lineage).
pub fn finalize_result(cwd: &Path, dir: &Path, lineage: &str, result: &str) -> Run {
    let r = input(dir, &format!("{lineage}-result.json"), result);
    probity(cwd, &["finalize", "--lineage", lineage, "--result", &r])
}

/// `probity invalidate --lineage LINEAGE --reason REASON`.
pub fn invalidate(f: &Fixture, lineage: &str, reason: &str) -> Run {
    probity(
        f.root(),
        &["invalidate", "--lineage", lineage, "--reason", reason],
    )
}

/// Runs `probity --json --cwd <cwd> args...` and asserts it exited 0
/// (its stdout and stderr are the failure message).
pub fn probity_ok(cwd: &Path, args: &[&str]) -> Run {
    let run = probity(cwd, args);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    run
}

/// Runs `probity --json --cwd <cwd> args...` with `env` set (after the
/// isolation that removes the caller's `PROBITY_*` settings).
pub fn probity_env(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = json_command(cwd, args);
    cmd.env_remove("http_proxy")
        .env_remove("https_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run probity");
    run_of(&out)
}

/// [`probity_env`] under a watchdog: past `secs` the child is killed
/// (SIGKILL, by its pid only) and the run answers exit code -1, so a test
/// of an input that once blocked forever (a FIFO) fails instead of hanging.
pub fn probity_bounded(cwd: &Path, args: &[&str], env: &[(&str, &str)], secs: u64) -> Run {
    let mut cmd = json_command(cwd, args);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("run probity");
    let watchdog = watchdog::Watchdog::start(child.id(), secs, "-KILL");
    let out = child.wait_with_output().expect("wait for probity");
    watchdog.done();
    run_of(&out)
}

/// Runs `probity --json --cwd <cwd> args...` with `stdin` piped in (a
/// reader that stops early is not an error: the answer is what counts).
pub fn probity_stdin(cwd: &Path, args: &[&str], stdin: &[u8]) -> Run {
    run_of(&output_with_stdin(&mut json_command(cwd, args), stdin))
}

/// `git ARGS` in `cwd` with `stdin` and `env`, asserted to succeed; its
/// stdout, trimmed.
pub fn git_out(cwd: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &Path)]) -> String {
    let mut cmd = plain_git(cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = output_with_stdin(cmd.args(args), stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Runs `cmd` with `stdin` piped in, capturing stdout and stderr. A reader
/// that stops early is not an error: the answer is what counts.
pub fn output_with_stdin(cmd: &mut Command, stdin: &[u8]) -> std::process::Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for the child");
    let _ = writer.join();
    out
}

/// Every file under the store root, path → bytes.
pub fn store_snapshot(f: &Fixture) -> BTreeMap<PathBuf, Vec<u8>> {
    store_snapshot_at(f.root())
}

/// [`store_snapshot`] of the repository whose worktree is `root` (for a
/// thread that holds only the path, such as a scripted server's handler).
pub fn store_snapshot_at(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(&root.join(".git").join("probity"))
        .into_iter()
        .map(|(rel, p)| (rel, std::fs::read(p).unwrap()))
        .collect()
}

/// Every file under `dir`, recursively (a directory that cannot be read
/// holds none): its path relative to `dir` → its path.
pub fn files_under(dir: &Path) -> BTreeMap<PathBuf, PathBuf> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.insert(p.strip_prefix(dir).unwrap().to_path_buf(), p);
            }
        }
    }
    files
}

/// A repository whose committed `src/a.c` (`int a;`) becomes `first`
/// followed by 600 new declarations in the worktree: a large change
/// (high risk).
pub fn large_c_change(first: &str) -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/a.c", "int a;\n").unwrap();
    f.commit_all("base").unwrap();
    let mut body = String::from(first);
    for i in 0..600 {
        body.push_str(&format!("int v{i};\n"));
    }
    f.write("src/a.c", body).unwrap();
    f
}

/// A repository with one committed source file (`src/parser.rs`) and a
/// `.gitignore`: the base most end-to-end tests start from.
pub fn parser_base() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\n")
        .unwrap();
    f.write(".gitignore", "target/\n").unwrap();
    f.commit_all("base").unwrap();
    f
}

/// Writes the medium-risk change into `f`'s worktree: one function added
/// to `src/parser.rs` and a new test file.
pub fn write_medium_change(f: &Fixture) {
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    f.write("src/parser_test.rs", "#[test]\nfn t() {}\n")
        .unwrap();
}

/// A repository with one committed source file and a medium-risk change.
pub fn medium_change() -> Fixture {
    let f = parser_base();
    write_medium_change(&f);
    f
}

pub const CLEAN_RESULT: &str = r#"{"findings":[],"evidence":["read the whole diff"]}"#;

/// A deterministic, candidate-causal BLOCKER at `src/parser.rs:3` (the
/// parser fixtures' changed file): routed to correction.
pub const PARSER_BLOCKER: &str = r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"b returns a negative sentinel","proof_refs":["test_b fails on the candidate"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran test_b on base and candidate"]}"#;

/// An inferential BLOCKER of unknown causality at `src/parser.rs:3`: it
/// escalates.
pub const PARSER_UNKNOWN: &str = r#"{"findings":[{"location":"src/parser.rs:3","severity":"BLOCKER","claim":"b may break callers","proof_refs":["read the callers"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["read the diff"]}"#;

/// A targeted validator's passing result for [`PARSER_BLOCKER`]'s fix.
pub const VALIDATION_PASS: &str = r#"{"original_criteria":{"passed":true,"evidence":["test_b passes"]},"correction_regression":{"passed":true,"evidence":["parser suite passes"]},"follow_ups":[]}"#;

/// A targeted validator's failing result: the original criterion still
/// fails.
pub const VALIDATION_FAIL: &str = r#"{"original_criteria":{"passed":false,"evidence":["test_b still fails"]},"correction_regression":{"passed":true,"evidence":["parser suite passes"]}}"#;

/// Starts a review of the live candidate in `cwd` and approves it: one
/// clean result per selected lens, then evidence (inputs written to `dir`).
/// Returns the final `finalize` answer.
pub fn approve_live(cwd: &Path, dir: &Path) -> Value {
    let st = probity(cwd, &["start"]);
    assert_eq!(st.code, 0, "{}{}", st.stdout, st.stderr);
    approve_started(cwd, dir, &st.json)
}

/// Approves the lineage a start answer (or one entry of `start --range`)
/// names: one clean result per selected lens, then evidence. Returns the
/// final `finalize` answer.
pub fn approve_started(cwd: &Path, dir: &Path, started: &Value) -> Value {
    let evidence = input(dir, "ev.txt", "tests passed\n");
    approve_started_with(cwd, dir, started, &["--evidence", &evidence])
}

/// [`approve_started`] with other evidence arguments (`--evidence-cmd --
/// <argv>`, say): runs `finalize` and returns its answer, approved or not.
pub fn finalize_started_with(cwd: &Path, dir: &Path, started: &Value, evidence: &[&str]) -> Run {
    let lineage = started["lineage_id"].as_str().unwrap_or_default();
    let clean = input(dir, "r.json", CLEAN_RESULT);
    let lenses = started["selected_lenses"].as_array().map(Vec::as_slice);
    let mut args = finalize_args(lineage, lenses.unwrap_or_default(), &clean);
    args.extend(evidence.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    probity(cwd, &args)
}

/// Starts a review of the live candidate and gives it one clean result
/// per selected lens (inputs written to `dir`): its lineage, awaiting
/// evidence (`validating`).
pub fn started_awaiting_evidence(cwd: &Path, dir: &Path) -> String {
    let st = probity_ok(cwd, &["start"]);
    let r = finalize_started_with(cwd, dir, &st.json, &[]);
    assert_eq!(r.json["state"], "validating", "{}{}", r.stdout, r.stderr);
    string_at(&st.json, "lineage_id")
}

/// [`finalize_started_with`], asserting the lineage is approved.
pub fn approve_started_with(cwd: &Path, dir: &Path, started: &Value, evidence: &[&str]) -> Value {
    let done = finalize_started_with(cwd, dir, started, evidence);
    assert_eq!(
        done.json["state"], "approved",
        "{}{}",
        done.stdout, done.stderr
    );
    done.json
}

/// `finalize --lineage LINEAGE` with `--result LENS=RESULT` for each of
/// `lenses` (a start or status answer's `selected_lenses`).
pub fn finalize_args(lineage: &str, lenses: &[Value], result: &str) -> Vec<String> {
    let mut args = vec!["finalize".to_string(), "--lineage".into(), lineage.into()];
    for lens in lenses {
        args.push("--result".into());
        args.push(format!("{}={result}", lens.as_str().expect("a lens name")));
    }
    args
}

/// Writes a file outside the repository and returns its path.
pub fn input(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Recovers `lineage` `scope_changed` for `reason` as `actor`, expected at
/// its current store revision; returns the successor's id.
pub fn recover_scope_changed(f: &Fixture, lineage: &str, reason: &str, actor: &str) -> String {
    let st = probity(f.root(), &["status", "--lineage", lineage]);
    let rev = string_at(&st.json, "store_revision");
    let rec = recover_scope_changed_at(f, lineage, &rev, reason, actor);
    string_at(&rec.json, "lineage_id")
}

/// Recovers `lineage` `scope_changed` for `reason` as `actor`, expected at
/// store revision `rev`; the recovery must succeed.
pub fn recover_scope_changed_at(
    f: &Fixture,
    lineage: &str,
    rev: &str,
    reason: &str,
    actor: &str,
) -> Run {
    probity_ok(
        f.root(),
        &recover_args(lineage, rev, "scope_changed", reason, actor),
    )
}

/// `probity validate --gate pre-push --remote origin --stdin-updates`, as
/// the managed hook runs it.
pub const PRE_PUSH_HOOK_ARGS: [&str; 6] = [
    "validate",
    "--gate",
    "pre-push",
    "--remote",
    "origin",
    "--stdin-updates",
];

/// Approves `lineage` (a successor, as `status` shows it).
pub fn approve_lineage(cwd: &Path, dir: &Path, lineage: &str) -> Value {
    let st = probity(cwd, &["status", "--lineage", lineage]);
    approve_started(cwd, dir, &st.json)
}

/// Approves the live change, commits it (`the reviewed change`) and
/// `probity push`es it to `origin`'s `main`; returns the commit.
pub fn deliver_reviewed(f: &Fixture, inputs: &Path) -> String {
    approve_live(f.root(), inputs);
    let c = commit_all(f, "the reviewed change");
    probity_ok(f.root(), &["push", "origin", "main"]);
    c
}

/// Reverts `HEAD` in a commit of its own (`message`); returns it.
pub fn revert_head(f: &Fixture, message: &str) -> String {
    f.git(&["revert", "--no-edit", "--no-commit", "HEAD"])
        .unwrap();
    commit_all(f, message)
}

/// [`revert_head`] (`revert the change`), reviewed as committed and
/// approved; returns the revert.
pub fn reviewed_revert(f: &Fixture, inputs: &Path) -> String {
    let revert = revert_head(f, "revert the change");
    let st = probity_ok(f.root(), &["start", "--commit", &revert]);
    approve_started(f.root(), inputs, &st.json);
    revert
}

/// Reviews `commit` as committed, approves it and `probity push`es it: it
/// lands on `server`'s `main`.
pub fn land_reviewed_commit(f: &Fixture, server: &Path, inputs: &Path, commit: &str) {
    let st = probity_ok(f.root(), &["start", "--commit", commit]);
    approve_started(f.root(), inputs, &st.json);
    probity_ok(f.root(), &["push", "origin", "main"]);
    assert_eq!(rev(f, server, "main").as_deref(), Some(commit));
}

/// The next step an `approval_spent` denial names: `HEAD` amended with
/// other bytes (`src/amended.rs`, which no other helper writes: bytes an
/// earlier delivery of the history also delivered would be spent by it,
/// D-R145), reviewed as committed and pushed; it lands on `server`'s
/// `main`.
pub fn amend_with_other_bytes_and_land(f: &Fixture, server: &Path, inputs: &Path) {
    f.write("src/amended.rs", "fn amended() {}\n").unwrap();
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--amend", "--no-edit", "--no-verify"])
        .unwrap();
    let amended = rev(f, f.root(), "HEAD").unwrap();
    land_reviewed_commit(f, server, inputs, &amended);
}

/// In the teammate's clone `b` of `f`'s origin: `docs.md` written,
/// reviewed and committed (`teammate`); returns the commit.
pub fn teammate_commits_docs(f: &Fixture, b: &Path, inputs: &Path) -> String {
    std::fs::write(b.join("docs.md"), "# docs\n").unwrap();
    approve_live(b, inputs);
    f.git_in(b, &["add", "-A"]).unwrap();
    f.git_in(b, &["commit", "-q", "-m", "teammate"]).unwrap();
    rev(f, b, "HEAD").unwrap()
}

/// A review started in `f`, driven by `finalize --lineage`, its input
/// documents in `tmp`.
pub struct Flow {
    pub f: Fixture,
    pub tmp: tempfile::TempDir,
    pub lineage: String,
}

impl Flow {
    /// Starts a review of `f`'s live change: the flow and the start's
    /// answer.
    pub fn start(f: Fixture) -> (Flow, Run) {
        let tmp = tempfile::tempdir().unwrap();
        let s = probity(f.root(), &["start"]);
        let lineage = string_at(&s.json, "lineage_id");
        (Flow { f, tmp, lineage }, s)
    }

    /// `finalize --lineage LINEAGE ARGS...`.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut a = vec!["finalize", "--lineage", self.lineage.as_str()];
        a.extend_from_slice(args);
        probity(self.f.root(), &a)
    }

    /// The input document `name` holding `text`: its path.
    pub fn doc(&self, name: &str, text: &str) -> String {
        input(self.tmp.path(), name, text)
    }
}

/// [`parser_base`] with `main` on a bare `origin` ([`bare_origin`], no hook
/// anywhere) and a directory for review inputs.
pub struct Origin {
    pub f: Fixture,
    pub remote_dir: tempfile::TempDir,
    pub remote: PathBuf,
    pub inputs: tempfile::TempDir,
}

impl Origin {
    pub fn new() -> Self {
        Origin::of(parser_base())
    }

    /// `f` with `main` on a bare `origin`.
    pub fn of(f: Fixture) -> Self {
        let (remote_dir, remote) = bare_origin(&f, "origin.git");
        let inputs = tempfile::tempdir().unwrap();
        Origin {
            f,
            remote_dir,
            remote,
            inputs,
        }
    }

    /// [`Origin::new`] with the medium change in the worktree (not
    /// committed, not reviewed).
    pub fn with_medium_change() -> Self {
        let o = Origin::new();
        write_medium_change(&o.f);
        o
    }

    /// Every ref of the remote with its id: what "nothing pushed" compares.
    pub fn remote_refs(&self) -> String {
        let refs = self
            .f
            .git_in(
                &self.remote,
                &["for-each-ref", "--format=%(refname) %(objectname)"],
            )
            .unwrap();
        String::from_utf8(refs).unwrap()
    }

    /// Reviews the live candidate to `approved`.
    pub fn approve(&self) {
        approve_live(self.f.root(), self.inputs.path());
    }

    /// `r` in the clone.
    pub fn rev(&self, r: &str) -> String {
        rev_parse(&self.f, r)
    }

    /// `r` on the remote, if it names anything.
    pub fn remote_rev(&self, r: &str) -> Option<String> {
        rev(&self.f, &self.remote, r)
    }
}

/// A bare repository `<dir>/<name>` (default branch `main`) added to `f` as
/// remote `origin`, with `main` pushed to it: the remote every publication
/// test starts from. The temporary directory keeps it alive.
pub fn bare_origin(f: &Fixture, name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let remote = dir.path().join(name);
    let r = remote.to_str().expect("UTF-8 temp path");
    f.git(&["init", "-q", "--bare", "-b", "main", r])
        .expect("git init --bare");
    f.git(&["remote", "add", "origin", r])
        .expect("git remote add");
    f.git(&["push", "-q", "origin", "main"]).expect("git push");
    (dir, remote)
}

/// [`hooked_origin`] and a directory for review inputs.
pub fn served() -> (Fixture, tempfile::TempDir, PathBuf, tempfile::TempDir) {
    let (f, dir, server) = hooked_origin();
    (f, dir, server, tempfile::tempdir().unwrap())
}

/// `parser_base()` with a bare `origin` (see [`bare_origin`]) whose
/// server-side pre-receive hook is installed: where every server-gate test
/// pushes. The temporary directory keeps the server alive.
pub fn hooked_origin() -> (Fixture, tempfile::TempDir, PathBuf) {
    let f = parser_base();
    let (dir, server) = gated_origin(&f);
    (f, dir, server)
}

/// A bare `origin` serving `f` (see [`bare_origin`]) with the server-side
/// pre-receive hook installed, for a fixture that committed its own base
/// (a policy, required checks) first.
pub fn gated_origin(f: &Fixture) -> (tempfile::TempDir, PathBuf) {
    let (dir, server) = bare_origin(f, "server.git");
    probity_ok(&server, &["hooks", "install", "--server"]);
    (dir, server)
}

/// Pushes past the client's gates, as an agent could: `probity publish`,
/// then the notes merged with the remote's (so they fast-forward) and a
/// plain `git push --no-verify --atomic` of `main` and the notes. `Err`
/// holds git's output (the server's `remote:` refusal) when it fails.
pub fn push_past_client(f: &Fixture) -> Result<(), String> {
    probity_ok(f.root(), &["publish"]);
    merge_remote_notes(f);
    push_main_and_notes(f)
}

/// The remote's notes, when it has any, fetched and merged into this
/// clone's (`cat_sort_uniq`), so a push of them fast-forwards.
pub fn merge_remote_notes(f: &Fixture) {
    if f.git(&[
        "fetch",
        "-q",
        "origin",
        "refs/notes/probity:refs/notes/probity-remote",
    ])
    .is_ok()
    {
        merge_notes(f, "refs/notes/probity-remote");
    }
}

/// `git push -q --no-verify ARGS` from `f`'s root, past the client's
/// hooks; `Err` holds git's output.
pub fn push_no_verify(f: &Fixture, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git(&all).map(|_| ()).map_err(|e| e.to_string())
}

/// `git push -q --no-verify --atomic origin main refs/notes/probity`, past
/// the client's hooks; `Err` holds git's output.
pub fn push_main_and_notes(f: &Fixture) -> Result<(), String> {
    let notes = "refs/notes/probity";
    f.git(&[
        "push",
        "-q",
        "--no-verify",
        "--atomic",
        "origin",
        "main",
        notes,
    ])
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// A change of 16 authored lines in src/parser.rs (budget 8), on a base
/// with src/parser.rs and src/other.rs: the next-step tests' fixture.
pub fn change() -> Fixture {
    let f = Fixture::new().expect("fixture");
    f.write("src/parser.rs", "fn a() {}\n").expect("write");
    f.write("src/other.rs", "fn o() {}\n").expect("write");
    f.commit_all("base").expect("commit");
    f.write("src/parser.rs", body(1)).expect("write");
    f
}

/// src/parser.rs of [`change`], its one changed line ending in `n`.
pub fn body(n: u32) -> String {
    let mut s = format!("fn a() {{}}\nfn b() -> i32 {{\n    -{n}\n}}\n");
    for i in 0..12 {
        s.push_str(&format!("fn f{i}() {{}}\n"));
    }
    s
}

/// Another clone of `server` (a teammate's), at `<its temporary dir>/name`
/// with its own identity (`name`, `b@probity.invalid`). The temporary
/// directory keeps it alive.
/// `git fetch -q origin refs/notes/probity:refs/notes/probity` in `dir`:
/// what a CI checkout does to read the published authority.
pub fn fetch_notes(f: &Fixture, dir: &Path) {
    f.git_in(
        dir,
        &[
            "fetch",
            "-q",
            "origin",
            "refs/notes/probity:refs/notes/probity",
        ],
    )
    .unwrap();
}

pub fn clone_as(f: &Fixture, server: &Path, name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().expect("tempdir");
    let p = d.path().join(name);
    f.git(&[
        "clone",
        "-q",
        server.to_str().expect("UTF-8 temp path"),
        p.to_str().expect("UTF-8 temp path"),
    ])
    .expect("git clone");
    for (k, v) in [("user.name", name), ("user.email", "b@probity.invalid")] {
        f.git_in(&p, &["config", k, v]).expect("git config");
    }
    (d, p)
}

/// `git rev-parse -q --verify R` in `cwd`; `None` when R names nothing.
/// `git rev-parse R` in `f`'s root, which must name an object: its id.
pub fn rev_parse(f: &Fixture, r: &str) -> String {
    rev_parse_in(f, f.root(), r)
}

/// `git rev-parse R` in `cwd`, which must name an object: its id.
pub fn rev_parse_in(f: &Fixture, cwd: &Path, r: &str) -> String {
    String::from_utf8(f.git_in(cwd, &["rev-parse", r]).unwrap())
        .unwrap()
        .trim()
        .to_string()
}

pub fn rev(f: &Fixture, cwd: &Path, r: &str) -> Option<String> {
    f.git_in(cwd, &["rev-parse", "-q", "--verify", r])
        .ok()
        .map(|b| String::from_utf8(b).unwrap().trim().to_string())
}

/// Writes `text` as the note of `object` in `f`'s `refs/notes/probity`
/// (replacing any), as anyone with the notes ref can: git takes any id,
/// one this repository lacks or a blob's.
pub fn force_note(f: &Fixture, object: &str, text: &str) {
    f.git(&["notes", "--ref=probity", "add", "-f", "-m", text, object])
        .unwrap();
}

/// Commits the whole worktree of `f` past every client hook (as an agent
/// under review can); returns the new HEAD.
pub fn commit_all(f: &Fixture, message: &str) -> String {
    f.git(&["add", "-A"]).unwrap();
    f.git(&["commit", "-q", "--no-verify", "-m", message])
        .unwrap();
    rev(f, f.root(), "HEAD").unwrap()
}

/// Starts a review of the live change in `cwd`, lets its lens escalate
/// ([`PARSER_UNKNOWN`]), then recovers it `escalation_authorized` as
/// `alice` with `reason` and the free-text `authorization`. Returns the
/// successor lineage (reviewing, on the same change).
pub fn escalate_and_recover(
    cwd: &Path,
    inputs: &Path,
    reason: &str,
    authorization: &str,
) -> String {
    let st = probity(cwd, &["start"]);
    assert_eq!(st.code, 0, "{}{}", st.stdout, st.stderr);
    let l1 = st.json["lineage_id"].as_str().unwrap().to_string();
    let fin = finalize_result(cwd, inputs, &l1, PARSER_UNKNOWN);
    assert_eq!(
        fin.json["state"], "escalated",
        "{}{}",
        fin.stdout, fin.stderr
    );
    let revision = fin.json["store_revision"].as_str().unwrap().to_string();
    let rec = probity(
        cwd,
        &[
            "recover",
            "--predecessor-lineage",
            &l1,
            "--expected-predecessor-revision",
            &revision,
            "--disposition",
            "escalation_authorized",
            "--reason",
            reason,
            "--actor",
            "alice",
            "--authorization",
            authorization,
        ],
    );
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    rec.json["lineage_id"].as_str().unwrap().to_string()
}
