//! What final evidence reports (R4.4).
//!
//! Final evidence is bytes from a mechanism independent of the reviewer. Most
//! of it is opaque to Probity (a test log, a CI artifact): its presence is
//! the claim, and its hash is bound into the receipt. One form is not
//! opaque: the command evidence document, which `finalize --evidence-cmd`
//! writes for the check it ran and a user may hand over as a file. It says
//! whether the check passed, and a check that failed never approves: it
//! escalates, with its document's hash recorded.
//!
//! Two versions are read: `probity-command-evidence/v1` (argv, exit, output
//! hash: what earlier releases wrote; read as before) and
//! `probity-command-evidence/v2`, which also names the git `tree` the check
//! ran on (what `--evidence-cmd` writes now, the check having run in a
//! scratch checkout of that tree). A v2 document is taken only by the
//! lineage whose final candidate tree it names
//! ([`crate::review::state::ReviewState::accept_evidence_reading`]).

use crate::review::ErrorClass;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::{CanonicalError, canonical_bytes, canonical_digest, parse_strict};
use crate::digest::{Domain, Sha256Digest};
use crate::review::ids::TreeId;

/// Whether `bytes` hold a member `"schema"` whose value is a command
/// evidence schema label (either version; whitespace allowed around the
/// colon).
fn names_command_schema(bytes: &[u8]) -> bool {
    let key = b"\"schema\"";
    [COMMAND_EVIDENCE_SCHEMA, COMMAND_EVIDENCE_SCHEMA_V2]
        .iter()
        .any(|schema| {
            let label = format!("\"{schema}\"");
            let mut rest = bytes;
            while let Some(i) = rest.windows(key.len()).position(|w| w == key) {
                rest = &rest[i + key.len()..];
                if let Some(value) = rest.trim_ascii_start().strip_prefix(b":")
                    && value.trim_ascii_start().starts_with(label.as_bytes())
                {
                    return true;
                }
            }
            false
        })
}

/// How a check Probity ran ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitOutcome {
    /// It exited with this status code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// It outlived its timeout and was killed.
    TimedOut {
        /// The timeout it outlived, in whole seconds.
        after_secs: u64,
    },
}

impl std::fmt::Display for ExitOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitOutcome::Code(c) => write!(f, "exit status {c}"),
            ExitOutcome::Signal(s) => write!(f, "killed by signal {s}"),
            ExitOutcome::TimedOut { after_secs } => {
                write!(f, "timed out after {after_secs} s and was killed")
            }
        }
    }
}

/// One run of the independent check (`finalize --evidence-cmd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    /// The argument vector, program first (run without a shell).
    pub argv: Vec<String>,
    /// How the run ended; a timeout gives no evidence.
    pub exit: ExitOutcome,
    /// Plain SHA-256 of stdout and stderr as one interleaved stream (what
    /// `sha256sum` of the same capture prints).
    pub output_sha256: Sha256Digest,
    /// Length of that combined output, in bytes.
    pub output_bytes: u64,
}

/// What is known of the last check `--evidence-cmd` ran for a lineage
/// and the lineage took (the store keeps it beside the lineage): enough to
/// tell, before another check runs, whether its evidence could equal what
/// the lineage took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptCheck {
    /// The check's argument vector.
    pub argv: Vec<String>,
    /// The tree it ran on.
    pub tree: TreeId,
    /// The evidence hash the lineage recorded for it.
    pub evidence_hash: Sha256Digest,
}

/// Domain of evidence hashes (raw evidence bytes, or a command evidence
/// document's canonical bytes).
pub const EVIDENCE_DOMAIN: Domain = Domain::new("probity/evidence/v1");

/// The schema label of the first command evidence document (no tree).
pub(crate) const COMMAND_EVIDENCE_SCHEMA: &str = "probity-command-evidence/v1";

/// The schema label of the command evidence document that names the tree
/// the check ran on (`tree`).
pub const COMMAND_EVIDENCE_SCHEMA_V2: &str = "probity-command-evidence/v2";

