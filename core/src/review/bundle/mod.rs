//! Review bundles (R11.1): a lineage's whole recovery chain as one
//! canonical document that another clone, a server hook or CI re-verifies
//! from its bytes alone, and the Git note layout that carries bundles with
//! the commits they deliver.
//!
//! A bundle holds every state record from generation 1 to the leaf, in
//! generation order, and the receipt of every terminal record (each the
//! projection [`Receipt::derive`] gives). Nothing in it depends on the
//! exporting machine: no path, host or time beyond what the records hold.
//! Its `digest` is `sha256(probity/review-bundle/v1 || 0x00 || canonical
//! body)`, the body being the document without `digest`.
//!
//! `attestations` is optional and empty by default: DSSE envelopes
//! (`{payloadType, payload, signatures: [{keyid, sig}]}`) over the in-toto
//! Statement `probity attest` prints. They are carried unchanged; whether
//! they are required and who may sign is a policy checked elsewhere (the
//! gate's signature hook).
//!
//! `probity.review-bundle/v2` (D-R69) is v1 plus `evidence`: the
//! `probity-command-evidence/v2` documents its records took (each hashes to
//! a record's evidence hash and names that record's final candidate tree),
//! so a server or CI gate can see which check an approval rests on and
//! hold it to the repository's required checks. A bundle is v2 exactly
//! when it carries evidence; its digest's domain is
//! `probity/review-bundle/v2`. v1 bundles read and write as before.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canonical::{CanonicalError, canonical_bytes};
use crate::digest::{Domain, Sha256Digest};
use crate::review::evidence::{COMMAND_EVIDENCE_SCHEMA_V2, CommandEvidenceDocument};
use crate::review::export::{ChangeStatus, ManifestEntry};
use crate::review::ids::{CommitId, LineageId, RepoPath, TreeId};
use crate::review::prompts::PromptSet;
use crate::review::receipt::Receipt;
use crate::review::recovery::{Ancestor, ChainError, check_link};
use crate::review::risk::{RiskLevel, RiskPolicy, Symlink, TreeInputs, authored_lines};
use crate::review::snapshot::ChangedFile;
use crate::review::state::{Stage, StateError, StateRecord, StateRecordWire};

/// Domain of a bundle's digest.
pub const BUNDLE_DOMAIN: Domain = Domain::new("probity/review-bundle/v1");

/// Domain of a v2 bundle's digest (one that carries command evidence).
pub(crate) const BUNDLE_DOMAIN_V2: Domain = Domain::new("probity/review-bundle/v2");

/// The largest bundle accepted, in bytes, checked before parsing. A state
/// record with every lens's findings is tens of KiB; a chain of
/// [`MAX_RECORDS`] of them fits with room to spare.
pub const MAX_BUNDLE_BYTES: usize = 4 * 1024 * 1024;

/// The most records (generations) one bundle may hold.
pub const MAX_RECORDS: usize = 64;

/// The most attestation envelopes one bundle may carry.
pub const MAX_ATTESTATIONS: usize = 16;

/// The largest note accepted (several bundles, one per line).
pub const MAX_NOTE_BYTES: usize = 8 * 1024 * 1024;

/// The most bundles one note may hold.
pub const MAX_NOTE_BUNDLES: usize = 32;

/// The `schema` tag of a bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum BundleSchema {
    /// `probity.review-bundle/v1`: records, receipts, attestations.
    #[serde(rename = "probity.review-bundle/v1")]
    V1,
    /// `probity.review-bundle/v2`: v1 plus the command evidence documents
    /// its records took (D-R69).
    #[serde(rename = "probity.review-bundle/v2")]
    V2,
}

impl BundleSchema {
    fn domain(self) -> Domain {
        match self {
            BundleSchema::V1 => BUNDLE_DOMAIN,
            BundleSchema::V2 => BUNDLE_DOMAIN_V2,
        }
    }
}

/// A DSSE envelope, carried unchanged: the one envelope type
/// ([`crate::review::dsse::Envelope`]).
pub use crate::review::dsse::{Envelope as DsseEnvelope, EnvelopeSignature as DsseSignature};

