//! `probity export-context` (R10.2): a lineage's frozen review context,
//! read-only, for any lineage the store holds.

use probity_core::review::{EnvelopeError, MAX_ENVELOPE_BYTES, parse_envelope};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use probity_git::sign::{SshKeygen, classify_sign_error, signature_policy};
use probity_ports::review as drivers;

use crate::GlobalArgs;
use crate::authority_cmd::{open, parse_lineage, review_error};
use crate::output::{CliError, ErrorKind, Output};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The lineage whose frozen context to export (current or not).
    #[arg(long)]
    pub lineage: String,
    /// Print only the candidate diff's bytes (the decoded payload) on stdout.
    #[arg(long, conflicts_with = "json")]
    pub patch: bool,
}

pub fn run(global: &GlobalArgs, out: Output, args: &ExportArgs) -> Result<ExitCode, CliError> {
    if args.patch && global.json {
        return Err(CliError::new(
            ErrorKind::Usage,
            "usage",
            "--patch prints the diff bytes and cannot be combined with --json",
            "use --json for the envelope, or --patch for the bytes",
        ));
    }
    let lineage = parse_lineage(&args.lineage)?;
    let ctx = open(global)?;
    let drivers::Exported {
        envelope: export,
        diff,
    } = drivers::export_context(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    if args.patch {
        crate::output::emit_bytes(&diff);
        return Ok(ExitCode::SUCCESS);
    }
    let v = serde_json::to_value(&export).map_err(|e| {
        CliError::new(
            ErrorKind::Integrity,
            "serialize",
            e.to_string(),
            "report this as a bug",
        )
    })?;
    out.answer(&v, || {
        format!(
            "{} {} (generation {}, {})\n  base {} -> candidate {}\n  {} changed path(s); diff {} bytes, {}\n  derived with {} ({})\n  use --json for the payload, --patch for the diff\n",
            export.lineage_id,
            export.state,
            export.generation,
            serde_json::to_value(export.applicability)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            export.snapshot.base_tree,
            export.snapshot.candidate_tree,
            export.changed_path_manifest.len(),
            export.candidate_diff.byte_size,
            export.candidate_diff.sha256,
            export.derivation.command,
            export.derivation.git_version,
        )
    });
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AttestArgs {
    #[command(subcommand)]
    pub command: Option<AttestCommand>,
    /// The terminal lineage whose receipt to attest.
    #[arg(long, required = true)]
    pub lineage: Option<String>,
    /// Also write the canonical candidate manifest (the subject's bytes) to
    /// FILE, so a verifier can recompute the subject digest.
    #[arg(long, value_name = "FILE")]
    pub manifest_out: Option<PathBuf>,
    /// Print a DSSE envelope signed with the SSH key of `git config
    /// probity.signingKey` (else `user.signingKey` when `gpg.format=ssh`)
    /// instead of the bare statement.
    #[arg(long)]
    pub sign: bool,
}

#[derive(Debug, Subcommand)]
pub enum AttestCommand {
    /// Verify a signed attestation (a DSSE envelope) against the lineage's
    /// statement and the allowed signers: exit 0 allow, 1 deny.
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The envelope (`probity attest --lineage L --sign` output).
    #[arg(long, value_name = "FILE")]
    pub envelope: PathBuf,
    /// The lineage the envelope must attest (default: the one its statement
    /// names; the statement is re-derived from the store either way).
    #[arg(long)]
    pub lineage: Option<String>,
    /// Allowed signers in git's format (default: `git config
    /// probity.allowedSignersFile`).
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
}

/// `probity attest`: the receipt as an in-toto Statement v1 (canonical
/// JSON on stdout), or with `--sign` that statement in a signed DSSE
/// envelope; `probity attest verify` checks an envelope.
pub fn attest(global: &GlobalArgs, out: Output, args: &AttestArgs) -> Result<ExitCode, CliError> {
    if let Some(AttestCommand::Verify(v)) = &args.command {
        return verify(global, out, v);
    }
    let lineage = parse_lineage(args.lineage.as_deref().unwrap_or_default())?;
    let ctx = open(global)?;
    let attested = drivers::attest(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    // Sign before writing anything: a refused signature leaves no manifest.
    let printed = if args.sign {
        let port = SshKeygen::for_repo(&ctx.repo).map_err(config_error)?;
        drivers::sign_statement(&port, &attested.statement)
            .map_err(|e| signature_error(classify_sign_error(e)))?
    } else {
        attested.statement
    };
    if let Some(path) = &args.manifest_out {
        probity_scratch::output::write_output(path, &attested.manifest).map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "manifest_io",
                format!("{}: {e}", path.display()),
                "pass a writable --manifest-out path",
            )
        })?;
    }
    if args.sign {
        // Keep the envelope with the lineage, so `bundle export`, `publish`
        // and `push` carry it to servers that require signatures.
        keep_envelope(&ctx.store, &lineage, &printed)?;
    }
    // Exactly the canonical bytes (no trailing newline): what a signer signs,
    // or the envelope.
    write_stdout(&printed)?;
    Ok(ExitCode::SUCCESS)
}

