//! SSH signatures through `ssh-keygen -Y` (OpenSSH 8.2+ for `sign`/`verify`,
//! 8.9+ for `find-principals`/`check-novalidate` as used here), and the
//! signing configuration from Git.
//!
//! Argument arrays only, never a shell; a cleared environment (only `PATH`,
//! `HOME` and `SSH_AUTH_SOCK` pass, so an agent-held key signs); every run
//! has a timeout and is killed past it (its process group, by `kill` with a
//! cleared environment and a fixed `PATH`); every signature (and a literal
//! key) is handed to `ssh-keygen` in a scratch file under an owner lock
//! (`probity_scratch`), removed when the run ends however it ends: by its
//! guard, by the interrupt handler, or by the next run's scavenging pass.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use probity_core::review::{NAMESPACE, SshSig};
use probity_ports::review::{
    AdapterError, AllowedSignersError, SignatureError, SignaturePolicy, SigningKeyError,
    SshSignatures,
};
use probity_scratch::Scratch;

use crate::{GitError, Repo};

/// How long signing may take (an agent may ask its holder to confirm).
pub const SIGN_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one verification step may take.
pub const VERIFY_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest allowed-signers file read (`--allowed-signers`,
/// `probity.allowedSignersFile`): 1 MiB, thousands of keys.
pub const MAX_ALLOWED_SIGNERS_BYTES: u64 = 1 << 20;
/// The largest signing key file handed to `ssh-keygen` (`probity.signingKey`,
/// `user.signingKey`): 64 KiB, several times an RSA-16384 private key.
pub const MAX_SIGNING_KEY_BYTES: u64 = 64 * 1024;
/// The most output read from one `ssh-keygen` run.
const MAX_OUTPUT: usize = 64 * 1024;

/// A failure to run `ssh-keygen`.
#[derive(Debug, thiserror::Error)]
pub enum SshKeygenError {
    /// The `ssh-keygen` executable could not be started (not installed, a
    /// wrong `PROBITY_SSH_KEYGEN`).
    #[error(
        "could not run {exe}: {source}; install OpenSSH 8.9 or newer, or set PROBITY_SSH_KEYGEN"
    )]
    Spawn {
        /// The executable tried, lossily as text.
        exe: String,
        /// Why the spawn failed.
        #[source]
        source: std::io::Error,
    },
    /// A run outlived its deadline ([`SIGN_TIMEOUT`], [`VERIFY_TIMEOUT`] or
    /// the configured ones); its process group was killed.
    #[error("{args} timed out after {secs} s")]
    Timeout {
        /// The command line, `ssh-keygen` and its arguments space-joined.
        args: String,
        /// The deadline in whole seconds.
        secs: u64,
    },
    /// `ssh-keygen` exited unsuccessfully where the answer needed success
    /// (signing, finding principals).
    #[error("{args} failed ({status}): {stderr}")]
    Failed {
        /// The `ssh-keygen` mode, e.g. `-Y sign`.
        args: String,
        /// The exit status as displayed (an exit code or a signal).
        status: String,
        /// Its stderr, lossily as UTF-8, trimmed.
        stderr: String,
    },
    /// An I/O error on a temporary signature file, the child's pipes or
    /// while waiting for it.
    #[error("I/O error while running ssh-keygen: {0}")]
    Io(#[from] std::io::Error),
}

/// The signing key as Git configuration names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SigningKey {
    /// A key file: a private key, or a public key whose private half an
    /// agent holds.
    Path(PathBuf),
    /// `key::<public key>` (git's literal form): the agent holds the key.
    Literal(String),
}

/// `ssh-keygen` as a [`SshSignatures`] port.
#[derive(Debug, Clone)]
pub struct SshKeygen {
    exe: OsString,
    key: Option<SigningKey>,
    /// Where temporary signature files go.
    tmp: PathBuf,
    sign_timeout: Duration,
    verify_timeout: Duration,
    /// The allowed-signers file as this verifier first read it, and its
    /// checked scratch copy: read once, then every `find-principals` and
    /// `verify` of the same path runs over that copy (issue 26 §7: once
    /// per push on the server gate, not once per envelope).
    /// (Clones share it.)
    allowed: std::sync::Arc<std::sync::Mutex<Option<AllowedCopy>>>,
}

