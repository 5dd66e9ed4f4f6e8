//! `probity context fetch`: collect one entity from a forge (C4), map it to
//! the normalized input, assemble, write and verify the tree exactly as
//! `context assemble` does, and print the same answer (the root
//! `index_digest` the host retains).
//!
//! The token is read from the environment variable `--token-env` names
//! (default by `--forge`: `GITHUB_TOKEN`, `GITLAB_TOKEN` or
//! `FORGEJO_TOKEN`); it is sent only as a request header, registered
//! as a run credential so that a body quoting it is redacted, and never
//! written to any file, log or message (`--input-out` masks it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgGroup, Args, ValueEnum};
use probity_core::context::AssembleError;
use probity_core::context::{EntityKind, Forge, Host};
use probity_core::context::{MAX_INPUT_BYTES, ProfileInput};
use probity_forge::forgejo::Forgejo;
use probity_forge::github::GitHub;
use probity_forge::gitlab::GitLab;
use probity_forge::http::{Limits, SystemSleeper, Token};
use probity_ports::context::{assemble_parallel, default_workers};
use probity_ports::forge::{
    CollectError, CollectRequest, EntityRef, ForgeError, ForgePort, collect, default_profile,
    input_document,
};
use probity_store::context_dir::{self, ContextDirError};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

/// The forges `--forge` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ForgeArg {
    Github,
    Gitlab,
    Forgejo,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("entity").required(true).args(["change", "issue"])))]
pub struct FetchArgs {
    /// The forge (forgejo: checks are commit statuses, D-R94).
    #[arg(long, value_enum)]
    pub forge: ForgeArg,
    /// The forge host (`github.com`, `gitlab.com`, `codeberg.org`, or a
    /// self-hosted instance; lowercase, `:port` only when not 443).
    #[arg(long, value_name = "H")]
    pub host: String,
    /// The repository (GitLab: the project path, `group/sub/name`).
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: String,
    /// A change proposal (pull or merge request) number.
    #[arg(long, value_name = "N")]
    pub change: Option<u64>,
    /// A work item (issue) number.
    #[arg(long, value_name = "N")]
    pub issue: Option<u64>,
    /// The directory to create (it must not exist).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The collection profile (the `profile` object of the normalized
    /// input, docs/context.md); default: every applicable source but agent
    /// runs, the newest 100 records, failed checks' logs, admission `write`.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// The environment variable holding the API token (default:
    /// GITHUB_TOKEN, GITLAB_TOKEN or FORGEJO_TOKEN by --forge).
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// Also write the normalized input collected (a new file, 0600; the
    /// token masked) for `probity context assemble --input`.
    #[arg(long, value_name = "FILE")]
    pub input_out: Option<PathBuf>,
    /// Register a bot account's role (ADR 0107, repeatable): a bot the
    /// forge reports as one, with exactly this login, is admitted under
    /// ROLE. Unregistered bots are not admitted.
    #[arg(long = "bot-role", value_name = "LOGIN=ROLE")]
    pub bot_role: Vec<String>,
    /// The API base URL instead of the host's (tests, proxies).
    #[arg(long, value_name = "URL", hide = true)]
    pub api_base: Option<String>,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,
    /// The most seconds spent waiting out rate limits, in total.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub max_rate_limit_wait: u64,
}

/// The `context_cmd` helpers this command shares (one error mapping, one
/// path resolution for every context command).
pub struct Shared {
    pub resolve: fn(&GlobalArgs, &Path) -> PathBuf,
    pub assemble_error: fn(&AssembleError) -> CliError,
    pub dir_error: fn(&ContextDirError) -> CliError,
}

/// The mask written in place of the token in `--input-out`.
const TOKEN_MASK: &str = "[REDACTED:secret.registered_credential]";

fn usage(code: &str, message: impl Into<String>, next: &str) -> CliError {
    CliError::new(ErrorKind::Usage, code, message, next)
}

