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
use probity_core::snapshot_tools::{Event, ModelRequest, ModelResponse};
use probity_ports::review::{self as drivers, AdapterError};
use probity_ports::snapshot::ModelError;
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
fn holding(flight: &InFlight, request: &ModelRequest) -> Result<ModelResponse, ModelError> {
    if let Some(read) = read_first(request, "read-1", "src/auth.rs") {
        return Ok(read);
    }
    let now = flight.now.fetch_add(1, Ordering::SeqCst) + 1;
    flight.most.fetch_max(now, Ordering::SeqCst);
    let until = Instant::now() + Duration::from_millis(300);
    while flight.now.load(Ordering::SeqCst) < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    flight
        .most
        .fetch_max(flight.now.load(Ordering::SeqCst), Ordering::SeqCst);
    // Every run holds until all that may overlap have arrived.
    std::thread::sleep(Duration::from_millis(20));
    flight.now.fetch_sub(1, Ordering::SeqCst);
    flight.answered.fetch_add(1, Ordering::SeqCst);
    Ok(answer(documents::CLEAN.to_string()))
}

/// The most lens runs in flight at once when `review_lineage` runs with
/// `jobs`, and how many lenses the lineage selected.
fn most_in_flight(jobs: usize) -> (usize, usize) {
    let w = changed_at("src/auth.rs");
    let record = w.start();
    let lineage = record.state().lineage_id().clone();
    let selected = record.state().frozen().selected_lenses.len();
    let flight = InFlight::default();
    let subject = |_: &TreeId| Ok::<_, AdapterError>(Files::one("src/auth.rs", CHANGE));
    let reply = |request: &ModelRequest| holding(&flight, request);
    let model = |_: &TreeId| Ok::<_, ModelError>(Answering(&reply));
    let stopwatch = || TickingStopwatch::at(0);
    let log = |_: &str, _: &Event| {};
    let prompts = PromptSet::builtin();
    let world = role_world(&prompts, &subject, &model, &stopwatch, jobs, &log);
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
