//! `probity snapshot read|grep|list`: the reviewer's three tools for
//! scripts, over one subject, with an optional budget shared across calls
//! through a budget file.
//!
//! The tool contract is fail-open: a refused path, a file that is not in the
//! snapshot or a spent budget is the tool's answer (exit 0, `is_error` in
//! JSON), not a command failure. Only a bad subject, configuration or budget
//! file fails the command.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use probity_core::snapshot_tools::ArgError;
use probity_core::snapshot_tools::{
    Event, Glob, GrepQuery, ReviewConfig, Session, SessionState, SnapshotPath, ToolQuery,
    parse_config,
};
use probity_git::subject::{OpenError, Subject, SubjectSpec};
use probity_ports::snapshot::call_query;
use serde_json::json;

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

/// Flags shared by the three tools.
#[derive(Debug, Clone, Args)]
pub struct SubjectArgs {
    /// What to read: index, worktree, disk or tree:<oid>.
    #[arg(long, value_name = "S")]
    pub subject: String,
    /// A JSON file holding the budget used so far; created if missing and
    /// updated after the call, so several calls share one budget.
    #[arg(long, value_name = "F")]
    pub budget_file: Option<PathBuf>,
    /// A flat JSON configuration (reviewSnapshotMaxCalls, ...).
    #[arg(long, value_name = "F")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    pub tool: SnapshotTool,
}

#[derive(Debug, Subcommand)]
pub enum SnapshotTool {
    /// Print a file of the snapshot (lines from --offset, at most --limit).
    Read {
        /// Repo-relative path (use `--` before a path that starts with `-`).
        #[arg(value_name = "PATH")]
        path: OsString,
        /// 1-based line to start from.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        offset: Option<u64>,
        /// How many lines at most.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        limit: Option<u64>,
        #[command(flatten)]
        subject: SubjectArgs,
    },
    /// Search the snapshot: `path:line:text` rows (Perl/Rust regex, or -F).
    Grep {
        /// The pattern (use `--` before one that starts with `-`).
        #[arg(value_name = "PATTERN")]
        pattern: String,
        /// A file or directory to search.
        #[arg(value_name = "PATH")]
        path: Option<OsString>,
        /// Match case-insensitively.
        #[arg(long, short = 'i')]
        ignore_case: bool,
        /// Match the pattern as a fixed string.
        #[arg(long, short = 'F')]
        fixed: bool,
        #[command(flatten)]
        subject: SubjectArgs,
    },
    /// List the snapshot's paths matching a glob.
    List {
        #[arg(value_name = "GLOB")]
        glob: Option<OsString>,
        #[command(flatten)]
        subject: SubjectArgs,
    },
}

fn os_bytes(s: &OsString) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        s.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().as_bytes().to_vec()
    }
}

/// Loads the configuration file, or the defaults.
/// Where the structured tool log goes: appended to `path`, or stderr.
pub fn open_log(path: Option<&Path>) -> Result<Box<dyn std::io::Write + Send>, CliError> {
    match path {
        Some(p) => probity_scratch::output::open_append(p)
            .map(|f| Box::new(f) as Box<dyn std::io::Write + Send>)
            .map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "log_file_unwritable",
                    format!("cannot open {}: {e}", p.display()),
                    "check the --log-file path",
                )
            }),
        None => Ok(Box::new(std::io::stderr())),
    }
}

pub fn load_config(path: Option<&Path>) -> Result<ReviewConfig, CliError> {
    let Some(path) = path else {
        return Ok(ReviewConfig::default());
    };
    // A regular file only (a FIFO or a device is refused at once), read
    // under its bound.
    let bytes =
        crate::authority_cmd::read_input(path, probity_core::snapshot_tools::MAX_CONFIG_BYTES)?
            .bytes;
    // Bad content is rejected input (exit 3), not an I/O failure.
    let text = String::from_utf8(bytes).map_err(|_| {
        CliError::new(
            ErrorKind::RejectedInput,
            "bad_config",
            format!("{}: not UTF-8", path.display()),
            "write the configuration as UTF-8 JSON; the keys are listed in docs/snapshot-tools.md",
        )
    })?;
    parse_config(&text).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "bad_config",
            format!("{}: {e}", path.display()),
            "fix the configuration; the keys are listed in docs/snapshot-tools.md",
        )
    })
}