/// A command evidence document is at most this long; longer evidence is
/// opaque bytes (and is never read whole: the adapter streams its hash).
pub const MAX_COMMAND_EVIDENCE_BYTES: u64 = 64 * 1024;

/// What the evidence says about the check that produced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceVerdict {
    /// The check passed, or the evidence is opaque bytes (its presence is
    /// the independent mechanism's claim).
    Passed,
    /// A command evidence document reporting a non-zero exit or a signal.
    Failed,
}

/// What evidence says: its verdict, and for a v2 command evidence
/// document the tree the check ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceReading {
    /// Whether the check passed (opaque evidence passes by presence).
    pub verdict: EvidenceVerdict,
    /// The git tree a `probity-command-evidence/v2` document names; `None`
    /// for opaque evidence and for a v1 document.
    pub tree: Option<TreeId>,
}

/// The command evidence document, as written and as read (strict). `tree`
/// is required in v2 and refused in v1. A review bundle of
/// `probity.review-bundle/v2` carries the v2 documents its records took
/// ([`CommandEvidenceDocument::parse`] is how they are read back), so a
/// server can see which check an approval rests on (D-R69).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandEvidenceDocument {
    /// `probity-command-evidence/v1` or `/v2`.
    pub schema: String,
    /// The argument vector, program first.
    pub argv: Vec<String>,
    /// The exit status, when the check exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Plain SHA-256 of the combined output.
    pub output_sha256: Sha256Digest,
    /// The combined output's length in bytes.
    pub output_bytes: u64,
    /// The tree the check ran on (v2 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeId>,
}

type CommandEvidenceDoc = CommandEvidenceDocument;

impl CommandEvidenceDocument {
    /// Reads a command evidence document strictly (one JSON value, no
    /// duplicate key, no unknown field; either version; a non-empty argv;
    /// exactly one of `exit_code` and `signal`; `tree` in v2 only).
    /// Opaque bytes are an error here: this reads what claims to be one.
    pub fn parse(bytes: &[u8]) -> Result<Self, EvidenceDocError> {
        if bytes.len() as u64 > MAX_COMMAND_EVIDENCE_BYTES {
            return Err(EvidenceDocError::Malformed(format!(
                "it is {} bytes, over the {MAX_COMMAND_EVIDENCE_BYTES}-byte bound of such a document",
                bytes.len()
            )));
        }
        let value = parse_strict(bytes)
            .map_err(|e| EvidenceDocError::Malformed(format!("it is not strict JSON ({e})")))?;
        let doc: Self = serde_json::from_value(value)
            .map_err(|e| EvidenceDocError::Malformed(e.to_string()))?;
        doc.check()?;
        Ok(doc)
    }

    /// The document's own rules (what [`Self::parse`] checks after the
    /// shape): a known schema, a non-empty argv, `tree` exactly in v2,
    /// exactly one of `exit_code` and `signal`. Returns the verdict.
    fn check(&self) -> Result<EvidenceVerdict, EvidenceDocError> {
        if self.schema != COMMAND_EVIDENCE_SCHEMA && self.schema != COMMAND_EVIDENCE_SCHEMA_V2 {
            return Err(EvidenceDocError::Malformed(
                "its top-level `schema` is another, or missing".to_string(),
            ));
        }
        if self.argv.is_empty() {
            return Err(EvidenceDocError::Malformed("argv is empty".into()));
        }
        match (self.schema.as_str(), &self.tree) {
            (COMMAND_EVIDENCE_SCHEMA, Some(_)) => {
                return Err(EvidenceDocError::Malformed(format!(
                    "`tree` is a field of `{COMMAND_EVIDENCE_SCHEMA_V2}`, not of `{COMMAND_EVIDENCE_SCHEMA}`"
                )));
            }
            (COMMAND_EVIDENCE_SCHEMA_V2, None) => {
                return Err(EvidenceDocError::Malformed(format!(
                    "`{COMMAND_EVIDENCE_SCHEMA_V2}` names the `tree` the check ran on; it is missing"
                )));
            }
            _ => {}
        }
        match (self.exit_code, self.signal) {
            (Some(0), None) => Ok(EvidenceVerdict::Passed),
            (Some(_), None) | (None, Some(_)) => Ok(EvidenceVerdict::Failed),
            _ => Err(EvidenceDocError::Malformed(
                "exactly one of exit_code and signal is required".into(),
            )),
        }
    }

