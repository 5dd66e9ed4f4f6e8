//! Fault injection around any [`ReviewStore`]: a simulated crash at a
//! chosen `replace`, so crash tests need no switch inside a production
//! store.

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

/// A store whose every `replace` after the first `after` ones fails with
/// [`StoreError::Io`] (an injected crash, see [`Crash`]); every other call
/// passes through to the inner store unchanged.
#[derive(Debug)]
pub struct Faulty<S> {
    inner: S,
    after: u32,
    crash: Crash,
    replaces: AtomicU32,
}

impl<S: ReviewStore> Faulty<S> {
    /// Crashes every `replace` after the first `after` ones.
    pub fn new(inner: S, after: u32, crash: Crash) -> Self {
        Self {
            inner,
            after,
            crash,
            replaces: AtomicU32::new(0),
        }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The wrapped store, owned.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// How many `replace` calls were made (crashed ones included).
    pub fn replaces(&self) -> u32 {
        self.replaces.load(Ordering::SeqCst)
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

impl<S: ReviewStore> RecordStore for Faulty<S> {
    fn load(&self, lineage: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        self.inner.load(lineage)
    }

    fn create(&self, record: &FirstRecord) -> Result<Created, StoreError> {
        self.inner.create(record)
    }

    fn replace(&self, transition: &Transition) -> Result<(), StoreError> {
        let n = self.replaces.fetch_add(1, Ordering::SeqCst);
        if n < self.after {
            return self.inner.replace(transition);
        }
        let lineage = transition.next().state().lineage_id();
        match self.crash {
            Crash::BeforeReplace => Err(crash(lineage, "before replace")),
            Crash::AfterStateWrite => {
                self.inner.replace(transition)?;
                Err(crash(lineage, "after the state write"))
            }
        }
    }

    fn under_lock(&self, lineage: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        self.inner.under_lock(lineage, f)
    }
}

impl<S: ReviewStore> ChainStore for Faulty<S> {
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

impl<S: ReviewStore> IndexStore for Faulty<S> {
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

impl<S: ReviewStore> ReceiptStore for Faulty<S> {
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

impl<S: ReviewStore> ResultStore for Faulty<S> {
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

impl<S: ReviewStore + TranscriptStore> TranscriptStore for Faulty<S> {
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

impl<S: ReviewStore + RepairStore> RepairStore for Faulty<S> {
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
