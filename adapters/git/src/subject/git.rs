//! The git subjects: `index`, `worktree` and `tree:<oid>`.

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use probity_core::snapshot_tools::{
    EntryKind, GrepHit, GrepQuery, ListEntry, PathRefusal, RawGrep, RawRead, SnapshotPath,
    SubjectError,
};
use probity_core::snapshot_tools::{
    GREP_KEEP_LINE_BYTES, GREP_MAX_FILE_BYTES, READ_MAX_FILE_BYTES, kept_line,
};

use super::OpenError;
use super::walk::{self, io_err, join, missing_or_io};
use crate::cmd::{GitError, split_z};
use crate::repo::Repo;

/// Which git snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitMode {
    /// The index: what the next ordinary commit records; untracked files are
    /// not in it.
    Index,
    /// Tracked files as on disk (what `commit -a` records); skip-worktree
    /// (sparse) entries from the index.
    Worktree,
    /// A full tree object id.
    Tree(String),
}

/// A git-backed subject.
#[derive(Debug)]
pub struct GitSubject {
    repo: Repo,
    mode: GitMode,
}

/// One index or tree entry.
#[derive(Debug, Clone)]
struct Entry {
    mode: String,
    oid: String,
    /// 0 for a merged entry; 1-3 for a conflict.
    stage: u8,
    skip_worktree: bool,
    path: Vec<u8>,
}

impl Entry {
    fn kind(&self) -> EntryKind {
        match self.mode.as_str() {
            "160000" => EntryKind::Submodule,
            "120000" => EntryKind::Symlink,
            _ => EntryKind::File,
        }
    }
}

fn backend(e: GitError) -> SubjectError {
    SubjectError::Backend(e.to_string())
}

/// Resolves `oid` (a tree or a commit) to a full tree id.
/// Exit 1 is `rev-parse --verify --quiet`'s "no such object"; any other
/// failure is git's error, never a missing tree.
pub fn resolve_tree(repo: &Repo, oid: &str) -> Result<String, OpenError> {
    let args = [
        "rev-parse".into(),
        "--verify".into(),
        "--quiet".into(),
        "--end-of-options".into(),
        OsString::from(format!("{oid}^{{tree}}")),
    ];
    let out = repo.git().output(repo.root(), &args, &[], None)?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    match out.status.code() {
        Some(0) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(text),
        Some(0 | 1) => Err(OpenError::NoSuchTree { oid: oid.into() }),
        _ => Err(crate::cmd::failed(&args, &out).into()),
    }
}

/// One NUL-terminated record of `git ls-files -z` or `git ls-tree -z`:
/// space-separated fields, a tab, the path. Anything else is a backend
/// error naming the record.
struct Record<'a> {
    what: &'static str,
    rec: &'a [u8],
    fields: std::str::Split<'a, char>,
    path: &'a [u8],
}

impl<'a> Record<'a> {
    /// Splits `rec`, the output of `what` (`ls-files`, `ls-tree`).
    fn parse(what: &'static str, rec: &'a [u8]) -> Result<Self, SubjectError> {
        let bad = || bad_record(what, rec);
        let tab = rec.iter().position(|b| *b == b'\t').ok_or_else(bad)?;
        let head = std::str::from_utf8(&rec[..tab]).map_err(|_| bad())?;
        Ok(Self {
            what,
            rec,
            fields: head.split(' '),
            path: &rec[tab + 1..],
        })
    }

    fn bad(&self) -> SubjectError {
        bad_record(self.what, self.rec)
    }

    /// The next field, which must be there.
    fn field(&mut self) -> Result<&'a str, SubjectError> {
        self.fields.next().ok_or_else(|| self.bad())
    }
}

fn bad_record(what: &str, rec: &[u8]) -> SubjectError {
    SubjectError::Backend(format!(
        "unexpected {what} record {:?}",
        String::from_utf8_lossy(rec)
    ))
}

/// Parses `[TAG ]MODE OID STAGE\tPATH` (ls-files -s [-t] -z).
fn parse_ls_files(out: &[u8], tagged: bool) -> Result<Vec<Entry>, SubjectError> {
    let mut v = Vec::new();
    for rec in split_z(out) {
        let mut r = Record::parse("ls-files", rec)?;
        let skip_worktree = tagged && r.field()? == "S";
        let mode = r.field()?.to_owned();
        let oid = r.field()?.to_owned();
        let stage = r.field()?.parse().map_err(|_| r.bad())?;
        v.push(Entry {
            mode,
            oid,
            stage,
            skip_worktree,
            path: r.path.to_vec(),
        });
    }
    Ok(v)
}