    /// Whether the check passed (exit status 0).
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0) && self.signal.is_none()
    }

    /// Its canonical bytes (RFC 8785): what the lineage's evidence hash
    /// covers.
    pub fn to_bytes(&self) -> Result<Vec<u8>, CanonicalError> {
        canonical_bytes(self)
    }

    /// The evidence hash a lineage that took this document records:
    /// `sha256(EVIDENCE_DOMAIN || canonical bytes)`.
    pub fn evidence_hash(&self) -> Result<Sha256Digest, CanonicalError> {
        canonical_digest(EVIDENCE_DOMAIN, self)
    }
}

/// Why evidence that names the command evidence schema is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceDocError {
    /// The bytes name a command evidence schema but break its shape: an
    /// unknown or missing field (v2's `tree`, or a `tree` in v1), an empty
    /// argv, both or neither of `exit_code` and `signal`, or more than
    /// [`MAX_COMMAND_EVIDENCE_BYTES`]; carries what is wrong.
    #[error(
        "the evidence names a command evidence schema (`{COMMAND_EVIDENCE_SCHEMA}` or `{COMMAND_EVIDENCE_SCHEMA_V2}`) but is not such a document: {0}"
    )]
    Malformed(String),
}

/// Reads what `bytes` report. Bytes that are not a JSON object naming
/// `schema: "probity-command-evidence/v1"` are opaque (`Passed`); a document
/// that names it (bytes opening an object, after a byte order mark if any,
/// that hold a `"schema"` member with that value anywhere) must be exactly
/// one, read strictly (one value, nothing after it, no duplicate keys; the
/// fields, one of `exit_code` or `signal`, a non-empty argv), and reports
/// `Passed` only for exit code 0.
///
/// Bytes over [`MAX_COMMAND_EVIDENCE_BYTES`] are opaque unless they are
/// shaped as such a document (see [`evidence_verdict_streamed`]): a
/// document too long to be one is refused, never taken as opaque bytes
/// that pass.
pub fn evidence_verdict(bytes: &[u8]) -> Result<EvidenceVerdict, EvidenceDocError> {
    Ok(evidence_reading(bytes)?.verdict)
}

/// [`evidence_verdict`], with the tree a v2 document names.
pub fn evidence_reading(bytes: &[u8]) -> Result<EvidenceReading, EvidenceDocError> {
    let head = &bytes[..bytes.len().min(MAX_COMMAND_EVIDENCE_BYTES as usize + 1)];
    let tail = &bytes[bytes.len().saturating_sub(EVIDENCE_TAIL_BYTES)..];
    evidence_reading_streamed(head, tail, bytes.len() as u64)
}

/// How much of the end of streamed evidence is kept: enough for the last
/// member of a canonical command evidence document (`schema`, the last key
/// in RFC 8785 order).
pub const EVIDENCE_TAIL_BYTES: usize = 1024;

/// [`evidence_verdict`] for evidence read streamed: `head` is its first
/// bytes (at least [`MAX_COMMAND_EVIDENCE_BYTES`] + 1 of them, or all when
/// it is shorter), `tail` its last [`EVIDENCE_TAIL_BYTES`] (or all), `len`
/// its whole length. Evidence of at most the bound is read whole. Longer
/// evidence is opaque (`Passed`) unless it opens a JSON object and its
/// head or its tail holds a `"schema"` member naming the command evidence
/// schema (where a hand-written document and a canonical one put it): then
/// it is refused (`Malformed`), since no such document is that long and a
/// check that failed must never pass by being padded.
pub fn evidence_verdict_streamed(
    head: &[u8],
    tail: &[u8],
    len: u64,
) -> Result<EvidenceVerdict, EvidenceDocError> {
    Ok(evidence_reading_streamed(head, tail, len)?.verdict)
}

