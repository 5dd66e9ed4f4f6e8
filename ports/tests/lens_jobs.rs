//! "ports ... its only own resources are scoped threads: lens runs, at most
//! `jobs` at once" (docs/ARCHITECTURE.md): `review_lineage` over a
//! high-risk change (several lenses) with a model that holds each lens's
//! answer until another lens run is in flight too (or a while has passed),
//! so that every run the driver lets overlap does overlap. The most runs
//! in flight at once is then exactly `jobs`, never more.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::*;
use probity_core::review::{PromptSet, TreeId};
use probity_core::snapshot_tools::ToolSpec;
use probity_core::snapshot_tools::{
    BudgetLimits, Event, Message, ModelRequest, ModelResponse, StopReason, ToolCall,
};
use probity_ports::review::{self as drivers, AdapterError, RoleWorld};
use probity_ports::snapshot::{ChatModel, ModelError};
use probity_testkit::{TickingStopwatch, documents};

/// The lens runs answering now, and the most there ever were.
#[derive(Default)]
struct InFlight {
    now: AtomicUsize,
    most: AtomicUsize,
    answered: AtomicUsize,
}

/// Reads the file once, then answers a clean lens document, holding the
/// answer until a second run is in flight or 300 ms have passed.
struct Holding<'a>(&'a InFlight);

impl ChatModel for Holding<'_> {
    fn complete(
        &mut self,
        request: &ModelRequest,
        _tools: &[ToolSpec],
        _timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError> {
        let read = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        if request.offer_tools && !read {
            return Ok(ModelResponse {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "read-1".into(),
                    name: "read".into(),
                    arguments: r#"{"path":"src/auth.rs"}"#.into(),
                }],
                stop: StopReason::ToolUse,
                usage: None,
            });
        }
        let now = self.0.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.most.fetch_max(now, Ordering::SeqCst);
        let until = Instant::now() + Duration::from_millis(300);
        while self.0.now.load(Ordering::SeqCst) < 2 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.0
            .most
            .fetch_max(self.0.now.load(Ordering::SeqCst), Ordering::SeqCst);
        // Every run holds until all that may overlap have arrived.
        std::thread::sleep(Duration::from_millis(20));
        self.0.now.fetch_sub(1, Ordering::SeqCst);
        self.0.answered.fetch_add(1, Ordering::SeqCst);
        Ok(ModelResponse {
            text: Some(documents::CLEAN.to_string()),
            tool_calls: Vec::new(),
            stop: StopReason::EndTurn,
            usage: None,
        })
    }
}

/// The most lens runs in flight at once when `review_lineage` runs with
/// `jobs`, and how many lenses the lineage selected.
fn most_in_flight(jobs: usize) -> (usize, usize) {
    let git = probity_testkit::FakeGit::with_base(&[("src/auth.rs", BASE)]).unwrap();
    git.write("src/auth.rs", CHANGE).unwrap();
    let w = World {
        git,
        store: probity_testkit::InMemoryStore::new(),
        clock: probity_testkit::FixedClock::fixture(),
    };
    let record = w.start();
    let lineage = record.state().lineage_id().clone();
    let selected = record.state().frozen().selected_lenses.len();
    let flight = InFlight::default();
    let subject = |_: &TreeId| Ok::<_, AdapterError>(Files::one("src/auth.rs", CHANGE));
    let model = |_: &TreeId| Ok::<_, ModelError>(Holding(&flight));
    let stopwatch = || TickingStopwatch::at(0);
    let log = |_: &str, _: &Event| {};
    let prompts = PromptSet::builtin();
    let world = RoleWorld {
        prompts: &prompts,
        subject: &subject,
        model: &model,
        stopwatch: &stopwatch,
        budget: BudgetLimits::default(),
        timeout_ms: 60_000,
        max_diff_bytes: 1 << 20,
        jobs,
        log: &log,
    };
    let review = drivers::review_lineage(&w.git, &w.store, &world, &lineage).unwrap();
    assert_eq!(review.lenses.len(), selected, "every lens ran");
    assert!(
        review.lenses.iter().all(|r| r.outcome.is_ok()),
        "every lens answered"
    );
    assert_eq!(flight.answered.load(Ordering::SeqCst), selected);
    (flight.most.load(Ordering::SeqCst), selected)
}

#[test]
fn lens_runs_overlap_up_to_jobs_and_never_more() {
    for jobs in [1, 2] {
        let (most, selected) = most_in_flight(jobs);
        assert!(
            selected > jobs,
            "{selected} lenses cannot show a bound of {jobs}"
        );
        assert_eq!(
            most, jobs,
            "with jobs = {jobs}, {most} lens runs were in flight at once"
        );
    }
}
