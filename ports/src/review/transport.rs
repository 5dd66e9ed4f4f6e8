//! Authority that travels with the commits (R11): exporting a lineage's
//! chain as a bundle, verifying and importing one, and the server-side gate
//! that judges a push against the authority the pushed notes carry — never
//! against the server's own store. Publishing bundles as Git notes on the
//! delivery commits is [`super::publish`].

use probity_core::review::PromptSet;
use probity_core::review::{
    Bundle, BundleError, DerivationError, IMPORT_RANKS, MAX_NOTE_BYTES, MAX_RECORDS, NoteAuthority,
    NoteError, RefusedBundle, RepoFacts, ScopeError, check_derivation_in, check_final_tier_in,
    check_scope, import_rank, note_lines, notes_denial, refused_bundles,
};
use probity_core::review::{ChangedFile, CommitId, LineageId, TreeId};
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{GateDecision, MAX_RANGE_COMMITS, Vouching, published_tips};
use probity_core::review::{
    NOTES_REF, ReceiveUpdate, check_deletion, check_notes_ref_blocker, check_replace_ref,
    is_protected,
};

use super::note_cache::{CheckRefusal, Checked, NoteCache, ParsedNote};
use super::notes_update::{Holds, notes_after};
use super::parents::{BundlePolicy, unbound_approval, under_parents};

use super::*;

