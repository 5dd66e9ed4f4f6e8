//! Authority that travels (R11): `probity bundle export | import`,
//! `probity publish`, `probity push`, and the server hook
//! (`probity hooks install --server`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::bundle::{Bundle, MAX_BUNDLE_BYTES};
use probity_core::review::ids::{CommitId, LineageId};
use probity_core::review::server::{NOTES_REF, SERVER_MARKER, pre_receive_script};
use probity_git::Repo;
use probity_ports::review::{self as drivers, RemoteScope, TransportError};
use probity_store::FileStore;

use crate::GlobalArgs;
use crate::authority_cmd::{open, parse_lineage, review_error};
use crate::hooks_cmd::{HookAction, HooksAnswer};
use crate::output::{CliError, ErrorKind, Output};

/// `probity bundle ...`
#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Print (or write) a lineage's whole chain as one canonical bundle.
    Export(ExportArgs),
    /// Verify a bundle against this repository and import it into the store.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The lineage whose chain (generation 1 to its leaf) is exported.
    #[arg(long, value_name = "ID")]
    pub lineage: String,
    /// Write the bundle here (canonical JSON + LF) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The bundle file (at most 4 MiB).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The commits to publish for, `A..B` (default: the commits of HEAD no
    /// remote-tracking ref holds).
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
}

/// Maps a transport failure to what the user sees.
pub fn transport_error(e: TransportError) -> CliError {
    let e = match e {
        TransportError::Review(r) => return review_error(r),
        other => other,
    };
    let (kind, next) = match &e {
        TransportError::Review(_) | TransportError::Bundle(_) | TransportError::Note { .. } => (
            ErrorKind::RejectedInput,
            "the bundle is not one `probity bundle export` wrote, unchanged: export it again from the clone that holds the review; nothing was written",
        ),
        TransportError::Scope(_) => (
            ErrorKind::Integrity,
            "the bundle's records do not match the trees they name in this repository; nothing was written",
        ),
        TransportError::Derivation(_) => (
            ErrorKind::Integrity,
            "the review froze a risk, a budget or prompts its own trees do not give: review the change again with this Probity version (`probity start`), then publish it; nothing was written",
        ),
        TransportError::ObjectsMissing { .. } => (
            ErrorKind::Repository,
            "fetch the commits the bundle's review covers (or push them here) first, then import again; nothing was written",
        ),
        TransportError::Conflict { .. } => (
            ErrorKind::Conflict,
            "this store holds other authority for the same lineage or candidate; nothing was merged or written: inspect both with `probity status --lineage <id>`",
        ),
    };
    let code = e.code().unwrap_or("bundle_invalid");
    CliError::new(kind, code, e.to_string(), next)
}

pub(crate) fn repo_error(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "fix the repository error above and retry",
    )
}

pub fn bundle(global: &GlobalArgs, out: Output, cmd: &BundleCommand) -> Result<ExitCode, CliError> {
    match cmd {
        BundleCommand::Export(a) => export(global, out, a),
        BundleCommand::Import(a) => import(global, out, a),
    }
}

fn export(global: &GlobalArgs, out: Output, args: &ExportArgs) -> Result<ExitCode, CliError> {
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    let b = drivers::export_bundle(&ctx.store, &lineage).map_err(transport_error)?;
    let mut bytes = b.to_bytes().map_err(|e| transport_error(e.into()))?;
    bytes.push(b'\n');
    match &args.out {
        None => crate::output::emit_bytes(&bytes),
        Some(path) => {
            probity_scratch::output::write_output(path, &bytes).map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "bundle_io",
                    e.to_string(),
                    "pass a writable --out path",
                )
            })?;
            out.answer(&BundleSummary::of(&b), || {
                format!(
                    "exported {} ({} record(s)) to {}\n  digest {}\n",
                    b.lineage_id,
                    b.records.len(),
                    path.display(),
                    b.digest
                )
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The `bundle export --out` answer: what the bundle carries.
#[derive(Debug, Serialize)]
struct BundleSummary<'a> {
    lineage_id: &'a LineageId,
    digest: &'a Sha256Digest,
    /// The records of the chain, generation 1 to the leaf.
    records: usize,
    /// The leaf's state name (`null` for a bundle without records).
    state: Option<&'static str>,
    attestations: usize,
}

impl<'a> BundleSummary<'a> {
    fn of(b: &'a Bundle) -> Self {
        Self {
            lineage_id: &b.lineage_id,
            digest: &b.digest,
            records: b.records.len(),
            state: b.leaf().map(|r| r.state().stage().name()),
            attestations: b.attestations.len(),
        }
    }
}

/// The `bundle import` answer: the bundle's summary and how many of its
/// records the store gained (0: it already held them all).
#[derive(Debug, Serialize)]
struct ImportAnswer<'a> {
    #[serde(flatten)]
    bundle: BundleSummary<'a>,
    written: usize,
}

