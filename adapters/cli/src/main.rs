//! `probity`: verifiable code review from the command line.

// Doc comments on the argument types are `--help` text for people
// (`tree:<oid>`), not rustdoc HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod authority_cmd;
mod bundle_cmd;
mod clock;
mod context_cmd;
mod context_fetch;
mod context_run;
mod context_sandbox;
mod context_shared;
mod demo;
mod export_cmd;
mod hooks_cmd;
mod init_cmd;
mod mcp_authority;
mod mcp_cmd;
mod output;
mod progress;
mod push_cmd;
mod recovery_cmd;
mod report_cmd;
mod review_cmd;
mod scripted_model;
mod server_hook_cmd;
mod shell_cmd;
mod shelter_cmd;
mod snapshot_cmd;

use output::{CliError, Output};

const AFTER_HELP: &str = "\
Exit codes:
  0  ok, or the gate allows
  1  the gate denies, or the check --evidence-cmd ran failed (the answer says so)
  2  usage error
  3  rejected input (nothing changed)
  4  conflict or contention (retry, or reload and decide)
  5  repository error (not a repository, git failed or too old)
  6  integrity error (stored authority failed validation: fail closed)
  7  I/O or internal error (or the answer could not be written to stdout)";

#[derive(Debug, Parser)]
#[command(name = "probity", version = env!("PROBITY_LONG_VERSION"), about = "Verifiable code review: the model judges, native code builds authority, the gate re-derives the truth.", after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command accepts.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Directory to discover the repository from (default: the current
    /// one); `schema`, `demo`, `man` and `completions` read no repository and ignore it.
    #[arg(long, global = true, value_name = "PATH")]
    pub cwd: Option<PathBuf>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Freeze the candidate: trees, paths, risk, lenses and correction budget.
    Start(authority_cmd::StartArgs),
    /// Turn lens results and independent evidence into authority (and a receipt).
    Finalize(authority_cmd::FinalizeArgs),
    /// Dispute a finding admitted to correction as a false positive (R12.6),
    /// bound to evidence and a maintainer's authorization.
    Dispute(authority_cmd::DisputeArgs),
    /// Re-derive live Git state at a delivery boundary: allow or deny.
    Validate(authority_cmd::ValidateArgs),
    /// Show a lineage's state and whether it applies to the live candidate.
    Status(authority_cmd::StatusArgs),
    /// List the repository's lineages: state, paths, age, base and
    /// candidate trees (open ones first, newest first).
    List(authority_cmd::ListArgs),
    /// Show what the store keeps beside a lineage's authority (read-only):
    /// `show evidence`, the last check `--evidence-cmd` ran and its output.
    #[command(subcommand)]
    Show(authority_cmd::ShowCommand),
    /// Invalidate a pristine review (no lens result yet), keeping its snapshot.
    Invalidate(recovery_cmd::InvalidateArgs),
    /// Create the audited successor of a final lineage (generation + 1).
    Recover(recovery_cmd::RecoverArgs),
    /// Repair ceremony (R9.4): quarantine the only anomaly of its class,
    /// byte-preserving, with an audit record and a maintainer's
    /// authorization.
    Repair(recovery_cmd::RepairArgs),
    /// Burn an approved lineage whose authority was used: a tombstone stays
    /// (it then answers `consumed`); Git objects are untouched.
    Burn(recovery_cmd::BurnArgs),
    /// Write a lineage's review as Markdown (a pull-request comment, a CI
    /// job summary) or SARIF 2.1.0; --range A..B reports what
    /// refs/notes/probity carries for a range's commits.
    Report(report_cmd::ReportArgs),
    /// Show a lineage's history as a timeline: generations, transitions,
    /// who authorized what, the commits delivered.
    Log(report_cmd::LogArgs),
    /// Export a lineage's frozen review context (read-only; any lineage).
    ExportContext(export_cmd::ExportArgs),
    /// Print a terminal lineage's receipt as an in-toto Statement v1.
    Attest(export_cmd::AttestArgs),
    /// Print the JSON Schema 2020-12 of a role or authority document.
    Schema(authority_cmd::SchemaArgs),
    /// The repository policy (.probity/policy.json): check a file, or show
    /// what a base's policy turns on and off.
    #[command(subcommand)]
    Policy(authority_cmd::PolicyCommand),
    /// Lens capture helpers.
    #[command(subcommand)]
    Lens(authority_cmd::LensCommand),
    /// Set a repository up in one step: the managed hooks, the refspecs to
    /// push, the default policy with --policy; says what it did and how to
    /// undo it. A second run changes nothing.
    Init(init_cmd::InitArgs),
    /// Install or remove the managed pre-commit and pre-push hooks that run
    /// the gates.
    #[command(subcommand)]
    Hooks(hooks_cmd::HooksCommand),
    /// Move review authority between clones as canonical bundles (R11.1).
    #[command(subcommand)]
    Bundle(bundle_cmd::BundleCommand),
    /// Write the review bundles of reviewed delivery commits as Git notes
    /// (refs/notes/probity).
    Publish(bundle_cmd::PublishArgs),
    /// Publish, then `git push --atomic` the refspecs with refs/notes/probity.
    Push(push_cmd::PushArgs),
    /// Run the five actions on a scratch repository, printing every step.
    Demo(demo::DemoArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell), generated from this CLI's definition.
    Completions(shell_cmd::CompletionsArgs),
    /// Print the man page (probity.1), or write every command's page with
    /// --out-dir.
    Man(shell_cmd::ManArgs),
    // --- commands of other capabilities (context, snapshot, mcp, review) ---
    /// Entity-context-snapshot v1: assemble a tree, verify it against its retained digest.
    #[command(subcommand)]
    Context(context_cmd::ContextCommand),
    /// The reviewer's bounded tools over a snapshot: read, grep, list.
    Snapshot(snapshot_cmd::SnapshotArgs),
    /// Serve over MCP stdio: the reviewer tools (read, grep, list) over
    /// --subject S, one budget per session; or, with --authority, the
    /// review lifecycle (start, status, lens_context, lens_submit,
    /// finalize, validate).
    Mcp(mcp_cmd::McpArgs),
    /// Review with a model (openai, anthropic, or an agent command:
    /// reviewModelProvider): --lineage L runs a frozen lineage's lenses,
    /// refuter and validator and finalizes them; --subject S --prompt F
    /// runs the free-form tool-use review.
    Review(review_cmd::ReviewArgs),
}

