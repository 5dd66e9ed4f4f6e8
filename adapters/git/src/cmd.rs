//! Running the git CLI: argument arrays, never a shell, and a hermetic
//! environment.
//!
//! Every invocation clears the inherited `GIT_*` variables (a hook runs with
//! `GIT_DIR`, `GIT_INDEX_FILE` and friends set, and they must not redirect our
//! observations), pins the locale, disables prompts, pagers, optional locks,
//! replace objects and grafts, and renders paths unquoted. Callers pass extra
//! variables explicitly (e.g. a temporary `GIT_INDEX_FILE`). One exception,
//! for the server-side gate only: [`GitCli::with_receive_quarantine`] keeps
//! `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES`, which a
//! `pre-receive` hook needs to read the pushed (quarantined) objects. And
//! one variable is never cleared: `GIT_EXEC_PATH`, where git finds its own
//! helper programs (see `is_git_env`).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Minimum git version: `git cat-file --batch` with `-z`/`--batch-command`
/// semantics and `ls-files --format` we rely on.
pub const MIN_GIT_VERSION: (u32, u32) = (2, 41);

/// A failure to observe the repository through git. Never a classification:
/// callers propagate it instead of treating "could not determine X" as "X is
/// false".
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The git executable could not be started (not installed, not
    /// executable, a wrong `PROBITY_GIT`).
    #[error("could not run git ({exe}): {source}; install git {}.{} or newer, or set PROBITY_GIT", MIN_GIT_VERSION.0, MIN_GIT_VERSION.1)]
    Spawn {
        /// The executable tried (`git`, or `PROBITY_GIT`'s value), lossily
        /// as text.
        exe: String,
        /// Why the spawn failed.
        #[source]
        source: std::io::Error,
    },
    /// git exited unsuccessfully where the answer needed success.
    #[error("git {args} failed ({status}){}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    Failed {
        /// The git arguments, space-joined (or a short form of them); the
        /// hermetic `-c` settings are not shown.
        args: String,
        /// The exit status as displayed (an exit code or a signal).
        status: String,
        /// git's stderr, lossily as UTF-8, trimmed.
        stderr: String,
    },
    /// `git version` reports a version below [`MIN_GIT_VERSION`].
    #[error("git {found} is too old; Probity needs git {}.{} or newer", MIN_GIT_VERSION.0, MIN_GIT_VERSION.1)]
    TooOld {
        /// The version found, `major.minor.patch`.
        found: String,
    },
    /// A revision the caller named resolves to no commit.
    #[error("`{rev}` does not name a commit in this repository")]
    UnknownRevision {
        /// The revision, as given.
        rev: String,
    },
    /// A short revision name matches several refs (a branch `origin/main`
    /// beside the remote-tracking one); Probity refuses to guess.
    #[error(
        "`{rev}` matches more than one ref; name it in full (e.g. refs/remotes/origin/main or refs/heads/main)"
    )]
    AmbiguousRevision {
        /// The revision, as given.
        rev: String,
    },
    /// The directory (`--cwd`) does not exist or is not inside a git
    /// repository.
    #[error("{path} is not inside a git repository")]
    NotARepository {
        /// The directory, as displayed.
        path: String,
    },
    /// git's output does not have the shape the command promises.
    #[error("unexpected output from git {args}: {detail}")]
    Parse {
        /// The command whose output it is (`cat-file --batch`, ...).
        args: String,
        /// What is unexpected (the offending line, a count mismatch, ...).
        detail: String,
    },
    /// A changed path whose name is not UTF-8 (shown escaped: `\xNN`).
    #[error(
        "the path {path} is not UTF-8 (invalid bytes shown as \\xNN); Probity reviews UTF-8 paths only"
    )]
    NonUtf8Path {
        /// The path, invalid bytes escaped as `\xNN` ([`escape_path`]).
        path: String,
    },
    /// A changed file over the size limit, refused before it was read.
    #[error(
        "{path} is {size} bytes, over the {limit}-byte limit for a reviewed file; its content was not read"
    )]
    FileTooLarge {
        /// The repository-relative path.
        path: String,
        /// Its size in bytes (the blob's, or the work-tree file's `stat`).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A diff over core's bound on diff work (D-R130), refused before git
    /// diffed it.
    #[error("{0}")]
    DiffTooLarge(#[source] probity_core::review::DiffTooLarge),
    /// A tree git's own commands never write, brought by a candidate or
    /// on the way to a path read (D-R160).
    #[error("{0}")]
    TreeMalformed(#[source] probity_core::review::TreeMalformed),
    /// An I/O error on git's pipes or while waiting for it to exit.
    #[error("I/O error while talking to git: {0}")]
    Io(#[from] std::io::Error),
}

/// The stdin of one `git cat-file` batch, the one builder every batch in
/// this crate uses: each object name on its own line, alone for `--batch`
/// and `--batch-check`, after `command` and a space for
/// `--batch-command` (`info <name>`). A name holding a newline is refused
/// (a [`GitError::Parse`] of `args`): it would split into two requests and
/// misalign every answer after it.
pub fn cat_file_input<S: AsRef<str>>(
    args: &str,
    command: Option<&str>,
    names: &[S],
) -> Result<Vec<u8>, GitError> {
    let mut input = Vec::new();
    for name in names {
        let name = name.as_ref();
        if name.contains('\n') {
            return Err(GitError::Parse {
                args: args.into(),
                detail: "an object name holding a newline".into(),
            });
        }
        if let Some(command) = command {
            input.extend_from_slice(command.as_bytes());
            input.push(b' ');
        }
        input.extend_from_slice(name.as_bytes());
        input.push(b'\n');
    }
    Ok(input)
}

/// A path's bytes for people: UTF-8 as is, every byte of an invalid
/// sequence as `\xNN` (lossless, unlike U+FFFD replacement).
pub fn escape_path(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for b in &bad[..n] {
                    out.push_str(&format!("\\x{b:02x}"));
                }
                rest = &bad[n..];
            }
        }
    }
    out
}

