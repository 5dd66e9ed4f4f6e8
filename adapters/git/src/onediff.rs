//! A new `start`'s objects and its one diff (issue 24, D-R86).
//!
//! - [`Incoming`]: a quarantine object directory inside the repository's
//!   `objects/`, as git's own `tmp_objdir` for a push: `git add -A` and
//!   `git write-tree` write the candidate's new objects there
//!   (`GIT_OBJECT_DIRECTORY`, the repository's objects as an alternate),
//!   and they are moved into the object store only once the candidate
//!   passed the size limit. A refused file is hashed, but nothing of it is
//!   kept; this replaces a full work-tree scan before `git add`.
//! - [`OneDiff`]: the raw entries, the numstat and the frozen patch
//!   ([`DIFF_FLAGS`], [`EXPORT_CONFIG`], [`EXPORT_ENV`]) of a pair of trees
//!   from one `git diff-tree --raw --numstat -p`, in place of three runs, a
//!   `git init` of a throwaway repository and a `git --version`. It still
//!   runs in an empty git directory (made without a process,
//!   [`Repo::empty_git_dir`]): in the repository itself, `diff.default.*`
//!   settings reach every file without any attribute, and `-c` cannot
//!   unset them.

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use probity_core::review::export::{DIFF_FLAGS, EXPORT_CONFIG, EXPORT_ENV};
use probity_core::review::ids::TreeId;
use probity_core::review::snapshot::MAX_REVIEWED_FILE_BYTES;

use crate::cmd::GitError;
use crate::repo::Repo;
use crate::scratch::Scratch;

/// A quarantine for the objects of a new candidate (see the module).
pub(crate) struct Incoming {
    dir: Scratch,
    objects: PathBuf,
}

impl Incoming {
    /// Reserves the directory in the repository's `objects/` (so the move
    /// is a rename on one file system).
    pub(crate) fn new(repo: &Repo) -> Result<Self, GitError> {
        let objects = std::fs::canonicalize(repo.common_dir().join("objects"))?;
        let dir = Scratch::reserve(&objects, "probity-incoming-")?;
        dir.create_dir(0o700)?;
        Ok(Self { dir, objects })
    }

    /// The variables under which git writes into the quarantine and reads
    /// the repository's objects through it.
    pub(crate) fn env(&self) -> [(&'static str, &OsStr); 2] {
        [
            ("GIT_OBJECT_DIRECTORY", self.dir.path().as_os_str()),
            ("GIT_ALTERNATE_OBJECT_DIRECTORIES", self.objects.as_os_str()),
        ]
    }

    /// Moves every object into the repository's object store (loose objects
    /// by rename, a pack's index last so no pack is found before its data),
    /// then removes the quarantine. An object the store already holds is
    /// left where it is.
    pub(crate) fn migrate(self) -> Result<(), GitError> {
        let mode = std::fs::metadata(&self.objects)?.permissions();
        let mut later = Vec::new();
        for entry in std::fs::read_dir(self.dir.path())? {
            let entry = entry?;
            let name = entry.file_name();
            if !entry.file_type()?.is_dir() {
                continue;
            }
            let to_dir = self.objects.join(&name);
            let is_pack = name == "pack";
            let is_fanout = name.len() == 2
                && name
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
            if !is_pack && !is_fanout {
                continue;
            }
            for file in std::fs::read_dir(entry.path())? {
                let file = file?;
                let to = to_dir.join(file.file_name());
                if is_pack && file.file_name().to_string_lossy().ends_with(".idx") {
                    later.push((file.path(), to));
                    continue;
                }
                move_object(&file.path(), &to_dir, &to, &mode)?;
            }
        }
        for (from, to) in later {
            let dir = to.parent().map(Path::to_path_buf).unwrap_or_default();
            move_object(&from, &dir, &to, &mode)?;
        }
        drop(self.dir);
        Ok(())
    }
}

/// Renames `from` to `to`, making `dir` (with the object store's
/// permissions) first when needed; an existing `to` is kept.
fn move_object(
    from: &Path,
    dir: &Path,
    to: &Path,
    mode: &std::fs::Permissions,
) -> Result<(), GitError> {
    if std::fs::symlink_metadata(to).is_ok() {
        return Ok(());
    }
    match std::fs::create_dir(dir) {
        Ok(()) => std::fs::set_permissions(dir, mode.clone())?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.into()),
    }
    std::fs::rename(from, to)?;
    Ok(())
}

