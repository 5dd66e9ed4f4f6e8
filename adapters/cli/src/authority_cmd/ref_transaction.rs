//! `probity validate reference-transaction <STATE>` (the managed
//! `reference-transaction` hook of a bare repository) and the record an
//! allowing `pre-receive` leaves it (D-R149).
//!
//! An allowing `pre-receive` whose push brings its notes beside a
//! protected update writes what it relied on ([`JudgedNotes`]) under the
//! repository's git directory, in a file named for the `receive-pack`
//! applying the push (its process id and start time, from `/proc`): only
//! that push's transactions read it, and a record whose `receive-pack` is
//! gone is removed by the next one written. At `prepared`, each of the
//! push's transactions is held to it ([`check_transaction`]); a refusal
//! makes git abort the transaction, and git 2.47 ends the push there.
//! Where `/proc` is not (not Linux) nothing is recorded and nothing held:
//! the race stays as `docs/threat-model.md` describes.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::review::{
    CommitId, JudgedNotes, MAX_JUDGED_NOTES_BYTES, MAX_TRANSACTION_BYTES, NOTES_NOT_IN_PLACE_NEXT,
    NOTES_REF, NotesNotInPlace, check_transaction, parse_transaction,
};
use probity_git::Repo;

use super::pre_receive::ServerFaults;
use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

/// The directory, in the repository's git directory, of the records.
pub const JUDGED_DIR: &str = "probity-receive";

/// The most records looked at for removal when one is written: each
/// receive-pack that wrote one and is gone; more are removed by later
/// pushes.
const PRUNE_SCAN: usize = 1024;

/// `validate reference-transaction`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct RefTransactionArgs {
    /// The transaction's state, git's `$1` (`prepared`, `committed`,
    /// `aborted`): only `prepared` is judged, every other passes.
    #[arg(value_name = "STATE")]
    pub state: String,
}

/// The `receive-pack` this process runs under (its hook's parent, or the
/// first above it for a hook a wrapper script runs), as `<pid>-<start
/// time>`: `None` outside one, or without `/proc`.
pub fn receiving_push() -> Option<String> {
    #[cfg(unix)]
    {
        let mut pid = std::os::unix::process::parent_id();
        for _ in 0..8 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (comm, ppid, start) = proc_stat(&stat)?;
            if is_receive_pack(pid, comm) {
                return Some(format!("{pid}-{start}"));
            }
            if ppid <= 1 {
                return None;
            }
            pid = ppid;
        }
        None
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A `/proc/<pid>/stat` line's command name, parent and start time (its
/// second, fourth and 22nd fields), read around the name's parentheses,
/// which the name itself may hold.
fn proc_stat(stat: &str) -> Option<(&str, u32, u64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?;
    let mut rest = stat.get(close + 1..)?.split_ascii_whitespace();
    let ppid = rest.nth(1)?.parse().ok()?;
    let start = rest.nth(17)?.parse().ok()?;
    Some((comm, ppid, start))
}

/// Whether process `pid`, named `comm`, is git's `receive-pack`: run as
/// `git-receive-pack` (the name the kernel keeps is cut at 15 bytes), or
/// as `git receive-pack` (smart HTTP).
fn is_receive_pack(pid: u32, comm: &str) -> bool {
    match comm {
        "git-receive-pac" | "git-receive-pack" => true,
        "git" => std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"receive-pack")),
        _ => false,
    }
}

/// Whether the process a record is named for (`<pid>-<start time>`)
/// still runs.
fn alive(name: &str) -> bool {
    let Some((pid, start)) = name.split_once('-') else {
        return false;
    };
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| proc_stat(&s).map(|(_, _, st)| st.to_string() == start))
        .unwrap_or(false)
}

