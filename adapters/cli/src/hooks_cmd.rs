//! `probity hooks install | uninstall` (R8.10): two managed hooks, each
//! handled on its own. `pre-commit` runs `probity validate --gate
//! pre-commit`; `pre-push` runs `probity validate --gate pre-push --remote
//! "$2" --stdin-updates` over the ref updates git gives it on stdin.
//! `--hook` selects hooks (repeatable); without it, both.
//!
//! Install keeps whatever hook was there (saved as
//! `<git-common-dir>/probity/hooks/v1/<hook>.before`; it runs after the gate
//! allows, with the same arguments and, for pre-push, the same stdin) and
//! records ownership in `<hook>.json` next to it before writing the hook.
//! Every selected hook is checked before anything is written: if one was
//! edited since install (`hook_changed`), nothing changes. Uninstall
//! restores a hook only while the installed file is still exactly Probity's,
//! and otherwise leaves the user's edits.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};

use probity_core::digest::Sha256Digest;
use probity_core::review::{HookKind, Install, Uninstall};
use probity_core::review::{content_id, install_action, uninstall_action};

use crate::GlobalArgs;
use crate::authority_cmd::open;
use crate::output::{CliError, ErrorKind, Output};

/// `probity hooks ...`
#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Install the managed pre-commit and pre-push hooks that run the gate.
    ///
    /// pre-commit runs `probity validate --gate pre-commit`; pre-push runs
    /// `probity validate --gate pre-push --remote <remote> --stdin-updates`
    /// over the refs being pushed. A hook already there is saved under
    /// `<git-common-dir>/probity/hooks/v1/` and runs after the gate allows
    /// (same arguments, same stdin). If any selected hook was edited since
    /// install, nothing is written (`hook_changed`).
    Install(HookSelection),
    /// Remove the managed hooks and restore the hooks that were there before.
    ///
    /// A hook is restored (or removed) only while it is still exactly what
    /// install wrote; a hook edited since install is left as it is
    /// (`preserved_user_edits`).
    Uninstall(HookSelection),
}

/// Which hooks a command acts on.
#[derive(Debug, Args)]
pub struct HookSelection {
    /// Act on this hook only (repeatable); default: pre-commit and pre-push.
    #[arg(long = "hook", value_enum, value_name = "HOOK")]
    hook: Vec<HookName>,
    /// Install the server-side pre-receive hook of a bare repository
    /// instead (`probity validate --gate pre-receive`).
    #[arg(long, conflicts_with = "hook")]
    pub server: bool,
}

/// A managed hook as `--hook` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HookName {
    /// The gate over what a commit delivers.
    PreCommit,
    /// The gate over the refs a push publishes.
    PrePush,
}

impl HookName {
    fn kind(self) -> HookKind {
        match self {
            HookName::PreCommit => HookKind::PreCommit,
            HookName::PrePush => HookKind::PrePush,
        }
    }
}

impl HookSelection {
    /// The selected hooks, each once, in report order (pre-commit, pre-push).
    fn kinds(&self) -> Vec<HookKind> {
        HookKind::ALL
            .into_iter()
            .filter(|k| self.hook.is_empty() || self.hook.iter().any(|h| h.kind() == *k))
            .collect()
    }
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

/// One managed hook as found on disk, read before anything is written.
struct Slot {
    kind: HookKind,
    /// The hook file in the directory git runs hooks from.
    hook: PathBuf,
    /// `<state dir>/<hook>.json`.
    record_path: PathBuf,
    /// Where install saves the hook that was there: `<state dir>/<hook>.before`.
    saved: PathBuf,
    record: Option<Record>,
    current: Option<Vec<u8>>,
}

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

fn utf8_path<'a>(p: &'a Path, what: &str, fix: &str) -> Result<&'a str, CliError> {
    p.to_str().ok_or_else(|| {
        CliError::new(
            ErrorKind::Io,
            "hook_path",
            format!("{what} is not UTF-8: {}", p.display()),
            fix,
        )
    })
}

