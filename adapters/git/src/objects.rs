//! Reading objects without a git process per read (issue 24, D-R76).
//!
//! - [`ObjectReader`]: one long-lived `git cat-file --batch-command` per
//!   [`Repo`], started on the first read and ended with the last clone of
//!   the repository: `info <object>` answers an object's id, type and size,
//!   `contents <object>` its bytes. Without `--buffer`, git flushes its
//!   answer to every command, so each read is one request and one answer
//!   on the same pipe. It runs in the same hermetic environment as every
//!   other git (a server hook's quarantine kept), so it answers exactly what
//!   a `git cat-file` started for the one read would. An answer about an
//!   object named by its content is kept for the run and not asked again
//!   (`memo`: within a bound, found objects only).
//! - `DiffMemo`: the raw and numstat outputs of `diff-tree` for a pair of
//!   trees, filled in one `git diff-tree --stdin` per kind for every pair a
//!   caller announces ([`Repo::prefetch_diffs`]). Trees are named by their
//!   content, so an output is the same whenever it is asked; a pair not
//!   announced is diffed by its own process as before.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};

use crate::Repo;
use crate::cmd::GitError;

mod memo;

const ARGS: &str = "cat-file --batch-command";

/// What `info` answers for an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The object's full id.
    pub oid: String,
    /// `blob`, `tree`, `commit` or `tag`.
    pub kind: String,
    /// Its size in bytes.
    pub size: u64,
}

struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    _registered: probity_scratch::registry::Registered,
}

impl Drop for Running {
    fn drop(&mut self) {
        // Closing stdin ends `cat-file` at its next read; wait for it so no
        // zombie outlives the repository.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// One long-lived `git cat-file --batch-command` (see the module).
#[derive(Default)]
pub struct ObjectReader {
    running: Option<Running>,
    memo: memo::Memo,
    /// How many specs were asked of git (for the tests).
    asked: u64,
}

impl std::fmt::Debug for ObjectReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectReader")
            .field("running", &self.running.is_some())
            .finish()
    }
}

fn parse(detail: impl Into<String>) -> GitError {
    GitError::Parse {
        args: ARGS.into(),
        detail: detail.into(),
    }
}

impl ObjectReader {
    fn start(repo: &Repo) -> Result<Running, GitError> {
        let mut cmd = repo.git().command(repo.root());
        cmd.args(["cat-file", "--batch-command"])
            .stdin(Stdio::piped())
            .stderr(Stdio::null());
        let (mut child, registered) =
            probity_scratch::registry::spawn(&mut cmd, false).map_err(|source| {
                GitError::Spawn {
                    exe: "git".into(),
                    source,
                }
            })?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdin was not captured")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| GitError::Io(std::io::Error::other("git stdout was not captured")))?;
        Ok(Running {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            _registered: registered,
        })
    }

    /// Answers each spec: from the answers kept for the run ([`memo`])
    /// where one answers it, otherwise from git, one command per spec
    /// (written by a second thread while the answers are read, so neither
    /// pipe can fill and stall the other: one round trip for the whole
    /// batch, not one per object). `None` for an object git does not have
    /// (`missing`, `ambiguous`); for `contents`, at most `cap` leading
    /// bytes and whether they are the whole object (the rest is read
    /// past).
    fn batch(
        &mut self,
        repo: &Repo,
        command: &str,
        specs: &[&str],
        cap: usize,
    ) -> Result<Vec<Option<Answer>>, GitError> {
        // Every spec is checked, kept answers or not.
        crate::cmd::cat_file_input(ARGS, Some(command), specs)?;
        let with_body = command == "contents";
        let mut kept: Vec<Option<Option<Answer>>> = specs
            .iter()
            .map(|s| self.memo.answer(s, with_body, cap))
            .collect();
        // The lines asked (with_body, spec): each spec no kept answer
        // answers, after `info` of the object its absence would be final
        // under, when not seen yet (`Memo::witness`); `at` is each spec's
        // line.
        let mut lines: Vec<(bool, &str)> = Vec::new();
        let mut witnesses = std::collections::BTreeSet::new();
        let mut at = Vec::with_capacity(specs.len());
        for (s, k) in specs.iter().zip(&kept) {
            if k.is_some() {
                at.push(None);
                continue;
            }
            if let Some(w) = self.memo.witness(s)
                && witnesses.insert(w)
            {
                lines.push((false, w));
            }
            at.push(Some(lines.len()));
            lines.push((with_body, s));
        }
        let mut fresh = self.ask(repo, &lines, cap)?;
        for ((body, spec), answer) in lines.iter().zip(&fresh) {
            self.memo.keep(spec, answer.as_ref(), *body);
        }
        kept.iter_mut()
            .zip(at)
            .map(|(k, line)| match (k.take(), line) {
                (Some(a), _) => Ok(a),
                (None, Some(i)) => fresh
                    .get_mut(i)
                    .map(Option::take)
                    .ok_or_else(|| parse("an answer short")),
                (None, None) => Err(parse("an answer short")),
            })
            .collect()
    }

