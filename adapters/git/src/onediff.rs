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

use probity_core::review::MAX_REVIEWED_FILE_BYTES;
use probity_core::review::TreeId;
use probity_core::review::{DIFF_FLAGS, EXPORT_CONFIG, EXPORT_ENV};

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

    /// The quarantine's object directory.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
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
        let mut packs = Vec::new();
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
            // The directory is made once, when its first object moves
            // (one `mkdir` per directory, not per object).
            let mut dir_made = false;
            for file in std::fs::read_dir(entry.path())? {
                let file = file?;
                let to = to_dir.join(file.file_name());
                if is_pack {
                    let idx = file.file_name().to_string_lossy().ends_with(".idx");
                    if idx { &mut later } else { &mut packs }.push((file.path(), to));
                    continue;
                }
                move_object(&file.path(), &to_dir, &to, &mode, &mut dir_made)?;
            }
        }
        // The packs' files, each index after every pack, in one step that an
        // interrupted run's cleanup (which removes the quarantine) runs
        // wholly before or after: never a pack moved without its index.
        probity_scratch::registry::exclusive(|| {
            for (from, to) in packs.iter().chain(&later) {
                let dir = to.parent().map(Path::to_path_buf).unwrap_or_default();
                move_object(from, &dir, to, &mode, &mut false)?;
            }
            Ok::<(), GitError>(())
        })?;
        drop(self.dir);
        Ok(())
    }
}

/// Renames `from` to `to`, making `dir` (with the object store's
/// permissions) first unless `dir_made` says it was; an existing `to` is
/// kept.
fn move_object(
    from: &Path,
    dir: &Path,
    to: &Path,
    mode: &std::fs::Permissions,
    dir_made: &mut bool,
) -> Result<(), GitError> {
    if std::fs::symlink_metadata(to).is_ok() {
        return Ok(());
    }
    if !*dir_made {
        match std::fs::create_dir(dir) {
            Ok(()) => std::fs::set_permissions(dir, mode.clone())?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e.into()),
        }
        *dir_made = true;
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
    /// The numstat rows (`added\tremoved\tpath\0` each, `-\t-` for a file
    /// git judged binary), counted from the patch ([`numstat_of_patch`]);
    /// `None` when they cannot be (no patch under the cap, a type change,
    /// a submodule, a path git quotes): then git's `--numstat` is asked.
    pub(crate) numstat: Option<Vec<u8>>,
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
        // No `--numstat`: git would diff every file a second time for it;
        // the rows are counted from the patch instead (D-R100).
        args.extend(["-z", "--raw", "--no-abbrev"].map(OsString::from));
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
        let (mut child, _running) = self.git().spawn_registered(&mut cmd)?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut over = false;
        let mut patch_start = None;
        let quarantine = incoming.map(Incoming::path);
        // The blobs the observation reads next are read on another thread
        // while git writes the patch ([`crate::ahead`]); joined before
        // anything is decided.
        let read = std::thread::scope(|scope| {
            let mut ahead = None;
            let read = loop {
                let n = match stdout.read(&mut buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => break Err(e),
                };
                if n == 0 {
                    break Ok(());
                }
                out.extend_from_slice(&buf[..n]);
                if patch_start.is_none()
                    && let Some((raw_end, _, start)) = sections(&out)
                {
                    patch_start = Some(start);
                    let raw = out[..raw_end].to_vec();
                    ahead = std::thread::Builder::new()
                        .name("probity-ahead".into())
                        .spawn_scoped(scope, move || self.read_ahead(&raw, quarantine))
                        .ok();
                }
                if let Some(start) = patch_start
                    && (out.len() - start) as u64 > cap
                {
                    over = true;
                    break Ok(());
                }
            };
            if read.is_err() || over {
                // Stopped early: git need not write on while the thread
                // finishes.
                let _ = child.kill();
            }
            if let Some(ahead) = ahead {
                let _ = ahead.join();
            }
            read
        });
        if let Err(e) = read {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e.into());
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
                    args: "diff-tree --raw -p".into(),
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
                numstat: Some(Vec::new()),
                patch: Some(Vec::new()),
            });
        }
        let (raw_end, _, start) = sections(&out).ok_or_else(|| GitError::Parse {
            args: "diff-tree --raw -p".into(),
            detail: "no separator before the patch".into(),
        })?;
        let patch = (!over).then(|| out[start..].to_vec());
        let raw = out[..raw_end].to_vec();
        let numstat = patch.as_deref().and_then(|p| numstat_of_patch(&raw, p));
        Ok(OneDiff {
            raw,
            numstat,
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
        // Written outside an interrupted run's cleanup, which removes the
        // directory (see `Scratch::create_dir`).
        probity_scratch::registry::exclusive(|| {
            std::fs::create_dir(scratch.path().join("refs"))?;
            std::fs::create_dir(scratch.path().join("objects"))?;
            std::fs::write(scratch.path().join("HEAD"), "ref: refs/heads/main\n")?;
            std::fs::write(scratch.path().join("config"), config)
        })?;
        Ok(scratch)
    }
}