/// The directory commands discover from.
pub fn cwd(global: &GlobalArgs) -> Result<PathBuf, CliError> {
    match &global.cwd {
        Some(p) => Ok(p.clone()),
        None => std::env::current_dir().map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "no_cwd",
                format!("cannot determine the current directory: {e}"),
                "pass --cwd",
            )
        }),
    }
}

/// Opens a subject by name from `--cwd`. Git missing is not a command
/// failure: the subject is [`Subject::Unavailable`] and every tool call
/// answers the error as its result (S2.4); "not a repository" still fails
/// the command (exit 5).
pub fn open_subject(global: &GlobalArgs, name: &str) -> Result<Subject, CliError> {
    let spec: SubjectSpec = name
        .parse()
        .map_err(|e: probity_git::subject::SubjectSpecError| {
            CliError::new(
                ErrorKind::Usage,
                "bad_subject",
                e.to_string(),
                "use --subject index, worktree, disk or tree:<oid>",
            )
        })?;
    let git = crate::authority_cmd::git_cli();
    Subject::open_fail_open(&spec, git, &cwd(global)?).map_err(|e| match e {
        OpenError::NoSuchTree { .. } => CliError::new(
            ErrorKind::RejectedInput,
            "no_such_tree",
            e.to_string(),
            "pass a tree or commit id of this repository",
        ),
        OpenError::Git(_) => CliError::new(
            ErrorKind::Repository,
            "repository_error",
            e.to_string(),
            "run from inside a git work tree (or pass --cwd), with git 2.41 or newer",
        ),
        OpenError::Root { .. } => CliError::new(
            ErrorKind::Io,
            "bad_root",
            e.to_string(),
            "pass an existing directory with --cwd",
        ),
    })
}

/// The budget file every name for it shares: a final symbolic link is
/// followed (a chain of them, up to 40) and the parent directory
/// canonicalized, so `link.json -> real.json` and `real.json` are one
/// budget with one lock (`<resolved>.lock`), and saving replaces the
/// target, not the link.
fn resolve_budget_path(path: &Path) -> Result<PathBuf, CliError> {
    let bad = |why: String| {
        CliError::new(
            ErrorKind::Io,
            "budget_file_unresolvable",
            why,
            "check the --budget-file path",
        )
    };
    let mut cur = path.to_path_buf();
    let mut hops = 0;
    while std::fs::symlink_metadata(&cur).is_ok_and(|m| m.file_type().is_symlink()) {
        hops += 1;
        if hops > 40 {
            return Err(bad(format!(
                "{}: too many levels of symbolic links",
                path.display()
            )));
        }
        let target = std::fs::read_link(&cur)
            .map_err(|e| bad(format!("cannot read the link {}: {e}", cur.display())))?;
        cur = match cur.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    let name = cur
        .file_name()
        .ok_or_else(|| bad(format!("{} does not name a file", path.display())))?
        .to_owned();
    let dir = match cur.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(&dir)
        .map_err(|e| bad(format!("cannot resolve {}: {e}", dir.display())))?;
    Ok(dir.join(name))
}

/// The lock serializing the calls that share a budget file: an exclusive
/// lock on `<budget-file>.lock`, held from loading the state through saving
/// it, so concurrent calls are counted one after another and never spend
/// more than the budget. The lock file stays (removing it would race).
fn lock_budget(path: &Path) -> Result<std::fs::File, CliError> {
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let lock_path = PathBuf::from(lock_path);
    let io = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "budget_file_unlockable",
            format!("cannot lock {}: {e}", lock_path.display()),
            "check the --budget-file path",
        )
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

/// The largest budget file read or written (`--budget-file`): 16 MiB, far
/// beyond a session's ledger at any sane `reviewSnapshotMaxCalls`.
pub const MAX_BUDGET_FILE_BYTES: u64 = 16 << 20;

/// Loads a session state: a regular file of at most
/// [`MAX_BUDGET_FILE_BYTES`] (the shared bounded reader: a FIFO, a directory
/// or a device is refused at once), read strictly (one JSON value, no
/// repeated key, no integer past 2^53). A missing file is a new budget.
/// Called once before the lock file is made (so nothing is created beside
/// a path that is refused) and again under the lock.
fn load_state(path: &Path) -> Result<SessionState, CliError> {
    use probity_scratch::input::{InputError, read_regular};
    let bytes = match read_regular(path, MAX_BUDGET_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(InputError::Unreadable(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(SessionState::default());
        }
        Err(e) => return Err(crate::authority_cmd::input_error(path, e)),
    };
    probity_core::canonical::from_slice_strict(&bytes).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "bad_budget_file",
            format!("{} is not a budget file: {e}", path.display()),
            "remove it to start a new budget",
        )
    })
}

