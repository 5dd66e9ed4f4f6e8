//! `probity-memstore`: the reference implementation of Probity's review
//! store ports, in memory. A library consumer that brings its own Git and
//! clock can drive start → finalize → the gates on it (the consumer example
//! in `probity-ports` does), and a consumer writing its own store reads it
//! as the specification in code of what each trait promises: it is held to
//! the same conformance suite as the file store (`probity-store`'s
//! `FileStore`; the suite is `probity-testkit`'s `store_conformance`, run
//! against this store in `tests/conformance.rs`).
//!
//! [`InMemoryStore`] implements every store trait: [`RecordStore`],
//! [`ChainStore`], [`IndexStore`], [`ReceiptStore`] and [`ResultStore`]
//! (together [`ReviewStore`](probity_ports::review::ReviewStore)),
//! [`LineageListing`], [`RepairStore`] and [`TranscriptStore`], with the
//! file store's semantics: records kept as their canonical bytes
//! and read back through the fail-closed parser, compare-and-swap replaces
//! of a checked [`Transition`], exact retries that only finish projections,
//! the target, base, final, delta, entry, open and escalated indexes,
//! receipts projected from state, recovery successors under their
//! predecessor, submitted results kept once, and the repair side
//! ([`RepairStore`]: surveys, the two-phase quarantine that retires a
//! lineage or sets its receipt aside, burns that leave a tombstone), laid
//! out as the file store lays it out. What a record projects
//! and when a target claim is taken over are core's rules
//! (`probity_core::review::projections`), the same the file store applies.
//!
//! Every call is one critical section, so no reader ever sees a writer's
//! change half-way: a crash between steps cannot happen here (tests wrap
//! the store in `probity-testkit`'s `Faulty` to simulate one, or use
//! [`InMemoryStore::interrupt_successor`] for an interrupted recovery).
//!
//! ```
//! use probity_memstore::InMemoryStore;
//! use probity_ports::review::{IndexStore, RecordStore};
//! use probity_core::review::LineageId;
//!
//! let store = InMemoryStore::new();
//! let lineage = LineageId::parse("review-0000000000000000")?;
//! // Nothing stored yet: a load is `None`, a lookup finds nothing.
//! assert!(store.load(&lineage)?.is_none());
//! assert!(store.lookup_escalations()?.is_empty());
//! assert!(store.dump().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};

use probity_core::canonical::canonical_bytes;
use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::MAX_ROLE_DOCUMENT_BYTES;
use probity_core::review::Receipt;
use probity_core::review::ancestors;
use probity_core::review::{CommandEvidenceDocument, DsseEnvelope};
use probity_core::review::{
    DeltaIndexing, Projection, claim_is_stale, delta_indexing, projections,
};
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{QuarantinedFile, RepairClass, Survey};
use probity_core::review::{StateRecord, Transition, check_successor};
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use probity_ports::review::{
    AuditWriter, ChainStore, Created, IndexStore, LineageListing, ReceiptStore, RecordStore,
    RepairStore, ResultStore, StoreError, Submitted, TranscriptStore,
};

mod kept;

