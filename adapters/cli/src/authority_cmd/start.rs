//! `probity start`: freeze the candidate.

use std::process::ExitCode;

use clap::Args;
use serde_json::{Value, json};

use probity_core::review::state::StateRecord;
use probity_ports::review::{self as drivers};

use crate::GlobalArgs;
use crate::clock::SystemClock;
use crate::output::{CliError, Output};

use super::*;

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The focus lens when the change is medium risk.
    #[arg(long, value_enum, default_value = "reliability")]
    pub focus: LensArg,
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