/// Parses `MODE TYPE OID\tPATH` (ls-tree -z).
fn parse_ls_tree(out: &[u8]) -> Result<Vec<(Entry, String)>, SubjectError> {
    let mut v = Vec::new();
    for rec in split_z(out) {
        let mut r = Record::parse("ls-tree", rec)?;
        let mode = r.field()?.to_owned();
        let kind = r.field()?.to_owned();
        let oid = r.field()?.to_owned();
        v.push((
            Entry {
                mode,
                oid,
                stage: 0,
                skip_worktree: false,
                path: r.path.to_vec(),
            },
            kind,
        ));
    }
    Ok(v)
}

/// True when git says it was built without PCRE.
/// One `git grep -z -n` record: path, line number, the kept head of the
/// line.
type GrepRecord = (Vec<u8>, Vec<u8>, Vec<u8>);

/// The longest path a `git grep` record may name.
const GREP_MAX_PATH_BYTES: u64 = 64 * 1024;

/// Reads one `path NUL line NUL text LF` record of `git grep -z -n`,
/// streaming: the path and line number are bounded, and of the text at
/// most [`GREP_KEEP_LINE_BYTES`] are kept while the rest of the line is
/// read past, so a matching line of any length costs bounded memory.
/// `None` at the end of the output.
fn read_grep_record<R: BufRead>(r: &mut R) -> std::io::Result<Option<GrepRecord>> {
    let field = |r: &mut R, limit: u64, what: &str| -> std::io::Result<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        let n = r.by_ref().take(limit).read_until(0, &mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        if buf.pop() != Some(0) {
            return Err(std::io::Error::other(format!(
                "unexpected grep record: {what} without a terminator"
            )));
        }
        Ok(Some(buf))
    };
    let Some(path) = field(r, GREP_MAX_PATH_BYTES + 1, "path")? else {
        return Ok(None);
    };
    let Some(line) = field(r, 32, "line number")? else {
        return Err(std::io::Error::other(
            "unexpected grep record: no line number",
        ));
    };
    let mut text = Vec::new();
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let room = (GREP_KEEP_LINE_BYTES + 1).saturating_sub(text.len());
        text.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len() + usize::from(done);
        r.consume(used);
        if done {
            break;
        }
    }
    let text = kept_line(&text).to_vec();
    Ok(Some((path, line, text)))
}

fn no_pcre(stderr: &str) -> bool {
    let s = stderr.to_ascii_lowercase();
    s.contains("perl-compatible") || s.contains("libpcre") || s.contains("not compiled with")
}