/// The bundle document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Probity review bundle v2 (v1 is v2 without evidence)")]
pub struct Bundle {
    /// Always `probity.review-bundle/v1`.
    pub schema: BundleSchema,
    /// The leaf lineage: the last record's lineage.
    pub lineage_id: LineageId,
    /// Every record of the chain, generation 1 first.
    pub records: Vec<StateRecord>,
    /// The receipt of every terminal record, in record order.
    pub receipts: Vec<Receipt>,
    /// DSSE envelopes over the leaf's in-toto Statement (may be empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attestations: Vec<DsseEnvelope>,
    /// v2 only: the command evidence documents the records took, sorted
    /// by their canonical bytes (D-R69).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<CommandEvidenceDocument>,
    /// `sha256(probity/review-bundle/v1 || 0x00 || body)` (v2: the
    /// `probity/review-bundle/v2` domain), the body being this document
    /// without `digest`.
    pub digest: Sha256Digest,
}

/// A bundle as read, its records not yet checked: what the digest and the
/// canonical form are verified on first, so a tampered byte is reported as
/// the digest's, before any record is read as authority.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BundleWire {
    schema: BundleSchema,
    lineage_id: LineageId,
    records: Vec<StateRecordWire>,
    receipts: Vec<Receipt>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    attestations: Vec<DsseEnvelope>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    evidence: Vec<CommandEvidenceDocument>,
    digest: Sha256Digest,
}

/// The bundle without its digest: the digest's preimage.
#[derive(Serialize)]
struct Body<'a, R> {
    schema: BundleSchema,
    lineage_id: &'a LineageId,
    records: &'a [R],
    receipts: &'a [Receipt],
    #[serde(skip_serializing_if = "<[DsseEnvelope]>::is_empty")]
    attestations: &'a [DsseEnvelope],
    #[serde(skip_serializing_if = "<[CommandEvidenceDocument]>::is_empty")]
    evidence: &'a [CommandEvidenceDocument],
}

/// Why bytes are not a bundle Probity accepts. Every variant is decided
/// before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// The bytes are over [`MAX_BUNDLE_BYTES`]; refused before parsing
    /// (`input_too_large`).
    #[error("the bundle is {size} bytes; the limit is {limit}")]
    TooLarge {
        /// The bytes given.
        size: usize,
        /// The bound, [`MAX_BUNDLE_BYTES`].
        limit: usize,
    },
    /// The document does not fit the bundle schema: not JSON, an unknown
    /// field, no record or too many, too many attestations, generations
    /// out of order, a first record with a predecessor, a successor of a
    /// non-final record, or a `lineage_id` not the leaf's (`bundle_invalid`).
    #[error("not a bundle of schema probity.review-bundle/v1: {0}")]
    Schema(String),
    /// The bytes parse but are not their own canonical form (RFC 8785, at
    /// most one trailing LF), or the attestations are not sorted and
    /// unique: edited or re-encoded (`bundle_not_canonical`).
    #[error("the bundle bytes are not canonical JSON (RFC 8785); it was edited or re-encoded")]
    NotCanonical,
    /// The stored digest is not the digest of the body
    /// (`bundle_digest_mismatch`).
    #[error("the bundle's digest {stored} does not match its content ({derived})")]
    Digest {
        /// The `digest` the bundle carries.
        stored: Sha256Digest,
        /// The digest of its body.
        derived: Sha256Digest,
    },
    /// A record fails its revision check or validation
    /// (`bundle_record_invalid`).
    #[error("record {index} of the bundle is not valid authority: {source}")]
    Record {
        /// The record's 0-based index in `records`.
        index: usize,
        /// Why the record is not valid authority.
        #[source]
        source: StateError,
    },
    /// Two consecutive records are not a valid recovery link
    /// (`chain_broken`).
    #[error("the bundle's chain does not hold: {0}")]
    Chain(#[from] ChainError),
    /// `receipts` is not exactly the receipts the terminal records derive
    /// (`receipt_mismatch`).
    #[error("the bundle's receipts are not the projections of its terminal records: {0}")]
    Receipts(String),
    /// An envelope is malformed: an empty `payloadType`, a payload or a
    /// signature that is not padded standard base64, or no signature
    /// (`bundle_invalid`).
    #[error("attestation {index} is not a DSSE envelope: {detail}")]
    Attestation {
        /// The envelope's 0-based index in `attestations`.
        index: usize,
        /// What is wrong with it.
        detail: String,
    },
    /// The document has no canonical bytes (e.g. an integer beyond
    /// ±(2^53 − 1)) (`bundle_invalid`).
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
}

