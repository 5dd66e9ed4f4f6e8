//! `probity policy check [FILE]` and `probity policy show [--at REV]`: the
//! repository policy (`.probity/policy.json`, `probity schema policy`), as
//! a file being written and as the gates read it from a base.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::Serialize;

use probity_core::review::{CHECKS_PATH, ChecksDocument, MAX_CHECKS_BYTES, RepoChecks};
use probity_core::review::{MAX_POLICY_BYTES, POLICY_PATH, PolicyDocument, RepoPolicy};
use probity_git::Repo;

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

/// `probity policy ...`
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Check a policy file (default: .probity/policy.json in the working
    /// tree) against probity-policy/v1 or /v2; exit 0 when valid.
    Check(PolicyCheckArgs),
    /// Show the policy the gates read from a base commit (default HEAD; in
    /// CI the protected branch, e.g. origin/main) and which protections are
    /// on and off.
    Show(PolicyShowArgs),
}

/// `probity policy check`.
#[derive(Debug, Args)]
pub struct PolicyCheckArgs {
    /// The policy file (`-` for stdin).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Check a required-checks file instead (default:
    /// .probity/checks.json in the working tree) against probity-checks/v1.
    #[arg(long)]
    pub checks: bool,
}

/// `probity policy show`.
#[derive(Debug, Args)]
pub struct PolicyShowArgs {
    /// The commit the policy is read from: the base the gates judge
    /// against.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub at: String,
}

/// The answer of both subcommands.
#[derive(Debug, Serialize)]
struct PolicyView {
    /// Where the policy was read (a file, or `REV:.probity/policy.json`).
    source: String,
    /// The document, when there is one.
    policy: Option<PolicyDocument>,
    /// The required checks (`.probity/checks.json`), when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<ChecksDocument>,
    /// The protections in force.
    on: Vec<String>,
    /// The protections that are off, and why.
    off: Vec<String>,
}

fn invalid(source: &str, e: impl std::fmt::Display) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "policy_invalid",
        format!("{source}: {e}"),
        "fix the document (its schema: `probity schema policy`, or `probity schema policy-v2` with `transcripts`) and check it again",
    )
}

fn view(source: String, policy: Option<&RepoPolicy>, signature_config: (bool, bool)) -> PolicyView {
    let (require_signature, configured_signers) = signature_config;
    let mut on = Vec::new();
    let mut off = Vec::new();
    match policy {
        None => {
            off.push("role signatures: no policy in the base".to_string());
            off.push(
                "risk floors (high_risk paths and content): no policy in the base".to_string(),
            );
        }
        Some(p) => {
            let doc = p.document();
            for (tier, roles) in [
                ("low", &doc.signatures.low),
                ("medium", &doc.signatures.medium),
                ("high", &doc.signatures.high),
            ] {
                if roles.is_empty() {
                    off.push(format!("role signatures for {tier}-risk approvals"));
                } else {
                    on.push(format!(
                        "{tier}-risk approvals signed by {} (a different key each)",
                        roles.join(" + ")
                    ));
                }
            }
            if doc.transcripts.is_empty() {
                off.push(
                    "model-run lens results (transcripts): lens results may be handed in".into(),
                );
            } else {
                let tiers: Vec<&str> = doc.transcripts.iter().map(|t| t.name()).collect();
                on.push(format!(
                    "{}-risk lens results are model runs of `probity review`, bound to their transcripts and the frozen prompts (the tier's signers vouch for them)",
                    tiers.join(" and ")
                ));
            }
            let floors = doc.high_risk.paths.len() + doc.high_risk.content.len();
            on.push(format!(
                "risk floor: changes under .probity/ and {floors} high_risk rule(s) are high risk"
            ));
            match (configured_signers, p.allowed_signers()) {
                (true, _) => {
                    on.push("allowed signers: the server's probity.allowedSignersFile".into())
                }
                (false, Some(path)) => on.push(format!("allowed signers: {path} in the base")),
                (false, None) => {}
            }
        }
    }
    if require_signature {
        on.push("probity.requireSignature: every approval signed by an allowed key".into());
    } else {
        off.push("probity.requireSignature is not set in this repository's configuration".into());
    }
    PolicyView {
        source,
        policy: policy.map(|p| p.document().clone()),
        checks: None,
        on,
        off,
    }
}