/// [`evidence_verdict_streamed`], with the tree a v2 document names.
pub fn evidence_reading_streamed(
    head: &[u8],
    tail: &[u8],
    len: u64,
) -> Result<EvidenceReading, EvidenceDocError> {
    let opaque = EvidenceReading {
        verdict: EvidenceVerdict::Passed,
        tree: None,
    };
    if len > MAX_COMMAND_EVIDENCE_BYTES {
        let object = head.trim_ascii_start().first() == Some(&b'{');
        if object && (names_command_schema(head) || names_command_schema(tail)) {
            return Err(EvidenceDocError::Malformed(format!(
                "it is {len} bytes, over the {MAX_COMMAND_EVIDENCE_BYTES}-byte bound of such a document"
            )));
        }
        return Ok(opaque);
    }
    let bytes = head;
    // Evidence that opens a JSON object (after a byte order mark, if any)
    // and names the schema claims to be a command evidence document: it is
    // read strictly (one value, nothing after it, no duplicate keys), and
    // anything less is refused, so a sloppy failure report (a trailing
    // comma, a repeated `exit_code`, a log line after it) never passes as
    // opaque bytes.
    let unmarked = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let claims = unmarked.trim_ascii_start().first() == Some(&b'{') && names_command_schema(bytes);
    let map = match parse_strict(bytes) {
        Ok(serde_json::Value::Object(map))
            if map.get("schema").and_then(|v| v.as_str()).is_some_and(|s| {
                s == COMMAND_EVIDENCE_SCHEMA || s == COMMAND_EVIDENCE_SCHEMA_V2
            }) =>
        {
            map
        }
        Ok(_) if claims => {
            return Err(EvidenceDocError::Malformed(
                "its top-level `schema` is another, or missing".to_string(),
            ));
        }
        Err(e) if claims => {
            return Err(EvidenceDocError::Malformed(format!(
                "it is not strict JSON ({e})"
            )));
        }
        _ => return Ok(opaque),
    };
    let doc: CommandEvidenceDoc = serde_json::from_value(serde_json::Value::Object(map))
        .map_err(|e| EvidenceDocError::Malformed(e.to_string()))?;
    let verdict = doc.check()?;
    Ok(EvidenceReading {
        verdict,
        tree: doc.tree,
    })
}

/// The evidence of a check Probity ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandEvidence {
    /// RFC 8785 canonical JSON: the bytes `evidence_hash` covers.
    pub bytes: Vec<u8>,
    /// `Passed` for exit code 0, `Failed` for another code or a signal.
    pub verdict: EvidenceVerdict,
    /// The tree the check ran on (v2), or `None` (v1).
    pub tree: Option<TreeId>,
}

impl CommandEvidence {
    /// What the document says, as [`evidence_reading`] reads it back.
    pub fn reading(&self) -> EvidenceReading {
        EvidenceReading {
            verdict: self.verdict,
            tree: self.tree.clone(),
        }
    }
}

/// Why a command run is not evidence. Nothing changes when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandEvidenceError {
    /// The run has an empty argument vector: no program was named.
    #[error("--evidence-cmd needs a program to run")]
    EmptyArgv,
    /// The check outlived its timeout and was killed: it has no verdict.
    #[error(
        "the evidence command `{argv}` {exit}: a check that did not finish gives no verdict, so it neither approves nor escalates"
    )]
    TimedOut {
        /// The argument vector joined with spaces, for the message.
        argv: String,
        /// How it ended, as [`ExitOutcome`] displays it.
        exit: String,
    },
    /// The document has no canonical bytes (an output length beyond
    /// 2^53 − 1 bytes).
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
}

impl CommandEvidenceError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            CommandEvidenceError::TimedOut { .. } => {
                (ErrorClass::RejectedInput, "evidence_timeout")
            }
            CommandEvidenceError::EmptyArgv => (ErrorClass::Usage, "evidence_cmd_missing"),
            CommandEvidenceError::Canonical(_) => (ErrorClass::Integrity, "evidence_unencodable"),
        }
    }
}

