//! Scripted fixture repositories for tests (feature `fixture`).
//!
//! The habits of gix-testtools without its build weight: a fresh repository
//! in a temporary directory, the inherited `GIT_*` environment scrubbed, no
//! global or system config, and fixed author and committer dates so object
//! ids are reproducible.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cmd::{GitCli, GitError};
use crate::repo::Repo;

/// The fixed date of every fixture commit.
pub const FIXED_DATE: &str = "2026-01-01T00:00:00Z";

/// A throwaway repository. Removed when dropped.
pub struct Fixture {
    dir: tempfile::TempDir,
    /// An empty home: git (and a `probity` a hook starts) reads no global
    /// configuration, so a user's `core.hooksPath` or signing settings
    /// never reach a test, nor a test the user's files.
    home: tempfile::TempDir,
    git: GitCli,
}

impl Fixture {
    /// `git init` on branch `main` with a fixed identity.
    pub fn new() -> Result<Self, GitError> {
        let dir = tempfile::Builder::new()
            .prefix("probity-fixture-")
            .tempdir()?;
        let home = tempfile::Builder::new()
            .prefix("probity-fixture-home-")
            .tempdir()?;
        let f = Self {
            dir,
            home,
            git: GitCli::default(),
        };
        f.git(&["init", "-q", "-b", "main"])?;
        for (k, v) in [
            ("user.name", "Fixture"),
            ("user.email", "fixture@probity.invalid"),
            ("commit.gpgsign", "false"),
            ("core.autocrlf", "false"),
        ] {
            f.git(&["config", k, v])?;
        }
        Ok(f)
    }

    /// The work tree root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The empty home every git of this fixture runs with.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Runs git at the root with fixed dates and no global/system config.
    pub fn git(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.git_in(self.root(), args)
    }

    /// Runs git in `cwd` with the fixture environment.
    pub fn git_in(&self, cwd: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let env: [(&str, &OsStr); 6] = [
            ("GIT_AUTHOR_DATE", OsStr::new(FIXED_DATE)),
            ("GIT_COMMITTER_DATE", OsStr::new(FIXED_DATE)),
            ("GIT_CONFIG_GLOBAL", OsStr::new("/dev/null")),
            ("GIT_CONFIG_NOSYSTEM", OsStr::new("1")),
            ("HOME", self.home.path().as_os_str()),
            ("XDG_CONFIG_HOME", self.home.path().as_os_str()),
        ];
        self.git.run_with(cwd, args, &env, None)
    }

    /// Writes a file (creating directories).
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> std::io::Result<PathBuf> {
        let p = self.root().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(&p, bytes)?;
        Ok(p)
    }

    /// Removes a file.
    pub fn remove(&self, rel: &str) -> std::io::Result<()> {
        std::fs::remove_file(self.root().join(rel))
    }

    /// Stages everything and commits.
    pub fn commit_all(&self, message: &str) -> Result<(), GitError> {
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "--allow-empty", "-m", message])?;
        Ok(())
    }

    /// Discovers the fixture as a [`Repo`].
    pub fn repo(&self) -> Result<Repo, GitError> {
        Repo::discover(self.git.clone(), self.root())
    }

    /// `git status --porcelain=v1 -z --untracked-files=all --ignored`.
    pub fn status(&self) -> Result<Vec<u8>, GitError> {
        self.git(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignored",
        ])
    }

    /// The raw bytes of the user's index.
    pub fn index_bytes(&self) -> std::io::Result<Option<Vec<u8>>> {
        match std::fs::read(self.root().join(".git").join("index")) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}
