//! A team repository for the policy tests: `parser_base()` with the team's
//! signers and policy (and any other files of its base) committed, served
//! by a bare remote with the server hook.

use std::path::{Path, PathBuf};

use probity_git::fixture::Fixture;

/// A team's base on a gated server, and the team's keys.
pub struct TeamBase {
    /// The clone the tests work in.
    pub f: Fixture,
    /// Keeps the server alive.
    pub dir: tempfile::TempDir,
    /// The bare server with the pre-receive hook.
    pub server: PathBuf,
    /// The keys' directory (the signers' HOME).
    pub keys: tempfile::TempDir,
    /// The agent's, CI's and alice's private keys.
    pub agent: PathBuf,
    pub ci: PathBuf,
    pub alice: PathBuf,
    /// Where review inputs are written.
    pub inputs: tempfile::TempDir,
    /// The server's `main` once the base is served.
    pub before: Option<String>,
}

impl TeamBase {
    /// `policy` as `.probity/policy.json` and `files` (path, text) written
    /// beside the signers and committed as `message`, then served.
    pub fn serve(policy: &str, files: &[(&str, &str)], message: &str) -> Self {
        let f = super::parser_base();
        let (keys, agent, ci, alice) = super::team_signers(&f);
        f.write(".probity/policy.json", policy).unwrap();
        for (path, text) in files {
            f.write(path, text).unwrap();
        }
        f.commit_all(message).unwrap();
        let (dir, server) = super::gated_origin(&f);
        let before = super::rev(&f, &server, "main");
        TeamBase {
            f,
            dir,
            server,
            keys,
            agent,
            ci,
            alice,
            inputs: tempfile::tempdir().unwrap(),
            before,
        }
    }

    /// Signs `lineage`'s statement with `key` in this clone.
    pub fn sign(&self, key: &Path, lineage: &str) {
        super::sign_with(self.f.root(), key, self.keys.path(), lineage);
    }

    /// The server's `main` now.
    pub fn server_main(&self) -> Option<String> {
        super::rev(&self.f, &self.server, "main")
    }
}
