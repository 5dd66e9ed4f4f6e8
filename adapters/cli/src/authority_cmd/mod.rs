//! `probity start | finalize | validate | status | lens | schema`: review
//! authority. One module per command; this one holds what they share:
//! opening the repository and store, and the mapping from a driver error to
//! what the user sees.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use probity_core::review::export::ExportError;
use probity_core::review::ids::LineageId;
use probity_core::review::lens::Lens;
use probity_core::review::recovery::RecoverError;
use probity_core::review::schema::SchemaDoc;
use probity_core::review::state::TransitionError;
use probity_git::{GitCli, Repo};
use probity_ports::review::{NamedInput, ReviewError, StoreError};
use probity_store::FileStore;

use crate::GlobalArgs;
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

/// A document whose schema `probity schema` prints.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SchemaArg {
    Reviewer,
    Refuter,
    Validator,
    Receipt,
    State,
    Bundle,
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

pub fn schema(out: Output, args: &SchemaArgs) -> Result<ExitCode, CliError> {
    let doc = match args.document {
        SchemaArg::Reviewer => SchemaDoc::Reviewer,
        SchemaArg::Receipt => SchemaDoc::Receipt,
        SchemaArg::State => SchemaDoc::State,
        SchemaArg::Refuter => SchemaDoc::Refuter,
        SchemaArg::Validator => SchemaDoc::Validator,
        SchemaArg::Bundle => SchemaDoc::Bundle,
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

mod finalize;
mod pre_receive;
mod start;
mod status;
mod validate;

pub use finalize::{FinalizeArgs, LensCommand, finalize, finalize_json, lens};
pub use start::{StartArgs, start, start_json};
pub use status::{StatusArgs, status};
pub use validate::{ValidateArgs, decision_json, human_decision, validate};
