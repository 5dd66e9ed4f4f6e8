//! `probity start | finalize | validate | status | lens | schema`: review
//! authority. One module per command; this one holds what they share:
//! opening the repository and store, and the mapping from a driver error to
//! what the user sees.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use probity_core::review::CommandEvidenceError;
use probity_core::review::ExportError;
use probity_core::review::Lens;
use probity_core::review::LineageId;
use probity_core::review::RecoverError;
use probity_core::review::SchemaDoc;
use probity_core::review::StackError;
use probity_core::review::{MAX_ROLE_DOCUMENT_BYTES, PlacementError};
use probity_core::review::{PreflightError, ResumeRefused, TransitionError};
use probity_core::review::{
    lens_again, refused_input, refused_input_default, start_commit, start_review,
};
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
    /// The state record (its schema's third revision, which accepts every
    /// risk reason a built-in policy gives, D-R128, and every escalation
    /// reason, D-R132).
    State,
    /// The bundle (its schema's third revision; D-R132).
    Bundle,
    /// The state record's schema, second revision (without the escalation
    /// reason `risk_raised_by_correction`), kept byte for byte.
    #[value(name = "state-r2")]
    StateR2,
    /// The bundle's schema, second revision, kept byte for byte.
    #[value(name = "bundle-r2")]
    BundleR2,
    /// The state record's schema as first printed (its `RiskReason` lists
    /// v1's reasons only), kept byte for byte.
    #[value(name = "state-r1")]
    StateR1,
    /// The bundle's schema as first printed, kept byte for byte.
    #[value(name = "bundle-r1")]
    BundleR1,
    /// The repository policy (`.probity/policy.json`, read from the
    /// protected base).
    Policy,
    /// The repository policy with `transcripts` (`probity-policy/v2`).
    #[value(name = "policy-v2")]
    PolicyV2,
    /// The required checks (`.probity/checks.json`, read from the
    /// protected base).
    Checks,
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