impl BundleError {
    /// The stable reason code.
    pub fn code(&self) -> &'static str {
        match self {
            BundleError::TooLarge { .. } => "input_too_large",
            BundleError::Schema(_) | BundleError::Attestation { .. } => "bundle_invalid",
            BundleError::NotCanonical => "bundle_not_canonical",
            BundleError::Digest { .. } => "bundle_digest_mismatch",
            BundleError::Record { .. } => "bundle_record_invalid",
            BundleError::Chain(_) => "chain_broken",
            BundleError::Receipts(_) => "receipt_mismatch",
            BundleError::Canonical(_) => "bundle_invalid",
        }
    }
}

fn body_digest<R: Serialize>(
    schema: BundleSchema,
    lineage_id: &LineageId,
    records: &[R],
    receipts: &[Receipt],
    attestations: &[DsseEnvelope],
    evidence: &[CommandEvidenceDocument],
) -> Result<Sha256Digest, CanonicalError> {
    let body = Body {
        schema,
        lineage_id,
        records,
        receipts,
        attestations,
        evidence,
    };
    Ok(Sha256Digest::of(schema.domain(), &canonical_bytes(&body)?))
}

/// The evidence hash a record took, if any: an approval's, or a failed
/// check's that escalated.
fn taken_evidence(record: &StateRecord) -> Option<Sha256Digest> {
    match &record.state.stage {
        Stage::Approved { evidence_hash, .. } => Some(*evidence_hash),
        Stage::Escalated { reason, .. } => reason.evidence_hash(),
        Stage::Reviewing
        | Stage::AwaitingRefuter { .. }
        | Stage::CorrectionRequired { .. }
        | Stage::Correcting { .. }
        | Stage::Validating { .. }
        | Stage::Invalidated { .. } => None,
    }
}

/// The record of `records` that took `doc`: its evidence hash is the
/// document's and its final candidate tree is the one the document names.
fn taker<'a>(
    records: &'a [StateRecord],
    doc: &CommandEvidenceDocument,
) -> Result<Option<&'a StateRecord>, CanonicalError> {
    let hash = doc.evidence_hash()?;
    Ok(records.iter().find(|r| {
        taken_evidence(r) == Some(hash) && doc.tree.as_ref() == Some(r.state.final_candidate_tree())
    }))
}

/// A bundle holds 1 to `MAX_RECORDS` records and at most
/// `MAX_ATTESTATIONS` envelopes.
fn check_counts(records: usize, attestations: usize) -> Result<(), BundleError> {
    if records == 0 || records > MAX_RECORDS {
        return Err(BundleError::Schema(format!(
            "a bundle holds 1 to {MAX_RECORDS} records, not {records}"
        )));
    }
    if attestations > MAX_ATTESTATIONS {
        return Err(BundleError::Schema(format!(
            "a bundle carries at most {MAX_ATTESTATIONS} attestations"
        )));
    }
    Ok(())
}

/// The receipts a chain projects: one per terminal record, in order.
fn derived_receipts(records: &[StateRecord]) -> Vec<Receipt> {
    records
        .iter()
        .filter_map(|r| Receipt::derive(&r.state))
        .collect()
}

impl Bundle {
    /// Builds the bundle of a chain given generation 1 first; the chain is
    /// verified as an import would verify it. Attestations are sorted and
    /// de-duplicated, so the same envelopes always give the same bytes.
    pub fn build(
        records: Vec<StateRecord>,
        attestations: Vec<DsseEnvelope>,
    ) -> Result<Bundle, BundleError> {
        Self::build_carrying(records, attestations, Vec::new())
    }

    /// [`Self::build`], carrying the command evidence documents among
    /// `evidence` that a record of the chain took (its evidence hash, its
    /// final candidate tree; v2 documents only): the bundle is
    /// `probity.review-bundle/v2` when any is carried, v1 otherwise.
    /// Documents no record took are left out, so a store's leftovers never
    /// change a bundle's bytes.
    pub fn build_carrying(
        records: Vec<StateRecord>,
        mut attestations: Vec<DsseEnvelope>,
        evidence: Vec<CommandEvidenceDocument>,
    ) -> Result<Bundle, BundleError> {
        let leaf = records
            .last()
            .ok_or_else(|| BundleError::Schema("a bundle holds at least one record".into()))?;
        let lineage_id = leaf.state.lineage_id.clone();
        attestations.sort();
        attestations.dedup();
        check_counts(records.len(), attestations.len())?;
        let mut carried = Vec::new();
        for doc in evidence {
            if doc.schema == COMMAND_EVIDENCE_SCHEMA_V2 && taker(&records, &doc)?.is_some() {
                carried.push(doc);
            }
        }
        carried.sort_by_cached_key(|d| d.to_bytes().unwrap_or_default());
        carried.dedup();
        let schema = if carried.is_empty() {
            BundleSchema::V1
        } else {
            BundleSchema::V2
        };
        let receipts = derived_receipts(&records);
        let digest = body_digest(
            schema,
            &lineage_id,
            &records,
            &receipts,
            &attestations,
            &carried,
        )?;
        let bundle = Bundle {
            schema,
            lineage_id,
            records,
            receipts,
            attestations,
            evidence: carried,
            digest,
        };
        bundle.check_chain()?;
        Ok(bundle)
    }

