//! A model-based property of the drivers on the in-memory adapters: random
//! sequences of inputs (lens results and submissions, refuter batches,
//! forecasts, validations, evidence, invalidations, recoveries, starts,
//! bad documents of every role) and worktree edits, fed through `start`,
//! `finalize`, `submit_result`, `invalidate`, `recover`, `status` and the
//! pre-commit gate.
//!
//! - every successor a store accepted passes `check_successor` against the
//!   record it replaced, and every new record (a start, a successor) is a
//!   valid state in `reviewing`;
//! - every refused input leaves the store byte-identical;
//! - the read-only drivers (`status`, the gate) never write;
//! - the gate allows exactly when the worktree changes nothing, or when an
//!   approved lineage's final target is the live target and its receipt
//!   is the one its state derives.

use std::sync::Mutex;

use proptest::prelude::*;

use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::Receipt;
use probity_core::review::{Disposition, FirstRecord, RecoverRequest, Successor};
use probity_core::review::{LineageId, NonBlank, TreeId};
use probity_core::review::{Stage, StateRecord, Transition, check_successor};
use probity_ports::review::{
    self as drivers, ChainStore, Created, Delivery, EvidenceInput, FinalizeInput, GitPort,
    IndexStore, ReceiptStore, RecordStore, ResultStore, ReviewError, StoreError, SubmitInput,
    Submitted,
};
use probity_testkit::{FakeGit, FixedClock, InMemoryStore, documents, verdict};

/// A store that lets every call through and keeps, for each accepted
/// `replace`, the record it replaced and its successor, and each created
/// record.
struct Audited {
    inner: InMemoryStore,
    replaced: Mutex<Vec<(StateRecord, StateRecord)>>,
    created: Mutex<Vec<StateRecord>>,
}

impl Audited {
    fn new() -> Self {
        Self {
            inner: InMemoryStore::new(),
            replaced: Mutex::new(Vec::new()),
            created: Mutex::new(Vec::new()),
        }
    }

    /// Keeps `record` among the created ones when the store made it
    /// (`created` is `New`); answers `created`.
    fn kept_if_new(&self, created: Created, record: &StateRecord) -> Created {
        if created == Created::New {
            self.created.lock().unwrap().push(record.clone());
        }
        created
    }

    fn take(&self) -> (Vec<(StateRecord, StateRecord)>, Vec<StateRecord>) {
        (
            std::mem::take(&mut *self.replaced.lock().unwrap()),
            std::mem::take(&mut *self.created.lock().unwrap()),
        )
    }
}

impl RecordStore for Audited {
    fn load(&self, l: &LineageId) -> Result<Option<StateRecord>, StoreError> {
        self.inner.load(l)
    }

    fn create(&self, r: &FirstRecord) -> Result<Created, StoreError> {
        let created = self.inner.create(r)?;
        Ok(self.kept_if_new(created, r.record()))
    }

    fn replace(&self, t: &Transition) -> Result<(), StoreError> {
        let prev = self.inner.load(t.next().state().lineage_id())?;
        self.inner.replace(t)?;
        if let Some(prev) = prev {
            self.replaced.lock().unwrap().push((prev, t.next().clone()));
        }
        Ok(())
    }

    fn under_lock(&self, l: &LineageId, f: &mut dyn FnMut()) -> Result<(), StoreError> {
        self.inner.under_lock(l, f)
    }
}

impl ChainStore for Audited {
    fn create_successor(&self, r: &Successor) -> Result<Created, StoreError> {
        let created = self.inner.create_successor(r)?;
        Ok(self.kept_if_new(created, r.record()))
    }

    fn successor_of(&self, l: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.successor_of(l)
    }

    fn pending_successor_of(&self, l: &LineageId) -> Result<Option<LineageId>, StoreError> {
        self.inner.pending_successor_of(l)
    }
}

impl IndexStore for Audited {
    fn lookup_target(&self, t: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_target(t)
    }

    fn lookup_base(&self, b: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_base(b)
    }

