//! `finalize --evidence-cmd -- <argv...>` (and `review --evidence-cmd`,
//! the MCP `finalize`): runs the independent check itself.
//!
//! The check runs in a scratch checkout of the tree it is evidence for
//! (the lineage's final candidate tree; `probity_git::checkout`), never in
//! the live worktree: what it writes joins nothing, and no uncommitted
//! edit fixes or breaks it. Its working directory is the checkout's root,
//! or the same subdirectory of it the command was run from (`--cwd`, or
//! the current directory). It inherits Probity's environment minus the
//! `GIT_*` variables that would name the real repository, its index or
//! objects (what `probity_git::cmd::is_git_env` drops; the identity and
//! `GIT_EXEC_PATH` stay), with `PWD` set to its directory.
//!
//! The program is run directly from its argument vector (never a shell),
//! stdin closed, stdout and stderr merged into one pipe that is hashed
//! while it streams (never held whole; its last
//! [`probity_store::check_output::CHECK_OUTPUT_TAIL_BYTES`] are kept for
//! the user), as the leader of its own process group. When it exits (or at
//! the timeout, then killed) no process of it is left: the group is
//! killed, and on Linux, where Probity is made a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`) for the run, every descendant that left the
//! group (`setsid`, a daemon's double fork) and was reparented to Probity
//! is killed and reaped. What the run proves is decided in core
//! ([`probity_core::review::command_evidence_on`]).

use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use probity_core::digest::{PlainSha256, Sha256Digest};
use probity_core::review::EVIDENCE_DOMAIN;
use probity_core::review::{CommandEvidenceDocument, CommandRun, ExitOutcome, command_evidence_on};
use probity_core::review::{LineageId, TreeId};
use probity_git::Repo;
use probity_store::check_output::{
    CHECK_OUTPUT_SCHEMA, CHECK_OUTPUT_TAIL_BYTES, CheckOutputHeader,
};

use crate::output::{CliError, ErrorKind};

/// A check run on a tree: the run, the tree, the last bytes of its output.
#[derive(Debug, Clone)]
pub struct CheckRun {
    /// What core reads.
    pub run: CommandRun,
    /// The tree the check's checkout held.
    pub tree: TreeId,
    /// The last [`CHECK_OUTPUT_TAIL_BYTES`] bytes of its output (or all).
    pub tail: Vec<u8>,
}

/// The directory, relative to the repository root, the command was run
/// from (`dir`, else the current directory); empty at the root or outside.
fn relative_dir(repo: &Repo, dir: Option<&Path>) -> PathBuf {
    let here = match dir {
        Some(d) => d.to_path_buf(),
        None => match std::env::current_dir() {
            Ok(d) => d,
            Err(_) => return PathBuf::new(),
        },
    };
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(&here)
        .strip_prefix(canon(repo.root()))
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Runs the check `argv` in a scratch checkout of `tree` (see the module
/// documentation), in the subdirectory of it that `dir` (the `--cwd`, or
/// the current directory) is of the repository root. The checkout is
/// removed before this returns.
pub fn run_on_tree(
    repo: &Repo,
    tree: &TreeId,
    argv: &[String],
    timeout: Duration,
    dir: Option<&Path>,
) -> Result<CheckRun, CliError> {
    if argv.is_empty() {
        return Err(missing());
    }
    let checkout = repo
        .scratch_checkout(tree, &std::env::temp_dir())
        .map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "evidence_checkout_failed",
                format!("could not write tree {tree} out for the check: {e}"),
                "make room in the temporary directory ($TMPDIR) and retry; nothing was changed",
            )
        })?;
    let cwd = checkout.root().join(relative_dir(repo, dir));
    probity_scratch::registry::exclusive(|| std::fs::create_dir_all(&cwd)).map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "evidence_checkout_failed",
            format!(
                "could not make {} in the check's checkout: {e}",
                cwd.display()
            ),
            "retry; nothing was changed",
        )
    })?;
    let (run, tail) = run(argv, timeout, &cwd)?;
    drop(checkout);
    Ok(CheckRun {
        run,
        tree: tree.clone(),
        tail,
    })
}

