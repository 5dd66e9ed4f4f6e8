//! `probity hooks install --server` and `hooks uninstall --server`: the
//! managed `pre-receive` hook of a bare repository (the server-side gate)
//! and its `reference-transaction` hook (D-R149), the binary they record
//! checked for who runs git there.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use probity_core::review::{ServerHook, ServerHookOwner};
use probity_git::Repo;

use crate::GlobalArgs;
use crate::bundle_cmd::repo_error;
use crate::hooks_cmd::{HookAction, HooksAnswer};
use crate::output::{CliError, ErrorKind, Output};

/// `probity hooks install --server`: writes the managed `pre-receive` and
/// `reference-transaction` hooks of a bare repository. A hook that is not
/// Probity's is never overwritten (`hook_exists`, and neither is written);
/// re-installing Probity's is idempotent.
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
    // Both checked before either is written: a foreign hook leaves the
    // repository as it was.
    let mut plans = Vec::new();
    for hook in ServerHook::ALL {
        let script = hook.script(&exe.to_string_lossy());
        let path = hooks_dir.join(hook.name());
        let io = hook_io(&path);
        let action = match std::fs::read(&path) {
            Ok(current) if current == script.as_bytes() => "unchanged",
            Ok(current) if hook.owner(&current) == ServerHookOwner::Foreign => {
                return Err(CliError::new(
                    ErrorKind::Conflict,
                    "hook_exists",
                    format!(
                        "{} exists and is not Probity's; nothing was written",
                        path.display()
                    ),
                    match hook {
                        ServerHook::PreReceive => {
                            "merge it by hand: call `probity validate --gate pre-receive` from it with the same stdin, or move it away and install again"
                        }
                        ServerHook::ReferenceTransaction => {
                            "merge it by hand: call `probity validate reference-transaction \"$1\"` from it with the same stdin when $1 is `prepared`, or move it away and install again"
                        }
                    },
                ));
            }
            Ok(_) => "updated",
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "installed",
            Err(e) => return Err(io(e)),
        };
        drop(io);
        plans.push((hook, path, script, action));
    }
    for (_, path, script, action) in &plans {
        if *action != "unchanged" {
            // Executable from the moment it appears: a hook git finds
            // without its mode would be skipped, and a push would pass
            // ungated.
            crate::hooks_cmd::write_executable(path, script.as_bytes())?;
        }
    }
    let answer = HooksAnswer {
        hooks: plans
            .iter()
            .map(|(hook, path, _, action)| HookAction {
                hook: hook.name(),
                path: Some(path),
                action,
                message: note.clone(),
            })
            .collect(),
    };
    out.answer(&answer, || {
        let mut t = String::new();
        for (hook, path, _, action) in &plans {
            t.push_str(&format!("{}: {action} ({})\n", hook.name(), path.display()));
        }
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
/// [`hook_runners`]: probity_core::review::hook_runners
#[cfg(unix)]
fn hook_binary(exe: &Path, repo_dir: &Path) -> Result<PathBuf, CliError> {
    use probity_core::review::{HookRunner, PathEntry, hook_runners, may_run};
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

/// `probity hooks uninstall --server`: removes each of the bare
/// repository's managed hooks only when it is exactly the script `install
/// --server` wrote; an edited one is kept (`preserved_user_edits`), another's is
/// never touched (`not_ours`).
pub fn uninstall_server(global: &GlobalArgs, out: Output) -> Result<ExitCode, CliError> {
    let cwd = crate::authority_cmd::discovery_dir(global.cwd.clone())?;
    let git = crate::authority_cmd::git_cli();
    let repo = Repo::discover_allow_bare(git, &cwd).map_err(repo_error)?;
    let hooks_dir = repo.hooks_dir().map_err(repo_error)?;
    let mut done = Vec::new();
    for hook in ServerHook::ALL {
        let name = hook.name();
        let path = hooks_dir.join(name);
        let io = hook_io(&path);
        let (action, message) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                ("nothing", format!("no {name} hook: nothing to do"))
            }
            Err(e) => return Err(io(e)),
            Ok(current) => match hook.owner(&current) {
                ServerHookOwner::Probity => {
                    std::fs::remove_file(&path).map_err(&io)?;
                    ("removed", format!("removed the managed {name} hook"))
                }
                ServerHookOwner::EditedByUser => (
                    "preserved_user_edits",
                    "the hook was edited after install, so it is left as it is: remove it by hand if the gate should go".to_string(),
                ),
                ServerHookOwner::Foreign => (
                    "not_ours",
                    format!("the {name} hook is not Probity's: left as it is"),
                ),
            },
        };
        drop(io);
        done.push((name, path, action, message));
    }
    let answer = HooksAnswer {
        hooks: done
            .iter()
            .map(|(name, path, action, message)| HookAction {
                hook: name,
                path: Some(path),
                action,
                message: Some(message.clone()),
            })
            .collect(),
    };
    out.answer(&answer, || {
        done.iter()
            .map(|(name, _, _, message)| format!("{name}: {message}\n"))
            .collect()
    });
    Ok(ExitCode::SUCCESS)
}

/// The `hook_io` error of an I/O failure on the hook at `path`.
fn hook_io(path: &std::path::Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            format!("{}: {e}", path.display()),
            "check permissions on the hooks directory",
        )
    }
}