impl Context {
    /// The named lineage's record, or (none named) the one that froze the
    /// live candidate.
    pub fn record_of(
        &self,
        lineage: Option<&LineageId>,
    ) -> Result<probity_core::review::StateRecord, CliError> {
        use probity_ports::review::RecordStore;
        match lineage {
            Some(lineage) => self.store.get(lineage).map_err(|e| review_error(e.into())),
            None => {
                probity_ports::review::live_lineage(&self.repo, &self.store).map_err(review_error)
            }
        }
    }
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

/// The directory a command discovers its repository from: `--cwd`, else
/// the current directory.
pub(crate) fn discovery_dir(cwd: Option<PathBuf>) -> Result<PathBuf, CliError> {
    match cwd {
        Some(p) => Ok(p),
        None => current_dir(),
    }
}

/// The git every command runs: `PROBITY_GIT` when set, else `git` on PATH.
pub(crate) fn git_cli() -> GitCli {
    match std::env::var_os("PROBITY_GIT") {
        Some(exe) => GitCli::with_executable(exe),
        None => GitCli::default(),
    }
}

/// Discovers the repository from `cwd` (default: the current directory).
fn open_at(cwd: Option<PathBuf>) -> Result<Context, CliError> {
    open_at_with(cwd, false)
}

/// [`open`] for a command whose first read is the candidate (the
/// pre-commit gate, `start`): discovery reads HEAD's tree in the same git
/// ([`Repo::discover_reading_head`]).
pub fn open_reading_head(global: &GlobalArgs) -> Result<Context, CliError> {
    let pinned = std::env::var_os("PROBITY_REVIEW_CWD")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    open_at_with(global.cwd.clone().or(pinned), true)
}

fn open_at_with(cwd: Option<PathBuf>, read_head: bool) -> Result<Context, CliError> {
    let cwd = discovery_dir(cwd)?;
    let git = git_cli();
    let discovered = if read_head {
        Repo::discover_reading_head(git.clone(), &cwd)
    } else {
        Repo::discover(git.clone(), &cwd)
    };
    // The version is checked only when discovery fails, to explain the
    // failure: hooks run this path, and a spawn costs milliseconds.
    let repo = discovered.map_err(|e| match git.ensure_supported() {
        Err(old) => repo_error(old),
        Ok(()) => repo_error(e),
    })?;
    let store = FileStore::for_common_dir(repo.common_dir());
    Ok(Context { repo, store })
}

/// A repository error explained by a git older than Probity needs, when
/// that is the cause. Discovery runs in-process (D-R142), so an old git is
/// first met by the command that passes it a newer flag (`diff-tree
/// --attr-source` exits 129 with nothing on stderr under git 2.39): the
/// version is asked only then, after a failure, never on a run that
/// works.
pub(crate) fn explain_old_git(e: CliError) -> CliError {
    if e.kind != ErrorKind::Repository {
        return e;
    }
    match git_cli().ensure_supported() {
        Err(old @ probity_git::GitError::TooOld { .. }) => CliError::new(
            ErrorKind::Repository,
            "repository_error",
            format!("{old} ({})", e.message),
            format!(
                "install git {}.{} or newer, or point PROBITY_GIT at one, and run the command again; nothing was changed",
                probity_git::MIN_GIT_VERSION.0,
                probity_git::MIN_GIT_VERSION.1
            ),
        ),
        _ => e,
    }
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
    review_error_ref(&e)
}

/// [`review_error`] of a borrowed error.
pub fn review_error_ref(e: &ReviewError) -> CliError {
    use ErrorKind::*;
    let msg = e.to_string();
    if let ReviewError::NothingUncommitted { head } = e {
        return CliError::new(
            RejectedInput,
            "nothing_to_review",
            msg.clone(),
            format!(
                "review the committed change with `probity start --commit {head}` (or a stack with `probity start --range <base>..{head}`), or change something first"
            ),
        )
        .with_next_tool(next_tool_with_ids(e));
    }
    if let Some(err) = candidate_refusal(e, &msg) {
        return err;
    }
    // The code and its class are the error's own (issue 25 §5); what
    // the command line adds is the advice, in its own words.
    let (class, code) = e.classify();
    let kind = ErrorKind::from(class);
    let next: &str = match &e {
        ReviewError::Repository(_) => {
            "fix the repository error above and retry; nothing was changed"
        }
        ReviewError::Artifacts(_) => {
            "check that the release artifacts are readable, then run the gate again"
        }
        ReviewError::Store(s) => match s {
            StoreError::Conflict { .. } => {
                "another writer moved this lineage: re-run the command to act on the current state"
            }
            StoreError::Contention { .. } => {
                "another process is writing this lineage: retry in a moment"
            }
            StoreError::Corrupted { .. } | StoreError::Malformed { .. } => {
                "stored authority failed validation; nothing was trusted or changed: inspect the named file, restore it, or start a fresh review"
            }
            StoreError::Illegal(_) => "check `probity status` for the legal next input",
            StoreError::TargetOwned { .. } => {
                "another lineage already reviewed exactly this candidate: make a different fix, or use that lineage"
            }
            StoreError::NotFound(_) => {
                "check the lineage id (`probity status`), or run `probity start`"
            }
            StoreError::Consumed { .. } => {
                "this lineage's authority was burned once used (its tombstone is named above): review a new change with `probity start`"
            }
            StoreError::Retired { .. } => {
                "a repair ceremony quarantined this lineage (the audit record, named above, says who, why and on what proof; its original bytes are kept in quarantine): review the candidate again with `probity start`"
            }
            StoreError::RecoveryPending { .. } => {
                "repeat the recovery request that was interrupted (same disposition, reason, actor, authorization) to complete it, or wait for the one running"
            }
            StoreError::AlreadySuperseded { .. } => {
                "a lineage has at most one successor: continue with the successor named above (`probity status --lineage <id>`)"
            }
            StoreError::ResultDiffers { .. } => {
                "a lens result is kept once: resubmit the same bytes, or start a fresh review to judge again"
            }
            StoreError::Io { .. } => {
                "check permissions and free space under the git common dir, then retry"
            }
        },
        ReviewError::MalformedInput { .. } => {
            "fix the document and retry; nothing was changed and no budget was consumed"
        }
        ReviewError::Transition(t) => match t {
            TransitionError::WrongStage { .. } => {
                "run `probity status` to see the legal next input"
            }
            TransitionError::ResultCount { .. } => {
                "give one result per selected lens, named by its lens: `--result LENS=FILE` or `probity lens submit --lens LENS FILE`"
            }
            TransitionError::RefuterUnknownFinding(_) | TransitionError::RefuterMissing(_) => {
                "the batch must give one outcome for each finding routed to the refuter (see `probity finalize --json` findings)"
            }
            TransitionError::ZeroForecast => "forecast a positive number of lines",
            TransitionError::OutsideGenesis(_) => {
                "revert edits outside the reviewed paths, then retry; nothing was charged"
            }
            TransitionError::EmptyEvidence => {
                "pass a non-empty evidence file produced by an independent mechanism"
            }
            TransitionError::NotDisputable { .. } => {
                "only a finding admitted to correction is disputed (`probity status --lineage L` lists the routes); nothing was changed"
            }
            TransitionError::DisputeAfterCorrection { .. } => {
                "a dispute comes before any correction edit; go on with the correction, or let it escalate and recover with an authorization; nothing was changed"
            }
            TransitionError::EvidenceDocument(_) => {
                "pass the command evidence document exactly as `probity finalize --evidence-cmd` writes it (docs/review-authority.md), or evidence that does not name its schema; nothing was changed"
            }
            TransitionError::EvidenceTree { .. } => {
                "run the check on the lineage's final candidate tree (`probity finalize --evidence-cmd -- ARGV...` does), or pass evidence for that tree; nothing was changed"
            }
            TransitionError::DifferentRetry { .. } => {
                "this lineage already accepted other input; repeat the original input, or start a fresh review"
            }
            TransitionError::FrozenChanged(_) | TransitionError::IllegalEdge { .. } => {
                "run `probity status` to see the legal next input"
            }
            TransitionError::State(_) => {
                "the derived state failed validation; report this as a bug"
            }
        },
        ReviewError::Snapshot(probity_core::review::SnapshotError::Empty) => {
            "change something first: the candidate equals HEAD"
        }
        ReviewError::Snapshot(_) | ReviewError::State(_) => {
            "report this as a bug; nothing was written"
        }
        ReviewError::NoReview => "run `probity start` for this candidate, or pass --lineage",
        ReviewError::CandidateChanged { .. } => {
            "the candidate moved since start: restore it, or run `probity start` to review the new candidate"
        }
        ReviewError::IndexMismatch(_) => {
            "the store index disagrees with a record: inspect <git-common-dir>/probity/reviews/v1/index"
        }
        ReviewError::AmbiguousCorrection { .. } => {
            "pass --lineage with the lineage whose correction this is"
        }
        ReviewError::CorrectionOpen { .. } => {
            "finish that correction first (`probity finalize --lineage <id> --correction-lines N`, then `--validation F`); forecasting more lines than its budget escalates it and lifts this block"
        }
        ReviewError::NotResumable(ResumeRefused::CorrectedElsewhere { .. }) => {
            "restore the corrected candidate (see `probity status --lineage <id>`), or change the candidate and start a new review"
        }
        ReviewError::SupersededLineage { .. } => {
            "a superseded lineage is history: continue with the leaf named above, or recover from it (`probity recover --predecessor-lineage <leaf> ...`)"
        }
        ReviewError::NotResumable(ResumeRefused::Invalidated { .. }) => {
            "create its audited successor: `probity recover --predecessor-lineage <id> --expected-predecessor-revision <rev> --disposition invalidated --reason R --actor A` (see `probity status --lineage <id>` for the revision)"
        }
        ReviewError::LineageEscalated { .. } => {
            "a maintainer decides (see the recover command in next_action)"
        }
        ReviewError::Recover(r) => match r {
            RecoverError::RevisionMismatch { .. } => {
                "the predecessor moved since you inspected it: check `probity status --lineage <id>` and pass its current revision"
            }
            RecoverError::NotEligible { .. } => {
                "recover an approved lineage with scope_changed, an invalidated one with invalidated, an escalated one with escalation_authorized; a pristine review is invalidated first"
            }
            RecoverError::ScopeUnchanged { .. } => {
                "new work outside the reviewed paths gets its own review: `probity start`"
            }
            RecoverError::AuthorizationRequired | RecoverError::AuthorizationNotApplicable => {
                "pass --authorization only, and always, when the predecessor escalated"
            }
            RecoverError::State(_) => "report this as a bug; nothing was written",
        },
        ReviewError::Export(ExportError::BudgetExceeded { .. }) => {
            "the frozen diff is over the 4 MiB export budget and is never truncated: read the lineage's paths with `probity snapshot read --subject tree:<candidate_tree>` instead"
        }
        ReviewError::Export(ExportError::ManifestMismatch { .. }) => {
            "the trees in Git do not match the record; nothing was trusted: inspect the lineage's state file"
        }
        ReviewError::Export(ExportError::Drift { .. }) => {
            "the frozen context cannot be reproduced with this git; export it with the git version that started the review (see derivation.git_version of an earlier export)"
        }
        ReviewError::NotTerminal { .. } => {
            "finish the review first (`probity status --lineage <id>` names the next input)"
        }
        ReviewError::Policy { .. } => {
            "the base's .probity/policy.json is refused (check it with `probity policy check`); fix it on the protected branch, then start again; nothing was started"
        }
        ReviewError::NotRepresentable { .. } => {
            "split the change into smaller candidates; nothing was started"
        }
        ReviewError::ObjectsMissing { .. } => {
            "the frozen trees were pruned (e.g. by `git gc`); fetch or restore them, or review the candidate again"
        }
        ReviewError::Chain(_) => {
            "the recovery chain in the store does not hold (missing predecessor, moved revision or two successors); nothing was trusted: inspect the named lineages"
        }
        ReviewError::Placement(p) => match p {
            PlacementError::Unnamed { .. } => {
                "name each result by its lens: `--result LENS=FILE` (or `probity lens submit --lens LENS FILE`)"
            }
            PlacementError::NotSelected { .. } => {
                "give results only for the selected lenses (`probity status` lists them)"
            }
            PlacementError::Duplicate { .. } => "give exactly one result per selected lens",
            PlacementError::Missing { .. } => {
                "give a result for every selected lens: `--result LENS=FILE` or `probity lens submit --lens LENS FILE`"
            }
        },
        ReviewError::Submission { source, .. } => match source {
            PreflightError::BindingMismatch { .. } => {
                "the result belongs to another lineage, candidate or lens: run the lens again with the binding `probity start --json` printed for it (lens_bindings[].binding, or its token), and submit with that"
            }
            PreflightError::NotSelected { .. } => {
                "submit results only for the selected lenses (`probity status` lists them)"
            }
            PreflightError::NotAwaitingResults { .. } => {
                "this lineage no longer takes lens results: `probity status` names its next input"
            }
        },
        ReviewError::SubmittedDiffers { .. } => {
            "leave out --result for a lens already submitted, or give its exact bytes"
        }
        ReviewError::PreservedNotAResult { .. } => {
            "a preserved result is replayed, never taken as a result: `probity lens replay <artifact>` sends its payload through the same checks a fresh submission pays; nothing was changed"
        }
        ReviewError::Preserved { source, .. } => match source.as_ref() {
            probity_core::review::PreservedError::OtherCandidate { .. } => {
                "a preserved result only lands in the lineage and candidate it judged: run the lens again for this one; nothing was changed"
            }
            _ => {
                "pass the artifact exactly as `probity lens submit --preserve-to` wrote it; nothing was changed"
            }
        },
        ReviewError::Repair(r) => match r {
            probity_core::review::RepairError::NotAnomalous { .. } => {
                "nothing to repair: name the lineage and class a command reported (`store_corrupted`, `receipt_mismatch`); nothing was changed"
            }
            probity_core::review::RepairError::NotUnique { .. } => {
                "several entries show this anomaly: investigate the cause (disk, tooling, a copy from elsewhere) before any repair; nothing was changed"
            }
            probity_core::review::RepairError::Incomplete { .. } => {
                "the store is larger than a repair surveys: uniqueness cannot be proven; nothing was changed"
            }
        },
        ReviewError::Burn(b) => match b {
            probity_core::review::BurnError::NotApproved { .. } => {
                "only an approved review's authority is burned; nothing was changed"
            }
            probity_core::review::BurnError::Superseded { .. } => {
                "burn the chain's leaf (named above), not its history; nothing was changed"
            }
        },
        ReviewError::Tombstone(_) => "report this as a bug; nothing was changed",
        ReviewError::InputTooLarge { .. } => {
            "pass a smaller document (the limits are in docs/review-authority.md); nothing was changed"
        }
        ReviewError::CommandEvidence(c) => match c {
            CommandEvidenceError::TimedOut { .. } => {
                "the check did not finish: raise --evidence-timeout SECS or make the check faster; nothing was changed"
            }
            CommandEvidenceError::EmptyArgv => {
                "name the check after `--`: `probity finalize --evidence-cmd -- cargo test`"
            }
            CommandEvidenceError::Canonical(_) => {
                "the check's evidence document could not be encoded; report this as a bug"
            }
        },
        ReviewError::ChecksUnmet(_) => {
            "run the check the base requires: `probity finalize --evidence-cmd -- <its argv>` (`probity policy show` lists the required checks); nothing was written"
        }
        ReviewError::TranscriptsUnmet(_) => {
            "have the model run the lenses on the frozen lineage: `probity review --lineage <L>` (a result handed in with `lens submit` or `--result` is not a model run); nothing was written"
        }
        ReviewError::ChecksInvalid(_) => {
            "fix .probity/checks.json on the base branch (check it with `probity policy check --checks FILE`); nothing was written"
        }
        ReviewError::BaseChanged { .. } => {
            "restore HEAD to the frozen base (corrections happen on the reviewed base), then retry"
        }
        ReviewError::Stack(s) => match s {
            StackError::Merge { .. } => {
                "rebase the branch onto its base (`git rebase <base>`) or squash it, so every commit has one parent, then `probity start --commit <sha>` or `probity start --range <base>..<tip>`; nothing was written"
            }
            StackError::Empty => {
                "name a range with commits: A..B lists the commits reachable from B and not from A (e.g. --range origin/main..HEAD)"
            }
            StackError::TooLarge { .. } => {
                "review the stack in parts (a shorter A..B each time), or squash it; nothing was written"
            }
            StackError::NotLinear { .. } => {
                "rebase the branch into a chain of one-parent commits, then retry; nothing was written"
            }
        },
        ReviewError::NothingUncommitted { .. } => {
            "review committed work with `probity start --commit <sha>`, or change something first"
        }
        ReviewError::CommitNoChange { .. } => {
            "nothing to review: the gates allow this commit as `no_change`; review the commits that change bytes (`probity start --commit <sha>`)"
        }
    };
    let next = next_with_ids(e).unwrap_or_else(|| next.to_owned());
    CliError::new(kind, code, msg, next).with_next_tool(next_tool_with_ids(e))
}

/// [`next_with_ids`] on the MCP surface (D-R89): the tool that leads on
/// from a refusal that names its lineage or the start to make, as core
/// renders it; `None` where no tool does the step (the error's
/// `next_action` is then a person's, and says so over MCP).
fn next_tool_with_ids(e: &ReviewError) -> Option<probity_core::review::NextTool> {
    Some(match e {
        ReviewError::Transition(
            TransitionError::WrongStage { lineage, .. }
            | TransitionError::DifferentRetry { lineage, .. },
        ) => match LineageId::parse(lineage) {
            Ok(l) => refused_input(&l),
            Err(_) => return None,
        },
        ReviewError::NotTerminal { lineage, .. } | ReviewError::CorrectionOpen { lineage } => {
            refused_input(lineage)
        }
        ReviewError::SupersededLineage { leaf, .. } => refused_input(leaf),
        ReviewError::Store(StoreError::AlreadySuperseded { successor, .. }) => {
            refused_input(successor)
        }
        ReviewError::Store(StoreError::TargetOwned { owner, .. }) => refused_input(owner),
        ReviewError::Submission {
            lineage,
            source: PreflightError::BindingMismatch { lens, .. },
        } => lens_again(lineage, lens),
        ReviewError::Submission { lineage, .. } => refused_input(lineage),
        ReviewError::Store(StoreError::Illegal(_))
        | ReviewError::Transition(
            TransitionError::FrozenChanged(_) | TransitionError::IllegalEdge { .. },
        )
        | ReviewError::Placement(PlacementError::NotSelected { .. }) => refused_input_default(),
        ReviewError::NothingUncommitted { head } => start_commit(&head.to_string()),
        ReviewError::NoReview
        | ReviewError::CandidateChanged { .. }
        | ReviewError::Store(StoreError::Consumed { .. } | StoreError::Retired { .. })
        | ReviewError::Recover(RecoverError::ScopeUnchanged { .. }) => start_review(),
        _ => return None,
    })
}

/// A candidate `start` will not take, for a reason in the candidate itself
/// (not a broken repository): a path whose name is not UTF-8 (D-R32) or a
/// file over the size limit (D-R33). Exit 3, nothing started or read.
fn candidate_refusal(e: &ReviewError, msg: &str) -> Option<CliError> {
    let ReviewError::Repository(inner) = e else {
        return None;
    };
    match inner.downcast_ref::<probity_git::GitError>()? {
        probity_git::GitError::NonUtf8Path { path } => Some(CliError::new(
            ErrorKind::RejectedInput,
            "path_not_utf8",
            msg,
            format!(
                "rename {path} to a UTF-8 name (`git mv` if it is tracked), or keep it out of the candidate (untracked: add it to .git/info/exclude), then run `probity start` again; nothing was started"
            ),
        )),
        probity_git::GitError::FileTooLarge { path, .. } => Some(CliError::new(
            ErrorKind::RejectedInput,
            "file_too_large",
            msg,
            format!(
                "keep {path} out of the candidate (untracked: add it to .gitignore or .git/info/exclude; tracked: store it outside the repository or with Git LFS), then run `probity start` again; nothing was started"
            ),
        )),
        probity_git::GitError::DiffTooLarge(d) => Some(CliError::new(
            ErrorKind::RejectedInput,
            "diff_too_large",
            msg,
            diff_too_large_next(d),
        )),
        probity_git::GitError::TreeMalformed(_) => Some(CliError::new(
            ErrorKind::RejectedInput,
            "tree_malformed",
            msg,
            "git will not check such a tree out: make the change again on its parent with git's own commands (`git checkout <parent>`, edit, `git add -A`, `git commit`: git writes every tree well formed; `git fsck` names the bad entry), then `probity start --commit <new commit>`; nothing was started",
        )),
        _ => None,
    }
}

/// What `start` (or `finalize`) advises for a diff over the bound on diff
/// work (D-R130).
fn diff_too_large_next(d: &probity_core::review::DiffTooLarge) -> String {
    let path = match d {
        probity_core::review::DiffTooLarge::File { path, .. }
        | probity_core::review::DiffTooLarge::Check { path, .. } => path,
    };
    format!(
        "make the change in smaller steps: commit part of the edit to {path} at a time and review each commit as committed (`probity start --commit <sha>`), so that each stays within the limit; or keep a generated file out of review (untracked: .gitignore or .git/info/exclude; tracked: Git LFS, whose pointer is what git diffs); nothing was started"
    )
}

/// The next step of an error that names its lineage, with the ids filled
/// in: a command that can be run as printed, except for the values only a
/// person can give (marked R, A, X and said so).
fn next_with_ids(e: &ReviewError) -> Option<String> {
    use probity_core::review::PERSON_VALUES;
    let status = |l: &LineageId| format!("`probity status --lineage {l} --next-transition`");
    Some(match e {
        ReviewError::LineageEscalated {
            lineage, revision, ..
        } => format!(
            "a maintainer decides whether this work goes on: `probity recover --predecessor-lineage {lineage} --expected-predecessor-revision {revision} --disposition escalation_authorized --reason R --actor A --authorization X` ({PERSON_VALUES}), then review with the successor it prints"
        ),
        ReviewError::NotResumable(ResumeRefused::Invalidated { lineage, revision }) => format!(
            "create its audited successor: `probity recover --predecessor-lineage {lineage} --expected-predecessor-revision {revision} --disposition invalidated --reason R --actor A` (R: why, A: who; yours to give)"
        ),
        ReviewError::SupersededLineage { leaf, .. } => format!(
            "a superseded lineage is history: continue with its leaf {leaf}; `probity status --lineage {leaf} --next-transition` names its next input, or once it is final the command to recover from it"
        ),
        ReviewError::CorrectionOpen { lineage } => format!(
            "finish the correction of {lineage} first: {} names its next input (`probity finalize --lineage {lineage} --correction-lines N` to forecast, then edit and `probity finalize --lineage {lineage} --validation F`); forecasting more lines than its budget escalates it and lifts this block",
            status(lineage)
        ),
        ReviewError::NotResumable(ResumeRefused::CorrectedElsewhere {
            lineage,
            final_tree,
        }) => format!(
            "{lineage} corrected this candidate into tree {final_tree}: restore that (`git restore --source={final_tree} --worktree -- .`) to deliver it, or change the candidate and run `probity start` again"
        ),
        ReviewError::CandidateChanged { lineage, .. } => format!(
            "the candidate moved since {lineage} froze it: restore it (the changed paths are listed above), or run `probity start` to review the new candidate"
        ),
        ReviewError::NotTerminal { lineage, .. } => {
            format!(
                "finish the review first: {} names the next input",
                status(lineage)
            )
        }
        ReviewError::BaseChanged { lineage, frozen } => format!(
            "corrections happen on the reviewed base: check out the commit whose tree is {frozen} (the base {lineage} froze), then retry"
        ),
        ReviewError::Store(StoreError::AlreadySuperseded { successor, .. }) => format!(
            "a lineage has at most one successor: continue with {successor} ({})",
            status(successor)
        ),
        ReviewError::Store(StoreError::TargetOwned { owner, .. }) => format!(
            "lineage {owner} already reviewed exactly this candidate: use it ({}), or make a different fix",
            status(owner)
        ),
        ReviewError::Store(StoreError::RecoveryPending { successor, .. }) => format!(
            "repeat the interrupted recovery exactly: `probity status --lineage {successor}` shows its predecessor link (disposition, reason, actor, authorization) to repeat"
        ),
        ReviewError::Transition(TransitionError::DifferentRetry { lineage, what }) => format!(
            "{lineage} already took other {what}: repeat the original input exactly, or see where it stands with `probity status --lineage {lineage}` (nothing was changed)"
        ),
        ReviewError::Transition(TransitionError::WrongStage { lineage, .. }) => format!(
            "this input is not legal now: `probity status --lineage {lineage}` names the next one"
        ),
        ReviewError::MalformedInput { role, .. } => format!(
            "fix the document (its schema: `probity schema {role}`) and retry; nothing was changed and no budget was consumed"
        ),
        ReviewError::Recover(RecoverError::RevisionMismatch { lineage, found, .. }) => format!(
            "the predecessor moved since you inspected it: check `probity status --lineage {lineage}`, then pass --expected-predecessor-revision {found} if you still mean to recover it"
        ),
        _ => return None,
    })
}

/// The largest evidence file or stream hashed for `finalize --evidence`
/// (read streamed: memory stays constant, the bound caps the time).
pub const MAX_EVIDENCE_BYTES: u64 = 1 << 30;

fn too_large(name: &str, limit: u64) -> CliError {
    CliError::new(
        ErrorKind::RejectedInput,
        "input_too_large",
        format!("{name} is larger than the {limit}-byte limit for this document"),
        "pass a smaller document (see the documented limits in docs/review-authority.md); nothing was changed",
    )
}

/// Maps the shared reader's refusal ([`probity_scratch::input`]) to the
/// CLI's typed errors.
pub(crate) fn input_error(path: &Path, e: probity_scratch::input::InputError) -> CliError {
    use probity_scratch::input::InputError;
    match e {
        InputError::Unreadable(e) => CliError::new(
            ErrorKind::RejectedInput,
            "unreadable_input",
            format!("{}: {e}", path.display()),
            "pass a readable regular file",
        ),
        InputError::NotRegular => CliError::new(
            ErrorKind::RejectedInput,
            "input_not_regular",
            format!(
                "{} is not a regular file (a FIFO, directory or device is never read)",
                path.display()
            ),
            "pass a regular file, or `-` to read the document from stdin",
        ),
        InputError::TooLarge { limit } => too_large(&path.display().to_string(), limit),
    }
}

/// Streams an input (a regular file, or stdin for `-`) through `sink` in
/// chunks, refusing it with `input_too_large` once more than `limit` bytes
/// arrived (a file that grows while read is still bounded). Returns the
/// number of bytes read. A file is opened by
/// [`probity_scratch::input::open_within`]: a FIFO, a directory or a
/// device is refused at once, never opened for reading, and a file already
/// past the bound is refused before a byte of it is read.
pub(crate) fn stream_input(
    path: &Path,
    limit: u64,
    sink: impl FnMut(&[u8]),
) -> Result<u64, CliError> {
    use probity_scratch::input::{open_within, stream_bounded};
    let mut reader: Box<dyn std::io::Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(open_within(path, limit).map_err(|e| input_error(path, e))?)
    };
    stream_bounded(&mut reader, limit, sink).map_err(|e| input_error(path, e))
}