/// Everything the store holds, keyed as the file store lays it out.
#[derive(Debug, Default, Clone)]
struct Mem {
    /// `<lineage>/state.json`: canonical record bytes.
    states: BTreeMap<LineageId, Vec<u8>>,
    /// `<lineage>/receipt.json`.
    receipts: BTreeMap<LineageId, Vec<u8>>,
    /// `<lineage>/superseded-by`.
    successors: BTreeMap<LineageId, LineageId>,
    /// `<lineage>/successor.pending`: a successor's record being created.
    pending: BTreeMap<LineageId, Vec<u8>>,
    /// `<lineage>/results/<lens>.json`.
    results: BTreeMap<(LineageId, Lens), Vec<u8>>,
    /// `<lineage>/transcripts/<role>-<hex>.json`.
    transcripts: BTreeMap<String, Vec<u8>>,
    target: BTreeMap<Sha256Digest, LineageId>,
    base: BTreeMap<TreeId, LineageId>,
    final_tree: BTreeMap<TreeId, LineageId>,
    delta: BTreeMap<Sha256Digest, LineageId>,
    entry: BTreeMap<Sha256Digest, LineageId>,
    open: BTreeMap<TreeId, BTreeSet<LineageId>>,
    escalated: BTreeMap<TreeId, BTreeSet<LineageId>>,
    /// `retired/<lineage>`: the audit record's path of a lineage a repair
    /// ceremony quarantined.
    retired: BTreeMap<LineageId, String>,
    /// `consumed/<lineage>`: the tombstone of a burned lineage.
    consumed: BTreeMap<LineageId, Vec<u8>>,
    /// `quarantine/<lineage>-<class>-<sha12>/...`: audit records, phase
    /// one's copies and phase two's moved originals, by path.
    quarantine: BTreeMap<String, Vec<u8>>,
    /// `attestations/<lineage>.json`: the lineage's signed statements,
    /// sorted and unique.
    attestations: BTreeMap<LineageId, Vec<DsseEnvelope>>,
    /// `evidence/<lineage>.json`: the command evidence documents its
    /// checks produced, sorted and unique.
    evidence: BTreeMap<LineageId, Vec<CommandEvidenceDocument>>,
    /// Records as read or written, with their bytes (no file of the file
    /// store's; shared by a staged copy).
    decoded: Decoded,
}

/// Each lineage's record as last read or written, with its bytes (issue
/// 24): a load of the same bytes again is a copy of the record, not a
/// parse and a canonical check (the server hook read each record of a
/// stack several times, and parsed each it had just written). Any other
/// bytes, however written, miss it and are parsed.
#[derive(Debug, Default, Clone)]
struct Decoded(std::sync::Arc<Mutex<ByLineage>>);

/// Each lineage's bytes and the record parsed from them.
type ByLineage = BTreeMap<LineageId, (Vec<u8>, StateRecord)>;

impl Decoded {
    fn get(&self, lineage: &LineageId, bytes: &[u8]) -> Option<StateRecord> {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.get(lineage)
            .filter(|(b, _)| b.as_slice() == bytes)
            .map(|(_, r)| r.clone())
    }

    fn put(&self, lineage: &LineageId, bytes: &[u8], record: &StateRecord) {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.insert(lineage.clone(), (bytes.to_vec(), record.clone()));
    }
}

/// The in-memory review store. `Sync`: drivers that run lenses on threads
/// can share it.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    mem: Mutex<Mem>,
}

fn state_path(l: &LineageId) -> String {
    format!("memory:{l}/state.json")
}

fn corrupted(path: String) -> impl FnOnce(probity_core::review::StateError) -> StoreError {
    move |source| StoreError::Corrupted { path, source }
}

fn line(l: &LineageId) -> Vec<u8> {
    format!("{l}\n").into_bytes()
}

/// The lineages an index directory (`open`, `escalated`) lists for `base`,
/// sorted.
fn listed(index: &BTreeMap<TreeId, BTreeSet<LineageId>>, base: &TreeId) -> Vec<LineageId> {
    index
        .get(base)
        .map(|s| s.iter().cloned().collect())
        .unwrap_or_default()
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn mem(&self) -> MutexGuard<'_, Mem> {
        // A test that panicked while holding the lock left no half-way
        // change behind (every call changes the map at its end): go on.
        self.mem.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every entry the store holds, named as the file store would name its
    /// file (`<lineage>/state.json`, `index/base/<tree>`, ...), with its
    /// bytes: equal dumps mean no byte changed.
    pub fn dump(&self) -> BTreeMap<String, Vec<u8>> {
        self.mem().entries()
    }

    /// Removes a lineage's receipt, as a crash after its state write (and
    /// before its projections) would leave it; `ensure_projections` or an
    /// exact retry writes it again.
    pub fn remove_receipt(&self, lineage: &LineageId) -> bool {
        self.mem().receipts.remove(lineage).is_some()
    }

    /// Replaces (or writes) a lineage's receipt file bytes, as tampering on
    /// disk would: the gates then deny `receipt_mismatch`, and a repair
    /// survey of `receipt_mismatch` finds it.
    pub fn overwrite_receipt(&self, lineage: &LineageId, bytes: Vec<u8>) {
        self.mem().receipts.insert(lineage.clone(), bytes);
    }

    /// Replaces a lineage's stored record bytes, as tampering on disk
    /// would (loads then fail closed unless the bytes are a valid record).
    pub fn overwrite_state(&self, lineage: &LineageId, bytes: Vec<u8>) {
        self.mem().states.insert(lineage.clone(), bytes);
    }

    /// Leaves a recovery of `successor`'s predecessor as a crash after its
    /// first steps would on disk: the pending record and the successor's
    /// record written, neither its target index nor the supersession
    /// marker. Only the same request completes it (`create_successor`
    /// adopts it); another is refused with
    /// [`StoreError::RecoveryPending`].
    pub fn interrupt_successor(&self, successor: &StateRecord) -> Result<(), StoreError> {
        let link = successor
            .state()
            .predecessor()
            .ok_or_else(|| StoreError::Malformed {
                path: successor.state().lineage_id().to_string(),
                detail: "a successor must name its predecessor".into(),
            })?;
        let bytes = successor
            .to_bytes()
            .map_err(corrupted(successor.state().lineage_id().to_string()))?;
        let mut m = self.mem();
        if !m.states.contains_key(&link.lineage_id) {
            return Err(StoreError::NotFound(link.lineage_id.clone()));
        }
        m.pending.insert(link.lineage_id.clone(), bytes.clone());
        m.states
            .entry(successor.state().lineage_id().clone())
            .or_insert(bytes);
        Ok(())
    }
}

