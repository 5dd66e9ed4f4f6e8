//! What the transport tests share (transport_cli.rs,
//! transport_server_cli.rs): a clone whose `origin` runs the server hook,
//! and the git helpers they use on it.

use std::path::{Path, PathBuf};

use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::BUNDLE_DOMAIN;
use probity_git::fixture::Fixture;
use serde_json::{Value, json};

use super::*;

/// A developer clone `f` whose `main` is on a bare `server` (pushed before
/// the server hook was installed), with the server's pre-receive hook
/// installed, and a reviewed change in the worktree (not committed).
pub struct Setup {
    pub f: Fixture,
    pub _dir: tempfile::TempDir,
    pub server: PathBuf,
    pub inputs: tempfile::TempDir,
}

impl Setup {
    pub fn new() -> Self {
        let f = parser_base();
        let (dir, server) = bare_origin(&f, "server.git");
        let r = probity(&server, &["hooks", "install", "--server"]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        assert_eq!(r.json["hooks"][0]["action"], "installed");
        let s = Self {
            f,
            _dir: dir,
            server,
            inputs: tempfile::tempdir().unwrap(),
        };
        write_medium_change(&s.f);
        s
    }

    pub fn approve(&self) -> String {
        approve_live(self.f.root(), self.inputs.path())["lineage_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn rev(&self, r: &str) -> String {
        rev_in(&self.f, self.f.root(), r).unwrap()
    }

    pub fn server_rev(&self, r: &str) -> Option<String> {
        rev_in(&self.f, &self.server, r)
    }

    /// `git push --no-verify` (no client hook): Ok, or Err(stderr).
    pub fn push(&self, args: &[&str]) -> Result<(), String> {
        push_in(&self.f, self.f.root(), args)
    }

    /// A second clone of the server, with the fixture's identity.
    pub fn clone_server(&self) -> (tempfile::TempDir, PathBuf) {
        clone_as(&self.f, &self.server, "b")
    }

    /// A second clone `b` ([`Setup::clone_server`]); the change here
    /// reviewed and committed on `main` (`reviewed in A`), and in `b` a
    /// reviewed `src/lexer.rs` committed on `feature` (`reviewed in B`).
    /// Nothing is published yet.
    pub fn reviewed_in_a_and_b(&self) -> (tempfile::TempDir, PathBuf) {
        let (d, b) = self.clone_server();
        self.approve();
        self.f.commit_all("reviewed in A").unwrap();
        self.f
            .git_in(&b, &["checkout", "-q", "-b", "feature"])
            .unwrap();
        std::fs::write(b.join("src/lexer.rs"), "fn lex() {}\n").unwrap();
        approve_live(&b, self.inputs.path());
        self.f.git_in(&b, &["add", "-A"]).unwrap();
        self.f
            .git_in(&b, &["commit", "-q", "-m", "reviewed in B"])
            .unwrap();
        (d, b)
    }
}

/// A teammate's clone `b` (of the server `f` pushes to) lands reviewed
/// work on another path: `docs/notes.md`, reviewed with inputs under
/// `inputs`, committed and delivered with `probity push origin main`,
/// which must succeed.
pub fn land_reviewed_upstream(f: &Fixture, b: &Path, inputs: &Path) {
    std::fs::create_dir_all(b.join("docs")).unwrap();
    std::fs::write(b.join("docs/notes.md"), "# notes\n").unwrap();
    approve_live(b, inputs);
    f.git_in(b, &["add", "-A"]).unwrap();
    f.git_in(b, &["commit", "-q", "-m", "upstream, reviewed"])
        .unwrap();
    let pb = probity(b, &["push", "origin", "main"]);
    assert_eq!(pb.code, 0, "{}{}", pb.stdout, pb.stderr);
}

pub fn rev_in(f: &Fixture, cwd: &Path, r: &str) -> Option<String> {
    f.git_in(cwd, &["rev-parse", "-q", "--verify", r])
        .ok()
        .map(|b| String::from_utf8(b).unwrap().trim().to_string())
}

pub fn push_in(f: &Fixture, cwd: &Path, args: &[&str]) -> Result<(), String> {
    let mut all = vec!["push", "-q", "--no-verify"];
    all.extend_from_slice(args);
    f.git_in(cwd, &all).map(|_| ()).map_err(|e| e.to_string())
}

/// The raw note of a commit in refs/notes/probity.
pub fn note(f: &Fixture, cwd: &Path, commit: &str) -> Option<Vec<u8>> {
    f.git_in(cwd, &["notes", "--ref=probity", "show", commit])
        .ok()
}

/// Replaces a commit's note with `bytes` (as a forger with git would).
pub fn set_note(f: &Fixture, cwd: &Path, commit: &str, bytes: &[u8], dir: &Path) {
    let p = dir.join("note.txt");
    std::fs::write(&p, bytes).unwrap();
    f.git_in(
        cwd,
        &[
            "notes",
            "--ref=probity",
            "add",
            "-f",
            "-F",
            p.to_str().unwrap(),
            commit,
        ],
    )
    .unwrap();
}

/// A bundle whose first record's finding claim was edited, with the
/// bundle digest recomputed over the edited content.
pub fn forge(bundle_line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(bundle_line.to_vec()).unwrap();
    let edited = text.replacen("read the whole diff", "read nothing at all", 1);
    assert_ne!(edited, text);
    let mut v: Value = serde_json::from_str(edited.trim_end()).unwrap();
    let body = {
        let mut b = v.clone();
        b.as_object_mut().unwrap().remove("digest");
        b
    };
    let digest = Sha256Digest::of(BUNDLE_DOMAIN, &canonical_bytes(&body).unwrap());
    v["digest"] = json!(digest);
    canonical_bytes(&v).unwrap()
}

/// Every file under `root` with its bytes, by path.
pub fn snapshot_dir(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(root)
        .into_values()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// `probity validate --gate pre-push --remote origin --stdin-updates` with
/// `stdin`: (exit code, stderr).
pub fn hook_gate(cwd: &Path, stdin: &str) -> (i32, String) {
    let out = output_with_stdin(
        isolated(&mut std::process::Command::new(env!(
            "CARGO_BIN_EXE_probity"
        )))
        .arg("--cwd")
        .arg(cwd)
        .args(PRE_PUSH_HOOK_ARGS),
        stdin.as_bytes(),
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