fn save_state(path: &Path, state: &SessionState) -> Result<(), CliError> {
    let io = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "budget_file_unwritable",
            format!("cannot write {}: {e}", path.display()),
            "check the --budget-file path",
        )
    };
    let bytes = serde_json::to_vec_pretty(state).map_err(|e| io(std::io::Error::other(e)))?;
    // Never write a state the next call would refuse to load.
    if bytes.len() as u64 > MAX_BUDGET_FILE_BYTES {
        return Err(io(std::io::Error::other(format!(
            "the session state would be over the {MAX_BUDGET_FILE_BYTES}-byte budget-file limit"
        ))));
    }
    // Keep the budget file's permissions (the temporary file is 0600).
    let keep = std::fs::metadata(path).ok().map(|m| m.permissions());
    probity_scratch::write_atomic(path, &bytes, ".probity-budget-", keep).map_err(io)
}

/// Writes events as JSON lines on stderr (the structured log).
pub fn log_events(events: &[Event]) {
    let mut err = std::io::stderr().lock();
    for e in events {
        if let Ok(line) = serde_json::to_string(e) {
            let _ = writeln!(err, "{line}");
        }
    }
}

pub fn run(global: &GlobalArgs, out: Output, args: &SnapshotArgs) -> Result<ExitCode, CliError> {
    let (subject_args, query): (&SubjectArgs, Result<ToolQuery, ArgError>) = match &args.tool {
        SnapshotTool::Read {
            path,
            offset,
            limit,
            subject,
        } => (
            subject,
            SnapshotPath::parse(&os_bytes(path))
                .map(|path| ToolQuery::Read {
                    path,
                    offset: offset.unwrap_or(1),
                    limit: *limit,
                })
                .map_err(ArgError::from),
        ),
        SnapshotTool::Grep {
            pattern,
            path,
            ignore_case,
            fixed,
            subject,
        } => (
            subject,
            GrepQuery::new(
                pattern,
                path.as_ref().map(os_bytes).as_deref(),
                *ignore_case,
                *fixed,
            )
            .map(ToolQuery::Grep),
        ),
        SnapshotTool::List { glob, subject } => (
            subject,
            match glob {
                None => Ok(ToolQuery::List { glob: None }),
                Some(g) => Glob::parse(&os_bytes(g))
                    .map(|glob| ToolQuery::List { glob })
                    .map_err(ArgError::from),
            },
        ),
    };
    let config = load_config(subject_args.config.as_deref())?;
    let reader = open_subject(global, &subject_args.subject)?;
    // One resolved path for the lock, the load and the save.
    let budget_file = match &subject_args.budget_file {
        Some(p) => Some(resolve_budget_path(p)?),
        None => None,
    };
    // Every refusal of the file itself comes before its lock file is made.
    if let Some(p) = &budget_file {
        load_state(p)?;
    }
    // Held until the state is saved (dropping the file releases the lock).
    let lock = match &budget_file {
        Some(p) => Some(lock_budget(p)?),
        None => None,
    };
    let state = match &budget_file {
        Some(p) => load_state(p)?,
        None => SessionState::default(),
    };
    let mut session = Session::resume(config.budget(), state);
    let completed = match query {
        Ok(q) => call_query(&mut session, &reader, q),
        // A refused argument is still a call of the contract: counted, logged
        // and answered. Re-parse through the JSON contract for the event.
        Err(_) => {
            let (name, args) = refused_as_json(&args.tool);
            probity_ports::snapshot::call_tool(&mut session, &reader, name, &args)
        }
    };
    if let Some(p) = &budget_file {
        save_state(p, session.state())?;
    }
    drop(lock);
    if !out.json {
        log_events(&completed.events);
    }
    let usage = session.usage();
    let limits = session.limits();
    let doc = ToolAnswer {
        budget: BudgetAnswer {
            bytes_used: usage.bytes_used,
            calls_used: usage.calls_used,
            max_bytes: limits.max_bytes,
            max_calls: limits.max_calls,
        },
        events: crate::output::value_of(&completed.events),
        footer: session.footer(&[]),
        is_error: completed.is_error,
        result: &completed.text,
    };
    out.answer(&doc, || {
        // The tool's text is the answer; a terminal wants it to end a line.
        let mut text = completed.text.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    });
    Ok(ExitCode::SUCCESS)
}