impl Mem {
    /// Every entry, named as the file store names its file.
    fn entries(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        for (l, b) in &self.states {
            out.insert(format!("{l}/state.json"), b.clone());
        }
        for (l, b) in &self.receipts {
            out.insert(format!("{l}/receipt.json"), b.clone());
        }
        for (l, s) in &self.successors {
            out.insert(format!("{l}/superseded-by"), line(s));
        }
        for (l, b) in &self.pending {
            out.insert(format!("{l}/successor.pending"), b.clone());
        }
        for ((l, lens), b) in &self.results {
            out.insert(format!("{l}/results/{}.json", lens.name()), b.clone());
        }
        for (rel, b) in &self.transcripts {
            out.insert(rel.clone(), b.clone());
        }
        let pointers = [
            (
                "target",
                self.target
                    .iter()
                    .map(|(k, v)| (k.hex(), v))
                    .collect::<Vec<_>>(),
            ),
            (
                "delta",
                self.delta.iter().map(|(k, v)| (k.hex(), v)).collect(),
            ),
            (
                "entry",
                self.entry.iter().map(|(k, v)| (k.hex(), v)).collect(),
            ),
            (
                "base",
                self.base.iter().map(|(k, v)| (k.to_string(), v)).collect(),
            ),
            (
                "final",
                self.final_tree
                    .iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            ),
        ];
        for (kind, entries) in pointers {
            for (key, l) in entries {
                out.insert(format!("index/{kind}/{key}"), line(l));
            }
        }
        for (kind, sets) in [("open", &self.open), ("escalated", &self.escalated)] {
            for (tree, set) in sets {
                for l in set {
                    out.insert(format!("index/{kind}/{tree}/{l}"), line(l));
                }
            }
        }
        for (l, audit) in &self.retired {
            out.insert(format!("retired/{l}"), format!("{audit}\n").into_bytes());
        }
        for (l, b) in &self.consumed {
            out.insert(format!("consumed/{l}"), b.clone());
        }
        for (path, b) in &self.quarantine {
            out.insert(path.clone(), b.clone());
        }
        // As the file store writes them: canonical JSON and a LF (lists
        // of parsed documents, strings and integers: always canonical).
        for (l, list) in &self.attestations {
            let bytes = canonical_bytes(list).unwrap_or_default();
            out.insert(
                format!("attestations/{l}.json"),
                [bytes, b"\n".to_vec()].concat(),
            );
        }
        for (l, list) in &self.evidence {
            let bytes = canonical_bytes(list).unwrap_or_default();
            out.insert(
                format!("evidence/{l}.json"),
                [bytes, b"\n".to_vec()].concat(),
            );
        }
        out
    }