/// Why a bundle could not be exported, verified, imported or published.
/// Whatever the variant, nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The bundle's bytes do not verify (shape, digest, chain, receipts) or
    /// a bundle could not be built from the store (R11.1).
    #[error(transparent)]
    Bundle(Box<BundleError>),
    /// An existing note on a delivery commit cannot be read as bundles.
    #[error("the note on {commit}: {source}")]
    Note {
        /// The commit the note annotates.
        commit: CommitId,
        /// Why the note is refused.
        #[source]
        source: Box<NoteError>,
    },
    /// The leaf's trees hold other changed paths than its frozen ones, or
    /// its untracked or final paths leave the reviewed scope.
    #[error("the bundle does not fit this repository's objects: {0}")]
    Scope(#[from] ScopeError),
    /// What a record froze at start (risk, authored lines, prompts) is not
    /// what its trees give (`derivation_mismatch`, issue 20 §4).
    #[error("the bundle's review is not what its trees give: {0}")]
    Derivation(#[from] DerivationError),
    /// A tree the bundle's leaf binds is not in this repository.
    #[error("this repository lacks objects the bundle binds: {}", objects.join(", "))]
    ObjectsMissing {
        /// The missing tree ids, as hex.
        objects: Vec<String>,
    },
    /// The store holds a record of the chain differently, another
    /// successor, or another lineage owning a candidate (`import_conflict`):
    /// never merged.
    #[error("the bundle conflicts with the store: {detail}")]
    Conflict {
        /// The bundle's lineage that conflicts.
        lineage: LineageId,
        /// What the store holds instead.
        detail: String,
    },
    /// A driver or store failure (the repository, the store, a lookup).
    #[error(transparent)]
    Review(#[from] ReviewError),
}

impl From<BundleError> for TransportError {
    fn from(e: BundleError) -> Self {
        TransportError::Bundle(Box::new(e))
    }
}

impl From<StoreError> for TransportError {
    fn from(e: StoreError) -> Self {
        TransportError::Review(ReviewError::Store(e))
    }
}

/// Core's refusal of a new lineage, as a store's refusal.
impl From<probity_core::review::NewLineageError> for TransportError {
    fn from(e: probity_core::review::NewLineageError) -> Self {
        TransportError::Review(e.into())
    }
}

/// A Git port's error, as a driver's: `ReviewError::Repository`.
impl From<AdapterError> for TransportError {
    fn from(e: AdapterError) -> Self {
        TransportError::Review(ReviewError::Repository(e))
    }
}

impl TransportError {
    /// The stable code of a transport failure (a driver error keeps its
    /// own mapping in the CLI).
    pub fn code(&self) -> Option<&'static str> {
        match self {
            TransportError::Bundle(b) => Some(b.code()),
            TransportError::Note { source, .. } => Some(source.code()),
            TransportError::Scope(_) => Some("bundle_scope_mismatch"),
            TransportError::Derivation(DerivationError::RiskRaisedByCorrection { .. }) => {
                Some("risk_raised_by_correction")
            }
            TransportError::Derivation(_) => Some("derivation_mismatch"),
            TransportError::ObjectsMissing { .. } => Some("objects_missing"),
            TransportError::Conflict { .. } => Some("import_conflict"),
            TransportError::Review(ReviewError::Repository(e)) => {
                super::error::refused_code(e.as_ref())
            }
            TransportError::Review(_) => None,
        }
    }
}

/// `probity bundle export --lineage L`: the chain of `L` from generation 1
/// to its leaf (following supersession past `L`), every link checked, with
/// the envelopes the store keeps for any lineage of the chain.
pub fn export_bundle<S: RecordStore + ChainStore + AttestationStore>(
    store: &S,
    lineage: &LineageId,
) -> Result<Bundle, TransportError> {
    let record = store.get(lineage)?;
    // Checks the chain above `record` and every link below it.
    supersession(store, &record)?;
    let mut above = Vec::new();
    let mut link = record.state().predecessor().cloned();
    while let Some(l) = link {
        if above.len() >= MAX_RECORDS {
            break;
        }
        let r = store.get(&l.lineage_id)?;
        link = r.state().predecessor().cloned();
        above.push(r);
    }
    above.reverse();
    let mut records = above;
    records.push(record.clone());
    let mut current = record.state().lineage_id().clone();
    while let Some(next) = store.successor_of(&current)? {
        if records.len() >= MAX_RECORDS {
            break;
        }
        let r = store.get(&next)?;
        current = next;
        records.push(r);
    }
    // The envelopes kept for every lineage of the chain (import keeps a
    // bundle's envelopes with its leaf): a signature policy asks for one
    // per approved record, not only the leaf's (issue 20 §3).
    let mut attestations = Vec::new();
    let mut evidence = Vec::new();
    for r in &records {
        attestations.extend(store.attestations(r.state().lineage_id())?);
        evidence.extend(store.evidence(r.state().lineage_id())?);
    }
    // Core keeps only the documents a record took (D-R69).
    Ok(Bundle::build_carrying(records, attestations, evidence)?)
}

/// Checks a verified bundle against this repository's objects: every tree
/// the leaf binds is present (`objects_missing` otherwise), the changed
/// paths of its (base, candidate) are exactly the frozen paths, its
/// intended-untracked paths are ones the candidate adds, and its final
/// candidate stays within the reviewed paths. Earlier generations are
/// history, verified by their bytes only: their trees were reviewed, not
/// necessarily ever committed or pushed.
pub fn check_repo<G: GitPort + ExportGit + ManifestGit>(
    git: &G,
    bundle: &Bundle,
) -> Result<(), TransportError> {
    let trees: Vec<String> = bundle.trees().iter().map(|t| t.to_string()).collect();
    let missing = git.missing_objects(&trees)?;
    if !missing.is_empty() {
        return Err(TransportError::ObjectsMissing { objects: missing });
    }
    if let Some(record) = bundle.leaf() {
        let s = record.state();
        let initial = git.manifest(TreeSpan::from(s.snapshot()))?;
        let final_paths = if s.final_candidate_tree() == &s.snapshot().candidate_tree {
            initial.iter().map(|e| e.path.clone()).collect()
        } else {
            git.differing_paths(TreeSpan {
                from: &s.snapshot().base_tree,
                to: s.final_candidate_tree(),
            })?
        };
        check_scope(
            record,
            &RepoFacts {
                initial,
                final_paths,
            },
        )?;
    }
    // What start froze is re-derived from every record's own trees (each
    // generation observed its own candidate): a bundle cannot claim a
    // lower risk, fewer lenses or a larger budget than its change gives,
    // nor prompts this build does not know. The leaf's trees are here
    // (checked above); an earlier generation's initial trees may never
    // have been pushed, and such a record is history verified by its
    // bytes only.
    let prompts = PromptSet::builtin();
    let mut present = Vec::new();
    for record in &bundle.records {
        let snap = record.state().snapshot();
        let pair = [snap.base_tree.to_string(), snap.candidate_tree.to_string()];
        if git.missing_objects(&pair)?.is_empty() {
            present.push(record);
        }
    }
    // The tier follows the trees' symbolic links (D-R131): every tree
    // re-derived here is listed once, in one request.
    let leaf_final = bundle.leaf().map(|r| r.state().final_candidate_tree());
    let mut trees: Vec<&TreeId> = present
        .iter()
        .flat_map(|r| {
            [
                &r.state().snapshot().base_tree,
                &r.state().snapshot().candidate_tree,
            ]
        })
        .chain(leaf_final)
        .collect();
    trees.sort();
    trees.dedup();
    let listed = git.symlinks(&trees)?;
    // And the auto-run configurations whose references the newest policy
    // follows (D-R135), read once per tree through the object reader.
    let mut configs = Vec::with_capacity(trees.len());
    for (tree, links) in trees.iter().zip(&listed) {
        configs.push(super::start::run_configs(git, &[*tree], links)?);
    }
    // What the newest policy reads of a span's two trees: their links and
    // configurations (read above), the attributes of its changed files.
    let facts = |span: TreeSpan<'_>, changed: &[ChangedFile]| {
        Ok::<_, TransportError>(super::start::TreeFacts {
            links: super::start::of_span(&trees, &listed, span),
            configs: super::start::of_span(&trees, &configs, span),
            attributes: super::start::attribute_files(git, &[span.from, span.to], changed)?,
        })
    };
    for record in present {
        let span = TreeSpan::from(record.state().snapshot());
        let changed = git.diff_files(span)?;
        let facts = facts(span, &changed)?;
        check_derivation_in(record, &changed, facts.inputs(), &prompts)?;
    }
    // The leaf's correction tree (here: checked above) is what its
    // approval covers: its tier may not exceed the one the review ran at
    // (D-R127). An earlier generation authorizes nothing; its successor
    // re-froze the tree.
    if let Some(record) = bundle.leaf() {
        let snap = record.state().snapshot();
        let last = record.state().final_candidate_tree();
        if *last != snap.candidate_tree {
            let span = TreeSpan {
                from: &snap.base_tree,
                to: last,
            };
            let corrected = git.diff_files(span)?;
            check_final_tier_in(record, &corrected, facts(span, &corrected)?.inputs())?;
        }
    }
    Ok(())
}