/// An allowed-signers file read once: the path it was read from and the
/// scratch copy `ssh-keygen` is given.
#[derive(Debug)]
struct AllowedCopy {
    path: PathBuf,
    copy: std::sync::Arc<Scratch>,
    /// The bytes the copy holds, for the in-process pre-check.
    bytes: std::sync::Arc<Vec<u8>>,
}

impl SshKeygen {
    /// Runs `exe` (default `ssh-keygen`, or `PROBITY_SSH_KEYGEN`), signing
    /// with `key` (verification needs none); temporary files under `tmp`.
    pub fn new(exe: Option<OsString>, key: Option<SigningKey>, tmp: PathBuf) -> Self {
        Self {
            // A bare name is looked up in `PATH` once, so the spawn need
            // not copy the process ([`crate::program`]).
            exe: crate::program::resolve(exe.unwrap_or_else(|| OsString::from("ssh-keygen"))),
            key,
            tmp,
            sign_timeout: SIGN_TIMEOUT,
            verify_timeout: VERIFY_TIMEOUT,
            allowed: std::sync::Arc::new(std::sync::Mutex::new(None)),
        }
    }

    /// Other timeouts than [`SIGN_TIMEOUT`] and [`VERIFY_TIMEOUT`].
    pub fn with_timeouts(mut self, sign: Duration, verify: Duration) -> Self {
        self.sign_timeout = sign;
        self.verify_timeout = verify;
        self
    }