/// The `-z --numstat` rows of a pair counted from its `-z --raw` entries
/// and its patch (D-R100): the same run's diff, so the same counts as the
/// `--numstat` git would print beside it, without git diffing every file a
/// second time. Each raw entry has one `diff --git a/P b/P` section, in
/// order; a section's hunks are read by the counts in their `@@` headers
/// (so no content line is mistaken for a header); a binary section
/// (`GIT binary patch`, `Binary files`) is `-\t-`. `None`, and git's own
/// `--numstat` is asked, for what is not read here: a type change (its
/// patch is a deletion and a creation, its numstat one diff of the two
/// contents), a submodule, a path git quotes in the header, any line not
/// expected where it is.
pub(crate) fn numstat_of_patch(raw: &[u8], patch: &[u8]) -> Option<Vec<u8>> {
    let mut lines = patch.split(|b| *b == b'\n').peekable();
    let mut fields = raw.split(|b| *b == 0);
    let mut out = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let path = fields.next()?;
        let parts: Vec<&[u8]> = meta.split(|b| *b == b' ').collect();
        let [old_mode, new_mode, _, _, status] = parts[..] else {
            return None;
        };
        if status != b"M" && status != b"A" && status != b"D"
            || old_mode == b":160000"
            || new_mode == b"160000"
        {
            return None;
        }
        let mut header = b"diff --git a/".to_vec();
        header.extend_from_slice(path);
        header.extend_from_slice(b" b/");
        header.extend_from_slice(path);
        if lines.next()? != header.as_slice() {
            return None;
        }
        let (mut added, mut removed, mut binary) = (0u64, 0u64, false);
        // Extended headers, then hunks or a binary patch, up to the next
        // section.
        while let Some(line) = lines.peek().copied() {
            if line.starts_with(b"diff --git ") || (line.is_empty() && !binary) {
                break;
            }
            lines.next();
            if binary {
                // Base85 lines, `literal N`, `delta N`, blank lines: none
                // holds a space followed by `--git`.
                continue;
            }
            if line.starts_with(b"@@ -") {
                let (mut old_left, mut new_left) = hunk_counts(line)?;
                while old_left > 0 || new_left > 0 {
                    let l = lines.next()?;
                    match l.first() {
                        Some(b' ') if old_left > 0 && new_left > 0 => {
                            old_left -= 1;
                            new_left -= 1;
                        }
                        Some(b'-') if old_left > 0 => {
                            old_left -= 1;
                            removed += 1;
                        }
                        Some(b'+') if new_left > 0 => {
                            new_left -= 1;
                            added += 1;
                        }
                        Some(b'\\') => {}
                        _ => return None,
                    }
                }
                // `\ No newline at end of file` after the hunk's last line.
                while lines.peek().is_some_and(|l| l.starts_with(b"\\")) {
                    lines.next();
                }
                continue;
            }
            if line == b"GIT binary patch" || line.starts_with(b"Binary files ") {
                binary = true;
                continue;
            }
            const HEADERS: [&[u8]; 7] = [
                b"old mode ",
                b"new mode ",
                b"deleted file mode ",
                b"new file mode ",
                b"index ",
                b"--- ",
                b"+++ ",
            ];
            if !HEADERS.iter().any(|h| line.starts_with(h)) {
                return None;
            }
        }
        if binary {
            out.extend_from_slice(b"-\t-\t");
        } else {
            out.extend_from_slice(format!("{added}\t{removed}\t").as_bytes());
        }
        out.extend_from_slice(path);
        out.push(0);
    }
    // Nothing but the patch's end after the last section.
    if lines.any(|l| !l.is_empty()) {
        return None;
    }
    Some(out)
}

