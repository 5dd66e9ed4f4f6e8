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
    /// Review a committed change: base = the parent commit's tree (a root
    /// commit: the empty tree), candidate = the commit's tree.
    #[arg(long, value_name = "REV", conflicts_with_all = ["range", "history"])]
    pub commit: Option<String>,
    /// Review everything REV's history publishes, as one change: base = the
    /// empty tree, candidate = REV's tree. What a first publication of that
    /// history to an empty remote is authorized by, when every blob the
    /// history carries is a blob of that tree (else squash the history).
    #[arg(long, value_name = "REV", conflicts_with = "range")]
    pub history: Option<String>,
    /// Review a stack: one lineage per commit of A..B (reachable from B,
    /// not A), oldest first, each bound to (parent tree, tree).
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
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
        "message": s.next_sentence(),
    })
}

pub fn start(global: &GlobalArgs, out: Output, args: &StartArgs) -> Result<ExitCode, CliError> {
    if let Some(spec) = &args.range {
        return start_range(global, out, args, spec);
    }
    if let Some(rev) = &args.commit {
        return start_commit(global, out, args, rev);
    }
    if let Some(rev) = &args.history {
        let ctx = open(global)?;
        let c = drivers::start_history(&ctx.repo, &ctx.store, &SystemClock, args.focus.into(), rev)
            .map_err(review_error)?;
        let v = commit_json(&c);
        out.answer(&v, || human_commit(&c));
        return Ok(ExitCode::SUCCESS);
    }
    let ctx = open(global)?;
    let started = drivers::start(&ctx.repo, &ctx.store, &SystemClock, args.focus.into())
        .map_err(review_error)?;
    let v = start_json(&started.record, started.resumed);
    out.answer(&v, || human_start(&started.record, started.resumed));
    Ok(ExitCode::SUCCESS)
}

/// The JSON entry of one commit `start --commit` / `--range` handled: the
/// start answer plus `commit` and `parent`; a commit that changes no bytes
/// has `state: "no_change"` and no lineage.
fn commit_json(c: &drivers::CommitStart) -> Value {
    match &c.started {
        Some(started) => {
            let mut v = start_json(&started.record, started.resumed);
            v["commit"] = json!(c.commit);
            v["parent"] = json!(c.parent);
            v
        }
        None => json!({
            "commit": c.commit,
            "parent": c.parent,
            "lineage_id": null,
            "state": "no_change",
            "action": "none",
            "message": "this commit changes no bytes (its tree is its parent's): nothing to review; every gate allows it as no_change",
        }),
    }
}

fn start_commit(
    global: &GlobalArgs,
    out: Output,
    args: &StartArgs,
    rev: &str,
) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let c = drivers::start_commit(&ctx.repo, &ctx.store, &SystemClock, args.focus.into(), rev)
        .map_err(review_error)?;
    let v = commit_json(&c);
    out.answer(&v, || human_commit(&c));
    Ok(ExitCode::SUCCESS)
}

fn start_range(
    global: &GlobalArgs,
    out: Output,
    args: &StartArgs,
    spec: &str,
) -> Result<ExitCode, CliError> {
    let (base, tip) = super::validate::parse_range(spec)?;
    let ctx = open(global)?;
    let commits = drivers::start_range(
        &ctx.repo,
        &ctx.store,
        &SystemClock,
        args.focus.into(),
        &base,
        &tip,
    )
    .map_err(review_error)?;
    let v = json!({
        "range": spec,
        "lineages": commits.iter().map(commit_json).collect::<Vec<_>>(),
    });
    out.answer(&v, || {
        let mut t = format!("{spec}: {} commit(s), oldest first\n", commits.len());
        for c in &commits {
            t.push_str(&human_commit(c));
        }
        t
    });
    Ok(ExitCode::SUCCESS)
}

fn human_commit(c: &drivers::CommitStart) -> String {
    match &c.started {
        Some(s) => format!("commit {}\n{}", c.commit, human_start(&s.record, s.resumed)),
        None => format!("commit {}: changes no bytes, nothing to review\n", c.commit),
    }
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
    t.push_str(&format!("  next: {}\n", s.next_sentence()));
    t
}