    /// For a repository: the key from its configuration, temporary files in
    /// its git common dir.
    pub fn for_repo(repo: &Repo) -> Result<Self, GitError> {
        let key = signing_key(repo)?;
        Ok(Self::new(
            std::env::var_os("PROBITY_SSH_KEYGEN").filter(|v| !v.is_empty()),
            key,
            repo.common_dir().to_path_buf(),
        ))
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.env_clear();
        for k in ["PATH", "HOME", "SSH_AUTH_SOCK"] {
            if let Some(v) = std::env::var_os(k) {
                cmd.env(k, v);
            }
        }
        cmd.env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs `ssh-keygen args` with `input` on stdin, under `timeout`.
    fn run(
        &self,
        args: &[&std::ffi::OsStr],
        input: &[u8],
        timeout: Duration,
    ) -> Result<(std::process::ExitStatus, Vec<u8>, Vec<u8>), SshKeygenError> {
        let shown = format!(
            "ssh-keygen {}",
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut cmd = self.command();
        // Its own process group, so a timeout ends whatever it started
        // (an `ssh-sk-helper`, a wrapper's children), not only the leader.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.args(args);
        let (mut child, _running) =
            probity_scratch::registry::spawn(&mut cmd, true).map_err(|source| {
                SshKeygenError::Spawn {
                    exe: self.exe.to_string_lossy().into_owned(),
                    source,
                }
            })?;
        // Owned threads reporting through channels: a descendant that keeps
        // a pipe open past the deadline cannot hold this call.
        let (tx_in, rx_in) = std::sync::mpsc::channel();
        let (tx_out, rx_out) = std::sync::mpsc::channel();
        let (tx_err, rx_err) = std::sync::mpsc::channel();
        let mut stdin = child.stdin.take();
        let data = input.to_vec();
        let writer = std::thread::spawn(move || {
            // Dropping the pipe after writing closes ssh-keygen's stdin.
            let r = stdin.as_mut().map_or(Ok(()), |p| p.write_all(&data));
            let _ = tx_in.send(r);
        });
        let mut stdout = child.stdout.take();
        let out_reader = std::thread::spawn(move || {
            let _ = tx_out.send(read_bounded(stdout.as_mut()));
        });
        let mut stderr = child.stderr.take();
        let err_reader = std::thread::spawn(move || {
            let _ = tx_err.send(read_bounded(stderr.as_mut()));
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break st,
                Ok(None) if start.elapsed() >= timeout => {
                    kill_group(&mut child);
                    return Err(SshKeygenError::Timeout {
                        args: shown,
                        secs: timeout.as_secs(),
                    });
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    kill_group(&mut child);
                    return Err(SshKeygenError::Io(e));
                }
            }
        };
        // The leader exited; its output ends now unless a descendant holds
        // the pipes, which the same deadline bounds.
        let left = timeout.saturating_sub(start.elapsed()) + Duration::from_secs(1);
        let (out, err) = match (rx_out.recv_timeout(left), rx_err.recv_timeout(left)) {
            (Ok(o), Ok(e)) => (o, e),
            _ => {
                kill_group(&mut child);
                return Err(SshKeygenError::Timeout {
                    args: shown,
                    secs: timeout.as_secs(),
                });
            }
        };
        // A thread that has sent its answer only returns: joined, so none
        // outlives the call. One still blocked (a descendant holding a
        // pipe) is left to end with that descendant, never waited for.
        let _ = out_reader.join();
        let _ = err_reader.join();
        let written = rx_in.recv_timeout(Duration::from_secs(1));
        if written.is_ok() {
            let _ = writer.join();
        }
        if let Ok(Err(e)) = written
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(SshKeygenError::Io(e));
        }
        Ok((status, out, err))
    }

    /// Writes the armored signature to a scratch file (`probity-sig-*` in
    /// the git common dir, else in the temporary directory).
    fn sig_file(&self, sig: &SshSig) -> Result<Scratch, SshKeygenError> {
        let armored = sig.armored();
        Ok(scratch_file(&self.tmp, SIG_PREFIX, armored.as_bytes())
            .or_else(|_| scratch_file(&std::env::temp_dir(), SIG_PREFIX, armored.as_bytes()))?)
    }

    /// Runs `ssh-keygen -Y <op> <before…> -s <signature file> <after…>` on
    /// `input` within the verify timeout, the signature written to a
    /// scratch file for the run.
    fn run_with_sig(
        &self,
        op: &str,
        before: &[&std::ffi::OsStr],
        signature: &SshSig,
        after: &[&std::ffi::OsStr],
        input: &[u8],
    ) -> Result<(std::process::ExitStatus, Vec<u8>, Vec<u8>), SshKeygenError> {
        let f = self.sig_file(signature)?;
        let mut args: Vec<&std::ffi::OsStr> = vec!["-Y".as_ref(), op.as_ref()];
        args.extend_from_slice(before);
        args.extend(["-s".as_ref(), f.path().as_os_str()]);
        args.extend_from_slice(after);
        self.run(&args, input, self.verify_timeout)
    }

    /// The allowed-signers file as it was checked, in a private scratch
    /// copy (`probity-allowed-*`) that `ssh-keygen` reads: the user's path
    /// is opened once, by the bounded reader, so it cannot be swapped for a
    /// FIFO or a device between the check and the run.
    /// Read once per verifier and path: later calls take the same copy.
    fn allowed_copy(
        &self,
        allowed_signers: &Path,
    ) -> Result<std::sync::Arc<Scratch>, AdapterError> {
        Ok(self.allowed(allowed_signers)?.0)
    }

    /// [`Self::allowed_copy`] and the bytes it holds.
    fn allowed(
        &self,
        allowed_signers: &Path,
    ) -> Result<(std::sync::Arc<Scratch>, std::sync::Arc<Vec<u8>>), AdapterError> {
        let mut cached = self
            .allowed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(c) = cached.as_ref().filter(|c| c.path == allowed_signers) {
            return Ok((c.copy.clone(), c.bytes.clone()));
        }
        let bytes = usable_allowed_signers(allowed_signers)?;
        let copy = std::sync::Arc::new(
            scratch_file(&self.tmp, ALLOWED_PREFIX, &bytes)
                .or_else(|_| scratch_file(&std::env::temp_dir(), ALLOWED_PREFIX, &bytes))
                .map_err(SshKeygenError::from)?,
        );
        let bytes = std::sync::Arc::new(bytes);
        *cached = Some(AllowedCopy {
            path: allowed_signers.to_path_buf(),
            copy: copy.clone(),
            bytes: bytes.clone(),
        });
        Ok((copy, bytes))
    }
}

/// The scratch files handed to `ssh-keygen`: a signature to check, a
/// literal signing key's public half, and the checked copy of an
/// allowed-signers file.
const SIG_PREFIX: &str = "probity-sig-";
const KEY_PREFIX: &str = "probity-key-";
const ALLOWED_PREFIX: &str = "probity-allowed-";

/// A scratch file `<dir>/<prefix><random>` holding `bytes` (mode 0600),
/// under an owner lock: removed when the guard drops, by a run that
/// SIGINT, SIGTERM or SIGHUP interrupts, or, after a SIGKILL, by the next
/// run that makes one of the kind (after the `ssh-keygen` that inherited
/// the lock ended too).
fn scratch_file(dir: &Path, prefix: &str, bytes: &[u8]) -> std::io::Result<Scratch> {
    let scratch = Scratch::reserve(dir, prefix)?;
    scratch.create_file(bytes, 0o600)?;
    Ok(scratch)
}

/// Kills the child's process group (it leads its own), then reaps it.
fn kill_group(child: &mut std::process::Child) {
    probity_scratch::registry::kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

fn read_bounded(pipe: Option<&mut impl Read>) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Some(p) = pipe {
        let _ = p.take(MAX_OUTPUT as u64).read_to_end(&mut buf);
        // Drain the rest so the child never blocks on a full pipe.
        let _ = std::io::copy(p, &mut std::io::sink());
    }
    buf
}

fn failed(args: &str, status: std::process::ExitStatus, stderr: &[u8]) -> SshKeygenError {
    SshKeygenError::Failed {
        args: args.into(),
        status: status.to_string(),
        stderr: String::from_utf8_lossy(stderr).trim().to_string(),
    }
}

/// Reads the file at `$path` through the shared bounded reader, at most
/// `$limit` bytes, its refusal as the variant of the key-file error `$E`
/// (both have the same four): a missing file is `NotFound`, a FIFO,
/// directory or device `NotRegular` (never opened for reading), one over
/// the bound `TooLarge`, any other failure `Unreadable`.
macro_rules! read_key_file {
    ($E:ident, $path:expr, $limit:expr) => {{
        use probity_scratch::input::{InputError, read_regular};
        let path: &Path = $path;
        let shown = path.display().to_string();
        read_regular(path, $limit).map_err(|e| match e {
            InputError::Unreadable(e) if e.kind() == std::io::ErrorKind::NotFound => {
                $E::NotFound { path: shown }
            }
            InputError::NotRegular => $E::NotRegular { path: shown },
            InputError::TooLarge { limit } => $E::TooLarge { path: shown, limit },
            InputError::Unreadable(e) => $E::Unreadable {
                path: shown,
                reason: e.to_string(),
            },
        })
    }};
}

/// Reads the allowed-signers file through the shared bounded reader: its
/// bytes from a regular file of at most [`MAX_ALLOWED_SIGNERS_BYTES`], or a
/// typed refusal (a FIFO is never opened for reading, a device never read).
fn usable_allowed_signers(path: &Path) -> Result<Vec<u8>, AllowedSignersError> {
    read_key_file!(AllowedSignersError, path, MAX_ALLOWED_SIGNERS_BYTES)
}

/// Checks a signing key file before `ssh-keygen` is handed its path: a
/// regular file of at most [`MAX_SIGNING_KEY_BYTES`], read whole through
/// the shared bounded reader (a FIFO is never opened for reading, a device
/// never read, a huge file never read past the bound). The `.pub` file
/// beside it, which `ssh-keygen` may read for a private key's public half,
/// is held to the same rule when it exists. The key's bytes are not copied
/// anywhere: `ssh-keygen` reads the path itself (its deadline still bounds
/// a file swapped after this check).
pub fn check_signing_key(path: &Path) -> Result<(), SigningKeyError> {
    let check = |p: &Path| read_key_file!(SigningKeyError, p, MAX_SIGNING_KEY_BYTES).map(drop);
    check(path)?;
    let mut public = path.as_os_str().to_owned();
    public.push(".pub");
    let public = PathBuf::from(public);
    if std::fs::symlink_metadata(&public).is_ok() {
        check(&public)?;
    }
    Ok(())
}

impl SshSignatures for SshKeygen {
    fn check_allowed_signers(&self, allowed_signers: &Path) -> Result<(), AllowedSignersError> {
        // The check reads the file for the runs after it (one read per
        // verifier); a copy that cannot be written is left to the first run
        // to report.
        match self.allowed_copy(allowed_signers) {
            Ok(_) => Ok(()),
            Err(e) => match e.downcast::<AllowedSignersError>() {
                Ok(e) => Err(*e),
                Err(_) => usable_allowed_signers(allowed_signers).map(drop),
            },
        }
    }

    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, AdapterError> {
        let key = self
            .key
            .as_ref()
            .ok_or_else(|| Box::new(NoKey) as AdapterError)?;
        // A literal key is written to a scratch public-key file: the agent
        // holds its private half.
        let mut literal = None;
        let path = match key {
            SigningKey::Path(p) => {
                check_signing_key(p).map_err(|e| Box::new(e) as AdapterError)?;
                p.clone()
            }
            SigningKey::Literal(k) => {
                let f = scratch_file(&self.tmp, KEY_PREFIX, format!("{k}\n").as_bytes())?;
                let p = f.path().to_path_buf();
                literal = Some(f);
                p
            }
        };
        let args: [&std::ffi::OsStr; 7] = [
            "-Y".as_ref(),
            "sign".as_ref(),
            "-n".as_ref(),
            NAMESPACE.as_ref(),
            "-f".as_ref(),
            path.as_os_str(),
            "-q".as_ref(),
        ];
        let (status, out, err) = self.run(&args, message, self.sign_timeout)?;
        drop(literal);
        if !status.success() {
            return Err(Box::new(failed("-Y sign", status, &err)));
        }
        Ok(out)
    }