    /// Asks git each line (`contents` when its flag is set, `info`
    /// otherwise) and reads the answers in order (see
    /// [`ObjectReader::batch`]).
    fn ask(
        &mut self,
        repo: &Repo,
        lines: &[(bool, &str)],
        cap: usize,
    ) -> Result<Vec<Option<Answer>>, GitError> {
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        let mut request = Vec::new();
        for (body, spec) in lines {
            let command = if *body { "contents" } else { "info" };
            request.extend(crate::cmd::cat_file_input(ARGS, Some(command), &[spec])?);
        }
        self.asked += lines.len() as u64;
        if self.running.is_none() {
            self.running = Some(Self::start(repo)?);
        }
        let Some(run) = self.running.as_mut() else {
            return Err(parse("not running"));
        };
        let Running {
            child,
            stdin,
            stdout,
            ..
        } = run;
        let stdin = stdin.as_mut().ok_or_else(|| parse("stdin closed"))?;
        if request.len() <= 4096 {
            // A pipe holds at least a page: written whole without waiting
            // on git, then read (no thread for the common single read).
            stdin.write_all(&request)?;
            stdin.flush()?;
            return lines
                .iter()
                .map(|(body, _)| read_answer(stdout, *body, cap))
                .collect();
        }
        std::thread::scope(|s| {
            let writer = s.spawn(move || {
                stdin.write_all(&request)?;
                stdin.flush()
            });
            let read: Result<Vec<_>, GitError> = (|| {
                let mut answers = Vec::with_capacity(lines.len());
                for (body, _) in lines {
                    answers.push(read_answer(stdout, *body, cap)?);
                }
                Ok(answers)
            })();
            if read.is_err() {
                // Out of step: end git so the writer cannot block on it.
                let _ = child.kill();
            }
            let wrote = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("stdin writer panicked")));
            let answers = read?;
            wrote?;
            Ok(answers)
        })
    }

    fn info(&mut self, repo: &Repo, spec: &str) -> Result<Option<ObjectInfo>, GitError> {
        Ok(self
            .batch(repo, "info", &[spec], 0)?
            .pop()
            .flatten()
            .map(|(info, _, _)| info))
    }

    fn contents(
        &mut self,
        repo: &Repo,
        spec: &str,
        cap: usize,
    ) -> Result<Option<(ObjectInfo, Vec<u8>, bool)>, GitError> {
        Ok(self.batch(repo, "contents", &[spec], cap)?.pop().flatten())
    }
}

/// Reads one answer of `cat-file --batch-command`: the header line and,
/// for `contents` (`with_body`), the object (at most `cap` bytes kept) and
/// its closing newline.
fn read_answer(
    stdout: &mut BufReader<ChildStdout>,
    with_body: bool,
    cap: usize,
) -> Result<Option<Answer>, GitError> {
    let mut line = Vec::new();
    if stdout.read_until(b'\n', &mut line)? == 0 {
        return Err(parse("git ended before answering"));
    }
    let text = String::from_utf8_lossy(&line);
    let text = text.trim_end_matches('\n');
    if text.ends_with(" missing") || text.ends_with(" ambiguous") {
        return Ok(None);
    }
    let mut it = text.split(' ');
    let (Some(oid), Some(kind), Some(size), None) = (it.next(), it.next(), it.next(), it.next())
    else {
        return Err(parse(format!("bad header `{text}`")));
    };
    if oid.is_empty() || !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(parse(format!("bad header `{text}`")));
    }
    let size: u64 = size
        .parse()
        .map_err(|_| parse(format!("bad size in `{text}`")))?;
    let info = ObjectInfo {
        oid: oid.to_string(),
        kind: kind.to_string(),
        size,
    };
    if !with_body {
        return Ok(Some((info, Vec::new(), false)));
    }
    let keep = size.min(cap as u64);
    let mut head = Vec::with_capacity(keep as usize);
    (&mut *stdout).take(keep).read_to_end(&mut head)?;
    let skipped = std::io::copy(&mut (&mut *stdout).take(size - keep), &mut std::io::sink())?;
    let mut lf = [0u8; 1];
    stdout.read_exact(&mut lf)?;
    if head.len() as u64 != keep || skipped != size - keep || lf[0] != b'\n' {
        return Err(parse("truncated object"));
    }
    Ok(Some((info, head, keep == size)))
}