/// Copies `from` over `to` atomically and durably, with `from`'s mode (a
/// user's own hook set aside, or put back): `to` holds the old bytes or
/// all the new ones, never part, and is never without its mode.
fn copy_atomic(from: &Path, to: &Path) -> Result<(), CliError> {
    let bytes = std::fs::read(from).map_err(io_err(from))?;
    let mode = std::fs::metadata(from).map_err(io_err(from))?.permissions();
    probity_scratch::write_atomic(to, &bytes, ".probity-hook-", Some(mode)).map_err(io_err(to))
}

/// Writes an executable file (0755) atomically and durably (the one
/// atomic write, `probity_scratch::write_atomic`).
pub(crate) fn write_executable(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o755))
    };
    #[cfg(not(unix))]
    let mode = None;
    probity_scratch::write_atomic(path, bytes, ".probity-hook-", mode).map_err(io_err(path))
}

/// Reads a hook's record and file. A record that is not a record of this
/// hook fails closed.
fn load(kind: HookKind, hooks_dir: &Path, state_dir: &Path) -> Result<Slot, CliError> {
    let name = kind.name();
    let hook = hooks_dir.join(name);
    let record_path = state_dir.join(format!("{name}.json"));
    let corrupted = |why: String| {
        CliError::new(
            ErrorKind::Integrity,
            "hook_record_corrupted",
            format!("{}: {why}", record_path.display()),
            "inspect or remove the record; no hook file was touched",
        )
    };
    let record: Option<Record> = read_optional(&record_path)?
        .map(|b| serde_json::from_slice(&b))
        .transpose()
        .map_err(|e| corrupted(e.to_string()))?;
    if let Some(r) = &record
        && (r.schema != RECORD_SCHEMA || r.hook != name)
    {
        return Err(corrupted(format!(
            "expected a {RECORD_SCHEMA} record of the {name} hook, found {} of {}",
            r.schema, r.hook
        )));
    }
    let current = read_optional(&hook)?;
    Ok(Slot {
        kind,
        saved: state_dir.join(format!("{name}.before")),
        hook,
        record_path,
        record,
        current,
    })
}

/// `hooks install | uninstall` of the client hooks (`--server` is
/// `server_hook_cmd`'s, dispatched before this).
pub fn run(global: &GlobalArgs, out: Output, cmd: &HooksCommand) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let (hooks_dir, state_dir) = dirs(&ctx)?;
    let selection = match cmd {
        HooksCommand::Install(s) | HooksCommand::Uninstall(s) => s,
    };
    // Every selected hook is read (and its record checked) before any write.
    let slots = selection
        .kinds()
        .into_iter()
        .map(|k| load(k, &hooks_dir, &state_dir))
        .collect::<Result<Vec<_>, _>>()?;
    if let HooksCommand::Install(_) = cmd {
        refuse_tracked_hooks_dir(&ctx.repo, &hooks_dir)?;
    }
    match cmd {
        HooksCommand::Install(_) => answer(out, install(&slots)?),
        HooksCommand::Uninstall(_) => answer(out, uninstall(&slots)?),
    }
    Ok(ExitCode::SUCCESS)
}

/// The directory git runs hooks from and Probity's hook state directory.
fn dirs(ctx: &crate::authority_cmd::Context) -> Result<(PathBuf, PathBuf), CliError> {
    let hooks_dir = ctx.repo.hooks_dir().map_err(|e| {
        CliError::new(
            ErrorKind::Repository,
            "repository_error",
            e.to_string(),
            "run inside a git work tree",
        )
    })?;
    let state_dir = ctx
        .repo
        .common_dir()
        .join("probity")
        .join("hooks")
        .join("v1");
    Ok((hooks_dir, state_dir))
}