    fn check(&self, signature: &SshSig, message: &[u8]) -> Result<bool, AdapterError> {
        let namespace = ["-n".as_ref(), NAMESPACE.as_ref()];
        let (status, _, _) =
            self.run_with_sig("check-novalidate", &namespace, signature, &[], message)?;
        Ok(status.success())
    }

    fn may_list(&self, allowed_signers: &Path, signature: &SshSig) -> Result<bool, AdapterError> {
        let (_, bytes) = self.allowed(allowed_signers)?;
        Ok(probity_core::review::allowed_signers_may_list(
            &bytes,
            &signature.public_key,
        ))
    }

    fn find_principals(
        &self,
        allowed_signers: &Path,
        signature: &SshSig,
    ) -> Result<Vec<String>, AdapterError> {
        let allowed = self.allowed_copy(allowed_signers)?;
        let file = ["-f".as_ref(), allowed.path().as_os_str()];
        let (status, out, err) =
            self.run_with_sig("find-principals", &[], signature, &file, b"")?;
        if !status.success() {
            // ssh-keygen exits 255 both when no principal matches and on
            // errors; only the former is an answer.
            if String::from_utf8_lossy(&err).contains("No principal matched") {
                return Ok(Vec::new());
            }
            return Err(Box::new(failed("-Y find-principals", status, &err)));
        }
        // A principal that is not UTF-8 names no policy principal (a
        // policy is JSON): it is dropped, never read lossily into one that
        // could match another.
        Ok(out
            .split(|b| *b == b'\n')
            .filter_map(|l| std::str::from_utf8(l).ok())
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect())
    }