    /// The canonical bytes (RFC 8785), without a trailing newline: a note
    /// line, or a file's content before its one LF.
    pub fn to_bytes(&self) -> Result<Vec<u8>, BundleError> {
        Ok(canonical_bytes(self)?)
    }

    /// Parses and verifies bundle bytes fail-closed: the size bound before
    /// parsing, the strict schema, canonical bytes (one trailing LF
    /// allowed), the digest, every record (revision and validation), the
    /// chain link by link, the receipts and the envelopes' shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Bundle, BundleError> {
        if bytes.len() > MAX_BUNDLE_BYTES {
            return Err(BundleError::TooLarge {
                size: bytes.len(),
                limit: MAX_BUNDLE_BYTES,
            });
        }
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let wire: BundleWire =
            serde_json::from_slice(body).map_err(|e| BundleError::Schema(e.to_string()))?;
        if canonical_bytes(&wire)? != body {
            return Err(BundleError::NotCanonical);
        }
        check_counts(wire.records.len(), wire.attestations.len())?;
        let derived = body_digest(
            wire.schema,
            &wire.lineage_id,
            &wire.records,
            &wire.receipts,
            &wire.attestations,
            &wire.evidence,
        )?;
        if derived != wire.digest {
            return Err(BundleError::Digest {
                stored: wire.digest,
                derived,
            });
        }
        let records = wire
            .records
            .into_iter()
            .enumerate()
            .map(|(index, r)| {
                StateRecord::try_from(r).map_err(|source| BundleError::Record { index, source })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let bundle = Bundle {
            schema: wire.schema,
            lineage_id: wire.lineage_id,
            records,
            receipts: wire.receipts,
            attestations: wire.attestations,
            evidence: wire.evidence,
            digest: wire.digest,
        };
        bundle.check_chain()?;
        Ok(bundle)
    }

    /// The leaf record.
    pub fn leaf(&self) -> Option<&StateRecord> {
        self.records.last()
    }

    /// Whether `record`'s review rests on a maintainer's act anywhere in
    /// its chain (red team round 37's 37ei): it or a record before it
    /// follows an authorized recovery of an escalation, or judged with a
    /// dispute ([`crate::review::ReviewState::rests_on_authorized_act`]).
    /// A successor of an invalidated successor of an authorized recovery
    /// still carries the escalation the act let through; a record this
    /// bundle does not hold is judged on its own.
    pub fn chain_rests_on_authorized_act(&self, record: &StateRecord) -> bool {
        let Some(at) = self.records.iter().position(|r| r == record) else {
            return record.state().rests_on_authorized_act();
        };
        self.records[..=at]
            .iter()
            .any(|r| r.state().rests_on_authorized_act())
    }

    /// The chain, link by link, its receipts and envelopes (the counts and
    /// the digest are checked before: on the wire when reading, by
    /// construction when building).
    fn check_chain(&self) -> Result<(), BundleError> {
        // Every record is valid by construction (a `StateRecord` is made
        // only by core or read through its checked wire form).
        for (index, record) in self.records.iter().enumerate() {
            let generation = index as u32 + 1;
            if record.state.generation != generation {
                return Err(BundleError::Schema(format!(
                    "record {index} is generation {}, expected {generation} (generation 1 first)",
                    record.state.generation
                )));
            }
        }
        if self.records[0].state.predecessor.is_some() {
            return Err(BundleError::Schema(
                "the first record names a predecessor: the chain must start at generation 1".into(),
            ));
        }
        for pair in self.records.windows(2) {
            let (parent, child) = (&pair[0], &pair[1]);
            // Only a final lineage is ever recovered from (R9.2).
            if !parent.state.stage.is_final() {
                return Err(BundleError::Schema(format!(
                    "{} has a successor but is `{}`, not final",
                    parent.state.lineage_id,
                    parent.state.stage.name()
                )));
            }
            check_link(
                &child.state,
                &Ancestor {
                    record: parent.clone(),
                    successor: Some(child.state.lineage_id.clone()),
                },
            )?;
        }
        let leaf = &self.records[self.records.len() - 1];
        if leaf.state.lineage_id != self.lineage_id {
            return Err(BundleError::Schema(format!(
                "lineage_id {} is not the leaf record's ({})",
                self.lineage_id, leaf.state.lineage_id
            )));
        }
        if self.receipts != derived_receipts(&self.records) {
            return Err(BundleError::Receipts(
                "a receipt differs from (or is missing for) the projection of its state".into(),
            ));
        }
        for (index, env) in self.attestations.iter().enumerate() {
            check_envelope(env).map_err(|detail| BundleError::Attestation { index, detail })?;
        }
        let mut sorted = self.attestations.clone();
        sorted.sort();
        sorted.dedup();
        if sorted != self.attestations {
            return Err(BundleError::NotCanonical);
        }
        self.check_evidence()
    }

    /// The carried evidence (v2): present exactly in v2, at most one
    /// document per record, each a v2 command evidence document that a
    /// record of the chain took, sorted by canonical bytes and unique.
    fn check_evidence(&self) -> Result<(), BundleError> {
        match (self.schema, self.evidence.is_empty()) {
            (BundleSchema::V1, false) => {
                return Err(BundleError::Schema(
                    "a probity.review-bundle/v1 carries no evidence".into(),
                ));
            }
            (BundleSchema::V2, true) => {
                return Err(BundleError::Schema(
                    "a probity.review-bundle/v2 carries evidence; without any it is a v1".into(),
                ));
            }
            _ => {}
        }
        if self.evidence.len() > self.records.len() {
            return Err(BundleError::Schema(format!(
                "{} evidence documents for {} records",
                self.evidence.len(),
                self.records.len()
            )));
        }
        let mut keys = Vec::with_capacity(self.evidence.len());
        for (index, doc) in self.evidence.iter().enumerate() {
            let bytes = doc.to_bytes()?;
            CommandEvidenceDocument::parse(&bytes)
                .map_err(|e| BundleError::Schema(format!("evidence {index}: {e}")))?;
            if doc.schema != COMMAND_EVIDENCE_SCHEMA_V2 || taker(&self.records, doc)?.is_none() {
                return Err(BundleError::Schema(format!(
                    "evidence {index} is not the {COMMAND_EVIDENCE_SCHEMA_V2} document a record of the chain took (its evidence hash and final candidate tree)"
                )));
            }
            keys.push(bytes);
        }
        if keys.windows(2).any(|w| w[0] >= w[1]) {
            return Err(BundleError::NotCanonical);
        }
        Ok(())
    }

    /// The command evidence document `record` took, when the bundle
    /// carries it (v2).
    pub fn evidence_of(&self, record: &StateRecord) -> Option<&CommandEvidenceDocument> {
        let taken = taken_evidence(record)?;
        self.evidence.iter().find(|d| {
            d.evidence_hash().ok() == Some(taken)
                && d.tree.as_ref() == Some(record.state.final_candidate_tree())
        })
    }

    /// Whether the leaf is an approved review whose final target is
    /// (base, tree): the bundle delivers a commit with those trees.
    pub fn approves(&self, base: &TreeId, tree: &TreeId) -> bool {
        self.leaf().is_some_and(|r| {
            matches!(r.state.stage, Stage::Approved { .. })
                && r.state.snapshot.base_tree == *base
                && r.state.final_candidate_tree() == tree
        })
    }

    /// The records a signature policy must see vouched for: every approved
    /// record of the chain, not only the leaf (issue 20 §3). An approved
    /// predecessor authorizes the delivery of its own final tree through
    /// the recovery rebind (R8.9), so a signature on a later link alone
    /// would let an unsigned, self-approved earlier link land.
    pub fn records_to_vouch_for(&self) -> Vec<&StateRecord> {
        self.records
            .iter()
            .filter(|r| matches!(r.state.stage, Stage::Approved { .. }))
            .collect()
    }

    /// The tree ids the leaf binds: base, initial candidate and final
    /// candidate, de-duplicated (what the importing repository must hold).
    /// Earlier generations are history: their trees were reviewed but
    /// usually never committed, and they are verified by their bytes
    /// (revision, chain links) only.
    pub fn trees(&self) -> Vec<TreeId> {
        let mut out: Vec<TreeId> = self
            .leaf()
            .map(|r| {
                vec![
                    r.state.snapshot.base_tree.clone(),
                    r.state.snapshot.candidate_tree.clone(),
                    r.state.final_candidate_tree().clone(),
                ]
            })
            .unwrap_or_default();
        out.sort();
        out.dedup();
        out
    }
}

fn is_base64(s: &str) -> bool {
    !s.is_empty()
        && s.len().is_multiple_of(4)
        && s.trim_end_matches('=').len() + 2 >= s.len()
        && s.trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

fn check_envelope(env: &DsseEnvelope) -> Result<(), String> {
    if env.payload_type.is_empty() {
        return Err("payloadType is empty".into());
    }
    if !is_base64(&env.payload) {
        return Err("payload is not standard base64".into());
    }
    if env.signatures.is_empty() {
        return Err("an envelope carries at least one signature".into());
    }
    for s in &env.signatures {
        if !is_base64(&s.sig) {
            return Err(format!(
                "signature of key `{}` is not standard base64",
                s.keyid.as_deref().unwrap_or("(no keyid)")
            ));
        }
    }
    Ok(())
}

/// What the importing repository says about one record's trees: the
/// manifest of (base, initial candidate) and the changed paths of (base,
/// final candidate).
#[derive(Debug, Clone)]
pub struct RepoFacts {
    /// The manifest Git lists between the record's base tree and its
    /// initial (frozen) candidate tree.
    pub initial: Vec<ManifestEntry>,
    /// The paths that differ between the base tree and the final candidate
    /// tree.
    pub final_paths: Vec<RepoPath>,
}

/// Why a verified bundle does not fit the importing repository's objects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// The paths Git lists between the base and initial candidate trees are
    /// not exactly the record's frozen paths.
    #[error(
        "{lineage}: the paths Git lists between its base and candidate trees are not the paths it froze"
    )]
    Paths {
        /// The record's lineage.
        lineage: LineageId,
    },
    /// An intended-untracked path that Git does not list as added by the
    /// candidate.
    #[error("{lineage}: intended-untracked path {path} is not a path the candidate adds")]
    Untracked {
        /// The record's lineage.
        lineage: LineageId,
        /// The intended-untracked path.
        path: RepoPath,
    },
    /// The final candidate tree changes a path outside the frozen paths.
    #[error(
        "{lineage}: its final candidate changes {path}, which is outside the paths it reviewed"
    )]
    FinalScope {
        /// The record's lineage.
        lineage: LineageId,
        /// The first such path.
        path: RepoPath,
    },
}

