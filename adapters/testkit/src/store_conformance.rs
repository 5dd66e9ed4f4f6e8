//! One conformance suite for every [`ReviewStore`]: what the drivers rely
//! on, asked through the trait alone, so the file store and the in-memory
//! store are held to the same behaviour.
//!
//! ```
//! use probity_testkit::{InMemoryStore, store_conformance};
//!
//! store_conformance::run(InMemoryStore::new).unwrap();
//! ```
//!
//! Each case gets a fresh store from `make`. A failure is reported, not
//! panicked: [`run`] answers every case that failed and why.

use probity_core::review::Forecast;
use std::collections::BTreeMap;
use std::fmt;

use probity_core::digest::{Domain, Sha256Digest};
use probity_core::review::Lens;
use probity_core::review::Receipt;
use probity_core::review::ReviewerResult;
use probity_core::review::fixtures;
use probity_core::review::{CandidateObservation, target_identity};
use probity_core::review::{
    Disposition, FirstRecord, RecoverRequest, ScopeEvidence, Successor, successor,
};
use probity_core::review::{LineageId, NonBlank, TreeId};
use probity_core::review::{ReviewState, StateRecord, Transition};
use probity_ports::review::{Created, ReviewStore, StoreError, Submitted};

/// A case that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The case's name, e.g. `stale_writers` or `interrupted_recovery`.
    pub case: &'static str,
    /// What the store did that the case forbids (or the error it answered), in
    /// words.
    pub why: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.case, self.why)
    }
}