fn missing() -> CliError {
    CliError::new(
        ErrorKind::Usage,
        "evidence_cmd_missing",
        "--evidence-cmd needs a program to run",
        "name the check after `--`: `probity finalize --evidence-cmd -- cargo test`",
    )
}

/// The default `--evidence-timeout`, in seconds.
pub const DEFAULT_EVIDENCE_TIMEOUT_SECS: u64 = 600;

fn spawn_error(argv: &[String], e: std::io::Error) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "evidence_cmd_unavailable",
        format!("could not run `{}`: {e}", argv.join(" ")),
        "name a program on PATH (or by path) after `--`; it is run directly, without a shell",
    )
}

use probity_scratch::registry::kill_group;

/// Runs `argv` with a timeout in `dir` and returns what happened and the
/// output's tail. The output is hashed as it arrives; the run ends when
/// the program exited (then what is left of it is ended) and its output
/// closed, or at the timeout (then everything of it is killed).
fn run(argv: &[String], timeout: Duration, dir: &Path) -> Result<(CommandRun, Vec<u8>), CliError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(missing());
    };
    let (mut reader, writer) = std::io::pipe().map_err(|e| spawn_error(argv, e))?;
    let writer2 = writer.try_clone().map_err(|e| spawn_error(argv, e))?;
    let mut cmd = Command::new(program);
    cmd.current_dir(dir);
    // The user's environment, minus what would point git at the real
    // repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...).
    for (key, _) in std::env::vars_os() {
        if probity_git::cmd::is_git_env(&key) {
            cmd.env_remove(&key);
        }
    }
    cmd.env("PWD", dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .process_group(0);
    // Every process the check leaves is ended once it is over.
    let reaper = reap::Subreaper::begin();
    // The check leads its own process group, so a terminal's Ctrl-C never
    // reaches it: if Probity is interrupted (SIGINT, SIGTERM, SIGHUP), its
    // signal handling kills this group before Probity ends by the signal,
    // with nothing written (see probity-scratch).
    let (mut child, _group) =
        probity_scratch::registry::spawn(&mut cmd, true).map_err(|e| spawn_error(argv, e))?;
    // The parent's copies of the write end must close, or the reader never
    // sees the end of the output.
    drop(cmd);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut hash = PlainSha256::default();
        let mut total: u64 = 0;
        let mut tail: VecDeque<u8> = VecDeque::new();
        let mut buf = vec![0u8; 64 * 1024];
        let result = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    hash.update(&buf[..n]);
                    total = total.saturating_add(n as u64);
                    let last = &buf[n.saturating_sub(CHECK_OUTPUT_TAIL_BYTES)..n];
                    tail.extend(last);
                    let over = tail.len().saturating_sub(CHECK_OUTPUT_TAIL_BYTES);
                    tail.drain(..over);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = tx.send(result.map(|()| (hash.finish(), total, Vec::from(tail))));
    });
    let started = Instant::now();
    let pid = child.id();
    let timed_out = |child: &mut std::process::Child| {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        ExitOutcome::TimedOut {
            after_secs: timeout.as_secs(),
        }
    };
    let wait_error = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "evidence_cmd_io",
            format!("waiting for `{}`: {e}", argv.join(" ")),
            "retry; nothing was changed",
        )
    };
    let mut pause = Duration::from_millis(5);
    let exit = loop {
        match child.try_wait().map_err(wait_error)? {
            Some(status) => {
                break match (status.code(), status.signal()) {
                    (Some(c), _) => ExitOutcome::Code(c),
                    (None, Some(s)) => ExitOutcome::Signal(s),
                    (None, None) => ExitOutcome::Signal(0),
                };
            }
            None if started.elapsed() >= timeout => break timed_out(&mut child),
            None => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
        }
    };
    // No process of the check outlives it: what is left of its group,
    // and (Linux) every descendant that left the group and was reparented
    // to Probity, is killed and reaped.
    kill_group(pid);
    reaper.end_descendants();
    drop(reaper);
    // The output ends when every holder of the pipe closed it: one that
    // escaped the reaping (no subreaper outside Linux) is bounded by the
    // same timeout.
    let left = timeout.saturating_sub(started.elapsed());
    let (output_sha256, output_bytes, exit, tail) = match rx.recv_timeout(left) {
        Ok(Ok((hash, n, tail))) => (hash, n, exit, tail),
        Ok(Err(e)) => return Err(wait_error(e)),
        Err(_) => {
            kill_group(pid);
            let outcome = ExitOutcome::TimedOut {
                after_secs: timeout.as_secs(),
            };
            (PlainSha256::default().finish(), 0, outcome, Vec::new())
        }
    };
    Ok((
        CommandRun {
            argv: argv.to_vec(),
            exit,
            output_sha256,
            output_bytes,
        },
        tail,
    ))
}