/// One answer of the reader: the object's header, its leading bytes (for
/// `contents`) and whether they are all of it.
type Answer = (ObjectInfo, Vec<u8>, bool);

/// The kinds of `diff-tree` output [`DiffMemo`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum DiffKind {
    /// `-r -z --no-renames --raw --no-abbrev` (with
    /// `--ignore-submodules=none`).
    Raw,
    /// The numstat of `candidate.rs` (every file as text, no attributes).
    Numstat,
}

impl DiffKind {
    /// The arguments, before the two trees.
    pub(crate) fn args(self) -> &'static [&'static str] {
        match self {
            DiffKind::Raw => &[
                "diff-tree",
                "-r",
                "--ignore-submodules=none",
                "-z",
                "--no-renames",
                "--raw",
                "--no-abbrev",
            ],
            DiffKind::Numstat => &[
                "-c",
                "core.attributesFile=/dev/null",
                "diff-tree",
                "-r",
                "--ignore-submodules=none",
                "-z",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--text",
                "--numstat",
            ],
        }
    }
}

/// Outputs of `diff-tree` by (kind, from tree, to tree): see the module.
#[derive(Debug, Default)]
pub(crate) struct DiffMemo {
    outputs: HashMap<(DiffKind, String, String), Arc<Vec<u8>>>,
}

/// The state a [`Repo`] and its clones share: the object reader and the
/// diff outputs.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    reader: Mutex<ObjectReader>,
    diffs: Mutex<DiffMemo>,
    /// The run's diff work under core's bound ([`crate::bound`]).
    pub(crate) diff_bound: Mutex<crate::bound::Bound>,
    /// HEAD's tree as discovery read it, for the first base-tree read
    /// ([`Repo::discover_reading_head`]).
    head_tree: Mutex<Option<probity_core::review::TreeId>>,
    /// `sha1` or `sha256`, once known.
    pub(crate) object_format: Mutex<Option<String>>,
    /// `probity.keepTrees`, once read.
    pub(crate) keeps_trees: Mutex<Option<bool>>,
    /// The repository's Probity settings, once read ([`crate::settings`]).
    pub(crate) settings: Mutex<Option<Arc<crate::settings::Settings>>>,
    /// The frozen patch a start's one diff read ([`crate::onediff`]): by
    /// (from tree, to tree, cap), `None` when it was over the cap.
    frozen: Mutex<Option<FrozenPatch>>,
    /// What `git --version` prints, once known.
    version: Mutex<Option<String>>,
    /// This repository's own branch and tag tips, once listed
    /// ([`Repo::own_tips`]): the server hook reads them for its policy
    /// bases and its notes holds, one `for-each-ref` for both.
    pub(crate) own_tips: Mutex<Option<Vec<(String, probity_core::review::CommitId)>>>,
    /// The symbolic links of a candidate tree a start read from its
    /// temporary index ([`crate::symlinks`]): by tree id, each link's path
    /// and blob id.
    pub(crate) links: Mutex<HashMap<String, crate::symlinks::IndexLinks>>,
    /// Loose blobs read while git wrote a start's patch
    /// ([`crate::ahead`]), taken by the next [`Repo::loose_blobs`].
    pub(crate) ahead: Mutex<Option<crate::ahead::Ahead>>,
    /// The store's pack indexes' names and its packs, read once per run
    /// ([`crate::packed`]): a server hook reads the blobs of every
    /// delivered commit, one batch each.
    pub(crate) packs: Mutex<crate::packed::StoreCache>,
    /// Trees read and checked well formed, by id, for the run's later
    /// walks ([`crate::tree_memo`]).
    pub(crate) trees: Mutex<crate::tree_memo::TreeMemo>,
    /// Directory listings by (tree id, globs asked), for the run's later
    /// listings ([`crate::tree_memo::DirListing`]).
    pub(crate) listings: Mutex<crate::tree_memo::ListingMemo>,
}

