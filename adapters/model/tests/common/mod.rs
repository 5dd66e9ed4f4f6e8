//! What the model adapter's tests share besides the testkit's scripted
//! HTTP server (`probity_testkit::http`) and stopwatch
//! (`probity_testkit::TickingStopwatch`): a sleeper that records its waits,
//! a one-file snapshot, and review loops.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use probity_core::snapshot_tools::{
    BudgetLimits, EntryKind, GrepQuery, ListEntry, RawGrep, RawRead, ReviewLoop, Session,
    SnapshotPath, SubjectError,
};
use probity_core::snapshot_tools::{REVIEWER_FRAME, Review};
use probity_ports::snapshot::{ChatModel, LoopRunError, SnapshotReader, run_review};
use probity_testkit::TickingStopwatch;

/// A sleeper that records the waits asked for and never waits.
#[derive(Clone, Default)]
pub struct Waits(pub Arc<Mutex<Vec<Duration>>>);

impl Waits {
    pub fn sleeper(&self) -> impl FnMut(Duration) + Send + 'static {
        let waits = self.0.clone();
        move |d| waits.lock().unwrap().push(d)
    }

    pub fn taken(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

/// A snapshot of one file, `src/a.rs`.
pub struct Mem;
impl SnapshotReader for Mem {
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
        match path.as_bytes() {
            b"src/a.rs" => Ok(RawRead::File(b"pub fn a() -> u8 { 1 }\n".to_vec())),
            _ => Err(SubjectError::NotInSnapshot {
                path: path.display().into_owned(),
                why: "no such tracked file".into(),
            }),
        }
    }
    fn grep(&self, _q: &GrepQuery, _max: usize) -> Result<RawGrep, SubjectError> {
        Ok(RawGrep::default())
    }
    fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
        Ok(vec![ListEntry {
            path: b"src/a.rs".to_vec(),
            kind: EntryKind::File,
        }])
    }
}

/// A verdict review loop with the default budget.
pub fn new_loop() -> ReviewLoop {
    loop_with(BudgetLimits::default())
}

/// A verdict review loop with `limits`.
pub fn loop_with(limits: BudgetLimits) -> ReviewLoop {
    ReviewLoop::new(
        Session::new(limits),
        REVIEWER_FRAME.into(),
        "Review this diff.".into(),
        vec![],
    )
}

/// Runs the loop `lp` with `model` over the one-file snapshot ([`Mem`]) on
/// a stopwatch from 0, a 20 s timeout, no event kept.
pub fn review_quietly<M: ChatModel + ?Sized>(
    lp: &mut ReviewLoop,
    model: &mut M,
) -> Result<Review, LoopRunError> {
    review_within(lp, model, 20_000)
}

/// Runs the loop `lp` with `model` over the one-file snapshot ([`Mem`]) on
/// a stopwatch from 0, a `timeout_ms` timeout, no event kept.
pub fn review_within<M: ChatModel + ?Sized>(
    lp: &mut ReviewLoop,
    model: &mut M,
    timeout_ms: u64,
) -> Result<Review, LoopRunError> {
    run_review(
        lp,
        model,
        &Mem,
        &TickingStopwatch::at(0),
        timeout_ms,
        &mut |_| {},
    )
}