/// What one `diff-tree --raw --numstat -p` answered for a pair of trees.
#[derive(Debug, Clone)]
pub(crate) struct OneDiff {
    /// The raw entries, byte for byte what `diff-tree -r -z --raw
    /// --no-abbrev` prints (`:meta\0path\0` each).
    pub(crate) raw: Vec<u8>,
    /// The numstat rows (`added\tremoved\tpath\0` each); `-\t-` for a file
    /// git judged binary.
    pub(crate) numstat: Vec<u8>,
    /// The patch, or `None` when it is longer than the cap asked.
    pub(crate) patch: Option<Vec<u8>>,
}

/// Where the patch starts in a `-z --raw --numstat -p` output read so far:
/// raw entries (`:meta\0path\0`), numstat rows (`a\tr\tpath\0`), then an
/// empty record (git's separator) and the patch. Returns the ends of the
/// raw and numstat sections and the patch's start once the separator has
/// been read.
fn sections(out: &[u8]) -> Option<(usize, usize, usize)> {
    let mut at = 0usize;
    let mut raw_end = 0usize;
    let mut in_raw = true;
    loop {
        let rest = out.get(at..)?;
        let end = rest.iter().position(|b| *b == 0)?;
        let record = &rest[..end];
        if record.is_empty() {
            let numstat_end = at;
            if in_raw {
                raw_end = at;
            }
            return Some((raw_end, numstat_end, at + 1));
        }
        if in_raw && record[0] == b':' {
            // meta\0 path\0
            let path = rest[end + 1..].iter().position(|b| *b == 0)?;
            at += end + 1 + path + 1;
            continue;
        }
        if in_raw {
            in_raw = false;
            raw_end = at;
        }
        at += end + 1;
    }
}

impl Repo {
    /// The raw entries, numstat and frozen patch of `from` → `to` from one
    /// `git diff-tree` (see the module). The patch is the one
    /// [`Repo::frozen_diff`] derives, for every pair whose blobs are all
    /// within [`MAX_REVIEWED_FILE_BYTES`]: the run pins
    /// `core.bigFileThreshold` at that limit instead of git's 512 MiB (a
    /// larger file is then diffed as binary, by its size, never line by
    /// line), and such a pair is refused before its patch is used. It runs
    /// in an empty git directory ([`Repo::empty_git_dir`]) as
    /// [`Repo::frozen_diff`] does, reading the objects from `incoming` (the
    /// quarantine, the repository's objects behind it) or the repository.
    /// At most `cap + 1` bytes of patch are read; git's version is learnt
    /// from the run's trace2 `version` event.
    pub(crate) fn one_diff(
        &self,
        from: &TreeId,
        to: &TreeId,
        incoming: Option<&Incoming>,
        cap: u64,
    ) -> Result<OneDiff, GitError> {
        let empty = self.empty_tree()?;
        let mut args: Vec<OsString> = vec![format!("--attr-source={empty}").into()];
        for (k, v) in EXPORT_CONFIG.iter().copied() {
            let v = if k == "core.bigFileThreshold" {
                MAX_REVIEWED_FILE_BYTES.to_string()
            } else {
                v.to_string()
            };
            args.push("-c".into());
            args.push(format!("{k}={v}").into());
        }
        args.extend(["diff-tree".into(), "-r".into(), "-p".into()]);
        args.extend(DIFF_FLAGS.iter().map(OsString::from));
        args.extend(["-z", "--raw", "--numstat", "--no-abbrev"].map(OsString::from));
        args.push(from.as_str().into());
        args.push(to.as_str().into());

        // Its own git directory: no configuration of the repository's is
        // read (`diff.default.*` applies to every file without any
        // attribute, and `-c` cannot unset it) nor its `info/attributes`.
        let git_dir = self.empty_git_dir()?;
        let mut cmd = self.git().command(git_dir.path());
        cmd.env("GIT_DIR", git_dir.path());
        // git's own account of its version, from the run that makes the
        // patch (trace2's `version` event), in place of a `git --version`.
        let trace = git_dir.path().join("trace2.json");
        cmd.env("GIT_TRACE2_EVENT", &trace);
        let objects = std::fs::canonicalize(self.common_dir().join("objects"))?;
        match incoming {
            Some(q) => {
                cmd.envs(q.env());
            }
            None => {
                cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &objects);
            }
        }
        cmd.args(&args).envs(EXPORT_ENV).stderr(Stdio::null());
        let (mut child, _running) =
            probity_scratch::registry::spawn(&mut cmd, false).map_err(|source| {
                GitError::Spawn {
                    exe: "git".into(),
                    source,
                }
            })?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut over = false;
        let mut patch_start = None;
        loop {
            let n = match stdout.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(e.into());
                }
            };
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
            if patch_start.is_none() {
                patch_start = sections(&out).map(|(_, _, start)| start);
            }
            if let Some(start) = patch_start
                && (out.len() - start) as u64 > cap
            {
                over = true;
                break;
            }
        }
        drop(stdout);
        if over {
            // Over the budget: stop git rather than read on.
            let _ = child.kill();
            let _ = child.wait();
        } else {
            let status = child.wait()?;
            if !status.success() {
                return Err(GitError::Failed {
                    args: "diff-tree --raw --numstat -p".into(),
                    status: status.to_string(),
                    stderr: String::new(),
                });
            }
        }
        if let Some(version) = std::fs::read(&trace)
            .ok()
            .and_then(|t| version_of_trace(&t))
        {
            self.remember_version(version);
        }
        drop(git_dir);
        if out.is_empty() {
            // No difference: git prints nothing at all.
            return Ok(OneDiff {
                raw: Vec::new(),
                numstat: Vec::new(),
                patch: Some(Vec::new()),
            });
        }
        let (raw_end, numstat_end, start) = sections(&out).ok_or_else(|| GitError::Parse {
            args: "diff-tree --raw --numstat -p".into(),
            detail: "no separator before the patch".into(),
        })?;
        let patch = (!over).then(|| out[start..].to_vec());
        Ok(OneDiff {
            raw: out[..raw_end].to_vec(),
            numstat: out[raw_end..numstat_end].to_vec(),
            patch,
        })
    }

    /// A throwaway git directory of this repository's object format that
    /// holds nothing (made here, without a `git init`): a diff run in it
    /// with `GIT_DIR` pointing there and the repository's objects as an
    /// alternate reads none of the repository's configuration (local,
    /// worktree) nor its `info/attributes`. What git requires of a git
    /// directory: `HEAD`, `refs/`, `objects/`, and the configuration naming
    /// the format (what `git init --bare --template=` writes, less what
    /// no diff reads).
    pub(crate) fn empty_git_dir(&self) -> Result<Scratch, GitError> {
        let scratch = Scratch::reserve(&std::env::temp_dir(), "probity-export-")?;
        // Made outside an interrupted run's cleanup (registry::exclusive):
        // made while it ran, the directory would outlive its owner lock.
        scratch.create_dir(0o700)?;
        let format = self.object_format()?;
        let config = match format.as_str() {
            "sha1" => "[core]\n\trepositoryformatversion = 0\n\tbare = true\n".to_string(),
            other => format!(
                "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = {other}\n"
            ),
        };
        std::fs::create_dir(scratch.path().join("refs"))?;
        std::fs::create_dir(scratch.path().join("objects"))?;
        std::fs::write(scratch.path().join("HEAD"), "ref: refs/heads/main\n")?;
        std::fs::write(scratch.path().join("config"), config)?;
        Ok(scratch)
    }
}

