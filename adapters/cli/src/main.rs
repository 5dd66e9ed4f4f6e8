//! `probity`: verifiable code review from the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod output;

use output::{CliError, Output};

const AFTER_HELP: &str = "\
Exit codes:
  0  ok, or the gate allows
  1  the gate denies
  2  usage error
  3  rejected input (nothing changed)
  4  conflict or contention (retry, or reload and decide)
  5  repository error (not a repository, git failed or too old)
  6  integrity error (stored authority failed validation: fail closed)
  7  I/O or internal error";

#[derive(Debug, Parser)]
#[command(name = "probity", version, about = "Verifiable code review: the model judges, native code builds authority, the gate re-derives the truth.", after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command accepts.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Directory to discover the repository from (default: the current one).
    #[arg(long, global = true, value_name = "PATH")]
    pub cwd: Option<PathBuf>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    // --- commands of other capabilities (context, snapshot, mcp, review) ---
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    let out = Output {
        json: cli.global.json,
    };
    let result: Result<ExitCode, CliError> = match cli.command {};
    match result {
        Ok(code) => code,
        Err(e) => out.error(&e),
    }
}