/// The evidence document of a check Probity ran: RFC 8785 canonical JSON
/// naming the argv, how it ended (`exit_code`, or `signal`) and the SHA-256
/// of the combined output, so the lineage's `evidence_hash` binds all of it.
/// A run that exited 0 passed; another exit or a signal failed (the lineage
/// then escalates); a run that timed out is refused (no verdict).
pub fn command_evidence(run: &CommandRun) -> Result<CommandEvidence, CommandEvidenceError> {
    command_evidence_doc(run, None)
}

/// The `probity-command-evidence/v2` document of a check Probity ran in a
/// checkout of `tree`: [`command_evidence`]'s fields and `tree`, so the
/// evidence hash binds what was checked (a lineage takes it only when
/// `tree` is its final candidate tree).
pub fn command_evidence_on(
    run: &CommandRun,
    tree: &TreeId,
) -> Result<CommandEvidence, CommandEvidenceError> {
    command_evidence_doc(run, Some(tree))
}

fn command_evidence_doc(
    run: &CommandRun,
    tree: Option<&TreeId>,
) -> Result<CommandEvidence, CommandEvidenceError> {
    if run.argv.is_empty() {
        return Err(CommandEvidenceError::EmptyArgv);
    }
    let (exit_code, signal, verdict) = match run.exit {
        ExitOutcome::Code(0) => (Some(0), None, EvidenceVerdict::Passed),
        ExitOutcome::Code(c) => (Some(c), None, EvidenceVerdict::Failed),
        ExitOutcome::Signal(s) => (None, Some(s), EvidenceVerdict::Failed),
        ExitOutcome::TimedOut { .. } => {
            return Err(CommandEvidenceError::TimedOut {
                argv: run.argv.join(" "),
                exit: run.exit.to_string(),
            });
        }
    };
    let schema = match tree {
        Some(_) => COMMAND_EVIDENCE_SCHEMA_V2,
        None => COMMAND_EVIDENCE_SCHEMA,
    };
    let bytes = canonical_bytes(&CommandEvidenceDoc {
        schema: schema.to_owned(),
        argv: run.argv.clone(),
        exit_code,
        signal,
        output_sha256: run.output_sha256,
        output_bytes: run.output_bytes,
        tree: tree.cloned(),
    })?;
    Ok(CommandEvidence {
        bytes,
        verdict,
        tree: tree.cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit: ExitOutcome) -> CommandRun {
        CommandRun {
            argv: vec!["cargo".into(), "test".into()],
            exit,
            output_sha256: Sha256Digest::plain(b"ok\n"),
            output_bytes: 3,
        }
    }

    #[test]
    fn command_evidence_names_argv_exit_and_output_canonically() {
        let bytes = command_evidence(&run(ExitOutcome::Code(0))).unwrap().bytes;
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            format!(
                r#"{{"argv":["cargo","test"],"exit_code":0,"output_bytes":3,"output_sha256":"{}","schema":"probity-command-evidence/v1"}}"#,
                Sha256Digest::plain(b"ok\n")
            )
        );
        // A failure names its exit code, or the signal that ended it.
        let failed = command_evidence(&run(ExitOutcome::Code(101)))
            .unwrap()
            .bytes;
        assert!(
            String::from_utf8(failed)
                .unwrap()
                .contains(r#""exit_code":101,"#)
        );
        let killed = command_evidence(&run(ExitOutcome::Signal(6)))
            .unwrap()
            .bytes;
        let killed = String::from_utf8(killed).unwrap();
        assert!(killed.contains(r#""signal":6}"#) && !killed.contains("exit_code"));
        let mut other = run(ExitOutcome::Code(0));
        other.argv.push("--release".into());
        assert_ne!(
            command_evidence(&other).unwrap().bytes,
            command_evidence(&run(ExitOutcome::Code(0))).unwrap().bytes
        );
    }

    #[test]
    fn a_run_reports_its_own_verdict_and_reads_back_the_same() {
        for (exit, verdict) in [
            (ExitOutcome::Code(0), EvidenceVerdict::Passed),
            (ExitOutcome::Code(101), EvidenceVerdict::Failed),
            (ExitOutcome::Signal(6), EvidenceVerdict::Failed),
        ] {
            let e = command_evidence(&run(exit)).unwrap();
            assert_eq!(e.verdict, verdict);
            assert_eq!(evidence_verdict(&e.bytes), Ok(verdict));
        }
    }

    #[test]
    fn a_timed_out_run_gives_no_verdict() {
        let e = command_evidence(&run(ExitOutcome::TimedOut { after_secs: 5 })).unwrap_err();
        assert!(matches!(e, CommandEvidenceError::TimedOut { .. }));
    }

    #[test]
    fn opaque_bytes_pass_by_presence() {
        for bytes in [
            &b"test result: ok"[..],
            b"{\"schema\":\"something-else/1\"}",
            b"[1,2]",
            b"\xff\xfe",
        ] {
            assert_eq!(evidence_verdict(bytes), Ok(EvidenceVerdict::Passed));
        }
    }

    #[test]
    fn a_document_naming_the_schema_is_read_strictly() {
        let s = COMMAND_EVIDENCE_SCHEMA;
        let sha = format!("\"{}\"", Sha256Digest::plain(b"x"));
        let failed = format!(
            r#"{{"argv":["t"],"exit_code":2,"output_bytes":1,"output_sha256":{sha},"schema":"{s}"}}"#
        );
        assert_eq!(
            evidence_verdict(failed.as_bytes()),
            Ok(EvidenceVerdict::Failed)
        );
        let open = &failed[..failed.len() - 1];
        for sloppy in [
            format!("{open},}}"),
            failed.replace("\"exit_code\":2", "\"exit_code\":2,\"exit_code\":0"),
            format!("\u{feff}{failed}"),
            format!("{failed}\nok"),
            format!("{failed}{failed}"),
            format!(r#"{{"log":{failed}}}"#),
        ] {
            assert!(
                matches!(
                    evidence_verdict(sloppy.as_bytes()),
                    Err(EvidenceDocError::Malformed(_))
                ),
                "{sloppy}"
            );
        }
        // Bytes that only mention the schema without opening an object stay
        // opaque (a log line quoting it).
        assert_eq!(
            evidence_verdict(format!("ran: {failed}").as_bytes()),
            Ok(EvidenceVerdict::Passed)
        );
    }

    #[test]
    fn a_document_naming_the_schema_must_be_one() {
        let s = COMMAND_EVIDENCE_SCHEMA;
        let sha = format!("\"{}\"", Sha256Digest::plain(b"x"));
        for bad in [
            format!(
                r#"{{"schema":"{s}","argv":[],"exit_code":1,"output_sha256":{sha},"output_bytes":1}}"#
            ),
            format!(r#"{{"schema":"{s}","argv":["t"],"output_sha256":{sha},"output_bytes":1}}"#),
            format!(
                r#"{{"schema":"{s}","argv":["t"],"exit_code":0,"signal":9,"output_sha256":{sha},"output_bytes":1}}"#
            ),
            format!(
                r#"{{"schema":"{s}","argv":["t"],"exit_code":0,"output_sha256":{sha},"output_bytes":1,"ok":true}}"#
            ),
            format!(
                r#"{{"schema":"{s}","argv":["t"],"exit_code":0,"output_sha256":"nope","output_bytes":1}}"#
            ),
        ] {
            assert!(
                matches!(
                    evidence_verdict(bad.as_bytes()),
                    Err(EvidenceDocError::Malformed(_))
                ),
                "{bad}"
            );
        }
        let failed = format!(
            r#"{{"schema":"{s}","argv":["t"],"exit_code":2,"output_sha256":{sha},"output_bytes":1}}"#
        );
        assert_eq!(
            evidence_verdict(failed.as_bytes()),
            Ok(EvidenceVerdict::Failed)
        );
    }
}
