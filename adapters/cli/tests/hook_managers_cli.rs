//! Issue 22 §1: the gates through the hook managers people already use,
//! tested against the real tools from their registries. `pre-commit` runs
//! this repository's `.pre-commit-hooks.yaml` (from a git repository
//! holding it, as pre-commit clones one) and lefthook runs the snippet
//! docs/hooks.md shows, read from that page. Each test needs its tool:
//! `PROBITY_PRE_COMMIT` / `PROBITY_LEFTHOOK` name the binaries (.ci/run
//! installs them from PyPI and sets both); without one the test says so
//! and checks nothing else.

mod support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use probity_git::fixture::Fixture;
use support::*;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tool(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            eprintln!("{var} unset: this hook manager is not tested here (.ci/run tests it)");
            None
        }
    }
}

/// PATH with the built probity and the tool's directory first.
fn path_with(tool: &Path) -> OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_probity"))
        .parent()
        .unwrap()
        .to_path_buf();
    let dirs = [bin, tool.parent().unwrap().to_path_buf()];
    std::env::join_paths(
        dirs.into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap()
}

/// `program args` in `cwd` with `path` as PATH and the fixture's HOME.
fn run(f: &Fixture, path: &OsString, cache: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(f.root())
        .env("PATH", path)
        .env("HOME", f.home())
        .env("PRE_COMMIT_HOME", cache)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("PROBITY_REVIEW_CWD")
        .output()
        .unwrap()
}

fn show(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A base with the hook manager's config committed, a bare origin, and an
/// unreviewed change staged.
fn repo_with(config_name: &str, config: &str) -> (Fixture, tempfile::TempDir) {
    let f = parser_base();
    f.write(config_name, config).unwrap();
    f.commit_all("hook manager config").unwrap();
    let (dir, _) = bare_origin(&f, "origin.git");
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn more() {}\n")
        .unwrap();
    f.git(&["add", "-A"]).unwrap();
    (f, dir)
}

/// The checks both managers must pass: an unreviewed commit is refused by
/// the pre-commit gate; once reviewed it commits; an unreviewed commit
/// (made past the hooks) is refused by the pre-push gate and the remote
/// keeps its tip; the reviewed one pushes.
fn gate_through(f: &Fixture, path: &OsString, cache: &Path) {
    let commit = |m: &str| run(f, path, cache, "git", &["commit", "-q", "-m", m]);
    let refused = commit("unreviewed");
    assert!(
        !refused.status.success(),
        "an unreviewed commit went through: {}",
        show(&refused)
    );
    assert!(show(&refused).contains("probity"), "{}", show(&refused));
    let inputs = tempfile::tempdir().unwrap();
    approve_live(f.root(), inputs.path());
    let ok = commit("reviewed");
    assert!(ok.status.success(), "{}", show(&ok));
    let pushed = run(f, path, cache, "git", &["push", "-q", "origin", "main"]);
    assert!(pushed.status.success(), "{}", show(&pushed));
    let remote_tip = rev(f, f.root(), "refs/remotes/origin/main").unwrap();
    f.write("src/parser.rs", "// parser\nfn parse() {}\nfn other() {}\n")
        .unwrap();
    commit_all(f, "unreviewed, past the hooks");
    let denied = run(f, path, cache, "git", &["push", "-q", "origin", "main"]);
    assert!(
        !denied.status.success(),
        "an unreviewed push went through: {}",
        show(&denied)
    );
    let server =
        String::from_utf8(f.git(&["ls-remote", "origin", "refs/heads/main"]).unwrap()).unwrap();
    assert!(server.starts_with(&remote_tip), "{server}");
}

#[test]
fn pre_commit_runs_the_gates_from_this_repositorys_hook_manifest() {
    let Some(pre_commit) = tool("PROBITY_PRE_COMMIT") else {
        return;
    };
    // The manifest as pre-commit fetches it: a git repository holding it.
    let hooks_repo = tempfile::tempdir().unwrap();
    let manifest = std::fs::read(repo_root().join(".pre-commit-hooks.yaml")).unwrap();
    std::fs::write(hooks_repo.path().join(".pre-commit-hooks.yaml"), manifest).unwrap();
    let git = |args: &[&str]| {
        let o = plain_git(hooks_repo.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{}", show(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "hooks"]);
    let rev = git(&["rev-parse", "HEAD"]);
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {}\n    hooks:\n      - id: probity-pre-commit\n      - id: probity-pre-push\n",
        hooks_repo.path().display(),
        rev.trim()
    );
    let (f, _origin) = repo_with(".pre-commit-config.yaml", &config);
    let cache = tempfile::tempdir().unwrap();
    let path = path_with(&pre_commit);
    let p = pre_commit.to_str().unwrap();
    let installed = run(
        &f,
        &path,
        cache.path(),
        p,
        &[
            "install",
            "--hook-type",
            "pre-commit",
            "--hook-type",
            "pre-push",
        ],
    );
    assert!(installed.status.success(), "{}", show(&installed));
    gate_through(&f, &path, cache.path());
}

#[test]
fn lefthook_runs_the_gates_from_the_documented_snippet() {
    let Some(lefthook) = tool("PROBITY_LEFTHOOK") else {
        return;
    };
    let page = std::fs::read_to_string(repo_root().join("docs/hooks.md")).unwrap();
    let snippet = page
        .split("<!-- lefthook snippet: begin -->\n```yaml\n")
        .nth(1)
        .and_then(|s| s.split("```\n<!-- lefthook snippet: end -->").next())
        .expect("docs/hooks.md carries the lefthook snippet between its markers");
    let (f, _origin) = repo_with("lefthook.yml", snippet);
    let cache = tempfile::tempdir().unwrap();
    let path = path_with(&lefthook);
    let installed = run(
        &f,
        &path,
        cache.path(),
        lefthook.to_str().unwrap(),
        &["install"],
    );
    assert!(installed.status.success(), "{}", show(&installed));
    gate_through(&f, &path, cache.path());
}