/// Why a run failed: every failing case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failures(pub Vec<Failure>);

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for failure in &self.0 {
            writeln!(f, "{failure}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failures {}

type Outcome = Result<(), String>;

/// One case: its name and its check of a fresh store.
type Case<S> = (&'static str, fn(&S) -> Outcome);

/// Runs every case, each on a fresh store from `make`.
pub fn run<S: ReviewStore>(mut make: impl FnMut() -> S) -> Result<(), Failures> {
    let cases: [Case<S>; 13] = [
        ("create_and_resume", create_and_resume),
        ("compare_and_swap_and_exact_retries", cas_and_exact_retries),
        ("stale_writers", stale_writers),
        (
            "illegal_successors_never_reach_the_store",
            illegal_successors,
        ),
        ("receipts_are_projections_of_state", receipts),
        ("approval_indexes", approval_indexes),
        (
            "correction_and_escalation_indexes",
            correction_and_escalation,
        ),
        ("corrected_target_claims", corrected_target_claims),
        ("delta_indexes", delta_indexes),
        ("successors_never_fork", successors),
        (
            "a_successor_never_takes_another_lineages_target",
            successor_target_owned,
        ),
        ("submitted_results", submitted_results),
        ("under_lock", under_lock),
    ];
    let mut failures = Vec::new();
    for (case, f) in cases {
        if let Err(why) = f(&make()) {
            failures.push(Failure { case, why });
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failures(failures))
    }
}

/// The pending-successor case: `interrupt` must leave the given successor's
/// recovery as a crash after its first steps does (its pending record and
/// its own record written; neither its target index nor the predecessor's
/// supersession marker). Then only the same request completes it.
pub fn run_interrupted_recovery<S: ReviewStore>(
    mut make: impl FnMut() -> S,
    interrupt: impl Fn(&S, &StateRecord) -> Result<(), String>,
) -> Result<(), Failures> {
    interrupted_recovery(&make(), &interrupt).map_err(|why| {
        Failures(vec![Failure {
            case: "interrupted_recovery",
            why,
        }])
    })
}

macro_rules! ensure {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            return Err(format!($($why)+));
        }
    };
}

/// The kept-lists case of an [`AttestationStore`](probity_ports::review::AttestationStore): a lineage's signed
/// statements and evidence documents are kept sorted and unique, adding
/// what is held changes nothing, and one more than the bound
/// ([`MAX_ATTESTATIONS`], [`MAX_EVIDENCE_PER_LINEAGE`]) is refused with the
/// list unchanged; another lineage's lists are its own.
///
/// [`MAX_ATTESTATIONS`]: probity_core::review::MAX_ATTESTATIONS
/// [`MAX_EVIDENCE_PER_LINEAGE`]: probity_core::review::MAX_EVIDENCE_PER_LINEAGE
pub fn run_attestations<S: probity_ports::review::AttestationStore>(
    store: &S,
) -> Result<(), Failures> {
    kept_lists(store).map_err(|why| {
        Failures(vec![Failure {
            case: "kept_lists",
            why,
        }])
    })
}

fn kept_lists<S: probity_ports::review::AttestationStore>(store: &S) -> Outcome {
    use probity_core::review::{CommandEvidenceDocument, DsseEnvelope, DsseSignature};
    use probity_core::review::{MAX_ATTESTATIONS, MAX_EVIDENCE_PER_LINEAGE};
    let envelope = |sig: String| DsseEnvelope {
        payload_type: "application/vnd.in-toto+json".into(),
        payload: "eyJhIjoxfQ==".into(),
        signatures: vec![DsseSignature { keyid: None, sig }],
    };
    let doc = |code: i32| CommandEvidenceDocument {
        schema: "probity-command-evidence/v1".into(),
        argv: vec!["true".into()],
        exit_code: Some(code),
        signal: None,
        output_sha256: Sha256Digest::plain(b""),
        output_bytes: 0,
        tree: None,
    };
    let lineage = |n: u8| LineageId::parse(format!("review-{n:016x}"));
    let (l, other) = (
        lineage(1).map_err(|e| e.to_string())?,
        lineage(2).map_err(|e| e.to_string())?,
    );
    kept_list(
        "attestations",
        |l, added| store.add_attestations(l, added),
        |l| store.attestations(l),
        |n| envelope(format!("{n:04}")),
        MAX_ATTESTATIONS,
        (&l, &other),
    )?;
    kept_list(
        "evidence documents",
        |l, added| store.add_evidence(l, added),
        |l| store.evidence(l),
        |n| doc(n as i32),
        MAX_EVIDENCE_PER_LINEAGE,
        (&l, &other),
    )?;
    Ok(())
}

/// One kept list of `l` (`item(n)` its n-th entry, in sort order): kept
/// sorted and unique, a held entry added again changes nothing, one past
/// `max` is refused with the list unchanged, and `other`'s stays empty.
fn kept_list<T: Clone + PartialEq + fmt::Debug>(
    what: &str,
    add: impl Fn(&LineageId, &[T]) -> Result<(), StoreError>,
    read: impl Fn(&LineageId) -> Result<Vec<T>, StoreError>,
    item: impl Fn(usize) -> T,
    max: usize,
    (l, other): (&LineageId, &LineageId),
) -> Outcome {
    let err = |e: StoreError| e.to_string();
    ensure!(
        read(l).map_err(err)?.is_empty(),
        "a new lineage holds {what}"
    );
    add(l, &[item(1), item(0), item(1)]).map_err(err)?;
    let kept = read(l).map_err(err)?;
    ensure!(
        kept == [item(0), item(1)],
        "{what} not kept sorted and unique: {kept:?}"
    );
    add(l, &[item(0)]).map_err(err)?;
    ensure!(
        read(l).map_err(err)? == kept,
        "adding a held entry changed the {what}"
    );
    let past: Vec<T> = (2..=max).map(&item).collect();
    ensure!(add(l, &past).is_err(), "more than {max} {what} were kept");
    ensure!(
        read(l).map_err(err)? == kept,
        "a refused add changed the {what}"
    );
    ensure!(
        read(other).map_err(err)?.is_empty(),
        "another lineage's {what} leaked"
    );
    Ok(())
}

mod cases;
use cases::*;

/// Everything the trait tells about these lineages and keys: what "wrote
/// nothing" is checked against.
#[derive(Debug, PartialEq, Eq)]
struct Observed(BTreeMap<String, String>);

struct Keys<'a> {
    lineages: &'a [&'a LineageId],
    targets: &'a [Sha256Digest],
    trees: &'a [&'a TreeId],
    digests: &'a [Sha256Digest],
}

/// A store's answer as [`observe`] records it.
fn shown<T: fmt::Debug>(answer: Result<T, StoreError>) -> String {
    format!("{:?}", answer.map_err(|e| e.to_string()))
}

/// [`started`]'s record, created in `store`.
fn created<S: ReviewStore>(store: &S) -> Result<StateRecord, String> {
    let r = started()?;
    ok("create", store.create(&first(&r)?))?;
    Ok(r)
}

