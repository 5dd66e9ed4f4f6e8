//! `probity invalidate` and `probity recover` (R9.1, R9.2): the narrow edge
//! for an abandoned review, and audited successors of final lineages.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::UniquenessProof;
use probity_core::review::{Disposition, RecoverRequest};
use probity_core::review::{LineageId, NonBlank};
use probity_ports::review as drivers;

use crate::GlobalArgs;
use crate::authority_cmd::{LensArg, StartAnswer, open, parse_lineage, review_error};
use crate::clock::SystemClock;
use crate::output::{CliError, ErrorKind, NextStep, Output};

#[derive(Debug, Args)]
pub struct InvalidateArgs {
    /// The pristine `reviewing` lineage to invalidate.
    #[arg(long)]
    pub lineage: String,
    /// Why (kept in the record; not blank).
    #[arg(long)]
    pub reason: String,
}

/// Which final state the successor follows.
#[derive(Debug, Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum DispositionArg {
    /// An approved predecessor whose reviewed paths changed since.
    ScopeChanged,
    /// An invalidated predecessor.
    Invalidated,
    /// An escalated predecessor, with --authorization.
    EscalationAuthorized,
}

impl From<DispositionArg> for Disposition {
    fn from(d: DispositionArg) -> Self {
        match d {
            DispositionArg::ScopeChanged => Disposition::ScopeChanged,
            DispositionArg::Invalidated => Disposition::Invalidated,
            DispositionArg::EscalationAuthorized => Disposition::EscalationAuthorized,
        }
    }
}

#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The final lineage the successor follows.
    #[arg(long)]
    pub predecessor_lineage: String,
    /// Its revision as you inspected it (`probity status --lineage L`
    /// prints `store_revision`); a moved predecessor is refused.
    #[arg(long, value_name = "REV")]
    pub expected_predecessor_revision: String,
    /// Why the successor exists.
    #[arg(long, value_enum)]
    pub disposition: DispositionArg,
    /// Why, in words (kept in the successor; not blank).
    #[arg(long)]
    pub reason: String,
    /// Who decided (kept in the successor; not blank).
    #[arg(long)]
    pub actor: String,
    /// The maintainer decision an escalated predecessor needs.
    #[arg(long)]
    pub authorization: Option<String>,
    /// The focus lens when the live candidate is medium risk.
    #[arg(long, value_enum, default_value = "reliability")]
    pub focus: LensArg,
    /// Freeze this commit's change (parent tree to tree) for the successor,
    /// as `start --commit REV` would: for a predecessor whose own commit no
    /// longer holds its change (amended, rebased). Without it: the
    /// worktree's change, else (nothing uncommitted) the commit that holds
    /// the predecessor's.
    #[arg(long, value_name = "REV")]
    pub commit: Option<String>,
}

#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The lineage holding the anomaly.
    #[arg(long)]
    pub lineage: String,
    /// The anomaly: `corrupted_record` (its state record does not load: the
    /// lineage is retired) or `receipt_mismatch` (its receipt file is not
    /// the derived one: the file is quarantined and the derived one
    /// written).
    #[arg(long, value_name = "CLASS")]
    pub class: String,
    /// Why, in words (kept in the audit record; not blank).
    #[arg(long)]
    pub reason: String,
    /// Who decided (kept in the audit record; not blank).
    #[arg(long)]
    pub actor: String,
    /// The maintainer authorization, as an escalated edge needs (kept in
    /// the audit record; not blank).
    #[arg(long)]
    pub authorization: String,
}

