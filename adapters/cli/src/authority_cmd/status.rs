//! `probity status`: a lineage and its applicability.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::GateProof;
use probity_core::review::Lens;
use probity_core::review::RiskLevel;
use probity_core::review::{Escalation, EscalationReason};
use probity_core::review::{LineageId, RepoPath};
use probity_core::review::{NextInput, Predecessor};
use probity_ports::review::{self as drivers, Applicability};

use crate::GlobalArgs;
use crate::output::{CliError, Output, wire_name};

use super::*;

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

/// The `status` answer: docs/review-authority.md "JSON answers".
#[derive(Debug, Serialize)]
struct StatusAnswer<'a> {
    lineage_id: &'a LineageId,
    state: &'static str,
    generation: u32,
    store_revision: Sha256Digest,
    applicability: Applicability,
    differing_paths: &'a [RepoPath],
    risk_level: RiskLevel,
    selected_lenses: &'a [Lens],
    correction_budget: u64,
    changed_paths: &'a [RepoPath],
    action: NextInput,
    /// Where the receipt is, once there is one.
    receipt_path: Option<String>,
    predecessor: Option<&'a Predecessor>,
    superseded_by: Option<&'a LineageId>,
    /// With `rebased`: the proof that carries the receipt to the live base.
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<&'a GateProof>,
    /// Why an escalated lineage escalated (`finalize`'s field).
    #[serde(skip_serializing_if = "Option::is_none")]
    escalation_reason: Option<EscalationReason>,
    /// The command that continues from a final lineage, filled in.
    #[serde(skip_serializing_if = "Option::is_none")]
    recover_command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_transition: Option<NextTransition>,
}

/// `status --next-transition` (R10.1): the next legal input and, for the
/// lineage current for the live candidate, its frozen inputs.
#[derive(Debug, Serialize)]
struct NextTransition {
    action: NextInput,
    message: String,
    #[serde(flatten)]
    inputs: FrozenInputs,
    /// For a lineage that is not current: the command that gives its
    /// frozen inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    export: Option<String>,
}

/// The frozen inputs of `--next-transition`: carried, unavailable (with
/// why), or omitted for a lineage that is not current.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum FrozenInputs {
    Carried {
        candidate_diff: Box<probity_core::review::CandidateDiff>,
        changed_path_manifest: Vec<probity_core::review::ManifestEntry>,
    },
    Unavailable {
        candidate_diff: InputError,
        changed_path_manifest: InputCode,
    },
    Omitted {
        candidate_diff: &'static str,
        changed_path_manifest: &'static str,
    },
}

#[derive(Debug, Serialize)]
struct InputError {
    error: String,
    message: String,
}

#[derive(Debug, Serialize)]
struct InputCode {
    error: String,
}

/// The answer when no lineage applies and a start would be refused: the
/// lineage to go on with (an open correction, an escalation) and how.
#[derive(Debug, Serialize)]
struct BlockedAnswer<'a> {
    lineage_id: &'a LineageId,
    state: Option<&'static str>,
    applicability: Option<Applicability>,
    action: String,
    message: &'a str,
}

/// The answer when no lineage applies.
#[derive(Debug, Serialize)]
struct NoLineageAnswer {
    lineage_id: Option<LineageId>,
    state: Option<&'static str>,
    applicability: Option<Applicability>,
    action: &'static str,
}