/// `next`, stored in `store` by the step from `prev` (`what` names it in
/// a failure).
fn replaced<S: ReviewStore>(
    store: &S,
    what: &str,
    prev: &StateRecord,
    next: StateRecord,
) -> Result<StateRecord, String> {
    ok(what, store.replace(&step(prev, &next)?))?;
    Ok(next)
}

fn observe<S: ReviewStore>(store: &S, keys: &Keys<'_>) -> Result<Observed, String> {
    let mut out = BTreeMap::new();
    let mut put = |k: String, v: String| {
        out.insert(k, v);
    };
    for l in keys.lineages {
        let loaded = match store.load(l) {
            Ok(Some(r)) => format!("{:?}", ok("bytes", r.to_bytes())?),
            Ok(None) => "none".into(),
            Err(e) => format!("error {e}"),
        };
        put(format!("{l}/state"), loaded);
        put(format!("{l}/receipt"), shown(store.read_receipt(l)));
        put(format!("{l}/successor"), shown(store.successor_of(l)));
        put(format!("{l}/pending"), shown(store.pending_successor_of(l)));
        put(format!("{l}/results"), shown(store.submitted_results(l)));
    }
    for t in keys.targets {
        put(format!("target/{t}"), shown(store.lookup_target(t)));
    }
    for tree in keys.trees {
        let answers = [
            ("base", shown(store.lookup_base(tree))),
            ("final", shown(store.lookup_final(tree))),
            ("open", shown(store.lookup_open(tree))),
            ("escalated", shown(store.lookup_escalated(tree))),
        ];
        for (kind, answer) in answers {
            put(format!("{kind}/{tree}"), answer);
        }
    }
    for d in keys.digests {
        put(format!("delta/{d}"), shown(store.lookup_delta(d)));
        put(format!("entry/{d}"), shown(store.lookup_delta_entry(d)));
    }
    Ok(Observed(out))
}

fn create_and_resume<S: ReviewStore>(store: &S) -> Outcome {
    let r = started()?;
    let l = r.state().lineage_id();
    ensure!(
        ok("load before create", store.load(l))?.is_none(),
        "a lineage that was never created loads"
    );
    ensure!(
        ok("create", store.create(&first(&r)?))? == Created::New,
        "a first create is not New"
    );
    ensure!(
        ok(
            "lookup_target",
            store.lookup_target(&r.state().snapshot().target)
        )? == Some(l.clone()),
        "a created lineage is not indexed by its target"
    );
    ensure!(
        ok("load", store.load(l))? == Some(r.clone()),
        "the loaded record is not the created one"
    );
    ensure!(
        ok("create again", store.create(&first(&r)?))? == Created::Existing(l.clone()),
        "an exact retry of a create is not answered with the existing lineage"
    );
    // Another start of the same candidate (another nonce) resumes the
    // first and keeps nothing of its own.
    let mut input = ok(
        "start input",
        fixtures::start_input(&fixtures::parser_observation(), Lens::Reliability),
    )?;
    input.nonce = ok(
        "nonce",
        probity_core::review::Nonce::parse("ffeeddccbbaa99887766554433221100"),
    )?;
    let second = record(&ok("start", ReviewState::start(input))?)?;
    ensure!(
        second.state().lineage_id() != l,
        "another nonce derived the same lineage"
    );
    ensure!(
        ok("create the second", store.create(&first(&second)?))? == Created::Existing(l.clone()),
        "a second start of an owned target was not answered with its owner"
    );
    ensure!(
        ok("load the second", store.load(second.state().lineage_id()))?.is_none(),
        "the losing start's lineage was kept"
    );
    Ok(())
}