/// Checks one record against what the repository's objects say: the
/// changed paths of (base, candidate) are exactly the frozen paths, every
/// intended-untracked path is one the candidate adds, and the final
/// candidate changes no path outside them (base-to-final scope).
pub fn check_scope(record: &StateRecord, facts: &RepoFacts) -> Result<(), ScopeError> {
    let s = &record.state;
    let lineage = s.lineage_id.clone();
    let mut listed: Vec<&RepoPath> = facts.initial.iter().map(|e| &e.path).collect();
    listed.sort();
    listed.dedup();
    if listed.len() != s.snapshot.paths.len()
        || listed.iter().zip(&s.snapshot.paths).any(|(a, b)| *a != b)
    {
        return Err(ScopeError::Paths { lineage });
    }
    for path in &s.snapshot.intended_untracked {
        let added = facts
            .initial
            .iter()
            .any(|e| e.path == *path && e.status == ChangeStatus::Added);
        if !added {
            return Err(ScopeError::Untracked {
                lineage,
                path: path.clone(),
            });
        }
    }
    for path in &facts.final_paths {
        if s.snapshot.paths.binary_search(path).is_err() {
            return Err(ScopeError::FinalScope {
                lineage,
                path: path.clone(),
            });
        }
    }
    Ok(())
}

