//! `probity validate --gate ...`: the gates.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::BaseAdvance;
use probity_core::review::GateProof;
use probity_core::review::{CommitId, LineageId, RepoPath};
use probity_core::review::{
    Decision, DeliveryReport, GateDecision, GateStage, NextAction, ReasonCode, parse_push_updates,
};
use probity_core::review::{ObservedArtifact, parse_checksums};
use probity_ports::review::{self as drivers, Delivery, PushBoundary};
use probity_store::ArtifactDir;

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output, wire_name};

use super::*;

/// The most bytes of pre-push hook lines read from stdin (about 40,000
/// ref updates).
pub const MAX_HOOK_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// The largest checksums file read for `--gate release --checksums`.
pub const MAX_CHECKSUMS_BYTES: u64 = 4 * 1024 * 1024;

/// A delivery boundary.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GateArg {
    PreCommit,
    PrePush,
    PrePr,
    Release,
    /// The server-side gate (a bare repository's pre-receive hook, or CI
    /// with --range OLD..NEW --ref REF): authority from refs/notes/probity.
    PreReceive,
}

// Not `args_conflicts_with_subcommands`: clap counts the global `--json`
// and `--cwd` among the conflicting arguments, so `validate --json
// pre-receive` was refused; `normalized` refuses a gate flag beside a gate
// subcommand instead.
#[derive(Debug, Args)]
#[command(subcommand_negates_reqs = true)]
pub struct ValidateArgs {
    /// The boundary, as a subcommand with only its own flags
    /// (`probity validate pre-push --remote origin`); `--gate NAME` with
    /// the flags below is the same command.
    #[command(subcommand)]
    pub form: Option<GateCommand>,
    /// The boundary being crossed.
    #[arg(long, value_enum, required = true)]
    pub gate: Option<GateArg>,
    /// Compare exactly what the index would commit, not the worktree. Inside
    /// a commit (a hook, where git sets GIT_INDEX_FILE) that index is always
    /// what is compared.
    #[arg(long)]
    pub staged: bool,
    /// pre-push: the remote being pushed to, a name or a URL (a hook passes
    /// git's `$1`); what it advertises now (`git ls-remote`) counts as
    /// already delivered.
    #[arg(long, value_name = "NAME|URL")]
    pub remote: Option<String>,
    /// pre-push: read git's pre-push lines (`<local ref> <local oid>
    /// <remote ref> <remote oid>`) from stdin, as a hook receives them
    /// (needs --remote).
    #[arg(long, conflicts_with = "range", requires = "remote")]
    pub stdin_updates: bool,
    /// pre-push: judge the commits reachable from TIP and not from BASE
    /// (for CI: `--range origin/main..HEAD`). Without this or
    /// --stdin-updates: HEAD minus what --remote advertises, or without
    /// --remote, minus what the remote-tracking refs last saw.
    #[arg(long, value_name = "BASE..TIP", conflicts_with = "remote")]
    pub range: Option<String>,
    /// pre-pr: the base the proposal targets, named explicitly (for a fork,
    /// the upstream's branch, e.g. `upstream/main`); never guessed.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// pre-pr: the proposal's head (default HEAD).
    #[arg(long, value_name = "REV", requires = "base")]
    pub head: Option<String>,
    /// release: the exact revision released (a tag or a commit).
    #[arg(long, value_name = "REV")]
    pub revision: Option<String>,
    /// release: the checksums file (`sha256sum` format) naming the release
    /// artifacts and their digests.
    #[arg(long, value_name = "FILE", requires = "revision")]
    pub checksums: Option<PathBuf>,
    /// release: where the artifacts are (default: the checksums file's
    /// directory).
    #[arg(long, value_name = "DIR", requires = "checksums")]
    pub artifacts: Option<PathBuf>,
    #[command(flatten)]
    pub transport: pre_receive::TransportArgs,
}