    /// The entries a lineage owns, by path (sorted): its directory and the
    /// index entries naming it (by name, as `open/<tree>/<lineage>`, or by
    /// content), what a quarantine of the record or a burn takes out of the
    /// live store. Another lineage's supersession marker naming it stays.
    fn owned_by(lineage: &LineageId, entries: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
        let dir = format!("{lineage}/");
        let named = line(lineage);
        entries
            .iter()
            .filter(|(path, bytes)| {
                path.starts_with(&dir)
                    || (path.starts_with("index/")
                        && (path.rsplit('/').next() == Some(lineage.as_str()) || **bytes == named))
            })
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// Removes what [`Mem::owned_by`] lists.
    fn remove_lineage(&mut self, lineage: &LineageId) {
        self.states.remove(lineage);
        self.receipts.remove(lineage);
        self.successors.remove(lineage);
        self.pending.remove(lineage);
        self.results.retain(|(l, _), _| l != lineage);
        let dir = format!("{lineage}/");
        self.transcripts.retain(|path, _| !path.starts_with(&dir));
        self.target.retain(|_, l| l != lineage);
        self.delta.retain(|_, l| l != lineage);
        self.entry.retain(|_, l| l != lineage);
        self.base.retain(|_, l| l != lineage);
        self.final_tree.retain(|_, l| l != lineage);
        for sets in [&mut self.open, &mut self.escalated] {
            for set in sets.values_mut() {
                set.remove(lineage);
            }
            sets.retain(|_, set| !set.is_empty());
        }
    }

    /// The anomalous entry of `class` of a lineage, with its bytes, when it
    /// has one (the file store's rule): a record that does not load, or a
    /// receipt file other than the one a loadable record derives.
    fn anomalous(
        &self,
        lineage: &LineageId,
        class: RepairClass,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        match class {
            RepairClass::CorruptedRecord => match self.load(lineage) {
                Err(StoreError::Corrupted { .. } | StoreError::Malformed { .. }) => Ok(self
                    .states
                    .get(lineage)
                    .map(|b| (format!("{lineage}/state.json"), b.clone()))),
                Err(e) => Err(e),
                Ok(_) => Ok(None),
            },
            RepairClass::ReceiptMismatch => {
                let Ok(Some(record)) = self.load(lineage) else {
                    return Ok(None);
                };
                let Some(derived) = Receipt::derive(record.state()) else {
                    return Ok(None);
                };
                let derived = derived
                    .to_bytes()
                    .map_err(corrupted(format!("memory:{lineage}/receipt.json")))?;
                Ok(match self.receipts.get(lineage) {
                    Some(held) if *held != derived => {
                        Some((format!("{lineage}/receipt.json"), held.clone()))
                    }
                    _ => None,
                })
            }
        }
    }

    /// The successor a pending recovery of `lineage` is creating.
    fn pending_successor(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        match self.pending.get(lineage) {
            Some(bytes) => Ok(Some(
                StateRecord::from_bytes(bytes)
                    .map_err(corrupted(format!("memory:{lineage}/successor.pending")))?
                    .state()
                    .lineage_id()
                    .clone(),
            )),
            None => Ok(None),
        }
    }

    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        // A retired or burned lineage answers so before anything else is
        // read, as the file store's does.
        if let Some(audit) = self.retired.get(lineage) {
            return Err(StoreError::Retired {
                lineage: lineage.clone(),
                audit: audit.clone(),
            });
        }
        if self.consumed.contains_key(lineage) {
            return Err(StoreError::Consumed {
                lineage: lineage.clone(),
                tombstone: format!("consumed/{lineage}"),
            });
        }
        let Some(bytes) = self.states.get(lineage) else {
            return Ok(None);
        };
        if let Some(record) = self.decoded.get(lineage, bytes) {
            return Ok(Some(record));
        }
        let record = StateRecord::from_bytes(bytes).map_err(corrupted(state_path(lineage)))?;
        if record.state().lineage_id() != lineage {
            return Err(StoreError::Malformed {
                path: state_path(lineage),
                detail: format!("holds lineage {}", record.state().lineage_id()),
            });
        }
        self.decoded.put(lineage, bytes, &record);
        Ok(Some(record))
    }