/// Adds a signed envelope to the lineage's attestations in the store
/// (idempotent: an envelope already kept is not added twice).
fn keep_envelope(
    store: &probity_store::FileStore,
    lineage: &probity_core::review::LineageId,
    envelope: &[u8],
) -> Result<(), CliError> {
    use probity_ports::review::AttestationStore;
    let parsed: probity_core::review::DsseEnvelope =
        serde_json::from_slice(envelope).map_err(|e| {
            CliError::new(
                ErrorKind::Io,
                "bad_signature_output",
                format!("the signed envelope does not parse: {e}"),
                "report this as a bug; nothing was kept",
            )
        })?;
    store
        .add_attestations(lineage, &[parsed])
        .map_err(|e| review_error(e.into()))
}

fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    crate::output::emit_bytes(bytes);
    Ok(())
}

/// Reads the envelope file, refusing more than the envelope bound before
/// reading it whole.
/// An envelope file: a regular file only (a FIFO or a device is refused at
/// once), read under the envelope bound (one byte more, so an envelope just
/// over it is the envelope's own refusal).
fn read_envelope(path: &Path) -> Result<Vec<u8>, CliError> {
    let bytes = crate::authority_cmd::read_input(path, MAX_ENVELOPE_BYTES as u64 + 1)?.bytes;
    if bytes.len() > MAX_ENVELOPE_BYTES {
        return Err(signature_error(drivers::SignatureError::Envelope(
            EnvelopeError::TooLarge {
                size: bytes.len(),
                max: MAX_ENVELOPE_BYTES,
            },
        )));
    }
    Ok(bytes)
}

/// The lineage a statement's predicate names.
fn statement_lineage(envelope: &[u8]) -> Result<String, CliError> {
    let parsed = parse_envelope(envelope)
        .map_err(|e| signature_error(drivers::SignatureError::Envelope(e)))?;
    serde_json::from_slice::<serde_json::Value>(&parsed.payload)
        .ok()
        .and_then(|v| v["predicate"]["lineage_id"].as_str().map(String::from))
        .ok_or_else(|| {
            signature_error(drivers::SignatureError::Envelope(EnvelopeError::Malformed(
                "the payload is not a Probity statement (no predicate.lineage_id): pass --lineage"
                    .into(),
            )))
        })
}

