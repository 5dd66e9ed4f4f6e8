//! The loop as a state machine: the driver asks [`ReviewLoop::step`] what
//! to do next, runs it (a model call, a subject fetch) and feeds the answer
//! back; the conversation and the transcript digest are kept here.

use std::collections::VecDeque;

use serde_json::Value;

use crate::canonical::canonical_bytes;
use crate::digest::Sha256Digest;
use crate::snapshot_tools::raw::SubjectError;
use crate::snapshot_tools::tools::{Completed, Event, Prepared, Raw, Session, Ticket, ToolQuery};

use super::{
    Conclusion, Finish, LENGTH_RETRY_PROMPT, LoopError, Message, ModelRequest, ModelResponse,
    Review, StopReason, TRANSCRIPT_DOMAIN, ToolCall, UsageTotals, document_repair_prompt,
    document_text, find_verdict,
};

/// The next thing the driver must do.
#[derive(Debug)]
pub enum Step {
    /// Ask the model this.
    Ask(ModelRequest),
    /// Fetch this query from the subject, then [`ReviewLoop::on_fetched`].
    Fetch(ToolQuery),
    /// The review is done (or failed).
    Done(Result<Review, LoopError>),
}

#[derive(Debug)]
enum Phase {
    Ask,
    Tools,
    Done,
}

/// The loop.
#[derive(Debug)]
pub struct ReviewLoop {
    session: Session,
    declared: Vec<String>,
    messages: Vec<Message>,
    pending: VecDeque<ToolCall>,
    awaiting: Option<(String, Ticket)>,
    phase: Phase,
    model_calls: u32,
    max_model_calls: u32,
    length_retried: bool,
    finish_mode: Finish,
    repaired: bool,
    usage: UsageTotals,
    events: Vec<Event>,
    result: Option<Result<Review, LoopError>>,
}

impl ReviewLoop {
    /// A review of `prompt` under the reviewer frame; `declared` are the
    /// declared files (left out of the footer).
    pub fn new(session: Session, system: String, prompt: String, declared: Vec<String>) -> Self {
        let max_calls = session_max_calls(&session);
        Self {
            session,
            declared,
            messages: vec![
                Message::System { content: system },
                Message::User { content: prompt },
            ],
            pending: VecDeque::new(),
            awaiting: None,
            phase: Phase::Ask,
            model_calls: 0,
            // Every tool round uses at least one call of the budget; the
            // final answer, one exhausted round and the length retry follow
            // (and a document's repair turn: `with_finish`).
            max_model_calls: max_calls.saturating_add(3),
            length_retried: false,
            finish_mode: Finish::Verdict,
            repaired: false,
            usage: UsageTotals::default(),
            events: Vec::new(),
            result: None,
        }
    }

    /// The same loop, its final answer checked as `finish` says.
    pub fn with_finish(mut self, finish: Finish) -> Self {
        if matches!(finish, Finish::Document { .. })
            && !matches!(self.finish_mode, Finish::Document { .. })
        {
            self.max_model_calls = self.max_model_calls.saturating_add(1);
        }
        self.finish_mode = finish;
        self
    }

