//! `probity init` (issue 22 §6): a repository set up in one step. It
//! installs the managed pre-commit and pre-push hooks (as `probity hooks
//! install`), writes the default `.probity/policy.json` only when
//! `--policy` asks for it (Probity writes nothing else into the worktree),
//! names the refspecs to push, and says what it did and how to undo it.
//! Everything is read and checked before anything is written; a second run
//! changes no byte.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::review::PUSH_REFSPECS;
use probity_core::review::{DEFAULT_POLICY, POLICY_PATH};

use crate::GlobalArgs;
use crate::authority_cmd::open;
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also write the default repository policy, `.probity/policy.json`
    /// (it turns nothing on; edit it and commit it to the protected
    /// branch). An existing file is never replaced.
    #[arg(long)]
    pub policy: bool,
    /// The remote reviews are pushed to (default: `origin`, when it is
    /// configured).
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
}

/// What happened to the policy file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum PolicyState {
    /// `--policy` was not given: nothing looked at or written.
    NotAsked,
    /// Written now.
    Written,
    /// Already exactly the default.
    Unchanged,
    /// A policy of the user's own is there; kept as it is.
    KeptExisting,
}

#[derive(Debug, Serialize)]
struct PolicyAnswer {
    path: String,
    state: PolicyState,
}

/// The `init` answer.
#[derive(Debug, Serialize)]
struct InitAnswer {
    /// Whether this run wrote anything.
    changed: bool,
    /// The `hooks install` entries.
    hooks: serde_json::Value,
    policy: PolicyAnswer,
    /// The remote to push to, when one is configured.
    remote: Option<String>,
    /// What a push carries: the work and the review notes.
    push_refspecs: Vec<&'static str>,
    /// The command that pushes them (`null` without a remote).
    push_command: Option<String>,
    /// The commands that undo what init set up.
    undo: Vec<String>,
}

fn taken(path: &Path, why: &str) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "policy_path_taken",
        format!("{} {why}; nothing was written", path.display()),
        format!(
            "move it away, or run `probity init` without --policy (the policy file is {POLICY_PATH})"
        ),
    )
}

/// What `--policy` will do, decided before any write.
fn plan_policy(root: &Path) -> Result<(PathBuf, PolicyState), CliError> {
    let path = root.join(POLICY_PATH);
    if let Some(dir) = path.parent()
        && let Ok(m) = std::fs::symlink_metadata(dir)
        && !m.is_dir()
    {
        return Err(taken(dir, "is not a directory"));
    }
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((path, PolicyState::Written)),
        Err(e) => Err(CliError::new(
            ErrorKind::Io,
            "policy_io",
            format!("{}: {e}", path.display()),
            "fix the permissions and retry; nothing was written",
        )),
        Ok(m) if !m.is_file() => Err(taken(&path, "is not a regular file")),
        Ok(_) => {
            let bytes = std::fs::read(&path).map_err(|e| {
                CliError::new(
                    ErrorKind::Io,
                    "policy_io",
                    format!("{}: {e}", path.display()),
                    "fix the permissions and retry; nothing was written",
                )
            })?;
            let state = if bytes == DEFAULT_POLICY.as_bytes() {
                PolicyState::Unchanged
            } else {
                PolicyState::KeptExisting
            };
            Ok((path, state))
        }
    }
}

fn write_policy(path: &Path) -> Result<(), CliError> {
    let io = |e: &dyn std::fmt::Display| {
        CliError::new(
            ErrorKind::Io,
            "policy_io",
            format!("{}: {e}", path.display()),
            "fix the permissions and run `probity init --policy` again (the hooks are installed)",
        )
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(&e))?;
    }
    probity_scratch::output::write_output(path, DEFAULT_POLICY.as_bytes()).map_err(|e| io(&e))
}

pub fn init(global: &GlobalArgs, out: Output, args: &InitArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let configured = |name: &str| {
        ctx.repo.is_configured_remote(name).map_err(|e| {
            CliError::new(
                ErrorKind::Repository,
                "repository_error",
                e.to_string(),
                "fix the repository error above and retry; nothing was written",
            )
        })
    };
    // Everything is read and checked first.
    let remote = match &args.remote {
        Some(name) if !configured(name)? => {
            return Err(CliError::new(
                ErrorKind::RejectedInput,
                "remote_not_configured",
                format!("no remote named `{name}` is configured; nothing was written"),
                format!(
                    "add it (`git remote add {name} URL`) or name a configured one (`git remote`)"
                ),
            ));
        }
        Some(name) => Some(name.clone()),
        None => configured("origin")?.then(|| "origin".to_string()),
    };
    let policy = if args.policy {
        Some(plan_policy(ctx.repo.root())?)
    } else {
        None
    };
    let planned = crate::hooks_cmd::plan_install(&ctx)?;
    // Then written: the hooks, then the policy asked for.
    let (hooks, hook_lines, hooks_changed) = crate::hooks_cmd::apply_install(&planned)?;
    let policy_state = match &policy {
        None => PolicyState::NotAsked,
        Some((path, PolicyState::Written)) => {
            write_policy(path)?;
            PolicyState::Written
        }
        Some((_, state)) => *state,
    };
    let mut undo = vec!["probity hooks uninstall".to_string()];
    if matches!(policy_state, PolicyState::Written | PolicyState::Unchanged) {
        undo.push(format!("rm {POLICY_PATH} (before you commit it)"));
    }
    let answer = InitAnswer {
        changed: hooks_changed || policy_state == PolicyState::Written,
        hooks,
        policy: PolicyAnswer {
            path: POLICY_PATH.to_string(),
            state: policy_state,
        },
        push_command: remote.as_ref().map(|r| format!("probity push {r}")),
        remote,
        push_refspecs: PUSH_REFSPECS.to_vec(),
        undo,
    };
    out.answer(&answer, || {
        let mut t = hook_lines.clone();
        t.push_str(&match answer.policy.state {
            PolicyState::NotAsked => format!(
                "policy: none written (`probity init --policy` writes the default {POLICY_PATH})\n"
            ),
            PolicyState::Written => format!(
                "policy: wrote the default {POLICY_PATH} (it turns nothing on): edit it, then commit it to the protected branch\n"
            ),
            PolicyState::Unchanged => format!("policy: {POLICY_PATH} is already the default\n"),
            PolicyState::KeptExisting => {
                format!("policy: kept your {POLICY_PATH} as it is\n")
            }
        });
        let refspecs = answer.push_refspecs.join(" ");
        t.push_str(&match (&answer.remote, &answer.push_command) {
            (Some(r), Some(c)) => format!(
                "push: `{c}` pushes your work with the reviews ({refspecs}); by hand: `git push {r} {refspecs}`\n"
            ),
            _ => format!(
                "push: no remote `origin`; add one, then `probity push <remote>` pushes your work with the reviews ({refspecs})\n"
            ),
        });
        t.push_str(if answer.changed {
            "set up: the gates run on every commit and push\n"
        } else {
            "nothing changed: already set up\n"
        });
        for u in &answer.undo {
            t.push_str(&format!("undo: {u}\n"));
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}