/// `probity validate <gate>`: each gate with only its own flags. Also the
/// typed value `validate` runs, whichever spelling named it
/// ([`ValidateArgs::invocation`]): each gate reads only its own struct.
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum GateCommand {
    /// The live candidate (or the index a commit delivers, --staged).
    PreCommit(PreCommitArgs),
    /// The commits a push delivers.
    PrePush(PrePushArgs),
    /// A change proposal against the base it targets.
    PrePr(PrePrArgs),
    /// The exact revision released, and its artifacts.
    Release(ReleaseArgs),
    /// The server-side gate: a pre-receive hook's stdin, or one ref's
    /// update in CI.
    PreReceive(PreReceiveArgs),
    /// A bare repository's `reference-transaction` hook (`hooks install
    /// --server` writes it): each ref transaction of a push the
    /// pre-receive gate allowed with the notes it brings lands only with
    /// those notes in place, or set in the same transaction (`--atomic`).
    ReferenceTransaction(super::ref_transaction::RefTransactionArgs),
}

/// `validate pre-commit`'s flags.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct PreCommitArgs {
    /// Compare exactly what the index would commit.
    #[arg(long)]
    pub staged: bool,
}

/// `validate pre-push`'s flags.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct PrePushArgs {
    /// The remote pushed to (a name or a URL).
    #[arg(long, value_name = "NAME|URL")]
    pub remote: Option<String>,
    /// Read git's pre-push lines from stdin (needs --remote).
    #[arg(long, conflicts_with = "range", requires = "remote")]
    pub stdin_updates: bool,
    /// The commits reachable from TIP and not from BASE.
    #[arg(long, value_name = "BASE..TIP", conflicts_with = "remote")]
    pub range: Option<String>,
}

/// `validate pre-pr`'s flags.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct PrePrArgs {
    /// The base the proposal targets, named explicitly.
    #[arg(long, value_name = "REV")]
    pub base: String,
    /// The proposal's head (default HEAD).
    #[arg(long, value_name = "REV")]
    pub head: Option<String>,
    /// Take authority from `notes` (refs/notes/probity, verified).
    #[arg(long, value_enum, value_name = "store|notes")]
    pub authority: Option<pre_receive::AuthorityArg>,
    /// With `--authority notes`: a commit whose repository policy the
    /// proposal answers to besides its base's (repeatable; in CI, the
    /// default branch).
    #[arg(long = "policy-base", value_name = "REV", requires = "authority")]
    pub policy_base: Vec<String>,
}

/// `validate release`'s flags.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ReleaseArgs {
    /// The exact revision released (a tag or a commit).
    #[arg(long, value_name = "REV")]
    pub revision: String,
    /// The checksums file (`sha256sum` format).
    #[arg(long, value_name = "FILE")]
    pub checksums: Option<PathBuf>,
    /// Where the artifacts are (default: the checksums file's directory).
    #[arg(long, value_name = "DIR", requires = "checksums")]
    pub artifacts: Option<PathBuf>,
}

/// `validate pre-receive`'s flags.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct PreReceiveArgs {
    /// The update OLD..NEW (with --ref).
    #[arg(long, value_name = "OLD..NEW", requires = "refname")]
    pub range: Option<String>,
    /// The ref the update moves.
    #[arg(long = "ref", value_name = "REF", requires = "range")]
    pub refname: Option<String>,
    /// A commit whose repository policy the update answers to besides its
    /// old tip's (repeatable): in CI, the default branch (e.g.
    /// refs/remotes/origin/main), as the server hook's does.
    #[arg(long = "policy-base", value_name = "REV", requires = "refname")]
    pub policy_base: Vec<String>,
}

fn policy_base_not_for_gate() -> CliError {
    flag_not_for_gate(
        "--policy-base belongs to the CI forms: --gate pre-receive --range OLD..NEW --ref REF, or --gate pre-pr --authority notes",
        "drop it, or use one of those forms",
    )
}

fn flag_not_for_gate(message: &str, next: &str) -> CliError {
    CliError::new(ErrorKind::Usage, "flag_not_for_gate", message, next)
}

impl ValidateArgs {
    /// Whether any flag of the `--gate` spelling was given (the global
    /// `--json` and `--cwd` are not its flags).
    fn has_gate_flags(&self) -> bool {
        self.gate.is_some()
            || self.staged
            || self.remote.is_some()
            || self.stdin_updates
            || self.range.is_some()
            || self.base.is_some()
            || self.head.is_some()
            || self.revision.is_some()
            || self.checksums.is_some()
            || self.artifacts.is_some()
            || self.transport.refname.is_some()
            || !self.transport.policy_base.is_empty()
            || self.transport.authority.is_some()
    }