    fn stored(&self, lineage: &LineageId) -> Result<StateRecord, StoreError> {
        self.load(lineage)?
            .ok_or_else(|| StoreError::NotFound(lineage.clone()))
    }

    /// The stored record, which must be at `record`'s revision.
    fn current_at(&self, record: &StateRecord) -> Result<StateRecord, StoreError> {
        let lineage = record.state().lineage_id();
        let current = self.stored(lineage)?;
        StoreError::check_revision(lineage, record.revision(), current.revision())?;
        Ok(current)
    }

    /// Claims a corrected candidate's own target for its lineage: never
    /// from a lineage whose committed state names that target (core's
    /// take-over rule, [`claim_is_stale`]).
    fn claim_final_target(&mut self, record: &StateRecord) -> Result<(), StoreError> {
        let state = record.state();
        let final_target = state.final_target();
        if final_target == state.snapshot().target {
            return Ok(());
        }
        match self.target.get(&final_target).cloned() {
            None => {}
            Some(owner) if owner == *state.lineage_id() => return Ok(()),
            Some(owner) => {
                let owns = self
                    .load(&owner)?
                    .is_some_and(|r| !claim_is_stale(&final_target, r.state()));
                if owns {
                    return Err(StoreError::TargetOwned {
                        lineage: state.lineage_id().clone(),
                        owner,
                    });
                }
            }
        }
        self.target.insert(final_target, state.lineage_id().clone());
        Ok(())
    }

    /// What a committed record projects (core's [`projections`]), written
    /// idempotently: its receipt, the corrected candidate's target, and by
    /// stage the base and final indexes (approved, not superseded), the
    /// open index (in correction) or the escalated index (escalated).
    fn write_projections(&mut self, record: &StateRecord) -> Result<(), StoreError> {
        let state = record.state();
        let lineage = state.lineage_id();
        let superseded = self.successors.contains_key(lineage);
        for projection in projections(state, superseded) {
            match projection {
                Projection::Receipt(receipt) => {
                    let bytes = receipt
                        .to_bytes()
                        .map_err(corrupted(format!("memory:{lineage}/receipt.json")))?;
                    self.receipts.insert(lineage.clone(), bytes);
                }
                Projection::FinalTarget(_) => self.claim_final_target(record)?,
                Projection::Base(tree) => {
                    self.base.insert(tree, lineage.clone());
                }
                Projection::Final(tree) => {
                    self.final_tree.insert(tree, lineage.clone());
                }
                Projection::Open(base) => {
                    self.open.entry(base).or_default().insert(lineage.clone());
                }
                Projection::Escalated(base) => {
                    self.escalated
                        .entry(base)
                        .or_default()
                        .insert(lineage.clone());
                }
            }
        }
        Ok(())
    }

    /// A kept result, refused when over the role-document bound (what
    /// `submit_result` never keeps).
    fn result(&self, lineage: &LineageId, lens: Lens) -> Result<Option<&Vec<u8>>, StoreError> {
        match self.results.get(&(lineage.clone(), lens)) {
            Some(b) if b.len() as u64 > MAX_ROLE_DOCUMENT_BYTES => Err(StoreError::Malformed {
                path: format!("memory:{lineage}/results/{}.json", lens.name()),
                detail: format!("larger than {MAX_ROLE_DOCUMENT_BYTES} bytes"),
            }),
            other => Ok(other),
        }
    }

