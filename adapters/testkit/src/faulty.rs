//! Store wrappers for tests. [`Layered`] passes every call through to the
//! store it wraps but `replace`, which its layer ([`OnReplace`]) may take
//! over; a layer may also add what the store lacks (the attestations
//! [`WithAttestations`](crate::WithAttestations) keeps). On it, [`Faulty`]:
//! fault injection around any [`ReviewStore`], a simulated crash at a
//! chosen `replace`, so crash tests need no switch inside a production
//! store.

use std::ops::Deref;
use std::sync::atomic::{AtomicU32, Ordering};

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::{FirstRecord, Successor};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{StateRecord, Transition};
use probity_ports::review::{
    AttestationStore, AuditWriter, ChainStore, Created, IndexStore, ReceiptStore, RecordStore,
    RepairStore, ResultStore, ReviewStore, StoreError, Submitted, TranscriptStore,
};

/// A store `inner` (owned in a [`Box`], or borrowed) with `layer` over it:
/// every call passes through to `inner` unchanged, but `replace`, which
/// goes through `layer` ([`OnReplace`]). What [`Faulty`] and
/// [`WithAttestations`](crate::WithAttestations) share.
#[derive(Debug)]
pub struct Layered<P, L> {
    pub(crate) inner: P,
    pub(crate) layer: L,
}

/// What a [`Layered`] store does on `replace`: by default, what the store
/// it wraps does.
pub trait OnReplace {
    /// `replace` through this layer, over `inner`.
    fn replace<S: RecordStore + ?Sized>(
        &self,
        inner: &S,
        transition: &Transition,
    ) -> Result<(), StoreError> {
        inner.replace(transition)
    }
}

/// When the simulated crash strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crash {
    /// Before the replace: the inner store is not asked, nothing changes.
    BeforeReplace,
    /// After the state write: the inner store's replace runs (the new state
    /// is durable), then the call fails as if the process died before it
    /// could answer.
    AfterStateWrite,
}

/// [`Faulty`]'s layer: every `replace` after the first `after` ones
/// crashes (see [`Crash`]).
#[derive(Debug)]
pub struct Crashes {
    after: u32,
    crash: Crash,
    replaces: AtomicU32,
}

/// A store whose every `replace` after the first `after` ones fails with
/// [`StoreError::Io`] (an injected crash, see [`Crash`]); every other call
/// passes through to the inner store unchanged.
pub type Faulty<S> = Layered<Box<S>, Crashes>;

impl<S: ReviewStore> Layered<Box<S>, Crashes> {
    /// Crashes every `replace` after the first `after` ones.
    pub fn new(inner: S, after: u32, crash: Crash) -> Self {
        Self {
            inner: Box::new(inner),
            layer: Crashes {
                after,
                crash,
                replaces: AtomicU32::new(0),
            },
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The wrapped store, owned.
    pub fn into_inner(self) -> S {
        *self.inner
    }

    /// How many `replace` calls were made (crashed ones included).
    pub fn replaces(&self) -> u32 {
        self.layer.replaces.load(Ordering::SeqCst)
    }
}

/// Whether an error is one [`Faulty`] injected.
pub fn is_injected(e: &StoreError) -> bool {
    matches!(e, StoreError::Io { source, .. } if source.to_string().starts_with(INJECTED))
}

const INJECTED: &str = "injected fault: simulated crash";

fn crash(lineage: &LineageId, when: &str) -> StoreError {
    StoreError::Io {
        path: format!("{lineage}/state.json"),
        source: std::io::Error::other(format!("{INJECTED} {when}")),
    }
}

impl OnReplace for Crashes {
    fn replace<S: RecordStore + ?Sized>(
        &self,
        inner: &S,
        transition: &Transition,
    ) -> Result<(), StoreError> {
        let n = self.replaces.fetch_add(1, Ordering::SeqCst);
        if n < self.after {
            return inner.replace(transition);
        }
        let lineage = transition.next().state().lineage_id();
        match self.crash {
            Crash::BeforeReplace => Err(crash(lineage, "before replace")),
            Crash::AfterStateWrite => {
                inner.replace(transition)?;
                Err(crash(lineage, "after the state write"))
            }
        }
    }
}

impl<P: Deref<Target: RecordStore>, L: OnReplace> RecordStore for Layered<P, L> {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        self.inner.load(lineage)
    }

    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError> {
        self.inner.create(record)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        self.layer.replace(&*self.inner, transition)
    }

    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        self.inner.under_lock(lineage, f)
    }
}

