//! A hermetic environment for the real git a test runs: the inherited
//! `GIT_*` variables scrubbed (a hook or an outer git may have set
//! `GIT_DIR`, `GIT_INDEX_FILE`, ...), no global or system configuration, a
//! fixed identity and fixed dates (so object ids are reproducible), the C
//! locale and no prompts.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// The author and committer date of every commit made here.
pub const FIXED_DATE: &str = "2026-01-01T00:00:00Z";

/// The variables every hermetic git runs with (besides the scrubbing and
/// `HOME`).
pub const FIXED_ENV: [(&str, &str); 12] = [
    ("GIT_AUTHOR_NAME", "Fixture"),
    ("GIT_AUTHOR_EMAIL", "fixture@example.invalid"),
    ("GIT_COMMITTER_NAME", "Fixture"),
    ("GIT_COMMITTER_EMAIL", "fixture@example.invalid"),
    ("GIT_AUTHOR_DATE", FIXED_DATE),
    ("GIT_COMMITTER_DATE", FIXED_DATE),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_PAGER", "cat"),
    ("LC_ALL", "C"),
    ("GIT_ADVICE", "0"),
];

/// Whether an inherited variable is one git reads and a test must not pass
/// on (`GIT_EXEC_PATH` locates git itself and is kept).
pub fn is_scrubbed(key: &OsStr) -> bool {
    let k = key.to_string_lossy();
    k.starts_with("GIT_") && k != "GIT_EXEC_PATH"
}

/// `git` in `cwd` with the hermetic environment; `home`, when given, is
/// its `HOME` and `XDG_CONFIG_HOME` (an empty directory: no user file is
/// read).
pub fn git_command(cwd: &Path, home: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    for (key, _) in std::env::vars_os() {
        if is_scrubbed(&key) {
            cmd.env_remove(&key);
        }
    }
    cmd.current_dir(cwd).envs(FIXED_ENV);
    if let Some(home) = home {
        cmd.env("HOME", home).env("XDG_CONFIG_HOME", home);
    }
    cmd
}

/// Why a hermetic git did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum GitRunError {
    /// `git` could not be started (not on `PATH`, not executable).
    #[error("could not run git {args}: {source}")]
    Spawn {
        /// The git arguments, space-joined.
        args: String,
        /// Why the spawn failed.
        #[source]
        source: std::io::Error,
    },
    /// git exited unsuccessfully.
    #[error("git {args} failed ({status}): {stderr}")]
    Failed {
        /// The git arguments, space-joined.
        args: String,
        /// The exit status as displayed (an exit code or a signal).
        status: String,
        /// git's stderr, lossily as UTF-8.
        stderr: String,
    },
}

/// Runs `git args` in `cwd` hermetically and answers its stdout (trailing
/// whitespace trimmed, lossily decoded).
pub fn git(cwd: &Path, args: &[&str]) -> Result<String, GitRunError> {
    git_bytes(cwd, None, args).map(|out| String::from_utf8_lossy(&out).trim_end().to_owned())
}

/// Runs `git args` in `cwd` hermetically (with `home` as its home, when
/// given) and answers its raw stdout.
pub fn git_bytes(cwd: &Path, home: Option<&Path>, args: &[&str]) -> Result<Vec<u8>, GitRunError> {
    let shown = args.join(" ");
    let out = git_command(cwd, home)
        .args(args)
        .output()
        .map_err(|source| GitRunError::Spawn {
            args: shown.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(GitRunError::Failed {
            args: shown,
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(out.stdout)
}

/// A scratch repository with the hermetic environment and an empty home
/// of its own, removed when dropped.
pub struct GitEnv {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl GitEnv {
    /// `git init` on branch `main` in a fresh temporary directory.
    pub fn init() -> Result<Self, GitRunError> {
        let temp = |prefix: &str| {
            tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .map_err(|source| GitRunError::Spawn {
                    args: "init (temporary directory)".into(),
                    source,
                })
        };
        let env = Self {
            dir: temp("probity-testkit-")?,
            home: temp("probity-testkit-home-")?,
        };
        env.git(&["init", "-q", "-b", "main"])?;
        env.git(&["config", "core.autocrlf", "false"])?;
        env.git(&["config", "commit.gpgsign", "false"])?;
        Ok(env)
    }

    /// The work tree root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The empty home its git runs with.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Runs git at the root; stdout trimmed.
    pub fn git(&self, args: &[&str]) -> Result<String, GitRunError> {
        git_bytes(self.root(), Some(self.home()), args)
            .map(|out| String::from_utf8_lossy(&out).trim_end().to_owned())
    }

    /// Writes a file under the root (creating directories).
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
        let p = self.root().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(p, bytes)
    }

    /// Stages everything and commits; answers the new HEAD.
    pub fn commit_all(&self, message: &str) -> Result<String, GitRunError> {
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "--allow-empty", "-m", message])?;
        self.git(&["rev-parse", "HEAD"])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_are_reproducible_and_ignore_the_callers_git_variables() {
        let make = || {
            let env = GitEnv::init().unwrap();
            env.write("a.txt", "a\n").unwrap();
            env.commit_all("one").unwrap()
        };
        let (a, b) = (make(), make());
        assert_eq!(a, b, "fixed identity and dates: the same commit id");
        let env = GitEnv::init().unwrap();
        let mut cmd = git_command(env.root(), Some(env.home()));
        cmd.env("GIT_DIR", "/nonexistent")
            .args(["rev-parse", "--git-dir"]);
        // A variable set on the command after scrubbing wins (the caller's
        // choice); the inherited ones never reach git.
        assert!(!cmd.output().unwrap().status.success());
        assert_eq!(env.git(&["rev-parse", "--git-dir"]).unwrap(), ".git");
        assert!(matches!(
            env.git(&["no-such-command"]),
            Err(GitRunError::Failed { .. })
        ));
    }
}