/// A frozen patch by (from tree, to tree, cap); `None`: over the cap.
type FrozenPatch = ((String, String, u64), Option<Vec<u8>>);

impl Shared {
    pub(crate) fn preload_head_tree(&self, tree: probity_core::review::TreeId) {
        if let Ok(mut h) = self.head_tree.lock() {
            *h = Some(tree);
        }
    }

    /// The preloaded HEAD tree, once.
    pub(crate) fn take_head_tree(&self) -> Option<probity_core::review::TreeId> {
        self.head_tree.lock().ok().and_then(|mut h| h.take())
    }
}

/// Splits the output of one `diff-tree --stdin` (`kind`) over `pairs` into
/// each pair's own output: every pair's answer starts with the line
/// `<from> <to>\n`; a raw entry is `:meta\0path\0`, a numstat one
/// `added\tremoved\tpath\0`.
pub(crate) fn split_stdin_output(
    kind: DiffKind,
    pairs: &[(String, String)],
    out: &[u8],
) -> Option<Vec<Vec<u8>>> {
    let mut at = 0usize;
    let mut answers = Vec::with_capacity(pairs.len());
    for (from, to) in pairs {
        let header = format!("{from} {to}\n");
        if !out[at..].starts_with(header.as_bytes()) {
            return None;
        }
        at += header.len();
        let start = at;
        loop {
            let rest = &out[at..];
            if rest.is_empty() {
                break;
            }
            match kind {
                DiffKind::Raw => {
                    if rest[0] != b':' {
                        break;
                    }
                    // meta\0 path\0
                    let meta = rest.iter().position(|b| *b == 0)?;
                    let path = rest[meta + 1..].iter().position(|b| *b == 0)?;
                    at += meta + 1 + path + 1;
                }
                DiffKind::Numstat => {
                    // A count field holds digits or `-` and ends with a
                    // tab; the next pair's header has no tab before its
                    // newline.
                    let end = rest.iter().position(|b| *b == b'\t' || *b == b'\n')?;
                    if rest[end] == b'\n' {
                        break;
                    }
                    let entry = rest.iter().position(|b| *b == 0)?;
                    at += entry + 1;
                }
            }
        }
        answers.push(out[start..at].to_vec());
    }
    (at == out.len()).then_some(answers)
}

impl Repo {
    /// `info <spec>` through the repository's object reader: `None` when
    /// git has no such object. A spec holding a newline cannot be asked on
    /// the line protocol and is an error.
    pub fn object_info(&self, spec: &str) -> Result<Option<ObjectInfo>, GitError> {
        if spec.contains('\n') {
            return Err(parse("an object name holding a newline"));
        }
        let mut reader = self
            .shared()
            .reader
            .lock()
            .map_err(|_| parse("object reader poisoned"))?;
        let answer = reader.info(self, spec);
        if answer.is_err() {
            // Out of step with git: the next read starts a fresh one.
            reader.running = None;
        }
        answer
    }

    /// `contents <spec>`: the object's id, type and size, and at most `cap`
    /// leading bytes with whether they are all of it (the rest is read
    /// past, never held); `None` when git has no such object.
    pub fn object_head(
        &self,
        spec: &str,
        cap: usize,
    ) -> Result<Option<(ObjectInfo, Vec<u8>, bool)>, GitError> {
        if spec.contains('\n') {
            return Err(parse("an object name holding a newline"));
        }
        let mut reader = self
            .shared()
            .reader
            .lock()
            .map_err(|_| parse("object reader poisoned"))?;
        let answer = reader.contents(self, spec, cap);
        if answer.is_err() {
            reader.running = None;
        }
        answer
    }

