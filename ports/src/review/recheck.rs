//! The final recheck of a gate's allow (R8.7): what the derivation read,
//! recorded by a store wrapper, read again under each lineage's lock (and
//! the index lookups asked again); the
//! rule ("any change denies") is core's [`final_recheck`].

use std::cell::RefCell;
use std::collections::BTreeMap;

use probity_core::digest::Sha256Digest;
use probity_core::review::LiveTarget;
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{GateDecision, Moved, final_recheck};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{StateRecord, Transition};

use super::*;

/// What a derivation read from the store, per lineage.
#[derive(Debug, Default)]
struct Seen {
    records: BTreeMap<LineageId, Option<Sha256Digest>>,
    successors: BTreeMap<LineageId, Option<LineageId>>,
    pending: BTreeMap<LineageId, Option<LineageId>>,
    receipts: BTreeMap<LineageId, Option<Sha256Digest>>,
    /// Every index lookup and what it answered, in first-asked order.
    lookups: Vec<(Lookup, Vec<LineageId>)>,
}

/// An index lookup the derivation made (R12.2: discovery is lookups).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lookup {
    Target(Sha256Digest),
    Base(TreeId),
    Final(TreeId),
    Delta(Sha256Digest),
    DeltaEntry(Sha256Digest),
    Open(TreeId),
    Escalated(TreeId),
    Escalations,
}

impl Lookup {
    fn ask<S: IndexStore>(&self, store: &S) -> Result<Vec<LineageId>, StoreError> {
        Ok(match self {
            Lookup::Target(d) => store.lookup_target(d)?.into_iter().collect(),
            Lookup::Base(t) => store.lookup_base(t)?.into_iter().collect(),
            Lookup::Final(t) => store.lookup_final(t)?.into_iter().collect(),
            Lookup::Delta(d) => store.lookup_delta(d)?.into_iter().collect(),
            Lookup::DeltaEntry(d) => store.lookup_delta_entry(d)?.into_iter().collect(),
            Lookup::Open(t) => store.lookup_open(t)?,
            Lookup::Escalated(t) => store.lookup_escalated(t)?,
            Lookup::Escalations => store.lookup_escalations()?,
        })
    }

    fn describe(&self) -> String {
        match self {
            Lookup::Target(d) => format!("target {d}"),
            Lookup::Base(t) => format!("base tree {t}"),
            Lookup::Final(t) => format!("final tree {t}"),
            Lookup::Delta(d) => format!("delta {d}"),
            Lookup::DeltaEntry(d) => format!("delta entry {d}"),
            Lookup::Open(t) => format!("open corrections on {t}"),
            Lookup::Escalated(t) => format!("escalations on {t}"),
            Lookup::Escalations => "escalations on any base".to_string(),
        }
    }
}

fn digest(bytes: &Option<Vec<u8>>) -> Option<Sha256Digest> {
    bytes.as_deref().map(Sha256Digest::plain)
}

/// A store that records what a gate's derivation reads (records,
/// supersession, pending recoveries, receipts, index lookups) and otherwise
/// passes every call through.
pub(super) struct Recording<'a, S> {
    inner: &'a S,
    seen: RefCell<Seen>,
}

impl<'a, S> Recording<'a, S> {
    pub(super) fn new(inner: &'a S) -> Self {
        Self {
            inner,
            seen: RefCell::new(Seen::default()),
        }
    }

    /// Keeps what the derivation read of `lineage` into one of `seen`'s
    /// maps (`field`), unless it read it before.
    fn saw<T>(
        &self,
        field: fn(&mut Seen) -> &mut BTreeMap<LineageId, T>,
        lineage: &LineageId,
        value: T,
    ) {
        field(&mut self.seen.borrow_mut())
            .entry(lineage.clone())
            .or_insert(value);
    }
}

impl<S: IndexStore> Recording<'_, S> {
    /// Asks `lookup` of the inner store, and keeps it with its answer
    /// unless it was asked before.
    fn look_up(&self, lookup: Lookup) -> Result<Vec<LineageId>, StoreError> {
        let answer = lookup.ask(self.inner)?;
        let mut seen = self.seen.borrow_mut();
        if !seen.lookups.iter().any(|(l, _)| *l == lookup) {
            seen.lookups.push((lookup, answer.clone()));
        }
        Ok(answer)
    }
}

/// The one lineage an exact-key lookup answered, if any.
fn at_most_one(answer: Vec<LineageId>) -> Option<LineageId> {
    answer.into_iter().next()
}