pub fn status(global: &GlobalArgs, out: Output, args: &StatusArgs) -> Result<ExitCode, CliError> {
    let lineage = args.lineage.as_deref().map(parse_lineage).transpose()?;
    let ctx = open(global)?;
    let st = drivers::status(&ctx.repo, &ctx.store, lineage.as_ref()).map_err(review_error)?;
    let Some(st) = st else {
        // No lineage applies. A start is the way on unless one would be
        // refused: then the pre-commit gate's advice names the correction
        // or escalation to go on with (the rule is core's). A gate that
        // cannot answer leaves the plain answer.
        let gate =
            drivers::validate_pre_commit(&ctx.repo, &ctx.store, &drivers::Delivery::Worktree).ok();
        if let Some(d) = gate.as_ref()
            && let Some(blocker) = probity_core::review::start_blocked_by(d)
        {
            let answer = BlockedAnswer {
                lineage_id: blocker,
                state: None,
                applicability: None,
                action: wire_name(d.next_action()),
                message: d.message(),
            };
            out.answer_next(
                &answer,
                || d.next_tool(),
                || {
                    format!(
                        "no review for the live candidate, and a new one would be refused: {}\n",
                        d.message()
                    )
                },
            );
            return Ok(ExitCode::SUCCESS);
        }
        let answer = NoLineageAnswer {
            lineage_id: None,
            state: None,
            applicability: None,
            action: "start_review",
        };
        out.answer_next(
            &answer,
            || Some(probity_core::review::start_review()),
            || "no review for the live candidate or its base: run `probity start`\n".into(),
        );
        return Ok(ExitCode::SUCCESS);
    };
    use probity_ports::review::{ReceiptStore, ResultStore};
    let s = st.record.state();
    let receipt_path = st
        .receipt
        .as_ref()
        .map(|_| ctx.store.receipt_location(s.lineage_id()));
    // The way on from a final lineage, filled in: only from the chain's
    // leaf, and for an approved one only when its scope really changed.
    let recover = probity_core::review::offered_recovery(
        &st.record,
        st.superseded_by.is_some(),
        st.applicability,
    );
    // The lens results `lens submit` kept, while the lineage awaits them:
    // once every selected lens has one, finalize is next (issue 26 §2).
    let kept: Vec<probity_core::review::Lens> =
        if s.next_action() == probity_core::review::NextInput::RunLenses {
            ctx.store
                .submitted_results(s.lineage_id())
                .map_err(|e| review_error(e.into()))?
                .into_iter()
                .map(|(l, _)| l)
                .collect()
        } else {
            Vec::new()
        };
    let sentence =
        probity_core::review::next_sentence_kept(&st.record, &kept, st.superseded_by.as_ref());
    let next_transition = args.next_transition.then(|| {
        // Frozen inputs only for the lineage that governs the live
        // candidate; any lineage's are available from export-context.
        // A superseded lineage is history: its inputs go through
        // export-context, not the next transition.
        let current = st.applicability == Applicability::Current && st.superseded_by.is_none();
        let (inputs, export) = if current {
            match drivers::export_context(&ctx.repo, &ctx.store, s.lineage_id()) {
                Ok(exported) => (
                    FrozenInputs::Carried {
                        candidate_diff: Box::new(exported.envelope.candidate_diff),
                        changed_path_manifest: exported.envelope.changed_path_manifest,
                    },
                    None,
                ),
                // The status still answers; the inputs say why they are absent.
                Err(e) => {
                    let err = review_error(e);
                    (
                        FrozenInputs::Unavailable {
                            candidate_diff: InputError {
                                error: err.code.clone(),
                                message: err.message,
                            },
                            changed_path_manifest: InputCode { error: err.code },
                        },
                        None,
                    )
                }
            }
        } else {
            (
                FrozenInputs::Omitted {
                    candidate_diff: "omitted",
                    changed_path_manifest: "omitted",
                },
                Some(format!(
                    "probity export-context --lineage {} --json",
                    s.lineage_id()
                )),
            )
        };
        NextTransition {
            action: s.next_action_kept(&kept),
            message: sentence.clone(),
            inputs,
            export,
        }
    });
    let answer = StatusAnswer {
        lineage_id: s.lineage_id(),
        state: s.stage().name(),
        generation: s.generation(),
        store_revision: st.record.revision(),
        applicability: st.applicability,
        differing_paths: &st.differing_paths,
        risk_level: s.frozen().risk_level,
        selected_lenses: &s.frozen().selected_lenses,
        correction_budget: s.frozen().correction_budget,
        changed_paths: &s.snapshot().paths,
        action: s.next_action_kept(&kept),
        receipt_path,
        predecessor: s.predecessor(),
        superseded_by: st.superseded_by.as_ref(),
        proof: st.proof.as_ref(),
        escalation_reason: s.stage().escalation().map(Escalation::reason),
        recover_command: recover,
        next_transition,
    };
    let next =
        || probity_core::review::record_next_tool(&st.record, &kept, st.superseded_by.as_ref());
    out.answer_next(&answer, next, || {
        let mut t = format!(
            "{} {} (generation {})\n  applicability: {}\n  store_revision: {}\n",
            s.lineage_id(),
            s.stage().name(),
            s.generation(),
            wire_name(st.applicability),
            st.record.revision()
        );
        if let Some(r) = answer.escalation_reason {
            t.push_str(&format!("  escalated: {} ({})\n", r.name(), r.explain()));
        }
        if let Some(p) = &st.proof {
            t.push_str(&format!(
                "  proof: rebased_onto (receipt base {}, live base {})\n",
                p.receipt_base, p.live_base
            ));
        }
        if let Some(p) = &s.predecessor() {
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
        if let Some(c) = &answer.recover_command {
            t.push_str(&format!(
                "  to continue: `{c}` ({})\n",
                probity_core::review::PERSON_VALUES
            ));
        }
        // The next step, always (issue 26 §2: `wrong_stage` sends people
        // here); `--next-transition` adds the frozen inputs.
        t.push_str(&format!("  next: {sentence}\n"));
        if let Some(next) = &answer.next_transition {
            match &next.inputs {
                FrozenInputs::Carried { candidate_diff, .. } => t.push_str(&format!(
                    "  frozen diff: {} bytes ({}); --json carries it\n",
                    candidate_diff.byte_size, candidate_diff.sha256
                )),
                FrozenInputs::Unavailable { candidate_diff, .. } => t.push_str(&format!(
                    "  frozen diff: unavailable ({}): {}\n",
                    candidate_diff.error, candidate_diff.message
                )),
                FrozenInputs::Omitted { .. } => t.push_str(&format!(
                    "  frozen diff: omitted (not current); `{}`\n",
                    next.export.as_deref().unwrap_or_default()
                )),
            }
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}
