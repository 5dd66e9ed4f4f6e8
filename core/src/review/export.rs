//! Exporting a lineage's frozen review context (R10.2–R10.5): read-only, for
//! any lineage the store holds, current or not. The record binds the
//! candidate by trees and digests; the diff is re-derived from the frozen
//! trees with pinned flags, checked against the record, and never
//! truncated.

use crate::review::ErrorClass;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::review::gate::Applicability;
use crate::review::ids::{BlobId, LineageId, RepoPath};
use crate::review::snapshot::{FileMode, FrozenCandidate, paths_digest};
use crate::review::state::StateRecord;

/// The largest diff an export carries (R10.5): above it, the export is
/// refused, never truncated.
pub const MAX_DIFF_BYTES: u64 = 4 * 1024 * 1024;

/// The diff flags every export pins (R10.3), in order.
pub const DIFF_FLAGS: [&str; 12] = [
    "--binary",
    "--full-index",
    "--no-color",
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--diff-algorithm=myers",
    "--no-indent-heuristic",
    "--unified=3",
    "--ignore-submodules=none",
    "--src-prefix=a/",
    "--dst-prefix=b/",
];

/// Configuration every export pins with `-c`, besides the runner's own
/// (`core.quotePath=false`, `color.ui=false`): no attributes file, no
/// blank-line suppression, git's default big-file threshold. The diff runs
/// in a throwaway bare repository that borrows the objects, so no system,
/// global, local or worktree configuration and no `info/attributes` is
/// read, and attributes come from the empty tree, so no diff driver or
/// `binary` attribute applies: the bytes are a function of the two trees
/// and the git version.
pub const EXPORT_CONFIG: [(&str, &str); 3] = [
    ("core.attributesFile", "/dev/null"),
    ("diff.suppressBlankEmpty", "false"),
    ("core.bigFileThreshold", "512m"),
];

/// The environment every export pins.
pub const EXPORT_ENV: [(&str, &str); 3] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
];

/// The exact command an export runs, for the derivation record.
pub fn export_command() -> String {
    let env: Vec<String> = EXPORT_ENV.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let config: Vec<String> = EXPORT_CONFIG
        .iter()
        .map(|(k, v)| format!("-c {k}={v}"))
        .collect();
    format!(
        "{} GIT_DIR=<empty bare repository> GIT_ALTERNATE_OBJECT_DIRECTORIES=<objects> git -c core.quotePath=false -c color.ui=false --attr-source=<empty tree> {} diff-tree -r -p {} <base_tree> <candidate_tree>",
        env.join(" "),
        config.join(" "),
        DIFF_FLAGS.join(" ")
    )
}

/// How a manifest entry changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// Absent from the base tree, present in the candidate.
    Added,
    /// Present in the base tree, absent from the candidate.
    Deleted,
    /// Present on both sides with other content or another mode.
    Modified,
}

/// One changed path between the frozen trees, as Git lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ManifestEntry {
    /// The repository-relative path that differs.
    pub path: RepoPath,
    /// Added, deleted or modified, as the modes imply.
    pub status: ChangeStatus,
    /// The mode in the base tree; absent for an added path.
    pub old_mode: Option<FileMode>,
    /// The mode in the candidate tree; absent for a deleted path.
    pub new_mode: Option<FileMode>,
    /// The blob in the base tree. Absent for a gitlink or an absent side.
    pub old_blob: Option<BlobId>,
    /// The blob in the candidate tree. Absent for a gitlink or an absent
    /// side.
    pub new_blob: Option<BlobId>,
}

impl ManifestEntry {
    /// The status its modes imply.
    pub fn status_of(old: Option<FileMode>, new: Option<FileMode>) -> ChangeStatus {
        match (old, new) {
            (None, _) => ChangeStatus::Added,
            (_, None) => ChangeStatus::Deleted,
            _ => ChangeStatus::Modified,
        }
    }
}

/// The candidate diff as carried: canonical base64 (RFC 4648, padded), the
/// plain SHA-256 of the bytes and their size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CandidateDiff {
    /// Always `base64`.
    pub encoding: String,
    /// The diff bytes, base64 with padding.
    pub data: String,
    /// Plain SHA-256 of the decoded bytes (what the frozen anchor holds).
    pub sha256: Sha256Digest,
    /// Length of the decoded bytes, at most 4 MiB.
    pub byte_size: u64,
}

/// How the diff was derived, so a later reader can re-derive it and notice
/// drift (another git version may render the same trees differently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Derivation {
    /// The exact command line that rendered the diff, with placeholders
    /// for the scratch repository, the objects and the trees.
    pub command: String,
    /// The pinned `git diff` flags, in order (R10.3).
    pub flags: Vec<String>,
    /// Where attributes were read from: the empty tree (none apply).
    pub attr_source: String,
    /// `git --version` of the git that rendered the diff.
    pub git_version: String,
}

