//! The in-toto statements a bundle's envelopes must vouch for: the one a
//! repository derives for a terminal record (its receipt and the canonical
//! candidate manifest of its trees), and which records of a chain a
//! signature policy asks a signature for (D-R55).

use probity_core::review::Bundle;
use probity_core::review::LineageId;
use probity_core::review::StateRecord;
use probity_core::review::{manifest_bytes, statement, statement_bytes};

use super::transport::TransportError;
use super::*;

/// The in-toto statement this repository derives for a bundle's leaf: its
/// receipt (derived from its state, as the gate does) and the canonical
/// candidate manifest from the leaf's trees.
pub fn leaf_statement<G: ManifestGit>(git: &G, bundle: &Bundle) -> Result<Vec<u8>, TransportError> {
    let leaf = bundle
        .records
        .last()
        .ok_or_else(|| TransportError::Review(ReviewError::NoReview))?;
    record_statement(git, leaf)
}

/// The in-toto statement this repository derives for one terminal
/// record: its receipt and the canonical candidate manifest of its (base,
/// final candidate) trees.
pub fn record_statement<G: ManifestGit>(
    git: &G,
    record: &StateRecord,
) -> Result<Vec<u8>, TransportError> {
    use probity_core::review::Receipt;
    let receipt = Receipt::derive(record.state()).ok_or_else(|| {
        TransportError::Review(ReviewError::NotTerminal {
            lineage: record.state().lineage_id().clone(),
            state: record.state().stage().name(),
        })
    })?;
    let entries = git.manifest(TreeSpan {
        from: &receipt.base_tree,
        to: &receipt.final_candidate_tree,
    })?;
    let manifest = manifest_bytes(&receipt, entries)
        .map_err(|e| TransportError::Review(ReviewError::State(e.into())))?;
    statement_bytes(&statement(&receipt, &manifest))
        .map_err(|e| TransportError::Review(ReviewError::State(e.into())))
}

/// The statements a signature policy must see vouched for, with their
/// lineages: one per approved record of the chain (core's
/// [`Bundle::records_to_vouch_for`]) whose base and final trees this
/// repository holds. A record whose trees are absent here authorizes no
/// delivery here (a delivery carries both trees), so it needs no
/// signature here.
pub fn statements_to_vouch_for<G: ExportGit + ManifestGit>(
    git: &G,
    bundle: &Bundle,
) -> Result<Vec<(LineageId, Vec<u8>)>, TransportError> {
    let mut out = Vec::new();
    for record in bundle.records_to_vouch_for() {
        let s = record.state();
        let pair = [
            s.snapshot().base_tree.to_string(),
            s.final_candidate_tree().to_string(),
        ];
        if !git.missing_objects(&pair)?.is_empty() {
            continue;
        }
        out.push((s.lineage_id().clone(), record_statement(git, record)?));
    }
    Ok(out)
}