fn cas_and_exact_retries<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let r1 = validating(&r0)?;
    let t = step(&r0, &r1)?;
    ok("replace", store.replace(&t))?;
    ok("exact retry", store.replace(&t))?;
    ensure!(
        ok("load", store.load(r0.state().lineage_id()))? == Some(r1.clone()),
        "the stored record is not the successor"
    );
    replaced(store, "replace to approved", &r1, approved(&r1)?)?;
    // A retry of an older step once the lineage moved on is stale.
    expect_err("an old step replayed", store.replace(&t), |e| {
        matches!(e, StoreError::Conflict { .. })
    })?;
    // A lineage the store never held: refused (the file store cannot
    // even take its lock, an I/O error; the in-memory store answers
    // NotFound), and nothing is created.
    let other = started_on(&other_observation(
        "2222222222222222222222222222222222222222",
    )?)?;
    expect_err(
        "replace of an unknown lineage",
        store.replace(&step(&other, &validating(&other)?)?),
        |e| matches!(e, StoreError::NotFound(_) | StoreError::Io { .. }),
    )?;
    ensure!(
        ok(
            "load the unknown lineage",
            store.load(other.state().lineage_id())
        )?
        .is_none(),
        "a replace of an unknown lineage created it"
    );
    Ok(())
}

fn stale_writers<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let l = r0.state().lineage_id();
    let r1 = replaced(store, "replace", &r0, validating(&r0)?)?;
    let keys = Keys {
        lineages: &[l],
        targets: &[r0.state().snapshot().target],
        trees: &[&r0.state().snapshot().base_tree],
        digests: &[],
    };
    let before = observe(store, &keys)?;
    // A writer that read r0 and made another successor of it.
    let other = record(&ok(
        "accept another reading",
        r0.state().accept_results(
            vec![reviewer(
                r#"{"findings":[],"evidence":["another reading"]}"#,
            )?],
            &Default::default(),
        ),
    )?)?;
    expect_err("a stale writer", store.replace(&step(&r0, &other)?), |e| {
        matches!(e, StoreError::Conflict { lineage, expected, found }
            if lineage == l && *expected == r0.revision() && *found == r1.revision())
    })?;
    // A writer ahead of the store (expecting a revision it never held).
    let r2 = approved(&r1)?;
    let r3_from_r2 = step(&r2, &r2)?;
    expect_err(
        "a writer ahead of the store",
        store.replace(&r3_from_r2),
        |e| matches!(e, StoreError::Conflict { .. }),
    )?;
    ensure!(
        observe(store, &keys)? == before,
        "a refused writer changed what the store answers"
    );
    Ok(())
}

fn illegal_successors<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let keys = Keys {
        lineages: &[r0.state().lineage_id()],
        targets: &[r0.state().snapshot().target],
        trees: &[&r0.state().snapshot().base_tree],
        digests: &[],
    };
    let before = observe(store, &keys)?;
    // Frozen fields changed: another candidate's state as the successor
    // (outside core a state cannot be edited, only made by a transition).
    let forged = started_on(&other_observation(
        "4444444444444444444444444444444444444444",
    )?)?
    .into_state();
    ensure!(
        Transition::check(&r0, forged).is_err(),
        "a successor with changed frozen fields was checked legal"
    );
    // An illegal edge: reviewing straight to approved.
    let skipped = ok(
        "accept evidence",
        validating(&r0)?.state().accept_evidence(b"evidence"),
    )?;
    ensure!(
        Transition::check(&r0, skipped).is_err(),
        "reviewing -> approved was checked legal"
    );
    // Invalidating a lineage that has a judgment.
    let r1 = validating(&r0)?;
    ensure!(
        r1.state().invalidate(non_blank("late")?).is_err(),
        "a judged lineage was invalidated"
    );
    ensure!(
        observe(store, &keys)? == before,
        "the store changed without a replace"
    );
    Ok(())
}

fn receipts<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let l = r0.state().lineage_id();
    ensure!(
        ok("read_receipt", store.read_receipt(l))?.is_none(),
        "a reviewing lineage has a receipt"
    );
    let r1 = replaced(store, "replace", &r0, validating(&r0)?)?;
    ensure!(
        ok("read_receipt", store.read_receipt(l))?.is_none(),
        "a validating lineage has a receipt"
    );
    // A stale record's projections are a conflict, not a write.
    expect_err(
        "ensure_projections of a stale record",
        store.ensure_projections(&r0),
        |e| matches!(e, StoreError::Conflict { .. }),
    )?;
    let r2 = replaced(store, "replace to approved", &r1, approved(&r1)?)?;
    let derived = Receipt::derive(r2.state()).ok_or("an approved state derives no receipt")?;
    let derived = ok("receipt bytes", derived.to_bytes())?;
    ensure!(
        ok("read_receipt", store.read_receipt(l))? == Some(derived.clone()),
        "the stored receipt is not the one the approved state derives"
    );
    ok("ensure_projections", store.ensure_projections(&r2))?;
    ok("exact retry", store.replace(&step(&r1, &r2)?))?;
    ensure!(
        ok("read_receipt", store.read_receipt(l))? == Some(derived),
        "a retry changed the receipt"
    );
    ensure!(
        !store.receipt_location(l).is_empty(),
        "a receipt has no location"
    );
    Ok(())
}