/// The view with the required checks read from the same base.
fn with_checks(mut v: PolicyView, checks: Option<&RepoChecks>) -> PolicyView {
    match checks {
        None => v
            .off
            .push(format!("required checks: no {CHECKS_PATH} in the base")),
        Some(c) => {
            for r in &c.document().checks {
                v.on.push(format!(
                    "required check `{}`: changes to {} rest on `{}` (exit 0, on the reviewed tree)",
                    r.name,
                    r.paths.join(", "),
                    r.argv.join(" ")
                ));
            }
            v.checks = Some(c.document().clone());
        }
    }
    v
}

fn human(v: &PolicyView) -> String {
    let mut s = format!("policy: {}\n", v.source);
    if v.policy.is_none() {
        s.push_str("  (none)\n");
    }
    for o in &v.on {
        s.push_str(&format!("  on:  {o}\n"));
    }
    for o in &v.off {
        s.push_str(&format!("  off: {o}\n"));
    }
    s
}

/// Runs `probity policy`.
pub fn policy(global: &GlobalArgs, out: Output, cmd: &PolicyCommand) -> Result<ExitCode, CliError> {
    match cmd {
        PolicyCommand::Check(a) => {
            let default = if a.checks { CHECKS_PATH } else { POLICY_PATH };
            let path = match &a.file {
                Some(p) => p.clone(),
                None => {
                    let cwd = super::discovery_dir(global.cwd.clone())?;
                    let repo = Repo::discover(super::git_cli(), &cwd).map_err(super::repo_error)?;
                    repo.root().join(default)
                }
            };
            if a.checks {
                let input = super::read_input(&path, MAX_CHECKS_BYTES as u64)?;
                let checks = RepoChecks::parse(&input.bytes).map_err(|e| {
                    CliError::new(
                        ErrorKind::RejectedInput,
                        "policy_invalid",
                        format!("{}: {e}", input.name),
                        "fix the document (its schema: `probity schema checks`) and check it again",
                    )
                })?;
                let v = with_checks(
                    PolicyView {
                        source: input.name,
                        policy: None,
                        checks: None,
                        on: Vec::new(),
                        off: Vec::new(),
                    },
                    Some(&checks),
                );
                out.answer(&v, || format!("valid probity-checks/v1\n{}", human(&v)));
                return Ok(ExitCode::SUCCESS);
            }
            let input = super::read_input(&path, MAX_POLICY_BYTES as u64)?;
            let policy = RepoPolicy::parse(&input.bytes).map_err(|e| invalid(&input.name, e))?;
            let v = view(input.name, Some(&policy), (false, false));
            out.answer(&v, || format!("valid probity-policy/v1\n{}", human(&v)));
            Ok(ExitCode::SUCCESS)
        }
        PolicyCommand::Show(a) => {
            let cwd = super::discovery_dir(global.cwd.clone())?;
            let repo =
                Repo::discover_allow_bare(super::git_cli(), &cwd).map_err(super::repo_error)?;
            let commit = repo
                .find_commit(&a.at)
                .map_err(super::repo_error)?
                .ok_or_else(|| {
                    CliError::new(
                        ErrorKind::RejectedInput,
                        "unknown_revision",
                        format!("`{}` names no commit here", a.at),
                        "name the protected branch's tip, e.g. --at origin/main",
                    )
                })?;
            let source = format!("{commit}:{POLICY_PATH}");
            let bytes = repo
                .read_path(commit.as_str(), POLICY_PATH, MAX_POLICY_BYTES)
                .map_err(super::repo_error)?;
            let policy = match bytes {
                None => None,
                Some(b) => Some(RepoPolicy::parse(&b).map_err(|e| invalid(&source, e))?),
            };
            let checks_source = format!("{commit}:{CHECKS_PATH}");
            let checks = match repo
                .read_path(commit.as_str(), CHECKS_PATH, MAX_CHECKS_BYTES)
                .map_err(super::repo_error)?
            {
                None => None,
                Some(b) => Some(RepoChecks::parse(&b).map_err(|e| invalid(&checks_source, e))?),
            };
            let sig = probity_git::sign::signature_policy(&repo).map_err(super::repo_error)?;
            let v = with_checks(
                view(
                    source,
                    policy.as_ref(),
                    (sig.require_signature, sig.allowed_signers.is_some()),
                ),
                checks.as_ref(),
            );
            out.answer(&v, || human(&v));
            Ok(ExitCode::SUCCESS)
        }
    }
}
