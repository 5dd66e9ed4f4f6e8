//! The snapshot ports: reading a subject, asking a model, and the driver
//! that runs the review loop over them (spec S5).
//!
//! Every decision (what a path means, what a result shows, what the budget
//! allows, when the loop ends) is made in `probity_core::snapshot_tools`;
//! this module only sequences it with observations.

use probity_core::snapshot_tools::GREP_MAX_MATCHES;
use probity_core::snapshot_tools::LoopError;
use probity_core::snapshot_tools::ToolSpec;
use probity_core::snapshot_tools::{
    Completed, Event, GrepQuery, ListEntry, ModelRequest, ModelResponse, Prepared, Raw, RawGrep,
    RawRead, Review, ReviewLoop, Session, SnapshotPath, Step, SubjectError, ToolQuery,
};
use serde_json::Value;

/// A read-only subject: `index`, `worktree`, `disk` or `tree:<oid>`.
pub trait SnapshotReader {
    /// A file's content (or what stands at the path instead).
    fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError>;
    /// Matching lines, in path order, at most `max_hits` (then `more`).
    fn grep(&self, query: &GrepQuery, max_hits: usize) -> Result<RawGrep, SubjectError>;
    /// Every path of the snapshot.
    fn list(&self) -> Result<Vec<ListEntry>, SubjectError>;
}

/// Answers a validated query from a subject.
pub fn fetch<R: SnapshotReader + ?Sized>(
    reader: &R,
    query: &ToolQuery,
) -> Result<Raw, SubjectError> {
    match query {
        ToolQuery::Read { path, .. } => reader.read(path).map(Raw::Read),
        ToolQuery::Grep(q) => reader.grep(q, GREP_MAX_MATCHES).map(Raw::Grep),
        ToolQuery::List { .. } => reader.list().map(Raw::List),
    }
}

/// One tool call from a model or an MCP client: validated, budgeted,
/// fetched, shaped and logged. Never fails: errors are results (S2.4).
pub fn call_tool<R: SnapshotReader + ?Sized>(
    session: &mut Session,
    reader: &R,
    name: &str,
    args: &Value,
) -> Completed {
    match session.prepare(name, args) {
        Prepared::Done(c) => c,
        Prepared::Fetch(ticket) => {
            let raw = fetch(reader, ticket.query());
            session.complete(ticket, raw)
        }
    }
}

/// One already-validated call (the CLI).
pub fn call_query<R: SnapshotReader + ?Sized>(
    session: &mut Session,
    reader: &R,
    query: ToolQuery,
) -> Completed {
    match session.prepare_query(query) {
        Prepared::Done(c) => c,
        Prepared::Fetch(ticket) => {
            let raw = fetch(reader, ticket.query());
            session.complete(ticket, raw)
        }
    }
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The endpoint or the agent program could not be reached, run or read
    /// (a connection error, a failed exit); carries the cause.
    #[error("the model endpoint could not be reached: {0}")]
    Transport(String),
    /// The endpoint answered a non-2xx status that is not retried, or still
    /// failed after the retries.
    #[error("the model endpoint answered HTTP {status}: {body}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The response body, any secret redacted, cut to a bounded length.
        body: String,
    },
    /// The answer is not what the API defines (not JSON, a missing field,
    /// an unusable tool call); carries what was wrong.
    #[error("the model's answer could not be understood: {0}")]
    Protocol(String),
    /// No answer came within what was left of the review's wall clock.
    #[error("the model did not answer within the review timeout")]
    Timeout,
    /// The settings do not say how to reach a model (no base URL, no model
    /// name, an unusable key); carries what is missing.
    #[error("the model is not configured: {0}")]
    NotConfigured(String),
}

/// A chat model that may call tools.
pub trait ChatModel {
    /// Answers `request`; `tools` are offered when `request.offer_tools`.
    /// `timeout_ms` is what is left of the review's wall clock.
    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError>;
}

impl<T: ChatModel + ?Sized> ChatModel for Box<T> {
    fn complete(
        &mut self,
        request: &ModelRequest,
        tools: &[ToolSpec],
        timeout_ms: u64,
    ) -> Result<ModelResponse, ModelError> {
        (**self).complete(request, tools, timeout_ms)
    }
}

/// Elapsed time since the review started (the wall clock is a port; the
/// review authority's `Clock` reads the time and a nonce instead).
pub trait Stopwatch {
    /// Milliseconds since the stopwatch started; never decreasing.
    fn elapsed_ms(&self) -> u64;
}

