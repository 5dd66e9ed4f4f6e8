//! The README's "Using it in a repository" block works when pasted line by
//! line into a fresh repository: this test extracts exactly that fenced
//! block and runs it with bash, one line at a time in one shell (so the
//! variables a line sets reach the next), with the built `probity` first on
//! PATH, an empty HOME and no GIT_* variables from the caller.

use std::path::{Path, PathBuf};
use std::process::Command;

const SECTION: &str = "## Using it in a repository";
const LINE_OK: &str = "__PROBITY_README_LINE_OK__";

/// The lines of the first ```sh block after the section heading.
fn readme_block() -> Vec<String> {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&readme).expect("read README.md");
    let section = &text[text.find(SECTION).expect("the usage section")..];
    let body = &section[section.find("```sh\n").expect("a ```sh block") + 6..];
    let body = &body[..body.find("\n```").expect("the block closes")];
    assert!(
        !section[..section.find("```sh").unwrap_or(0)].contains("\n## "),
        "the block belongs to the usage section"
    );
    body.lines().map(str::to_string).collect()
}

/// A command with the caller's GIT_* and PROBITY_* settings removed.
fn scrubbed(program: &str, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("GIT_") || k.starts_with("PROBITY_") {
            cmd.env_remove(&key);
        }
    }
    cmd.env("HOME", home).env("XDG_CONFIG_HOME", home);
    cmd
}

fn probity_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_probity"))
        .parent()
        .expect("the binary's directory")
        .to_path_buf()
}

#[test]
fn the_readme_usage_block_runs_verbatim_in_a_fresh_repository() {
    let lines = readme_block();
    assert!(
        lines.iter().any(|l| l.starts_with("probity lens submit"))
            && lines
                .iter()
                .any(|l| l.starts_with("git push") || l.starts_with("probity push")),
        "the block walks a review to a push: {lines:#?}"
    );
    for l in &lines {
        assert!(
            !l.trim_end().ends_with('\\'),
            "one command per line (no continuation): {l}"
        );
    }
    let home = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = scrubbed("git", home.path())
            .args(args)
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        out.stdout
    };
    // A fresh repository, with the identity a user has configured.
    git(&["init", "-q"]);
    git(&["config", "user.name", "Readme Test"]);
    git(&["config", "user.email", "readme@example.invalid"]);

    // One shell runs the lines in order; after each, its status is checked
    // (a failing first command of an `&&` list counts too).
    let mut script = String::from("set -o pipefail\n");
    for (i, line) in lines.iter().enumerate() {
        script.push_str(line);
        script.push('\n');
        script.push_str(&format!(
            "__rc=$?; if [ \"$__rc\" -ne 0 ]; then echo \"line {} failed with $__rc\" >&2; exit 97; fi; echo {LINE_OK} {i}\n",
            i + 1
        ));
    }
    let script_path = scratch.path().join("readme-block.sh");
    std::fs::write(&script_path, script).unwrap();
    let path = std::env::join_paths(std::iter::once(probity_dir()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let out = scrubbed("bash", home.path())
        .arg("--noprofile")
        .arg("--norc")
        .arg(&script_path)
        .current_dir(repo.path())
        .env("PATH", path)
        .env("TMPDIR", scratch.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ok = stdout.lines().filter(|l| l.starts_with(LINE_OK)).count();
    assert!(
        out.status.success() && ok == lines.len(),
        "{ok} of {} lines succeeded\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        lines.len()
    );
    // The gates allowed: pre-commit and pre-push by hand, then the managed
    // pre-push hook let the push through to the remote.
    assert!(stdout.contains("pre-commit ALLOW"), "{stdout}");
    assert!(stdout.contains("pre-push ALLOW"), "{stdout}");
    let head = git(&["rev-parse", "HEAD"]);
    let remote = std::fs::read_dir(scratch.path())
        .unwrap()
        .flatten()
        .map(|e| e.path().join("remote.git"))
        .find(|p| p.is_dir())
        .expect("the block's local remote");
    let pushed = scrubbed("git", home.path())
        .arg("--git-dir")
        .arg(&remote)
        .args(["rev-parse", "--verify", "HEAD"])
        .output()
        .unwrap();
    assert_eq!(
        pushed.stdout, head,
        "the remote received the reviewed commit"
    );
    // The authority travelled with it (a note on the commit), through the
    // remote's own gate: a v2 bundle, carrying the check the walk-through
    // ran (D-R69).
    let note = scrubbed("git", home.path())
        .arg("--git-dir")
        .arg(&remote)
        .args(["notes", "--ref=probity", "show", "HEAD"])
        .output()
        .unwrap();
    assert!(note.status.success(), "{note:?}");
    assert!(
        String::from_utf8_lossy(&note.stdout).contains("probity.review-bundle/v2"),
        "{note:?}"
    );
    assert!(remote.join("hooks/pre-receive").is_file());
    // Nothing of Probity's joined the worktree or the commit.
    let tracked = git(&["ls-files"]);
    assert_eq!(String::from_utf8_lossy(&tracked), "hello.txt\n");
    let status = git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(status.is_empty(), "{}", String::from_utf8_lossy(&status));
}