/// The frozen budget and what was charged against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExportBudget {
    /// The correction budget frozen at start, in lines:
    /// `min(200, ceil(authored_lines / 2))` (R2.5).
    pub correction_budget: u64,
    /// Lines charged so far by correction attempts (what Git measured); 0
    /// without a correction.
    pub charged_lines: u64,
}

/// The export envelope (`probity export-context --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ContextExport {
    /// Always `probity.context-export/v1`.
    pub schema: String,
    /// The exported lineage.
    pub lineage_id: LineageId,
    /// The revision of the record the export read (R7.2).
    pub revision: Sha256Digest,
    /// The lineage's generation (1, or more after recoveries).
    pub generation: u32,
    /// The lineage's stage name, e.g. `reviewing` or `approved`.
    pub state: String,
    /// Information, never a gate: how the lineage relates to the live
    /// candidate of the checkout that exported it.
    pub applicability: Applicability,
    /// The whole frozen snapshot: the identity preimage and its proofs.
    pub snapshot: FrozenCandidate,
    /// The diff of the frozen trees (base to frozen candidate), whole.
    pub candidate_diff: CandidateDiff,
    /// The changed paths between the frozen trees, sorted by path: exactly
    /// the frozen genesis paths.
    pub changed_path_manifest: Vec<ManifestEntry>,
    /// How `candidate_diff` was derived.
    pub derivation: Derivation,
    /// The correction budget and what was charged against it.
    pub budget: ExportBudget,
}

/// The export's schema tag.
pub const EXPORT_SCHEMA: &str = "probity.context-export/v1";

/// Why a lineage's context cannot be exported. Nothing is written either way.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The diff is over [`MAX_DIFF_BYTES`] and start anchored none
    /// (`budget_exceeded`, R10.5).
    #[error(
        "the frozen diff is at least {bytes} bytes, over the {limit}-byte export budget; it is never truncated"
    )]
    BudgetExceeded {
        /// How many bytes were read: a lower bound of the diff's size.
        bytes: u64,
        /// The bound, [`MAX_DIFF_BYTES`].
        limit: u64,
    },
    /// The paths Git lists between the frozen trees are not the record's
    /// genesis paths.
    #[error(
        "the trees Git holds do not match the record: the changed paths differ from the {expected} frozen paths ({why})"
    )]
    ManifestMismatch {
        /// How many genesis paths the record holds.
        expected: usize,
        /// How many are missing and how many extra, e.g. `1 missing, 0
        /// extra`.
        why: String,
    },
    /// The re-derived diff is not the one start anchored (or is over the
    /// budget while start anchored one within it): this git renders the
    /// frozen trees differently.
    #[error(
        "the re-derived diff ({derived}, {git_version}) is not the one frozen at start ({anchored}, {anchored_version}); this git renders the frozen trees differently, so this is not the frozen context"
    )]
    Drift {
        /// The SHA-256 start anchored.
        anchored: Sha256Digest,
        /// `git --version` of the git that rendered the anchored diff.
        anchored_version: String,
        /// The re-derived digest, or why there is none (over the budget).
        derived: String,
        /// `git --version` of the git that re-derived it.
        git_version: String,
    },
}

impl ExportError {
    /// Its stable code (docs/errors.md) and the class of step that
    /// follows (issue 25 §5): the same for every surface.
    pub fn classify(&self) -> (ErrorClass, &'static str) {
        match self {
            ExportError::BudgetExceeded { .. } => (ErrorClass::RejectedInput, "budget_exceeded"),
            ExportError::ManifestMismatch { .. } => (ErrorClass::Integrity, "manifest_mismatch"),
            ExportError::Drift { .. } => (ErrorClass::Integrity, "diff_drift"),
        }
    }
}

/// Canonical base64 (RFC 4648 §4, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The refusal for a re-derived diff over the budget: drift when start
/// anchored a diff within it, else the budget itself.
pub fn over_budget(record: &StateRecord, bytes: u64, git_version: &str) -> ExportError {
    match &record.state.snapshot.diff {
        Some(anchor) => ExportError::Drift {
            anchored: anchor.sha256,
            anchored_version: anchor.git_version.clone(),
            derived: format!("over {MAX_DIFF_BYTES} bytes"),
            git_version: git_version.to_string(),
        },
        None => ExportError::BudgetExceeded {
            bytes,
            limit: MAX_DIFF_BYTES,
        },
    }
}