/// Parses and fully verifies bundle bytes, then checks them against this
/// repository's objects. Nothing is written.
pub fn verify_bundle<G: GitPort + ExportGit + ManifestGit>(
    git: &G,
    bytes: &[u8],
) -> Result<Bundle, TransportError> {
    let bundle = Bundle::from_bytes(bytes)?;
    check_repo(git, &bundle)?;
    Ok(bundle)
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The bundle's lineage (its leaf).
    pub lineage_id: LineageId,
    /// Records written now, or completed now after an interrupted import
    /// (0: the store already held the whole chain, every record reached).
    pub written: usize,
    /// Records the bundle carries: its whole chain, generation 1 first.
    pub records: usize,
}

fn conflict(lineage: &LineageId, detail: impl Into<String>) -> TransportError {
    TransportError::Conflict {
        lineage: lineage.clone(),
        detail: detail.into(),
    }
}

/// Imports a verified bundle (see [`verify_bundle`]): every record the
/// store lacks is created in generation order (a successor under its
/// predecessor's lock, as recovery writes it), and every projection
/// (receipt, indexes) is written. Idempotent: records the store holds
/// byte-identical are kept, and what an interrupted import left unfinished
/// (a record written but not yet indexed or marked) is completed. A record the store holds differently, a
/// predecessor with another successor, or a target another lineage owns is
/// `import_conflict`, found before anything is written: never merged.
pub fn import_bundle<S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore>(
    store: &S,
    bundle: &Bundle,
) -> Result<Imported, TransportError> {
    let chain: Vec<&LineageId> = bundle
        .records
        .iter()
        .map(|r| r.state().lineage_id())
        .collect();
    let mut new = Vec::new();
    for (i, r) in bundle.records.iter().enumerate() {
        let id = r.state().lineage_id();
        match store.load(id)? {
            Some(existing) if existing == *r => new.push(false),
            Some(existing) => {
                return Err(conflict(
                    id,
                    format!(
                        "the store holds {id} at revision {}, the bundle at {}",
                        existing.revision(),
                        r.revision()
                    ),
                ));
            }
            None => new.push(true),
        }
        if let Some(next) = bundle.records.get(i + 1) {
            match store.successor_of(id)? {
                Some(s) if s != *next.state().lineage_id() => {
                    return Err(conflict(
                        id,
                        format!(
                            "the store's {id} is superseded by {s}, the bundle's by {}",
                            next.state().lineage_id()
                        ),
                    ));
                }
                _ => {}
            }
        }
        if new[i]
            && let Some(owner) = store.lookup_target(&r.state().snapshot().target)?
            && !chain.contains(&&owner)
        {
            return Err(conflict(
                id,
                format!("the store's lineage {owner} already owns this candidate"),
            ));
        }
    }
    let mut written = 0;
    for (i, (r, is_new)) in bundle.records.iter().zip(&new).enumerate() {
        // A record the store already holds goes through its creation again
        // too: an import stopped after the record was written (SIGKILL,
        // power loss) and before its target index or successor marker
        // named it left a review nothing can reach, and the store's
        // creation is an exact retry that finishes it (answering
        // `Existing` when there was nothing left to do; D-R65).
        // The bundle's chain starts at generation 1 and each record follows
        // the one before it (checked when it was read): the first is
        // created as a first record, every other as its predecessor's
        // successor, each only once core's check made it one.
        let created = match i.checked_sub(1).and_then(|p| bundle.records.get(p)) {
            Some(pred) => {
                let successor = Successor::check(pred, r.clone())?;
                store.create_successor(&successor)?
            }
            None => store.create(&FirstRecord::check(r.clone())?)?,
        };
        match created {
            Created::New => written += 1,
            Created::Existing(other) if other == *r.state().lineage_id() => {
                if *is_new {
                    written += 1;
                }
            }
            // Held and already reached: its target belongs to its chain,
            // which the store may have carried further than the bundle.
            Created::Existing(_) if !is_new => {}
            Created::Existing(other) => {
                return Err(conflict(
                    r.state().lineage_id(),
                    format!("lineage {other} took this candidate meanwhile"),
                ));
            }
        }
    }
    for r in &bundle.records {
        store.ensure_projections(r)?;
    }
    if !bundle.attestations.is_empty() {
        store.add_attestations(&bundle.lineage_id, &bundle.attestations)?;
    }
    for r in &bundle.records {
        if let Some(doc) = bundle.evidence_of(r) {
            store.add_evidence(r.state().lineage_id(), std::slice::from_ref(doc))?;
        }
    }
    Ok(Imported {
        lineage_id: bundle.lineage_id.clone(),
        written,
        records: bundle.records.len(),
    })
}