/// The JSON form of a call whose arguments the CLI refused, so the session
/// logs it like any other refused call. Only reached with UTF-8-checked
/// lossy text; the refusal reason does not depend on invalid bytes.
fn refused_as_json(tool: &SnapshotTool) -> (&'static str, serde_json::Value) {
    let lossy = |s: &OsString| s.to_string_lossy().into_owned();
    match tool {
        SnapshotTool::Read {
            path,
            offset,
            limit,
            ..
        } => (
            "read",
            json!({"path": lossy(path), "offset": offset, "limit": limit}),
        ),
        SnapshotTool::Grep {
            pattern,
            path,
            ignore_case,
            fixed,
            ..
        } => (
            "grep",
            json!({"pattern": pattern, "path": path.as_ref().map(lossy), "ignore_case": ignore_case, "fixed": fixed}),
        ),
        SnapshotTool::List { glob, .. } => ("list", json!({"glob": glob.as_ref().map(lossy)})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::snapshot_tools::parse_call;

    #[test]
    fn refused_arguments_keep_their_reason_through_json() {
        let tool = SnapshotTool::Read {
            path: OsString::from("../x"),
            offset: None,
            limit: None,
            subject: SubjectArgs {
                subject: "index".into(),
                budget_file: None,
                config: None,
            },
        };
        let (name, args) = refused_as_json(&tool);
        let err = parse_call(name, &args).unwrap_err();
        assert!(err.to_string().contains("escapes the repository root"));
    }
}

/// A tool call's answer (`probity snapshot read|grep|list --json`), in the
/// order its keys were always printed (sorted).
#[derive(Debug, serde::Serialize)]
struct ToolAnswer<'a> {
    /// The call's budget after it.
    budget: BudgetAnswer,
    /// The events the call logged, as JSON values (their keys sorted, as
    /// this answer has always printed them).
    events: serde_json::Value,
    /// The reviewer's footer, when a budget is spent.
    footer: Option<String>,
    /// Whether the call answered an error.
    is_error: bool,
    /// What the reviewer reads.
    result: &'a str,
}

/// Calls and bytes used, and their limits.
#[derive(Debug, serde::Serialize)]
struct BudgetAnswer {
    bytes_used: u64,
    calls_used: u32,
    max_bytes: u64,
    max_calls: u32,
}
