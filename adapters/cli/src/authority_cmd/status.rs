//! `probity status`: a lineage and its applicability.

use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use probity_ports::review::{self as drivers, Status};

use crate::GlobalArgs;
use crate::output::{CliError, Output};

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

/// The status answer as JSON.
pub fn status_json(st: &Status, receipt_path: Option<String>) -> Value {
    let s = &st.record.state;
    let mut v = json!({
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
    });
    if let Some(p) = &st.proof {
        v["proof"] = json!(p);
    }
    v
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
    // The way on from a final lineage, filled in: only from the chain's
    // leaf, and for an approved one only when its scope really changed.
    let recover = probity_core::review::recovery::recover_command(&st.record).filter(|_| {
        st.superseded_by.is_none()
            && (!matches!(
                st.record.state.stage,
                probity_core::review::state::Stage::Approved { .. }
            ) || st.applicability == probity_ports::review::Applicability::ScopeChanged)
    });
    if let Some(c) = &recover {
        v["recover_command"] = json!(c);
    }
    if args.next_transition {
        let s = &st.record.state;
        let action = s.next_action();
        let mut next = json!({
            "action": action,
            "message": s.next_sentence(),
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
        if let Some(p) = &st.proof {
            t.push_str(&format!(
                "  proof: rebased_onto (receipt base {}, live base {})\n",
                p.receipt_base, p.live_base
            ));
        }
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
        if let Some(c) = &recover {
            t.push_str(&format!(
                "  to continue: `{c}` ({})\n",
                probity_core::review::recovery::PERSON_VALUES
            ));
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