/// A forge failure as the user sees it.
pub fn forge_error(e: &ForgeError, token_env: &str) -> CliError {
    let (kind, code, next) = match e {
        ForgeError::Unauthorized { .. } => (
            ErrorKind::RejectedInput,
            "forge_unauthorized",
            format!(
                "check the token in ${token_env} and its scopes (docs/context.md, \"Fetching from a forge\")"
            ),
        ),
        ForgeError::NotFound { .. } => (
            ErrorKind::RejectedInput,
            "forge_not_found",
            "check --host, --repo and the number (and that the token can see the repository)"
                .into(),
        ),
        ForgeError::RateLimited { .. } => (
            ErrorKind::Io,
            "forge_rate_limited",
            "retry later, or raise --max-rate-limit-wait".into(),
        ),
        ForgeError::InvalidMetadata { .. } => (
            ErrorKind::RejectedInput,
            "forge_invalid_metadata",
            "the forge returned a value no mapping table lists: do not launch scripts or an agent for this entity".into(),
        ),
        ForgeError::Transport { .. } | ForgeError::Malformed { .. } => (
            ErrorKind::Io,
            "forge_transport",
            "check the host and the network, then retry".into(),
        ),
        ForgeError::InputTooLarge { .. } => (
            ErrorKind::RejectedInput,
            "forge_input_too_large",
            "the forge answer exceeds its bound: nothing was written".into(),
        ),
        ForgeError::Unsupported { .. } => (
            ErrorKind::Usage,
            "forge_unsupported",
            "this forge adapter cannot collect that data yet (docs/context.md)".into(),
        ),
    };
    CliError::new(kind, code, e.to_string(), next)
}

fn collect_error(e: &CollectError, token_env: &str) -> CliError {
    match e {
        CollectError::Profile(p) => CliError::new(
            ErrorKind::RejectedInput,
            "invalid_collection_profile",
            p.to_string(),
            "fix the collection profile; nothing was fetched or assembled",
        ),
        CollectError::KindMismatch { .. } => usage(
            "profile_kind_mismatch",
            e.to_string(),
            "use --change with a change_proposal profile, --issue with a work_item one",
        ),
        CollectError::Forge(f) => forge_error(f, token_env),
    }
}

fn io_error(what: &Path, e: &std::io::Error) -> CliError {
    CliError::new(
        ErrorKind::Io,
        "context_io",
        format!("{}: {e}", what.display()),
        "check the path and permissions",
    )
}

/// The prefix of `--input-out`'s temp file, beside it.
const INPUT_TEMP_PREFIX: &str = ".probity-input-";

fn input_out_exists(path: &Path) -> CliError {
    CliError::new(
        ErrorKind::Conflict,
        "input_out_exists",
        format!("{} already exists", path.display()),
        "choose a new file for --input-out; it is never written over",
    )
}

/// `bytes` written to a locked temp file beside `path` (0600) and synced,
/// not yet in place: [`persist_new`] renames it there; dropped, it is
/// removed (every error path, and an interrupted run's cleanup).
fn stage_new(path: &Path, bytes: &[u8]) -> Result<probity_scratch::LockedTemp, CliError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // What a killed fetch staged here is removed first (never a live
    // one's: its temp file is its own lock).
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            if e.file_name()
                .to_string_lossy()
                .starts_with(INPUT_TEMP_PREFIX)
            {
                probity_scratch::remove_if_orphaned(&e.path());
            }
        }
    }
    let mut tmp = probity_scratch::LockedTemp::new_in(&dir, INPUT_TEMP_PREFIX)
        .map_err(|e| io_error(path, &e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o600))
            .map_err(|e| io_error(path, &e))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io_error(path, &e))?;
    Ok(tmp)
}

/// Renames a staged file into place: atomically, and never over a file
/// that appeared meanwhile (`input_out_exists`; the temp file is removed).
fn persist_new(tmp: probity_scratch::LockedTemp, path: &Path) -> Result<(), CliError> {
    tmp.persist_new(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            input_out_exists(path)
        } else {
            io_error(path, &e)
        }
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    probity_scratch::sync_dir(&dir).map_err(|e| io_error(&dir, &e))
}