/// Reads at most `MAX_BUNDLE_BYTES + 1` bytes: a longer file is refused by
/// the parser (`input_too_large`) without being read whole.
/// A bundle file: a regular file only (a FIFO or a device is refused at
/// once), read under the bundle bound.
fn read_bounded(path: &Path) -> Result<Vec<u8>, CliError> {
    Ok(crate::authority_cmd::read_input(path, MAX_BUNDLE_BYTES as u64)?.bytes)
}

fn import(global: &GlobalArgs, out: Output, args: &ImportArgs) -> Result<ExitCode, CliError> {
    let bytes = read_bounded(&args.file)?;
    let ctx = open(global)?;
    let b = drivers::verify_bundle(&ctx.repo, &bytes).map_err(transport_error)?;
    let imported = drivers::import_bundle(&ctx.store, &b).map_err(transport_error)?;
    let answer = ImportAnswer {
        bundle: BundleSummary::of(&b),
        written: imported.written,
    };
    out.answer(&answer, || {
        format!(
            "imported {}: {} of {} record(s) written{}\n",
            b.lineage_id,
            imported.written,
            imported.records,
            if imported.written == 0 {
                " (the store already held them)"
            } else {
                ""
            }
        )
    });
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn resolve(repo: &Repo, rev: &str) -> Result<CommitId, CliError> {
    repo.resolve_commit(rev).map_err(repo_error)
}

/// The `publish` answer (and each publication of `push`'s).
#[derive(Debug, Serialize)]
pub(crate) struct PublishAnswer<'a> {
    notes_ref: &'static str,
    /// The commits whose note gained the bundle.
    written: Vec<NotePair<'a>>,
    /// The commits whose note already held it.
    unchanged: Vec<NotePair<'a>>,
    /// The commits no approved review delivers.
    unreviewed: &'a [CommitId],
}

/// A delivery commit and the lineage its note carries.
#[derive(Debug, Serialize)]
struct NotePair<'a> {
    commit: &'a CommitId,
    lineage_id: &'a LineageId,
}

impl<'a> PublishAnswer<'a> {
    pub(crate) fn of(p: &'a drivers::Published) -> Self {
        let pairs = |v: &'a [(CommitId, LineageId)]| {
            v.iter()
                .map(|(commit, lineage_id)| NotePair { commit, lineage_id })
                .collect()
        };
        Self {
            notes_ref: NOTES_REF,
            written: pairs(&p.written),
            unchanged: pairs(&p.unchanged),
            unreviewed: &p.unreviewed,
        }
    }
}

pub(crate) fn published_text(p: &drivers::Published) -> String {
    let mut t = format!(
        "{NOTES_REF}: {} note(s) written, {} already current, {} commit(s) without an approved review\n",
        p.written.len(),
        p.unchanged.len(),
        p.unreviewed.len()
    );
    for (c, l) in &p.written {
        t.push_str(&format!("  {c} <- {l}\n"));
    }
    t
}

pub fn publish(global: &GlobalArgs, out: Output, args: &PublishArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    // What a killed publish or push left (a scratch notes ref) goes first,
    // even when this run has nothing to write.
    ctx.repo.settle_scratch_notes();
    let (tip, exclude, remotes) = match &args.range {
        Some(spec) => {
            let (a, b) = spec
                .split_once("..")
                .filter(|(a, b)| !a.is_empty() && !b.is_empty() && !b.starts_with('.'))
                .ok_or_else(|| {
                    CliError::new(
                        ErrorKind::Usage,
                        "bad_range",
                        format!("`{spec}` is not A..B"),
                        "name two revisions joined by two dots, e.g. --range origin/main..HEAD",
                    )
                })?;
            (
                resolve(&ctx.repo, b)?,
                vec![resolve(&ctx.repo, a)?],
                RemoteScope::None,
            )
        }
        None => (resolve(&ctx.repo, "HEAD")?, Vec::new(), RemoteScope::All),
    };
    let p = drivers::publish(&ctx.repo, &ctx.store, &tip, &exclude, &remotes)
        .map_err(transport_error)?;
    out.answer(&PublishAnswer::of(&p), || published_text(&p));
    Ok(ExitCode::SUCCESS)
}