/// Whether the pre-push hook git will run here is Probity's managed one,
/// byte for byte as installed and executable: then a push is judged by it
/// inside the push's own connection (`probity push` needs no dry run).
/// Anything else (no hook, another hook, an edited one, a record that
/// cannot be read) is false.
pub(crate) fn managed_pre_push_in_place(ctx: &crate::authority_cmd::Context) -> bool {
    let Ok((hooks_dir, state_dir)) = dirs(ctx) else {
        return false;
    };
    let Ok(slot) = load(HookKind::PrePush, &hooks_dir, &state_dir) else {
        return false;
    };
    let installed = slot.record.as_ref().map(|r| &r.installed);
    let intact = install_action(installed, slot.current.as_deref()) == Install::AlreadyInstalled;
    #[cfg(unix)]
    let runnable = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(&slot.hook)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    #[cfg(not(unix))]
    let runnable = slot.hook.is_file();
    installed.is_some() && intact && runnable
}

/// Both managed client hooks, read and checked as `hooks install` checks
/// them, nothing written: `probity init`'s first step.
pub(crate) struct Planned(Vec<Slot>);

/// Plans the install of both client hooks (`probity init`).
pub(crate) fn plan_install(ctx: &crate::authority_cmd::Context) -> Result<Planned, CliError> {
    let (hooks_dir, state_dir) = dirs(ctx)?;
    let slots = HookKind::ALL
        .into_iter()
        .map(|k| load(k, &hooks_dir, &state_dir))
        .collect::<Result<Vec<_>, _>>()?;
    refuse_tracked_hooks_dir(&ctx.repo, &hooks_dir)?;
    Ok(Planned(slots))
}

/// Installs what [`plan_install`] read: the `hooks install` answer's
/// entries and its text, and whether any hook was written.
pub(crate) fn apply_install(p: &Planned) -> Result<(serde_json::Value, String, bool), CliError> {
    let (hooks, lines) = install(&p.0)?;
    let changed = hooks.iter().any(Installed::changed);
    let value = serde_json::to_value(&hooks).map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "hook_io",
            e.to_string(),
            "retry; report this if it persists",
        )
    })?;
    Ok((value, lines.concat(), changed))
}

/// Prints a report: its entries as `{"hooks": [...]}`, or its lines.
fn answer<T: Serialize>(out: Output, (hooks, lines): Report<T>) {
    out.answer(&HooksAnswer { hooks }, || lines.concat());
}

/// A hooks directory (`core.hooksPath`) that is a tracked folder of the
/// work tree holds content shared with every clone. Install never rewrites
/// or adds to it; it refuses before writing anything and says how to call
/// the gate from those hooks.
fn refuse_tracked_hooks_dir(repo: &probity_git::Repo, hooks_dir: &Path) -> Result<(), CliError> {
    let found = repo.tracked_hooks_dir(hooks_dir).map_err(|e| {
        CliError::new(
            ErrorKind::Repository,
            "repository_error",
            e.to_string(),
            "fix the repository error above and retry; nothing was written",
        )
    })?;
    let Some(tracked) = found else {
        return Ok(());
    };
    Err(CliError::new(
        ErrorKind::Conflict,
        "hooks_path_tracked",
        format!(
            "core.hooksPath points at {}, a tracked folder of the work tree ({}); probity does not rewrite tracked files, so nothing was written",
            hooks_dir.display(),
            tracked.join(", ")
        ),
        format!(
            "call the gate from your own hooks in {d}: add `probity validate --gate pre-commit || exit $?` to pre-commit and `probity validate --gate pre-push --remote \"$2\" --stdin-updates || exit $?` to pre-push (pre-push reads the ref updates on stdin); or unset it (`git config --unset core.hooksPath`) and run `probity hooks install` again",
            d = hooks_dir.display()
        ),
    ))
}

/// Every hook's answer entry and human line, in report order.
type Report<T> = (Vec<T>, Vec<String>);

/// The `hooks install | uninstall` answer (also `--server`'s): one entry
/// per hook acted on, in report order.
#[derive(Debug, Serialize)]
pub struct HooksAnswer<T> {
    pub hooks: Vec<T>,
}