    fn lookup_final(&self, t: &TreeId) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_final(t)
    }

    fn lookup_delta(&self, d: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_delta(d)
    }

    fn index_delta(
        &self,
        r: &StateRecord,
        d: &Sha256Digest,
        e: &[Sha256Digest],
    ) -> Result<(), StoreError> {
        self.inner.index_delta(r, d, e)
    }

    fn lookup_delta_entry(&self, e: &Sha256Digest) -> Result<Option<LineageId>, StoreError> {
        self.inner.lookup_delta_entry(e)
    }

    fn lookup_open(&self, b: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_open(b)
    }

    fn lookup_escalated(&self, b: &TreeId) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalated(b)
    }

    fn lookup_escalations(&self) -> Result<Vec<LineageId>, StoreError> {
        self.inner.lookup_escalations()
    }
}

impl ReceiptStore for Audited {
    fn ensure_projections(&self, r: &StateRecord) -> Result<(), StoreError> {
        self.inner.ensure_projections(r)
    }

    fn read_receipt(&self, l: &LineageId) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.read_receipt(l)
    }

    fn receipt_location(&self, l: &LineageId) -> String {
        self.inner.receipt_location(l)
    }
}

impl ResultStore for Audited {
    fn submit_result(
        &self,
        l: &LineageId,
        lens: Lens,
        bytes: &[u8],
    ) -> Result<Submitted, StoreError> {
        self.inner.submit_result(l, lens, bytes)
    }

    fn submitted_results(&self, l: &LineageId) -> Result<Vec<(Lens, Vec<u8>)>, StoreError> {
        self.inner.submitted_results(l)
    }
}

const BASE: &str = "fn a() {}\n";

/// A reviewer result whose inferential severe finding awaits the refuter.
const REFUTABLE: &str = r#"{"findings":[{"location":"src/a.rs:2","severity":"CRITICAL","claim":"may race","proof_refs":["reading"],"evidence_class":"inferential","causal_disposition":"introduced"}],"evidence":["read the diff"]}"#;

#[derive(Debug, Clone, Copy)]
enum Reviewer {
    Clean,
    Blocker,
    Escalating,
    Refutable,
    Malformed,
    WrongShape,
    Oversized,
}