/// What people read about a push: their refspecs and the notes, the
/// review-tree refs counted (one stack can carry thousands of them).
/// `probity hooks install --server`: writes the managed `pre-receive` hook
/// of a bare repository. A `pre-receive` hook that is not Probity's is
/// never overwritten (`hook_exists`); re-installing Probity's is
/// idempotent.
pub fn install_server(global: &GlobalArgs, out: Output) -> Result<ExitCode, CliError> {
    let cwd = crate::authority_cmd::discovery_dir(global.cwd.clone())?;
    let git = crate::authority_cmd::git_cli();
    let repo = Repo::discover_allow_bare(git, &cwd).map_err(repo_error)?;
    let hooks_dir = repo.hooks_dir().map_err(repo_error)?;
    let exe = std::env::current_exe().map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            e.to_string(),
            "run probity from an installed path",
        )
    })?;
    let recorded = hook_binary(&exe, repo.common_dir())?;
    // Said when the hook names another binary than the one running.
    let note = (recorded != exe).then(|| {
        format!(
            "the hook runs {}: {} cannot be executed by who runs git for this repository",
            recorded.display(),
            exe.display()
        )
    });
    let exe = recorded;
    let script = pre_receive_script(&exe.to_string_lossy());
    let path = hooks_dir.join("pre-receive");
    let io = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            format!("{}: {e}", path.display()),
            "check permissions on the hooks directory",
        )
    };
    let action = match std::fs::read(&path) {
        Ok(current) if current == script.as_bytes() => "unchanged",
        Ok(current) if !String::from_utf8_lossy(&current).contains(SERVER_MARKER) => {
            return Err(CliError::new(
                ErrorKind::Conflict,
                "hook_exists",
                format!("{} exists and is not Probity's", path.display()),
                "merge it by hand: call `probity validate --gate pre-receive` from it with the same stdin, or move it away and install again",
            ));
        }
        Ok(_) => "updated",
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "installed",
        Err(e) => return Err(io(e)),
    };
    if action != "unchanged" {
        // Executable from the moment it appears: a hook git finds without
        // its mode would be skipped, and a push would pass ungated.
        crate::hooks_cmd::write_executable(&path, script.as_bytes())?;
    }
    let answer = HooksAnswer {
        hooks: vec![HookAction {
            hook: "pre-receive",
            path: Some(&path),
            action,
            message: note.clone(),
        }],
    };
    out.answer(&answer, || {
        let mut t = format!("pre-receive: {action} ({})\n", path.display());
        if let Some(n) = &note {
            t.push_str(&format!("  {n}\n"));
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}

/// The probity the server hook will run: this binary when everyone who
/// runs git for the repository ([`hook_runners`], told from the
/// repository directory's owner and mode) may execute it, else the first
/// `probity` on `PATH` they may; with neither, `hook_binary_unusable`,
/// nothing written. A hook naming a binary its runner cannot execute would
/// refuse every push with "Permission denied" after an install that said
/// it succeeded (root's copy under `/root`, say).
///
/// [`hook_runners`]: probity_core::review::server::hook_runners
#[cfg(unix)]
fn hook_binary(exe: &Path, repo_dir: &Path) -> Result<PathBuf, CliError> {
    use probity_core::review::server::{HookRunner, PathEntry, hook_runners, may_run};
    use std::os::unix::fs::MetadataExt;
    let entry = |p: &Path| {
        std::fs::metadata(p).ok().map(|m| PathEntry {
            uid: m.uid(),
            gid: m.gid(),
            mode: m.mode() & 0o7777,
        })
    };
    let Some(repo) = entry(repo_dir) else {
        // Unreadable here: the install itself fails on it, with its reason.
        return Ok(exe.to_path_buf());
    };
    let runners = hook_runners(&repo);
    // Every directory from the root down, then the file itself.
    let usable = |p: &Path| -> bool {
        let Ok(real) = std::fs::canonicalize(p) else {
            return false;
        };
        let mut chain: Vec<PathEntry> = Vec::new();
        for a in real.ancestors().collect::<Vec<_>>().into_iter().rev() {
            match entry(a) {
                Some(e) => chain.push(e),
                None => return false,
            }
        }
        real.is_file() && runners.iter().all(|r: &HookRunner| may_run(&chain, r))
    };
    if usable(exe) {
        return Ok(exe.to_path_buf());
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.is_absolute())
        .map(|d| d.join("probity"))
        .find(|c| c.is_file());
    if let Some(candidate) = on_path
        && usable(&candidate)
    {
        return Ok(candidate);
    }
    let who = if runners.len() > 1 {
        format!(
            "the repository's owner (uid {}) and its group (gid {})",
            repo.uid, repo.gid
        )
    } else {
        format!("the repository's owner (uid {})", repo.uid)
    };
    Err(CliError::new(
        ErrorKind::Conflict,
        "hook_binary_unusable",
        format!(
            "{} cannot be executed by {who}, who runs the hook (a directory on its path or the file itself does not let them), and no probity on PATH they can execute was found; nothing was written",
            exe.display()
        ),
        "install probity where the repository's users can execute it (e.g. /usr/local/bin/probity, mode 0755) and put it on PATH, then run `probity hooks install --server` again",
    ))
}

#[cfg(not(unix))]
fn hook_binary(exe: &Path, _repo_dir: &Path) -> Result<PathBuf, CliError> {
    Ok(exe.to_path_buf())
}

/// `probity hooks uninstall --server`: removes the bare repository's
/// pre-receive hook only when it is exactly the script `install --server`
/// wrote; an edited one is kept (`preserved_user_edits`), another's is
/// never touched (`not_ours`).
pub fn uninstall_server(global: &GlobalArgs, out: Output) -> Result<ExitCode, CliError> {
    use probity_core::review::server::{ServerHookOwner, server_hook_owner};
    let cwd = crate::authority_cmd::discovery_dir(global.cwd.clone())?;
    let git = crate::authority_cmd::git_cli();
    let repo = Repo::discover_allow_bare(git, &cwd).map_err(repo_error)?;
    let path = repo.hooks_dir().map_err(repo_error)?.join("pre-receive");
    let io = |e: std::io::Error| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            format!("{}: {e}", path.display()),
            "check permissions on the hooks directory",
        )
    };
    let (action, message) = match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            ("nothing", "no pre-receive hook: nothing to do".to_string())
        }
        Err(e) => return Err(io(e)),
        Ok(current) => match server_hook_owner(&current) {
            ServerHookOwner::Probity => {
                std::fs::remove_file(&path).map_err(io)?;
                ("removed", "removed the managed pre-receive hook".to_string())
            }
            ServerHookOwner::EditedByUser => (
                "preserved_user_edits",
                "the hook was edited after install, so it is left as it is: remove it by hand if the gate should go".to_string(),
            ),
            ServerHookOwner::Foreign => (
                "not_ours",
                "the pre-receive hook is not Probity's: left as it is".to_string(),
            ),
        },
    };
    let answer = HooksAnswer {
        hooks: vec![HookAction {
            hook: "pre-receive",
            path: Some(&path),
            action,
            message: Some(message.clone()),
        }],
    };
    out.answer(&answer, || format!("pre-receive: {message}\n"));
    Ok(ExitCode::SUCCESS)
}