/// Why a review produced no review.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopRunError {
    /// A model call failed (other than by the timeout).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The loop ended without a review (no verdict, an invalid document,
    /// too many rounds).
    #[error(transparent)]
    Loop(#[from] LoopError),
    /// The review's wall clock ran out (S3.3): the change is unreviewed.
    #[error("the review timed out after {elapsed_ms} ms (limit {timeout_ms} ms): unreviewed")]
    Timeout {
        /// Milliseconds elapsed when the timeout was seen.
        elapsed_ms: u64,
        /// The review's timeout in milliseconds.
        timeout_ms: u64,
    },
}

/// Runs the loop to its end: asks the model, fetches tool queries from the
/// subject, and reports every event to `log` as it happens. All rounds share
/// one wall clock of `timeout_ms` (S3.3): it is checked before every model
/// call and every fetch, and again after a fetch, before its result is
/// shaped (a `list` filter runs then). A model call gets only what is left
/// of the clock. A single fetch (one git command, one file read, one disk
/// walk) is not interrupted: it is bounded by the subject's caps, and a
/// review whose clock ran out during it ends as timed out right after it.
pub fn run_review<M, R, C>(
    lp: &mut ReviewLoop,
    model: &mut M,
    reader: &R,
    clock: &C,
    timeout_ms: u64,
    log: &mut dyn FnMut(&Event),
) -> Result<Review, LoopRunError>
where
    M: ChatModel + ?Sized,
    R: SnapshotReader + ?Sized,
    C: Stopwatch + ?Sized,
{
    let specs = probity_core::snapshot_tools::tool_specs();
    loop {
        for e in lp.drain_events() {
            log(&e);
        }
        let elapsed_ms = clock.elapsed_ms();
        if elapsed_ms >= timeout_ms {
            return Err(LoopRunError::Timeout {
                elapsed_ms,
                timeout_ms,
            });
        }
        match lp.step() {
            Step::Ask(req) => {
                let resp = match model.complete(&req, &specs, timeout_ms - elapsed_ms) {
                    Ok(r) => r,
                    Err(ModelError::Timeout) => {
                        return Err(LoopRunError::Timeout {
                            elapsed_ms: clock.elapsed_ms(),
                            timeout_ms,
                        });
                    }
                    Err(e) => return Err(e.into()),
                };
                lp.on_response(resp)?;
            }
            Step::Fetch(query) => {
                let raw = fetch(reader, &query);
                let elapsed_ms = clock.elapsed_ms();
                if elapsed_ms >= timeout_ms {
                    return Err(LoopRunError::Timeout {
                        elapsed_ms,
                        timeout_ms,
                    });
                }
                lp.on_fetched(raw)?;
            }
            Step::Done(result) => return Ok(result?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probity_core::snapshot_tools::{BudgetLimits, EntryKind, StopReason, Verdict};
    use probity_core::snapshot_tools::{REVIEWER_FRAME, ToolCall};
    use std::cell::Cell;

    struct Mem;
    impl SnapshotReader for Mem {
        fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
            match path.as_bytes() {
                b"a.rs" => Ok(RawRead::File(b"fn a() {}\n".to_vec())),
                _ => Err(SubjectError::NotInSnapshot {
                    path: path.display().into_owned(),
                    why: "untracked".into(),
                }),
            }
        }
        fn grep(&self, _q: &GrepQuery, _max: usize) -> Result<RawGrep, SubjectError> {
            Err(SubjectError::Backend("git missing".into()))
        }
        fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
            Ok(vec![ListEntry {
                path: b"a.rs".to_vec(),
                kind: EntryKind::File,
            }])
        }
    }

    struct Scripted(Vec<ModelResponse>, Vec<bool>);
    impl ChatModel for Scripted {
        fn complete(
            &mut self,
            req: &ModelRequest,
            tools: &[ToolSpec],
            _t: u64,
        ) -> Result<ModelResponse, ModelError> {
            assert_eq!(tools.len(), 3);
            self.1.push(req.offer_tools);
            if self.0.is_empty() {
                return Err(ModelError::Protocol("script ended".into()));
            }
            Ok(self.0.remove(0))
        }
    }

    struct Ticking(Cell<u64>, u64);
    impl Stopwatch for Ticking {
        fn elapsed_ms(&self) -> u64 {
            let v = self.0.get();
            self.0.set(v + self.1);
            v
        }
    }

    fn tool_round(calls: &[(&str, &str)]) -> ModelResponse {
        ModelResponse {
            text: None,
            tool_calls: calls
                .iter()
                .enumerate()
                .map(|(i, (n, a))| ToolCall {
                    id: format!("c{i}"),
                    name: (*n).into(),
                    arguments: (*a).into(),
                })
                .collect(),
            stop: StopReason::ToolUse,
            usage: None,
        }
    }

    fn new_loop() -> ReviewLoop {
        ReviewLoop::new(
            Session::new(BudgetLimits::default()),
            REVIEWER_FRAME.into(),
            "diff".into(),
            vec![],
        )
    }

    #[test]
    fn drives_tools_and_logs_every_call() {
        let mut model = Scripted(
            vec![
                tool_round(&[
                    ("read", r#"{"path":"a.rs"}"#),
                    ("grep", r#"{"pattern":"x"}"#),
                    ("read", r#"{"path":"nope"}"#),
                ]),
                ModelResponse {
                    text: Some("fine\nVERDICT: PASS".into()),
                    tool_calls: vec![],
                    stop: StopReason::EndTurn,
                    usage: None,
                },
            ],
            vec![],
        );
        let mut events = Vec::new();
        let mut lp = new_loop();
        let review = run_review(
            &mut lp,
            &mut model,
            &Mem,
            &Ticking(Cell::new(0), 1),
            1000,
            &mut |e| events.push(e.clone()),
        )
        .unwrap();
        assert_eq!(review.verdict(), Some(&Verdict::Pass));
        assert_eq!(
            review.footer.as_deref(),
            // grep (git missing) and the missing file failed.
            Some(
                "read 1 file (10 B) beyond the declared context: a.rs; 2 tool calls failed or were refused"
            )
        );
        let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(
            names,
            [
                "review.snapshot.read",
                "review.snapshot.grep",
                "review.snapshot.read"
            ]
        );
        assert_eq!(
            events[1].refused.as_deref(),
            Some("the snapshot could not be read: git missing")
        );
        assert_eq!(model.1, [true, true]);
    }

    #[test]
    fn the_wall_clock_is_shared_by_all_rounds() {
        let mut model = Scripted(
            (0..5).map(|_| tool_round(&[("list", "{}")])).collect(),
            vec![],
        );
        let mut lp = new_loop();
        let err = run_review(
            &mut lp,
            &mut model,
            &Mem,
            &Ticking(Cell::new(0), 10),
            25,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(err, LoopRunError::Timeout { timeout_ms: 25, .. }),
            "{err:?}"
        );
    }

    /// A subject whose `list` takes 100 ms of the (simulated) clock.
    struct Slow<'a>(&'a Cell<u64>);
    impl SnapshotReader for Slow<'_> {
        fn read(&self, path: &SnapshotPath) -> Result<RawRead, SubjectError> {
            Mem.read(path)
        }
        fn grep(&self, q: &GrepQuery, max: usize) -> Result<RawGrep, SubjectError> {
            Mem.grep(q, max)
        }
        fn list(&self) -> Result<Vec<ListEntry>, SubjectError> {
            self.0.set(self.0.get() + 100);
            Mem.list()
        }
    }

    struct Shared<'a>(&'a Cell<u64>);
    impl Stopwatch for Shared<'_> {
        fn elapsed_ms(&self) -> u64 {
            self.0.get()
        }
    }

    #[test]
    fn a_fetch_that_outlives_the_clock_ends_the_review_before_the_next_step() {
        let now = Cell::new(0);
        let mut model = Scripted(
            vec![
                tool_round(&[("list", "{}"), ("list", "{}"), ("list", "{}")]),
                ModelResponse {
                    text: Some("VERDICT: PASS".into()),
                    tool_calls: vec![],
                    stop: StopReason::EndTurn,
                    usage: None,
                },
            ],
            vec![],
        );
        let mut lp = new_loop();
        let mut events = Vec::new();
        let err = run_review(
            &mut lp,
            &mut model,
            &Slow(&now),
            &Shared(&now),
            150,
            &mut |e| events.push(e.clone()),
        )
        .unwrap_err();
        assert_eq!(
            err,
            LoopRunError::Timeout {
                elapsed_ms: 200,
                timeout_ms: 150
            }
        );
        // The second list ran past the clock: it is neither shaped nor
        // followed by a third fetch or another model call.
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(model.1.len(), 1);
        assert_eq!(lp.session().usage().calls_used, 2);
    }

    #[test]
    fn mcp_style_calls_never_fail() {
        let mut s = Session::new(BudgetLimits {
            max_calls: 1,
            ..BudgetLimits::default()
        });
        let c = call_tool(&mut s, &Mem, "list", &serde_json::json!({}));
        assert_eq!(c.text, "a.rs\n");
        let c = call_tool(&mut s, &Mem, "read", &serde_json::json!({"path": "a.rs"}));
        assert!(c.is_error);
        assert_eq!(
            c.text,
            "budget exhausted: 1 calls / 5 bytes used; answer from what you have"
        );
    }
}
