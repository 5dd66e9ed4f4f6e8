//! `probity hooks install | uninstall` (R8.10): a managed pre-commit hook
//! that runs the gate. Install keeps whatever hook was there (and runs it
//! after the gate allows); uninstall restores it only while the installed
//! file is still exactly Probity's, and otherwise leaves the user's edits.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use serde::{Deserialize, Serialize};
use serde_json::json;

use probity_core::digest::Sha256Digest;
use probity_core::review::hooks::{self, Uninstall};

use crate::GlobalArgs;
use crate::authority_cmd::open;
use crate::output::{CliError, ErrorKind, Output};

/// `probity hooks ...`
#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Install a pre-commit hook that runs `probity validate --gate pre-commit`
    /// (an existing hook is kept and runs after the gate allows).
    Install,
    /// Remove the managed hook and restore what was there, unless the hook
    /// was edited since install (then it is left as it is).
    Uninstall,
}

/// What install recorded, under `<git-common-dir>/probity/hooks/v1/`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    schema: String,
    hook: String,
    path: PathBuf,
    installed: Sha256Digest,
    before: Option<PathBuf>,
}

const RECORD_SCHEMA: &str = "probity.hook-record/v1";

fn io_err(what: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |e| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            format!("{}: {e}", what.display()),
            "check permissions on the hooks directory and the git common dir",
        )
    }
}

fn read_optional(p: &Path) -> Result<Option<Vec<u8>>, CliError> {
    match std::fs::read(p) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(p)(e)),
    }
}

/// Writes an executable file atomically (temp file, fsync, rename).
fn write_executable(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let dir = path
        .parent()
        .ok_or_else(|| io_err(path)(std::io::Error::other("no parent directory")))?;
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".probity-hook-")
        .tempfile_in(dir)
        .map_err(io_err(dir))?;
    tmp.write_all(bytes).map_err(io_err(path))?;
    tmp.as_file().sync_all().map_err(io_err(path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(path))?;
    }
    tmp.persist(path).map_err(|e| io_err(path)(e.error))?;
    Ok(())
}

pub fn run(global: &GlobalArgs, out: Output, cmd: &HooksCommand) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let hooks_dir = ctx.repo.hooks_dir().map_err(|e| {
        CliError::new(
            ErrorKind::Repository,
            "repository_error",
            e.to_string(),
            "run inside a git work tree",
        )
    })?;
    let hook = hooks_dir.join("pre-commit");
    let state_dir = ctx
        .repo
        .common_dir()
        .join("probity")
        .join("hooks")
        .join("v1");
    let record_path = state_dir.join("pre-commit.json");
    let record: Option<Record> = read_optional(&record_path)?
        .map(|b| serde_json::from_slice(&b))
        .transpose()
        .map_err(|e| {
            CliError::new(
                ErrorKind::Integrity,
                "hook_record_corrupted",
                format!("{}: {e}", record_path.display()),
                "inspect or remove the record; the hook file itself was not touched",
            )
        })?;
    let current = read_optional(&hook)?;
    match cmd {
        HooksCommand::Install => install(out, &hook, &state_dir, &record_path, record, current),
        HooksCommand::Uninstall => uninstall(out, &hook, &record_path, record, current),
    }
}

