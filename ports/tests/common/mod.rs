//! One scenario for the driver tests: a repository whose base holds
//! `src/a.rs` and whose worktree adds three lines to it (medium risk: one
//! lens, `reliability`), on the testkit's in-memory adapters.

#![allow(dead_code)]

use probity_core::review::Lens;
use probity_core::review::{CommitId, LineageId};
use probity_core::review::{Disposition, NonBlank, RecoverRequest, StateRecord};
use probity_core::review::{PromptSet, TreeId};
use probity_core::snapshot_tools::{
    BudgetLimits, Event, Message, ModelRequest, ModelResponse, StopReason, ToolCall, ToolSpec,
};
use probity_ports::review::{
    self as drivers, Delivery, FinalizeInput, Finalized, Published, RecordStore, RemoteScope,
    ReviewError, Started,
};
use probity_ports::review::{AdapterError, RoleWorld};
use probity_ports::snapshot::{ChatModel, ModelError};
use probity_testkit::{
    FakeGit, FixedClock, InMemoryStore, WithAttestations, WithNotes, documents, verdict,
};

/// Asserts that the error `err` matches `pattern` (a guard may follow),
/// naming the error when it does not.
#[allow(unused_macros)]
macro_rules! assert_err {
    ($err:expr, $pattern:pat $(if $guard:expr)? $(,)?) => {{
        let err = &$err;
        assert!(matches!(err, $pattern $(if $guard)?), "{err}");
    }};
}
#[allow(unused_imports)]
pub(crate) use assert_err;

pub const BASE: &str = "fn a() {}\n";
/// Three lines added: line 2 is what the blocker names.
pub const CHANGE: &str = "fn a() {}\nfn b() { 1 }\nfn c() {}\nfn d() {}\n";
/// The fix of the blocker: one line changed.
pub const FIX: &str = "fn a() {}\nfn b() { 2 }\nfn c() {}\nfn d() {}\n";

pub struct World {
    pub git: FakeGit,
    pub store: InMemoryStore,
    pub clock: FixedClock,
}

/// The git the transport tests publish through: the fixture's, with notes.
pub type Git<'a> = WithNotes<'a, FakeGit>;
/// The store they publish from: the fixture's, with attestations.
pub type Store<'a> = WithAttestations<'a, InMemoryStore>;

/// `publish` of the notes for `base..tip` (no remote consulted), which
/// must succeed.
pub fn publish_range(
    git: &Git<'_>,
    store: &Store<'_>,
    base: &CommitId,
    tip: &CommitId,
) -> Published {
    drivers::publish(
        git,
        store,
        tip,
        std::slice::from_ref(base),
        &RemoteScope::None,
    )
    .unwrap()
}

/// A request to recover `pred` at its revision with `disposition`, by
/// `actor`, without a maintainer's authorization.
pub fn recover_request(
    pred: &StateRecord,
    disposition: Disposition,
    reason: &str,
    actor: &str,
) -> RecoverRequest {
    RecoverRequest {
        expected_revision: pred.revision(),
        disposition,
        reason: NonBlank::parse(reason).unwrap(),
        actor: NonBlank::parse(actor).unwrap(),
        authorization: None,
    }
}

/// `check_evidence_lands` for the check `true` (no kept run) on `lineage`
/// (or the live one).
pub fn lands(
    git: &FakeGit,
    store: &InMemoryStore,
    lineage: Option<&LineageId>,
) -> Result<(), ReviewError> {
    let argv = vec!["true".to_string()];
    drivers::check_evidence_lands(git, store, lineage, &argv, &|_| None)
}

/// Asserts `record` is validating after one correction attempt, charged
/// one changed line on each side (what the fake Git measures of [`FIX`]),
/// over the live candidate's tree.
pub fn assert_validating_after_one_fix(git: &FakeGit, record: &StateRecord) {
    assert_eq!(record.state().stage().name(), "validating");
    let c = record.state().stage().correction().unwrap();
    assert_eq!((c.attempts.len(), c.charged_lines()), (1, 2));
    assert_eq!(
        record.state().final_candidate_tree(),
        &git.candidate_tree().unwrap()
    );
}

