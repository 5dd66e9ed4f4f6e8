//! `probity completions SHELL` and `probity man`: shell completions and
//! man pages generated from the CLI definition itself (clap_complete,
//! clap_mangen), so they never drift from the commands.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory};

use crate::Cli;
use crate::output::{CliError, ErrorKind, Output, emit_bytes};

/// `probity completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell. Install, e.g.:
    /// bash `probity completions bash > ~/.local/share/bash-completion/completions/probity`;
    /// zsh `probity completions zsh > "${fpath[1]}/_probity"`;
    /// fish `probity completions fish > ~/.config/fish/completions/probity.fish`.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `probity man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command (`probity.1`, `probity-start.1`, ...)
    /// into this directory instead of printing `probity.1` (install:
    /// `probity man --out-dir ~/.local/share/man/man1`).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell`.
pub fn completions(args: &CompletionsArgs) -> Result<ExitCode, CliError> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "probity", &mut buf);
    emit_bytes(&buf);
    Ok(ExitCode::SUCCESS)
}

fn io(e: std::io::Error, what: &str) -> CliError {
    CliError::new(
        ErrorKind::Io,
        "man_io",
        format!("could not write the man page{what}: {e}"),
        "pass --out-dir an existing, writable directory",
    )
}

/// `probity man --json`: the page, as one document.
#[derive(Debug, serde::Serialize)]
struct ManPage<'a> {
    /// Always `probity.1`.
    name: &'static str,
    /// Its roff source.
    roff: std::borrow::Cow<'a, str>,
}

/// `probity man --out-dir DIR --json`: where the pages went.
#[derive(Debug, serde::Serialize)]
struct ManPagesWritten {
    /// The directory written into.
    out_dir: String,
}

/// Prints `probity.1`, or writes every page into `--out-dir`.
pub fn man(out: Output, args: &ManArgs) -> Result<ExitCode, CliError> {
    let cmd = Cli::command();
    match &args.out_dir {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut buf)
                .map_err(|e| io(e, ""))?;
            if out.json {
                // One JSON document, as every --json answer.
                out.answer(
                    &ManPage {
                        name: "probity.1",
                        roff: String::from_utf8_lossy(&buf),
                    },
                    String::new,
                );
            } else {
                emit_bytes(&buf);
            }
        }
        Some(dir) => {
            if !dir.is_dir() {
                return Err(CliError::new(
                    ErrorKind::Usage,
                    "bad_out_dir",
                    format!("{} is not a directory", dir.display()),
                    "create it first (e.g. mkdir -p ~/.local/share/man/man1)",
                ));
            }
            clap_mangen::generate_to(cmd, dir).map_err(|e| io(e, "s"))?;
            out.answer(
                &ManPagesWritten {
                    out_dir: dir.display().to_string(),
                },
                || format!("wrote the man pages into {}\n", dir.display()),
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