/// Why a record's frozen derivation is not what this build derives from
/// its trees (issue 20 §4): what start froze is re-derived wherever a
/// bundle is verified against a repository's objects, so a bundle cannot
/// claim a lower risk, fewer lenses, a larger budget or prompts other than
/// the ones this build knows (`derivation_mismatch`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DerivationError {
    /// The authored lines (hence the correction budget) differ from what
    /// the trees give.
    #[error("{lineage}: it froze {recorded} authored lines, but its trees give {derived}")]
    AuthoredLines {
        /// The record's lineage.
        lineage: LineageId,
        /// What the record froze.
        recorded: u64,
        /// What the trees give.
        derived: u64,
    },
    /// The record's risk tier is below the tier its trees give (so it
    /// selected fewer lenses than the change requires).
    #[error(
        "{lineage}: it claims risk `{}`, but its trees are `{}` risk: the review ran fewer lenses than the change requires",
        recorded.name(),
        derived.name()
    )]
    RiskUnderstated {
        /// The record's lineage.
        lineage: LineageId,
        /// The tier the record froze.
        recorded: RiskLevel,
        /// The tier the trees give.
        derived: RiskLevel,
    },
    /// A correction raised the tier: the trees from the base to the final
    /// candidate give a higher tier than the review froze (and ran its
    /// lenses and asked its signatures at), red team round 4 (D-R127).
    #[error(
        "{lineage}: its review ran at risk `{}`, but its correction made the delivered tree `{}` risk: the tier a review runs at covers what it approves",
        recorded.name(),
        derived.name()
    )]
    RiskRaisedByCorrection {
        /// The record's lineage.
        lineage: LineageId,
        /// The tier the record froze.
        recorded: RiskLevel,
        /// The tier the base and final candidate trees give.
        derived: RiskLevel,
    },
    /// The record froze prompt digests other than this build's prompts
    /// for its lenses.
    #[error(
        "{lineage}: it froze prompt digests this build does not know (a review run with other prompts, or another Probity version): review it with this version's prompts"
    )]
    Prompts {
        /// The record's lineage.
        lineage: LineageId,
    },
}