/// The git executable and the environment it runs in.
#[derive(Debug, Clone)]
pub struct GitCli {
    exe: OsString,
    /// Variables kept through the scrub, by explicit opt-in only: the
    /// object-directory pair and the configuration a `pre-receive` hook
    /// needs ([`GitCli::with_receive_quarantine`],
    /// [`GitCli::with_receive_config`]), and the transport
    /// settings of a command that talks to a remote
    /// ([`GitCli::with_transport_env`]).
    kept: Vec<(OsString, OsString)>,
    /// Whether [`GitCli::output`] starts git with the interrupting signals
    /// blocked ([`GitCli::sheltered`]).
    sheltered: bool,
}

impl Default for GitCli {
    fn default() -> Self {
        Self {
            exe: crate::program::resolve(OsString::from("git")),
            kept: Vec::new(),
            sheltered: false,
        }
    }
}

/// The variables git sets for a `pre-receive` hook so that it can read the
/// objects of the push being received, which git keeps in a quarantine
/// directory until the hook accepts.
pub const QUARANTINE_ENV: [&str; 2] = ["GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"];

/// git's own configuration passed in the environment: `git -c` sets
/// `GIT_CONFIG_PARAMETERS` for what it runs, and `GIT_CONFIG_COUNT` with
/// `GIT_CONFIG_KEY_<n>` / `GIT_CONFIG_VALUE_<n>` is how an administrator
/// configures a git a web server runs (Apache `SetEnv`, e.g. a
/// `safe.directory` for a repository another user owns). Kept by the
/// server gate only ([`GitCli::with_receive_config`]): the receiving
/// git honoured it, so the gate must read the repository as that git did.
pub fn is_config_env(key: &str) -> bool {
    key == "GIT_CONFIG_PARAMETERS"
        || key == "GIT_CONFIG_COUNT"
        || key
            .strip_prefix("GIT_CONFIG_KEY_")
            .or_else(|| key.strip_prefix("GIT_CONFIG_VALUE_"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The variables with which a user tells git how to reach a remote: the
/// ssh program and its flavour (`GIT_SSH_COMMAND`, `GIT_SSH`,
/// `GIT_SSH_VARIANT`), the credential prompt program (`GIT_ASKPASS`), a
/// proxy program for `git://` (`GIT_PROXY_COMMAND`). With every
/// `GIT_SSL_*` ([`is_transport_env`]) they are kept for the commands that
/// talk to a remote only ([`GitCli::with_transport_env`]): none names a
/// repository, object store, ref or configuration of the local one, and
/// no observation of it runs with them. The transport variables outside
/// `GIT_*` (`SSH_ASKPASS`, `SSH_AUTH_SOCK`, `HOME`, the `*_proxy` family)
/// are never cleared: every run keeps what is not `GIT_*`.
pub const TRANSPORT_ENV: [&str; 5] = [
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_SSH_VARIANT",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
];

/// Whether `key` is one of [`TRANSPORT_ENV`] or a `GIT_SSL_*` setting
/// (certificate authority, client certificate, verification).
pub fn is_transport_env(key: &str) -> bool {
    TRANSPORT_ENV.contains(&key) || key.starts_with("GIT_SSL_")
}

/// Environment variables git would honour from a caller; cleared on every run.
///
/// One is kept: `GIT_EXEC_PATH`, the directory where git finds its own
/// programs (`git-remote-https`, the `git-upload-pack` an `ls-remote` of a
/// local remote starts, ...). git exports it to every hook and alias it
/// runs (its exec dir, or the one `git --exec-path=<dir>` named), and a
/// relocated or wrapped git (a build tree, a bundled install) may need it
/// to find its helpers: dropped, the git a hook's Probity starts could run
/// another installation's helpers, or find none. It names no repository,
/// work tree, index, object store, ref namespace or configuration, so it
/// cannot redirect an observation; it is trusted as `PATH` is.
///
/// So is the identity (`GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`,
/// `GIT_COMMITTER_NAME`, `GIT_COMMITTER_EMAIL`), what CI and a caller's
/// environment name the person by: it signs the notes commits `publish`
/// writes, and names nothing git reads.
pub fn is_git_env(key: &OsStr) -> bool {
    let k = key.to_string_lossy();
    k.starts_with("GIT_") && !KEPT_ENV.contains(&k.as_ref())
}

/// The `GIT_*` variables every run keeps (see [`is_git_env`]).
const KEPT_ENV: [&str; 5] = [
    "GIT_EXEC_PATH",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
];

impl GitCli {
    /// Uses the given executable (e.g. from `PROBITY_GIT`). A bare name
    /// is looked up in `PATH`'s absolute directories once, here
    /// (`program.rs`, D-R153).
    pub fn with_executable(exe: impl Into<OsString>) -> Self {
        Self {
            exe: crate::program::resolve(exe.into()),
            kept: Vec::new(),
            sheltered: false,
        }
    }

    /// Keeps `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES`
    /// as the process received them (and nothing else of `GIT_*`): the
    /// server gate runs inside `pre-receive`, where the pushed objects are
    /// only readable through them. Used for that gate only.
    pub fn with_receive_quarantine(mut self) -> Self {
        self.keep(|k| QUARANTINE_ENV.contains(&k));
        self
    }

    /// Keeps git's configuration from the environment ([`is_config_env`]),
    /// for the server gate (`--gate pre-receive`) only: the receiving git
    /// read the repository with it (an administrator's `safe.directory`,
    /// `probity.protectedRefs`), and the gate must too; dropped, the gate
    /// saw another configuration than the server's, or no repository at
    /// all ("dubious ownership").
    pub fn with_receive_config(mut self) -> Self {
        self.keep(is_config_env);
        self
    }

    /// Keeps the user's transport settings ([`TRANSPORT_ENV`], `GIT_SSL_*`)
    /// as the process received them: for the commands that talk to a
    /// remote only (`push`, `fetch`, `ls-remote`), so that a push over ssh
    /// uses the user's ssh command and an HTTPS one their askpass. Never
    /// for an observation of the local repository.
    pub fn with_transport_env(mut self) -> Self {
        self.keep(is_transport_env);
        self
    }

    /// Starts git with SIGINT, SIGTERM, SIGHUP and SIGQUIT blocked
    /// ([`probity_scratch::registry::spawn_sheltered`]): for the short
    /// local commands that write a ref, so an interrupted run waits for
    /// them to finish instead of ending one between creating its lock file
    /// and installing git's own cleanup, which leaves the lock for good;
    /// and for `push` (D-R113), so a Ctrl-C waits for it. A path remote's
    /// `receive-pack`, in Probity's own process group, does not inherit
    /// the mask (git starts it through the shell, which unblocks every
    /// signal): the push shelters it by its `--receive-pack` (D-R124). An
    /// interrupted run waits at most [`probity_scratch::registry::CHILD_GRACE`]
    /// for a sheltered git before it kills it.
    pub fn sheltered(mut self) -> Self {
        self.sheltered = true;
        self
    }

    /// The executable started (`git`, or `PROBITY_GIT`'s value; a bare
    /// name as found in `PATH`, [`crate::program`]).
    pub(crate) fn exe(&self) -> &OsString {
        &self.exe
    }

    /// Whether git is started with any variable of the caller's kept
    /// (configuration, the object directories, transport settings): then
    /// git may not read the repository as a plain discovery would.
    pub(crate) fn keeps_any_env(&self) -> bool {
        !self.kept.is_empty()
    }

    /// Whether any `GIT_*` configuration variable is kept
    /// ([`GitCli::with_receive_config`] kept some).
    pub(crate) fn keeps_config_env(&self) -> bool {
        self.kept
            .iter()
            .any(|(k, _)| k.to_str().is_some_and(is_config_env))
    }

    /// Adds the variables of the live environment whose name `which`
    /// accepts to the kept ones (once each).
    fn keep(&mut self, which: impl Fn(&str) -> bool) {
        for (k, v) in std::env::vars_os() {
            let Some(name) = k.to_str() else { continue };
            if which(name) && !self.kept.iter().any(|(have, _)| *have == k) {
                self.kept.push((k, v));
            }
        }
    }

    /// Spawns `cmd` (made by [`GitCli::command`]) registered with
    /// probity-scratch, so it is stopped first if Probity is interrupted;
    /// a git that cannot start is [`GitError::Spawn`] naming this
    /// executable.
    pub(crate) fn spawn_registered(
        &self,
        cmd: &mut Command,
    ) -> Result<(std::process::Child, probity_scratch::registry::Registered), GitError> {
        probity_scratch::registry::spawn(cmd, false).map_err(|source| GitError::Spawn {
            exe: self.exe.to_string_lossy().into_owned(),
            source,
        })
    }

    /// Builds a command with the hermetic environment, in `cwd`.
    pub fn command(&self, cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.exe);
        // Start from an empty environment and copy one snapshot of the
        // caller's, minus GIT_*. Removing keys one by one would race with a
        // variable set between the scan and the spawn: the child inherits the
        // live environment except the removed keys.
        cmd.env_clear();
        cmd.envs(std::env::vars_os().filter(|(k, _)| !is_git_env(k)));
        cmd.current_dir(cwd)
            .env("LC_ALL", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            // Grafts rewrite history as replace refs do: never follow them.
            .env("GIT_GRAFT_FILE", "/dev/null")
            .env("GIT_PAGER", "cat")
            // Pointing the graft file at /dev/null makes git advise against
            // grafts on every command; that advice is not the user's.
            // A configured fsmonitor is a program the repository names,
            // and trusting it could leave an edit out of a candidate:
            // never asked.
            .args([
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.quotePath=false",
                "-c",
                "color.ui=false",
                "-c",
                "advice.graftFileDeprecated=false",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.kept {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs git with `args` in `cwd`, returning stdout. A non-zero exit is a
    /// [`GitError::Failed`].
    pub fn run<I, S>(&self, cwd: &Path, args: I) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_with(cwd, args, &[], None)
    }

    /// Runs git with extra environment variables and optional stdin bytes.
    pub fn run_with<I, S>(
        &self,
        cwd: &Path,
        args: I,
        env: &[(&str, &OsStr)],
        stdin: Option<&[u8]>,
    ) -> Result<Vec<u8>, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = self.output(cwd, &args, env, stdin)?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(failed(&args, &out))
        }
    }

    /// [`GitCli::run_with`] with at most `cap` bytes of stdout kept: `None`
    /// when git writes more (it is stopped then, never read on), so a
    /// listing an adversary can make long costs bounded memory. Stderr is
    /// not kept.
    pub fn run_capped(
        &self,
        cwd: &Path,
        args: &[&str],
        stdin: Option<&[u8]>,
        cap: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        use std::io::Read;
        let mut cmd = self.command(cwd);
        cmd.args(args).stderr(Stdio::null());
        if stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let (mut child, _running) = self.spawn_registered(&mut cmd)?;
        let input = child.stdin.take();
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        let read = std::thread::scope(|s| {
            // Written from a scoped thread so a large output cannot
            // deadlock against a large input; a broken pipe means git
            // stopped reading early, and its exit status tells.
            if let (Some(mut pipe), Some(bytes)) = (input, stdin) {
                s.spawn(move || {
                    let _ = pipe.write_all(bytes);
                });
            }
            let mut out = Vec::new();
            let mut buf = vec![0u8; 64 * 1024];
            let read = loop {
                match stdout.read(&mut buf) {
                    Ok(0) => break Ok(Some(out)),
                    Ok(n) if out.len() + n > cap => break Ok(None),
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            if !matches!(read, Ok(Some(_))) {
                // Over the cap, or unreadable: stop git rather than read
                // on (which also ends the writer, before the scope waits
                // for it).
                let _ = child.kill();
            }
            read
        });
        drop(stdout);
        let Some(out) = read.map_err(|e| {
            let _ = child.wait();
            GitError::from(e)
        })?
        else {
            let _ = child.wait();
            return Ok(None);
        };
        let status = child.wait()?;
        if !status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                status: status.to_string(),
                stderr: String::new(),
            });
        }
        Ok(Some(out))
    }

    /// Runs git and returns the raw output whatever the exit status (for
    /// commands whose exit code carries an answer, e.g. `diff --quiet`).
    pub fn output(
        &self,
        cwd: &Path,
        args: &[OsString],
        env: &[(&str, &OsStr)],
        stdin: Option<&[u8]>,
    ) -> Result<std::process::Output, GitError> {
        let mut cmd = self.command(cwd);
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        if stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        // Stopped first if Probity is interrupted (see probity-scratch).
        let spawned = if self.sheltered {
            probity_scratch::registry::spawn_sheltered(&mut cmd)
        } else {
            probity_scratch::registry::spawn(&mut cmd, false)
        };
        let (mut child, _running) = spawned.map_err(|source| GitError::Spawn {
            exe: self.exe.to_string_lossy().into_owned(),
            source,
        })?;
        if let Some(input) = stdin {
            // Write stdin from a scoped thread so a large output cannot
            // deadlock against a large input.
            let mut pipe = child
                .stdin
                .take()
                .ok_or_else(|| GitError::Io(std::io::Error::other("git stdin was not captured")))?;
            let out = std::thread::scope(|s| {
                let writer = s.spawn(move || pipe.write_all(input));
                let out = child.wait_with_output();
                let wrote = writer
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("stdin writer panicked")));
                (out, wrote)
            });
            let (out, wrote) = out;
            let out = out?;
            // A broken pipe means git stopped reading early; its exit status
            // tells the real story.
            if let Err(e) = wrote
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                return Err(GitError::Io(e));
            }
            Ok(out)
        } else {
            Ok(child.wait_with_output()?)
        }
    }

    /// Runs git and returns its output whatever the exit status, copying
    /// its stderr to `stderr` as it arrives (a push's progress and the
    /// `remote:` lines a server's hook prints reach the user while git
    /// runs) as well as capturing it.
    pub fn output_streaming(
        &self,
        cwd: &Path,
        args: &[OsString],
        env: &[(&str, &OsStr)],
        stderr: &mut (dyn Write + Send),
    ) -> Result<std::process::Output, GitError> {
        use std::io::Read;
        let mut cmd = self.command(cwd);
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Stopped first if Probity is interrupted (see probity-scratch);
        // sheltered when asked ([`GitCli::sheltered`]).
        let (mut child, _running) = if self.sheltered {
            probity_scratch::registry::spawn_sheltered(&mut cmd).map_err(|source| {
                GitError::Spawn {
                    exe: self.exe.to_string_lossy().into_owned(),
                    source,
                }
            })?
        } else {
            self.spawn_registered(&mut cmd)?
        };
        let mut err_pipe = child
            .stderr
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stderr was not captured")))?;
        let mut out_pipe = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        let (stdout, captured) = std::thread::scope(|s| {
            let reader = s.spawn(move || {
                let mut out = Vec::new();
                out_pipe.read_to_end(&mut out).map(|_| out)
            });
            let mut captured = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match err_pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        captured.extend_from_slice(&buf[..n]);
                        // The user's terminal going away does not stop the
                        // push; the capture still holds everything.
                        let _ = stderr.write_all(&buf[..n]);
                        let _ = stderr.flush();
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let stdout = reader
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("stdout reader panicked")));
            (stdout, captured)
        });
        let status = child.wait()?;
        Ok(std::process::Output {
            status,
            stdout: stdout?,
            stderr: captured,
        })
    }

    /// Sizes of objects through one `git cat-file --batch-check`: the
    /// headers only, no content is read.
    pub fn batch_sizes(&self, cwd: &Path, ids: &[&str]) -> Result<Vec<u64>, GitError> {
        const ARGS: &str = "cat-file --batch-check";
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let input = cat_file_input(ARGS, None, ids)?;
        let out = self.run_with(
            cwd,
            ["cat-file", "--batch-check=%(objectsize)"],
            &[],
            Some(&input),
        )?;
        let text = std::str::from_utf8(&out).map_err(|_| GitError::Parse {
            args: ARGS.into(),
            detail: "non-UTF-8 output".into(),
        })?;
        let sizes = text
            .lines()
            .map(|l| {
                l.trim().parse::<u64>().map_err(|_| GitError::Parse {
                    args: ARGS.into(),
                    detail: format!("bad size line `{l}`"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if sizes.len() != ids.len() {
            return Err(GitError::Parse {
                args: ARGS.into(),
                detail: format!("{} sizes for {} objects", sizes.len(), ids.len()),
            });
        }
        Ok(sizes)
    }

    /// Runs `git cat-file --batch` over `ids` and returns, for each, at most
    /// `cap` leading bytes and whether they are the whole object. Output is
    /// streamed: an object larger than `cap` is read past, never held in
    /// memory.
    pub fn batch_heads(
        &self,
        cwd: &Path,
        ids: &[&str],
        cap: usize,
    ) -> Result<Vec<(Vec<u8>, bool)>, GitError> {
        use std::io::{BufRead, BufReader, Read};
        const ARGS: &str = "cat-file --batch";
        let parse = |detail: String| GitError::Parse {
            args: ARGS.into(),
            detail,
        };
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let input = cat_file_input(ARGS, None, ids)?;
        let mut cmd = self.command(cwd);
        cmd.args(["cat-file", "--batch"]).stdin(Stdio::piped());
        // Stopped first if Probity is interrupted (see probity-scratch).
        let (mut child, _running) = self.spawn_registered(&mut cmd)?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdin was not captured")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        let result = std::thread::scope(|s| {
            let writer = s.spawn(move || stdin.write_all(&input));
            let mut reader = BufReader::new(stdout);
            let mut heads = Vec::with_capacity(ids.len());
            let mut read_all = || -> Result<(), GitError> {
                for _ in ids {
                    let mut header = Vec::new();
                    reader.read_until(b'\n', &mut header)?;
                    let text = String::from_utf8_lossy(&header).trim_end().to_string();
                    let size: u64 = text
                        .rsplit(' ')
                        .next()
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| parse(format!("bad header `{text}`")))?;
                    let keep = size.min(cap as u64);
                    let mut head = Vec::with_capacity(keep as usize);
                    (&mut reader).take(keep).read_to_end(&mut head)?;
                    let skipped =
                        std::io::copy(&mut (&mut reader).take(size - keep), &mut std::io::sink())?;
                    let mut lf = [0u8; 1];
                    reader.read_exact(&mut lf)?;
                    if head.len() as u64 != keep || skipped != size - keep || lf[0] != b'\n' {
                        return Err(parse("truncated object".into()));
                    }
                    heads.push((head, keep == size));
                }
                Ok(())
            };
            let read = read_all();
            // Close our end of stdout first: if reading stopped early, git
            // gets EPIPE and exits, which unblocks the stdin writer.
            drop(reader);
            let wrote = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("stdin writer panicked")));
            (read.map(|()| heads), wrote)
        });
        let status = child.wait()?;
        let (heads, wrote) = result;
        if !status.success() {
            let mut stderr = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
            }
            return Err(GitError::Failed {
                args: ARGS.into(),
                status: status.to_string(),
                stderr: stderr.trim().to_string(),
            });
        }
        if let Err(e) = wrote
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(GitError::Io(e));
        }
        heads
    }

    /// The version triple reported by `git version`.
    pub fn version(&self) -> Result<(u32, u32, u32), GitError> {
        let out = self.run(Path::new("."), ["version"])?;
        let text = String::from_utf8_lossy(&out);
        parse_version(&text).ok_or_else(|| GitError::Parse {
            args: "version".into(),
            detail: text.trim().to_string(),
        })
    }

    /// Fails with [`GitError::TooOld`] below [`MIN_GIT_VERSION`].
    pub fn ensure_supported(&self) -> Result<(), GitError> {
        let (major, minor, patch) = self.version()?;
        if (major, minor) < MIN_GIT_VERSION {
            return Err(GitError::TooOld {
                found: format!("{major}.{minor}.{patch}"),
            });
        }
        Ok(())
    }
}