fn approval_indexes<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let l = r0.state().lineage_id().clone();
    let base = r0.state().snapshot().base_tree.clone();
    let r1 = replaced(store, "replace", &r0, validating(&r0)?)?;
    ensure!(
        ok("lookup_base", store.lookup_base(&base))?.is_none(),
        "a validating lineage is indexed by its base"
    );
    let r2 = replaced(store, "replace to approved", &r1, approved(&r1)?)?;
    ensure!(
        ok("lookup_base", store.lookup_base(&base))? == Some(l.clone()),
        "an approval is not indexed by its base tree"
    );
    ensure!(
        ok(
            "lookup_final",
            store.lookup_final(r2.state().final_candidate_tree())
        )? == Some(l.clone()),
        "an approval is not indexed by its final candidate tree"
    );
    ensure!(
        ok("lookup_open", store.lookup_open(&base))?.is_empty()
            && ok("lookup_escalated", store.lookup_escalated(&base))?.is_empty(),
        "an approval is listed as open or escalated"
    );
    Ok(())
}

fn correction_and_escalation<S: ReviewStore>(store: &S) -> Outcome {
    // The budget scenario is in correction from its first judgment.
    let reviewing = record(&ok(
        "budget scenario start",
        fixtures::start(
            &{
                let mut obs = fixtures::parser_observation();
                obs.candidate_tree = ok(
                    "tree",
                    TreeId::parse("0000000000000000000000000000000000000c01"),
                )?;
                obs
            },
            Lens::Reliability,
        ),
    )?)?;
    let base = reviewing.state().snapshot().base_tree.clone();
    ok("create", store.create(&first(&reviewing)?))?;
    let blocker = reviewer(
        r#"{"findings":[{"location":"src/parser.rs:2","severity":"BLOCKER","claim":"wrong","proof_refs":["t fails"],"evidence_class":"deterministic","causal_disposition":"introduced"}],"evidence":["ran t"]}"#,
    )?;
    let mut facts = probity_core::review::CausalFacts::default();
    facts.hunks.insert(
        ok(
            "path",
            probity_core::review::RepoPath::parse("src/parser.rs"),
        )?,
        vec![probity_core::review::Hunk {
            start: 1,
            count: 30,
        }],
    );
    let in_correction = record(&ok(
        "accept a blocker",
        reviewing.state().accept_results(vec![blocker], &facts),
    )?)?;
    ensure!(
        in_correction.state().stage().name() == "correction_required",
        "the blocker led to `{}`",
        in_correction.state().stage().name()
    );
    ok("replace", store.replace(&step(&reviewing, &in_correction)?))?;
    ensure!(
        ok("lookup_open", store.lookup_open(&base))?
            == vec![reviewing.state().lineage_id().clone()],
        "a lineage in correction is not listed open on its base"
    );
    // An escalation on the same base is listed as escalated.
    let other = created(store)?;
    let unknown = reviewer(
        r#"{"findings":[{"location":"src/parser.rs:1","severity":"BLOCKER","claim":"c","proof_refs":["p"],"evidence_class":"inferential","causal_disposition":"unknown"}],"evidence":["e"]}"#,
    )?;
    let escalated = record(&ok(
        "accept an unknown blocker",
        other
            .state()
            .accept_results(vec![unknown], &Default::default()),
    )?)?;
    ensure!(
        escalated.state().stage().name() == "escalated",
        "the unknown blocker led to `{}`",
        escalated.state().stage().name()
    );
    ok("replace", store.replace(&step(&other, &escalated)?))?;
    ensure!(
        ok("lookup_escalated", store.lookup_escalated(&base))?
            == vec![other.state().lineage_id().clone()],
        "an escalation is not listed on its base"
    );
    ensure!(
        ok("lookup_escalations", store.lookup_escalations())?
            == vec![other.state().lineage_id().clone()],
        "an escalation is not listed among every base's escalations"
    );
    ensure!(
        ok(
            "read_receipt",
            store.read_receipt(other.state().lineage_id())
        )?
        .is_some(),
        "an escalation has no receipt"
    );
    ok("ensure_projections", store.ensure_projections(&escalated))?;
    ensure!(
        ok("lookup_escalated", store.lookup_escalated(&base))?.len() == 1,
        "projecting again listed the escalation twice"
    );
    Ok(())
}