/// Ending every process a check leaves (Linux: as its child subreaper).
mod reap {
    #[cfg(target_os = "linux")]
    use std::collections::HashSet;

    /// Probity as the child subreaper of a check's processes, for the
    /// check's run: its descendants that lose their parent (a `setsid`
    /// daemon whose parent exited) are reparented to Probity, not to init,
    /// and [`Subreaper::end_descendants`] ends them; so does an interrupt
    /// of Probity meanwhile (the registry's `Reaper` entry).
    pub struct Subreaper {
        /// Probity's children before the check started: never touched.
        #[cfg(target_os = "linux")]
        before: HashSet<i32>,
        /// Whether Probity was a subreaper already (then it stays one).
        #[cfg(target_os = "linux")]
        was: bool,
        /// The interruption registry's note that a run is reaped here.
        #[cfg(target_os = "linux")]
        _registered: probity_scratch::registry::Registered,
    }

    #[cfg(target_os = "linux")]
    impl Subreaper {
        /// Makes Probity a child subreaper and notes its children.
        pub fn begin() -> Subreaper {
            let mut was: libc::c_int = 0;
            // SAFETY: prctl(2) PR_GET_CHILD_SUBREAPER writes one int to the
            // pointer it is given, which is valid for the call;
            // PR_SET_CHILD_SUBREAPER only sets a flag of this process.
            unsafe {
                libc::prctl(
                    libc::PR_GET_CHILD_SUBREAPER,
                    &mut was as *mut libc::c_int as libc::c_ulong,
                );
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong);
            }
            Subreaper {
                before: probity_scratch::registry::children().into_iter().collect(),
                was: was != 0,
                _registered: probity_scratch::registry::register(
                    probity_scratch::registry::Entry::Reaper,
                ),
            }
        }

        /// Kills and reaps every child of Probity that was not one before
        /// the check and that Probity did not spawn itself (every child it
        /// spawns is in the interruption registry while it lives, spawned
        /// and registered under one lock: another thread's git, say, in
        /// `probity mcp --authority`): what is left is what was
        /// reparented to Probity during the check (the check's own leader
        /// is reaped already). Each one killed hands its own children to
        /// Probity, so this repeats until none is left (bounded).
        pub fn end_descendants(&self) {
            // Read after the children: a child spawned in between is
            // registered by now.
            let mut ours: Vec<i32> = probity_scratch::registry::snapshot()
                .into_iter()
                .filter_map(|e| match e {
                    probity_scratch::registry::Entry::Child(p)
                    | probity_scratch::registry::Entry::Group(p) => i32::try_from(p).ok(),
                    _ => None,
                })
                .collect();
            ours.extend(self.before.iter().copied());
            probity_scratch::registry::end_orphans(
                &ours,
                std::time::Instant::now() + std::time::Duration::from_secs(10),
            );
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for Subreaper {
        fn drop(&mut self) {
            if !self.was {
                // SAFETY: prctl(2) PR_SET_CHILD_SUBREAPER only clears a
                // flag of this process.
                unsafe {
                    libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0 as libc::c_ulong);
                }
            }
        }
    }