    /// The one gate this command runs, with only its own flags: the
    /// subcommand as parsed (clap refused another gate's flag), or the
    /// `--gate` spelling checked here, every other gate's flag a usage
    /// error (`flag_not_for_gate`) before anything runs.
    pub(crate) fn invocation(&self) -> Result<GateCommand, CliError> {
        if let Some(form) = &self.form {
            if self.has_gate_flags() {
                return Err(CliError::new(
                    ErrorKind::Usage,
                    "usage",
                    "a gate subcommand takes only its own flags, never --gate or another gate's flags beside it",
                    "spell the gate one way: `probity validate pre-commit|pre-push|pre-pr|release|pre-receive [its flags]`, or `probity validate --gate NAME [flags]`",
                ));
            }
            return Ok(form.clone());
        }
        let gate = self.gate_arg()?;
        let local_flags = self.staged
            || self.remote.is_some()
            || self.stdin_updates
            || self.revision.is_some()
            || self.checksums.is_some();
        let push_flags = self.remote.is_some() || self.stdin_updates || self.range.is_some();
        let pr_flags = self.base.is_some() || self.head.is_some();
        let release_flags = self.revision.is_some() || self.checksums.is_some();
        let transport = self.transport.authority.is_some()
            || self.transport.refname.is_some()
            || !self.transport.policy_base.is_empty();
        match gate {
            GateArg::PreReceive if local_flags || pr_flags => Err(flag_not_for_gate(
                "--gate pre-receive takes its updates on stdin, or --range OLD..NEW --ref REF (and --authority)",
                "drop the other gates' flags",
            )),
            GateArg::PreReceive if self.transport.authority.is_some() => Err(flag_not_for_gate(
                "--gate pre-receive reads git's `<old> <new> <ref>` lines on stdin, or takes --range OLD..NEW --ref REF",
                "drop the other gates' flags",
            )),
            GateArg::PreReceive
                if !self.transport.policy_base.is_empty() && self.transport.refname.is_none() =>
            {
                Err(policy_base_not_for_gate())
            }
            GateArg::PrePr
                if !self.transport.policy_base.is_empty()
                    && self.transport.authority != Some(pre_receive::AuthorityArg::Notes) =>
            {
                Err(policy_base_not_for_gate())
            }
            GateArg::PreReceive => Ok(GateCommand::PreReceive(PreReceiveArgs {
                range: self.range.clone(),
                refname: self.transport.refname.clone(),
                policy_base: self.transport.policy_base.clone(),
            })),
            GateArg::PrePr
                if transport
                    && (local_flags
                        || self.range.is_some()
                        || self.transport.refname.is_some()) =>
            {
                Err(flag_not_for_gate(
                    "--gate pre-pr --authority notes takes --base REV [--head REV]; --ref belongs to --gate pre-receive",
                    "drop the other flags",
                ))
            }
            GateArg::PreCommit | GateArg::PrePush | GateArg::Release if transport => {
                Err(flag_not_for_gate(
                    "--authority belongs to --gate pre-pr, --ref to --gate pre-receive, --policy-base to their CI forms",
                    "drop it, or use --gate pre-pr / pre-receive",
                ))
            }
            GateArg::Release if push_flags || pr_flags || self.staged => Err(flag_not_for_gate(
                "--gate release takes --revision REV [--checksums FILE [--artifacts DIR]]",
                "drop the other gates' flags",
            )),
            GateArg::Release => Ok(GateCommand::Release(ReleaseArgs {
                revision: self.revision.clone().ok_or_else(|| {
                    CliError::new(
                        ErrorKind::Usage,
                        "revision_required",
                        "--gate release needs --revision: the exact revision released",
                        "name the release tag or commit, e.g. --revision v1.2.0",
                    )
                })?,
                checksums: self.checksums.clone(),
                artifacts: self.artifacts.clone(),
            })),
            GateArg::PreCommit | GateArg::PrePush | GateArg::PrePr if release_flags => {
                Err(flag_not_for_gate(
                    "--revision, --checksums and --artifacts belong to --gate release",
                    "drop them, or use --gate release",
                ))
            }
            GateArg::PreCommit | GateArg::PrePush if pr_flags => Err(flag_not_for_gate(
                "--base and --head belong to --gate pre-pr",
                "drop them, or use --gate pre-pr",
            )),
            GateArg::PrePr if push_flags || self.staged => Err(flag_not_for_gate(
                "--remote, --stdin-updates, --range and --staged do not belong to --gate pre-pr",
                "name the proposal with --base REV [--head REV]",
            )),
            GateArg::PrePr => {
                let notes = self.transport.authority == Some(pre_receive::AuthorityArg::Notes);
                Ok(GateCommand::PrePr(PrePrArgs {
                    base: self.base.clone().ok_or_else(|| {
                        CliError::new(
                            ErrorKind::Usage,
                            "base_required",
                            "--gate pre-pr needs --base: the base is never guessed",
                            if notes {
                                "name the branch the proposal targets, e.g. --base origin/main"
                            } else {
                                "name the branch the proposal targets, e.g. --base origin/main (or upstream/main for a fork)"
                            },
                        )
                    })?,
                    head: self.head.clone(),
                    authority: self.transport.authority,
                    policy_base: self.transport.policy_base.clone(),
                }))
            }
            GateArg::PreCommit if push_flags => Err(flag_not_for_gate(
                "--remote, --stdin-updates and --range belong to --gate pre-push",
                "drop them, or use --gate pre-push",
            )),
            GateArg::PreCommit => Ok(GateCommand::PreCommit(PreCommitArgs {
                staged: self.staged,
            })),
            GateArg::PrePush if self.staged => Err(flag_not_for_gate(
                "--staged belongs to --gate pre-commit",
                "drop --staged: pre-push judges the commits being pushed",
            )),
            GateArg::PrePush => Ok(GateCommand::PrePush(PrePushArgs {
                remote: self.remote.clone(),
                stdin_updates: self.stdin_updates,
                range: self.range.clone(),
            })),
        }
    }

