//! `probity start | finalize | validate | status | schema`: review authority.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use probity_core::digest::{PlainSha256, Sha256Digest};
use probity_core::review::export::ExportError;
use probity_core::review::gate::{Decision, Gate, GateDecision, parse_push_updates};
use probity_core::review::ids::LineageId;
use probity_core::review::lens::Lens;
use probity_core::review::recovery::RecoverError;
use probity_core::review::release::{
    ExpectedArtifact, ObservedArtifact, check_revision, check_unchanged, parse_checksums,
};
use probity_core::review::schema::SchemaDoc;
use probity_core::review::state::{Stage, StateRecord, TransitionError};
use probity_git::{GitCli, Repo};
use probity_ports::review::{
    self as drivers, Delivery, FinalizeInput, NamedInput, PushBoundary, ReviewError, Status,
    StoreError,
};
use probity_store::FileStore;

use crate::GlobalArgs;
use crate::clock::SystemClock;
use crate::output::{CliError, ErrorKind, Output};

/// A lens name on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum LensArg {
    Risk,
    Resilience,
    Readability,
    Reliability,
}

impl From<LensArg> for Lens {
    fn from(l: LensArg) -> Lens {
        match l {
            LensArg::Risk => Lens::Risk,
            LensArg::Resilience => Lens::Resilience,
            LensArg::Readability => Lens::Readability,
            LensArg::Reliability => Lens::Reliability,
        }
    }
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The focus lens when the change is medium risk.
    #[arg(long, value_enum, default_value = "reliability")]
    pub focus: LensArg,
}

#[derive(Debug, Args)]
pub struct FinalizeArgs {
    /// The lineage to finalize (default: the one that froze the live candidate).
    #[arg(long)]
    pub lineage: Option<String>,
    /// A lens result (strict JSON, see `probity schema reviewer`); repeat in
    /// the selected order.
    #[arg(long = "result", value_name = "FILE")]
    pub results: Vec<PathBuf>,
    /// The single refuter batch (see `probity schema refuter`).
    #[arg(long, value_name = "FILE")]
    pub refuter: Option<PathBuf>,
    /// Forecast of the next correction attempt in lines, given before editing.
    #[arg(long, value_name = "N")]
    pub correction_lines: Option<u64>,
    /// The targeted validator's result after the edit (see `probity schema validator`).
    #[arg(long, value_name = "FILE")]
    pub validation: Option<PathBuf>,
    /// Final evidence from an independent mechanism (any non-empty bytes).
    #[arg(long, value_name = "FILE")]
    pub evidence: Option<PathBuf>,
}

/// A delivery boundary.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GateArg {
    PreCommit,
    PrePush,
    PrePr,
    Release,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The boundary being crossed.
    #[arg(long, value_enum)]
    pub gate: GateArg,
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
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The lineage (default: the live candidate's, else the latest approved
    /// on the live base).
    #[arg(long)]
    pub lineage: Option<String>,
    /// Also name the next legal input and, for a lineage that is current
    /// for the live candidate, carry its frozen candidate diff and
    /// changed-path manifest (as `export-context` does).
    #[arg(long)]
    pub next_transition: bool,
}

/// `probity lens ...`
#[derive(Debug, clap::Subcommand)]
pub enum LensCommand {
    /// Before running a lens: confirm its result will have somewhere legal
    /// to land (the lineage resolves and awaits results, the lens is
    /// selected, the binding matches).
    Preflight(PreflightArgs),
}

#[derive(Debug, Args)]
pub struct PreflightArgs {
    /// The lineage `probity start` printed.
    #[arg(long)]
    pub lineage: String,
    /// The lens about to run.
    #[arg(long, value_enum)]
    pub lens: LensArg,
    /// The binding the orchestrator will prefix to the lens prompt.
    #[arg(long)]
    pub binding: Option<String>,
}

/// A document whose schema `probity schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaArg {
    Reviewer,
    Refuter,
    Validator,
    Receipt,
    State,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which document.
    #[arg(value_enum)]
    pub document: SchemaArg,
}

/// The repository and store a command works on.
pub struct Context {
    pub repo: Repo,
    pub store: FileStore,
}

/// Discovers the repository from `--cwd` (or the current directory) and opens
/// its store under the common git dir.
pub fn open(global: &GlobalArgs) -> Result<Context, CliError> {
    // PROBITY_REVIEW_CWD pins the owning repository when no --cwd is given
    // (a lens running inside a nested checkout still lands in the right
    // store).
    let pinned = std::env::var_os("PROBITY_REVIEW_CWD")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    open_at(global.cwd.clone().or(pinned))
}

fn current_dir() -> Result<PathBuf, CliError> {
    std::env::current_dir().map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "cwd_unavailable",
            e.to_string(),
            "pass --cwd <path>",
        )
    })
}