    /// Outside Linux there is no subreaper: the check's process group is
    /// killed, and a process that left it is not found.
    #[cfg(not(target_os = "linux"))]
    impl Subreaper {
        pub fn begin() -> Subreaper {
            Subreaper {}
        }
        pub fn end_descendants(&self) {}
    }
}

/// How much of a failing check's output a command prints (the store keeps
/// more: `probity show evidence`).
const PRINTED_TAIL_BYTES: usize = 4 * 1024;
/// At most this many of its last lines.
const PRINTED_TAIL_LINES: usize = 20;

/// What an answer says about the check it ran.
#[derive(Debug, serde::Serialize)]
pub struct CheckAnswer {
    /// The tree the check ran on.
    pub tree: TreeId,
    /// Its argument vector.
    pub argv: Vec<String>,
    /// How it ended (`exit status 7`).
    pub exit: String,
    /// Whether it passed.
    pub passed: bool,
    /// The whole output's length and plain SHA-256.
    pub output_bytes: u64,
    pub output_sha256: probity_core::digest::Sha256Digest,
    /// The last lines of its output (lossy UTF-8), for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
    /// Where the store keeps its output's tail (relative to the store
    /// root), when it could be kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_kept: Option<String>,
}

/// A check's output and evidence document, kept for its lineage before the
/// lineage is handed the check (issue 20 §1): a kill between the approval
/// and the keeping would otherwise strand an approval whose bundle cannot
/// prove its required check, and whose rerun is refused as a different
/// retry. The document is inert until a record takes it (a bundle carries
/// only the documents a record took); [`Kept::settle`] files it once the
/// transition landed, or removes it and puts the previous output back.
#[derive(Debug)]
#[must_use = "settle what was kept once the transition is decided"]
pub struct Kept {
    lineage: LineageId,
    previous_output: Option<Vec<u8>>,
    output_kept: String,
}

/// Keeps `check`'s output and document for `lineage`, before the
/// transition that hands it the check. Nothing is left when this fails.
/// A run that gives no document (a timeout) keeps nothing: the transition
/// refuses it, with its own reason.
pub fn keep_before(
    store: &probity_store::FileStore,
    lineage: &LineageId,
    check: &CheckRun,
) -> Result<Option<Kept>, CliError> {
    let refused = |e: String| {
        CliError::new(
            ErrorKind::Io,
            "store_io",
            format!(
                "the check's output and evidence document could not be kept for {lineage}: {e}"
            ),
            "check permissions and free space under the git common dir, then rerun the same command; nothing was changed",
        )
    };
    let passed = check.run.exit == ExitOutcome::Code(0);
    let Ok(doc) = command_evidence_on(&check.run, &check.tree) else {
        return Ok(None);
    };
    // The document travels in the lineage's bundle (D-R69), so a server can
    // hold the approval to the required checks.
    let carried = CommandEvidenceDocument::parse(&doc.bytes).map_err(|e| refused(e.to_string()))?;
    let header = CheckOutputHeader {
        schema: CHECK_OUTPUT_SCHEMA.into(),
        lineage_id: lineage.clone(),
        tree: check.tree.clone(),
        argv: check.run.argv.clone(),
        exit: check.run.exit.to_string(),
        passed,
        output_sha256: check.run.output_sha256,
        output_bytes: check.run.output_bytes,
        tail_bytes: check.tail.len() as u64,
        evidence_hash: Sha256Digest::of(EVIDENCE_DOMAIN, &doc.bytes),
    };
    // A kept output that is not one (over its bound: a diagnostic someone
    // wrote by hand) is replaced, never a reason to refuse the check; if the
    // lineage refuses the check, it goes rather than comes back.
    let previous_output = match store.check_output_bytes(lineage) {
        Ok(bytes) => bytes,
        Err(probity_ports::review::StoreError::Malformed { .. }) => None,
        Err(e) => return Err(refused(e.to_string())),
    };
    store
        .keep_pending_evidence(lineage, &carried)
        .map_err(|e| refused(e.to_string()))?;
    match store.keep_check_output(&header, &check.tail) {
        Ok(output_kept) => Ok(Some(Kept {
            lineage: lineage.clone(),
            previous_output,
            output_kept,
        })),
        Err(e) => {
            // Nothing left: the pending document goes (the output was not
            // replaced).
            if let Err(e) = store.settle_pending_evidence(lineage, false) {
                eprintln!("warning: a pending evidence document could not be removed: {e}");
            }
            Err(refused(e.to_string()))
        }
    }
}