    fn verify(
        &self,
        allowed_signers: &Path,
        principal: &str,
        signature: &SshSig,
        message: &[u8],
    ) -> Result<bool, AdapterError> {
        let allowed = self.allowed_copy(allowed_signers)?;
        let before: [&std::ffi::OsStr; 6] = [
            "-f".as_ref(),
            allowed.path().as_os_str(),
            "-I".as_ref(),
            principal.as_ref(),
            "-n".as_ref(),
            NAMESPACE.as_ref(),
        ];
        let (status, _, _) = self.run_with_sig("verify", &before, signature, &[], message)?;
        Ok(status.success())
    }
}

/// Signing was asked with no key configured.
#[derive(Debug, thiserror::Error)]
#[error("no signing key is configured")]
pub struct NoKey;

/// Maps a [`SshSignatures::sign`] error to the use case's answer: a
/// missing key is [`SignatureError::NoSigningKey`], an unusable key file
/// [`SignatureError::SigningKey`].
pub fn classify_sign_error(e: SignatureError) -> SignatureError {
    match e {
        SignatureError::Tool(inner) if inner.is::<NoKey>() => SignatureError::NoSigningKey,
        SignatureError::Tool(inner) => match inner.downcast::<SigningKeyError>() {
            Ok(key) => SignatureError::SigningKey(*key),
            Err(inner) => SignatureError::Tool(inner),
        },
        other => other,
    }
}

/// The signing key: `probity.signingKey`, else `user.signingKey` when
/// `gpg.format` is `ssh`. A value starting `key::` is a literal public
/// key; otherwise a path (`~` expanded by Git, relative to the work tree's
/// root).
pub fn signing_key(repo: &Repo) -> Result<Option<SigningKey>, GitError> {
    let settings = repo.settings()?;
    let raw = match settings.get("probity.signingKey") {
        Some(v) if !v.is_empty() => Some(v),
        _ => {
            let ssh = settings
                .get("gpg.format")
                .is_some_and(|f| f.eq_ignore_ascii_case("ssh"));
            if ssh {
                settings.get("user.signingKey").filter(|v| !v.is_empty())
            } else {
                None
            }
        }
    };
    Ok(raw.map(|v| {
        if let Some(k) = v.strip_prefix("key::") {
            SigningKey::Literal(k.to_string())
        } else {
            SigningKey::Path(expand_path(repo, &v))
        }
    }))
}

fn expand_path(repo: &Repo, v: &str) -> PathBuf {
    if let Some(rest) = v.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    let p = PathBuf::from(v);
    if p.is_absolute() {
        p
    } else {
        repo.root().join(p)
    }
}

/// What a verifier accepts: `probity.requireSignature` (a boolean; default
/// false) and `probity.allowedSignersFile` (a path; `~` expanded, relative
/// to the work tree's root).
pub fn signature_policy(repo: &Repo) -> Result<SignaturePolicy, GitError> {
    let require = repo.setting_bool("probity.requireSignature")?;
    let allowed = repo
        .settings()?
        .get("probity.allowedSignersFile")
        .filter(|v| !v.is_empty())
        .map(|v| expand_path(repo, &v));
    Ok(SignaturePolicy {
        require_signature: require,
        allowed_signers: allowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::review::parse_sshsig;
    use probity_ports::review::sign_statement;

    /// A stand-in `ssh-keygen`: a shell script with the given body.
    fn fake(dir: &Path, body: &str) -> OsString {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join("fake-ssh-keygen");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.into_os_string()
    }

    /// `ssh-keygen` as a fake in `dir` whose body is `body`, with no key,
    /// its scratch files in `dir`.
    fn faked(dir: &Path, body: &str) -> SshKeygen {
        SshKeygen::new(Some(fake(dir, body)), None, dir.to_path_buf())
    }

    fn sig() -> SshSig {
        let mut key = Vec::new();
        for b in [b"ssh-ed25519".as_slice(), &[1u8; 32]] {
            key.extend_from_slice(&(b.len() as u32).to_be_bytes());
            key.extend_from_slice(b);
        }
        let mut blob = b"SSHSIG".to_vec();
        blob.extend_from_slice(&1u32.to_be_bytes());
        for b in [key.as_slice(), b"probity", b"", b"sha512", b"sig"] {
            blob.extend_from_slice(&(b.len() as u32).to_be_bytes());
            blob.extend_from_slice(b);
        }
        parse_sshsig(&blob).unwrap()
    }

    #[test]
    fn a_hung_ssh_keygen_is_killed_and_its_temporary_files_removed() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let k = SshKeygen::new(Some(fake(dir.path(), "sleep 30")), None, tmp.clone())
            .with_timeouts(Duration::from_millis(300), Duration::from_millis(300));
        let started = Instant::now();
        let e = k.check(&sig(), b"m").unwrap_err();
        assert!(e.to_string().contains("timed out"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn signer_output_that_is_not_a_signature_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        // A key file exists (the fake never reads it): the key is checked
        // before ssh-keygen runs.
        std::fs::write(dir.path().join("key"), b"key").unwrap();
        let key = SigningKey::Path(dir.path().join("key"));
        let k = SshKeygen::new(
            Some(fake(dir.path(), "cat >/dev/null; echo not-a-signature")),
            Some(key),
            dir.path().to_path_buf(),
        );
        let e = sign_statement(&k, b"{}").unwrap_err();
        assert_eq!(e.code(), "bad_signature_output");
        // No key at all is its own answer.
        let none = SshKeygen::new(None, None, dir.path().to_path_buf());
        let e = classify_sign_error(sign_statement(&none, b"{}").unwrap_err());
        assert_eq!(e.code(), "signing_key_missing");
        // A missing executable is an error, not an answer.
        let gone = SshKeygen::new(
            Some(dir.path().join("nope").into_os_string()),
            None,
            dir.path().to_path_buf(),
        );
        assert!(gone.check(&sig(), b"m").is_err());
    }

    #[test]
    fn find_principals_tells_no_match_from_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed_signers");
        std::fs::write(&allowed, "").unwrap();
        let none = faked(dir.path(), "echo 'No principal matched.' >&2; exit 255");
        assert_eq!(
            none.find_principals(&allowed, &sig()).unwrap(),
            Vec::<String>::new()
        );
        let broken = faked(dir.path(), "echo 'something else' >&2; exit 255");
        assert!(broken.find_principals(&allowed, &sig()).is_err());
        // An unreadable allowed-signers file is an error before any run.
        assert!(
            none.find_principals(&dir.path().join("missing"), &sig())
                .is_err()
        );
    }

    /// Found by the `allowed_signers` fuzz target (docs/reliability.md): a
    /// principal that is not UTF-8 (`ssh-keygen` prints the file's bytes
    /// as they are) was read lossily, so `bob\x89` came back as `bob\u{fffd}`
    /// and could match a policy principal written with U+FFFD. The fake
    /// prints exactly what `ssh-keygen -Y find-principals` printed for the
    /// fuzz target's crash input.
    #[test]
    fn a_principal_that_is_not_utf8_is_never_reported() {
        assert_eq!(
            principals_printed(r"printf '*@example.org\nbobM\211\264\222\333namafter=20240101\n'"),
            vec!["*@example.org".to_string()]
        );
    }

    /// What `find_principals` reports when `ssh-keygen` is a fake whose
    /// body is `script`.
    fn principals_printed(script: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed_signers");
        std::fs::write(&allowed, "").unwrap();
        let ssh = faked(dir.path(), script);
        ssh.find_principals(&allowed, &sig()).unwrap()
    }

    /// The other side of the test above (finding 4 of the fuzzing in
    /// docs/reliability.md, a defect of the target's own check): a
    /// principal written with a genuine U+FFFD is UTF-8 and is reported,
    /// whatever another line of the output holds.
    #[test]
    fn a_principal_written_with_a_replacement_character_is_reported() {
        assert_eq!(
            principals_printed(r"printf 'aliTEalice@ex\357\277\275le.org\nbob\352x\n'"),
            vec!["aliTEalice@ex\u{fffd}le.org".to_string()]
        );
    }

    /// Issue 26 §7: one verifier (the server gate makes one per push)
    /// reads the allowed-signers file once: every later `find-principals`
    /// and `verify` of the same path runs over that one checked copy, so
    /// the file is not read, copied and removed again per envelope (and
    /// cannot change between envelopes of one push).
    #[test]
    fn the_allowed_signers_file_is_read_once_per_verifier() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed_signers");
        std::fs::write(&allowed, "alice@example.invalid ssh-ed25519 AAAA\n").unwrap();
        // find-principals: `-Y find-principals -s SIG -f ALLOWED` ($6);
        // verify: `-Y verify -f ALLOWED ...` ($4).
        let k = faked(
            dir.path(),
            "if [ \"$2\" = find-principals ]; then cut -d' ' -f1 \"$6\"; else test -s \"$4\"; fi",
        );
        k.check_allowed_signers(&allowed).unwrap();
        std::fs::remove_file(&allowed).unwrap();
        for _ in 0..3 {
            assert_eq!(
                k.find_principals(&allowed, &sig()).unwrap(),
                ["alice@example.invalid"]
            );
            assert!(
                k.verify(&allowed, "alice@example.invalid", &sig(), b"m")
                    .unwrap()
            );
        }
        // Another verifier reads the path afresh.
        let other = SshKeygen::new(None, None, dir.path().to_path_buf());
        assert!(other.check_allowed_signers(&allowed).is_err());
    }

    /// The key file and the `.pub` beside it are held to the input rule
    /// before `ssh-keygen` is given the path.
    #[test]
    fn a_signing_key_is_a_bounded_regular_file_and_so_is_its_public_half() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("id");
        std::fs::write(&key, b"key bytes").unwrap();
        assert!(check_signing_key(&key).is_ok());
        let fifo = dir.path().join("id.pub");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        assert_eq!(
            check_signing_key(&key).unwrap_err().code(),
            "input_not_regular"
        );
        std::fs::remove_file(&fifo).unwrap();
        let big = dir.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_SIGNING_KEY_BYTES + 1)
            .unwrap();
        assert_eq!(
            check_signing_key(&big).unwrap_err().code(),
            "input_too_large"
        );
        assert_eq!(
            check_signing_key(&dir.path().join("none"))
                .unwrap_err()
                .code(),
            "signing_key_not_found"
        );
        assert_eq!(
            check_signing_key(Path::new("/dev/zero"))
                .unwrap_err()
                .code(),
            "input_not_regular"
        );
    }
}
