//! The model-run drivers on in-memory adapters with a scripted model:
//! `review_lineage` (the selected lens run, its result submitted and only
//! then its transcript kept, the refuter batch, finalize) and
//! `validate_correction` (the targeted validator over the corrected
//! candidate); every refusal leaves the store as it was.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use probity_core::digest::Sha256Digest;
use probity_core::review::Lens;
use probity_core::review::{FRAME_FILE, FRAME_HEADER, PromptRole, PromptSet};
use probity_core::review::{LineageId, TreeId};
use probity_core::review::{Stage, TransitionError};
use probity_core::snapshot_tools::TRANSCRIPT_DOMAIN;
use probity_core::snapshot_tools::{Event, Message, ModelRequest, ModelResponse};
use probity_ports::review::{
    self as drivers, AdapterError, ResultStore, ReviewError, RoleRunError, RoleWorld, RunDone,
    StoreError,
};
use probity_ports::snapshot::{LoopRunError, ModelError};
use probity_testkit::{TickingStopwatch, documents};
use serde_json::{Value, json};

/// An inferential BLOCKER introduced at `src/a.rs:2`: it waits for the
/// refuter.
const INFERENTIAL: &str = r#"{"findings":[{"location":"src/a.rs:2","severity":"BLOCKER","claim":"may overflow","proof_refs":["reading"],"evidence_class":"inferential","causal_disposition":"introduced"}],"evidence":["read the diff"]}"#;

/// What the scripted model answers, by role.
struct Script {
    /// A lens's document (or a model failure).
    lens: Result<String, ModelError>,
    /// The refuter's verdict on every finding it is shown.
    refuter: &'static str,
    /// The finding IDs the refuter answers for instead of those shown.
    refuter_ids: Option<Vec<&'static str>>,
    /// The validator's document.
    validator: String,
    /// The lens (by name) whose model call fails.
    failing_lens: Option<&'static str>,
    /// Opening the model fails.
    unavailable: bool,
    /// Opening the subject fails.
    no_subject: bool,
    /// Model calls made, every role.
    calls: AtomicUsize,
    /// The trees the roles' subjects were opened on.
    opened: Mutex<Vec<TreeId>>,
    /// Every tool event logged, with its role.
    events: Mutex<Vec<String>>,
}