/// Discovers the repository from `cwd` (default: the current directory).
fn open_at(cwd: Option<PathBuf>) -> Result<Context, CliError> {
    let cwd = match cwd {
        Some(p) => p,
        None => current_dir()?,
    };
    let git = match std::env::var_os("PROBITY_GIT") {
        Some(exe) => GitCli::with_executable(exe),
        None => GitCli::default(),
    };
    // The version is checked only when discovery fails, to explain the
    // failure: hooks run this path, and a spawn costs milliseconds.
    let repo = Repo::discover(git.clone(), &cwd).map_err(|e| match git.ensure_supported() {
        Err(old) => repo_error(old),
        Ok(()) => repo_error(e),
    })?;
    let store = FileStore::for_common_dir(repo.common_dir());
    Ok(Context { repo, store })
}

fn repo_error(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "run inside a git work tree (or pass --cwd), with git 2.41 or newer on PATH",
    )
}

pub(crate) fn parse_lineage(s: &str) -> Result<LineageId, CliError> {
    LineageId::parse(s).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "bad_lineage",
            e.to_string(),
            "copy the lineage_id that `probity start` printed",
        )
    })
}

/// Maps a driver error to what the user sees.
pub fn review_error(e: ReviewError) -> CliError {
    use ErrorKind::*;
    let msg = e.to_string();
    let (kind, code, next) = match &e {
        ReviewError::Repository(_) => (
            Repository,
            "repository_error",
            "fix the repository error above and retry; nothing was changed",
        ),
        ReviewError::Store(s) => match s {
            StoreError::Conflict { .. } => (
                Conflict,
                "stale_revision",
                "another writer moved this lineage: re-run the command to act on the current state",
            ),
            StoreError::Contention { .. } => (
                Conflict,
                "contention",
                "another process is writing this lineage: retry in a moment",
            ),
            StoreError::Corrupted { .. } | StoreError::Malformed { .. } => (
                Integrity,
                "store_corrupted",
                "stored authority failed validation; nothing was trusted or changed: inspect the named file, restore it, or start a fresh review",
            ),
            StoreError::Illegal(_) => (
                RejectedInput,
                "illegal_transition",
                "check `probity status` for the legal next input",
            ),
            StoreError::TargetOwned { .. } => (
                Conflict,
                "candidate_owned",
                "another lineage already reviewed exactly this candidate: make a different fix, or use that lineage",
            ),
            StoreError::NotFound(_) => (
                RejectedInput,
                "lineage_not_found",
                "check the lineage id (`probity status`), or run `probity start`",
            ),
            StoreError::RecoveryPending { .. } => (
                Conflict,
                "recovery_pending",
                "repeat the recovery request that was interrupted (same disposition, reason, actor, authorization) to complete it, or wait for the one running",
            ),
            StoreError::AlreadySuperseded { .. } => (
                Conflict,
                "already_superseded",
                "a lineage has at most one successor: continue with the successor named above (`probity status --lineage <id>`)",
            ),
            StoreError::Io { .. } => (
                Io,
                "store_io",
                "check permissions and free space under the git common dir, then retry",
            ),
        },
        ReviewError::MalformedInput { .. } => (
            RejectedInput,
            "malformed_input",
            "fix the document (see `probity schema reviewer`) and retry; nothing was changed and no budget was consumed",
        ),
        ReviewError::Transition(t) => match t {
            TransitionError::WrongStage { .. } => (
                RejectedInput,
                "wrong_stage",
                "run `probity status` to see the legal next input",
            ),
            TransitionError::ResultCount { .. } => (
                RejectedInput,
                "result_count",
                "pass one --result per selected lens, in the selected order",
            ),
            TransitionError::RefuterUnknownFinding(_) | TransitionError::RefuterMissing(_) => (
                RejectedInput,
                "refuter_mismatch",
                "the batch must give one outcome for each finding routed to the refuter (see `probity finalize --json` findings)",
            ),
            TransitionError::ZeroForecast => (
                RejectedInput,
                "zero_forecast",
                "forecast a positive number of lines",
            ),
            TransitionError::OutsideGenesis(_) => (
                RejectedInput,
                "outside_genesis",
                "revert edits outside the reviewed paths, then retry; nothing was charged",
            ),
            TransitionError::EmptyEvidence => (
                RejectedInput,
                "empty_evidence",
                "pass a non-empty evidence file produced by an independent mechanism",
            ),
            TransitionError::DifferentRetry { .. } => (
                Conflict,
                "different_retry",
                "this lineage already accepted other input; repeat the original input, or start a fresh review",
            ),
            TransitionError::FrozenChanged(_) | TransitionError::IllegalEdge { .. } => (
                RejectedInput,
                "illegal_transition",
                "run `probity status` to see the legal next input",
            ),
            TransitionError::State(_) => (
                Integrity,
                "invalid_state",
                "the derived state failed validation; report this as a bug",
            ),
        },
        ReviewError::Snapshot(probity_core::review::snapshot::SnapshotError::Empty) => (
            RejectedInput,
            "nothing_to_review",
            "change something first: the candidate equals HEAD",
        ),
        ReviewError::Snapshot(_) | ReviewError::State(_) => (
            Integrity,
            "invalid_state",
            "report this as a bug; nothing was written",
        ),
        ReviewError::NoReview => (
            RejectedInput,
            "no_review",
            "run `probity start` for this candidate, or pass --lineage",
        ),
        ReviewError::CandidateChanged { .. } => (
            Conflict,
            "candidate_changed",
            "the candidate moved since start: restore it, or run `probity start` to review the new candidate",
        ),
        ReviewError::IndexMismatch(_) => (
            Integrity,
            "index_mismatch",
            "the store index disagrees with a record: inspect <git-common-dir>/probity/reviews/v1/index",
        ),
        ReviewError::AmbiguousCorrection { .. } => (
            RejectedInput,
            "ambiguous_correction",
            "pass --lineage with the lineage whose correction this is",
        ),
        ReviewError::CorrectionOpen { .. } => (
            Conflict,
            "correction_open",
            "finish that correction first (`probity finalize --lineage <id> --correction-lines N`, then `--validation F`); forecasting more lines than its budget escalates it and lifts this block",
        ),
        ReviewError::Superseded { .. } => (
            Conflict,
            "candidate_superseded",
            "restore the corrected candidate (see `probity status --lineage <id>`), or change the candidate and start a new review",
        ),
        ReviewError::SupersededLineage { .. } => (
            Conflict,
            "lineage_superseded",
            "a superseded lineage is history: continue with the leaf named above, or recover from it (`probity recover --predecessor-lineage <leaf> ...`)",
        ),
        ReviewError::Invalidated { .. } => (
            Conflict,
            "lineage_invalidated",
            "create its audited successor: `probity recover --predecessor-lineage <id> --expected-predecessor-revision <rev> --disposition invalidated --reason R --actor A` (see `probity status --lineage <id>` for the revision)",
        ),
        ReviewError::Recover(r) => match r {
            RecoverError::RevisionMismatch { .. } => (
                Conflict,
                "revision_mismatch",
                "the predecessor moved since you inspected it: check `probity status --lineage <id>` and pass its current revision",
            ),
            RecoverError::NotEligible { .. } => (
                RejectedInput,
                "not_eligible",
                "recover an approved lineage with scope_changed, an invalidated one with invalidated, an escalated one with escalation_authorized; a pristine review is invalidated first",
            ),
            RecoverError::ScopeUnchanged { .. } => (
                RejectedInput,
                "scope_unchanged",
                "new work outside the reviewed paths gets its own review: `probity start`",
            ),
            RecoverError::AuthorizationRequired | RecoverError::AuthorizationNotApplicable => (
                Usage,
                "authorization",
                "pass --authorization only, and always, when the predecessor escalated",
            ),
            RecoverError::State(_) => (
                Integrity,
                "invalid_state",
                "report this as a bug; nothing was written",
            ),
        },
        ReviewError::Export(ExportError::BudgetExceeded { .. }) => (
            RejectedInput,
            "budget_exceeded",
            "the frozen diff is over the 4 MiB export budget and is never truncated: read the lineage's paths with `probity snapshot read --subject tree:<candidate_tree>` instead",
        ),
        ReviewError::Export(ExportError::ManifestMismatch { .. }) => (
            Integrity,
            "manifest_mismatch",
            "the trees in Git do not match the record; nothing was trusted: inspect the lineage's state file",
        ),
        ReviewError::Export(ExportError::Drift { .. }) => (
            Integrity,
            "diff_drift",
            "the frozen context cannot be reproduced with this git; export it with the git version that started the review (see derivation.git_version of an earlier export)",
        ),
        ReviewError::NotTerminal { .. } => (
            RejectedInput,
            "not_terminal",
            "finish the review first (`probity status --lineage <id>` names the next input)",
        ),
        ReviewError::NotRepresentable { .. } => (
            RejectedInput,
            "not_representable",
            "split the change into smaller candidates; nothing was started",
        ),
        ReviewError::ObjectsMissing { .. } => (
            Repository,
            "objects_missing",
            "the frozen trees were pruned (e.g. by `git gc`); fetch or restore them, or review the candidate again",
        ),
        ReviewError::Chain(_) => (
            Integrity,
            "chain_broken",
            "the recovery chain in the store does not hold (missing predecessor, moved revision or two successors); nothing was trusted: inspect the named lineages",
        ),
        ReviewError::BaseChanged { .. } => (
            Conflict,
            "base_changed",
            "restore HEAD to the frozen base (corrections happen on the reviewed base), then retry",
        ),
    };
    CliError::new(kind, code, msg, next)
}