fn corrected_target_claims<S: ReviewStore>(store: &S) -> Outcome {
    use probity_core::review::fixtures::{fix, validation};
    let a0 = ok("budget scenario", fixtures::budget_scenario())?;
    let five = ok("forecast lines", Forecast::new(5))?;
    let a1 = ok("forecast", a0.accept_forecast(five))?;
    let a2 = ok(
        "validation",
        a1.accept_validation(fix(7, 3), validation(true)),
    )?;
    let final_target = target_identity(&a2.snapshot().base_tree, a2.final_candidate_tree());
    let (r0, r1, r2) = (record(&a0)?, record(&a1)?, record(&a2)?);
    ok("create", store.create(&first(&r0)?))?;
    ok("replace forecast", store.replace(&step(&r0, &r1)?))?;
    ensure!(
        ok("lookup_target", store.lookup_target(&final_target))?.is_none(),
        "a fix's target is claimed before the fix passed"
    );
    ok("replace validation", store.replace(&step(&r1, &r2)?))?;
    ensure!(
        ok("lookup_target", store.lookup_target(&final_target))?
            == Some(r2.state().lineage_id().clone()),
        "a passed correction's final target is not claimed by its lineage"
    );
    ensure!(
        ok(
            "lookup_target",
            store.lookup_target(&r0.state().snapshot().target)
        )? == Some(r0.state().lineage_id().clone()),
        "the frozen target lost its lineage"
    );
    // A second lineage whose frozen candidate is that corrected candidate
    // is owned already: its start resumes the correcting lineage.
    let mut obs = fixtures::parser_observation();
    obs.base_tree = a2.snapshot().base_tree.clone();
    obs.candidate_tree = a2.final_candidate_tree().clone();
    let rec = started_on(&obs)?;
    ensure!(
        rec.state().snapshot().target == final_target,
        "the corrected candidate's start has another target"
    );
    ensure!(
        ok("create over a claimed target", store.create(&first(&rec)?))?
            == Created::Existing(r2.state().lineage_id().clone()),
        "a claimed corrected target was taken by a new lineage"
    );
    Ok(())
}

fn delta_indexes<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let l = r0.state().lineage_id().clone();
    let r1 = replaced(store, "replace", &r0, validating(&r0)?)?;
    let key = Sha256Digest::of(Domain::new("probity-testkit/delta"), b"d");
    let entry = Sha256Digest::of(Domain::new("probity-testkit/entry"), b"e");
    let keys = Keys {
        lineages: &[&l],
        targets: &[r0.state().snapshot().target],
        trees: &[&r0.state().snapshot().base_tree],
        digests: &[key, entry],
    };
    let before = observe(store, &keys)?;
    expect_err(
        "index_delta of a validating lineage",
        store.index_delta(&r1, &key, &[entry]),
        |e| matches!(e, StoreError::Malformed { .. }),
    )?;
    let r2 = approved(&r1)?;
    expect_err(
        "index_delta of a record not stored",
        store.index_delta(&r2, &key, &[entry]),
        |e| matches!(e, StoreError::Conflict { .. }),
    )?;
    ensure!(
        observe(store, &keys)? == before,
        "a refused index_delta wrote"
    );
    ok("replace to approved", store.replace(&step(&r1, &r2)?))?;
    ok("index_delta", store.index_delta(&r2, &key, &[entry]))?;
    ensure!(
        ok("lookup_delta", store.lookup_delta(&key))? == Some(l.clone())
            && ok("lookup_delta_entry", store.lookup_delta_entry(&entry))? == Some(l.clone()),
        "an indexed delta is not found"
    );
    let after = observe(store, &keys)?;
    ok("index_delta again", store.index_delta(&r2, &key, &[entry]))?;
    ensure!(
        observe(store, &keys)? == after,
        "indexing a delta again changed the store"
    );
    Ok(())
}