/// One hook of an install answer: `installed` is always `true` (the gate
/// is in place) and `changed` says whether this run wrote the hook.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Installed<'a> {
    /// Already exactly what this binary writes: nothing written.
    Unchanged {
        hook: &'static str,
        path: &'a Path,
        installed: bool,
        changed: bool,
    },
    /// A hook already Probity's, rewritten to run this binary (`probity`,
    /// for when probity is not on `PATH`); `updated` is always `true`.
    Updated {
        hook: &'static str,
        path: &'a Path,
        installed: bool,
        changed: bool,
        updated: bool,
        probity: String,
        kept_previous_hook: Option<PathBuf>,
    },
    /// A new install; the hook that was there, if any, is kept at
    /// `kept_previous_hook` (`null`: there was none).
    Written {
        hook: &'static str,
        path: &'a Path,
        installed: bool,
        changed: bool,
        kept_previous_hook: Option<PathBuf>,
    },
}

impl Installed<'_> {
    /// Whether this run wrote the hook.
    fn changed(&self) -> bool {
        match self {
            Installed::Unchanged { changed, .. }
            | Installed::Updated { changed, .. }
            | Installed::Written { changed, .. } => *changed,
        }
    }
}

/// What happened to one hook: an uninstall answer's entry, and `install
/// --server`'s (without a `message`).
#[derive(Debug, Serialize)]
pub struct HookAction<'a> {
    pub hook: &'static str,
    /// Absent when Probity holds no record of the hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a Path>,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A hook install will write, fully prepared before the first write.
struct Pending<'a> {
    slot: &'a Slot,
    before: Option<PathBuf>,
    /// A new install copies the hook that was there to `before`; an
    /// update of a hook already ours keeps the copy it made then.
    copy_before: bool,
    script: String,
    record: Vec<u8>,
}