fn read_input(path: &Path) -> Result<NamedInput, CliError> {
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "unreadable_input",
            format!("{}: {e}", path.display()),
            "pass a readable file",
        )
    })?;
    Ok(NamedInput {
        name: path.display().to_string(),
        bytes,
    })
}

fn findings_json(record: &StateRecord) -> Vec<Value> {
    record
        .state
        .stage
        .judgment()
        .map(|j| {
            j.routed()
                .map(|(f, route)| {
                    let mut v = json!({"id": f.id, "severity": f.severity, "route": route});
                    if let Some(d) = &f.causal_downgrade {
                        v["causal_downgrade"] = json!(d);
                    }
                    v
                })
                .collect()
        })
        .unwrap_or_default()
}

fn correction_json(record: &StateRecord) -> (u64, Value) {
    let c = record.state.stage.correction();
    let charged = c.map(|c| c.charged_lines()).unwrap_or(0);
    let attempts = c
        .map(|c| {
            c.attempts
                .iter()
                .map(|a| {
                    json!({
                        "forecast_lines": a.forecast_lines,
                        "actual_lines": a.actual_lines,
                        "paths": a.paths,
                        "fix_delta_hash": a.fix_delta_hash,
                        "passed": a.passed(),
                    })
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    (charged, json!(attempts))
}

/// The start answer as JSON (names other tools read: keep them).
pub fn start_json(record: &StateRecord, resumed: bool) -> Value {
    let s = &record.state;
    let action = s.next_action();
    json!({
        "lineage_id": s.lineage_id,
        "state": s.stage.name(),
        "resumed": resumed,
        "risk_level": s.frozen.risk_level,
        "risk_reasons": s.frozen.risk_reasons,
        "selected_lenses": s.frozen.selected_lenses,
        "lens_bindings": s.lens_bindings(),
        "changed_files": s.frozen.changed_files,
        "changed_lines": s.frozen.authored_lines,
        "correction_budget": s.frozen.correction_budget,
        "base_tree": s.snapshot.base_tree,
        "candidate_tree": s.snapshot.candidate_tree,
        "paths_digest": s.snapshot.paths_digest,
        "intended_untracked": s.snapshot.intended_untracked,
        "policy_hash": s.frozen.policy_hash,
        "store_revision": record.revision,
        "generation": s.generation,
        "predecessor": s.predecessor,
        "action": action,
        "message": action.sentence(&s.frozen.selected_lenses),
    })
}

pub fn start(global: &GlobalArgs, out: Output, args: &StartArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let started = drivers::start(&ctx.repo, &ctx.store, &SystemClock, args.focus.into())
        .map_err(review_error)?;
    let v = start_json(&started.record, started.resumed);
    out.answer(&v, || human_start(&started.record, started.resumed));
    Ok(ExitCode::SUCCESS)
}

fn human_start(record: &StateRecord, resumed: bool) -> String {
    let s = &record.state;
    let mut t = format!(
        "{} {} ({})\n  risk: {} [{}]\n  changed: {} file(s), {} authored line(s); correction budget {}\n",
        if resumed { "resumed" } else { "started" },
        s.lineage_id,
        s.stage.name(),
        s.frozen.risk_level.name(),
        s.frozen
            .risk_reasons
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        s.frozen.changed_files,
        s.frozen.authored_lines,
        s.frozen.correction_budget,
    );
    if s.frozen.selected_lenses.is_empty() {
        t.push_str("  lenses: none selected\n");
    }
    for b in s.lens_bindings() {
        t.push_str(&format!(
            "  lens {} ({}): prefix {}\n    binding: {}\n",
            b.order,
            b.lens.name(),
            b.finding_id_prefix,
            b.binding
        ));
    }
    t.push_str(&format!(
        "  next: {}\n",
        s.next_action().sentence(&s.frozen.selected_lenses)
    ));
    t
}

/// The finalize answer as JSON.
pub fn finalize_json(record: &StateRecord, receipt_path: Option<&str>) -> Value {
    let s = &record.state;
    let action = s.next_action();
    let mut v = json!({
        "lineage_id": s.lineage_id,
        "state": s.stage.name(),
        "action": action,
        "message": action.sentence(&s.frozen.selected_lenses),
        "store_revision": record.revision,
        "findings": findings_json(record),
        "correction_budget": s.frozen.correction_budget,
        "charged_lines": correction_json(record).0,
        "attempts": correction_json(record).1,
    });
    if let (Stage::Escalated { reason, .. }, Some(obj)) = (&s.stage, v.as_object_mut()) {
        obj.insert("escalation_reason".into(), json!(reason));
    }
    if let (Some(p), Some(obj)) = (receipt_path, v.as_object_mut()) {
        obj.insert("receipt_path".into(), json!(p));
    }
    v
}

pub fn finalize(
    global: &GlobalArgs,
    out: Output,
    args: &FinalizeArgs,
) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let results = args
        .results
        .iter()
        .map(|p| read_input(p))
        .collect::<Result<Vec<_>, _>>()?;
    let evidence = args.evidence.as_deref().map(read_input).transpose()?;
    let refuter = args.refuter.as_deref().map(read_input).transpose()?;
    let validation = args.validation.as_deref().map(read_input).transpose()?;
    let ctx = open(global)?;
    let done = drivers::finalize(
        &ctx.repo,
        &ctx.store,
        FinalizeInput {
            lineage,
            results,
            refuter,
            correction_lines: args.correction_lines,
            validation,
            evidence,
        },
    )
    .map_err(review_error)?;
    let v = finalize_json(&done.record, done.receipt_location.as_deref());
    out.answer(&v, || {
        let s = &done.record.state;
        let mut t = format!("{} is {}\n", s.lineage_id, s.stage.name());
        for f in findings_json(&done.record) {
            t.push_str(&format!(
                "  {} {} -> {}\n",
                f["id"].as_str().unwrap_or("?"),
                f["severity"].as_str().unwrap_or("?"),
                f["route"].as_str().unwrap_or("?")
            ));
        }
        if let Some(p) = &done.receipt_location {
            t.push_str(&format!("  receipt: {p}\n"));
        }
        t.push_str(&format!(
            "  next: {}\n",
            s.next_action().sentence(&s.frozen.selected_lenses)
        ));
        t
    });
    Ok(ExitCode::SUCCESS)
}

/// The gate answer as JSON.
pub fn decision_json(d: &GateDecision) -> Value {
    let mut v = json!({
        "gate": d.gate,
        "decision": d.decision,
        "reason_code": d.reason_code,
        "stage": d.stage,
        "lineage_id": d.lineage_id,
        "differing_paths": d.differing_paths,
        "next_action": d.next_action,
        "message": d.message,
    });
    if !d.deliveries.is_empty() {
        v["deliveries"] = json!(d.deliveries);
    }
    v
}

pub fn human_decision(d: &GateDecision) -> String {
    let mut t = format!(
        "{} {}: {}\n  {}\n",
        d.gate.name(),
        match d.decision {
            Decision::Allow => "ALLOW",
            Decision::Deny => "DENY",
        },
        serde_json::to_value(d.reason_code)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        d.message
    );
    if !d.differing_paths.is_empty() {
        t.push_str(&format!(
            "  differing paths: {}\n",
            d.differing_paths
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
    let gate = match args.gate {
        GateArg::PreCommit => Gate::PreCommit,
        GateArg::PrePush => Gate::PrePush,
        GateArg::PrePr => Gate::PrePr,
        GateArg::Release => Gate::Release,
    };
    let push_flags = args.remote.is_some() || args.stdin_updates || args.range.is_some();
    let pr_flags = args.base.is_some() || args.head.is_some();
    let release_flags = args.revision.is_some() || args.checksums.is_some();
    match gate {
        Gate::Release if push_flags || pr_flags || args.staged => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--gate release takes --revision REV [--checksums FILE [--artifacts DIR]]",
                "drop the other gates' flags",
            ));
        }
        Gate::Release => return validate_release(global, out, args),
        Gate::PreCommit | Gate::PrePush | Gate::PrePr if release_flags => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--revision, --checksums and --artifacts belong to --gate release",
                "drop them, or use --gate release",
            ));
        }
        Gate::PreCommit | Gate::PrePush if pr_flags => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--base and --head belong to --gate pre-pr",
                "drop them, or use --gate pre-pr",
            ));
        }
        Gate::PrePr if push_flags || args.staged => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--remote, --stdin-updates, --range and --staged do not belong to --gate pre-pr",
                "name the proposal with --base REV [--head REV]",
            ));
        }
        Gate::PrePr => return validate_pre_pr(global, out, args),
        Gate::PreCommit if push_flags => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--remote, --stdin-updates and --range belong to --gate pre-push",
                "drop them, or use --gate pre-push",
            ));
        }
        Gate::PreCommit => {}
        Gate::PrePush if args.staged => {
            return Err(CliError::new(
                ErrorKind::Usage,
                "flag_not_for_gate",
                "--staged belongs to --gate pre-commit",
                "drop --staged: pre-push judges the commits being pushed",
            ));
        }
        Gate::PrePush => return validate_pre_push(global, out, args),
    }
    // Inside a commit git names the index it is committing; that, not the
    // worktree, is what is delivered. Read before any git runs (the git
    // adapter scrubs GIT_* from its children).
    let hook_index = std::env::var_os("GIT_INDEX_FILE").map(PathBuf::from);
    // Inside a commit the committing repository is the hook's own (its cwd),
    // never the one PROBITY_REVIEW_CWD pins for lens capture.
    let ctx = match (&hook_index, &global.cwd) {
        (Some(_), None) => open_at(None)?,
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
    let d = drivers::validate_pre_commit(&ctx.repo, &ctx.store, &delivery).map_err(review_error)?;
    let mut v = decision_json(&d);
    v["delivery"] = json!(match delivery {
        Delivery::Worktree => "worktree",
        Delivery::Index(_) => "index",
    });
    out.answer(&v, || human_decision(&d));
    Ok(match d.decision {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

/// Hashes each named artifact under `dir` (read in chunks).
fn hash_artifacts(
    dir: &Path,
    expected: &[ExpectedArtifact],
) -> Result<Vec<ObservedArtifact>, CliError> {
    use std::io::Read as _;
    let mut out = Vec::new();
    for e in expected {
        let path = dir.join(&e.name);
        // Regular files only: a symlink (which could lead out of DIR), a
        // directory, a FIFO or a device is no artifact.
        // Checked before opening: opening a FIFO would block.
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        let opened = if regular {
            std::fs::File::open(&path)
        } else {
            Err(std::io::ErrorKind::NotFound.into())
        };
        let sha256 = match opened {
            Ok(mut f) => {
                let mut h = PlainSha256::default();
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    let n = f.read(&mut buf).map_err(|err| {
                        CliError::new(
                            ErrorKind::Io,
                            "artifact_io",
                            format!("{}: {err}", path.display()),
                            "check that the artifacts are readable",
                        )
                    })?;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                }
                Some(h.finish())
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                return Err(CliError::new(
                    ErrorKind::Io,
                    "artifact_io",
                    format!("{}: {err}", path.display()),
                    "check that the artifacts are readable",
                ));
            }
        };
        out.push(ObservedArtifact {
            name: e.name.clone(),
            sha256,
        });
    }
    Ok(out)
}

fn validate_release(
    global: &GlobalArgs,
    out: Output,
    args: &ValidateArgs,
) -> Result<ExitCode, CliError> {
    let revision = args.revision.as_deref().ok_or_else(|| {
        CliError::new(
            ErrorKind::Usage,
            "revision_required",
            "--gate release needs --revision: the exact revision released",
            "name the release tag or commit, e.g. --revision v1.2.0",
        )
    })?;
    let evidence = match &args.checksums {
        None => None,
        Some(file) => {
            let bytes = std::fs::read(file).map_err(|e| {
                CliError::new(
                    ErrorKind::RejectedInput,
                    "unreadable_input",
                    format!("{}: {e}", file.display()),
                    "pass a readable checksums file (sha256sum format)",
                )
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
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
            let observed = hash_artifacts(&dir, &expected)?;
            Some((
                Sha256Digest::plain(text.as_bytes()),
                dir,
                expected,
                observed,
            ))
        }
    };
    let ctx = open(global)?;
    let mut d = drivers::validate_release(
        &ctx.repo,
        &ctx.store,
        revision,
        evidence
            .as_ref()
            .map(|(_, _, e, o)| (e.as_slice(), o.as_slice())),
    )
    .map_err(review_error)?;
    // R8.7: resolve the revision once more; a move denies.
    let judged = d.deliveries.first().map(|r| r.tip.clone());
    if let (Decision::Allow, Some(judged)) = (d.decision, &judged) {
        let now = ctx.repo.resolve_commit(revision).map_err(repo_error)?;
        if let Err(denial) = check_revision(revision, judged, &now) {
            d = GateDecision {
                lineage_id: d.lineage_id,
                deliveries: d.deliveries,
                ..denial
            };
        }
    }
    // R8.7: read the evidence once more; a change denies.
    if let (Decision::Allow, Some((_, dir, expected, observed))) = (d.decision, &evidence) {
        let again = hash_artifacts(dir, expected)?;
        match check_unchanged(observed, &again) {
            Ok(()) => {
                d.message = format!(
                    "{}; {} release artifact(s) match their checksums",
                    d.message,
                    expected.len()
                );
            }
            Err(denial) => {
                d = GateDecision {
                    lineage_id: d.lineage_id,
                    deliveries: d.deliveries,
                    ..denial
                };
            }
        }
    }
    let mut v = decision_json(&d);
    v["revision"] = json!(revision);
    v["revision_commit"] = json!(judged);
    v["evidence"] = match &evidence {
        None => Value::Null,
        Some((digest, _, _, observed)) => json!({
            "checksums_sha256": digest,
            "artifacts": observed,
        }),
    };
    out.answer(&v, || human_decision(&d));
    Ok(match d.decision {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

fn validate_pre_pr(
    global: &GlobalArgs,
    out: Output,
    args: &ValidateArgs,
) -> Result<ExitCode, CliError> {
    let base = args.base.as_deref().ok_or_else(|| {
        CliError::new(
            ErrorKind::Usage,
            "base_required",
            "--gate pre-pr needs --base: the base is never guessed",
            "name the branch the proposal targets, e.g. --base origin/main (or upstream/main for a fork)",
        )
    })?;
    let head = args.head.as_deref().unwrap_or("HEAD");
    let ctx = open(global)?;
    let pr = drivers::validate_pre_pr(&ctx.repo, &ctx.store, base, head).map_err(review_error)?;
    let d = &pr.decision;
    let mut v = decision_json(d);
    v["base"] = json!(base);
    v["head"] = json!(head);
    v["base_advance"] = json!(pr.base_advance);
    out.answer(&v, || {
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
    });
    Ok(match d.decision {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

/// Splits `BASE..TIP` (two dots: commits reachable from TIP, not BASE).
fn parse_range(spec: &str) -> Result<(String, String), CliError> {
    let bad = || {
        CliError::new(
            ErrorKind::Usage,
            "bad_range",
            format!("`{spec}` is not BASE..TIP"),
            "name two revisions joined by two dots, e.g. --range origin/main..HEAD",
        )
    };
    if spec.contains("...") {
        return Err(bad());
    }
    match spec.split_once("..") {
        Some((base, tip)) if !base.is_empty() && !tip.is_empty() && !tip.contains("..") => {
            Ok((base.to_string(), tip.to_string()))
        }
        _ => Err(bad()),
    }
}

fn validate_pre_push(
    global: &GlobalArgs,
    out: Output,
    args: &ValidateArgs,
) -> Result<ExitCode, CliError> {
    let boundary = if args.stdin_updates {
        let mut input = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut input).map_err(|e| {
            CliError::new(
                ErrorKind::RejectedInput,
                "bad_push_input",
                format!("could not read the pre-push lines from stdin: {e}"),
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
        PushBoundary::Updates { remote, updates }
    } else if let Some(spec) = &args.range {
        let (base, tip) = parse_range(spec)?;
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
    let mut v = decision_json(&d);
    v["boundary"] = json!(match boundary {
        PushBoundary::Updates { .. } => "updates",
        PushBoundary::Head { .. } => "head",
        PushBoundary::Range { .. } => "range",
    });
    out.answer(&v, || {
        let mut t = human_decision(&d);
        for r in &d.deliveries {
            t.push_str(&format!(
                "  {} -> {}: {} commit(s), {}\n",
                r.refs.join(", "),
                r.tip,
                r.commits,
                serde_json::to_value(r.reason_code)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
            ));
        }
        t
    });
    Ok(match d.decision {
        Decision::Allow => ExitCode::SUCCESS,
        Decision::Deny => ExitCode::from(1),
    })
}

/// The status answer as JSON.
pub fn status_json(st: &Status, receipt_path: Option<String>) -> Value {
    let s = &st.record.state;
    json!({
        "lineage_id": s.lineage_id,
        "state": s.stage.name(),
        "generation": s.generation,
        "store_revision": st.record.revision,
        "applicability": st.applicability,
        "differing_paths": st.differing_paths,
        "risk_level": s.frozen.risk_level,
        "selected_lenses": s.frozen.selected_lenses,
        "correction_budget": s.frozen.correction_budget,
        "changed_paths": s.snapshot.paths,
        "action": s.next_action(),
        "receipt_path": receipt_path,
        "predecessor": s.predecessor,
        "superseded_by": st.superseded_by,
    })
}

pub fn status(global: &GlobalArgs, out: Output, args: &StatusArgs) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let ctx = open(global)?;
    let st = drivers::status(&ctx.repo, &ctx.store, lineage.as_ref()).map_err(review_error)?;
    let Some(st) = st else {
        let v = json!({"lineage_id": null, "state": null, "applicability": null, "action": "start_review"});
        out.answer(&v, || {
            "no review for the live candidate or its base: run `probity start`\n".into()
        });
        return Ok(ExitCode::SUCCESS);
    };
    use probity_ports::review::ReviewStore;
    let receipt_path = st
        .receipt
        .as_ref()
        .map(|_| ctx.store.receipt_location(&st.record.state.lineage_id));
    let mut v = status_json(&st, receipt_path);
    if args.next_transition {
        let s = &st.record.state;
        let action = s.next_action();
        let mut next = json!({
            "action": action,
            "message": action.sentence(&s.frozen.selected_lenses),
        });
        // Frozen inputs only for the lineage that governs the live
        // candidate; any lineage's are available from export-context.
        // A superseded lineage is history: its inputs go through
        // export-context, not the next transition.
        if st.applicability == probity_ports::review::Applicability::Current
            && st.superseded_by.is_none()
        {
            match drivers::export_context(&ctx.repo, &ctx.store, &s.lineage_id) {
                Ok(exported) => {
                    next["candidate_diff"] = json!(exported.envelope.candidate_diff);
                    next["changed_path_manifest"] = json!(exported.envelope.changed_path_manifest);
                }
                // The status still answers; the inputs say why they are absent.
                Err(e) => {
                    let err = review_error(e);
                    next["candidate_diff"] = json!({"error": err.code, "message": err.message});
                    next["changed_path_manifest"] = json!({"error": err.code});
                }
            }
        } else {
            next["candidate_diff"] = json!("omitted");
            next["changed_path_manifest"] = json!("omitted");
            next["export"] = json!(format!(
                "probity export-context --lineage {} --json",
                s.lineage_id
            ));
        }
        v["next_transition"] = next;
    }
    out.answer(&v, || {
        let s = &st.record.state;
        let mut t = format!(
            "{} {} (generation {})\n  applicability: {}\n  revision: {}\n",
            s.lineage_id,
            s.stage.name(),
            s.generation,
            v["applicability"].as_str().unwrap_or("?"),
            st.record.revision
        );
        if let Some(p) = &s.predecessor {
            t.push_str(&format!(
                "  successor of {} ({}, by {}: {})\n",
                p.lineage_id,
                p.disposition.name(),
                p.actor,
                p.reason
            ));
        }
        if let Some(next) = &st.superseded_by {
            t.push_str(&format!("  superseded by {next}: history, not authority\n"));
        }
        if let Some(next) = v.get("next_transition") {
            t.push_str(&format!(
                "  next: {}\n",
                next["message"].as_str().unwrap_or_default()
            ));
            match next["candidate_diff"]["byte_size"].as_u64() {
                Some(n) => t.push_str(&format!(
                    "  frozen diff: {n} bytes ({}); --json carries it\n",
                    next["candidate_diff"]["sha256"]
                        .as_str()
                        .unwrap_or_default()
                )),
                None => t.push_str(&format!(
                    "  frozen diff: omitted (not current); `{}`\n",
                    next["export"].as_str().unwrap_or_default()
                )),
            }
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}

pub fn lens(global: &GlobalArgs, out: Output, cmd: &LensCommand) -> Result<ExitCode, CliError> {
    let LensCommand::Preflight(args) = cmd;
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    use probity_ports::review::ReviewStore;
    let record = ctx
        .store
        .load(&lineage)
        .map_err(|e| review_error(e.into()))?
        .ok_or_else(|| review_error(StoreError::NotFound(lineage.clone()).into()))?;
    let binding = record.state.preflight(args.lens.into(), args.binding.as_deref()).map_err(|e| {
        CliError::new(
            ErrorKind::RejectedInput,
            "preflight_failed",
            format!("{lineage}: {e}"),
            "do not run the lens: use the lineage and the exact binding `probity start` printed, or `probity status` to see what the lineage needs",
        )
    })?;
    let v = json!({
        "ok": true,
        "lineage_id": lineage,
        "state": record.state.stage.name(),
        "lens": binding.lens,
        "order": binding.order,
        "finding_id_prefix": binding.finding_id_prefix,
        "binding": binding.binding,
        "store_revision": record.revision,
    });
    out.answer(&v, || {
        format!(
            "ready: lens {} may run for {lineage}\n  binding: {}\n",
            binding.lens.name(),
            binding.binding
        )
    });
    Ok(ExitCode::SUCCESS)
}

pub fn schema(out: Output, args: &SchemaArgs) -> Result<ExitCode, CliError> {
    let doc = match args.document {
        SchemaArg::Reviewer => SchemaDoc::Reviewer,
        SchemaArg::Receipt => SchemaDoc::Receipt,
        SchemaArg::State => SchemaDoc::State,
        SchemaArg::Refuter => SchemaDoc::Refuter,
        SchemaArg::Validator => SchemaDoc::Validator,
    };
    let v = doc.schema();
    // The schema is the document in both modes.
    let _ = out;
    println!(
        "{}",
        serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string())
    );
    Ok(ExitCode::SUCCESS)
}
