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

/// Call options with `max_retries` and the defaults otherwise.
pub fn options(max_retries: u32) -> probity_model::CallOptions {
    probity_model::CallOptions {
        max_retries,
        ..probity_model::CallOptions::default()
    }
}

/// The configuration of the scripted model `model` at `base_url`, with `key`.
pub fn config(base_url: String, model: &str, key: &str) -> probity_model::ModelConfig {
    probity_model::ModelConfig {
        base_url,
        model: model.into(),
        api_key: Some(key.into()),
    }
}

/// What `call` answers while a scripted server at the base URL it is given
/// answers `replies` in order; the server is stopped before the answer is
/// returned.
pub fn answer_of<T>(replies: Vec<probity_testkit::http::Reply>, call: impl FnOnce(&str) -> T) -> T {
    let server = probity_testkit::http::HttpServer::sequence(replies).unwrap();
    let answer = call(server.base());
    drop(server);
    answer
}

/// Asserts a request's line: a `POST` to `target` over HTTP/1.1.
pub fn assert_posted_to(request: &probity_testkit::http::Request, target: &str) {
    assert_eq!(
        (
            request.method.as_str(),
            request.target.as_str(),
            request.version.as_str()
        ),
        ("POST", target, "HTTP/1.1"),
        "{request:?}"
    );
}

/// Asserts an answer that is just `prose`: no tool call, an ordinary end.
pub fn assert_just_text(r: &probity_core::snapshot_tools::ModelResponse, prose: &str) {
    assert_eq!(r.text.as_deref(), Some(prose));
    assert!(r.tool_calls.is_empty());
    assert_eq!(r.stop, probity_core::snapshot_tools::StopReason::EndTurn);
}

/// Asserts that a tool result's `content` (a string) contains `needle`.
pub fn assert_content_contains(result: &serde_json::Value, needle: &str) {
    assert!(
        result["content"].as_str().unwrap().contains(needle),
        "{result}"
    );
}

/// The status and body of a [`ModelError::Status`](probity_ports::snapshot::ModelError),
/// or a panic naming what came instead.
pub fn status_of(err: probity_ports::snapshot::ModelError) -> (u16, String) {
    match err {
        probity_ports::snapshot::ModelError::Status { status, body } => (status, body),
        other => panic!("{other:?}"),
    }
}

/// Runs a review whose budget allows one tool call, with the model `make`
/// builds for a scripted server at the base URL it is given answering
/// `bodies` (each with status 200) in order: the review, and the requests
/// the server saw.
pub fn review_past_one_call<M: ChatModel>(
    bodies: Vec<serde_json::Value>,
    make: impl FnOnce(&str) -> M,
) -> (Review, Vec<probity_testkit::http::Request>) {
    let replies = bodies
        .into_iter()
        .map(|b| probity_testkit::http::Reply::value(200, b))
        .collect();
    let server = probity_testkit::http::HttpServer::sequence(replies).unwrap();
    let mut lp = loop_with(BudgetLimits {
        max_calls: 1,
        ..BudgetLimits::default()
    });
    let review = review_quietly(&mut lp, &mut make(server.base())).unwrap();
    (review, server.seen())
}

/// The `tool_choice` of each request, in order.
pub fn tool_choices(seen: &[probity_testkit::http::Request]) -> Vec<serde_json::Value> {
    seen.iter()
        .map(|r| r.json()["tool_choice"].clone())
        .collect()
}

/// Asserts a [`ModelError::Status`](probity_ports::snapshot::ModelError)
/// with `status` whose body contains `needle`.
pub fn assert_status(err: probity_ports::snapshot::ModelError, status: u16, needle: &str) {
    let (found, body) = status_of(err);
    assert_eq!(found, status);
    assert!(body.contains(needle), "{body}");
}

/// Asserts that a scripted server answering each of `bodies` (status 200)
/// makes the call `ask` gives its base URL a protocol error.
pub fn assert_protocol_errors<T: std::fmt::Debug>(
    bodies: &[&str],
    ask: impl Fn(&str) -> Result<T, probity_ports::snapshot::ModelError>,
) {
    for body in bodies {
        let err =
            answer_of(vec![probity_testkit::http::Reply::status(200, *body)], &ask).unwrap_err();
        assert!(
            matches!(err, probity_ports::snapshot::ModelError::Protocol(_)),
            "{body}: {err:?}"
        );
    }
}