/// The tier the newest built-in policy gives `changed` between trees
/// holding `trees` (their links, their auto-run configurations).
pub fn newest_tier(changed: &[ChangedFile], trees: TreeInputs<'_>) -> RiskLevel {
    let newest = RiskPolicy::newest();
    newest
        .classify_in(changed, authored_lines(newest, changed), trees)
        .level()
}

/// Re-derives what start froze for `record` from `changed`, the files
/// Git lists between its base and initial candidate trees (with modes,
/// line counts and leading content, as start observed them), and `links`,
/// the symbolic links of those two trees (D-R131): the authored
/// lines (which the budget derives from) equal under the built-in policy
/// the record names, the risk tier at least the one the newest built-in
/// policy derives, whatever policy the record names (a record cannot
/// choose a weaker one; D-R114; lens selection follows the tier, checked
/// when the record was read), and frozen prompt digests, when present,
/// this build's for its lenses.
pub fn check_derivation(
    record: &StateRecord,
    changed: &[ChangedFile],
    links: &[Symlink],
    prompts: &PromptSet,
) -> Result<(), DerivationError> {
    check_derivation_in(
        record,
        changed,
        TreeInputs {
            links,
            ..TreeInputs::default()
        },
        prompts,
    )
}

/// [`check_derivation`] with everything the newest policy reads from the
/// two trees: their links and the auto-run configurations whose
/// references it follows (v5, D-R135), which a gate reads from the trees
/// as `start` does.
pub fn check_derivation_in(
    record: &StateRecord,
    changed: &[ChangedFile],
    trees: TreeInputs<'_>,
    prompts: &PromptSet,
) -> Result<(), DerivationError> {
    let s = &record.state;
    let lineage = s.lineage_id.clone();
    let frozen = &s.frozen;
    // The policy digest is a built-in policy's already: a record naming
    // another is refused when it is read (`ReviewState::validate`).
    let own = RiskPolicy::builtin(&frozen.policy_hash).unwrap_or(RiskPolicy::newest());
    let lines = authored_lines(own, changed);
    if frozen.authored_lines != lines {
        return Err(DerivationError::AuthoredLines {
            lineage,
            recorded: frozen.authored_lines,
            derived: lines,
        });
    }
    let derived = newest_tier(changed, trees);
    if frozen.risk_level.rank() < derived.rank() {
        return Err(DerivationError::RiskUnderstated {
            lineage,
            recorded: frozen.risk_level,
            derived,
        });
    }
    if let Some(p) = &frozen.prompts
        && *p != prompts.freeze(&frozen.selected_lenses)
    {
        return Err(DerivationError::Prompts { lineage });
    }
    Ok(())
}