/// A denial of the server-side gate that is not a delivery judgment: the
/// notes ref's append-only rule, or authority in a note that does not
/// verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveDenial {
    /// The stable reason code (a note, bundle, scope or signature code).
    pub reason_code: String,
    /// The ref whose update is refused: the notes ref.
    pub refname: String,
    /// The commit whose note carried the refused authority; `None` when the
    /// notes ref's own update is refused.
    pub commit: Option<CommitId>,
    /// What is wrong, for people.
    pub message: String,
    /// What to do next (`repair`, `sign`).
    pub next_action: &'static str,
}

impl ReceiveDenial {
    /// The denial a note's refused line gives when no bundle of the note
    /// proved anything.
    fn of_refused(r: &RefusedBundle) -> Self {
        ReceiveDenial {
            reason_code: r.reason_code.clone(),
            refname: NOTES_REF.into(),
            commit: Some(r.commit.clone()),
            message: r.message.clone(),
            next_action: r.next_action,
        }
    }
}

/// What the server-side gate answers.
#[derive(Debug, Clone)]
pub enum PreReceive {
    /// Refused: the notes ref's own update, or the authority meant to prove
    /// a delivery (no bundle of its note imported).
    Denied(ReceiveDenial),
    /// The pre-push judgment of the protected updates against the
    /// authority the notes carry (allow or deny), with every note line that
    /// gave no authority (reported, never fatal while the judgment stands
    /// on other bundles).
    Judged(GateDecision, Vec<RefusedBundle>),
}

/// Which updates the server-side gate judges.
#[derive(Debug, Clone)]
pub enum ReceiveScope {
    /// A `pre-receive` hook: the protected refs (`probity.protectedRefs`),
    /// measured against this repository's own refs (`remote` is its path,
    /// asked with `ls-remote` for a ref being created).
    Hook {
        /// This repository's own path, as `ls-remote` is given it.
        remote: String,
        /// The default branch's tip when it governs, else the common
        /// ancestors of every protected tip: a new protected ref is
        /// measured against the history they hold alone
        /// ([`Vouching::Governed`]).
        default_branch: Vec<CommitId>,
    },
    /// CI over a pushed range: every given update is judged.
    Range,
}