/// Writes `judged` for the push `key` applies, in `git_dir`, and removes
/// the records of receive-packs that are gone. Visible whole or not at all
/// (a temporary file renamed), and not made durable: it lives as long as
/// the push, which a crash ends too.
pub fn record_judged(git_dir: &Path, key: &str, judged: &JudgedNotes) -> std::io::Result<()> {
    let dir = git_dir.join(JUDGED_DIR);
    std::fs::create_dir_all(&dir)?;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten().take(PRUNE_SCAN) {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let own = name.strip_suffix(".tmp").unwrap_or(&name);
            if own != key && !alive(own) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let tmp = dir.join(format!("{key}.tmp"));
    // Registered before it exists: a hook interrupted (a terminal's Ctrl-C
    // reaches a local push's hook) before the rename leaves no `.tmp`.
    let _registered = probity_scratch::registry::artifact(&tmp);
    std::fs::write(&tmp, judged.to_bytes())?;
    std::fs::rename(&tmp, dir.join(key))
}

/// The record of the push `key` in `git_dir`: `None` when it wrote none.
fn read_judged(git_dir: &Path, key: &str) -> Result<Option<JudgedNotes>, String> {
    let path = git_dir.join(JUDGED_DIR).join(key);
    // Only a regular file is opened: a FIFO there would block the hook,
    // and git's ref update behind it.
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(format!("{} is not a regular file", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_JUDGED_NOTES_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    JudgedNotes::parse(&bytes)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The git directory a hook runs in: git's `GIT_DIR` (`.` for a bare
/// repository's hooks, which run there) against the working directory.
fn hook_git_dir(global: &GlobalArgs) -> Result<PathBuf, CliError> {
    let cwd = super::discovery_dir(global.cwd.clone())?;
    Ok(match std::env::var_os("GIT_DIR") {
        Some(d) => cwd.join(d),
        None => cwd,
    })
}

/// The refusal, as the hook prints it (git passes its stderr on to the
/// pusher over ssh and local transports; smart HTTP keeps it in the web
/// server's log, which is why `pre-receive` says it first).
#[derive(Debug, Serialize)]
struct Refusal<'a> {
    gate: &'static str,
    decision: &'static str,
    reason_code: &'static str,
    #[serde(rename = "ref")]
    refname: &'a str,
    notes: &'a CommitId,
    found: Option<&'a CommitId>,
    message: String,
    next_step: &'static str,
}

fn refuse(why: &str) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "notes_not_in_place",
        format!(
            "this push's ref updates cannot be held to the notes they were judged with ({why}); nothing more of it is applied"
        ),
        NOTES_NOT_IN_PLACE_NEXT,
    )
}

/// `validate reference-transaction <STATE>`: passes every state but
/// `prepared`, every transaction no allowing `pre-receive` of its push
/// recorded, and every one whose judged updates find their notes in place;
/// refuses the rest (exit 1), and fails closed on a record, input or
/// repository it cannot read.
pub(super) fn reference_transaction(
    global: &GlobalArgs,
    out: Output,
    args: &RefTransactionArgs,
) -> Result<ExitCode, CliError> {
    if args.state != "prepared" {
        return Ok(ExitCode::SUCCESS);
    }
    let Some(key) = receiving_push() else {
        return Ok(ExitCode::SUCCESS);
    };
    let git_dir = hook_git_dir(global)?;
    let faults = ServerFaults::new(true, git_dir.clone());
    // A record that cannot be read is the server's fault: logged, and the
    // pusher told without the server's paths.
    let judged = read_judged(&git_dir, &key).map_err(|e| faults.error(refuse(&e)))?;
    let Some(judged) = judged else {
        return Ok(ExitCode::SUCCESS);
    };
    let input = super::read_input(Path::new("-"), MAX_TRANSACTION_BYTES as u64)?.bytes;
    let input = String::from_utf8(input).map_err(|_| refuse("the input is not UTF-8"))?;
    let lines = parse_transaction(&input).map_err(|e| refuse(&e.to_string()))?;
    // Opened only when asked (an atomic push's transaction sets the notes
    // from where the files say they are, so usually not at all), with
    // git's configuration from
    // the environment as the receiving git read it; git refusing the
    // repository is the server's fault, told as the gate tells it.
    let open = || {
        Repo::discover_allow_bare(super::git_cli().with_receive_config(), &git_dir).map_err(|e| {
            faults.error(CliError::new(
                ErrorKind::Repository,
                "repository_error",
                e.to_string(),
                "fix what git says, then push again",
            ))
        })
    };
    let read_err = |e: probity_git::GitError| {
        faults.error(CliError::new(
            ErrorKind::Repository,
            "repository_error",
            e.to_string(),
            "fix what git says, then push again",
        ))
    };
    let verdict = check_transaction(
        &judged,
        &lines,
        || {
            // From the ref's files when they answer (no process), else git.
            let id = match probity_git::read_ref_files(&git_dir, NOTES_REF).map_err(read_err)? {
                Some(found) => found,
                None => open()?.exact_ref(NOTES_REF).map_err(read_err)?,
            };
            id.map(|id| CommitId::parse(&id))
                .transpose()
                .map_err(|e| refuse(&e.to_string()))
        },
        || match probity_git::ref_blocked_files(&git_dir, NOTES_REF) {
            Some(blocked) => Ok(blocked),
            None => open()?.ref_blocked(NOTES_REF).map_err(read_err),
        },
    )?;
    match verdict {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(n) => refused(out, &n),
    }
}

fn refused(out: Output, n: &NotesNotInPlace) -> Result<ExitCode, CliError> {
    let answer = Refusal {
        gate: "reference-transaction",
        decision: "deny",
        reason_code: "notes_not_in_place",
        refname: &n.refname,
        notes: &n.notes,
        found: n.found.as_ref(),
        message: n.to_string(),
        next_step: NOTES_NOT_IN_PLACE_NEXT,
    };
    if out.json {
        out.answer(&answer, String::new);
    } else {
        eprint!(
            "probity reference-transaction DENY: notes_not_in_place\n  {n}\n  next: {NOTES_NOT_IN_PLACE_NEXT}\n"
        );
    }
    Ok(ExitCode::from(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_around_a_name_holding_parentheses() {
        let mut stat = "4242 (git (x) y) S 77 4242 4242 0 -1 4194560".to_string();
        for i in 0..12 {
            stat.push_str(&format!(" {i}"));
        }
        stat.push_str(" 9001 0 0");
        assert_eq!(proc_stat(&stat), Some(("git (x) y", 77, 9001)));
        assert_eq!(proc_stat("4242 (git) S"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_alive_by_its_start_time_only() {
        let me = std::process::id();
        let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
        let (_, _, start) = proc_stat(&stat).unwrap();
        assert!(alive(&format!("{me}-{start}")));
        assert!(!alive(&format!("{me}-{}", start + 1)));
        assert!(!alive("junk"));
        // Run by the test harness, under no receive-pack.
        assert_eq!(receiving_push(), None);
    }

    #[test]
    fn a_record_replaces_its_own_and_removes_the_gone() {
        let dir = tempfile::tempdir().unwrap();
        let judged = JudgedNotes::parse(
            format!(
                "{}\nnotes {}\n{} {}\n",
                probity_core::review::JUDGED_NOTES_HEADER,
                "2".repeat(40),
                "a".repeat(40),
                "b".repeat(40)
            )
            .as_bytes(),
        )
        .unwrap();
        let records = dir.path().join(JUDGED_DIR);
        std::fs::create_dir_all(&records).unwrap();
        std::fs::write(records.join("999999999-1"), b"gone").unwrap();
        std::fs::write(records.join("999999999-1.tmp"), b"gone").unwrap();
        record_judged(dir.path(), "77-5", &judged).unwrap();
        record_judged(dir.path(), "77-5", &judged).unwrap();
        let names: Vec<String> = std::fs::read_dir(&records)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["77-5".to_string()]);
        assert_eq!(read_judged(dir.path(), "77-5"), Ok(Some(judged)));
        assert_eq!(read_judged(dir.path(), "78-5"), Ok(None));
        std::fs::write(records.join("79-5"), b"damaged").unwrap();
        assert!(read_judged(dir.path(), "79-5").is_err());
        // A FIFO or a directory where a record is kept: refused, never
        // opened (the test would hang on a FIFO's open).
        std::fs::create_dir(records.join("80-5")).unwrap();
        assert!(read_judged(dir.path(), "80-5").is_err());
        #[cfg(unix)]
        {
            let fifo = records.join("81-5");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(read_judged(dir.path(), "81-5").is_err());
            }
        }
    }
}