impl Kept {
    /// Settles what [`keep_before`] kept, once the transition is decided:
    /// `taken` when it landed (the document joins the lineage's kept
    /// documents); otherwise the document goes and the previous output is
    /// put back. A failure here is a warning: the authority is decided,
    /// and a pending document still travels (export reads it).
    pub fn settle(self, store: &probity_store::FileStore, taken: bool) -> Option<String> {
        if let Err(e) = store.settle_pending_evidence(&self.lineage, taken) {
            eprintln!("warning: the check's evidence document could not be filed: {e}");
        }
        if taken {
            return Some(self.output_kept);
        }
        if let Err(e) = store.restore_check_output(&self.lineage, self.previous_output.as_deref()) {
            eprintln!("warning: the previous check output could not be put back: {e}");
        }
        None
    }
}

/// Hands the lineage `target` a check Probity ran, through `finalize` (the
/// transition): its output and document are kept first, and settled once
/// the transition is decided.
pub fn finalize_with_check<T>(
    store: &probity_store::FileStore,
    lineage: &LineageId,
    check: &CheckRun,
    finalize: impl FnOnce() -> Result<T, CliError>,
) -> Result<(T, CheckAnswer), CliError> {
    let kept = keep_before(store, lineage, check)?;
    let done = finalize();
    let output_kept = kept.and_then(|k| k.settle(store, done.is_ok()));
    Ok((done?, CheckAnswer::of(check, output_kept)))
}

impl CheckAnswer {
    /// The answer for a check the lineage took; `output_kept` is where the
    /// store keeps its output (relative to the store root).
    pub fn of(check: &CheckRun, output_kept: Option<String>) -> Self {
        let passed = check.run.exit == ExitOutcome::Code(0);
        CheckAnswer {
            tree: check.tree.clone(),
            argv: check.run.argv.clone(),
            exit: check.run.exit.to_string(),
            passed,
            output_bytes: check.run.output_bytes,
            output_sha256: check.run.output_sha256,
            output_tail: (!passed).then(|| printed_tail(&check.tail)),
            output_kept,
        }
    }

    /// The human lines: for a failure, its status and its output's tail.
    pub fn human(&self, lineage: &LineageId) -> String {
        if self.passed {
            return format!("  check passed on tree {}\n", self.tree);
        }
        let mut t = format!(
            "  check `{}` failed on tree {}: {} ({} bytes of output, sha256 {})\n",
            self.argv.join(" "),
            self.tree,
            self.exit,
            self.output_bytes,
            self.output_sha256
        );
        if let Some(tail) = &self.output_tail {
            t.push_str("  its output ends:\n");
            for line in tail.lines() {
                t.push_str(&format!("    | {line}\n"));
            }
        }
        if self.output_kept.is_some() {
            t.push_str(&format!(
                "  more of its output: probity show evidence --lineage {lineage}\n"
            ));
        }
        t
    }
}

/// The last lines of `tail` a command prints.
fn printed_tail(tail: &[u8]) -> String {
    let text = String::from_utf8_lossy(&tail[tail.len().saturating_sub(PRINTED_TAIL_BYTES)..])
        .into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[lines.len().saturating_sub(PRINTED_TAIL_LINES)..].join("\n");
    out.push('\n');
    out
}