    /// The gate named (by `--gate` or the subcommand).
    pub(crate) fn gate_arg(&self) -> Result<GateArg, CliError> {
        self.gate.ok_or_else(|| {
            CliError::new(
                ErrorKind::Usage,
                "usage",
                "validate needs a gate: `probity validate <pre-commit|pre-push|pre-pr|release|pre-receive>` (or --gate NAME)",
                "see `probity validate --help`",
            )
        })
    }
}

/// A gate decision as every gate answer carries it
/// (docs/review-authority.md "JSON answers"): its fields, read through
/// core's accessors, with the gate's name (`pre-receive` for the
/// server-side gate, which judges as pre-push does).
#[derive(Debug, Serialize)]
pub struct DecisionView<'a> {
    gate: &'a str,
    decision: Decision,
    reason_code: ReasonCode,
    stage: GateStage,
    lineage_id: Option<&'a LineageId>,
    differing_paths: &'a [RepoPath],
    /// The routing token, named as every answer names it (issue 26 §6).
    action: NextAction,
    /// The same token under its old name: an alias kept for one version
    /// (docs/review-authority.md "JSON answers").
    next_action: NextAction,
    message: &'a str,
    /// Publication gates: each delivered range and how it was judged.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    deliveries: &'a [DeliveryReport],
    /// The rebase proof that carried an allow, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<&'a GateProof>,
}

impl<'a> DecisionView<'a> {
    /// The view of a decision under its own gate's name.
    pub fn of(d: &'a GateDecision) -> Self {
        Self::named(d, d.gate().name())
    }

    /// The view of a decision under another gate's name.
    pub fn named(d: &'a GateDecision, gate: &'a str) -> Self {
        DecisionView {
            gate,
            decision: d.decision(),
            reason_code: d.reason_code(),
            stage: d.stage(),
            lineage_id: d.lineage_id(),
            differing_paths: d.differing_paths(),
            action: d.next_action(),
            next_action: d.next_action(),
            message: d.message(),
            deliveries: d.deliveries(),
            proof: d.proof(),
        }
    }
}

/// The `validate pre-commit` answer.
#[derive(Debug, Serialize)]
struct PreCommitAnswer<'a> {
    #[serde(flatten)]
    decision: DecisionView<'a>,
    /// `worktree` or `index` (`--staged`).
    delivery: &'static str,
}

/// The `validate pre-push` answer.
#[derive(Debug, Serialize)]
struct PrePushAnswer<'a> {
    #[serde(flatten)]
    decision: DecisionView<'a>,
    /// `updates` (hook lines), `head` or `range`.
    boundary: &'static str,
}