/// Final evidence alone on `lineage`, which approves it.
pub fn approve_on_evidence(git: &FakeGit, store: &InMemoryStore, lineage: LineageId) {
    let done = drivers::finalize(
        git,
        store,
        FinalizeInput {
            lineage: Some(lineage),
            evidence: Some(documents::passing_check()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(done.record.state().stage().name(), "approved");
}

/// A review made in another repository: its own base (another `src/a.rs`)
/// and a change of its own in the worktree; nothing started.
pub fn elsewhere() -> World {
    let w = World {
        git: FakeGit::with_base(&[("src/a.rs", "fn other() {}\n")]).unwrap(),
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    };
    w.git
        .write("src/a.rs", "fn other() {}\nfn x() {}\nfn y() {}\n")
        .unwrap();
    w
}

/// The base committed and the change in the worktree; nothing started.
pub fn world() -> World {
    changed_at("src/a.rs")
}

/// [`world`] with its review started: the world and the lineage.
pub fn started() -> (World, LineageId) {
    let w = world();
    let l = w.start().state().lineage_id().clone();
    (w, l)
}

/// [`world`] with its review approved: the world, the approved record
/// and its lineage.
pub fn approved() -> (World, StateRecord, LineageId) {
    let w = world();
    let approved = w.approve();
    let l = approved.state().lineage_id().clone();
    (w, approved, l)
}

/// [`world`] with its one file at `path` instead: `src/auth.rs`, a
/// high-risk path, selects several lenses.
pub fn changed_at(path: &str) -> World {
    let git = FakeGit::with_base(&[(path, BASE)]).unwrap();
    git.write(path, CHANGE).unwrap();
    World {
        git,
        store: InMemoryStore::new(),
        clock: FixedClock::fixture(),
    }
}

impl World {
    pub fn start(&self) -> StateRecord {
        self.try_start().unwrap().record
    }

    /// `recover` of `lineage` on this world's clock, reliability lens.
    pub fn recover(
        &self,
        lineage: &LineageId,
        request: RecoverRequest,
    ) -> Result<Started, ReviewError> {
        drivers::recover(
            &self.git,
            &self.store,
            &self.clock,
            Lens::Reliability,
            lineage,
            request,
        )
    }

    pub fn finalize(&self, input: FinalizeInput) -> Result<Finalized, ReviewError> {
        drivers::finalize(&self.git, &self.store, input)
    }

    /// Finalizes `lineage` with one input set.
    pub fn finalize_with(
        &self,
        lineage: &LineageId,
        f: impl FnOnce(&mut FinalizeInput),
    ) -> Result<Finalized, ReviewError> {
        let mut input = FinalizeInput {
            lineage: Some(lineage.clone()),
            ..Default::default()
        };
        f(&mut input);
        self.finalize(input)
    }

    /// Started, judged clean and approved on passing evidence.
    pub fn approve(&self) -> StateRecord {
        self.start_then_finalize(|i| {
            i.results = vec![documents::result(documents::CLEAN)];
            i.evidence = Some(documents::passing_check());
        })
    }

    /// Started, then finalized once with the input `f` sets.
    pub fn start_then_finalize(&self, f: impl FnOnce(&mut FinalizeInput)) -> StateRecord {
        let l = self.start().state().lineage_id().clone();
        self.finalize_with(&l, f).unwrap().record
    }

    /// Started and judged with an escalating result: escalated.
    pub fn escalate(&self) -> StateRecord {
        self.start_then_finalize(|i| i.results = vec![documents::result(documents::ESCALATING)])
    }

    /// `start` of the live candidate, reliability lens, as answered.
    pub fn try_start(&self) -> Result<Started, ReviewError> {
        drivers::start(&self.git, &self.store, &self.clock, Lens::Reliability)
    }

    /// Started and judged with the blocker: in correction.
    pub fn in_correction(&self) -> StateRecord {
        self.start_then_finalize(|i| i.results = vec![documents::result(documents::BLOCKER)])
    }

    pub fn load(&self, lineage: &LineageId) -> StateRecord {
        self.store.load(lineage).unwrap().unwrap()
    }

    /// The pre-commit gate over the worktree: (decision, reason code).
    pub fn gate(&self) -> (String, String) {
        verdict(&drivers::validate_pre_commit(&self.git, &self.store, &Delivery::Worktree).unwrap())
    }
}

/// `(decision, reason)` as owned strings.
pub fn says(decision: &str, reason: &str) -> (String, String) {
    (decision.to_string(), reason.to_string())
}

use probity_core::snapshot_tools::{
    EntryKind, GrepQuery, ListEntry, RawGrep, RawRead, SnapshotPath, SubjectError,
};

/// A subject over fixed files.
pub struct Files(pub std::collections::BTreeMap<Vec<u8>, Vec<u8>>);

impl Files {
    /// A subject holding one file.
    pub fn one(path: &str, bytes: &str) -> Self {
        Self([(path.as_bytes().to_vec(), bytes.as_bytes().to_vec())].into())
    }
}

impl probity_ports::snapshot::SnapshotReader for Files {
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        self.0
            .get(path.as_bytes())
            .map(|b| RawRead::File(b.clone()))
            .ok_or_else(|| SubjectError::NotInSnapshot {
                path: path.display().into_owned(),
                why: "not in the tree".into(),
            })
    }
    fn grep(&self, _: &GrepQuery, _: usize) -> Result<RawGrep, SubjectError> {
        Ok(RawGrep {
            hits: Vec::new(),
            more: false,
            skipped: Vec::new(),
        })
    }
    fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        Ok(self
            .0
            .keys()
            .map(|p| ListEntry {
                path: p.clone(),
                kind: EntryKind::File,
            })
            .collect())
    }
}

/// A chat model that answers each request by a function of it (the
/// tools offered and the time left are not its concern).
pub struct Answering<'a>(pub &'a (dyn Fn(&ModelRequest) -> Answer + Sync));