fn successors<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let obs = fixtures::parser_observation();
    // A successor of a revision of the predecessor the store never held.
    let never = record(&ok("invalidate", r0.state().invalidate(non_blank("x")?))?)?;
    let early = successor_on(&never, "early", &obs)?;
    let inv = replaced(store, "invalidate", &r0, invalidated(&r0)?)?;
    let pred = inv.state().lineage_id();
    let s1 = successor_on(&inv, "again", &obs)?;
    let s2 = successor_on(&inv, "a second successor", &obs)?;
    let keys = Keys {
        lineages: &[
            pred,
            s1.record().state().lineage_id(),
            s2.record().state().lineage_id(),
        ],
        targets: &[r0.state().snapshot().target],
        trees: &[&r0.state().snapshot().base_tree],
        digests: &[],
    };
    let before = observe(store, &keys)?;
    expect_err(
        "a successor of another revision",
        store.create_successor(&early),
        |e| matches!(e, StoreError::Conflict { .. }),
    )?;
    // A record that is no successor, or a successor created as a first
    // record (it would stand beside its predecessor with no supersession
    // marker), never reaches a store: core refuses to make its proof
    // (`FirstRecord::check`, `Successor::check`).
    ensure!(
        observe(store, &keys)? == before,
        "a refused successor wrote"
    );

    ensure!(
        ok("create_successor", store.create_successor(&s1))? == Created::New,
        "a first successor is not New"
    );
    ensure!(
        ok(
            "lookup_target",
            store.lookup_target(&s1.record().state().snapshot().target)
        )? == Some(s1.record().state().lineage_id().clone()),
        "the successor did not take over its predecessor's target"
    );
    ensure!(
        ok("successor_of", store.successor_of(pred))?
            == Some(s1.record().state().lineage_id().clone()),
        "the predecessor does not name its successor"
    );
    ensure!(
        ok("pending_successor_of", store.pending_successor_of(pred))?.is_none(),
        "a completed recovery is still pending"
    );
    ensure!(
        ok("load the predecessor", store.load(pred))? == Some(inv.clone()),
        "the predecessor's record was rewritten"
    );
    ensure!(
        ok(
            "load the successor",
            store.load(s1.record().state().lineage_id())
        )? == Some(s1.record().clone()),
        "the successor's record is not the one created"
    );
    ensure!(
        ok("retry", store.create_successor(&s1))?
            == Created::Existing(s1.record().state().lineage_id().clone()),
        "an exact retry is not answered with the stored successor"
    );
    let before = observe(store, &keys)?;
    expect_err("a fork", store.create_successor(&s2), |e| {
        matches!(e, StoreError::AlreadySuperseded { lineage, successor }
            if lineage == pred && successor == s1.record().state().lineage_id())
    })?;
    ensure!(observe(store, &keys)? == before, "a refused fork wrote");
    Ok(())
}

fn successor_target_owned<S: ReviewStore>(store: &S) -> Outcome {
    let r0 = created(store)?;
    let inv = replaced(store, "invalidate", &r0, invalidated(&r0)?)?;
    // Another lineage owns the candidate the successor would freeze.
    let obs = other_observation("3333333333333333333333333333333333333333")?;
    let owner = started_on(&obs)?;
    ok("create the owner", store.create(&first(&owner)?))?;
    let s = successor_on(&inv, "again", &obs)?;
    let keys = Keys {
        lineages: &[
            inv.state().lineage_id(),
            owner.state().lineage_id(),
            s.record().state().lineage_id(),
        ],
        targets: &[
            r0.state().snapshot().target,
            owner.state().snapshot().target,
        ],
        trees: &[&r0.state().snapshot().base_tree],
        digests: &[],
    };
    let before = observe(store, &keys)?;
    expect_err(
        "a successor over an owned target",
        store.create_successor(&s),
        |e| matches!(e, StoreError::TargetOwned { owner: o, .. } if o == owner.state().lineage_id()),
    )?;
    ensure!(
        observe(store, &keys)? == before,
        "a refused successor wrote"
    );
    Ok(())
}