    fn create_successor(&mut self, successor: &Successor) -> Result<Created, StoreError> {
        let record = successor.record();
        let pred = successor.predecessor().clone();
        let current = self.stored(&pred)?;
        // Compare-and-swap: core checked the link against the predecessor
        // at `expected`; it must still be there.
        StoreError::check_revision(&pred, *successor.expected(), current.revision())?;
        let link = record.state().predecessor();
        let same_link = |r: &StateRecord| r.state().predecessor() == link;
        // An interrupted creation is adopted by the same request only.
        let (record, adopted) = match self.pending.get(&pred) {
            Some(bytes) => {
                let pending = StateRecord::from_bytes(bytes)
                    .map_err(corrupted(format!("memory:{pred}/successor.pending")))?;
                if !same_link(&pending) {
                    return Err(StoreError::RecoveryPending {
                        lineage: pred,
                        successor: pending.state().lineage_id().clone(),
                    });
                }
                let adopted = pending.state().lineage_id() != record.state().lineage_id();
                (pending, adopted)
            }
            None => (record.clone(), false),
        };
        let lineage = record.state().lineage_id().clone();
        let retry = match self.successors.get(&pred).cloned() {
            Some(s) if s == lineage => true,
            Some(s) => {
                return match self.load(&s)? {
                    Some(existing) if same_link(&existing) => Ok(Created::Existing(s)),
                    _ => Err(StoreError::AlreadySuperseded {
                        lineage: pred,
                        successor: s,
                    }),
                };
            }
            None => false,
        };
        let target = record.state().snapshot().target;
        let ancestors = ancestors(&record, |l| self.load(l))?;
        match self.target.get(&target).cloned() {
            None => {}
            Some(owner) if owner == lineage || ancestors.contains(&owner) => {}
            Some(_) if retry => {
                // The chain moved on past this successor: leave the index.
                self.pending.remove(&pred);
                return Ok(Created::Existing(lineage));
            }
            Some(owner) => {
                if self.pending.remove(&pred).is_some() {
                    // An interrupted recovery that can no longer complete:
                    // never marked nor indexed, it goes.
                    self.states.remove(&lineage);
                }
                return Err(StoreError::TargetOwned {
                    lineage: pred,
                    owner,
                });
            }
        }
        let bytes = record.to_bytes().map_err(corrupted(lineage.to_string()))?;
        // Written before an interruption, or moved on since: kept.
        self.states.entry(lineage.clone()).or_insert(bytes);
        self.target.insert(target, lineage.clone());
        self.successors.insert(pred.clone(), lineage.clone());
        self.pending.remove(&pred);
        Ok(if retry || adopted {
            Created::Existing(lineage)
        } else {
            Created::New
        })
    }
}

impl LineageListing for InMemoryStore {
    fn lineages(&self) -> Result<Vec<LineageId>, StoreError> {
        let m = self.mem();
        Ok(m.states
            .keys()
            .filter(|l| !m.retired.contains_key(*l) && !m.consumed.contains_key(*l))
            .cloned()
            .collect())
    }
}

impl RecordStore for InMemoryStore {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        self.mem().load(lineage)
    }

    fn create(&self, first: &FirstRecord) -> Result<Created, StoreError> {
        let record = first.record();
        let lineage = record.state().lineage_id();
        let target = record.state().snapshot().target;
        let mut m = self.mem();
        if let Some(existing) = m.target.get(&target) {
            return Ok(Created::Existing(existing.clone()));
        }
        let bytes = record.to_bytes().map_err(corrupted(lineage.to_string()))?;
        match m.states.get(lineage) {
            Some(held) if *held != bytes => {
                return Err(StoreError::Malformed {
                    path: format!("memory:{lineage}"),
                    detail: "lineage directory exists with other content".into(),
                });
            }
            _ => {}
        }
        m.states.insert(lineage.clone(), bytes);
        m.target.insert(target, lineage.clone());
        Ok(Created::New)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        let (expected, next) = (transition.expected(), transition.next());
        let lineage = next.state().lineage_id();
        let mut m = self.mem();
        let current = m.stored(lineage)?;
        if current.revision() == next.revision() {
            // Exact retry: finish whatever projection is missing.
            return m.write_projections(next);
        }
        StoreError::check_revision(lineage, *expected, current.revision())?;
        check_successor(current.state(), next.state())?;
        let bytes = next.to_bytes().map_err(corrupted(state_path(lineage)))?;
        // All or nothing: a refused claim leaves every byte as it was.
        let mut staged = m.clone();
        staged.claim_final_target(next)?;
        staged.states.insert(lineage.clone(), bytes);
        staged.write_projections(next)?;
        *m = staged;
        Ok(())
    }

    fn under_lock(&self, _lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        // Every write is one critical section: nothing `f` reads can be
        // half-way through a writer's change. The lock is not held while
        // `f` runs (its reads take it), so `f` may call the store.
        f();
        Ok(())
    }
}

