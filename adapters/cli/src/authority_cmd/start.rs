//! `probity start`: freeze the candidate.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::{CommitId, LineageId, RepoPath, TreeId};
use probity_core::review::{LensBinding, NextInput, Predecessor, StateRecord};
use probity_core::review::{NextTool, Surface, record_next_tool};
use probity_core::review::{RiskLevel, RiskReason};
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

/// The `start` answer (and `recover`'s, for the successor): the names
/// other tools read (docs/review-authority.md "JSON answers"); keep them.
#[derive(Debug, Serialize)]
pub struct StartAnswer<'a> {
    lineage_id: &'a LineageId,
    state: &'static str,
    /// True when an existing lineage for this candidate was resumed.
    resumed: bool,
    risk_level: RiskLevel,
    risk_reasons: &'a [RiskReason],
    selected_lenses: &'a [Lens],
    lens_bindings: Vec<LensBinding>,
    changed_files: u64,
    /// The authored lines the budget derives from.
    changed_lines: u64,
    correction_budget: u64,
    base_tree: &'a TreeId,
    candidate_tree: &'a TreeId,
    paths_digest: &'a Sha256Digest,
    /// Every path the candidate froze, sorted.
    paths: &'a [RepoPath],
    intended_untracked: &'a [RepoPath],
    policy_hash: &'a Sha256Digest,
    store_revision: Sha256Digest,
    generation: u32,
    predecessor: Option<&'a Predecessor>,
    action: NextInput,
    message: String,
}

impl<'a> StartAnswer<'a> {
    /// The answer for a lineage's record.
    pub fn of(record: &'a StateRecord, resumed: bool) -> Self {
        let s = record.state();
        StartAnswer {
            lineage_id: s.lineage_id(),
            state: s.stage().name(),
            resumed,
            risk_level: s.frozen().risk_level,
            risk_reasons: &s.frozen().risk_reasons,
            selected_lenses: &s.frozen().selected_lenses,
            lens_bindings: s.lens_bindings(),
            changed_files: s.frozen().changed_files,
            changed_lines: s.frozen().authored_lines,
            correction_budget: s.frozen().correction_budget,
            base_tree: &s.snapshot().base_tree,
            candidate_tree: &s.snapshot().candidate_tree,
            paths_digest: &s.snapshot().paths_digest,
            paths: &s.snapshot().paths,
            intended_untracked: &s.snapshot().intended_untracked,
            policy_hash: &s.frozen().policy_hash,
            store_revision: record.revision(),
            generation: s.generation(),
            predecessor: s.predecessor(),
            action: s.next_action(),
            message: start_sentence(record),
        }
    }
}

/// What to do after start: the state's next step and, while lenses are
/// awaited, that `probity review --lineage L` runs them through the
/// configured model instead of by hand.
fn start_sentence(record: &StateRecord) -> String {
    let s = record.state();
    let mut sentence = probity_core::review::next_sentence(record);
    if s.next_action() == NextInput::RunLenses && !s.frozen().selected_lenses.is_empty() {
        sentence.push_str(&format!(
            "; or let the configured model run them and finalize: `probity review --lineage {}`",
            s.lineage_id()
        ));
    }
    sentence
}

/// One commit `start --commit`, `--history` or `--range` handled: the
/// start answer plus `commit` and `parent`, or, for a commit that changes
/// no bytes, `state: "no_change"` and no lineage.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum CommitAnswer<'a> {
    Started {
        commit: &'a CommitId,
        parent: Option<&'a CommitId>,
        #[serde(flatten)]
        start: StartAnswer<'a>,
    },
    NoChange {
        commit: &'a CommitId,
        parent: Option<&'a CommitId>,
        lineage_id: Option<&'a LineageId>,
        state: &'static str,
        action: &'static str,
        message: &'static str,
    },
}

impl<'a> CommitAnswer<'a> {
    fn of(c: &'a drivers::CommitStart) -> Self {
        Self::on(c, Surface::Cli)
    }

    /// [`Self::of`] as `surface` says it: on MCP a started lineage's
    /// `message` is its next step's tool call (D-R109), as an answer's
    /// top-level one is (`Output::answer_next`); a range's answer nests
    /// one per commit.
    fn on(c: &'a drivers::CommitStart, surface: Surface) -> Self {
        match &c.started {
            Some(started) => CommitAnswer::Started {
                commit: &c.commit,
                parent: c.parent.as_ref(),
                start: {
                    let mut start = StartAnswer::of(&started.record, started.resumed);
                    if surface == Surface::Mcp
                        && let Some(step) = record_next_tool(&started.record, &[], None)
                    {
                        start.message = step.message;
                    }
                    start
                },
            },
            None => CommitAnswer::NoChange {
                commit: &c.commit,
                parent: c.parent.as_ref(),
                lineage_id: None,
                state: "no_change",
                action: "none",
                message: "this commit changes no bytes (its tree is its parent's): nothing to review; every gate allows it as no_change",
            },
        }
    }
}

