//! Scripted fixture repositories for tests (feature `fixture`).
//!
//! The habits of gix-testtools without its build weight: a fresh repository
//! in a temporary directory, the inherited `GIT_*` environment scrubbed (by
//! [`GitCli`]), and the testkit's one hermetic git environment
//! ([`probity_testkit::git_env::FIXED_ENV`]: no global or system config, a
//! fixed identity and fixed dates, so object ids are reproducible).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub use probity_testkit::git_env::FIXED_DATE;
use probity_testkit::git_env::FIXED_ENV;

use crate::cmd::{GitCli, GitError};
use crate::repo::Repo;

/// The value `FIXED_ENV` gives `key` (empty if it gives none).
fn fixed(key: &str) -> &'static str {
    FIXED_ENV
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, v)| v)
}

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
    /// `git init` on branch `main`, configured with the fixed identity (so
    /// a commit git makes without the fixture's environment, such as the
    /// notes commits of a `probity` it starts, carries the same one).
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
            ("user.name", fixed("GIT_COMMITTER_NAME")),
            ("user.email", fixed("GIT_COMMITTER_EMAIL")),
            ("commit.gpgsign", "false"),
            ("core.autocrlf", "false"),
        ] {
            f.git(&["config", k, v])?;
        }
        Ok(f)
    }

    /// A fixture whose one commit, `message`, holds `files` (path, text).
    pub fn committed(files: &[(&str, &str)], message: &str) -> Result<Self, GitError> {
        let f = Self::new()?;
        f.write_all(files)?;
        f.commit_all(message)?;
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

    /// Runs git at the root with the hermetic environment.
    pub fn git(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.git_in(self.root(), args)
    }

    /// An empty repository of the SHA-256 object format at `name` under
    /// the fixture's root (`git init --object-format=sha256`): its path.
    pub fn sha256_repo(&self, name: &str) -> Result<PathBuf, GitError> {
        let dir = self.root().join(name);
        let mut args = vec![
            std::ffi::OsString::from("init"),
            "-q".into(),
            "--object-format=sha256".into(),
        ];
        args.push(dir.clone().into_os_string());
        self.git.run_with(self.root(), &args, &self.env(), None)?;
        Ok(dir)
    }

    /// The hermetic environment with the fixture's empty home.
    fn env(&self) -> Vec<(&'static str, &OsStr)> {
        let home = self.home.path().as_os_str();
        FIXED_ENV
            .iter()
            .map(|(k, v)| (*k, OsStr::new(*v)))
            .chain([("HOME", home), ("XDG_CONFIG_HOME", home)])
            .collect()
    }

    /// Runs git in `cwd` with the hermetic environment and the fixture's
    /// empty home.
    pub fn git_in(&self, cwd: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.git.run_with(cwd, args, &self.env(), None)
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

    /// Sets a file's permission bits (`0o755`: an executable).
    #[cfg(unix)]
    pub fn set_mode(&self, rel: &str, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.root().join(rel), std::fs::Permissions::from_mode(mode))
    }

    /// Writes each of `files` (path, text), in order.
    pub fn write_all(&self, files: &[(&str, &str)]) -> std::io::Result<()> {
        for (rel, text) in files {
            self.write(rel, text)?;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use probity_testkit::git_env::GitEnv;

    #[test]
    fn a_fixture_commits_exactly_as_the_testkits_git_environment_does() {
        let f = Fixture::committed(&[("a.txt", "a\n")], "one").unwrap();
        let head = String::from_utf8(f.git(&["rev-parse", "HEAD"]).unwrap()).unwrap();
        let env = GitEnv::init().unwrap();
        env.write("a.txt", "a\n").unwrap();
        assert_eq!(head.trim_end(), env.commit_all("one").unwrap());
        // A git started without the environment (a hook's `probity`)
        // finds the same identity in the configuration.
        for (key, var) in [
            ("user.name", "GIT_COMMITTER_NAME"),
            ("user.email", "GIT_COMMITTER_EMAIL"),
        ] {
            let v = f.git(&["config", key]).unwrap();
            assert_eq!(String::from_utf8(v).unwrap().trim_end(), fixed(var));
            assert!(!fixed(var).is_empty());
        }
    }
}