/// A clap error as one usage error: the whole first paragraph of clap's
/// text (for a missing argument the argument is on its second line), and
/// the argument itself from clap's error context.
fn usage_error(e: &clap::Error) -> CliError {
    use clap::error::{ContextKind, ContextValue};
    let text = e.to_string();
    let message = text
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let message = message.trim_start_matches("error: ").to_string();
    let argument = e.get(ContextKind::InvalidArg).map(|v| match v {
        ContextValue::Strings(v) => v.join(", "),
        other => other.to_string(),
    });
    let value = e.get(ContextKind::InvalidValue).map(|v| v.to_string());
    // The subcommand the user typed, for its own --help.
    let help = {
        use clap::CommandFactory;
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        std::env::args()
            .skip(1)
            .find(|a| names.contains(a))
            .map_or("probity --help".to_string(), |c| {
                format!("probity {c} --help")
            })
    };
    use clap::error::ErrorKind as Clap;
    let next = match (e.kind(), &argument, &value) {
        (Clap::UnknownArgument, Some(a), _) => {
            format!("remove {a}: it is not an argument here (see `{help}`)")
        }
        // `validate` without a gate: name both spellings of one.
        (Clap::MissingRequiredArgument, Some(a), _) if a.starts_with("--gate") => format!(
            "name the gate: `probity validate pre-commit|pre-push|pre-pr|release`, or pass {a} (see `{help}`)"
        ),
        (Clap::MissingRequiredArgument, Some(a), _) => format!("pass {a} (see `{help}`)"),
        (_, Some(a), Some(v)) => format!("fix {a}: `{v}` is not a value it takes (see `{help}`)"),
        (_, Some(a), None) => format!("fix {a} (see `{help}`)"),
        _ => format!("see `{help}`"),
    };
    let mut err = CliError::new(output::ErrorKind::Usage, "usage", message, next);
    err.argument = argument;
    err
}