    /// Runs one batch on the reader (see `ObjectReader::batch`), restarting
    /// it on the next read after a failure.
    fn reader_batch(
        &self,
        command: &str,
        specs: &[&str],
        cap: usize,
    ) -> Result<Vec<Option<Answer>>, GitError> {
        let mut reader = self
            .shared()
            .reader
            .lock()
            .map_err(|_| parse("object reader poisoned"))?;
        let answer = reader.batch(self, command, specs, cap);
        if answer.is_err() {
            reader.running = None;
        }
        answer
    }

    /// How many specs the object reader has asked git so far.
    #[cfg(test)]
    pub(crate) fn object_requests(&self) -> u64 {
        self.shared().reader.lock().map_or(0, |r| r.asked)
    }

    /// Leading bytes of objects by id (at most `cap` each, and whether that
    /// is the whole object), in one batch of the object reader; a missing
    /// object is an error, as `cat-file --batch` makes it.
    pub fn object_heads(&self, ids: &[&str], cap: usize) -> Result<Vec<(Vec<u8>, bool)>, GitError> {
        self.reader_batch("contents", ids, cap)?
            .into_iter()
            .zip(ids)
            .map(|(a, id)| {
                a.map(|(_, bytes, complete)| (bytes, complete))
                    .ok_or_else(|| parse(format!("{id} missing")))
            })
            .collect()
    }

    /// [`Repo::object_heads`] with each object's size (from the same
    /// answer's header).
    pub(crate) fn object_heads_sized(
        &self,
        ids: &[&str],
        cap: usize,
    ) -> Result<Vec<(u64, Vec<u8>, bool)>, GitError> {
        self.reader_batch("contents", ids, cap)?
            .into_iter()
            .zip(ids)
            .map(|(a, id)| {
                a.map(|(info, bytes, complete)| (info.size, bytes, complete))
                    .ok_or_else(|| parse(format!("{id} missing")))
            })
            .collect()
    }

    /// Sizes of objects by id, in one batch of the object reader (headers
    /// only); a missing object is an error.
    pub fn object_sizes(&self, ids: &[&str]) -> Result<Vec<u64>, GitError> {
        self.reader_batch("info", ids, 0)?
            .into_iter()
            .zip(ids)
            .map(|(a, id)| {
                a.map(|(info, _, _)| info.size)
                    .ok_or_else(|| parse(format!("{id} missing")))
            })
            .collect()
    }

    /// The id, type and size of each of `ids` (`None`: git has no such
    /// object), in one batch of the object reader.
    pub fn objects_info(&self, ids: &[&str]) -> Result<Vec<Option<ObjectInfo>>, GitError> {
        Ok(self
            .reader_batch("info", ids, 0)?
            .into_iter()
            .map(|a| a.map(|(info, _, _)| info))
            .collect())
    }

    /// Which of `ids` git does not have, in one batch of the object reader.
    pub fn objects_missing(&self, ids: &[&str]) -> Result<Vec<bool>, GitError> {
        Ok(self
            .reader_batch("info", ids, 0)?
            .into_iter()
            .map(|a| a.is_none())
            .collect())
    }