/// `probity attest verify --envelope FILE [--lineage L]`.
fn verify(global: &GlobalArgs, out: Output, args: &VerifyArgs) -> Result<ExitCode, CliError> {
    let envelope = read_envelope(&args.envelope)?;
    let lineage = match &args.lineage {
        Some(l) => l.clone(),
        None => statement_lineage(&envelope)?,
    };
    let lineage = parse_lineage(&lineage)?;
    let ctx = open(global)?;
    let attested = drivers::attest(&ctx.repo, &ctx.store, &lineage).map_err(review_error)?;
    let mut policy = signature_policy(&ctx.repo).map_err(config_error)?;
    if let Some(f) = &args.allowed_signers {
        policy.allowed_signers = Some(f.clone());
    }
    let port = SshKeygen::for_repo(&ctx.repo).map_err(config_error)?;
    match drivers::verify_envelope(&port, &envelope, &attested.statement, &policy) {
        Ok(signer) => {
            let v = SignatureAnswer {
                decision: "allow",
                reason_code: "signature_valid",
                lineage_id: lineage.to_string(),
                signer: Some(&signer),
                action: "none",
                next_action: "none",
                message: format!("{} signed this lineage's statement", signer.principal),
            };
            out.answer(&v, || {
                format!(
                    "allow: {} attested by {} ({} {})\n",
                    lineage, signer.principal, signer.key_type, signer.keyid
                )
            });
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.is_denial() => {
            let next = signature_next_action(&e);
            let v = SignatureAnswer {
                decision: "deny",
                reason_code: e.code(),
                lineage_id: lineage.to_string(),
                signer: None,
                action: next,
                next_action: next,
                message: e.to_string(),
            };
            out.answer(&v, || {
                format!("deny [{}]: {}\n  next: {}\n", e.code(), e, next)
            });
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(signature_error(e)),
    }
}

/// `attest verify`'s answer: allow with the signer, or deny with the
/// reason and the next step.
#[derive(serde::Serialize)]
struct SignatureAnswer<'a> {
    decision: &'static str,
    reason_code: &'static str,
    lineage_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    signer: Option<&'a drivers::Signer>,
    /// The routing token (issue 26 §6); `next_action` is its alias, kept
    /// for one version.
    action: &'static str,
    next_action: &'static str,
    message: String,
}

fn signature_next_action(e: &drivers::SignatureError) -> &'static str {
    use drivers::SignatureError as S;
    match e {
        S::Missing => "sign it: probity attest --lineage <L> --sign > attestation.dsse.json",
        S::Invalid(_) => {
            "sign this lineage's statement again (probity attest --lineage <L> --sign); the envelope was signed over other bytes or altered"
        }
        S::SignerNotAllowed { .. } => {
            "sign with a key the allowed-signers file lists, or have its owner add the key"
        }
        S::Envelope(_) => "pass the envelope `probity attest --sign` printed, unaltered",
        S::NoAllowedSigners => {
            "git config probity.allowedSignersFile <file> (git's allowed-signers format), or pass --allowed-signers"
        }
        S::AllowedSigners(_) => {
            "pass a regular allowed-signers file (git's format) of at most 1 MiB, by --allowed-signers or git config probity.allowedSignersFile; nothing was checked"
        }
        S::NoSigningKey => {
            "git config probity.signingKey <path to an SSH key> (or user.signingKey with gpg.format=ssh)"
        }
        S::SigningKey(_) => {
            "point probity.signingKey (or user.signingKey) at your SSH key file: a regular file of at most 64 KiB; nothing was signed or written"
        }
        S::BadSignerOutput(_) | S::Tool(_) => {
            "check the key (ssh-keygen -Y sign -n probity -f <key> works by hand) and OpenSSH 8.9 or newer; nothing was written"
        }
        S::Serialize(_) => "report this as a bug",
    }
}

/// Maps a signature error that is not a denial to what the user sees.
fn signature_error(e: drivers::SignatureError) -> CliError {
    use drivers::SignatureError as S;
    let kind = match &e {
        S::Missing
        | S::Invalid(_)
        | S::SignerNotAllowed { .. }
        | S::Envelope(_)
        | S::AllowedSigners(_)
        | S::SigningKey(_) => ErrorKind::RejectedInput,
        S::NoAllowedSigners | S::NoSigningKey => ErrorKind::Repository,
        S::BadSignerOutput(_) | S::Tool(_) => ErrorKind::Io,
        S::Serialize(_) => ErrorKind::Integrity,
    };
    CliError::new(kind, e.code(), e.to_string(), signature_next_action(&e))
}

fn config_error(e: probity_git::GitError) -> CliError {
    CliError::new(
        ErrorKind::Repository,
        "repository_error",
        e.to_string(),
        "fix the git configuration named above (probity.signingKey, probity.allowedSignersFile, probity.requireSignature) and retry",
    )
}
