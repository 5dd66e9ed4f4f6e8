//! `probity mcp --subject S`: the three snapshot tools over MCP stdio, one
//! budget per session. Stdout carries the protocol; the event log goes to
//! stderr or `--log-file`.
//!
//! `probity mcp --authority`: the review lifecycle as MCP tools
//! ([`crate::mcp_authority`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use probity_core::review::Checks;
use probity_mcp::{LogSink, SnapshotServer, serve_stdio};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};
use crate::snapshot_cmd::{load_config, open_subject};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// What to serve: index, worktree, disk or tree:<oid>.
    #[arg(long, value_name = "S", required_unless_present = "authority")]
    pub subject: Option<String>,
    /// Serve the review lifecycle instead (start, status, lens_context,
    /// lens_submit, finalize, validate), with the answers of each command's
    /// `--json`. Takes no --subject, --log-file or --config: the lifecycle
    /// tools keep no event log and read no snapshot configuration (their
    /// record is the review store).
    #[arg(long, conflicts_with_all = ["subject", "log_file", "config"])]
    pub authority: bool,
    /// Let the lifecycle's `finalize` run the argv an agent gives as
    /// `evidence_cmd` (with --authority only). Without it the server runs
    /// no command: the harness runs the check and the agent gives its
    /// output as `evidence`. Allow it only where the agent may run
    /// commands anyway.
    #[arg(long, conflicts_with_all = ["subject", "log_file", "config"])]
    pub allow_evidence_cmd: bool,
    /// Append the event log (JSON lines) to this file instead of stderr
    /// (the reviewer tools only; not with --authority).
    #[arg(long, value_name = "F")]
    pub log_file: Option<PathBuf>,
    /// A flat JSON configuration (reviewSnapshotMaxCalls, ...; the reviewer
    /// tools only; not with --authority).
    #[arg(long, value_name = "F")]
    pub config: Option<PathBuf>,
}

pub fn run(global: &GlobalArgs, _out: Output, args: &McpArgs) -> Result<ExitCode, CliError> {
    let Some(subject) = args.subject.as_deref().filter(|_| !args.authority) else {
        let served = probity_mcp::serve_handler_stdio(crate::mcp_authority::AuthorityTools {
            cwd: global.cwd.clone(),
            checks: if args.allow_evidence_cmd {
                Checks::ByServer
            } else {
                Checks::ByHarness
            },
        });
        return served_exit(served);
    };
    let config = load_config(args.config.as_deref())?;
    let reader = open_subject(global, subject)?;
    let log: LogSink = crate::snapshot_cmd::open_log(args.log_file.as_deref())?;
    let server = SnapshotServer::new(reader, config.budget(), log);
    served_exit(serve_stdio(server))
}

/// How serving ended: an answer that could not be written to stdout is
/// the failed write every command reports (exit 7; a closed pipe quietly,
/// any other failure one `error[stdout]` line), after which nothing more
/// was served; any other failure is `mcp_failed`.
fn served_exit(served: Result<(), probity_mcp::ServeError>) -> Result<ExitCode, CliError> {
    match served {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(probity_mcp::ServeError::Output(e)) => {
            crate::output::note_stdout_error(&e);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(CliError::new(
            ErrorKind::Io,
            "mcp_failed",
            e.to_string(),
            "check that the client speaks MCP over stdio",
        )),
    }
}