/// The server-side gate (`probity validate --gate pre-receive`): the notes
/// ref may only fast-forward; for each judged update, every bundle in the
/// notes (as they will be after this push) of the commits it brings in is
/// re-verified from its bytes and this repository's objects, checked by
/// `signature_policy` (the hook point for signed attestations), and
/// imported into `scratch` — a store that must start empty and is never
/// the server's own; then the updates are judged exactly as the pre-push
/// gate judges them, against `scratch`.
pub fn pre_receive<G, S, P>(
    git: &G,
    scratch: &S,
    updates: &[ReceiveUpdate],
    scope: &ReceiveScope,
    policy: P,
) -> Result<PreReceive, TransportError>
where
    G: GitPort + DeliveryGit + ExportGit + ManifestGit + NotesGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
    P: BundlePolicy,
{
    let signature_policy = |b: &Bundle| policy.judge(b);
    let updated: Vec<&str> = updates.iter().map(|u| u.refname.as_str()).collect();
    let globs = match scope {
        ReceiveScope::Hook { .. } => git.protected_refs()?,
        ReceiveScope::Range => Vec::new(),
    };
    // What a notes update's stored bytes are measured against: at the hook
    // the protected history alone, as the push leaves it (D-R147); in a CI
    // form every ref and the updates given.
    let holds = || -> Result<Holds, TransportError> {
        let ReceiveScope::Hook { .. } = scope else {
            return Ok(Holds::EveryRef(
                updates
                    .iter()
                    .filter(|o| o.refname != NOTES_REF)
                    .filter_map(|o| o.new.clone())
                    .collect(),
            ));
        };
        let mut held = published_tips(
            git.own_tips()?,
            &updated,
            &Vouching::Protected(globs.clone()),
        );
        // A judged tip holds the commit it names, peeled: a tag object at
        // a tree (which git refuses on a branch only after this hook, and
        // a push without `--atomic` keeps the notes) holds nothing (red
        // team round 8).
        for u in updates.iter().filter(|u| is_protected(&globs, &u.refname)) {
            if let Some(new) = &u.new
                && let Some(c) = git.peel_commit(new)?
            {
                held.push(c);
            }
        }
        Ok(Holds::Only(held))
    };
    let notes = match notes_after(git, updates, holds)? {
        Ok(n) => n,
        Err(d) => return Ok(PreReceive::Denied(d)),
    };
    let (judged, published): (Vec<&ReceiveUpdate>, Vouching) = match scope {
        ReceiveScope::Hook { default_branch, .. } => {
            if let Some(d) = super::notes_update::left_to_notes(git, updates, notes.as_ref())? {
                return Ok(PreReceive::Denied(d));
            }
            let allowed = git.allows_protected_deletion()?;
            // A protected ref's deletion withdraws published history:
            // refused unless the server allows it (issue 21 §1).
            // A ref that would block the notes ref is refused too (D-R149),
            // and a replacement (D-R164).
            for u in updates {
                let refused = match (
                    check_deletion(u, &globs, allowed),
                    check_notes_ref_blocker(u),
                    check_replace_ref(u),
                ) {
                    (Err(e), _, _) => Some((e.code(), e.to_string(), &u.old, "keep_ref")),
                    (_, Err(e), _) => Some((e.code(), e.to_string(), &u.new, "rename_ref")),
                    (_, _, Err(e)) => Some((e.code(), e.to_string(), &u.new, "rename_ref")),
                    _ => None,
                };
                if let Some((code, message, commit, next_action)) = refused {
                    return Ok(PreReceive::Denied(ReceiveDenial {
                        reason_code: code.into(),
                        refname: u.refname.clone(),
                        commit: commit.clone(),
                        message,
                        next_action,
                    }));
                }
            }
            let judged = updates
                .iter()
                .filter(|u| u.new.is_some() && is_protected(&globs, &u.refname))
                .collect();
            // Only the default branch vouches for published history here:
            // a commit is judged when it first becomes reachable from a
            // protected ref, whatever tag or unprotected branch already
            // held it, and again when a new protected ref brings what
            // another protected branch alone holds (red team round 36).
            let published = Vouching::Governed {
                tips: default_branch.clone(),
            };
            (judged, published)
        }
        ReceiveScope::Range => (
            updates.iter().filter(|u| u.new.is_some()).collect(),
            Vouching::Advertised,
        ),
    };
    let remote = match scope {
        ReceiveScope::Hook { remote, .. } => remote.clone(),
        ReceiveScope::Range => String::new(),
    };
    // What a new ref is measured against, for the import: the vouching
    // tips but those of every ref this push updates (a subset of what the
    // gate below excludes, so every commit it judges has its notes read).
    let mut tips: Option<Vec<CommitId>> = None;
    let mut seen: Vec<CommitId> = Vec::new();
    for u in &judged {
        let Some(new) = &u.new else { continue };
        let Some(tip) = git.peel_commit(new)? else {
            continue;
        };
        let exclude = match &u.old {
            Some(o) => vec![o.clone()],
            None => {
                if tips.is_none() {
                    let t = git.remote_tips(&remote)?;
                    tips = Some(published_tips(t, &updated, &published));
                }
                tips.clone().unwrap_or_default()
            }
        };
        let commits = git.range(&tip, &exclude, &RemoteScope::None, MAX_RANGE_COMMITS + 1)?;
        if commits.len() > MAX_RANGE_COMMITS {
            // Past the bound every gate shares: nothing of it is imported,
            // and the gate below denies the update `delivery_too_large`.
            continue;
        }
        for c in commits.into_iter().map(|c| c.commit).chain([tip]) {
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
    }
    let mut cache = NoteCache::default();
    let read = import_notes_with(
        git,
        scratch,
        notes.as_ref(),
        &seen,
        &signature_policy,
        &mut cache,
    )?;
    let boundary = PushBoundary::Updates {
        remote,
        updates: judged.iter().map(|u| u.as_push()).collect(),
        published,
    };
    let decision = validate_pre_push(git, scratch, &boundary)?;
    if let Some(r) = notes_denial(decision.allows(), &read) {
        return Ok(PreReceive::Denied(ReceiveDenial::of_refused(r)));
    }
    if let Some(d) = unbound_approval(&decision, &read) {
        return Ok(PreReceive::Denied(d));
    }
    if decision.allows()
        && let Some(n) = &notes
        && let Some(d) = under_parents(git, n, &decision, &policy, &mut cache)?
    {
        return Ok(PreReceive::Denied(d));
    }
    if decision.allows()
        && let Some(n) = &notes
        && let Some(d) = super::replay::replayed(
            git,
            scratch,
            n,
            &judged,
            &decision,
            &signature_policy,
            &mut cache,
        )?
    {
        return Ok(PreReceive::Denied(d));
    }
    Ok(PreReceive::Judged(decision, refused_bundles(&read)))
}

/// Verifies line `i` (0-based) of a parsed note, bundle `b`, against this
/// repository, passes it through the signature policy and imports it into
/// `scratch`, recording the outcome in `read`. The checks' answers are the
/// note's ([`ParsedNote`]), asked once whatever commit holds it.
fn import_line<G, S, P>(
    git: &G,
    scratch: &S,
    signature_policy: &P,
    read: &mut NoteAuthority,
    i: usize,
    b: &Bundle,
    note: &ParsedNote,
) -> Result<(), TransportError>
where
    G: GitPort + ExportGit + ManifestGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
    P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    let number = i + 1;
    let commit = read.commit().clone();
    let at = |e: &str| format!("line {number} of the note on {commit}: {e}");
    if let Checked::Refused(code, text, kind) = note.check(git, i, b)? {
        match kind {
            CheckRefusal::RiskRaised => read.policy_refused(number, &code, at(&text), "recover"),
            // Fewer commits per push, or a smaller change.
            CheckRefusal::DiffWork => {
                read.repository_refused_with(number, &code, at(&text), "check_range")
            }
            CheckRefusal::Repository => read.repository_refused(number, &code, at(&text)),
        }
        return Ok(());
    }
    // The hook point of the signature policy (`probity.requireSignature`):
    // an unsigned bundle published before its signed twin stays in the
    // append-only notes. The line's signatures count with those of the
    // note's other lines for its lineage (two signers in two clones).
    if let Err(d) = note.judge(b, signature_policy) {
        read.policy_refused(number, &d.reason_code, d.message, d.next_action);
        return Ok(());
    }
    match import_bundle(scratch, b) {
        Ok(_) => read.imported(b),
        Err(e @ TransportError::Conflict { .. }) => {
            let code = e.code().unwrap_or("import_conflict");
            read.conflict_refused(number, code, at(&e.to_string()));
            return Ok(());
        }
        Err(e) => return Err(e),
    }
    // The rebase proof's index, derived from the leaf's trees (present:
    // `check_repo` required them), so a rebased delivery is judged here as
    // a local gate judges it.
    if let Some(leaf) = b.records.last() {
        index_rebase_delta(git, scratch, leaf)?;
    }
    Ok(())
}

