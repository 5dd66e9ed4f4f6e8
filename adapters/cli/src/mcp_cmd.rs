//! `probity mcp --subject S`: the three snapshot tools over MCP stdio, one
//! budget per session. Stdout carries the protocol; the event log goes to
//! stderr or `--log-file`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use probity_mcp::{LogSink, SnapshotServer, serve_stdio};

use crate::GlobalArgs;
use crate::output::{CliError, ErrorKind, Output};
use crate::snapshot_cmd::{load_config, open_subject};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// What to serve: index, worktree, disk or tree:<oid>.
    #[arg(long, value_name = "S")]
    pub subject: String,
    /// Append the event log (JSON lines) to this file instead of stderr.
    #[arg(long, value_name = "F")]
    pub log_file: Option<PathBuf>,
    /// A flat JSON configuration (reviewSnapshotMaxCalls, ...).
    #[arg(long, value_name = "F")]
    pub config: Option<PathBuf>,
}

pub fn run(global: &GlobalArgs, _out: Output, args: &McpArgs) -> Result<ExitCode, CliError> {
    let config = load_config(args.config.as_deref())?;
    let reader = open_subject(global, &args.subject)?;
    let log: LogSink = crate::snapshot_cmd::open_log(args.log_file.as_deref())?;
    let server = SnapshotServer::new(reader, config.budget(), log);
    serve_stdio(server).map_err(|e| {
        CliError::new(
            ErrorKind::Io,
            "mcp_failed",
            e.to_string(),
            "check that the client speaks MCP over stdio",
        )
    })?;
    Ok(ExitCode::SUCCESS)
}