impl Script {
    fn lens(answer: &str) -> Script {
        Script {
            lens: Ok(answer.to_string()),
            refuter: "corroborated",
            refuter_ids: None,
            validator: documents::VALIDATOR_PASS.to_string(),
            failing_lens: None,
            unavailable: false,
            no_subject: false,
            calls: AtomicUsize::new(0),
            opened: Mutex::new(Vec::new()),
            events: Mutex::new(Vec::new()),
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn opened(&self) -> Vec<TreeId> {
        self.opened.lock().unwrap().clone()
    }
}

/// The request's first system message and first user message (empty
/// when there is none).
fn system_and_user(request: &ModelRequest) -> (&str, &str) {
    let first = |system: bool| {
        request
            .messages
            .iter()
            .find_map(|m| match m {
                Message::System { content } if system => Some(content.as_str()),
                Message::User { content } if !system => Some(content.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    };
    (first(true), first(false))
}

/// The finding IDs the refuter is shown (`- R3-001 (BLOCKER) at ...`).
fn listed_findings(user: &str) -> Vec<&str> {
    user.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(' ').map(|(id, _)| id))
        .filter(|id| id.len() == 6 && id.as_bytes().get(2) == Some(&b'-'))
        .collect()
}

impl Script {
    /// The scripted model: reads `src/a.rs` once through the tools, then
    /// answers its role's document.
    fn answer(&self, request: &ModelRequest) -> Result<ModelResponse, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Some(read) = read_first(request, "read-1", "src/a.rs") {
            return Ok(read);
        }
        let (system, user) = system_and_user(request);
        let text = if system.contains("role=refuter") {
            let ids = match &self.refuter_ids {
                Some(ids) => ids.clone(),
                None => listed_findings(user),
            };
            json!({"outcomes": ids
                .into_iter()
                .map(|id| json!({"finding_id": id, "outcome": self.refuter, "evidence": ["read src/a.rs"]}))
                .collect::<Vec<_>>()})
            .to_string()
        } else if system.contains("role=validator") {
            self.validator.clone()
        } else {
            if let Some(lens) = self.failing_lens
                && system.contains(&format!("lens={lens} "))
            {
                return Err(ModelError::Status {
                    status: 503,
                    body: "overloaded".into(),
                });
            }
            self.lens.clone()?
        };
        Ok(answer(text))
    }
}

/// Runs `f` in a role world over `script`: the subject reads `files`, the
/// stopwatch reads `elapsed` ms (the timeout is 60 s).
fn in_world<T>(
    script: &Script,
    prompts: &PromptSet,
    files: &[(&str, &str)],
    elapsed: u64,
    jobs: usize,
    f: impl FnOnce(&RoleWorld<'_, Files, Answering<'_>, TickingStopwatch>) -> T,
) -> T {
    let files: BTreeMap<Vec<u8>, Vec<u8>> = files
        .iter()
        .map(|(p, t)| (p.as_bytes().to_vec(), t.as_bytes().to_vec()))
        .collect();
    let subject = |tree: &TreeId| -> Result<Files, AdapterError> {
        script.opened.lock().unwrap().push(tree.clone());
        if script.no_subject {
            return Err("no such tree".into());
        }
        Ok(Files(files.clone()))
    };
    let answer = |request: &ModelRequest| script.answer(request);
    let model = |_: &TreeId| {
        if script.unavailable {
            return Err(ModelError::NotConfigured("no endpoint".into()));
        }
        Ok(Answering(&answer))
    };
    let stopwatch = || TickingStopwatch::at(elapsed);
    let log = |role: &str, e: &Event| {
        let name = serde_json::to_value(e).unwrap()["event"]
            .as_str()
            .unwrap_or("?")
            .to_string();
        script
            .events
            .lock()
            .unwrap()
            .push(format!("{role}: {name}"));
    };
    f(&role_world(
        prompts, &subject, &model, &stopwatch, jobs, &log,
    ))
}

fn review(
    w: &World,
    script: &Script,
    l: &LineageId,
) -> Result<drivers::LineageReview, ReviewError> {
    in_world(
        script,
        &PromptSet::builtin(),
        &[("src/a.rs", CHANGE)],
        0,
        1,
        |world| drivers::review_lineage(&w.git, &w.store, world, l),
    )
}

fn done(outcome: &Result<RunDone, RoleRunError>) -> &RunDone {
    match outcome {
        Ok(d) => d,
        Err(e) => panic!("the role produced nothing: {e}"),
    }
}

/// The transcript a run kept: its bytes digest to the digest the document
/// binds.
fn assert_kept(w: &World, run: &RunDone, role: &str, l: &LineageId) {
    assert_eq!(
        run.transcript,
        format!(
            "{l}/transcripts/{role}-{}.json",
            run.transcript_digest.hex()
        )
    );
    let bytes = w.store.dump().remove(&run.transcript).expect("kept");
    assert_eq!(
        Sha256Digest::of(TRANSCRIPT_DOMAIN, &bytes),
        run.transcript_digest
    );
    let doc: Value = serde_json::from_slice(&run.document).unwrap();
    assert!(
        doc.to_string().contains(&run.transcript_digest.hex()),
        "the document binds its transcript: {doc}"
    );
}

fn transcripts(w: &World) -> Vec<String> {
    w.store
        .dump()
        .into_keys()
        .filter(|k| k.contains("/transcripts/"))
        .collect()
}

#[test]
fn a_lens_run_is_submitted_its_transcript_kept_and_the_judgment_finalized() {
    let w = world();
    let record = w.start();
    let l = record.state().lineage_id().clone();
    let script = Script::lens(documents::CLEAN);
    let reviewed = review(&w, &script, &l).unwrap();
    assert_eq!(reviewed.lenses.len(), 1);
    let run = &reviewed.lenses[0];
    assert_eq!(run.role, PromptRole::Lens(Lens::Reliability));
    let d = done(&run.outcome);
    assert_eq!(
        d.prompt_digest,
        PromptSet::builtin().digest(PromptRole::Lens(Lens::Reliability))
    );
    // One tool round (the read of the frozen file), then the answer.
    assert_eq!((d.model_calls, d.calls_used), (2, 1));
    assert!(!d.repaired);
    assert_kept(&w, d, "reliability", &l);
    // The frozen tree was read, and the read was logged as the lens's.
    assert_eq!(
        script.opened(),
        vec![record.state().snapshot().candidate_tree.clone()]
    );
    assert!(
        script
            .events
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.starts_with("reliability: ")),
        "{:?}",
        script.events
    );
    // The submitted result is the bound document, and finalize took it.
    assert_eq!(
        w.store.submitted_results(&l).unwrap(),
        vec![(Lens::Reliability, d.document.clone())]
    );
    assert!(reviewed.refuter.is_none());
    assert_eq!(reviewed.record.state().stage().name(), "validating");
    assert_eq!(reviewed.receipt_location, None);
    assert_eq!(reviewed.record, w.load(&l));
    // Nothing left to run: a rerun asks no model and writes nothing.
    let held = w.store.dump();
    let calls = script.calls();
    let again = review(&w, &script, &l).unwrap();
    assert!(again.lenses.is_empty() && again.refuter.is_none());
    assert_eq!(again.record, reviewed.record);
    assert_eq!(script.calls(), calls);
    assert_eq!(w.store.dump(), held);
    // The caller's evidence completes the approval.
    approve_on_evidence(&w.git, &w.store, l.clone());
}

#[test]
fn an_inferential_finding_goes_to_the_refuter_whose_batch_is_finalized() {
    let (w, l) = started();
    let script = Script::lens(INFERENTIAL);
    let reviewed = review(&w, &script, &l).unwrap();
    done(&reviewed.lenses[0].outcome);
    let refuter = reviewed.refuter.expect("the refuter ran");
    assert_eq!(refuter.role, PromptRole::Refuter);
    let d = done(&refuter.outcome);
    assert_kept(&w, d, "refuter", &l);
    // Corroborated: the finding goes to correction.
    assert_eq!(
        reviewed.record.state().stage().name(),
        "correction_required"
    );
    assert_eq!(reviewed.record, w.load(&l));
    assert_eq!(transcripts(&w).len(), 2, "{:?}", transcripts(&w));
    // Refuted instead: the finding is kept, the review goes on to evidence.
    let (w, l) = started();
    let mut script = Script::lens(INFERENTIAL);
    script.refuter = "refuted";
    let reviewed = review(&w, &script, &l).unwrap();
    done(&reviewed.refuter.as_ref().unwrap().outcome);
    assert_eq!(reviewed.record.state().stage().name(), "validating");
}

#[test]
fn a_refuter_batch_that_is_refused_is_not_kept() {
    for (verdict, ids) in [("overruled", None), ("corroborated", Some(vec!["R3-999"]))] {
        let (w, l) = started();
        let mut script = Script::lens(INFERENTIAL);
        script.refuter = verdict;
        script.refuter_ids = ids.clone();
        let reviewed = review(&w, &script, &l).unwrap();
        // The lens's result stands; the refuter's answer was refused.
        done(&reviewed.lenses[0].outcome);
        let refuter = reviewed.refuter.expect("the refuter ran");
        assert!(
            matches!(
                refuter.outcome,
                Err(RoleRunError::Loop(LoopRunError::Loop(_)))
            ),
            "{verdict} {ids:?}: {:?}",
            refuter.outcome
        );
        assert!(
            matches!(
                reviewed.record.state().stage(),
                Stage::AwaitingRefuter { .. }
            ),
            "{}",
            reviewed.record.state().stage().name()
        );
        assert_eq!(reviewed.record, w.load(&l));
        assert_eq!(
            transcripts(&w).len(),
            1,
            "only the accepted lens's transcript is kept: {:?}",
            transcripts(&w)
        );
    }
}

#[test]
fn a_moved_candidate_is_refused_before_any_model_is_asked() {
    let (w, l) = started();
    w.git.write("src/a.rs", FIX).unwrap();
    let held = w.store.dump();
    let script = Script::lens(documents::CLEAN);
    let err = review(&w, &script, &l).unwrap_err();
    match &err {
        ReviewError::CandidateChanged {
            lineage,
            differing_paths,
        } => {
            assert_eq!(lineage, &l);
            assert_eq!(differing_paths.len(), 1);
            assert_eq!(differing_paths[0].as_str(), "src/a.rs");
        }
        e => panic!("expected candidate_changed, got {e}"),
    }
    assert_eq!(script.calls(), 0, "a model was asked");
    assert!(script.opened().is_empty());
    assert_eq!(w.store.dump(), held);
    // An unknown lineage: the store's NotFound, nothing asked either.
    let unknown = LineageId::parse("review-0000000000000000").unwrap();
    let err = review(&w, &script, &unknown).unwrap_err();
    assert_err!(err, ReviewError::Store(StoreError::NotFound(x)) if *x == unknown);
    assert_eq!(script.calls(), 0);
    assert_eq!(w.store.dump(), held);
}

#[test]
fn a_lens_that_produces_no_document_submits_nothing() {
    let cases: Vec<(Script, &str)> = vec![
        (
            {
                let mut s = Script::lens("");
                s.lens = Err(ModelError::Transport("connection refused".into()));
                s
            },
            "model",
        ),
        (Script::lens("not a document"), "loop"),
        (
            {
                let mut s = Script::lens(documents::CLEAN);
                s.unavailable = true;
                s
            },
            "the model",
        ),
        (
            {
                let mut s = Script::lens(documents::CLEAN);
                s.no_subject = true;
                s
            },
            "the frozen tree",
        ),
    ];
    for (script, case) in cases {
        let (w, l) = started();
        let held = w.store.dump();
        let reviewed = review(&w, &script, &l).unwrap();
        let err = reviewed.lenses[0].outcome.as_ref().unwrap_err();
        match (case, err) {
            ("model", RoleRunError::Loop(LoopRunError::Model(ModelError::Transport(_)))) => {}
            ("loop", RoleRunError::Loop(LoopRunError::Loop(_))) => {}
            (what, RoleRunError::Open { what: opened, .. }) if *opened == what => {}
            (case, e) => panic!("{case}: unexpected {e:?}"),
        }
        assert_eq!(
            reviewed.record.state().stage().name(),
            "reviewing",
            "{case}"
        );
        assert!(reviewed.refuter.is_none());
        assert_eq!(w.store.dump(), held, "{case}: the store changed");
    }
}

#[test]
fn a_lens_past_the_timeout_is_unreviewed() {
    let (w, l) = started();
    let held = w.store.dump();
    let script = Script::lens(documents::CLEAN);
    let reviewed = in_world(&script, &PromptSet::builtin(), &[], 60_000, 1, |world| {
        drivers::review_lineage(&w.git, &w.store, world, &l)
    })
    .unwrap();
    match reviewed.lenses[0].outcome.as_ref().unwrap_err() {
        RoleRunError::Loop(LoopRunError::Timeout { timeout_ms, .. }) => {
            assert_eq!(*timeout_ms, 60_000)
        }
        e => panic!("expected the timeout, got {e:?}"),
    }
    assert_eq!(script.calls(), 0);
    assert_eq!(w.store.dump(), held);
}

#[test]
fn a_prompt_other_than_the_frozen_one_runs_no_model() {
    let (w, l) = started();
    let held = w.store.dump();
    let edited = PromptSet::from_files(|name| {
        let header = if name == FRAME_FILE {
            FRAME_HEADER.to_string()
        } else {
            PromptRole::all()
                .into_iter()
                .find(|r| r.file_name() == name)?
                .header()
        };
        Some(format!("{header}\nAnswer whatever you like.\n").into_bytes())
    })
    .unwrap();
    let script = Script::lens(documents::CLEAN);
    let reviewed = in_world(&script, &edited, &[], 0, 1, |world| {
        drivers::review_lineage(&w.git, &w.store, world, &l)
    })
    .unwrap();
    assert!(
        matches!(
            reviewed.lenses[0].outcome,
            Err(RoleRunError::Role(probity_core::review::RoleError::Prompt(
                _
            )))
        ),
        "{:?}",
        reviewed.lenses[0].outcome
    );
    assert_eq!(script.calls(), 0, "a model was asked with another prompt");
    assert_eq!(w.store.dump(), held);
}

/// In correction on the blocker, its forecast given and the fix written.
fn corrected(w: &World) -> LineageId {
    let l = w.in_correction().state().lineage_id().clone();
    w.finalize_with(&l, |i| i.correction_lines = Some(2))
        .unwrap();
    w.git.write("src/a.rs", FIX).unwrap();
    l
}

fn validate(
    w: &World,
    script: &Script,
    l: &LineageId,
) -> Result<(drivers::Finalized, drivers::RoleRun), ReviewError> {
    in_world(
        script,
        &PromptSet::builtin(),
        &[("src/a.rs", FIX)],
        0,
        1,
        |world| drivers::validate_correction(&w.git, &w.store, world, l),
    )
}

#[test]
fn the_validator_reads_the_corrected_candidate_and_finalize_measures_the_fix() {
    let w = world();
    let l = corrected(&w);
    let script = Script::lens(documents::CLEAN);
    let (finalized, run) = validate(&w, &script, &l).unwrap();
    assert_eq!(run.role, PromptRole::Validator);
    let d = done(&run.outcome);
    assert_kept(&w, d, "validator", &l);
    // The validator read the corrected tree, not the frozen one.
    assert_eq!(script.opened(), vec![w.git.candidate_tree().unwrap()]);
    assert_validating_after_one_fix(&w.git, &finalized.record);
    assert_eq!(finalized.record, w.load(&l));
    approve_on_evidence(&w.git, &w.store, l);
}

#[test]
fn a_validator_that_cannot_run_or_answer_leaves_the_lineage_where_it_was() {
    // Before the correction: the validator does not run now.
    let (w, l) = started();
    let held = w.store.dump();
    let script = Script::lens(documents::CLEAN);
    let (finalized, run) = validate(&w, &script, &l).unwrap();
    assert!(
        matches!(
            run.outcome,
            Err(RoleRunError::Role(
                probity_core::review::RoleError::NotNow { .. }
            ))
        ),
        "{:?}",
        run.outcome
    );
    assert_eq!(finalized.record, w.load(&l));
    assert_eq!(finalized.receipt_location, None);
    assert_eq!(script.calls(), 0);
    assert_eq!(w.store.dump(), held);
    // The fix written, the model unreachable: nothing taken.
    let w = world();
    let l = corrected(&w);
    let before = w.load(&l);
    let held = w.store.dump();
    let mut script = Script::lens(documents::CLEAN);
    script.unavailable = true;
    let (finalized, run) = validate(&w, &script, &l).unwrap();
    assert!(
        matches!(
            run.outcome,
            Err(RoleRunError::Open {
                what: "the model",
                ..
            })
        ),
        "{:?}",
        run.outcome
    );
    assert_eq!(finalized.record, before);
    assert!(matches!(before.state().stage(), Stage::Correcting { .. }));
    assert_eq!(w.store.dump(), held);
    // A document that is not the validator's: refused in the loop.
    let mut script = Script::lens(documents::CLEAN);
    script.validator = r#"{"original_criteria":{"passed":true,"evidence":[]}}"#.into();
    let (finalized, run) = validate(&w, &script, &l).unwrap();
    assert!(
        matches!(run.outcome, Err(RoleRunError::Loop(LoopRunError::Loop(_)))),
        "{:?}",
        run.outcome
    );
    assert_eq!(finalized.record, before);
    assert_eq!(w.store.dump(), held);
    // A fix beyond the reviewed paths: the validator answered, finalize
    // refuses the correction, and its transcript is not kept.
    w.git.write("src/other.rs", "fn o() {}\n").unwrap();
    let script = Script::lens(documents::CLEAN);
    let err = validate(&w, &script, &l).unwrap_err();
    assert_err!(err, ReviewError::Transition(TransitionError::OutsideGenesis(p)) if p == "src/other.rs");
    assert!(script.calls() > 0, "the validator was asked");
    assert_eq!(w.store.dump(), held);
    assert_eq!(w.load(&l), before);
}

#[test]
fn lenses_run_in_parallel_a_failing_one_blocks_no_other_and_a_rerun_runs_only_it() {
    // A high-risk path: several lenses are selected.
    let w = changed_at("src/auth.rs");
    let record = w.start();
    let l = record.state().lineage_id().clone();
    let selected = record.state().frozen().selected_lenses.clone();
    assert!(selected.len() > 2, "{selected:?}");
    let failing = selected[1];
    let mut script = Script::lens(documents::CLEAN);
    script.failing_lens = Some(failing.name());
    let run = |script: &Script| {
        in_world(
            script,
            &PromptSet::builtin(),
            &[("src/auth.rs", CHANGE)],
            0,
            2,
            |world| drivers::review_lineage(&w.git, &w.store, world, &l),
        )
        .unwrap()
    };
    let reviewed = run(&script);
    // One run per selected lens, reported in selected order.
    let roles: Vec<PromptRole> = reviewed.lenses.iter().map(|r| r.role).collect();
    assert_eq!(
        roles,
        selected
            .iter()
            .map(|l| PromptRole::Lens(*l))
            .collect::<Vec<_>>()
    );
    for r in &reviewed.lenses {
        match (&r.role, &r.outcome) {
            (
                PromptRole::Lens(lens),
                Err(RoleRunError::Loop(LoopRunError::Model(ModelError::Status {
                    status: 503,
                    ..
                }))),
            ) if *lens == failing => {}
            (_, Ok(d)) => assert_kept(&w, d, r.role.name(), &l),
            (role, outcome) => panic!("{role:?}: {outcome:?}"),
        }
    }
    let kept: Vec<Lens> = w
        .store
        .submitted_results(&l)
        .unwrap()
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    let others: Vec<Lens> = selected.iter().copied().filter(|x| *x != failing).collect();
    assert_eq!(kept, others, "every other lens's result was submitted");
    assert_eq!(
        reviewed.record.state().stage().name(),
        "reviewing",
        "not finalized with a lens missing"
    );
    assert_eq!(transcripts(&w).len(), others.len());
    // Healed: the rerun asks only the missing lens, then finalizes them all.
    let healed = Script::lens(documents::CLEAN);
    let again = run(&healed);
    assert_eq!(again.lenses.len(), 1);
    assert_eq!(again.lenses[0].role, PromptRole::Lens(failing));
    assert_eq!(healed.calls(), 2, "one tool round and one answer, one lens");
    assert_eq!(again.record.state().stage().name(), "validating");
    assert_eq!(transcripts(&w).len(), selected.len());
}

/// Runs `run` (a role run on a store that crashes its first `replace`)
/// over `files` with a clean script, which must fail with the injected
/// crash; returns the world with its store as the crash left it, after
/// checking that `l` is at the stage it was.
fn crashed_mid_run(
    w: World,
    l: &LineageId,
    files: &[(&str, &str)],
    run: impl FnOnce(
        &World,
        &probity_testkit::Faulty<probity_testkit::InMemoryStore>,
        &RoleWorld<'_, Files, Answering<'_>, TickingStopwatch>,
    ) -> Result<(), ReviewError>,
) -> World {
    use probity_testkit::{Crash, Faulty, is_injected};
    let stage = w.load(l).state().stage().name();
    let crashing = Faulty::new(w.store, 0, Crash::BeforeReplace);
    let script = Script::lens(documents::CLEAN);
    let w = World {
        store: probity_testkit::InMemoryStore::new(),
        ..w
    };
    let err = in_world(&script, &PromptSet::builtin(), files, 0, 1, |world| {
        run(&w, &crashing, world)
    })
    .unwrap_err();
    assert_err!(err, ReviewError::Store(e) if is_injected(e));
    let w = World {
        store: crashing.into_inner(),
        ..w
    };
    assert_eq!(w.load(l).state().stage().name(), stage);
    w
}

/// A crash at the `replace` that would take the judgment leaves the
/// lineage where its last committed state was (the lens's result kept,
/// the stage unchanged), and the same run again finishes on what was kept.
#[test]
fn a_crash_mid_review_leaves_the_last_committed_state_and_a_rerun_finishes() {
    let w = world();
    let l = w.start().state().lineage_id().clone();
    let stage = w.load(&l).state().stage().name();
    let w = crashed_mid_run(w, &l, &[("src/a.rs", CHANGE)], |w, store, world| {
        drivers::review_lineage(&w.git, store, world, &l).map(drop)
    });
    assert_eq!(w.store.submitted_results(&l).unwrap().len(), 1);
    let script = Script::lens(documents::CLEAN);
    let reviewed = review(&w, &script, &l).unwrap();
    assert_eq!(script.calls(), 0, "the kept result was asked for again");
    assert_ne!(reviewed.record.state().stage().name(), stage);
}

/// The same for the validator: a crash at the `replace` that would take
/// its document leaves the lineage in correction (`correction_required`),
/// and the run again finishes.
#[test]
fn a_crash_mid_validation_leaves_the_lineage_in_correction_and_a_rerun_finishes() {
    let w = world();
    let l = corrected(&w);
    let held = w.store.dump();
    assert_eq!(w.load(&l).state().stage().name(), "correction_required");
    let w = crashed_mid_run(w, &l, &[("src/a.rs", FIX)], |w, store, world| {
        drivers::validate_correction(&w.git, store, world, &l).map(drop)
    });
    let (finalized, _) = validate(&w, &Script::lens(documents::CLEAN), &l).unwrap();
    assert_eq!(finalized.record.state().stage().name(), "validating");
    assert_ne!(w.store.dump(), held);
}