/// `start --range`: one commit answer per commit, oldest first.
#[derive(Debug, Serialize)]
struct RangeAnswer<'a> {
    range: &'a str,
    lineages: Vec<CommitAnswer<'a>>,
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
        let c = drivers::start_history(&ctx.repo, &ctx.store, &SystemClock, args.focus.into(), rev);
        return answer_commit_start(out, c);
    }
    // The candidate is read first: HEAD's tree comes with discovery.
    let ctx = super::open_reading_head(global)?;
    let started = drivers::start(&ctx.repo, &ctx.store, &SystemClock, args.focus.into())
        .map_err(review_error)?;
    out.answer_next(
        &StartAnswer::of(&started.record, started.resumed),
        || record_next_tool(&started.record, &[], None),
        || human_start(&started.record, started.resumed),
    );
    Ok(ExitCode::SUCCESS)
}

/// Answers a commit start (`--commit` or `--history`), or its error.
fn answer_commit_start(
    out: Output,
    c: Result<drivers::CommitStart, drivers::ReviewError>,
) -> Result<ExitCode, CliError> {
    let c = c.map_err(review_error)?;
    out.answer_next(
        &CommitAnswer::of(&c),
        || commit_next_tool(&c),
        || human_commit(&c),
    );
    Ok(ExitCode::SUCCESS)
}

/// A commit start's next step on the MCP surface: its lineage's (none for
/// a commit that changes no bytes).
fn commit_next_tool(c: &drivers::CommitStart) -> Option<NextTool> {
    c.started
        .as_ref()
        .and_then(|s| record_next_tool(&s.record, &[], None))
}

fn start_commit(
    global: &GlobalArgs,
    out: Output,
    args: &StartArgs,
    rev: &str,
) -> Result<ExitCode, CliError> {
    let ctx = open(global)?;
    let c = drivers::start_commit(&ctx.repo, &ctx.store, &SystemClock, args.focus.into(), rev);
    answer_commit_start(out, c)
}

fn start_range(
    global: &GlobalArgs,
    out: Output,
    args: &StartArgs,
    spec: &str,
) -> Result<ExitCode, CliError> {
    let (base, tip) = super::receive_refs::parse_range(spec)?;
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
    let answer = RangeAnswer {
        range: spec,
        lineages: commits
            .iter()
            .map(|c| CommitAnswer::on(c, out.surface))
            .collect(),
    };
    // The oldest commit's review with a next step goes first.
    let next = || commits.iter().find_map(commit_next_tool);
    out.answer_next(&answer, next, || {
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

/// How many frozen paths the text answer names one per line (a screenful);
/// the rest are counted, and `--json` lists them all.
const SHOWN_FROZEN_PATHS: usize = 20;

/// The paths a start froze, one per line, an intended untracked file
/// marked, collapsed past a screenful: a stray file is named, never only
/// counted.
fn frozen_paths(paths: &[RepoPath], untracked: &[RepoPath]) -> String {
    let mut t = String::from("  paths:\n");
    for p in paths.iter().take(SHOWN_FROZEN_PATHS) {
        let mark = if untracked.contains(p) {
            " (new, untracked)"
        } else {
            ""
        };
        t.push_str(&format!("    {p}{mark}\n"));
    }
    let more = paths.len().saturating_sub(SHOWN_FROZEN_PATHS);
    if more > 0 {
        t.push_str(&format!(
            "    +{more} more (`probity start --json` lists every path)\n"
        ));
    }
    t
}

fn human_start(record: &StateRecord, resumed: bool) -> String {
    let s = record.state();
    let mut t = format!(
        "{} {} ({})\n  risk: {} [{}]\n  changed: {} file(s), {} authored line(s); correction budget {}\n",
        if resumed { "resumed" } else { "started" },
        s.lineage_id(),
        s.stage().name(),
        s.frozen().risk_level.name(),
        s.frozen()
            .risk_reasons
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        s.frozen().changed_files,
        s.frozen().authored_lines,
        s.frozen().correction_budget,
    );
    t.push_str(&frozen_paths(
        &s.snapshot().paths,
        &s.snapshot().intended_untracked,
    ));
    if s.frozen().selected_lenses.is_empty() {
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
    t.push_str(&format!("  next: {}\n", start_sentence(record)));
    t
}