impl ChainStore for InMemoryStore {
    fn create_successor(&self, successor: &Successor) -> Result<Created, StoreError> {
        let mut m = self.mem();
        let mut staged = m.clone();
        let created = staged.create_successor(successor);
        // A refusal may still settle an interrupted recovery that can no
        // longer complete (as the file store does); anything else it
        // refused changes nothing.
        if created.is_ok() || matches!(created, Err(StoreError::TargetOwned { .. })) {
            *m = staged;
        }
        created
    }

    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().successors.get(lineage).cloned())
    }

    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.mem().pending_successor(lineage)
    }
}

impl IndexStore for InMemoryStore {
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().target.get(target).cloned())
    }

    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().base.get(base).cloned())
    }

    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().final_tree.get(tree).cloned())
    }

    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().delta.get(delta).cloned())
    }

    fn index_delta(
        &self,
        record: &StateRecord,
        delta: &Sha256Digest,
        entries: &[Sha256Digest],
    ) -> Result<(), StoreError> {
        let lineage = record.state().lineage_id();
        let mut m = self.mem();
        let current = m.current_at(record)?;
        let superseded = m.successors.contains_key(lineage);
        match delta_indexing(current.state(), superseded) {
            Err(refused) => {
                return Err(StoreError::Malformed {
                    path: state_path(lineage),
                    detail: refused.to_string(),
                });
            }
            // A superseded lineage is history: never (re)indexed.
            Ok(DeltaIndexing::Skip) => return Ok(()),
            Ok(DeltaIndexing::Index) => {}
        }
        for e in entries {
            m.entry.insert(*e, lineage.clone());
        }
        m.delta.insert(*delta, lineage.clone());
        Ok(())
    }

    fn lookup_delta_entry(&self, entry: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        Ok(self.mem().entry.get(entry).cloned())
    }

    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Ok(listed(&self.mem().open, base))
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        Ok(listed(&self.mem().escalated, base))
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        let all: std::collections::BTreeSet<LineageId> =
            self.mem().escalated.values().flatten().cloned().collect();
        Ok(all.into_iter().collect())
    }
}

impl ReceiptStore for InMemoryStore {
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        let mut m = self.mem();
        let current = m.current_at(record)?;
        let mut staged = m.clone();
        staged.write_projections(&current)?;
        *m = staged;
        Ok(())
    }

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.mem().receipts.get(lineage).cloned())
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        format!("memory:{lineage}/receipt.json")
    }
}

impl ResultStore for InMemoryStore {
    fn submit_result(
        &self,
        lineage: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError> {
        let mut m = self.mem();
        if !m.states.contains_key(lineage) {
            return Err(StoreError::NotFound(lineage.clone()));
        }
        match m.result(lineage, lens)? {
            Some(kept) if kept.as_slice() == bytes => Ok(Submitted::Existing),
            Some(_) => Err(StoreError::ResultDiffers {
                lineage: lineage.clone(),
                lens: lens.name(),
            }),
            None => {
                m.results.insert((lineage.clone(), lens), bytes.to_vec());
                Ok(Submitted::New)
            }
        }
    }

    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        let m = self.mem();
        let mut out = Vec::new();
        for lens in Lens::CANONICAL {
            if let Some(bytes) = m.result(lineage, lens)? {
                out.push((lens, bytes.clone()));
            }
        }
        Ok(out)
    }
}

impl RepairStore for InMemoryStore {
    fn survey(&self, class: RepairClass) -> Result<Survey, StoreError> {
        let m = self.mem();
        let mut anomalies = Vec::new();
        for lineage in m.states.keys() {
            if m.anomalous(lineage, class)?.is_some() {
                anomalies.push(lineage.clone());
            }
        }
        // Memory holds few lineages: every survey is complete.
        Ok(Survey {
            class,
            scanned: m.states.len() as u64,
            anomalies,
            complete: true,
        })
    }