fn main() -> ExitCode {
    // Internal, outside the CLI's definition (no help, completion or man
    // page names it): before any of Probity's set-up, nothing of which
    // runs in it.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == shelter_cmd::NAME)
    {
        return shelter_cmd::run(std::env::args_os().skip(2).collect());
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    // Printed by clap, but a failed write is what it is for
                    // every answer: exit 7, quiet for a closed pipe.
                    if let Err(err) = e.print() {
                        output::note_stdout_error(&err);
                    }
                    return output::stdout_exit(ExitCode::SUCCESS);
                }
                _ => ExitCode::from(2),
            };
            // A usage error is still one JSON document when --json was asked,
            // naming the argument that is missing or bad.
            if std::env::args_os().any(|a| a == "--json") {
                return output::stdout_exit(
                    Output {
                        json: true,
                        surface: Default::default(),
                        checks: Default::default(),
                    }
                    .error(&usage_error(&e)),
                );
            }
            let _ = e.print();
            return code;
        }
    };
    let out = Output {
        json: cli.global.json,
        surface: Default::default(),
        checks: Default::default(),
    };
    // Ctrl-C, SIGTERM and SIGHUP still end Probity at once, but first stop
    // its children and remove its temporary files (an index copy in the git
    // dir, a scratch export, a store temp file). Without the handlers
    // (never expected), the next run's scavenging removes them instead.
    let _ = probity_scratch::signals::install();
    // Long operations say so on a terminal's stderr (never otherwise);
    // interactive and streaming commands keep their stderr to themselves.
    let progress = match &cli.command {
        Command::Mcp(_)
        | Command::Review(_)
        | Command::Demo(_)
        | Command::Schema(_)
        | Command::Completions(_)
        | Command::Man(_) => None,
        _ => Some(progress::Progress::start()),
    };
    let result = dispatch(&cli, out);
    drop(progress);
    let code = match result {
        Ok(code) => code,
        Err(e) => out.error(&e),
    };
    output::stdout_exit(code)
}

/// Runs one parsed command line (what `main` runs, and what `probity mcp
/// --authority` runs for each tool call, its answer captured).
fn dispatch(cli: &Cli, out: Output) -> Result<ExitCode, CliError> {
    run_command(cli, out).map_err(authority_cmd::explain_old_git)
}

fn run_command(cli: &Cli, out: Output) -> Result<ExitCode, CliError> {
    match &cli.command {
        Command::Start(a) => authority_cmd::start(&cli.global, out, a),
        Command::Finalize(a) => authority_cmd::finalize(&cli.global, out, a),
        Command::Dispute(a) => authority_cmd::dispute(&cli.global, out, a),
        Command::Validate(a) => authority_cmd::validate(&cli.global, out, a),
        Command::Status(a) => authority_cmd::status(&cli.global, out, a),
        Command::List(a) => authority_cmd::list(&cli.global, out, a),
        Command::Show(c) => authority_cmd::show(&cli.global, out, c),
        Command::Invalidate(a) => recovery_cmd::invalidate(&cli.global, out, a),
        Command::Recover(a) => recovery_cmd::recover(&cli.global, out, a),
        Command::Repair(a) => recovery_cmd::repair(&cli.global, out, a),
        Command::Burn(a) => recovery_cmd::burn(&cli.global, out, a),
        Command::Report(a) => report_cmd::report(&cli.global, out, a),
        Command::Log(a) => report_cmd::log(&cli.global, out, a),
        Command::ExportContext(a) => export_cmd::run(&cli.global, out, a),
        Command::Attest(a) => export_cmd::attest(&cli.global, out, a),
        Command::Schema(a) => authority_cmd::schema(out, a),
        Command::Policy(c) => authority_cmd::policy(&cli.global, out, c),
        Command::Lens(c) => authority_cmd::lens(&cli.global, out, c),
        Command::Init(a) => init_cmd::init(&cli.global, out, a),
        Command::Hooks(hooks_cmd::HooksCommand::Install(s)) if s.server => {
            server_hook_cmd::install_server(&cli.global, out)
        }
        Command::Hooks(hooks_cmd::HooksCommand::Uninstall(s)) if s.server => {
            server_hook_cmd::uninstall_server(&cli.global, out)
        }
        Command::Hooks(c) => hooks_cmd::run(&cli.global, out, c),
        Command::Bundle(c) => bundle_cmd::bundle(&cli.global, out, c),
        Command::Publish(a) => bundle_cmd::publish(&cli.global, out, a),
        Command::Push(a) => push_cmd::push(&cli.global, out, a),
        Command::Demo(a) => demo::run(out, a),
        Command::Completions(a) => shell_cmd::completions(a),
        Command::Man(a) => shell_cmd::man(out, a),
        Command::Snapshot(a) => snapshot_cmd::run(&cli.global, out, a),
        Command::Mcp(a) => mcp_cmd::run(&cli.global, out, a),
        Command::Review(a) => review_cmd::run(&cli.global, out, a),
        Command::Context(c) => context_cmd::run(&cli.global, out, c),
    }
}