/// Imports into `scratch` every bundle the notes commit `notes` holds for
/// `commits`, each line of a note on its own: re-verified from its bytes
/// and this repository's objects, passed through `signature_policy`, then
/// imported. A line that fails any step is recorded as refused (core's
/// [`NoteAuthority`] tells which refusal names a note that gave nothing)
/// and never stops the other lines. Bundles are imported in the passes
/// core ranks them in ([`import_rank`]), every note's bundles of a pass
/// before any of the next: the approvals of exactly what their commit
/// delivers first, other approvals next, then the rest, so no line that
/// authorizes nothing (another review of the same candidate, unfinished or
/// stale, in any order) can take a candidate from an approval. So a
/// garbage, forged, stale or conflicting bundle can neither authorize nor
/// jam. Nothing of the repository is written, only `scratch`. One
/// [`NoteAuthority`] per commit that has a note.
pub fn import_notes<G, S, P>(
    git: &G,
    scratch: &S,
    notes: Option<&CommitId>,
    commits: &[CommitId],
    signature_policy: &P,
) -> Result<Vec<NoteAuthority>, TransportError>
where
    G: GitPort + CommitGit + RangeGit + ExportGit + ManifestGit + NotesGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
    P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    let mut cache = NoteCache::default();
    import_notes_with(git, scratch, notes, commits, signature_policy, &mut cache)
}