/// Builds the envelope, checking the re-derived manifest against the
/// record: the same sorted paths, hence the stored `paths_digest`.
pub fn build_export(
    record: &StateRecord,
    applicability: Applicability,
    diff: &[u8],
    manifest: Vec<ManifestEntry>,
    git_version: String,
) -> Result<ContextExport, ExportError> {
    let bytes = diff.len() as u64;
    let s = &record.state;
    if bytes > MAX_DIFF_BYTES {
        return Err(over_budget(record, bytes, &git_version));
    }
    let derived = Sha256Digest::plain(diff);
    if let Some(anchor) = &s.snapshot.diff
        && anchor.sha256 != derived
    {
        return Err(ExportError::Drift {
            anchored: anchor.sha256,
            anchored_version: anchor.git_version.clone(),
            derived: derived.to_string(),
            git_version,
        });
    }
    let mut paths: Vec<RepoPath> = manifest.iter().map(|m| m.path.clone()).collect();
    paths.sort();
    if paths != s.snapshot.paths || paths_digest(&paths) != s.snapshot.paths_digest {
        let missing = s
            .snapshot
            .paths
            .iter()
            .filter(|p| !paths.contains(p))
            .count();
        let extra = paths
            .iter()
            .filter(|p| !s.snapshot.paths.contains(p))
            .count();
        return Err(ExportError::ManifestMismatch {
            expected: s.snapshot.paths.len(),
            why: format!("{missing} missing, {extra} extra"),
        });
    }
    let mut manifest = manifest;
    manifest.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ContextExport {
        schema: EXPORT_SCHEMA.into(),
        lineage_id: s.lineage_id.clone(),
        revision: record.revision,
        generation: s.generation,
        state: s.stage.name().into(),
        applicability,
        snapshot: s.snapshot.clone(),
        candidate_diff: CandidateDiff {
            encoding: "base64".into(),
            data: base64(diff),
            sha256: derived,
            byte_size: bytes,
        },
        changed_path_manifest: manifest,
        derivation: Derivation {
            command: export_command(),
            flags: DIFF_FLAGS.iter().map(|f| (*f).to_string()).collect(),
            attr_source: "empty_tree".into(),
            git_version,
        },
        budget: ExportBudget {
            correction_budget: s.frozen.correction_budget,
            charged_lines: s.stage.correction().map(|c| c.charged_lines()).unwrap_or(0),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::fixtures::{parser_observation, start};
    use crate::review::lens::Lens;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    fn entry(p: &str) -> ManifestEntry {
        ManifestEntry {
            path: RepoPath::parse(p).unwrap(),
            status: ChangeStatus::Modified,
            old_mode: Some(FileMode::Regular),
            new_mode: Some(FileMode::Regular),
            old_blob: None,
            new_blob: None,
        }
    }

    #[test]
    fn the_envelope_binds_the_record_and_refuses_drift_and_size() {
        let rec = start(&parser_observation(), Lens::Reliability)
            .unwrap()
            .record()
            .unwrap();
        let manifest = vec![entry("src/parser_test.rs"), entry("src/parser.rs")];
        let e = build_export(
            &rec,
            Applicability::Current,
            b"diff --git a/x b/x\n",
            manifest.clone(),
            "git version 2.47.3".into(),
        )
        .unwrap();
        assert_eq!(e.lineage_id, rec.state.lineage_id);
        assert_eq!(e.revision, rec.revision);
        assert_eq!(e.candidate_diff.byte_size, 19);
        assert_eq!(
            e.candidate_diff.sha256,
            Sha256Digest::plain(b"diff --git a/x b/x\n")
        );
        assert_eq!(e.changed_path_manifest[0].path.as_str(), "src/parser.rs");
        assert_eq!(e.derivation.flags.len(), 12);
        // A manifest that does not match the frozen paths.
        assert!(matches!(
            build_export(
                &rec,
                Applicability::Current,
                b"",
                vec![entry("src/parser.rs")],
                String::new()
            ),
            Err(ExportError::ManifestMismatch { expected: 2, .. })
        ));
        // A diff other than the one anchored at start is drift.
        let mut anchored = rec.clone();
        anchored.state.snapshot.diff = Some(crate::review::snapshot::DiffAnchor::of(
            b"the bytes start saw\n",
            "git version 2.47.3".into(),
        ));
        assert!(matches!(
            build_export(
                &anchored,
                Applicability::Current,
                b"other bytes\n",
                manifest.clone(),
                String::new()
            ),
            Err(ExportError::Drift { .. })
        ));
        assert!(
            build_export(
                &anchored,
                Applicability::Current,
                b"the bytes start saw\n",
                manifest.clone(),
                String::new()
            )
            .is_ok()
        );
        // Over the budget: refused, not truncated.
        let big = vec![b'x'; (MAX_DIFF_BYTES + 1) as usize];
        assert!(matches!(
            build_export(&rec, Applicability::Current, &big, manifest, String::new()),
            Err(ExportError::BudgetExceeded { .. })
        ));
    }
}