/// The scratch store a server-side gate imports verified bundles into: an
/// empty directory `probity-receive-<random>` in the temporary directory,
/// owned by this run's lock (`<dir>.owner`). It is removed on every
/// controlled exit (drop) and when the run is interrupted (SIGINT, SIGTERM,
/// SIGHUP); what a killed run left is removed by the next server gate,
/// told by its dead owner's lock, never by its age.
pub struct ScratchStore {
    // Declared first: the store is dropped before its directory goes.
    pub store: FileStore,
    // Nothing under the directory is fsynced: it is removed when the run
    // ends, so durability would buy nothing (issue 24, D-R77).
    _volatile: probity_scratch::Volatile,
    _dir: probity_scratch::Scratch,
}

impl ScratchStore {
    pub fn new() -> Result<Self, CliError> {
        let scratch_io = |e: std::io::Error| {
            CliError::new(
                ErrorKind::Io,
                "scratch_io",
                e.to_string(),
                "check that the temporary directory is writable (TMPDIR)",
            )
        };
        let dir = probity_scratch::Scratch::reserve(&std::env::temp_dir(), "probity-receive-")
            .map_err(scratch_io)?;
        dir.create_dir(0o700).map_err(scratch_io)?;
        let volatile = probity_scratch::Volatile::mark(dir.path());
        let store = FileStore::for_common_dir(dir.path());
        Ok(Self {
            store,
            _volatile: volatile,
            _dir: dir,
        })
    }
}
