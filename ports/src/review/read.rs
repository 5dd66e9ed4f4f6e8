//! Read-only use cases: status, export-context and attest.

use probity_core::review::GateProof;
use probity_core::review::Receipt;
use probity_core::review::{ContextExport, MAX_DIFF_BYTES, build_export, over_budget};
use probity_core::review::{LineageId, RepoPath};
use probity_core::review::{ListRow, list_row, sort_rows};
use probity_core::review::{StateError, StateRecord};
use probity_core::review::{manifest_bytes, statement, statement_bytes};

use super::*;

/// What status reports.
#[derive(Debug, Clone)]
pub struct Status {
    /// The lineage reported: the one named, or the one discovery found.
    pub record: StateRecord,
    /// How that lineage relates to the live candidate.
    pub applicability: Applicability,
    /// The paths in which the live candidate differs from the lineage's
    /// final candidate (or that the rebase proof found differing); empty
    /// when `current` or `rebased`.
    pub differing_paths: Vec<RepoPath>,
    /// The receipt the state derives, for an approved or escalated lineage
    /// only.
    pub receipt: Option<Receipt>,
    /// The successor that supersedes this lineage, if any.
    pub superseded_by: Option<LineageId>,
    /// The rebase proof, when the applicability is `rebased`.
    pub proof: Option<GateProof>,
}

/// `probity list` (issue 21 §8): one row per lineage the store holds, with
/// its successor as the store's marker names it and the commit that holds
/// its change (final, else frozen candidate), aged at `now` (the caller's
/// clock); the rows and their order are core's (`listing::list_row`,
/// `listing::sort_rows`). Read-only; a lineage that does not load fails
/// the listing closed, naming it.
pub fn list<G: GitPort, S: RecordStore + ChainStore + LineageListing>(
    git: &G,
    store: &S,
    now: &probity_core::review::Timestamp,
) -> Result<Vec<ListRow>, ReviewError> {
    let mut rows = Vec::new();
    for lineage in store.lineages()? {
        let record = store.get(&lineage)?;
        let successor = store.successor_of(&lineage)?;
        let s = record.state();
        let mut commit = None;
        for end in [s.final_candidate_tree(), &s.snapshot().candidate_tree] {
            if let Some(c) = git.committed_commit(TreeSpan {
                from: &s.snapshot().base_tree,
                to: end,
            })? {
                commit = Some(c.commit);
                break;
            }
        }
        let marked = match s.predecessor() {
            Some(link) => store.successor_of(&link.lineage_id)?.as_ref() == Some(&lineage),
            None => true,
        };
        rows.push(list_row(&record, successor, marked, commit, now));
    }
    sort_rows(&mut rows);
    Ok(rows)
}

/// `probity export-context --lineage L` (R10.2): read-only, for any lineage
/// the store holds (current or not, from any worktree of the clone). Fails
/// closed with a distinct reason: `not_found`, `corrupted` (the store's
/// load), `objects_missing`, `budget_exceeded`, or a manifest that does not
/// match the record.
pub fn export_context<G: GitPort + ExportGit + ManifestGit, S: RecordStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Exported, ReviewError> {
    let record = store.get(lineage)?;
    let snap = record.state().snapshot();
    let (base, cand) = (&snap.base_tree, &snap.candidate_tree);
    let trees = vec![base.to_string(), cand.to_string()];
    let missing = git.missing_objects(&trees)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let manifest = git.manifest(TreeSpan {
        from: base,
        to: cand,
    })?;
    let blobs: Vec<String> = manifest
        .iter()
        .flat_map(|m| [&m.old_blob, &m.new_blob])
        .flatten()
        .map(ToString::to_string)
        .collect();
    let missing = git.missing_objects(&blobs)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let version = git.version()?;
    let diff = git
        .frozen_diff(
            TreeSpan {
                from: base,
                to: cand,
            },
            MAX_DIFF_BYTES,
        )?
        .ok_or_else(|| over_budget(&record, MAX_DIFF_BYTES + 1, &version))?;
    let live = git.live_target()?;
    let relation = relate(git, &record, &live)?;
    let envelope = build_export(&record, relation.applicability, &diff, manifest, version)?;
    Ok(Exported { envelope, diff })
}

/// An attestation: the in-toto statement's canonical bytes and the
/// canonical candidate manifest its subject names.
#[derive(Debug, Clone)]
pub struct Attested {
    /// The in-toto Statement v1, as RFC 8785 canonical JSON.
    pub statement: Vec<u8>,
    /// The canonical candidate manifest (base tree to final candidate
    /// tree), whose SHA-256 the statement's subject names.
    pub manifest: Vec<u8>,
}

/// `probity attest --lineage L` (R12.7): a terminal lineage's receipt as an
/// in-toto Statement v1 whose subject is the canonical candidate manifest
/// (base tree to final candidate tree) and the final tree's `gitTree`
/// digest. Read-only; the receipt is derived from state, as the gate does.
pub fn attest<G: ExportGit + ManifestGit, S: RecordStore + ChainStore>(
    git: &G,
    store: &S,
    lineage: &LineageId,
) -> Result<Attested, ReviewError> {
    let record = store.get(lineage)?;
    supersession(store, &record)?;
    let receipt = Receipt::derive(record.state()).ok_or_else(|| ReviewError::NotTerminal {
        lineage: lineage.clone(),
        state: record.state().stage().name(),
    })?;
    let trees = vec![
        receipt.base_tree.to_string(),
        receipt.final_candidate_tree.to_string(),
    ];
    let missing = git.missing_objects(&trees)?;
    if !missing.is_empty() {
        return Err(ReviewError::ObjectsMissing {
            lineage: lineage.clone(),
            objects: missing,
        });
    }
    let entries = git.manifest(TreeSpan {
        from: &receipt.base_tree,
        to: &receipt.final_candidate_tree,
    })?;
    let manifest = manifest_bytes(&receipt, entries).map_err(StateError::from)?;
    let statement = statement_bytes(&statement(&receipt, &manifest)).map_err(StateError::from)?;
    Ok(Attested {
        statement,
        manifest,
    })
}

/// An export: the envelope, and the diff bytes it carries in base64.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The frozen-context envelope (R10.2).
    pub envelope: ContextExport,
    /// The pinned diff from the base tree to the frozen candidate tree, raw
    /// (at most `MAX_DIFF_BYTES`).
    pub diff: Vec<u8>,
}

/// `probity status [--lineage L]`: a lineage (given, or the live candidate's,
/// or the latest approved on the live base) and its applicability.
pub fn status<G: GitPort, S: RecordStore + ChainStore + IndexStore>(
    git: &G,
    store: &S,
    lineage: Option<&LineageId>,
) -> Result<Option<Status>, ReviewError> {
    let live = git.live_target()?;
    // The same discovery as the gates, so status and the gate agree.
    let (record, relation) = match lineage {
        Some(l) => {
            let record = store.get(l)?;
            let relation = relate(git, &record, &live)?;
            (record, relation)
        }
        None => match discover(git, store, &live)?.applicability() {
            Some((r, relation)) => (r.clone(), relation),
            None => return Ok(None),
        },
    };
    let receipt = Receipt::derive(record.state());
    // Fails closed on a broken chain; reports the immediate successor.
    supersession(store, &record)?;
    let superseded_by = store.successor_of(record.state().lineage_id())?;
    Ok(Some(Status {
        record,
        applicability: relation.applicability,
        differing_paths: relation.differing_paths,
        receipt,
        superseded_by,
        proof: relation.proof,
    }))
}