/// `git version <v>` from a trace2 event stream's `version` event (its
/// `exe` field is the string `git --version` prints after `git version `);
/// `None` when there is none or it is escaped.
fn version_of_trace(trace: &[u8]) -> Option<String> {
    let line = trace
        .split(|b| *b == b'\n')
        .find(|l| l.starts_with(b"{\"event\":\"version\""))?;
    let line = std::str::from_utf8(line).ok()?;
    let (_, rest) = line.split_once("\"exe\":\"")?;
    let (exe, _) = rest.split_once('"')?;
    if exe.is_empty() || exe.contains('\\') || exe.chars().any(char::is_control) {
        return None;
    }
    Some(format!("git version {exe}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_the_trace() {
        let t = b"{\"event\":\"version\",\"sid\":\"x\",\"evt\":\"4\",\"exe\":\"2.47.3\"}\n{\"event\":\"start\"}\n";
        assert_eq!(version_of_trace(t).as_deref(), Some("git version 2.47.3"));
        assert_eq!(version_of_trace(b"{\"event\":\"start\"}\n"), None);
        assert_eq!(
            version_of_trace(b"{\"event\":\"version\",\"exe\":\"2\\\"x\"}\n"),
            None
        );
    }

    #[test]
    fn sections_split_raw_numstat_and_patch() {
        let out = b":1 2 3 4 M\0a\0:0 1 0 5 A\0b\tc\x001\t0\ta\0-\t-\tb\tc\0\0diff --git x\0y";
        let (raw, num, start) = sections(out).unwrap();
        assert_eq!(&out[..raw], b":1 2 3 4 M\0a\0:0 1 0 5 A\0b\tc\0");
        assert_eq!(&out[raw..num], b"1\t0\ta\0-\t-\tb\tc\0");
        assert_eq!(&out[start..], b"diff --git x\0y");
        // Not yet read to the separator: no patch start.
        assert!(sections(&out[..20]).is_none());
        assert!(sections(b":1 2 3 4 M\0a\x001\t0\ta\0").is_none());
    }
}