fn read_profile(
    global: &GlobalArgs,
    shared: &Shared,
    path: &Path,
) -> Result<ProfileInput, CliError> {
    let path = (shared.resolve)(global, path);
    let bytes = crate::authority_cmd::read_input(&path, MAX_INPUT_BYTES)?.bytes;
    probity_core::canonical::from_slice_strict(&bytes).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "invalid_collection_profile",
            format!("{}: {e}", path.display()),
            "fix the collection profile (the `profile` object of docs/context.md)",
        )
    })
}

/// Runs `probity context fetch`.
pub fn run(
    global: &GlobalArgs,
    out: Output,
    a: &FetchArgs,
    shared: &Shared,
) -> Result<ExitCode, CliError> {
    let forge = a.forge;
    let token_env = a.token_env.clone().unwrap_or_else(|| {
        match forge {
            ForgeArg::Github => "GITHUB_TOKEN",
            ForgeArg::Gitlab => "GITLAB_TOKEN",
            ForgeArg::Forgejo => "FORGEJO_TOKEN",
        }
        .to_owned()
    });
    let token_env = token_env.as_str();
    let host = Host::parse(&a.host).map_err(|e| {
        usage(
            "bad_host",
            e.to_string(),
            "pass the lowercase host name, e.g. --host github.com",
        )
    })?;
    // The repository's form, before anything else is asked of the forge
    // (the adapters refuse it too, but as a forge answer).
    let repo_ok = match forge {
        ForgeArg::Github | ForgeArg::Forgejo => a
            .repo
            .split_once('/')
            .is_some_and(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/')),
        ForgeArg::Gitlab => {
            a.repo.contains('/')
                && !a.repo.starts_with('/')
                && !a.repo.ends_with('/')
                && !a.repo.contains("//")
        }
    };
    if !repo_ok {
        let form = match forge {
            ForgeArg::Gitlab => "GROUP/NAME (subgroups: GROUP/SUB/NAME)",
            ForgeArg::Github | ForgeArg::Forgejo => "OWNER/NAME",
        };
        return Err(usage(
            "bad_repo",
            format!("--repo `{}` is not of the form {form}", a.repo),
            "pass the repository as the forge's URL names it, e.g. --repo acme/widgets",
        ));
    }
    if let Some(base) = &a.api_base {
        // The token is sent with every request: never in clear text beyond
        // this machine (the client refuses it too).
        let https = base.starts_with("https://");
        let loopback_http = base.starts_with("http://") && probity_core::url::is_loopback(base);
        if !(https || loopback_http) {
            return Err(usage(
                "bad_api_base",
                format!(
                    "--api-base `{base}` is not an https:// URL: the token is sent with every request, so plain http is allowed only to the loopback interface (127.0.0.1, localhost, [::1])"
                ),
                "use an https:// API base (or leave --api-base out: the host's own is https)",
            ));
        }
    }
    let entity = match (a.change, a.issue) {
        (Some(n), None) => EntityRef {
            kind: EntityKind::ChangeProposal,
            number: n,
        },
        (None, Some(n)) => EntityRef {
            kind: EntityKind::WorkItem,
            number: n,
        },
        _ => {
            return Err(usage(
                "bad_entity",
                "name exactly one of --change N or --issue N",
                "pass --change N (pull request) or --issue N",
            ));
        }
    };
    if entity.number == 0 {
        return Err(usage(
            "bad_entity",
            "entity numbers start at 1",
            "pass the number the forge shows",
        ));
    }
    let mut bot_roles = std::collections::BTreeMap::new();
    for b in &a.bot_role {
        let (login, role) = b
            .split_once('=')
            .filter(|(l, r)| !l.is_empty() && !r.is_empty())
            .ok_or_else(|| {
                usage(
                    "bad_bot_role",
                    format!("`{b}` is not LOGIN=ROLE"),
                    "pass --bot-role LOGIN=ROLE, e.g. --bot-role 'fullsend[bot]=review'",
                )
            })?;
        if bot_roles
            .insert(login.to_owned(), role.to_owned())
            .is_some()
        {
            return Err(usage(
                "bad_bot_role",
                format!("--bot-role names `{login}` twice"),
                "register each bot login once",
            ));
        }
    }
    let profile = match &a.profile {
        Some(p) => read_profile(global, shared, p)?,
        None => default_profile(entity.kind),
    };
    // Refuse an existing destination before any request is made.
    let dir = (shared.resolve)(global, &a.out);
    if std::fs::symlink_metadata(&dir).is_ok() {
        return Err((shared.dir_error)(&ContextDirError::Exists(dir)));
    }
    let input_out = a.input_out.as_ref().map(|p| (shared.resolve)(global, p));
    if let Some(p) = &input_out
        && std::fs::symlink_metadata(p).is_ok()
    {
        return Err(input_out_exists(p));
    }
    let bad_token = || {
        usage(
            "bad_token",
            format!(
                "${token_env} does not hold a usable token (at least 8 printable ASCII characters, with no spaces, no double quotes (\") and no backslashes (\\))"
            ),
            "export the forge token in that variable",
        )
    };
    let token = match std::env::var(token_env) {
        // At least 8 bytes: the token is registered as a run credential
        // (and masked in --input-out) by its exact value.
        Ok(v) if v.len() >= 8 => Token::new(v).map_err(|_| bad_token())?,
        Ok(v) if !v.is_empty() => return Err(bad_token()),
        _ => {
            return Err(usage(
                "token_missing",
                format!("${token_env} is not set"),
                "export the forge token in that variable, or name another one with --token-env",
            ));
        }
    };
    let api_base = a.api_base.clone().unwrap_or_else(|| match forge {
        ForgeArg::Github => probity_forge::github::api_base_for_host(host.as_str()),
        ForgeArg::Gitlab => probity_forge::gitlab::api_base_for_host(host.as_str()),
        ForgeArg::Forgejo => probity_forge::forgejo::api_base_for_host(host.as_str()),
    });
    let limits = Limits {
        timeout: Duration::from_secs(a.timeout.max(1)),
        max_total_wait: Duration::from_secs(a.max_rate_limit_wait),
        ..Limits::default()
    };
    let secret = token.expose().to_owned();
    let (mut port, forge): (Box<dyn ForgePort>, Forge) = match forge {
        ForgeArg::Gitlab => (
            Box::new(
                GitLab::new(&api_base, &a.repo, Some(token), limits, SystemSleeper)
                    .map_err(|e| forge_error(&e, token_env))?,
            ),
            Forge::Gitlab,
        ),
        ForgeArg::Forgejo => (
            Box::new(
                Forgejo::new(&api_base, &a.repo, Some(token), limits, SystemSleeper)
                    .map_err(|e| forge_error(&e, token_env))?,
            ),
            Forge::Forgejo,
        ),
        ForgeArg::Github => (
            Box::new(
                GitHub::new(&api_base, &a.repo, Some(token), limits, SystemSleeper)
                    .map_err(|e| forge_error(&e, token_env))?,
            ),
            Forge::Github,
        ),
    };
    let request = CollectRequest {
        forge,
        host: host.as_str().to_owned(),
        entity,
        bot_roles,
    };
    let mut input =
        collect(port.as_mut(), &request, &profile).map_err(|e| collect_error(&e, token_env))?;
    // `--input-out` is staged beside its destination now (the input as
    // collected, before the credential is registered) and put in place
    // only once the tree is written and verified: a refused assembly
    // (exit 3) or any other error removes the staged file.
    let staged = match &input_out {
        Some(p) => {
            let text = crate::output::pretty(&input_document(&input)).replace(&secret, TOKEN_MASK);
            Some((stage_new(p, format!("{text}\n").as_bytes())?, p))
        }
        None => None,
    };
    // The token is a run credential: a body quoting it is redacted. It is
    // registered in memory only (never in --input-out).
    input.credentials.push(secret);
    let assembly =
        assemble_parallel(&input, default_workers()).map_err(|e| (shared.assemble_error)(&e))?;
    context_dir::write_tree(&dir, &assembly.tree).map_err(|e| (shared.dir_error)(&e))?;
    context_dir::verify_dir(&dir, &assembly.index_digest).map_err(|e| (shared.dir_error)(&e))?;
    if let Some((tmp, p)) = staged {
        persist_new(tmp, p)?;
    }
    crate::context_shared::assembled_answer(out, &dir, &assembly);
    Ok(ExitCode::SUCCESS)
}