impl<S: RecordStore + ChainStore + IndexStore + ReceiptStore> Recording<'_, S> {
    /// Reads again, under each lineage's lock, everything the derivation
    /// read, and lists what moved.
    fn moved(&self) -> Result<Vec<Moved>, ReviewError> {
        let seen = self.seen.borrow();
        let mut lineages: Vec<&LineageId> = seen
            .records
            .keys()
            .chain(seen.successors.keys())
            .chain(seen.pending.keys())
            .chain(seen.receipts.keys())
            .collect();
        lineages.sort();
        lineages.dedup();
        let mut moved = Vec::new();
        for l in lineages {
            let mut outcome: Result<Vec<Moved>, StoreError> = Ok(Vec::new());
            let locked = self.inner.under_lock(l, &mut || {
                outcome = self.compare(&seen, l);
            });
            match locked.and(outcome) {
                Ok(m) => moved.extend(m),
                // Burned or retired since it was read: what the gate read
                // moved (a run again answers for what is there now).
                Err(StoreError::Consumed { .. } | StoreError::Retired { .. }) => {
                    moved.push(Moved::Record(l.clone()));
                }
                Err(e) => return Err(e.into()),
            }
        }
        // The index entries, asked again once every lineage was compared:
        // an entry that now names another lineage (or none) moved.
        for (lookup, answer) in &seen.lookups {
            if lookup.ask(self.inner)? != *answer {
                moved.push(Moved::Index(lookup.describe()));
            }
        }
        Ok(moved)
    }

    fn compare(&self, seen: &Seen, l: &LineageId) -> Result<Vec<Moved>, StoreError> {
        let mut moved = Vec::new();
        if let Some(rev) = seen.records.get(l) {
            let now = self.inner.load(l)?.map(|r| r.revision());
            if now != *rev {
                moved.push(Moved::Record(l.clone()));
            }
        }
        let successor_moved = match seen.successors.get(l) {
            Some(s) => self.inner.successor_of(l)? != *s,
            None => false,
        } || match seen.pending.get(l) {
            Some(p) => self.inner.pending_successor_of(l)? != *p,
            None => false,
        };
        if successor_moved {
            moved.push(Moved::Successor(l.clone()));
        }
        if let Some(r) = seen.receipts.get(l)
            && digest(&self.inner.read_receipt(l)?) != *r
        {
            moved.push(Moved::Receipt(l.clone()));
        }
        Ok(moved)
    }
}

/// Decides with `derive` over a recording store, runs `between` (a seam
/// for fault injection: a writer acting after the derivation), then
/// rechecks an allow: the store reads under each lineage's lock, and
/// `again` for what the gate resolved from Git (`Ok(moved)`).
pub(super) fn checked<S: RecordStore + ChainStore + IndexStore + ReceiptStore>(
    store: &S,
    derive: impl FnOnce(&Recording<'_, S>) -> Result<GateDecision, ReviewError>,
    between: &mut dyn FnMut(),
    again: impl FnOnce() -> Result<Vec<Moved>, ReviewError>,
) -> Result<GateDecision, ReviewError> {
    let recording = Recording::new(store);
    let decision = derive(&recording)?;
    if !decision.allows() {
        return Ok(decision);
    }
    between();
    let mut moved = recording.moved()?;
    moved.extend(again()?);
    Ok(final_recheck(decision, &moved))
}

/// A target resolved again: `Target` when its trees differ.
pub(super) fn target_moved(before: &LiveTarget, now: &LiveTarget) -> Vec<Moved> {
    if before.base_tree == now.base_tree && before.candidate_tree == now.candidate_tree {
        Vec::new()
    } else {
        vec![Moved::Target]
    }
}

impl<S: RecordStore> RecordStore for Recording<'_, S> {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        let r = self.inner.load(lineage)?;
        self.saw(
            |seen| &mut seen.records,
            lineage,
            r.as_ref().map(|r| r.revision()),
        );
        Ok(r)
    }

    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError> {
        self.inner.create(record)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        self.inner.replace(transition)
    }

    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        self.inner.under_lock(lineage, f)
    }
}

impl<S: ChainStore> ChainStore for Recording<'_, S> {
    fn create_successor(&self, record: &Successor) -> Result<Created, StoreError> {
        self.inner.create_successor(record)
    }

    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        let s = self.inner.successor_of(lineage)?;
        self.saw(|seen| &mut seen.successors, lineage, s.clone());
        Ok(s)
    }

    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        let p = self.inner.pending_successor_of(lineage)?;
        self.saw(|seen| &mut seen.pending, lineage, p.clone());
        Ok(p)
    }
}

impl<S: IndexStore> IndexStore for Recording<'_, S> {
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.look_up(Lookup::Target(*target)).map(at_most_one)
    }

    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.look_up(Lookup::Base(base.clone())).map(at_most_one)
    }

    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.look_up(Lookup::Final(tree.clone())).map(at_most_one)
    }

    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.look_up(Lookup::Delta(*delta)).map(at_most_one)
    }

    fn index_delta(
        &self,
        record: &StateRecord,
        delta: &Sha256Digest,
        entries: &[Sha256Digest],
    ) -> Result<(), StoreError> {
        self.inner.index_delta(record, delta, entries)
    }

    fn lookup_delta_entry(&self, entry: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.look_up(Lookup::DeltaEntry(*entry)).map(at_most_one)
    }

    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.look_up(Lookup::Open(base.clone()))
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.look_up(Lookup::Escalated(base.clone()))
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        self.look_up(Lookup::Escalations)
    }
}

impl<S: ReceiptStore> ReceiptStore for Recording<'_, S> {
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        self.inner.ensure_projections(record)
    }

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        let r = self.inner.read_receipt(lineage)?;
        self.saw(|seen| &mut seen.receipts, lineage, digest(&r));
        Ok(r)
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        self.inner.receipt_location(lineage)
    }
}