/// What a model answers.
type Answer = Result<ModelResponse, ModelError>;

impl ChatModel for Answering<'_> {
    fn complete(&mut self, request: &ModelRequest, _: &[ToolSpec], _: u64) -> Answer {
        (self.0)(request)
    }
}

/// A scripted model's first move: while tools are offered and no tool
/// result is in the conversation yet, the call `id` reading `path`; `None`
/// once it has been read.
pub fn read_first(request: &ModelRequest, id: &str, path: &str) -> Option<ModelResponse> {
    let read = request
        .messages
        .iter()
        .any(|m| matches!(m, Message::Tool { .. }));
    (request.offer_tools && !read).then(|| ModelResponse {
        text: None,
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: serde_json::json!({ "path": path }).to_string(),
        }],
        stop: StopReason::ToolUse,
        usage: None,
    })
}

/// A model's last answer: `text`, no tool call.
pub fn answer(text: String) -> ModelResponse {
    ModelResponse {
        text: Some(text),
        tool_calls: Vec::new(),
        stop: StopReason::EndTurn,
        usage: None,
    }
}

/// The tests' role world: what is given, with the default budget, a 60 s
/// timeout and 1 MiB of diff.
pub fn role_world<'a, R, M, C>(
    prompts: &'a PromptSet,
    subject: &'a (dyn Fn(&TreeId) -> Result<R, AdapterError> + Sync),
    model: &'a (dyn Fn(&TreeId) -> Result<M, ModelError> + Sync),
    stopwatch: &'a (dyn Fn() -> C + Sync),
    jobs: usize,
    log: &'a (dyn Fn(&str, &Event) + Sync),
) -> RoleWorld<'a, R, M, C> {
    RoleWorld {
        prompts,
        subject,
        model,
        stopwatch,
        budget: BudgetLimits::default(),
        timeout_ms: 60_000,
        max_diff_bytes: 1 << 20,
        jobs,
        log,
    }
}
