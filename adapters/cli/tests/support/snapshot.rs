//! Helpers of the `probity snapshot` and `probity review` tests
//! (`snapshot_cli.rs`, `snapshot_review_cli.rs`): a small repository, the
//! real binary, a scripted model.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "watchdog.rs"]
mod watchdog;
pub use watchdog::Watchdog;

pub const BIN: &str = env!("CARGO_BIN_EXE_probity");

/// Runs git with a scrubbed environment and fixed identities and dates.
pub fn git(dir: &Path, args: &[&str]) -> String {
    probity_testkit::git_env::git(dir, args).unwrap_or_else(|e| panic!("{e}"))
}

pub fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    fs::create_dir_all(root.join("src")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    fs::write(
        root.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    42\n}\n",
    )
    .unwrap();
    fs::write(root.join("-rf.txt"), "--version\n").unwrap();
    fs::write(root.join("README.md"), "# demo\n").unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "one"]);
    (tmp, root)
}

pub fn probity(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap()
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A scripted chat-completions endpoint on 127.0.0.1 (the testkit's
/// server): answers `script` in order, one request each.
pub fn scripted_model(script: Vec<Value>) -> (String, ScriptedModel) {
    use probity_testkit::http::{HttpServer, Reply};
    let server =
        HttpServer::sequence(script.into_iter().map(|v| Reply::value(200, v)).collect()).unwrap();
    (format!("{}/v1", server.base()), ScriptedModel(server))
}

/// The running scripted model; `join` answers the request bodies it saw.
pub struct ScriptedModel(pub probity_testkit::http::HttpServer);

impl ScriptedModel {
    pub fn join(self) -> std::thread::Result<Vec<Value>> {
        Ok(self.0.seen().iter().map(|r| r.json()).collect())
    }
}

/// `probity --cwd ROOT review EXTRA...` against the scripted model at
/// `url`.
pub fn review_command(root: &Path, url: &str, extra: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("--cwd")
        .arg(root)
        .arg("review")
        .args(extra)
        .env("PROBITY_MODEL_BASE_URL", url)
        .env("PROBITY_MODEL", "scripted")
        .env("PROBITY_MODEL_API_KEY", "k");
    cmd
}

pub fn review_cmd(root: &Path, url: &str, extra: &[&str]) -> Output {
    review_command(root, url, extra).output().unwrap()
}

pub fn budget_args(budget: &Path, config: &Path, tool: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec!["--json".into(), "snapshot".into()];
    v.extend(tool.iter().map(|s| (*s).to_owned()));
    v.extend([
        "--subject".into(),
        "index".into(),
        "--budget-file".into(),
        budget.display().to_string(),
        "--config".into(),
        config.display().to_string(),
    ]);
    v
}

/// A `--json snapshot TOOL...` call on the index charged to `budget`
/// under `config`, run by `run` (`probity` or `probity_bounded`).
pub fn budgeted(
    run: fn(&Path, &[&str]) -> Output,
    root: &Path,
    budget: &Path,
    config: &Path,
    tool: &[&str],
) -> Output {
    let a = budget_args(budget, config, tool);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    run(root, &refs)
}

/// `probity --cwd <cwd> args...` under a watchdog: past 30 s the child is
/// killed (by its pid only) and the run has no exit code, so an input that
/// once blocked forever fails the test instead of hanging it.
pub fn probity_bounded(cwd: &Path, args: &[&str]) -> Output {
    let child = Command::new(BIN)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let watchdog = Watchdog::start(child.id(), 30, "-KILL");
    let out = child.wait_with_output().unwrap();
    watchdog.done();
    out
}
