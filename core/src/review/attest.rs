//! A receipt as an in-toto Statement v1 (R12.7), so that existing tools can
//! sign and verify it. The subject is the canonical candidate manifest —
//! the changed paths between the base and the final candidate tree, with
//! modes and blob ids, as RFC 8785 bytes — named by its plain SHA-256 and
//! by the final candidate's `gitTree` digest. The unsigned statement claims
//! no authenticity, exactly as the receipt does not.

use serde::Serialize;

use crate::canonical::{CanonicalError, canonical_bytes};
use crate::digest::Sha256Digest;
use crate::review::export::ManifestEntry;
use crate::review::ids::TreeId;
use crate::review::receipt::Receipt;

/// `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The predicate type: a Probity review receipt v1 as the predicate.
pub const PREDICATE_TYPE: &str = "https://probity.dev/attestation/review-receipt/v1";

/// The manifest document the subject names: the schema tag and the sorted
/// entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CandidateManifest {
    /// Always [`MANIFEST_SCHEMA`], `probity.candidate-manifest/v1`.
    pub schema: &'static str,
    /// The receipt's base tree.
    pub base_tree: TreeId,
    /// The receipt's final candidate tree.
    pub final_candidate_tree: TreeId,
    /// Every path that differs between the two trees, sorted by path.
    pub entries: Vec<ManifestEntry>,
}

/// The manifest's schema tag.
pub(crate) const MANIFEST_SCHEMA: &str = "probity.candidate-manifest/v1";

/// A subject's digest set (one artifact per subject, as in-toto asks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubjectDigest {
    /// Plain SHA-256 of the manifest bytes in lowercase hex, as in-toto's
    /// DigestSet writes it: present on the manifest subject only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The git tree object id (`gitTree`): present on the tree subject,
    /// absent on the manifest subject.
    #[serde(rename = "gitTree", skip_serializing_if = "Option::is_none")]
    pub git_tree: Option<String>,
}

/// One subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subject {
    /// `probity-candidate-manifest/<lineage>` or
    /// `probity-candidate-tree/<lineage>`.
    pub name: String,
    /// The subject's one digest.
    pub digest: SubjectDigest,
}

/// The statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statement {
    /// `_type`: always [`STATEMENT_TYPE`].
    #[serde(rename = "_type")]
    pub statement_type: &'static str,
    /// Two subjects: the candidate manifest (by sha256), then the final
    /// candidate tree (by gitTree).
    pub subject: Vec<Subject>,
    /// `predicateType`: always [`PREDICATE_TYPE`].
    #[serde(rename = "predicateType")]
    pub predicate_type: &'static str,
    /// The fourteen-field receipt, unchanged.
    pub predicate: Receipt,
}

/// The canonical manifest bytes (RFC 8785) for a receipt's trees.
pub fn manifest_bytes(
    receipt: &Receipt,
    mut entries: Vec<ManifestEntry>,
) -> Result<Vec<u8>, CanonicalError> {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    canonical_bytes(&CandidateManifest {
        schema: MANIFEST_SCHEMA,
        base_tree: receipt.base_tree.clone(),
        final_candidate_tree: receipt.final_candidate_tree.clone(),
        entries,
    })
}

/// The statement for a receipt whose candidate manifest has the given
/// canonical bytes.
pub fn statement(receipt: &Receipt, manifest: &[u8]) -> Statement {
    Statement {
        statement_type: STATEMENT_TYPE,
        // Two artifacts, one digest set each: a verifier matching any field
        // of one set cannot mistake the tree for the manifest (which also
        // binds the base tree).
        subject: vec![
            Subject {
                name: format!("probity-candidate-manifest/{}", receipt.lineage_id),
                digest: SubjectDigest {
                    sha256: Some(Sha256Digest::plain(manifest).hex()),
                    git_tree: None,
                },
            },
            Subject {
                name: format!("probity-candidate-tree/{}", receipt.lineage_id),
                digest: SubjectDigest {
                    sha256: None,
                    git_tree: Some(receipt.final_candidate_tree.to_string()),
                },
            },
        ],
        predicate_type: PREDICATE_TYPE,
        predicate: receipt.clone(),
    }
}

/// The statement's canonical bytes (what a signer signs).
pub fn statement_bytes(statement: &Statement) -> Result<Vec<u8>, CanonicalError> {
    canonical_bytes(statement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::causality::CausalFacts;
    use crate::review::export::ChangeStatus;
    use crate::review::fixtures::{clean_result, parser_observation, start};
    use crate::review::ids::RepoPath;
    use crate::review::lens::Lens;
    use crate::review::snapshot::FileMode;

    fn receipt() -> Receipt {
        let s = start(&parser_observation(), Lens::Reliability).unwrap();
        let s = s
            .accept_results(vec![clean_result()], &CausalFacts::default())
            .unwrap();
        Receipt::derive(&s.accept_evidence(b"ok").unwrap()).unwrap()
    }

    fn entry(p: &str) -> ManifestEntry {
        ManifestEntry {
            path: RepoPath::parse(p).unwrap(),
            status: ChangeStatus::Added,
            old_mode: None,
            new_mode: Some(FileMode::Regular),
            old_blob: None,
            new_blob: None,
        }
    }

    #[test]
    fn the_subject_names_the_manifest_and_the_tree() {
        let r = receipt();
        let m = manifest_bytes(&r, vec![entry("b"), entry("a")]).unwrap();
        // Entry order does not matter; the bytes are canonical.
        assert_eq!(m, manifest_bytes(&r, vec![entry("a"), entry("b")]).unwrap());
        let s = statement(&r, &m);
        assert_eq!(
            s.subject[0].digest.sha256,
            Some(Sha256Digest::plain(&m).hex())
        );
        assert_eq!(s.subject[0].digest.git_tree, None);
        assert_eq!(
            s.subject[1].digest.git_tree,
            Some(r.final_candidate_tree.to_string())
        );
        let v: serde_json::Value = serde_json::from_slice(&statement_bytes(&s).unwrap()).unwrap();
        assert_eq!(v["_type"], STATEMENT_TYPE);
        assert_eq!(v["predicateType"], PREDICATE_TYPE);
        assert_eq!(v["predicate"]["lineage_id"], r.lineage_id.to_string());
        assert_eq!(v["predicate"].as_object().unwrap().len(), 14);
    }
}