fn install<'a>(slots: &'a [Slot]) -> Result<Report<Installed<'a>>, CliError> {
    let actions: Vec<Install> = slots
        .iter()
        .map(|s| {
            install_action(
                s.record.as_ref().map(|r| &r.installed),
                s.current.as_deref(),
            )
        })
        .collect();
    // Refuse before writing anything: one edited hook leaves every file as it is.
    let changed: Vec<&Slot> = slots
        .iter()
        .zip(&actions)
        .filter(|(_, a)| **a == Install::Changed)
        .map(|(s, _)| s)
        .collect();
    if !changed.is_empty() {
        let paths: Vec<String> = changed
            .iter()
            .map(|s| s.hook.display().to_string())
            .collect();
        let flags: Vec<String> = changed
            .iter()
            .map(|s| format!("--hook {}", s.kind.name()))
            .collect();
        return Err(CliError::new(
            ErrorKind::Conflict,
            "hook_changed",
            format!(
                "{} changed since probity installed it; nothing was written",
                paths.join(" and ")
            ),
            format!(
                "run `probity hooks uninstall {}` (it keeps your edits), then install again",
                flags.join(" ")
            ),
        ));
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| io_err(Path::new("current executable"))(e))?;
    let probity = utf8_path(
        &exe,
        "the probity executable's path",
        "install probity under a UTF-8 path",
    )?;
    let mut writes = Vec::new();
    for (slot, action) in slots.iter().zip(&actions) {
        // A new install keeps whatever hook was there (it runs after the
        // gate allows); a hook already ours keeps the one it recorded and is
        // rewritten only when this binary would write other bytes (another
        // binary's path, or a newer script).
        let (before, copy_before) = match action {
            Install::Write => (slot.current.as_ref().map(|_| slot.saved.clone()), true),
            Install::AlreadyInstalled => {
                (slot.record.as_ref().and_then(|r| r.before.clone()), false)
            }
            Install::Changed => continue,
        };
        let before_str = before
            .as_deref()
            .map(|b| utf8_path(b, "the git directory's path", "use a UTF-8 path"))
            .transpose()?;
        let script = slot.kind.script(probity, before_str);
        if *action == Install::AlreadyInstalled
            && slot.current.as_deref() == Some(script.as_bytes())
        {
            continue;
        }
        let rec = Record {
            schema: RECORD_SCHEMA.into(),
            hook: slot.kind.name().into(),
            path: slot.hook.clone(),
            installed: content_id(script.as_bytes()),
            before: before.clone(),
        };
        let record = serde_json::to_vec_pretty(&rec)
            .map_err(|e| io_err(&slot.record_path)(std::io::Error::other(e)))?;
        writes.push(Pending {
            slot,
            before,
            copy_before,
            script,
            record,
        });
    }
    // Hooks are written one after another; an I/O failure part way leaves
    // earlier hooks installed (and recorded), and installing again resumes.
    for w in &writes {
        if let (Some(saved), true) = (&w.before, w.copy_before) {
            copy_atomic(&w.slot.hook, saved)?;
        }
        // The record first: a crash leaves ownership known, never an unowned hook.
        probity_store::review_store::write_atomic(&w.slot.record_path, &w.record).map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "hook_io",
                e.to_string(),
                "check permissions on the git common dir",
            )
        })?;
        write_executable(&w.slot.hook, w.script.as_bytes())?;
    }
    let mut values = Vec::new();
    let mut lines = Vec::new();
    for (slot, action) in slots.iter().zip(&actions) {
        let name = slot.kind.name();
        let hook = &slot.hook;
        let Some(w) = writes.iter().find(|w| w.slot.kind == slot.kind) else {
            values.push(Installed::Unchanged {
                hook: name,
                path: hook,
                installed: true,
                changed: false,
            });
            lines.push(format!(
                "{name} hook already installed at {}\n",
                hook.display()
            ));
            continue;
        };
        let before = w.before.as_deref();
        if *action == Install::AlreadyInstalled {
            values.push(Installed::Updated {
                hook: name,
                path: hook,
                installed: true,
                changed: true,
                updated: true,
                probity: probity.to_owned(),
                kept_previous_hook: w.before.clone(),
            });
            lines.push(format!(
                "updated the {name} gate at {} to run {probity} when probity is not on PATH\n",
                hook.display()
            ));
            continue;
        }
        values.push(Installed::Written {
            hook: name,
            path: hook,
            installed: true,
            changed: true,
            kept_previous_hook: w.before.clone(),
        });
        lines.push(match before {
            Some(b) => format!(
                "installed the {name} gate at {} (your previous hook is kept at {} and runs after the gate allows)\n",
                hook.display(),
                b.display()
            ),
            None => format!("installed the {name} gate at {}\n", hook.display()),
        });
    }
    Ok((values, lines))
}

fn uninstall(slots: &[Slot]) -> Result<Report<HookAction<'_>>, CliError> {
    let mut values = Vec::new();
    let mut lines = Vec::new();
    for slot in slots {
        let (value, message) = uninstall_one(slot)?;
        values.push(value);
        lines.push(format!("{}: {message}\n", slot.kind.name()));
    }
    Ok((values, lines))
}

fn uninstall_one(slot: &Slot) -> Result<(HookAction<'_>, String), CliError> {
    let name = slot.kind.name();
    let hook = slot.hook.as_path();
    let Some(r) = &slot.record else {
        let v = HookAction {
            hook: name,
            path: None,
            action: "nothing",
            message: Some("no hook installed by probity".into()),
        };
        return Ok((v, "no hook installed by probity: nothing to do".into()));
    };
    let action = uninstall_action(&r.installed, slot.current.as_deref());
    let restore_before = |hook: &Path| -> Result<bool, CliError> {
        match &r.before {
            Some(saved) if saved.exists() => {
                copy_atomic(saved, hook)?;
                std::fs::remove_file(saved).map_err(io_err(saved))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let (action_name, message) = match action {
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
    std::fs::remove_file(&slot.record_path).map_err(io_err(&slot.record_path))?;
    let v = HookAction {
        hook: name,
        path: Some(hook),
        action: action_name,
        message: Some(message.clone()),
    };
    Ok((v, message))
}