pub(crate) fn failed(args: &[OsString], out: &std::process::Output) -> GitError {
    GitError::Failed {
        args: args
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
        status: out.status.to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    }
}

/// Parses `git version 2.47.3` (and vendor suffixes such as `.windows.1`).
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let v = text.trim().strip_prefix("git version ")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// Splits NUL-terminated output into records (the last may lack its NUL).
pub fn split_z(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.split(|b| *b == 0).filter(|s| !s.is_empty())
}

/// Interprets a git path (bytes) as a file-system path.
pub fn path_from_bytes(root: &Path, rel: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        root.join(OsStr::from_bytes(rel))
    }
    #[cfg(not(unix))]
    {
        root.join(String::from_utf8_lossy(rel).as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cat_file_input_is_one_name_a_line_and_refuses_a_newline() {
        let a = "8ab686eafeb1f44702738c8b0f24f2567c36da6d";
        let b = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
        assert_eq!(
            cat_file_input("cat-file --batch-check", None, &[a, b]).unwrap(),
            format!("{a}\n{b}\n").into_bytes()
        );
        assert_eq!(
            cat_file_input("cat-file --batch-command", Some("info"), &[a]).unwrap(),
            format!("info {a}\n").into_bytes()
        );
        assert!(
            cat_file_input::<&str>("cat-file --batch", None, &[])
                .unwrap()
                .is_empty()
        );
        // A newline would split one name into two requests and misalign
        // every answer after it.
        match cat_file_input("cat-file --batch", None, &[a, "HEAD:a\nb"]) {
            Err(GitError::Parse { args, detail }) => {
                assert_eq!(args, "cat-file --batch");
                assert_eq!(detail, "an object name holding a newline");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn paths_are_escaped_losslessly() {
        assert_eq!(escape_path(b"src/a.rs"), "src/a.rs");
        assert_eq!(escape_path(b"notes-\xff.txt"), r"notes-\xff.txt");
        // Every byte of an invalid sequence, valid text around it kept.
        assert_eq!(escape_path(b"\xe2\x82-\xc3\xa9"), "\\xe2\\x82-\u{e9}");
        assert_ne!(escape_path(b"a\xfe"), escape_path(b"a\xff"));
    }

    #[test]
    fn parses_versions() {
        assert_eq!(parse_version("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(
            parse_version("git version 2.41.0.windows.1"),
            Some((2, 41, 0))
        );
        assert_eq!(parse_version("git version 3.0"), Some((3, 0, 0)));
        assert_eq!(parse_version("hg 1.0"), None);
    }

    #[test]
    fn git_env_is_recognised() {
        assert!(is_git_env(OsStr::new("GIT_DIR")));
        assert!(is_git_env(OsStr::new("GIT_INDEX_FILE")));
        for k in [
            "GIT_WORK_TREE",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_CONFIG_VALUE_0",
            "GIT_CONFIG_PARAMETERS",
            "GIT_NAMESPACE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        ] {
            assert!(is_git_env(OsStr::new(k)), "{k}");
        }
        assert!(!is_git_env(OsStr::new("HOME")));
        // Where git finds its own programs (see `is_git_env`): kept.
        assert!(!is_git_env(OsStr::new("GIT_EXEC_PATH")));
        // The identity CI names the person by: kept (it signs notes
        // commits); the dates are not identity.
        for k in [
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
        ] {
            assert!(!is_git_env(OsStr::new(k)), "{k}");
        }
        assert!(is_git_env(OsStr::new("GIT_AUTHOR_DATE")));
        // Cleared by default, kept only by an explicit opt-in.
        for k in ["GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_SSL_CAINFO"] {
            assert!(is_git_env(OsStr::new(k)), "{k}");
        }
    }

    #[test]
    fn the_opt_in_sets_are_exactly_what_they_name() {
        // Each row: names, then whether each is a transport setting and
        // whether it is a configuration setting (`None`: not asked).
        let rows: [(&[&str], Option<bool>, Option<bool>); 4] = [
            (
                &[
                    "GIT_SSH_COMMAND",
                    "GIT_SSH",
                    "GIT_SSH_VARIANT",
                    "GIT_ASKPASS",
                    "GIT_PROXY_COMMAND",
                    "GIT_SSL_NO_VERIFY",
                    "GIT_SSL_CAINFO",
                ],
                Some(true),
                Some(false),
            ),
            (
                &[
                    "GIT_DIR",
                    "GIT_CONFIG_COUNT",
                    "GIT_CONFIG_GLOBAL",
                    "GIT_NAMESPACE",
                    "GIT_EXEC_PATH",
                    "GIT_TERMINAL_PROMPT",
                ],
                Some(false),
                None,
            ),
            (
                &[
                    "GIT_CONFIG_COUNT",
                    "GIT_CONFIG_KEY_0",
                    "GIT_CONFIG_VALUE_12",
                    "GIT_CONFIG_PARAMETERS",
                ],
                None,
                Some(true),
            ),
            // Another configuration file is not the receiving git's
            // settings.
            (
                &[
                    "GIT_CONFIG",
                    "GIT_CONFIG_GLOBAL",
                    "GIT_CONFIG_SYSTEM",
                    "GIT_CONFIG_NOSYSTEM",
                    "GIT_CONFIG_KEY_",
                    "GIT_CONFIG_KEY_x",
                ],
                None,
                Some(false),
            ),
        ];
        for (names, transport, config) in rows {
            for k in names {
                if let Some(t) = transport {
                    assert_eq!(is_transport_env(k), t, "{k}");
                }
                if let Some(c) = config {
                    assert_eq!(is_config_env(k), c, "{k}");
                }
            }
        }
    }
}