/// Whether `record`'s correction raised its tier (D-R127): `changed` are
/// the files Git lists between its base and its final candidate trees (a
/// corrected record's; without a correction they are
/// [`check_derivation`]'s), `links` the symbolic links of those two
/// trees. The tier is derived with the newest built-in risk policy, as
/// [`check_derivation`] derives it: a tier above the one frozen is
/// refused, whatever signed the review, for its lenses ran and its roles
/// were asked at the frozen one.
pub fn check_final_tier(
    record: &StateRecord,
    changed: &[ChangedFile],
    links: &[Symlink],
) -> Result<(), DerivationError> {
    check_final_tier_in(
        record,
        changed,
        TreeInputs {
            links,
            ..TreeInputs::default()
        },
    )
}

/// [`check_final_tier`] with everything the newest policy reads from the
/// two trees (see [`check_derivation_in`]).
pub fn check_final_tier_in(
    record: &StateRecord,
    changed: &[ChangedFile],
    trees: TreeInputs<'_>,
) -> Result<(), DerivationError> {
    let frozen = record.state.frozen.risk_level;
    let derived = newest_tier(changed, trees);
    if frozen.rank() < derived.rank() {
        return Err(DerivationError::RiskRaisedByCorrection {
            lineage: record.state.lineage_id.clone(),
            recorded: frozen,
            derived,
        });
    }
    Ok(())
}

/// The bundle a gate checks signatures and roles against for `b`, a line
/// of a note: `b` with the attestations of every bundle of the same
/// lineage in that note (`note`), sorted and without duplicates. Signers
/// in parallel clones each publish a line carrying their own envelope, and
/// the note's own merge keeps both lines: their signatures count together
/// (red team round 3). An envelope that vouches for another statement
/// than `b`'s records derive verifies for nothing, so a line cannot lend
/// authority it does not carry for these records. Bounded by the note:
/// at most [`MAX_NOTE_BUNDLES`] bundles of [`MAX_ATTESTATIONS`] each.
pub fn with_note_attestations(b: &Bundle, note: &[&Bundle]) -> Bundle {
    let mut all: Vec<DsseEnvelope> = b.attestations.clone();
    for other in note.iter().filter(|o| o.lineage_id == b.lineage_id) {
        all.extend(other.attestations.iter().cloned());
    }
    all.sort();
    all.dedup();
    let mut out = b.clone();
    out.attestations = all;
    out
}

/// A lineage's kept list (its attestations, its command evidence) with
/// At most this many command evidence documents are kept per lineage (a
/// lineage takes one; a retry of the same check adds none).
pub const MAX_EVIDENCE_PER_LINEAGE: usize = 8;

/// A lineage's kept list would hold more than its bound (the bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than {0} entries for one lineage")]
pub struct TooMany(pub usize);

/// `added` merged into a lineage's `kept` list (attestations, evidence
/// documents) as every store keeps it: sorted and without duplicates;
/// `Ok(None)` when that is `kept` as it is (nothing new: nothing to
/// write), [`TooMany`] when it would hold more than `max` entries (nothing
/// written).
pub fn merged_bounded<T: Ord + Clone>(
    kept: &[T],
    added: &[T],
    max: usize,
) -> Result<Option<Vec<T>>, TooMany> {
    let mut all: Vec<T> = kept.iter().chain(added).cloned().collect();
    all.sort();
    all.dedup();
    if all == kept {
        return Ok(None);
    }
    if all.len() > max {
        return Err(TooMany(max));
    }
    Ok(Some(all))
}

#[cfg(test)]
mod merged_tests {
    use super::{TooMany, merged_bounded};

    #[test]
    fn sorts_drops_duplicates_bounds_and_says_when_nothing_is_new() {
        assert_eq!(
            merged_bounded(&[1, 3], &[2, 3, 2], 3),
            Ok(Some(vec![1, 2, 3]))
        );
        assert_eq!(merged_bounded(&[1, 3], &[3], 3), Ok(None), "nothing new");
        assert_eq!(merged_bounded::<u8>(&[], &[], 0), Ok(None));
        // A kept list out of order is written again, in order.
        assert_eq!(merged_bounded(&[3, 1], &[], 2), Ok(Some(vec![1, 3])));
        // One more than the bound is refused; at the bound is kept.
        assert_eq!(merged_bounded(&[1, 2], &[3], 2), Err(TooMany(2)));
        assert_eq!(merged_bounded(&[1], &[2], 2), Ok(Some(vec![1, 2])));
    }
}

mod note;
pub use note::*;

#[cfg(test)]
mod tests;