/// Reads a whole input document (a regular file, or stdin for `-`), at
/// most `limit` bytes: the one reader behind every document flag.
pub(crate) fn read_input(path: &Path, limit: u64) -> Result<NamedInput, CliError> {
    let mut bytes = Vec::new();
    stream_input(path, limit, |chunk| bytes.extend_from_slice(chunk))?;
    Ok(NamedInput {
        name: if path.as_os_str() == "-" {
            "stdin".into()
        } else {
            path.display().to_string()
        },
        bytes,
    })
}

/// Reads a role document (lens result, refuter batch, validator result),
/// bounded by [`MAX_ROLE_DOCUMENT_BYTES`].
pub(crate) fn read_role_document(path: &Path) -> Result<NamedInput, CliError> {
    read_input(path, MAX_ROLE_DOCUMENT_BYTES)
}

pub fn schema(out: Output, args: &SchemaArgs) -> Result<ExitCode, CliError> {
    let doc = match args.document {
        SchemaArg::Reviewer => SchemaDoc::Reviewer,
        SchemaArg::Receipt => SchemaDoc::Receipt,
        SchemaArg::State => SchemaDoc::StateR3,
        SchemaArg::StateR2 => SchemaDoc::StateR2,
        SchemaArg::StateR1 => SchemaDoc::State,
        SchemaArg::Refuter => SchemaDoc::Refuter,
        SchemaArg::Validator => SchemaDoc::Validator,
        SchemaArg::Bundle => SchemaDoc::BundleR3,
        SchemaArg::BundleR2 => SchemaDoc::BundleR2,
        SchemaArg::BundleR1 => SchemaDoc::Bundle,
        SchemaArg::Policy => SchemaDoc::Policy,
        SchemaArg::PolicyV2 => SchemaDoc::PolicyV2,
        SchemaArg::Checks => SchemaDoc::Checks,
    };
    let v = doc.schema();
    // The schema is the document in both modes.
    let _ = out;
    crate::output::emit(&format!("{}\n", crate::output::pretty(&v)));
    Ok(ExitCode::SUCCESS)
}

pub use policy::{PolicyCommand, policy};

mod dispute;
mod finalize;
mod lens;
mod list;
mod next_steps;
mod policy;
mod policy_gate;
mod policy_judge;
mod pre_receive;
pub mod push_verdict;
mod receive_refs;
pub mod ref_transaction;
mod show;
mod start;
mod status;
mod transport;
mod validate;

pub use dispute::{DisputeArgs, dispute};
pub use finalize::{FinalizeAnswer, FinalizeArgs, finalize};
pub use lens::{LensCommand, lens};
pub use list::{ListArgs, list};

pub(crate) mod evidence_cmd;
pub use next_steps::next_hint as push_next_step;
pub use pre_receive::local_policy_denial;
pub use show::{ShowCommand, show};
pub use start::{StartAnswer, StartArgs, start};
pub use status::{StatusArgs, status};
pub use transport::{scratch_store, transport_error};
pub use validate::{DecisionView, ValidateArgs, human_decision, validate};
