//! `probity list` (issue 21 §8): the repository's lineages, so people can
//! see what is open. Read-only: the rows and their order are core's
//! (`listing`), the clock is the system's.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::review::ListRow;
use probity_ports::review::{self as drivers, Clock};

use crate::GlobalArgs;
use crate::clock::SystemClock;
use crate::output::{CliError, Output};

use super::*;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only the lineages still open (not final, not superseded).
    #[arg(long)]
    pub open: bool,
}

/// The `list` answer.
#[derive(Debug, Serialize)]
struct ListAnswer<'a> {
    /// How many lineages are listed.
    count: usize,
    /// How many of them are open.
    open: usize,
    /// When the ages were measured (UTC).
    now: &'a probity_core::review::Timestamp,
    lineages: Vec<&'a ListRow>,
}

pub fn list(global: &GlobalArgs, out: Output, args: &ListArgs) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let now = SystemClock.now();
    let rows = drivers::list(&ctx.repo, &ctx.store, &now).map_err(review_error)?;
    let shown: Vec<&ListRow> = rows.iter().filter(|r| r.open || !args.open).collect();
    let answer = ListAnswer {
        count: shown.len(),
        open: shown.iter().filter(|r| r.open).count(),
        now: &now,
        lineages: shown,
    };
    out.answer(&answer, || {
        if answer.lineages.is_empty() {
            return "no lineages: `probity start` begins a review\n".to_string();
        }
        let mut t = String::new();
        for r in &answer.lineages {
            let state = match (&r.superseded_by, &r.recovery_unfinished) {
                (Some(s), _) => format!("{} (superseded by {s})", r.state),
                (None, Some(p)) => format!(
                    "{} (recovery of {p} unfinished: rerun the same `probity recover --predecessor-lineage {p} ...` to finish it)",
                    r.state
                ),
                (None, None) => r.state.to_string(),
            };
            let commit = r
                .commit
                .as_ref()
                .map(|c| format!("  commit {c}"))
                .unwrap_or_default();
            t.push_str(&format!(
                "{}  {:<5} {}  gen {}  {}\n    base {}  candidate {}{commit}\n",
                r.lineage_id, r.age, state, r.generation, r.paths, r.base_tree, r.candidate_tree
            ));
        }
        t.push_str(&format!(
            "{} lineage(s), {} open; `probity status --lineage L` shows one\n",
            answer.count, answer.open
        ));
        t
    });
    Ok(ExitCode::SUCCESS)
}