/// [`import_notes`] parsing notes through `cache`, which a gate shares
/// with its replay check (each note parsed and checked once per push).
fn import_notes_with<G, S, P>(
    git: &G,
    scratch: &S,
    notes: Option<&CommitId>,
    commits: &[CommitId],
    signature_policy: &P,
    cache: &mut NoteCache,
) -> Result<Vec<NoteAuthority>, TransportError>
where
    G: GitPort + CommitGit + RangeGit + ExportGit + ManifestGit + NotesGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
    P: Fn(&Bundle) -> Result<(), ReceiveDenial>,
{
    // (the note's reading, the lines left for a later pass with their
    // rank): a later pass reads the note again, from the cache while it
    // holds it, so no more than the cache's bound of notes is held.
    let mut out: Vec<(NoteAuthority, Vec<(usize, usize)>)> = Vec::new();
    let Some(n) = notes else {
        return Ok(Vec::new());
    };
    announce_note_diffs(git, n, commits, cache)?;
    for commit in commits {
        let Some(bytes) = git.read_note(n, commit, MAX_NOTE_BYTES)? else {
            continue;
        };
        let mut read = NoteAuthority::new(commit.clone());
        let note = cache.parsed(bytes);
        let lines = match &note.lines {
            Ok(l) => l,
            Err((code, e)) => {
                read.note_refused(code, format!("the note on {commit}: {e}"));
                out.push((read, Vec::new()));
                continue;
            }
        };
        let delivered = super::replay::delivered_trees(git, commit)?;
        let mut later = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if let Err((code, e)) = line {
                read.bytes_refused(
                    i + 1,
                    code,
                    format!("line {} of the note on {commit}: {e}", i + 1),
                );
            }
        }
        for (i, line) in lines.iter().enumerate() {
            let Ok(b) = line else { continue };
            match import_rank(b, delivered.as_ref().map(|(base, tree)| (base, tree))) {
                0 => import_line(git, scratch, signature_policy, &mut read, i, b, &note)?,
                rank => later.push((i, rank)),
            }
        }
        out.push((read, later));
    }
    for rank in 1..IMPORT_RANKS {
        for (read, later) in &mut out {
            if !later.iter().any(|(_, r)| *r == rank) {
                continue;
            }
            let bytes = git
                .read_note(n, read.commit(), MAX_NOTE_BYTES)?
                .unwrap_or_default();
            let note = cache.parsed(bytes);
            if note.lines.is_err() {
                // It read whole in the first pass: the same notes commit
                // holds the same bytes, so this is git's answer changing.
                note_lines(&note.bytes).map_err(|source| TransportError::Note {
                    commit: read.commit().clone(),
                    source: Box::new(source),
                })?;
            }
            for &(i, _) in later.iter().filter(|(_, r)| *r == rank) {
                let Some(b) = note.bundle(i) else { continue };
                import_line(git, scratch, signature_policy, read, i, b, &note)?;
            }
        }
    }
    Ok(out.into_iter().map(|(read, _)| read).collect())
}

