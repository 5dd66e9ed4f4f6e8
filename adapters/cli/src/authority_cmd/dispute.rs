//! `probity dispute` (R12.6): a finding admitted to correction disputed
//! with evidence, a reason, an actor and an authorization; counted, never a
//! silent dismissal.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use probity_core::digest::DomainSha256;
use probity_ports::review as drivers;

use crate::GlobalArgs;
use crate::clock::SystemClock;
use crate::output::{CliError, ErrorKind, Output};

use super::*;

#[derive(Debug, Args)]
pub struct DisputeArgs {
    /// The lineage (named: a dispute never guesses which review).
    #[arg(long)]
    pub lineage: String,
    /// The finding admitted to correction that is disputed (e.g. R3-001).
    #[arg(long, value_name = "ID")]
    pub finding: String,
    /// What the dispute rests on (non-empty bytes, hashed as they stream;
    /// `-` for stdin): why the finding is a false positive.
    #[arg(long, value_name = "FILE")]
    pub evidence: PathBuf,
    /// Why, in words (kept in the lineage; not blank).
    #[arg(long)]
    pub reason: String,
    /// Who decided (kept; not blank).
    #[arg(long)]
    pub actor: String,
    /// The maintainer authorization, as an escalated edge needs (kept; not
    /// blank).
    #[arg(long)]
    pub authorization: String,
}

/// `probity dispute` (R12.6).
pub fn dispute(global: &GlobalArgs, out: Output, args: &DisputeArgs) -> Result<ExitCode, CliError> {
    use probity_core::review::DISPUTE_DOMAIN;
    use probity_core::review::{FindingId, NonBlank};
    let lineage = parse_lineage(&args.lineage)?;
    let finding = FindingId::parse(&args.finding).map_err(|e| {
        CliError::new(
            ErrorKind::Usage,
            "bad_finding_id",
            format!("--finding {}: {e}", args.finding),
            "name the finding as `probity status --lineage L` lists it (e.g. R3-001)",
        )
    })?;
    let blank = |flag: &str, v: &str| {
        NonBlank::parse(v).map_err(|_| {
            CliError::new(
                ErrorKind::Usage,
                "blank_argument",
                format!("{flag} must not be blank"),
                format!("pass a non-blank {flag}"),
            )
        })
    };
    let reason = blank("--reason", &args.reason)?;
    let actor = blank("--actor", &args.actor)?;
    let authorization = blank("--authorization", &args.authorization)?;
    let mut hash = DomainSha256::new(DISPUTE_DOMAIN);
    let len = stream_input(&args.evidence, MAX_EVIDENCE_BYTES, |chunk| {
        hash.update(chunk)
    })?;
    if len == 0 {
        return Err(review_error(
            probity_core::review::TransitionError::EmptyEvidence.into(),
        ));
    }
    let ctx = open(global)?;
    let record = drivers::dispute(
        &ctx.store,
        &SystemClock,
        drivers::DisputeInput {
            lineage,
            finding,
            evidence_hash: hash.finish(),
            reason,
            actor,
            authorization,
        },
    )
    .map_err(review_error)?;
    let answer = FinalizeAnswer::of(&record, None);
    let disputes = answer.disputes;
    out.answer(&answer, || {
        format!(
            "{} is `{}` ({disputes} finding(s) disputed)\n  next: {}\n",
            record.state().lineage_id(),
            record.state().stage().name(),
            probity_core::review::next_sentence(&record)
        )
    });
    Ok(ExitCode::SUCCESS)
}