/// The old and new line counts of a hunk header `@@ -a[,b] +c[,d] @@`.
fn hunk_counts(line: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let count = |r: &str| -> Option<u64> {
        match r.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => r.parse::<u64>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
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

    /// A repository whose second commit changes `files` (path, bytes,
    /// executable) from the first's; the raw entries, patch (as the one
    /// diff runs, [`DIFF_FLAGS`]) and git's own `--numstat` of the pair.
    fn pair(
        before: &[(&str, &[u8])],
        after: &[(&str, &[u8], bool)],
    ) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .current_dir(dir.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .args([
                    "-c",
                    "core.quotePath=false",
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                ])
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        git(&["init", "-q"]);
        let write = |path: &str, bytes: &[u8], exec: bool| {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let _ = std::fs::remove_file(&p);
            std::fs::write(&p, bytes).unwrap();
            let mode = if exec { 0o755 } else { 0o644 };
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        for (path, bytes) in before {
            write(path, bytes, false);
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", "1", "--allow-empty"]);
        for (path, _) in before {
            if !after.iter().any(|(p, _, _)| p == path) {
                std::fs::remove_file(dir.path().join(path)).unwrap();
            }
        }
        for (path, bytes, exec) in after {
            write(path, bytes, *exec);
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", "2"]);
        let mut args = vec!["diff-tree", "-r", "-p"];
        args.extend(DIFF_FLAGS);
        args.extend(["-z", "--raw", "--no-abbrev", "HEAD~1", "HEAD"]);
        let out = git(&args);
        let (raw_end, _, start) = sections(&out).unwrap();
        let mut args = vec!["diff-tree", "-r"];
        args.extend(DIFF_FLAGS);
        args.extend(["-z", "--numstat", "HEAD~1", "HEAD"]);
        // `--binary` brings the patch after the rows.
        let all = git(&args);
        let (rows_start, rows_end, _) = sections(&all).unwrap_or((0, all.len(), 0));
        let numstat = all[rows_start..rows_end].to_vec();
        (out[..raw_end].to_vec(), out[start..].to_vec(), numstat)
    }

    #[test]
    fn the_numstat_counted_from_the_patch_is_gits() {
        let lines: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let edited = lines.replace("line 3\n", "line three\n").replace(
            "line 30\n",
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\ndiff --git a/x b/x\n\n",
        );
        let (raw, patch, numstat) = pair(
            &[
                ("src/lib.rs", lines.as_bytes()),
                ("gone.txt", b"a\nb\n"),
                ("mode.sh", b"echo\n"),
                ("data.bin", b"\0\x01\x02binary"),
                ("tail.txt", b"no newline"),
                ("dir with space/é.txt", b"x\n"),
            ],
            &[
                ("src/lib.rs", edited.as_bytes(), false),
                ("mode.sh", b"echo\n", true),
                ("data.bin", b"\0\x01\x03binary!", false),
                ("new.bin", b"\0\0", false),
                ("empty.txt", b"", false),
                ("tail.txt", b"no newline\nnow one\n", false),
                ("dir with space/é.txt", b"y\n", false),
                ("added.txt", b"1\n2\n3", false),
            ],
        );
        assert!(!numstat.is_empty());
        assert_eq!(
            numstat_of_patch(&raw, &patch).map(|n| String::from_utf8_lossy(&n).into_owned()),
            Some(String::from_utf8_lossy(&numstat).into_owned())
        );
        // Nothing changed: no rows.
        assert_eq!(numstat_of_patch(b"", b""), Some(Vec::new()));
    }

    #[test]
    fn what_the_patch_does_not_count_is_left_to_gits_numstat() {
        // A type change: a deletion and a creation in the patch.
        let (raw, patch, _) = pair(&[("t", b"x\n")], &[]);
        assert!(numstat_of_patch(&raw, &patch).is_some());
        let quoted = {
            let (raw, patch, _) = pair(&[("q\tname", b"x\n")], &[("q\tname", b"y\n", false)]);
            numstat_of_patch(&raw, &patch)
        };
        // A path git quotes in the header.
        assert_eq!(quoted, None);
        // A raw entry with no section, or a section with an unknown line.
        let raw = b":100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 M\0a\0";
        assert_eq!(numstat_of_patch(raw, b""), None);
        assert_eq!(
            numstat_of_patch(raw, b"diff --git a/a b/a\nsimilarity index 90%\n"),
            None
        );
        let typechange = b":100644 120000 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 T\0a\0";
        assert_eq!(numstat_of_patch(typechange, b"diff --git a/a b/a\n"), None);
        let gitlink = b":160000 160000 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 M\0a\0";
        assert_eq!(numstat_of_patch(gitlink, b"diff --git a/a b/a\n"), None);
        // A hunk shorter than its header says.
        assert_eq!(
            numstat_of_patch(raw, b"diff --git a/a b/a\nindex 1..2 100644\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n-x\n+y\n"),
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
