//! `probity finalize` and `probity lens`: judgment into authority.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use probity_core::review::state::{Stage, StateRecord};
use probity_ports::review::{self as drivers, FinalizeInput, StoreError};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};

use super::*;

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