    /// What the model calls so far used, as reported.
    pub fn usage(&self) -> UsageTotals {
        self.usage
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The session (budget and ledger).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Takes the events logged since the last call.
    pub fn drain_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// What to do next.
    pub fn step(&mut self) -> Step {
        loop {
            match self.phase {
                Phase::Done => {
                    return Step::Done(
                        self.result
                            .clone()
                            .unwrap_or(Err(LoopError::OutOfOrder("finished without a result"))),
                    );
                }
                Phase::Ask => {
                    return Step::Ask(ModelRequest {
                        messages: self.messages.clone(),
                        offer_tools: !self.session.is_exhausted()
                            && !self.length_retried
                            && !self.repaired,
                    });
                }
                Phase::Tools => {
                    if let Some((_, t)) = &self.awaiting {
                        return Step::Fetch(t.query().clone());
                    }
                    let Some(call) = self.pending.pop_front() else {
                        self.phase = Phase::Ask;
                        continue;
                    };
                    let args: Value = if call.arguments.trim().is_empty() {
                        Value::Null
                    } else {
                        match serde_json::from_str(&call.arguments) {
                            Ok(v) => v,
                            Err(e) => Value::String(format!("unparsable arguments: {e}")),
                        }
                    };
                    match self.session.prepare(&call.name, &args) {
                        Prepared::Done(c) => self.push_result(&call.id, c),
                        Prepared::Fetch(t) => self.awaiting = Some((call.id, t)),
                    }
                }
            }
        }
    }

    fn push_result(&mut self, id: &str, c: Completed) {
        self.events.extend(c.events);
        self.messages.push(Message::Tool {
            tool_call_id: id.to_owned(),
            content: c.text,
        });
    }

    /// Feeds what the subject answered to the query of the last
    /// [`Step::Fetch`].
    pub fn on_fetched(&mut self, raw: Result<Raw, SubjectError>) -> Result<(), LoopError> {
        let (id, ticket) = self
            .awaiting
            .take()
            .ok_or(LoopError::OutOfOrder("no fetch was pending"))?;
        let c = self.session.complete(ticket, raw);
        self.push_result(&id, c);
        Ok(())
    }

    /// Feeds the model's answer to the last [`Step::Ask`].
    pub fn on_response(&mut self, resp: ModelResponse) -> Result<(), LoopError> {
        if !matches!(self.phase, Phase::Ask) {
            return Err(LoopError::OutOfOrder("no model request was pending"));
        }
        self.model_calls += 1;
        if let Some(u) = &resp.usage {
            self.usage.add(u);
        }
        if !resp.tool_calls.is_empty() {
            if self.model_calls >= self.max_model_calls {
                return self.finish(Err(LoopError::TooManyRounds(self.model_calls)));
            }
            self.messages.push(Message::Assistant {
                content: resp.text.filter(|t| !t.is_empty()),
                tool_calls: resp.tool_calls.clone(),
            });
            self.pending = resp.tool_calls.into();
            self.phase = Phase::Tools;
            return Ok(());
        }
        let text = resp.text.unwrap_or_default();
        self.messages.push(Message::Assistant {
            content: Some(text.clone()),
            tool_calls: Vec::new(),
        });
        let concluded = match &self.finish_mode {
            Finish::Verdict => find_verdict(&text).map(Conclusion::Verdict).ok_or(None),
            Finish::Document { check, .. } => check
                .check(document_text(&text).as_bytes())
                .map(Conclusion::Document)
                .map_err(Some),
        };
        match concluded {
            Ok(conclusion) => {
                let digest = self.transcript_digest()?;
                let footer = self.session.footer(&self.declared);
                self.finish(Ok(Review {
                    text,
                    conclusion,
                    footer,
                    transcript_digest: digest,
                    model_calls: self.model_calls,
                    length_retried: self.length_retried,
                    repaired: self.repaired,
                    usage: self.usage,
                }))
            }
            Err(_) if resp.stop == StopReason::Length && !self.length_retried => {
                self.length_retried = true;
                let content = match &self.finish_mode {
                    Finish::Verdict => LENGTH_RETRY_PROMPT.to_owned(),
                    Finish::Document { role, .. } => format!(
                        "Your answer was cut off by the length limit. Answer again, shorter: exactly one `{role}` JSON document and nothing else."
                    ),
                };
                self.messages.push(Message::User { content });
                Ok(())
            }
            Err(None) => self.finish(Err(LoopError::NoVerdict { text })),
            Err(Some(why)) => match &self.finish_mode {
                Finish::Document { role, .. } if !self.repaired => {
                    let role = *role;
                    self.repaired = true;
                    self.messages.push(Message::User {
                        content: document_repair_prompt(role, &why),
                    });
                    Ok(())
                }
                Finish::Document { role, .. } => {
                    let role = *role;
                    self.finish(Err(LoopError::InvalidDocument { role, why, text }))
                }
                Finish::Verdict => self.finish(Err(LoopError::NoVerdict { text })),
            },
        }
    }

    /// The transcript's canonical bytes (what [`Self::transcript_digest`]
    /// digests): the messages, in order, as RFC 8785 JSON.
    pub fn transcript_bytes(&self) -> Result<Vec<u8>, LoopError> {
        canonical_bytes(&self.messages).map_err(|e| LoopError::Digest(e.to_string()))
    }

    fn finish(&mut self, r: Result<Review, LoopError>) -> Result<(), LoopError> {
        self.result = Some(r);
        self.phase = Phase::Done;
        Ok(())
    }

    /// The digest of the transcript so far (S5.3): canonical JSON of the
    /// messages under [`TRANSCRIPT_DOMAIN`].
    pub fn transcript_digest(&self) -> Result<Sha256Digest, LoopError> {
        let bytes =
            canonical_bytes(&self.messages).map_err(|e| LoopError::Digest(e.to_string()))?;
        Ok(Sha256Digest::of(TRANSCRIPT_DOMAIN, &bytes))
    }
}

fn session_max_calls(s: &Session) -> u32 {
    s.limits().max_calls
}