    /// The pairs of trees whose raw diff the memo holds.
    pub(crate) fn known_raw_pairs(&self) -> Vec<(String, String)> {
        match self.shared().diffs.lock() {
            Ok(memo) => memo
                .outputs
                .keys()
                .filter(|(k, _, _)| *k == DiffKind::Raw)
                .map(|(_, a, b)| (a.clone(), b.clone()))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The output of `diff-tree` (`kind`) for the pair when the memo holds
    /// it (announced, or remembered from another run); no process.
    pub(crate) fn known_diff_output(
        &self,
        kind: DiffKind,
        from: &str,
        to: &str,
    ) -> Option<Arc<Vec<u8>>> {
        let memo = self.shared().diffs.lock().ok()?;
        memo.outputs
            .get(&(kind, from.to_string(), to.to_string()))
            .map(Arc::clone)
    }

    /// The output of `diff-tree` (`kind`) for the pair, from the memo when
    /// it was announced, else from its own process.
    pub(crate) fn diff_tree_output(
        &self,
        kind: DiffKind,
        from: &str,
        to: &str,
    ) -> Result<Arc<Vec<u8>>, GitError> {
        let key = (kind, from.to_string(), to.to_string());
        if let Ok(memo) = self.shared().diffs.lock()
            && let Some(out) = memo.outputs.get(&key)
        {
            return Ok(Arc::clone(out));
        }
        let mut args: Vec<&str> = kind.args().to_vec();
        args.extend([from, to]);
        let out = Arc::new(self.run(&args)?);
        if let Ok(mut memo) = self.shared().diffs.lock() {
            memo.outputs.insert(key, Arc::clone(&out));
        }
        Ok(out)
    }

    /// Keeps what `git --version` prints, learnt from another run.
    pub(crate) fn remember_version(&self, version: String) {
        if let Ok(mut v) = self.shared().version.lock() {
            *v = Some(version);
        }
    }

    /// What `git --version` prints (trimmed): as learnt, else asked.
    pub fn git_version_line(&self) -> Result<String, GitError> {
        if let Ok(v) = self.shared().version.lock()
            && let Some(v) = v.as_ref()
        {
            return Ok(v.clone());
        }
        let out = self.run(["--version"])?;
        let v = String::from_utf8_lossy(&out).trim().to_string();
        self.remember_version(v.clone());
        Ok(v)
    }

    /// Keeps the raw diff of a pair read by another run (the same bytes
    /// `diff-tree -r -z --raw --no-abbrev` prints for it).
    pub(crate) fn remember_raw(&self, from: &str, to: &str, raw: Vec<u8>) {
        if let Ok(mut memo) = self.shared().diffs.lock() {
            memo.outputs.insert(
                (DiffKind::Raw, from.to_string(), to.to_string()),
                Arc::new(raw),
            );
        }
    }

    /// Keeps the frozen patch of a pair read with `cap` (`None`: over it)
    /// for the [`Repo::frozen_diff`] of the same pair and cap.
    pub(crate) fn remember_frozen(&self, from: &str, to: &str, cap: u64, patch: Option<Vec<u8>>) {
        if let Ok(mut f) = self.shared().frozen.lock() {
            *f = Some(((from.to_string(), to.to_string(), cap), patch));
        }
    }

    /// The frozen patch kept for (from, to, cap), taken once: `Some(None)`
    /// means it was over the cap.
    pub(crate) fn take_frozen(&self, from: &str, to: &str, cap: u64) -> Option<Option<Vec<u8>>> {
        let mut f = self.shared().frozen.lock().ok()?;
        match f.take() {
            Some((key, patch)) if key.0 == from && key.1 == to && key.2 == cap => Some(patch),
            other => {
                *f = other;
                None
            }
        }
    }

    /// Announces tree pairs whose raw diff and numstat will be asked: both
    /// are computed for every pair whose trees are here in one `git
    /// diff-tree --stdin` each, and kept; the numstat only for the pairs
    /// core's bound on diff work takes (the `bound` module, D-R130), charged
    /// in the order announced. A pair with a tree missing is left for its
    /// own process (which reports it); a failure of the batch only leaves
    /// the memo unfilled.
    pub fn prefetch_diffs(&self, pairs: &[(String, String)]) -> Result<(), GitError> {
        self.prefetch(pairs, &[DiffKind::Raw, DiffKind::Numstat], &[])
    }

    /// [`Repo::prefetch_diffs`], and the raw diffs of `raw_also` (no
    /// numstat) in the same `diff-tree --stdin` as the others': what lists
    /// the symbolic links of trees ([`crate::symlinks`]) with no process of
    /// its own.
    pub(crate) fn prefetch_diffs_and_raw(
        &self,
        pairs: &[(String, String)],
        raw_also: &[(String, String)],
    ) -> Result<(), GitError> {
        self.prefetch(pairs, &[DiffKind::Raw, DiffKind::Numstat], raw_also)
    }

    /// [`Repo::prefetch_diffs`] of the raw diffs alone (no blob is read).
    pub(crate) fn prefetch_raw_diffs(&self, pairs: &[(String, String)]) -> Result<(), GitError> {
        self.prefetch(pairs, &[DiffKind::Raw], &[])
    }

    /// Drops what the memo holds for `pairs` (a batch read once, whose
    /// outputs need not be kept).
    pub(crate) fn forget_diffs(&self, pairs: &[(String, String)]) {
        if let Ok(mut memo) = self.shared().diffs.lock() {
            for (from, to) in pairs {
                for kind in [DiffKind::Raw, DiffKind::Numstat] {
                    memo.outputs.remove(&(kind, from.clone(), to.clone()));
                }
            }
        }
    }

    fn prefetch(
        &self,
        pairs: &[(String, String)],
        kinds: &[DiffKind],
        raw_also: &[(String, String)],
    ) -> Result<(), GitError> {
        let last = kinds.last().copied().unwrap_or(DiffKind::Raw);
        let mut asked: Vec<(String, String)> = Vec::new();
        let both = pairs
            .iter()
            .map(|p| (p, last))
            .chain(raw_also.iter().map(|p| (p, DiffKind::Raw)));
        for ((from, to), kind) in both {
            let known = self
                .shared()
                .diffs
                .lock()
                .map(|m| m.outputs.contains_key(&(kind, from.clone(), to.clone())))
                .unwrap_or(false);
            if !known && !asked.iter().any(|(f, t)| f == from && t == to) {
                asked.push((from.clone(), to.clone()));
            }
        }
        // Only pairs of trees git has, by their full ids (one batch).
        let ids: Vec<&str> = asked
            .iter()
            .flat_map(|(f, t)| [f.as_str(), t.as_str()])
            .collect();
        let found = self.reader_batch("info", &ids, 0)?;
        let is_tree = |k: usize| matches!(&found.get(k), Some(Some((i, _, _))) if i.kind == "tree" && i.oid == ids[k]);
        let todo: Vec<(String, String)> = asked
            .iter()
            .enumerate()
            .filter(|(k, _)| is_tree(2 * k) && is_tree(2 * k + 1))
            .map(|(_, p)| p.clone())
            .collect();
        if todo.is_empty() {
            return Ok(());
        }
        for &kind in kinds {
            // Numstat only for the pairs announced for it, and within
            // core's bound on diff work (their raw diffs known now, from
            // the batch before): a pair refused is never diffed, and says
            // so when it is asked.
            let todo: Vec<(String, String)> = todo
                .iter()
                .filter(|p| {
                    kind == DiffKind::Raw || (pairs.contains(p) && self.within_bound(&p.0, &p.1))
                })
                .cloned()
                .collect();
            if todo.is_empty() {
                continue;
            }
            let mut input = Vec::new();
            for (from, to) in &todo {
                input.extend_from_slice(format!("{from} {to}\n").as_bytes());
            }
            let mut args: Vec<&str> = kind.args().to_vec();
            args.push("--stdin");
            let Ok(out) = self.run_with(&args, &[], Some(&input)) else {
                continue;
            };
            let Some(answers) = split_stdin_output(kind, &todo, &out) else {
                continue;
            };
            if let Ok(mut memo) = self.shared().diffs.lock() {
                for ((from, to), answer) in todo.iter().zip(answers) {
                    memo.outputs
                        .insert((kind, from.clone(), to.clone()), Arc::new(answer));
                }
            }
        }
        Ok(())
    }

    /// Whether the pair may be diffed in a batch: its raw diff parses and
    /// core's bound charges it within (anything else is left for the pair's
    /// own ask, which reports it).
    fn within_bound(&self, from: &str, to: &str) -> bool {
        let (Ok(f), Ok(t)) = (
            probity_core::review::TreeId::parse(from),
            probity_core::review::TreeId::parse(to),
        ) else {
            return false;
        };
        let Ok(raw) = self.raw_diff(&f, &t) else {
            return false;
        };
        matches!(
            self.charge_diff(from, to, &raw),
            Ok(crate::bound::Charged::Within)
        )
    }
}

/// Parses the object reader's answer for a commit: its tree and parents,
/// as git's `parse_commit_buffer` reads them. The first line must be the
/// tree; the parents are the `parent` lines right after it, up to the
/// first other line. A second `tree` line (or a parent after another
/// header) is no header git reads: taking it would read another tree or
/// other parents than git checks out and walks (red team round 11). A
/// tree or parent line that is no object id is refused (`None`), as git
/// refuses the commit.
pub(crate) fn commit_tree_and_parents(body: &[u8]) -> Option<(String, Vec<String>)> {
    let mut lines = body.split(|b| *b == b'\n');
    let tree = object_id(lines.next()?.strip_prefix(b"tree ")?)?;
    let mut parents = Vec::new();
    for line in lines {
        let Some(p) = line.strip_prefix(b"parent ") else {
            break;
        };
        parents.push(object_id(p)?);
    }
    Some((tree, parents))
}

/// A full object id in lowercase hex (SHA-1 or SHA-256), as git writes one.
fn object_id(hex: &[u8]) -> Option<String> {
    let ok =
        matches!(hex.len(), 40 | 64) && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| String::from_utf8_lossy(hex).into_owned())
}

/// The empty tree's id for an object format git names (`sha1`, `sha256`):
/// fixed by the hash, so no `hash-object` needs to run.
pub(crate) fn empty_tree_of(format: &str) -> Option<&'static str> {
    match format {
        "sha1" => Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
        "sha256" => Some("6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"),
        _ => None,
    }
}