/// Announces to `git` ([`ExportGit::announce_diffs`]) the tree pairs the
/// verification of every bundle the notes hold for `commits` will diff:
/// each record's base and candidate trees, and its leaf's base and final
/// candidate. A hint only: a note or line that does not parse is left to
/// the import, which refuses it.
///
/// The order is the one the bound on diff work charges them in (D-R130):
/// each commit's own delivery (its parent's tree and its tree) first, then
/// the bundles in the order the import ranks them ([`import_rank`]), so
/// lines anyone may append to a note (an approval of other trees, an
/// unfinished review) cannot spend the run's diff work before the
/// approval of what a commit delivers.
fn announce_note_diffs<G>(
    git: &G,
    notes: &CommitId,
    commits: &[CommitId],
    cache: &mut NoteCache,
) -> Result<(), TransportError>
where
    G: CommitGit + RangeGit + ExportGit + NotesGit,
{
    // Each pair at its earliest charging key (0 a commit's delivery, 1 +
    // the bundle's rank), and among one key in the order first seen there:
    // what a stable sort by key of every pair seen, each kept once, gives,
    // held once per pair however many commits share a note.
    let mut best: std::collections::BTreeMap<(TreeId, TreeId), (usize, usize)> =
        std::collections::BTreeMap::new();
    let mut seq = 0usize;
    for commit in commits {
        let Some(bytes) = git.read_note(notes, commit, MAX_NOTE_BYTES)? else {
            continue;
        };
        let note = cache.parsed(bytes);
        let delivered = super::replay::delivered_trees(git, commit)?;
        let delivers = delivered.as_ref().map(|(base, tree)| (base, tree));
        // The delivered pair itself: a rebase proof's allow is held to its
        // tier (D-R171); for an exact delivery it is a record's own pair.
        if let Some((base, tree)) = &delivered {
            seq += 1;
            let pair = (base.clone(), tree.clone());
            if best.get(&pair).is_none_or(|(k, _)| *k > 0) {
                best.insert(pair, (0, seq));
            }
        }
        for b in note.bundles() {
            let rank = 1 + import_rank(b, delivers);
            for (i, record) in b.records.iter().enumerate() {
                let s = record.state();
                let base = &s.snapshot().base_tree;
                let mut tos = vec![&s.snapshot().candidate_tree];
                if i + 1 == b.records.len() {
                    tos.push(s.final_candidate_tree());
                }
                for to in tos {
                    let pair = (base.clone(), to.clone());
                    let own = delivers.is_some_and(|(b, t)| *b == pair.0 && *t == pair.1);
                    let key = if own { 0 } else { rank };
                    seq += 1;
                    match best.get(&pair) {
                        Some((k, _)) if *k <= key => {}
                        _ => {
                            best.insert(pair, (key, seq));
                        }
                    }
                }
            }
        }
    }
    let mut ordered: Vec<((usize, usize), (TreeId, TreeId))> =
        best.into_iter().map(|(pair, at)| (at, pair)).collect();
    ordered.sort_by_key(|(at, _)| *at);
    let pairs: Vec<(TreeId, TreeId)> = ordered.into_iter().map(|(_, pair)| pair).collect();
    Ok(git.announce_diffs(&pairs)?)
}

/// `probity validate --gate pre-pr --authority notes`: the pre-PR gate
/// judged against the authority `refs/notes/probity` carries for the
/// proposal's commits (re-verified, imported into `scratch`), for CI where
/// no review store exists, with every note line that gave no authority
/// (reported; it answers only when the judgment denies and its note proved
/// nothing, as for the server-side gate).
pub fn pre_pr_from_notes<G, S, P>(
    git: &G,
    scratch: &S,
    base: &str,
    head: &str,
    policy: P,
) -> Result<Result<(PrDecision, Vec<RefusedBundle>), ReceiveDenial>, TransportError>
where
    G: GitPort + DeliveryGit + ExportGit + ManifestGit + NotesGit,
    S: RecordStore + ChainStore + IndexStore + ReceiptStore + AttestationStore,
    P: BundlePolicy,
{
    let signature_policy = |b: &Bundle| policy.judge(b);
    let head_c = git.resolve_commit(head)?;
    let mut exclude = Vec::new();
    if let Some(b) = git.find_commit(base)? {
        exclude.push(b);
    }
    let listed = git.range(&head_c, &exclude, &RemoteScope::None, MAX_RANGE_COMMITS + 1)?;
    // Past the bound every gate shares, the gate below denies the range
    // `delivery_too_large`: nothing of it is imported.
    let commits: Vec<CommitId> = if listed.len() > MAX_RANGE_COMMITS {
        Vec::new()
    } else {
        listed.into_iter().map(|c| c.commit).collect()
    };
    let notes = git.notes_tip()?;
    let mut cache = NoteCache::default();
    let read = import_notes_with(
        git,
        scratch,
        notes.as_ref(),
        &commits,
        &signature_policy,
        &mut cache,
    )?;
    let pr = validate_pre_pr(git, scratch, base, head)?;
    if let Some(r) = notes_denial(pr.decision.allows(), &read) {
        return Ok(Err(ReceiveDenial::of_refused(r)));
    }
    if let Some(d) = unbound_approval(&pr.decision, &read) {
        return Ok(Err(d));
    }
    if pr.decision.allows()
        && let Some(n) = &notes
        && let Some(d) = under_parents(git, n, &pr.decision, &policy, &mut cache)?
    {
        return Ok(Err(d));
    }
    // Merged, the proposal delivers into the base's history: an approval
    // that history already holds is spent (D-R56), as at the server.
    if pr.decision.allows()
        && let (Some(n), Some(base_tip)) = (&notes, exclude.first())
    {
        let merged = ReceiveUpdate {
            old: Some(base_tip.clone()),
            new: Some(head_c.clone()),
            refname: head.to_string(),
        };
        if let Some(d) = super::replay::replayed(
            git,
            scratch,
            n,
            &[&merged],
            &pr.decision,
            &signature_policy,
            &mut cache,
        )? {
            return Ok(Err(d));
        }
    }
    Ok(Ok((pr, refused_bundles(&read))))
}