impl<P: Deref<Target: ChainStore>, L> ChainStore for Layered<P, L> {
    fn create_successor(&self, record: &Successor) -> Result<Created, StoreError> {
        self.inner.create_successor(record)
    }

    fn successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.successor_of(lineage)
    }

    fn pending_successor_of(&self, lineage: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.pending_successor_of(lineage)
    }
}

impl<P: Deref<Target: IndexStore>, L> IndexStore for Layered<P, L> {
    fn lookup_target(&self, target: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_target(target)
    }

    fn lookup_base(&self, base: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_base(base)
    }

    fn lookup_final(&self, tree: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_final(tree)
    }

    fn lookup_delta(&self, delta: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_delta(delta)
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
        self.inner.lookup_delta_entry(entry)
    }

    fn lookup_open(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_open(base)
    }

    fn lookup_escalated(&self, base: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalated(base)
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalations()
    }
}

impl<P: Deref<Target: ReceiptStore>, L> ReceiptStore for Layered<P, L> {
    fn ensure_projections(&self, record: &StateRecord) -> Result<(), StoreError> {
        self.inner.ensure_projections(record)
    }

    fn read_receipt(&self, lineage: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.read_receipt(lineage)
    }

    fn receipt_location(&self, lineage: &LineageId) -> String {
        self.inner.receipt_location(lineage)
    }
}

impl<P: Deref<Target: ResultStore>, L> ResultStore for Layered<P, L> {
    fn submit_result(
        &self,
        lineage: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError> {
        self.inner.submit_result(lineage, lens, bytes)
    }

    fn submitted_results(&self, lineage: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        self.inner.submitted_results(lineage)
    }
}

impl<P: Deref<Target: TranscriptStore>, L> TranscriptStore for Layered<P, L> {
    fn keep_transcript(
        &self,
        lineage: &LineageId,
        role: &str,
        digest: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        self.inner.keep_transcript(lineage, role, digest, bytes)
    }
}

impl<S: ReviewStore + AttestationStore> AttestationStore for Faulty<S> {
    fn add_attestations(
        &self,
        lineage: &LineageId,
        envelopes: &[probity_core::review::DsseEnvelope],
    ) -> Result<(), StoreError> {
        self.inner.add_attestations(lineage, envelopes)
    }
    fn attestations(
        &self,
        lineage: &LineageId,
    ) -> Result<Vec<probity_core::review::DsseEnvelope>, StoreError> {
        self.inner.attestations(lineage)
    }
    fn add_evidence(
        &self,
        lineage: &LineageId,
        docs: &[probity_core::review::CommandEvidenceDocument],
    ) -> Result<(), StoreError> {
        self.inner.add_evidence(lineage, docs)
    }
    fn evidence(
        &self,
        lineage: &LineageId,
    ) -> Result<Vec<probity_core::review::CommandEvidenceDocument>, StoreError> {
        self.inner.evidence(lineage)
    }
}

impl<P: Deref<Target: RepairStore>, L> RepairStore for Layered<P, L> {
    fn survey(
        &self,
        class: probity_core::review::RepairClass,
    ) -> Result<probity_core::review::Survey, StoreError> {
        self.inner.survey(class)
    }
    fn quarantine(
        &self,
        lineage: &LineageId,
        class: probity_core::review::RepairClass,
        audit: &AuditWriter<'_>,
    ) -> Result<String, StoreError> {
        self.inner.quarantine(lineage, class, audit)
    }
    fn consume(
        &self,
        lineage: &LineageId,
        expected: &Sha256Digest,
        tombstone: &[u8],
    ) -> Result<String, StoreError> {
        self.inner.consume(lineage, expected, tombstone)
    }
}
