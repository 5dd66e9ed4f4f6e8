//! "A failure is a typed error, never a classification" (docs/
//! ARCHITECTURE.md, "git"), as a rule over the adapter's shipped sources:
//! every function that runs git for its exit status (`GitRun::output`,
//! `output_streaming`, which return whatever the status) reads the status
//! by its exact code (`.code()`), so only the code git documents as an
//! answer (`rev-parse --verify -q` and `config --get`: 1 for "not there")
//! is one, and any other failure stays an error; or it is one of
//! [`ARGUED`], each saying what it does with a failure. A new such
//! function fails here until it does either.
//!
//! Beside the rule, the answers it protects, on real repositories whose
//! configuration git cannot read: an error, never "absent".

use std::path::{Path, PathBuf};

#[path = "../../../core/tests/common/shipped.rs"]
mod shipped;

#[path = "../../../core/tests/common/sources.rs"]
mod sources;

use probity_git::Repo;
use probity_testkit::git_env::git;

/// (file under `src/`, function, what a failure becomes).
const ARGUED: &[(&str, &str, &str)] = &[
    (
        "cmd.rs",
        "run_with",
        "any failure is `GitError::Failed` with git's stderr",
    ),
    (
        "notes.rs",
        "merge_remote_notes",
        "a failure is an error, except git's own \"couldn't find remote ref\": the remote has no notes",
    ),
    (
        "push.rs",
        "push_atomic",
        "the outcome carries the status and git's stderr to the caller, which reports a failed push as one",
    ),
    (
        "push.rs",
        "push_plan",
        "a failure that names no update is an error; a rejected update is named in the plan",
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// (function, whether it reads `.code()`) for every function of `code`
/// whose body runs git for its status.
fn status_readers(code: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let starts: Vec<usize> = code
        .match_indices("fn ")
        .map(|(at, _)| at)
        .filter(|at| *at == 0 || !code.as_bytes()[at - 1].is_ascii_alphanumeric())
        .collect();
    for (i, at) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(code.len());
        let body = &code[*at..end];
        let name: String = body[3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // `GitRun::output(cwd, ..)` takes arguments; std's
        // `Command::output()` none.
        let runs = body.contains(".output_streaming(")
            || body
                .match_indices(".output(")
                .any(|(o, _)| !body[o..].starts_with(".output()"));
        if runs && name != "output" && name != "output_streaming" {
            out.push((name, body.contains(".code()")));
        }
    }
    out
}

#[test]
fn every_status_read_is_by_exact_code_or_argued() {
    let mut files = Vec::new();
    sources::rust_files(&src(), &mut files);
    files.retain(|f| !f.to_string_lossy().ends_with("_tests.rs"));
    let mut found = Vec::new();
    let mut unargued = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let code = shipped::shipped_code(&std::fs::read_to_string(f).unwrap());
        for (name, by_code) in status_readers(&code) {
            let argued = ARGUED.iter().any(|(file, n, _)| *file == rel && *n == name);
            if !by_code && !argued {
                unargued.push(format!("{rel}::{name}"));
            }
            found.push((rel.clone(), name, argued));
        }
    }
    assert!(
        found.len() >= 10,
        "found only {} status readers: {found:?}",
        found.len()
    );
    assert!(
        unargued.is_empty(),
        "these read git's status as success or not; read the exact code git documents \
         as an answer (any other is an error), or argue them in ARGUED: {unargued:?}"
    );
    for (file, name, _) in ARGUED {
        assert!(
            found.iter().any(|(f, n, a)| f == file && n == name && *a),
            "ARGUED lists {file}::{name}, which no longer runs git for its status"
        );
    }
}

#[test]
fn the_rule_sees_a_status_read_as_an_answer() {
    let planted = "fn exists(&self) -> Result<bool, GitError> {\n    \
                   Ok(self.git().output(self.root(), &args, &[], None)?.status.success())\n}\n\
                   fn exact(&self) -> Result<bool, GitError> {\n    \
                   let out = self.git().output(self.root(), &args, &[], None)?;\n    \
                   match out.status.code() { Some(0) => Ok(true), _ => Err(e) }\n}\n\
                   fn plain() { let o = Command::new(\"x\").output(); }\n";
    assert_eq!(
        status_readers(planted),
        [("exists".to_string(), false), ("exact".to_string(), true)]
    );
}

/// A repository whose configuration git refuses to read once it is open.
fn unreadable_config() -> (tempfile::TempDir, Repo) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]).unwrap();
    let repo = Repo::discover(probity_git::GitCli::default(), dir.path()).unwrap();
    let config = dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[broken\n");
    std::fs::write(&config, text).unwrap();
    (dir, repo)
}

#[test]
fn an_unreadable_configuration_is_an_error_never_no_such_remote() {
    let (_dir, repo) = unreadable_config();
    let answer = repo.is_configured_remote("origin");
    assert!(answer.is_err(), "{answer:?}");
}

#[test]
fn an_unreadable_configuration_is_an_error_never_an_unborn_head() {
    let (_dir, repo) = unreadable_config();
    let answer = repo.base_tree();
    assert!(answer.is_err(), "{answer:?}");
}

/// A repository with one commit whose object `which` (`HEAD` or
/// `HEAD^{tree}`) is corrupt on disk; the commit and tree ids.
fn corrupt(which: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]).unwrap();
    std::fs::write(d.join("a"), "a\n").unwrap();
    git(d, &["add", "a"]).unwrap();
    git(d, &["commit", "-q", "-m", "a"]).unwrap();
    let commit = git(d, &["rev-parse", "HEAD"]).unwrap().trim().to_string();
    let tree = git(d, &["rev-parse", "HEAD^{tree}"])
        .unwrap()
        .trim()
        .to_string();
    let id = git(d, &["rev-parse", which]).unwrap().trim().to_string();
    let file = d.join(".git/objects").join(&id[..2]).join(&id[2..]);
    let mut perms = std::fs::metadata(&file).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&file, perms).unwrap();
    std::fs::write(&file, b"garbage").unwrap();
    (dir, commit, tree)
}

#[test]
fn a_corrupt_commit_is_an_error_never_no_such_tree() {
    let (dir, commit, _) = corrupt("HEAD");
    let spec = probity_git::subject::SubjectSpec::Tree(commit);
    let answer =
        probity_git::subject::Subject::open(&spec, probity_git::GitCli::default(), dir.path());
    assert!(
        matches!(answer, Err(probity_git::subject::OpenError::Git(_))),
        "{:?}",
        answer.err()
    );
}

#[test]
fn a_corrupt_tree_is_an_error_never_an_absent_path() {
    let (dir, _, tree) = corrupt("HEAD^{tree}");
    let repo = Repo::discover(probity_git::GitCli::default(), dir.path()).unwrap();
    let tree = probity_core::review::TreeId::parse(&tree).unwrap();
    let path = probity_core::review::RepoPath::parse("a").unwrap();
    let answer = repo.line_count(&tree, &path);
    assert!(answer.is_err(), "{answer:?}");
}