/// The `validate pre-pr` answer.
#[derive(Debug, Serialize)]
pub(super) struct PrePrAnswer<'a> {
    #[serde(flatten)]
    pub(super) decision: DecisionView<'a>,
    pub(super) base: &'a str,
    pub(super) head: &'a str,
    /// How far the base moved past the reviewed base, when it did.
    pub(super) base_advance: Option<&'a BaseAdvance>,
}

/// The `validate release` answer.
#[derive(Debug, Serialize)]
struct ReleaseAnswer<'a> {
    #[serde(flatten)]
    decision: DecisionView<'a>,
    revision: &'a str,
    /// The commit the revision named when judged (tags peeled).
    revision_commit: Option<&'a CommitId>,
    /// With `--checksums`: the checksums file's digest and the artifacts
    /// as judged.
    evidence: Option<ReleaseEvidenceAnswer<'a>>,
}

#[derive(Debug, Serialize)]
struct ReleaseEvidenceAnswer<'a> {
    checksums_sha256: &'a Sha256Digest,
    artifacts: &'a [ObservedArtifact],
}

pub fn human_decision(d: &GateDecision) -> String {
    let mut t = format!(
        "{} {}: {}\n  {}\n",
        d.gate().name(),
        match d.decision() {
            Decision::Allow => "ALLOW",
            Decision::Deny => "DENY",
        },
        wire_name(d.reason_code()),
        d.message()
    );
    if let Some(p) = &d.proof() {
        t.push_str(&format!(
            "  proof: rebased_onto (receipt base {}, live base {})\n",
            p.receipt_base, p.live_base
        ));
    }
    if !d.differing_paths().is_empty() {
        t.push_str(&format!(
            "  differing paths: {}\n",
            d.differing_paths()
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    t
}

pub fn validate(
    global: &GlobalArgs,
    out: Output,
    args: &ValidateArgs,
) -> Result<ExitCode, CliError> {
    match args.invocation()? {
        GateCommand::PreCommit(a) => validate_pre_commit(global, out, &a),
        GateCommand::PrePush(a) => validate_pre_push(global, out, &a),
        GateCommand::PrePr(a) if a.authority == Some(pre_receive::AuthorityArg::Notes) => {
            pre_receive::pre_pr_notes(global, out, &a)
        }
        GateCommand::PrePr(a) => validate_pre_pr(global, out, &a),
        GateCommand::Release(a) => validate_release(global, out, &a),
        GateCommand::PreReceive(a) => pre_receive::pre_receive(global, out, &a),
        GateCommand::ReferenceTransaction(a) => {
            super::ref_transaction::reference_transaction(global, out, &a)
        }
    }
}

fn validate_pre_commit(
    global: &GlobalArgs,
    out: Output,
    args: &PreCommitArgs,
) -> Result<ExitCode, CliError> {
    // Inside a commit git names the index it is committing; that, not the
    // worktree, is what is delivered. Read before any git runs (the git
    // adapter scrubs GIT_* from its children).
    let hook_index = std::env::var_os("GIT_INDEX_FILE").map(PathBuf::from);
    let hook_amend = hook_index.is_some();
    // Inside a commit the committing repository is the hook's own (its cwd),
    // never the one PROBITY_REVIEW_CWD pins for lens capture.
    let ctx = match (&hook_index, &global.cwd) {
        (Some(_), None) => open_at(None)?,
        // The worktree candidate: HEAD's tree read with discovery.
        (None, _) => super::open_reading_head(global)?,
        _ => open(global)?,
    };
    let delivery = match hook_index {
        Some(index) => {
            let index = if index.is_absolute() {
                index
            } else {
                current_dir()?.join(index)
            };
            // The index must be this repository's: a GIT_INDEX_FILE left in
            // the environment by another repository is not what is committed.
            let inside = |p: &std::path::Path| {
                let common = std::fs::canonicalize(ctx.repo.common_dir());
                let dir = p.parent().map(std::fs::canonicalize);
                matches!((dir, common), (Some(Ok(d)), Ok(c)) if d.starts_with(&c))
            };
            if !inside(&index) {
                return Err(CliError::new(
                    ErrorKind::Usage,
                    "foreign_index",
                    format!(
                        "GIT_INDEX_FILE ({}) is not an index of this repository",
                        index.display()
                    ),
                    "run the gate from the repository being committed, or unset GIT_INDEX_FILE",
                ));
            }
            Delivery::Index(index)
        }
        None if args.staged => Delivery::Index(ctx.repo.git_dir().join("index")),
        None => Delivery::Worktree,
    };
    // Inside `git commit --amend` the commit replaces HEAD: what it
    // delivers is HEAD's parent → the index (issue 26 §5).
    let d = match &delivery {
        Delivery::Index(index) if hook_amend && amend_in_progress() => {
            drivers::validate_pre_commit_amend(&ctx.repo, &ctx.store, index)
        }
        _ => drivers::validate_pre_commit(&ctx.repo, &ctx.store, &delivery),
    }
    .map_err(review_error)?;
    let answer = PreCommitAnswer {
        decision: DecisionView::of(&d),
        delivery: match delivery {
            Delivery::Worktree => "worktree",
            Delivery::Index(_) => "index",
        },
    };
    out.answer_next(&answer, || d.next_tool(), || human_decision(&d));
    Ok(match d.decision() {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

fn validate_release(
    global: &GlobalArgs,
    out: Output,
    args: &ReleaseArgs,
) -> Result<ExitCode, CliError> {
    let revision = args.revision.as_str();
    let evidence = match &args.checksums {
        None => None,
        Some(file) => {
            let input = read_input(file, MAX_CHECKSUMS_BYTES)?;
            let text = String::from_utf8(input.bytes).map_err(|_| {
                CliError::new(
                    ErrorKind::RejectedInput,
                    "bad_checksums",
                    format!("{}: not UTF-8", file.display()),
                    "write it as `sha256sum` does: `<64 hex>  <name>` per artifact",
                )
            })?;
            let expected = parse_checksums(&text).map_err(|e| {
                CliError::new(
                    ErrorKind::RejectedInput,
                    "bad_checksums",
                    format!("{}: {e}", file.display()),
                    "write it as `sha256sum` does: `<64 hex>  <name>` per artifact",
                )
            })?;
            let dir = match &args.artifacts {
                Some(d) => d.clone(),
                None => file
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from(".")),
            };
            Some((
                Sha256Digest::plain(text.as_bytes()),
                ArtifactDir::new(dir),
                expected,
            ))
        }
    };
    let ctx = open(global)?;
    let released = drivers::validate_release(
        &ctx.repo,
        &ctx.store,
        revision,
        evidence
            .as_ref()
            .map(|(_, dir, expected)| drivers::ReleaseEvidence {
                expected,
                artifacts: dir,
            }),
    )
    .map_err(review_error)?;
    let d = released.decision;
    let judged = released.revision_commit;
    let answer = ReleaseAnswer {
        decision: DecisionView::of(&d),
        revision,
        revision_commit: judged.as_ref(),
        evidence: match (&evidence, &released.observed) {
            (Some((digest, _, _)), Some(observed)) => Some(ReleaseEvidenceAnswer {
                checksums_sha256: digest,
                artifacts: observed,
            }),
            _ => None,
        },
    };
    out.answer_next(&answer, || d.next_tool(), || human_decision(&d));
    Ok(match d.decision() {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

fn validate_pre_pr(
    global: &GlobalArgs,
    out: Output,
    args: &PrePrArgs,
) -> Result<ExitCode, CliError> {
    let base = args.base.as_str();
    let head = args.head.as_deref().unwrap_or("HEAD");
    let ctx = open(global)?;
    let pr = drivers::validate_pre_pr(&ctx.repo, &ctx.store, base, head).map_err(review_error)?;
    let d = &pr.decision;
    let answer = PrePrAnswer {
        decision: DecisionView::of(d),
        base,
        head,
        base_advance: pr.base_advance.as_ref(),
    };
    out.answer_next(
        &answer,
        || d.next_tool(),
        || {
            let mut t = human_decision(d);
            if let Some(a) = &pr.base_advance {
                t.push_str(&format!(
                    "  base advanced {} -> {} ({} path(s), none delivered)\n",
                    a.reviewed_base,
                    a.base_tip,
                    a.base_changed_paths.len()
                ));
            }
            t
        },
    );
    Ok(match d.decision() {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

fn validate_pre_push(
    global: &GlobalArgs,
    out: Output,
    args: &PrePushArgs,
) -> Result<ExitCode, CliError> {
    // Whether the push carries refs/notes/probity (hook input only).
    let mut notes_pushed = None;
    let boundary = if args.stdin_updates {
        let lines = read_input(Path::new("-"), MAX_HOOK_INPUT_BYTES)?;
        let input = String::from_utf8(lines.bytes).map_err(|_| {
            CliError::new(
                ErrorKind::RejectedInput,
                "bad_push_input",
                "the pre-push lines on stdin are not UTF-8",
                "pipe git's pre-push hook input (UTF-8 lines) to this command",
            )
        })?;
        let updates = parse_push_updates(&input).map_err(|e| {
            CliError::new(
                ErrorKind::RejectedInput,
                "bad_push_input",
                e.to_string(),
                "pipe git's pre-push hook input unchanged to this command",
            )
        })?;
        let remote = args.remote.clone().ok_or_else(|| {
            CliError::new(
                ErrorKind::Usage,
                "usage",
                "--stdin-updates needs --remote",
                "pass the remote git named (a hook's $1)",
            )
        })?;
        let (updates, notes) = pre_receive::split_notes_updates(updates);
        notes_pushed = Some(notes);
        // The client measures a new ref against everything the remote
        // advertises; the server counts only its protected refs.
        PushBoundary::Updates {
            remote,
            updates,
            published: probity_core::review::Vouching::Advertised,
        }
    } else if let Some(spec) = &args.range {
        let (base, tip) = super::receive_refs::parse_range(spec)?;
        PushBoundary::Range { base, tip }
    } else {
        PushBoundary::Head {
            remote: args.remote.clone(),
        }
    };
    // A hook judges its own repository (its cwd), never the one
    // PROBITY_REVIEW_CWD pins for lens capture.
    let ctx = match (args.stdin_updates, &global.cwd) {
        (true, None) => open_at(None)?,
        _ => open(global)?,
    };
    let d = drivers::validate_pre_push(&ctx.repo, &ctx.store, &boundary).map_err(review_error)?;
    // A range (CI's form, or by hand) answers to the repository policy of
    // its base, as the server applies the old tip's (red team round 18).
    if let (PushBoundary::Range { base, tip }, Some(spec)) = (&boundary, &args.range)
        && let Some(den) = pre_receive::range_policy_denial(&ctx.repo, &ctx.store, base, tip, &d)?
    {
        let judged = super::next_steps::Judged::OnRemote(spec);
        return pre_receive::denial_answer(out, "pre-push", &den, judged);
    }
    if let PushBoundary::Updates {
        remote, updates, ..
    } = &boundary
    {
        // The repository policy of what the remote holds (roles, floors,
        // required checks), as the server will apply it.
        if let Some(den) =
            pre_receive::local_policy_denial(&ctx.repo, &ctx.store, remote, updates, &d)?
        {
            // Inside `probity push`: the same typed denial it gives.
            if super::push_verdict::verdict_requested() {
                let named = super::push_verdict::verdict_remote(remote);
                super::push_verdict::write_verdict(&super::push_verdict::policy_denied(
                    &named, &den,
                ));
            }
            return pre_receive::denial_answer(
                out,
                "pre-push",
                &den,
                super::next_steps::Judged::Pushing,
            );
        }
        pre_receive::warn_notes_not_pushed(notes_pushed, remote, &d);
        if d.decision() == Decision::Deny && super::push_verdict::verdict_requested() {
            let named = super::push_verdict::verdict_remote(remote);
            super::push_verdict::write_verdict(&super::push_verdict::gate_denied(
                &ctx.repo, &named, &d,
            ));
        }
    }
    let answer = PrePushAnswer {
        decision: DecisionView::of(&d),
        boundary: match boundary {
            PushBoundary::Updates { .. } => "updates",
            PushBoundary::Head { .. } => "head",
            PushBoundary::Range { .. } => "range",
        },
    };
    out.answer_next(
        &answer,
        || d.next_tool(),
        || {
            let mut t = human_decision(&d);
            for r in d.deliveries() {
                t.push_str(&format!("  {}\n", crate::output::delivery_summary(r)));
                for c in &r.stack {
                    t.push_str(&format!("    {}: {}\n", c.commit, wire_name(c.reason_code),));
                }
            }
            t
        },
    );
    Ok(match d.decision() {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

/// Whether the commit this pre-commit gate runs inside is `git commit
/// --amend` (issue 26 §5). Git tells its hooks nothing about it, so the
/// intent is read where it is: the command line of the nearest `git`
/// among this process's ancestors (the hook's shell runs between), through
/// `/proc`. Where `/proc` is unavailable, or no `git` is found within a
/// few generations, the commit is judged as a plain one.
fn amend_in_progress() -> bool {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        if pid <= 1 {
            return false;
        }
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let args: Vec<&[u8]> = cmdline
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .collect();
        let is_git = args.first().is_some_and(|a| {
            let name = a.rsplit(|b| *b == b'/').next().unwrap_or(a);
            name == b"git" || name == b"git-commit"
        });
        if is_git {
            // The options before `--` (a path named `--amend` after it is
            // a pathspec).
            let opts = args.iter().skip(1).take_while(|a| **a != b"--");
            let mut commit = false;
            let mut amend = false;
            for a in opts {
                commit |= *a == b"commit";
                amend |= *a == b"--amend";
            }
            return commit && amend;
        }
        let Some(parent) = parent_of(pid) else {
            return false;
        };
        pid = parent;
    }
    false
}

/// The parent of process `pid`, from `/proc/<pid>/stat` (the field after
/// the command name's closing parenthesis and the state).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// The invocation `validate` runs for `argv` (after `probity validate`).
    fn invocation(argv: &[&str]) -> Result<GateCommand, CliError> {
        let cli = crate::Cli::try_parse_from(["probity", "validate"].iter().chain(argv).copied())
            .unwrap();
        match cli.command {
            crate::Command::Validate(a) => a.invocation(),
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn both_spellings_make_the_same_per_gate_invocation() {
        for (sub, flag) in [
            (
                &["pre-commit", "--staged"][..],
                &["--gate", "pre-commit", "--staged"][..],
            ),
            (
                &["pre-push", "--range", "a..b"],
                &["--gate", "pre-push", "--range", "a..b"],
            ),
            (
                &["pre-push", "--remote", "origin", "--stdin-updates"],
                &[
                    "--gate",
                    "pre-push",
                    "--remote",
                    "origin",
                    "--stdin-updates",
                ],
            ),
            (
                &["pre-pr", "--base", "main", "--authority", "notes"],
                &["--gate", "pre-pr", "--base", "main", "--authority", "notes"],
            ),
            (
                &["release", "--revision", "v1", "--checksums", "s"],
                &["--gate", "release", "--revision", "v1", "--checksums", "s"],
            ),
            (
                &["pre-receive", "--range", "a..b", "--ref", "refs/heads/main"],
                &[
                    "--gate",
                    "pre-receive",
                    "--range",
                    "a..b",
                    "--ref",
                    "refs/heads/main",
                ],
            ),
        ] {
            assert_eq!(
                invocation(sub).unwrap(),
                invocation(flag).unwrap(),
                "{sub:?}"
            );
        }
        assert_eq!(
            invocation(&["--gate", "pre-pr", "--base", "main"]).unwrap(),
            GateCommand::PrePr(PrePrArgs {
                base: "main".into(),
                head: None,
                authority: None,
                policy_base: Vec::new(),
            })
        );
    }

    #[test]
    fn the_flag_spelling_refuses_another_gates_flag_before_running() {
        for (argv, code) in [
            (&["--gate", "pre-push", "--staged"][..], "flag_not_for_gate"),
            (
                &["--gate", "pre-commit", "--base", "x"],
                "flag_not_for_gate",
            ),
            (
                &["--gate", "release", "--ref", "r", "--revision", "v"],
                "flag_not_for_gate",
            ),
            (
                &["--gate", "pre-receive", "--authority", "notes"],
                "flag_not_for_gate",
            ),
            (&["--gate", "pre-pr"], "base_required"),
            (&["--gate", "release"], "revision_required"),
        ] {
            match invocation(argv) {
                Err(e) => assert_eq!(e.code, code, "{argv:?}"),
                Ok(i) => panic!("{argv:?} made {i:?}"),
            }
        }
    }
}