fn interrupted_recovery<S: ReviewStore>(
    store: &S,
    interrupt: &dyn Fn(&S, &StateRecord) -> Result<(), String>,
) -> Outcome {
    let r0 = created(store)?;
    let inv = replaced(store, "invalidate", &r0, invalidated(&r0)?)?;
    let pred = inv.state().lineage_id();
    let obs = fixtures::parser_observation();
    let s1 = successor_on(&inv, "again", &obs)?;
    interrupt(store, s1.record())?;
    ensure!(
        ok("pending_successor_of", store.pending_successor_of(pred))?
            == Some(s1.record().state().lineage_id().clone()),
        "the interrupted recovery is not pending"
    );
    ensure!(
        ok("successor_of", store.successor_of(pred))?.is_none(),
        "an interrupted recovery is marked"
    );
    // Another request would fork: refused, naming the pending successor.
    let other = successor_on(&inv, "another reason", &obs)?;
    expect_err(
        "another request",
        store.create_successor(&other),
        |e| matches!(e, StoreError::RecoveryPending { successor, .. } if successor == s1.record().state().lineage_id()),
    )?;
    // The same request completes it.
    ok("the same request", store.create_successor(&s1))?;
    ensure!(
        ok("successor_of", store.successor_of(pred))?
            == Some(s1.record().state().lineage_id().clone()),
        "the completed recovery is not marked"
    );
    ensure!(
        ok("pending_successor_of", store.pending_successor_of(pred))?.is_none(),
        "the completed recovery is still pending"
    );
    ensure!(
        ok(
            "lookup_target",
            store.lookup_target(&s1.record().state().snapshot().target)
        )? == Some(s1.record().state().lineage_id().clone()),
        "the completed successor is not indexed by its target"
    );
    Ok(())
}

fn submitted_results<S: ReviewStore>(store: &S) -> Outcome {
    let r = started()?;
    let l = r.state().lineage_id();
    expect_err(
        "a result for a lineage never created",
        store.submit_result(l, Lens::Reliability, b"{}"),
        |e| matches!(e, StoreError::NotFound(_)),
    )?;
    ok("create", store.create(&first(&r)?))?;
    ensure!(
        ok("submitted_results", store.submitted_results(l))?.is_empty(),
        "a new lineage holds results"
    );
    ensure!(
        ok("submit", store.submit_result(l, Lens::Reliability, b"one"))? == Submitted::New,
        "a first submission is not New"
    );
    ensure!(
        ok(
            "resubmit",
            store.submit_result(l, Lens::Reliability, b"one")
        )? == Submitted::Existing,
        "an exact resubmission is not Existing"
    );
    expect_err(
        "different bytes",
        store.submit_result(l, Lens::Reliability, b"two"),
        |e| {
            matches!(
                e,
                StoreError::ResultDiffers {
                    lens: "reliability",
                    ..
                }
            )
        },
    )?;
    ok("submit risk", store.submit_result(l, Lens::Risk, b"r"))?;
    ensure!(
        ok("submitted_results", store.submitted_results(l))?
            == vec![
                (Lens::Risk, b"r".to_vec()),
                (Lens::Reliability, b"one".to_vec())
            ],
        "results are not answered in canonical lens order with their bytes"
    );
    ensure!(
        ok("load", store.load(l))? == Some(r.clone()),
        "a submission changed the state record"
    );
    Ok(())
}

fn under_lock<S: ReviewStore>(store: &S) -> Outcome {
    let r = started()?;
    let l = r.state().lineage_id().clone();
    let mut calls = 0;
    ok(
        "under_lock of a lineage never written",
        store.under_lock(&l, &mut || calls += 1),
    )?;
    ok("create", store.create(&first(&r)?))?;
    let mut seen = None;
    ok(
        "under_lock",
        store.under_lock(&l, &mut || {
            calls += 1;
            seen = Some(store.load(&l).map_err(|e| e.to_string()));
        }),
    )?;
    ensure!(
        calls == 2,
        "under_lock ran its closure {calls} times for 2 calls"
    );
    ensure!(
        seen == Some(Ok(Some(r.clone()))),
        "a read under the lock did not see the stored record"
    );
    Ok(())
}