    fn quarantine(
        &self,
        lineage: &LineageId,
        class: RepairClass,
        audit: &AuditWriter<'_>,
    ) -> Result<String, StoreError> {
        let mut m = self.mem();
        // Still anomalous (a writer that repaired it in the meantime wins).
        let (anomalous, bytes) = m
            .anomalous(lineage, class)?
            .ok_or_else(|| StoreError::NotFound(lineage.clone()))?;
        let digest = Sha256Digest::plain(&bytes);
        let qdir = format!(
            "quarantine/{lineage}-{}-{}",
            class.name(),
            &digest.hex()[..12]
        );
        let before = m.entries();
        let files = match class {
            RepairClass::CorruptedRecord => Mem::owned_by(lineage, &before),
            RepairClass::ReceiptMismatch => vec![anomalous],
        };
        let mut staged = m.clone();
        // Phase one: exact copies, then the audit record naming them.
        let mut listed = Vec::new();
        for rel in &files {
            let bytes = before.get(rel).cloned().unwrap_or_default();
            let copy = format!("{qdir}/copy/{rel}");
            match staged.quarantine.get(&copy) {
                Some(held) if *held != bytes => {
                    return Err(StoreError::Malformed {
                        path: format!("memory:{copy}"),
                        detail: "a quarantine copy differs from its original".into(),
                    });
                }
                _ => {}
            }
            listed.push(QuarantinedFile {
                path: rel.clone(),
                sha256: Sha256Digest::plain(&bytes),
                bytes: bytes.len() as u64,
            });
            staged.quarantine.insert(copy, bytes);
        }
        let audit_path = format!("{qdir}/audit.json");
        if !staged.quarantine.contains_key(&audit_path) {
            let record = audit(&listed)?;
            staged.quarantine.insert(audit_path.clone(), record);
        }
        // Phase two: the originals leave the live store, moved, never
        // deleted; a retired lineage answers `retired` from then on.
        match class {
            RepairClass::CorruptedRecord => {
                staged.retired.insert(lineage.clone(), audit_path.clone());
                staged.remove_lineage(lineage);
            }
            RepairClass::ReceiptMismatch => {
                staged.receipts.remove(lineage);
            }
        }
        let after = staged.entries();
        let gone: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
        if gone != files.iter().collect::<Vec<_>>() {
            return Err(StoreError::Malformed {
                path: format!("memory:{qdir}"),
                detail: "the entries moved are not the ones the audit record lists".into(),
            });
        }
        for rel in &files {
            let bytes = before.get(rel).cloned().unwrap_or_default();
            staged
                .quarantine
                .insert(format!("{qdir}/moved/{rel}"), bytes);
        }
        *m = staged;
        Ok(audit_path)
    }

    fn consume(
        &self,
        lineage: &LineageId,
        expected: &Sha256Digest,
        tombstone: &[u8],
    ) -> Result<String, StoreError> {
        let mut m = self.mem();
        // What the burn was decided on, checked again in the same critical
        // section that writes it.
        let current = m.stored(lineage)?;
        StoreError::check_revision(lineage, *expected, current.revision())?;
        StoreError::check_unsuperseded(lineage, m.successors.get(lineage).cloned(), || {
            m.pending_successor(lineage)
        })?;
        m.consumed.insert(lineage.clone(), tombstone.to_vec());
        m.remove_lineage(lineage);
        Ok(format!("consumed/{lineage}"))
    }
}

impl TranscriptStore for InMemoryStore {
    fn keep_transcript(
        &self,
        lineage: &LineageId,
        role: &str,
        digest: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        let malformed = |detail: String| StoreError::Malformed {
            path: format!("{lineage}/transcripts"),
            detail,
        };
        if role.is_empty() || !role.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(malformed(format!("`{role}` is no role name")));
        }
        if Sha256Digest::of(TRANSCRIPT_DOMAIN, bytes) != *digest {
            return Err(malformed(format!(
                "the transcript's bytes do not digest to {digest}"
            )));
        }
        let mut m = self.mem();
        if m.load(lineage)?.is_none() {
            return Err(StoreError::NotFound(lineage.clone()));
        }
        let rel = format!("{lineage}/transcripts/{role}-{}.json", digest.hex());
        match m.transcripts.get(&rel) {
            Some(held) if held.as_slice() == bytes => {}
            Some(_) => {
                return Err(malformed(
                    "holds other bytes than the transcript its name digests".into(),
                ));
            }
            None => {
                m.transcripts.insert(rel.clone(), bytes.to_vec());
            }
        }
        Ok(rel)
    }
}