/// A shared handle, created with the repository.
pub(crate) fn shared() -> Arc<Shared> {
    Arc::new(Shared::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_output_splits_per_pair() {
        let pairs = vec![
            ("a1".to_string(), "b1".to_string()),
            ("a2".to_string(), "b2".to_string()),
            ("a3".to_string(), "b3".to_string()),
        ];
        let raw =
            b"a1 b1\n:000000 100644 00 11 A\0x\ny\0:1 2 3 4 M\0z\0a2 b2\na3 b3\n:1 2 3 4 D\0w\0";
        let parts = split_stdin_output(DiffKind::Raw, &pairs, raw).unwrap();
        assert_eq!(parts[0], b":000000 100644 00 11 A\0x\ny\0:1 2 3 4 M\0z\0");
        assert!(parts[1].is_empty());
        assert_eq!(parts[2], b":1 2 3 4 D\0w\0");
        let num = b"a1 b1\n1\t0\tx\ny\0-\t-\tbin\0a2 b2\na3 b3\n3\t4\tw\0";
        let parts = split_stdin_output(DiffKind::Numstat, &pairs, num).unwrap();
        assert_eq!(parts[0], b"1\t0\tx\ny\0-\t-\tbin\0");
        assert!(parts[1].is_empty());
        assert_eq!(parts[2], b"3\t4\tw\0");
        // Anything out of shape is refused, never guessed.
        assert!(split_stdin_output(DiffKind::Raw, &pairs, b"a1 b1\n").is_none());
        assert!(split_stdin_output(DiffKind::Raw, &pairs, &raw[..raw.len() - 1]).is_none());
    }

    #[test]
    fn commit_headers_parse_as_git_parses_them() {
        let (t1, t2, p1, p2) = (
            "1".repeat(40),
            "2".repeat(40),
            "a".repeat(40),
            "b".repeat(40),
        );
        let body = format!("tree {t1}\nparent {p1}\nparent {p2}\nauthor a\n\nmsg\ntree {t2}\n");
        assert_eq!(
            commit_tree_and_parents(body.as_bytes()),
            Some((t1.clone(), vec![p1.clone(), p2.clone()]))
        );
        // git reads the first tree line only, and the parents right
        // after it: a second tree line ends them and is read by no one.
        let two_trees = format!("tree {t1}\nparent {p1}\ntree {t2}\nparent {p2}\n\nm\n");
        assert_eq!(
            commit_tree_and_parents(two_trees.as_bytes()),
            Some((t1.clone(), vec![p1.clone()]))
        );
        // The tree first, or the commit is git's to refuse.
        let parent_first = format!("parent {p1}\ntree {t1}\n\nm\n");
        assert_eq!(commit_tree_and_parents(parent_first.as_bytes()), None);
        assert_eq!(commit_tree_and_parents(b"author a\n"), None);
        // Ids as git writes them: full, lowercase hex.
        let short = format!("tree {}\n", &t1[..39]);
        assert_eq!(commit_tree_and_parents(short.as_bytes()), None);
        let upper = format!("tree {t1}\nparent {}\n", "A".repeat(40));
        assert_eq!(commit_tree_and_parents(upper.as_bytes()), None);
        let sha256 = format!("tree {}\n\nm\n", "c".repeat(64));
        assert_eq!(
            commit_tree_and_parents(sha256.as_bytes()),
            Some(("c".repeat(64), Vec::new()))
        );
    }
}