impl Reviewer {
    fn text(self) -> String {
        match self {
            Reviewer::Clean => documents::CLEAN.into(),
            Reviewer::Blocker => documents::BLOCKER.into(),
            Reviewer::Escalating => documents::ESCALATING.into(),
            Reviewer::Refutable => REFUTABLE.into(),
            Reviewer::Malformed => "{not json".into(),
            Reviewer::WrongShape => r#"{"findings":[{"severity":"BLOCKER"}]}"#.into(),
            Reviewer::Oversized => " ".repeat((1 << 20) + 1),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Refuter {
    Refuted,
    Corroborated,
    UnknownFinding,
    Malformed,
}

impl Refuter {
    fn text(self) -> &'static str {
        match self {
            Refuter::Refuted => {
                r#"{"outcomes":[{"finding_id":"R3-001","outcome":"refuted","evidence":["t passes"]}]}"#
            }
            Refuter::Corroborated => {
                r#"{"outcomes":[{"finding_id":"R3-001","outcome":"corroborated","evidence":["t fails"]}]}"#
            }
            Refuter::UnknownFinding => {
                r#"{"outcomes":[{"finding_id":"R3-009","outcome":"refuted","evidence":["x"]}]}"#
            }
            Refuter::Malformed => r#"{"outcomes":[]}"#,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Validator {
    Pass,
    Fail,
    Malformed,
}

impl Validator {
    fn text(self) -> &'static str {
        match self {
            Validator::Pass => documents::VALIDATOR_PASS,
            Validator::Fail => documents::VALIDATOR_FAIL,
            Validator::Malformed => r#"{"original_criteria":{"passed":true}}"#,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Evidence {
    Bytes,
    Empty,
    PassingCheck,
    FailingCheck,
    BadCommandDocument,
}

impl Evidence {
    fn input(self) -> EvidenceInput {
        match self {
            Evidence::Bytes => documents::evidence(documents::EVIDENCE),
            Evidence::Empty => documents::evidence(""),
            Evidence::PassingCheck => documents::passing_check(),
            Evidence::FailingCheck => documents::failing_check(),
            Evidence::BadCommandDocument => {
                documents::evidence(r#"{"schema":"probity-command-evidence/v1"}"#)
            }
        }
    }
}

/// The worktree's `src/a.rs` (and whether an unrelated file exists).
#[derive(Debug, Clone, Copy)]
enum Edit {
    /// The change under review (three lines added).
    Change,
    /// The blocker's fix (line 2 changed).
    Fix,
    /// Another fix (line 2 changed otherwise).
    OtherFix,
    /// A comment added to the change.
    Comment,
    /// Back to the base: nothing to review.
    Revert,
    /// An unrelated new file beside whatever is there.
    Unrelated,
    /// The unrelated file removed.
    NoUnrelated,
}

#[derive(Debug, Clone)]
enum Op {
    Start(Lens),
    Result {
        doc: Reviewer,
        named: bool,
        pick: Option<u8>,
    },
    Submit {
        doc: Reviewer,
        bound: bool,
        lens: Lens,
    },
    Refuter(Refuter, Option<u8>),
    Forecast(u64, Option<u8>),
    Validation(Validator, Option<u8>),
    Evidence(Evidence, Option<u8>),
    /// A forecast and a validation in one call.
    Attempt(u64, Validator, Option<u8>),
    Invalidate(u8),
    Recover(Disposition, u8),
    Status,
    Gate,
    Edit(Edit),
}

fn lens() -> impl Strategy<Value = Lens> {
    prop_oneof![Just(Lens::Reliability), Just(Lens::Risk)]
}

fn reviewer() -> impl Strategy<Value = Reviewer> {
    prop_oneof![
        4 => Just(Reviewer::Clean),
        3 => Just(Reviewer::Blocker),
        1 => Just(Reviewer::Escalating),
        2 => Just(Reviewer::Refutable),
        1 => Just(Reviewer::Malformed),
        1 => Just(Reviewer::WrongShape),
        1 => Just(Reviewer::Oversized),
    ]
}

fn pick() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![1 => Just(None), 2 => any::<u8>().prop_map(Some)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => lens().prop_map(Op::Start),
        6 => (reviewer(), any::<bool>(), pick())
            .prop_map(|(doc, named, pick)| Op::Result { doc, named, pick }),
        2 => (reviewer(), any::<bool>(), lens())
            .prop_map(|(doc, bound, lens)| Op::Submit { doc, bound, lens }),
        1 => (
            prop_oneof![
                Just(Refuter::Refuted),
                Just(Refuter::Corroborated),
                Just(Refuter::UnknownFinding),
                Just(Refuter::Malformed)
            ],
            pick()
        )
            .prop_map(|(r, p)| Op::Refuter(r, p)),
        3 => (0u64..5, pick()).prop_map(|(n, p)| Op::Forecast(n, p)),
        3 => (validator(), pick()).prop_map(|(v, p)| Op::Validation(v, p)),
        4 => (
            prop_oneof![
                3 => Just(Evidence::Bytes),
                1 => Just(Evidence::Empty),
                2 => Just(Evidence::PassingCheck),
                1 => Just(Evidence::FailingCheck),
                1 => Just(Evidence::BadCommandDocument)
            ],
            pick()
        )
            .prop_map(|(e, p)| Op::Evidence(e, p)),
        2 => (0u64..5, validator(), pick()).prop_map(|(n, v, p)| Op::Attempt(n, v, p)),
        1 => any::<u8>().prop_map(Op::Invalidate),
        1 => (
            prop_oneof![
                Just(Disposition::ScopeChanged),
                Just(Disposition::Invalidated),
                Just(Disposition::EscalationAuthorized)
            ],
            any::<u8>()
        )
            .prop_map(|(d, p)| Op::Recover(d, p)),
        1 => Just(Op::Status),
        2 => Just(Op::Gate),
        3 => prop_oneof![
            Just(Edit::Change),
            Just(Edit::Fix),
            Just(Edit::OtherFix),
            Just(Edit::Comment),
            Just(Edit::Revert),
            Just(Edit::Unrelated),
            Just(Edit::NoUnrelated)
        ]
        .prop_map(Op::Edit),
    ]
}

fn validator() -> impl Strategy<Value = Validator> {
    prop_oneof![
        2 => Just(Validator::Pass),
        2 => Just(Validator::Fail),
        1 => Just(Validator::Malformed)
    ]
}

struct Model {
    git: FakeGit,
    store: Audited,
    clock: FixedClock,
}

impl Model {
    fn new() -> Self {
        let git = FakeGit::with_base(&[("src/a.rs", BASE)]).unwrap();
        git.write(
            "src/a.rs",
            "fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n",
        )
        .unwrap();
        let m = Self {
            git,
            store: Audited::new(),
            clock: FixedClock::fixture(),
        };
        // Every sequence begins with the change under review.
        drivers::start(&m.git, &m.store, &m.clock, Lens::Reliability).unwrap();
        m.store.take();
        m
    }

    /// Every lineage the store holds, sorted.
    fn lineages(&self) -> Vec<LineageId> {
        let mut out: Vec<LineageId> = self
            .store
            .inner
            .dump()
            .keys()
            .filter_map(|k| k.strip_suffix("/state.json"))
            .filter_map(|l| LineageId::parse(l).ok())
            .collect();
        out.sort();
        out
    }

    fn pick(&self, p: u8) -> Option<LineageId> {
        let all = self.lineages();
        (!all.is_empty()).then(|| all[p as usize % all.len()].clone())
    }

    fn lineage(&self, p: Option<u8>) -> Option<LineageId> {
        p.and_then(|p| self.pick(p))
    }

    fn edit(&self, e: Edit) {
        let a = match e {
            Edit::Change => Some("fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n"),
            Edit::Fix => Some("fn a() {}\nfn b() { 2 }\nfn c() {}\nfn d() {}\n"),
            Edit::OtherFix => Some("fn a() {}\nfn b() { 3 }\nfn c() {}\nfn d() {}\n"),
            Edit::Comment => Some("fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n// note\n"),
            Edit::Revert => Some(BASE),
            Edit::Unrelated => {
                self.git.write("src/other.rs", "fn other() {}\n").unwrap();
                None
            }
            Edit::NoUnrelated => {
                let _ = self.git.remove("src/other.rs");
                None
            }
        };
        if let Some(a) = a {
            self.git.write("src/a.rs", a).unwrap();
        }
    }

    fn finalize(&self, lineage: Option<u8>, f: impl FnOnce(&mut FinalizeInput)) -> Outcome {
        let mut input = FinalizeInput {
            lineage: self.lineage(lineage),
            ..Default::default()
        };
        f(&mut input);
        drivers::finalize(&self.git, &self.store, input).map(|_| ())
    }

    /// Runs a driver input; `Ok(false)` for a read-only one.
    fn apply(&self, op: &Op) -> Result<bool, ReviewError> {
        let writes = |r: Outcome| r.map(|()| true);
        match op {
            Op::Edit(_) => Ok(false),
            Op::Start(focus) => {
                writes(drivers::start(&self.git, &self.store, &self.clock, *focus).map(|_| ()))
            }
            Op::Result { doc, named, pick } => writes(self.finalize(*pick, |i| {
                let text = doc.text();
                i.results = vec![if *named {
                    documents::result_for(Lens::Reliability, &text)
                } else {
                    documents::result(&text)
                }];
            })),
            Op::Submit { doc, bound, lens } => {
                let binding = if *bound {
                    self.lineages()
                        .first()
                        .and_then(|l| self.store.load(l).ok().flatten())
                        .and_then(|r| r.state().lens_bindings().into_iter().next())
                        .map(|b| b.token)
                } else {
                    None
                };
                writes(
                    drivers::submit_result(
                        &self.git,
                        &self.store,
                        SubmitInput {
                            lineage: None,
                            lens: *lens,
                            binding,
                            result: documents::named("r.json", doc.text()),
                        },
                    )
                    .map(|_| ()),
                )
            }
            Op::Refuter(r, p) => writes(self.finalize(*p, |i| {
                i.refuter = Some(documents::named("refuter.json", r.text()))
            })),
            Op::Forecast(n, p) => writes(self.finalize(*p, |i| i.correction_lines = Some(*n))),
            Op::Validation(v, p) => writes(self.finalize(*p, |i| {
                i.validation = Some(documents::named("v.json", v.text()))
            })),
            Op::Evidence(e, p) => writes(self.finalize(*p, |i| i.evidence = Some(e.input()))),
            Op::Attempt(n, v, p) => writes(self.finalize(*p, |i| {
                i.correction_lines = Some(*n);
                i.validation = Some(documents::named("v.json", v.text()));
            })),
            Op::Invalidate(p) => {
                let Some(l) = self.pick(*p) else {
                    return Ok(true);
                };
                writes(
                    drivers::invalidate(&self.store, &l, NonBlank::parse("wrong").unwrap())
                        .map(|_| ()),
                )
            }
            Op::Recover(disposition, p) => {
                let Some(l) = self.pick(*p) else {
                    return Ok(true);
                };
                let Some(pred) = self.store.load(&l).unwrap() else {
                    return Ok(true);
                };
                let authorization = (*disposition == Disposition::EscalationAuthorized)
                    .then(|| NonBlank::parse("maintainer sign-off").unwrap());
                writes(
                    drivers::recover(
                        &self.git,
                        &self.store,
                        &self.clock,
                        Lens::Reliability,
                        &l,
                        RecoverRequest {
                            expected_revision: pred.revision(),
                            disposition: *disposition,
                            reason: NonBlank::parse("again").unwrap(),
                            actor: NonBlank::parse("maintainer").unwrap(),
                            authorization,
                        },
                    )
                    .map(|_| ()),
                )
            }
            Op::Status => drivers::status(&self.git, &self.store, None).map(|_| false),
            Op::Gate => drivers::validate_pre_commit(&self.git, &self.store, &Delivery::Worktree)
                .map(|_| false),
        }
    }

    /// The gate's allow, as the model predicts it.
    fn gate_should_allow(&self) -> bool {
        let live = self.git.live_target().unwrap();
        if live.base_tree == live.candidate_tree {
            return true;
        }
        self.lineages().into_iter().any(|l| {
            let Some(r) = self.store.load(&l).unwrap() else {
                return false;
            };
            matches!(r.state().stage(), Stage::Approved { .. })
                && r.state().final_target() == live.target
                && self.store.successor_of(&l).unwrap().is_none()
                && self.store.read_receipt(&l).unwrap()
                    == Receipt::derive(r.state()).map(|x| x.to_bytes().unwrap())
        })
    }
}

type Outcome = Result<(), ReviewError>;

proptest! {
    #![proptest_config(ProptestConfig {
        // `PROPTEST_CASES` sets a longer run (`with_cases` would ignore it).
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn accepted_inputs_are_legal_successors_and_refused_ones_change_no_byte(
        ops in proptest::collection::vec(op(), 1..48)
    ) {
        let m = Model::new();
        for (i, op) in ops.iter().enumerate() {
            if let Op::Edit(e) = op {
                m.edit(*e);
                continue;
            }
            let before = m.store.inner.dump();
            let outcome = m.apply(op);
            let after = m.store.inner.dump();
            let (replaced, created) = m.store.take();
            match outcome {
                Err(e) => {
                    prop_assert!(
                        after == before,
                        "step {i} {op:?} was refused ({e}) but changed the store"
                    );
                    prop_assert!(replaced.is_empty() && created.is_empty());
                }
                Ok(false) => prop_assert!(after == before, "step {i} {op:?} is read-only but wrote"),
                Ok(true) => {
                    for (prev, next) in &replaced {
                        prop_assert!(
                            check_successor(prev.state(), next.state()).is_ok(),
                            "step {i} {op:?}: {} -> {} is not a legal successor",
                            prev.state().stage().name(),
                            next.state().stage().name()
                        );
                        prop_assert_eq!(
                            m.store.load(next.state().lineage_id()).unwrap().map(|r| r.revision()).is_some(),
                            true
                        );
                    }
                    for r in &created {
                        prop_assert!(r.state().validate().is_ok(), "step {i}: an invalid new record");
                        prop_assert!(
                            matches!(r.state().stage(), Stage::Reviewing),
                            "step {i}: a new record in {}",
                            r.state().stage().name()
                        );
                    }
                }
            }
            // Whatever happened, the gate allows exactly what the model
            // predicts, and never writes.
            let held = m.store.inner.dump();
            let gate = drivers::validate_pre_commit(&m.git, &m.store, &Delivery::Worktree)
                .map(|d| verdict(&d));
            prop_assert!(m.store.inner.dump() == held, "the gate wrote");
            let (replaced, created) = m.store.take();
            prop_assert!(replaced.is_empty() && created.is_empty());
            let allowed = matches!(&gate, Ok((d, _)) if d == "allow");
            prop_assert_eq!(
                allowed,
                m.gate_should_allow(),
                "step {} {:?}: the gate answered {:?}",
                i,
                op,
                gate
            );
        }
    }
}
