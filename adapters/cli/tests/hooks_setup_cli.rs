//! Managed hooks in real set-ups (issue 8 §7): probity found on PATH first,
//! the recorded path as fallback, one clear line when neither exists; a
//! reinstall from another binary updates the recorded path; a
//! `core.hooksPath` at a tracked folder is refused with nothing written.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use probity_git::fixture::Fixture;
use support::*;

fn committed() -> Fixture {
    let f = Fixture::new().unwrap();
    f.write("a", "a\n").unwrap();
    f.commit_all("a").unwrap();
    f
}

/// A copy of the probity binary at `dir/probity`.
fn copy_of_probity(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("probity");
    // Copied by a child process, so no test thread's fork inherits a write
    // descriptor to it (ETXTBSY when it is run).
    probity_testkit::copy_executable(Path::new(env!("CARGO_BIN_EXE_probity")), &p).unwrap();
    p
}

/// Runs `exe --json --cwd root args...` (a binary other than the test's).
fn run_with(exe: &Path, root: &Path, args: &[&str]) -> Run {
    let out = isolated(&mut Command::new(exe))
        .arg("--json")
        .arg("--cwd")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    Run {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the installed pre-commit hook with `sh` in the repository, with
/// only `path` on PATH (plus the system directories git and sh live in).
fn run_pre_commit(f: &Fixture, path: Option<&Path>) -> (i32, String) {
    let mut search = String::new();
    if let Some(p) = path {
        search.push_str(&format!("{}:", p.display()));
    }
    search.push_str("/usr/bin:/bin");
    let out = isolated(&mut Command::new("sh"))
        .arg(f.root().join(".git/hooks/pre-commit"))
        .current_dir(f.root())
        .env("PATH", search)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // What the hook printed, stdout then stderr.
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_hook_runs_probity_from_path_first_then_the_recorded_path() {
    let f = committed();
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(probity(f.root(), &["hooks", "install"]).code, 0);
    // A probity on PATH is the one that runs.
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("probity");
    probity_testkit::write_executable(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}/ran'\nexit 0\n",
            tmp.path().display()
        )
        .as_bytes(),
    )
    .unwrap();
    let (code, err) = run_pre_commit(&f, Some(&bin));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("ran")).unwrap(),
        "validate\n--gate\npre-commit\n"
    );
    // Without one on PATH, the recorded binary runs the real gate: an
    // unreviewed change is denied with the gate's answer.
    f.write("a", "changed\n").unwrap();
    let (code, err) = run_pre_commit(&f, None);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("pre-commit DENY"), "{err}");
}

#[test]
fn a_missing_probity_fails_the_hook_with_one_line_saying_how_to_reinstall() {
    let f = committed();
    let tmp = tempfile::tempdir().unwrap();
    let exe = copy_of_probity(&tmp.path().join("gone"));
    let i = run_with(&exe, f.root(), &["hooks", "install"]);
    assert_eq!(i.code, 0, "{}{}", i.stdout, i.stderr);
    std::fs::remove_file(&exe).unwrap();
    let (code, err) = run_pre_commit(&f, None);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run `probity hooks install` again"), "{err}");
    assert!(err.contains(&exe.display().to_string()), "{err}");
    assert!(!err.contains("not found"), "{err}");
}

#[test]
fn installing_again_from_another_binary_updates_the_recorded_path() {
    let f = committed();
    let tmp = tempfile::tempdir().unwrap();
    let first = copy_of_probity(&tmp.path().join("one"));
    let second = copy_of_probity(&tmp.path().join("two"));
    assert_eq!(run_with(&first, f.root(), &["hooks", "install"]).code, 0);
    let hook = f.root().join(".git/hooks/pre-commit");
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("/one/probity")
    );
    let again = run_with(&second, f.root(), &["hooks", "install"]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    for h in again.json["hooks"].as_array().unwrap() {
        assert_eq!(h["updated"], true, "{}", again.stdout);
    }
    let text = std::fs::read_to_string(&hook).unwrap();
    assert!(text.contains("/two/probity") && !text.contains("/one/probity"));
    // The same binary again changes nothing.
    let same = run_with(&second, f.root(), &["hooks", "install"]);
    assert_eq!(same.json["hooks"][0]["changed"], false, "{}", same.stdout);
    // The updated hooks are still owned: uninstall removes them.
    let u = run_with(&second, f.root(), &["hooks", "uninstall"]);
    assert_eq!(u.json["hooks"][0]["action"], "removed", "{}", u.stdout);
    assert!(!hook.exists());
}

#[test]
fn a_hooks_path_at_a_tracked_folder_is_refused_and_nothing_is_written() {
    let f = committed();
    f.write(".githooks/pre-commit", "#!/bin/sh\necho team hook\n")
        .unwrap();
    f.commit_all("team hooks").unwrap();
    f.git(&["config", "core.hooksPath", ".githooks"]).unwrap();
    let before = std::fs::read(f.root().join(".githooks/pre-commit")).unwrap();
    let r = probity(f.root(), &["hooks", "install"]);
    r.assert_refused(4, "hooks_path_tracked");
    assert!(r.error_message().contains(".githooks/pre-commit"));
    assert_eq!(
        std::fs::read(f.root().join(".githooks/pre-commit")).unwrap(),
        before
    );
    assert!(!f.root().join(".githooks/pre-push").exists());
    assert!(!f.root().join(".git/probity").exists());
    // The advice works: unset it and install again.
    f.git(&["config", "--unset", "core.hooksPath"]).unwrap();
    assert_eq!(probity(f.root(), &["hooks", "install"]).code, 0);
}