fn install(
    out: Output,
    hook: &Path,
    state_dir: &Path,
    record_path: &Path,
    record: Option<Record>,
    current: Option<Vec<u8>>,
) -> Result<ExitCode, CliError> {
    if let Some(r) = &record {
        if current
            .as_deref()
            .is_some_and(|c| hooks::content_id(c) == r.installed)
        {
            let v =
                json!({"hook": "pre-commit", "path": hook, "installed": true, "changed": false});
            out.answer(&v, || {
                format!("pre-commit hook already installed at {}\n", hook.display())
            });
            return Ok(ExitCode::SUCCESS);
        }
        return Err(CliError::new(
            ErrorKind::Conflict,
            "hook_changed",
            format!("{} changed since probity installed it", hook.display()),
            "run `probity hooks uninstall` (it keeps your edits), then install again",
        ));
    }
    let probity = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| io_err(Path::new("current executable"))(e))?;
    let probity = probity.to_str().ok_or_else(|| {
        CliError::new(
            ErrorKind::Io,
            "hook_path",
            "the probity executable's path is not UTF-8",
            "install probity under a UTF-8 path",
        )
    })?;
    // Keep whatever hook was there: it runs after the gate allows.
    let before = match &current {
        Some(_) => {
            std::fs::create_dir_all(state_dir).map_err(io_err(state_dir))?;
            let saved = state_dir.join("pre-commit.before");
            std::fs::copy(hook, &saved).map_err(io_err(&saved))?;
            Some(saved)
        }
        None => None,
    };
    let before_str = match &before {
        Some(p) => Some(p.to_str().ok_or_else(|| {
            CliError::new(
                ErrorKind::Io,
                "hook_path",
                "the git directory's path is not UTF-8",
                "use a UTF-8 path",
            )
        })?),
        None => None,
    };
    let script = hooks::pre_commit_script(probity, before_str);
    let rec = Record {
        schema: RECORD_SCHEMA.into(),
        hook: "pre-commit".into(),
        path: hook.to_path_buf(),
        installed: hooks::content_id(script.as_bytes()),
        before: before.clone(),
    };
    let rec_bytes = serde_json::to_vec_pretty(&rec)
        .map_err(|e| io_err(record_path)(std::io::Error::other(e)))?;
    // The record first: a crash leaves ownership known, never an unowned hook.
    probity_store::review_store::write_atomic(record_path, &rec_bytes).map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            e.to_string(),
            "check permissions on the git common dir",
        )
    })?;
    write_executable(hook, script.as_bytes())?;
    let v = json!({"hook": "pre-commit", "path": hook, "installed": true, "changed": true, "kept_previous_hook": before});
    out.answer(&v, || {
        let mut t = format!("installed the pre-commit gate at {}\n", hook.display());
        if let Some(b) = &before {
            t.push_str(&format!(
                "  your previous hook is kept at {} and runs after the gate allows\n",
                b.display()
            ));
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}

fn uninstall(
    out: Output,
    hook: &Path,
    record_path: &Path,
    record: Option<Record>,
    current: Option<Vec<u8>>,
) -> Result<ExitCode, CliError> {
    let Some(r) = record else {
        let v = json!({"hook": "pre-commit", "action": "nothing", "message": "no hook installed by probity"});
        out.answer(&v, || {
            "no hook installed by probity: nothing to do\n".into()
        });
        return Ok(ExitCode::SUCCESS);
    };
    let action = hooks::uninstall_action(&r.installed, current.as_deref());
    let restore_before = |hook: &Path| -> Result<bool, CliError> {
        match &r.before {
            Some(saved) if saved.exists() => {
                std::fs::copy(saved, hook).map_err(io_err(hook))?;
                std::fs::remove_file(saved).map_err(io_err(saved))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let (name, message) = match action {
        Uninstall::Restore => {
            if restore_before(hook)? {
                (
                    "restored",
                    "restored the hook that was there before".to_string(),
                )
            } else {
                std::fs::remove_file(hook).map_err(io_err(hook))?;
                ("removed", "removed the managed hook".to_string())
            }
        }
        Uninstall::AlreadyRemoved => {
            let restored = restore_before(hook)?;
            (
                "already_removed",
                if restored {
                    "the managed hook was gone; restored the previous one".into()
                } else {
                    "the managed hook was already gone".into()
                },
            )
        }
        Uninstall::PreserveUserEdits => (
            "preserved_user_edits",
            match &r.before {
                Some(b) => format!(
                    "the hook was edited after install, so it is left as it is; the hook from before install is still at {}",
                    b.display()
                ),
                None => "the hook was edited after install, so it is left as it is".into(),
            },
        ),
    };
    std::fs::remove_file(record_path).map_err(io_err(record_path))?;
    let v = json!({"hook": "pre-commit", "path": hook, "action": name, "message": message});
    out.answer(&v, || format!("{message}\n"));
    Ok(ExitCode::SUCCESS)
}