pub fn repair(global: &GlobalArgs, out: Output, args: &RepairArgs) -> Result<ExitCode, CliError> {
    use probity_core::review::{RepairClass, RepairRequest};
    let lineage = parse_lineage(&args.lineage)?;
    let class = RepairClass::parse(&args.class).ok_or_else(|| {
        CliError::new(
            ErrorKind::Usage,
            "bad_repair_class",
            format!("--class {}: not a repair class", args.class),
            "pass --class corrupted_record or --class receipt_mismatch",
        )
    })?;
    let request = RepairRequest {
        lineage: lineage.clone(),
        class,
        reason: non_blank("--reason", &args.reason)?,
        actor: non_blank("--actor", &args.actor)?,
        authorization: non_blank("--authorization", &args.authorization)?,
    };
    let ctx = open(global)?;
    let done = drivers::repair(&ctx.store, &SystemClock, request).map_err(review_error)?;
    let next = if done.retired {
        format!(
            "{lineage} is retired; its bytes are in quarantine. Review the candidate again with `probity start` (or `start --commit`)"
        )
    } else {
        format!("the receipt of {lineage} is the one its state derives again; run the gate again")
    };
    let answer = RepairAnswer {
        lineage_id: &lineage,
        class: class.name(),
        audit: &done.audit,
        proof: &done.proof,
        retired: done.retired,
        receipt_rewritten: done.receipt_rewritten,
        message: &next,
    };
    out.answer(&answer, || {
        format!(
            "repaired {lineage} ({}): quarantined, audit record {}\n  proof: the only anomaly of its class among {} lineages\n  next: {next}\n",
            class.name(),
            done.audit,
            done.proof.scanned
        )
    });
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct BurnArgs {
    /// The approved lineage whose authority was used.
    #[arg(long)]
    pub lineage: String,
    /// Why (kept in the tombstone; not blank), e.g. "delivered in v1.4".
    #[arg(long)]
    pub reason: String,
    /// Who acknowledged it (kept; not blank).
    #[arg(long)]
    pub actor: String,
}

pub fn burn(global: &GlobalArgs, out: Output, args: &BurnArgs) -> Result<ExitCode, CliError> {
    use probity_core::review::BurnRequest;
    let lineage = parse_lineage(&args.lineage)?;
    let request = BurnRequest {
        lineage: lineage.clone(),
        reason: non_blank("--reason", &args.reason)?,
        actor: non_blank("--actor", &args.actor)?,
    };
    let ctx = open(global)?;
    let tombstone = drivers::burn(&ctx.store, &SystemClock, request).map_err(review_error)?;
    let answer = BurnAnswer {
        lineage_id: &lineage,
        consumed: true,
        tombstone: &tombstone,
        message: "its authority is consumed: every command that names it answers `lineage_consumed`; a new change is reviewed with `probity start`",
    };
    out.answer(&answer, || {
        format!("{lineage} is consumed; tombstone {tombstone} (Git objects untouched)\n")
    });
    Ok(ExitCode::SUCCESS)
}

fn non_blank(flag: &str, value: &str) -> Result<NonBlank, CliError> {
    NonBlank::parse(value).map_err(|_| {
        CliError::new(
            ErrorKind::Usage,
            "blank_argument",
            format!("{flag} must not be blank"),
            format!("pass a non-blank {flag}"),
        )
    })
}

pub fn invalidate(
    global: &GlobalArgs,
    out: Output,
    args: &InvalidateArgs,
) -> Result<ExitCode, CliError> {
    let lineage = parse_lineage(&args.lineage)?;
    let reason = non_blank("--reason", &args.reason)?;
    let ctx = open(global)?;
    let record = drivers::invalidate(&ctx.store, &lineage, reason).map_err(review_error)?;
    let answer = InvalidateAnswer {
        lineage_id: record.state().lineage_id(),
        state: record.state().stage().name(),
        store_revision: record.revision(),
        action: "recover",
        message: format!(
            "invalidated; to review this candidate again, create the successor: `probity recover --predecessor-lineage {} --expected-predecessor-revision {} --disposition invalidated --reason R --actor A`",
            record.state().lineage_id(),
            record.revision()
        ),
    };
    out.answer(&answer, || {
        format!(
            "{} is invalidated\n  store_revision: {}\n  next: {}\n",
            record.state().lineage_id(),
            record.revision(),
            answer.message
        )
    });
    Ok(ExitCode::SUCCESS)
}

pub fn recover(global: &GlobalArgs, out: Output, args: &RecoverArgs) -> Result<ExitCode, CliError> {
    let predecessor = parse_lineage(&args.predecessor_lineage)?;
    let expected_revision: Sha256Digest =
        args.expected_predecessor_revision.parse().map_err(|e| {
            CliError::new(
                ErrorKind::Usage,
                "bad_revision",
                format!("--expected-predecessor-revision: {e}"),
                format!(
                    "copy `store_revision` from `probity status --lineage {} --json`",
                    args.predecessor_lineage
                ),
            )
        })?;
    let request = RecoverRequest {
        expected_revision,
        disposition: args.disposition.into(),
        reason: non_blank("--reason", &args.reason)?,
        actor: non_blank("--actor", &args.actor)?,
        authorization: args
            .authorization
            .as_deref()
            .map(|a| non_blank("--authorization", a))
            .transpose()?,
    };
    let ctx = open(global)?;
    let started = match &args.commit {
        Some(rev) => drivers::recover_commit(
            &ctx.repo,
            &ctx.store,
            &SystemClock,
            args.focus.into(),
            &predecessor,
            request,
            rev,
        ),
        None => drivers::recover(
            &ctx.repo,
            &ctx.store,
            &SystemClock,
            args.focus.into(),
            &predecessor,
            request,
        ),
    }
    .map_err(|e| {
        let mut err = review_error(e);
        // Recover's own way on: nothing uncommitted, and no commit holds
        // the predecessor's change (amended or rebased away).
        if err.code == "nothing_to_review" && args.commit.is_none() {
            err.next_action = NextStep::new(err.kind, "nothing is uncommitted and no commit among the last ones from HEAD holds the predecessor's change: name the commit the successor reviews with `--commit REV` (e.g. `--commit HEAD` for an amended commit), or make the change in the worktree");
        }
        err
    })?;
    out.answer(&StartAnswer::of(&started.record, started.resumed), || {
        let s = started.record.state();
        format!(
            "{} {} generation {} (successor of {})\n  selected lenses: {}\n  correction budget: {}\n  next: {}\n",
            s.lineage_id(),
            if started.resumed { "resumed" } else { "created" },
            s.generation(),
            predecessor,
            s.frozen()
                .selected_lenses
                .iter()
                .map(|l| l.name())
                .collect::<Vec<_>>()
                .join(", "),
            s.frozen().correction_budget,
            probity_core::review::next_sentence(&started.record)
        )
    });
    Ok(ExitCode::SUCCESS)
}

/// The `repair` answer.
#[derive(Debug, Serialize)]
struct RepairAnswer<'a> {
    lineage_id: &'a LineageId,
    class: &'static str,
    /// The audit record's path, relative to the store root.
    audit: &'a str,
    proof: &'a UniquenessProof,
    retired: bool,
    receipt_rewritten: bool,
    message: &'a str,
}

/// The `burn` answer.
#[derive(Debug, Serialize)]
struct BurnAnswer<'a> {
    lineage_id: &'a LineageId,
    consumed: bool,
    /// The tombstone's path, relative to the store root.
    tombstone: &'a str,
    message: &'static str,
}

/// The `invalidate` answer.
#[derive(Debug, Serialize)]
struct InvalidateAnswer<'a> {
    lineage_id: &'a LineageId,
    state: &'static str,
    store_revision: Sha256Digest,
    action: &'static str,
    message: String,
}