/// Translates the Perl classes `\d` and `\D` (outside brackets) for POSIX
/// ERE, which has no such escapes (glibc reads `\d` as a literal `d`).
/// `\s`, `\w` and `\b` are GNU extensions and pass through.
fn posix_ere(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('d') if !in_class => out.push_str("[0-9]"),
                Some('D') if !in_class => out.push_str("[^0-9]"),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a member, not the end.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn os(b: &[u8]) -> OsString {
    crate::cmd::path_from_bytes(Path::new(""), b).into_os_string()
}

impl GitSubject {
    /// A subject over `repo` in `mode`; a `Tree` mode carries a full, already
    /// resolved tree id.
    pub fn new(repo: Repo, mode: GitMode) -> Self {
        Self { repo, mode }
    }

    /// The repository the subject reads.
    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// Which snapshot of the repository it reads.
    pub fn mode(&self) -> &GitMode {
        &self.mode
    }

    fn not_in_snapshot(&self, path: &SnapshotPath) -> SubjectError {
        let why = match &self.mode {
            GitMode::Tree(t) => format!("not in tree {t}"),
            _ => {
                let on_disk = fs::symlink_metadata(join(self.repo.root(), path)).is_ok();
                if on_disk {
                    "untracked; only tracked files are in the snapshot".into()
                } else {
                    "no such tracked file".into()
                }
            }
        };
        SubjectError::NotInSnapshot {
            path: path.display().into_owned(),
            why,
        }
    }

    /// The entries at `path` (exactly) or under it.
    fn lookup(&self, path: &SnapshotPath) -> Result<Vec<Entry>, SubjectError> {
        let mut args: Vec<OsString> = vec!["--literal-pathspecs".into()];
        match &self.mode {
            GitMode::Tree(t) => {
                args.extend([
                    "ls-tree".into(),
                    "-z".into(),
                    "--full-tree".into(),
                    t.into(),
                    "--".into(),
                ]);
                args.push(os(path.as_bytes()));
                let out = self.repo.run(&args).map_err(backend)?;
                let entries = parse_ls_tree(&out)?;
                Ok(entries
                    .into_iter()
                    .map(|(mut e, kind)| {
                        if kind == "tree" {
                            // A directory: mark it so the caller says so.
                            e.mode = "040000".into();
                        }
                        e
                    })
                    .collect())
            }
            _ => {
                args.extend([
                    "ls-files".into(),
                    "-s".into(),
                    "-t".into(),
                    "-z".into(),
                    "--".into(),
                ]);
                args.push(os(path.as_bytes()));
                let out = self.repo.run(&args).map_err(backend)?;
                parse_ls_files(&out, true)
            }
        }
    }

    fn blob(&self, oid: &str, path: &SnapshotPath) -> Result<Vec<u8>, SubjectError> {
        let size_out = self.repo.run(["cat-file", "-s", oid]).map_err(backend)?;
        let size: u64 = String::from_utf8_lossy(&size_out)
            .trim()
            .parse()
            .map_err(|_| SubjectError::Backend("unexpected cat-file -s output".into()))?;
        if size > READ_MAX_FILE_BYTES {
            return Err(SubjectError::TooLarge {
                path: path.display().into_owned(),
                size,
                max: READ_MAX_FILE_BYTES,
            });
        }
        self.repo.run(["cat-file", "blob", oid]).map_err(backend)
    }

    /// What the snapshot holds at `path`: a file's bytes (at most
    /// `READ_MAX_FILE_BYTES`), a symlink's target (never followed) or a
    /// submodule's commit. A directory, or a path that is absent, deleted on
    /// disk or conflicted in the index, is its error result. Under `worktree` a
    /// tracked file is read from disk without following a link in any
    /// component.
    pub fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        let entries = self.lookup(path)?;
        let exact: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.path == path.as_bytes())
            .collect();
        let Some(entry) = exact.first() else {
            if entries.iter().any(|e| e.path.starts_with(path.as_bytes())) {
                return Err(SubjectError::IsDirectory(path.display().into_owned()));
            }
            return Err(self.not_in_snapshot(path));
        };
        if entry.mode == "040000" {
            return Err(SubjectError::IsDirectory(path.display().into_owned()));
        }
        if exact.iter().any(|e| e.stage != 0) {
            return Err(SubjectError::NotInSnapshot {
                path: path.display().into_owned(),
                why: "unmerged: the index holds a conflict for it".into(),
            });
        }
        if entry.kind() == EntryKind::Submodule {
            return Ok(RawRead::Submodule {
                commit: entry.oid.clone(),
            });
        }
        if self.mode == GitMode::Worktree && !entry.skip_worktree {
            return self.read_worktree(path);
        }
        let bytes = self.blob(&entry.oid, path)?;
        if entry.kind() == EntryKind::Symlink {
            return Ok(RawRead::Symlink { target: bytes });
        }
        Ok(RawRead::File(bytes))
    }

    /// A tracked file as on disk, checking every component without
    /// following links: a link in a leading component is refused; a link at
    /// the end is reported, not followed.
    fn read_worktree(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        let mut cur = self.repo.root().to_path_buf();
        let comps: Vec<&[u8]> = path.components().collect();
        for (i, c) in comps.iter().enumerate() {
            cur = crate::cmd::path_from_bytes(&cur, c);
            let meta = fs::symlink_metadata(&cur)
                .map_err(|e| missing_or_io(path, &e, "deleted in the working tree"))?;
            let last = i + 1 == comps.len();
            if meta.file_type().is_symlink() {
                if !last {
                    let prefix = comps[..=i].join(&b'/');
                    return Err(SubjectError::Refused(PathRefusal::ThroughSymlink(
                        String::from_utf8_lossy(&prefix).into_owned(),
                    )));
                }
                let target = fs::read_link(&cur).map_err(|e| io_err(path, &e))?;
                return Ok(RawRead::Symlink {
                    target: walk::name_bytes(target.as_os_str()),
                });
            }
            if !last && !meta.is_dir() {
                return Err(SubjectError::NotInSnapshot {
                    path: path.display().into_owned(),
                    why: "a parent is no longer a directory in the working tree".into(),
                });
            }
            if last && meta.is_dir() {
                return Err(SubjectError::NotInSnapshot {
                    path: path.display().into_owned(),
                    why: "replaced by a directory in the working tree".into(),
                });
            }
            if last && !meta.is_file() {
                // Never open a FIFO, socket or device: opening one can block.
                return Err(SubjectError::NotAFile {
                    path: path.display().into_owned(),
                    what: "a FIFO, socket or device in the working tree".into(),
                });
            }
        }
        walk::read_file(&cur, path).map(RawRead::File)
    }

    fn entries(&self) -> Result<Vec<Entry>, SubjectError> {
        match &self.mode {
            GitMode::Tree(t) => {
                let out = self
                    .repo
                    .run(["ls-tree", "-r", "-z", "--full-tree", t.as_str()])
                    .map_err(backend)?;
                Ok(parse_ls_tree(&out)?.into_iter().map(|(e, _)| e).collect())
            }
            _ => {
                let out = self
                    .repo
                    .run(["ls-files", "-s", "-t", "-z"])
                    .map_err(backend)?;
                let mut v = parse_ls_files(&out, true)?;
                v.dedup_by(|a, b| a.path == b.path);
                Ok(v)
            }
        }
    }

    /// Every entry of the snapshot (files, symlinks, submodules) in path order;
    /// under `worktree`, without the tracked files deleted on disk.
    pub fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        let entries = self.entries()?;
        let root = self.repo.root();
        Ok(entries
            .into_iter()
            .filter(|e| {
                // Under `worktree`, a tracked file deleted on disk is not in
                // what `commit -a` records.
                // An uninitialized submodule has no directory and is kept.
                self.mode != GitMode::Worktree
                    || e.skip_worktree
                    || e.kind() == EntryKind::Submodule
                    || walk::present_without_links(root, &e.path)
            })
            .map(|e| ListEntry {
                kind: e.kind(),
                path: e.path,
            })
            .collect())
    }

    /// `git grep` over the subject. A regular expression is run with `-P`
    /// (PCRE, the syntax family of the `regex` crate that validated it);
    /// a git built without PCRE falls back to `-E` with `\d`/`\D`
    /// translated. A fixed string uses `-F`.
    pub fn grep(&self, query: &GrepQuery, max_hits: usize) -> Result<RawGrep, SubjectError> {
        if query.fixed {
            return self.run_grep(query, "-F", query.pattern.as_str(), max_hits);
        }
        match self.run_grep(query, "-P", query.pattern.as_str(), max_hits) {
            Err(SubjectError::Backend(msg)) if no_pcre(&msg) => {
                self.run_grep(query, "-E", &posix_ere(query.pattern.as_str()), max_hits)
            }
            other => other,
        }
    }

    /// The files of the subject (within `scope`) over
    /// [`GREP_MAX_FILE_BYTES`], in path order: sizes from the objects
    /// (`cat-file --batch-check`), or from disk for what the working tree
    /// holds.
    fn oversized(&self, scope: Option<&SnapshotPath>) -> Result<Vec<Vec<u8>>, SubjectError> {
        let within =
            |p: &[u8]| scope.is_none_or(|s| SnapshotPath::parse(p).is_ok_and(|p| p.is_within(s)));
        let entries: Vec<Entry> = self
            .entries()?
            .into_iter()
            .filter(|e| e.kind() == EntryKind::File && within(&e.path))
            .collect();
        let mut out = Vec::new();
        let mut by_object = Vec::new();
        for e in &entries {
            if self.mode == GitMode::Worktree && !e.skip_worktree {
                let full = crate::cmd::path_from_bytes(self.repo.root(), &e.path);
                if fs::symlink_metadata(&full)
                    .is_ok_and(|m| m.is_file() && m.len() > GREP_MAX_FILE_BYTES)
                {
                    out.push(e.path.clone());
                }
            } else {
                by_object.push(e);
            }
        }
        if !by_object.is_empty() {
            let names: Vec<&str> = by_object.iter().map(|e| e.oid.as_str()).collect();
            let input = crate::cmd::cat_file_input("cat-file --batch-check", None, &names)
                .map_err(backend)?;
            let sizes = self
                .repo
                .run_with(
                    ["cat-file", "--batch-check=%(objectsize)"],
                    &[],
                    Some(&input),
                )
                .map_err(backend)?;
            let sizes: Vec<&[u8]> = sizes
                .split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .collect();
            if sizes.len() != by_object.len() {
                return Err(SubjectError::Backend(
                    "unexpected cat-file --batch-check output".into(),
                ));
            }
            for (e, size) in by_object.iter().zip(sizes) {
                let size: u64 = std::str::from_utf8(size)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                    .ok_or_else(|| SubjectError::Backend(format!("no size for {}", e.oid)))?;
                if size > GREP_MAX_FILE_BYTES {
                    out.push(e.path.clone());
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn run_grep(
        &self,
        query: &GrepQuery,
        syntax: &str,
        pattern: &str,
        max_hits: usize,
    ) -> Result<RawGrep, SubjectError> {
        // A file over the size cap is never handed to git grep, which
        // would read it whole: it is excluded by a literal pathspec and
        // reported.
        let skipped = self.oversized(query.scope.as_ref())?;
        let mut args: Vec<OsString> = vec![
            "grep".into(),
            "-n".into(),
            "-z".into(),
            "-I".into(),
            "--no-color".into(),
            "--no-column".into(),
            "--no-recurse-submodules".into(),
        ];
        if self.mode == GitMode::Index {
            args.push("--cached".into());
        }
        if query.ignore_case {
            args.push("-i".into());
        }
        args.push(syntax.into());
        args.push("-e".into());
        args.push(pattern.into());
        let prefix = match &self.mode {
            GitMode::Tree(t) => {
                args.push(t.into());
                Some(format!("{t}:").into_bytes())
            }
            _ => None,
        };
        args.push("--".into());
        // Every pathspec is literal (no glob or magic in a path).
        let literal = |magic: &str, p: &[u8]| {
            let mut spec = format!(":({magic})").into_bytes();
            spec.extend_from_slice(p);
            os(&spec)
        };
        match &query.scope {
            Some(scope) => args.push(literal("literal", scope.as_bytes())),
            None if !skipped.is_empty() => args.push(literal("literal", b".")),
            None => {}
        }
        for p in &skipped {
            args.push(literal("exclude,literal", p));
        }
        let mut cmd = self.repo.git().command(self.repo.root());
        cmd.args(&args);
        let (mut child, _running) = probity_scratch::registry::spawn(&mut cmd, false)
            .map_err(|e| SubjectError::Backend(format!("could not run git: {e}")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| SubjectError::Backend("git stdout was not captured".into()))?;
        let mut reader = BufReader::new(stdout);
        let mut hits = Vec::new();
        let mut more = false;
        let mut parse_error = None;
        loop {
            let (p, n, t) = match read_grep_record(&mut reader) {
                Ok(Some(rec)) => rec,
                Ok(None) => break,
                Err(e) => {
                    parse_error = Some(e.to_string());
                    break;
                }
            };
            let Some(line) = std::str::from_utf8(&n).ok().and_then(|s| s.parse().ok()) else {
                parse_error = Some("unexpected grep line number".into());
                break;
            };
            let p = match &prefix {
                Some(pre) => p.strip_prefix(pre.as_slice()).unwrap_or(&p).to_vec(),
                None => p,
            };
            if hits.len() >= max_hits {
                more = true;
                break;
            }
            hits.push(GrepHit {
                path: p,
                line,
                text: t,
            });
        }
        if more || parse_error.is_some() {
            let _ = child.kill();
        }
        // Drain what is left so git can exit, then collect its status.
        let _ = std::io::copy(&mut reader.take(64 * 1024 * 1024), &mut std::io::sink());
        let out = child
            .wait_with_output()
            .map_err(|e| SubjectError::Backend(format!("git grep: {e}")))?;
        if let Some(e) = parse_error {
            return Err(SubjectError::Backend(e));
        }
        if self.mode == GitMode::Worktree {
            // `git grep` on the working tree opens tracked paths through a
            // linked leading directory; such a path is not in the snapshot
            // and may point out of the root. Drop those matches.
            let root = self.repo.root();
            let mut verdicts: std::collections::HashMap<Vec<u8>, bool> =
                std::collections::HashMap::new();
            hits.retain(|h| {
                *verdicts
                    .entry(h.path.clone())
                    .or_insert_with(|| walk::present_without_links(root, &h.path))
            });
        }
        if !more && !matches!(out.status.code(), Some(0) | Some(1)) {
            return Err(SubjectError::Backend(format!(
                "git grep failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(RawGrep {
            hits,
            more,
            skipped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_perl_digit_classes_for_ere() {
        assert_eq!(posix_ere(r"id \d+"), "id [0-9]+");
        assert_eq!(posix_ere(r"\D\s\.\\d"), r"[^0-9]\s\.\\d");
        assert_eq!(posix_ere(r"[\d]x\d"), r"[\d]x[0-9]");
        assert_eq!(posix_ere(r"[]\d]\d"), r"[]\d][0-9]");
    }

    #[test]
    fn recognizes_a_git_without_pcre() {
        assert!(no_pcre(
            "fatal: cannot use Perl-compatible regexes when not compiled with USE_LIBPCRE"
        ));
        assert!(!no_pcre("fatal: bad revision"));
    }
}
