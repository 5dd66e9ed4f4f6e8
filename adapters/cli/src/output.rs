//! Exit codes, errors and the human/JSON output every command shares.
//!
//! Exit codes (documented in `probity --help` and README):
//! - 0: ok, or the gate allows
//! - 1: the gate denies, or the check `--evidence-cmd` ran failed
//! - 2: usage error (bad flags or arguments)
//! - 3: rejected input (a malformed document, a bad value); nothing changed
//! - 4: conflict or contention (a stale revision, a lock held elsewhere)
//! - 5: repository error (not a repository, git failed or is too old)
//! - 6: integrity error (stored authority failed validation: fail closed)
//! - 7: I/O or internal error (also: the answer could not be written to
//!   stdout; a reader that closed the pipe early gets no message)

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use probity_core::review::{Checks, NextTool, Surface};
use serde::Serialize;
use serde_json::Value;

/// The classes of failure, each with its own exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Usage,
    RejectedInput,
    Conflict,
    Repository,
    Integrity,
    Io,
}

impl From<probity_core::review::ErrorClass> for ErrorKind {
    /// A refusal's class (core and the ports say it, issue 25 §5) is the
    /// kind of the same name.
    fn from(class: probity_core::review::ErrorClass) -> Self {
        use probity_core::review::ErrorClass as C;
        match class {
            C::Usage => ErrorKind::Usage,
            C::RejectedInput => ErrorKind::RejectedInput,
            C::Conflict => ErrorKind::Conflict,
            C::Repository => ErrorKind::Repository,
            C::Integrity => ErrorKind::Integrity,
            C::Io => ErrorKind::Io,
        }
    }
}

impl ErrorKind {
    /// The step a person takes after an error of this kind when the error
    /// itself names none (a next step computed at run time that came out
    /// blank): never blank, so no error leaves its reader without one.
    pub fn fallback_step(self) -> &'static str {
        match self {
            ErrorKind::Usage => "run the command with `--help` to see what it takes",
            ErrorKind::RejectedInput => "fix the input the message names and run the command again",
            ErrorKind::Conflict => {
                "read the lineage's state with `probity status --lineage <id>`, then run the command again"
            }
            ErrorKind::Repository => {
                "check the repository with `git status` and `git fsck`, then run the command again"
            }
            ErrorKind::Integrity => {
                "run `probity repair --survey` to see what is damaged and what to do"
            }
            ErrorKind::Io => {
                "check the file or directory the message names (permissions, free space), then run the command again"
            }
        }
    }

    /// The process exit code for this kind.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Usage => 2,
            ErrorKind::RejectedInput => 3,
            ErrorKind::Conflict => 4,
            ErrorKind::Repository => 5,
            ErrorKind::Integrity => 6,
            ErrorKind::Io => 7,
        }
    }
}

/// An error as the user sees it: what happened and what to do next.
#[derive(Debug, Clone, Serialize)]
pub struct CliError {
    pub kind: ErrorKind,
    /// A stable machine-readable code, e.g. `malformed_result`.
    pub code: String,
    pub message: String,
    /// What to do next, for people and orchestrators: never blank.
    pub next_action: NextStep,
    /// For a usage error: the argument that is missing or bad, as the
    /// command line spells it (e.g. `--lineage <LINEAGE>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// The next step as the MCP surface names it (D-R89): never in the
    /// command line's `--json`; `probity mcp --authority` adds it to the
    /// error document as `next_tool`.
    #[serde(skip)]
    pub next_tool: Option<Box<NextTool>>,
}

impl CliError {
    pub fn new(
        kind: ErrorKind,
        code: impl Into<String>,
        message: impl Into<String>,
        next_action: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            code: code.into(),
            message: message.into(),
            next_action: NextStep::new(kind, next_action),
            argument: None,
            next_tool: None,
        }
    }

    /// This error, with its next step on the MCP surface.
    pub fn with_next_tool(mut self, next: Option<NextTool>) -> Self {
        self.next_tool = next.map(Box::new);
        self
    }
}

/// An error's next step, never blank by construction: [`NextStep::new`]
/// puts the error kind's own step ([`ErrorKind::fallback_step`]) in place
/// of a blank one, and nothing else makes or empties one. A next step
/// built at run time (a lookup, a `format!`) therefore cannot reach the
/// reader blank, whether or not a test provokes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct NextStep(String);

impl NextStep {
    /// `step`, or `kind`'s fallback step when `step` is blank.
    pub fn new(kind: ErrorKind, step: impl Into<String>) -> Self {
        let step = step.into();
        if step.trim().is_empty() {
            Self(kind.fallback_step().to_string())
        } else {
            Self(step)
        }
    }

    /// This step followed by `more` (a sentence that adds to it).
    pub fn and(mut self, more: &str) -> Self {
        self.0.push_str(more);
        self
    }

    /// The step's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for NextStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<NextStep> for String {
    fn from(step: NextStep) -> Self {
        step.0
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "error[{}]: {}\n  next: {}",
            self.code, self.message, self.next_action
        )
    }
}

/// How a command reports: human text or one JSON document on stdout, and
/// on which surface: `probity mcp --authority` answers on the MCP one,
/// where each answer also names its next step as a tool call.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub json: bool,
    pub surface: Surface,
    /// Who runs the independent check on the MCP surface: its next steps
    /// ask for the argv only of a server that runs checks (D-R123).
    pub checks: Checks,
}

/// Set once a write to stdout failed (a closed pipe, a full disk): the
/// command's effect may be committed, but its answer was not delivered, so
/// the process exits 7 instead of 0 or 1 ([`stdout_exit`]).
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Where [`emit`] writes while [`capture`] runs on this thread.
    static CAPTURE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with everything it would [`emit`] on this thread kept instead
/// of written to stdout, and returns it: how `probity mcp --authority`
/// answers exactly what a command's `--json` prints.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    let previous = CAPTURE.with(|c| c.replace(Some(String::new())));
    let r = f();
    let kept = CAPTURE.with(|c| c.replace(previous)).unwrap_or_default();
    (r, kept)
}

/// Writes `text` to stdout, never panicking: a failure is remembered for the
/// exit code and, unless the reader simply went away (EPIPE), reported once
/// on stderr. Under [`capture`], the text is kept instead.
pub fn emit(text: &str) {
    let captured = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(buf) => {
            buf.push_str(text);
            true
        }
        None => false,
    });
    if captured {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        note_stdout_error(&e);
    }
}

/// [`emit`] for bytes that need not be text (a patch, a canonical
/// document): the same failure handling, so a reader that closed the pipe
/// early gets no message and the exit code says the answer was not
/// delivered.
pub fn emit_bytes(bytes: &[u8]) {
    let captured = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(buf) => {
            buf.push_str(&String::from_utf8_lossy(bytes));
            true
        }
        None => false,
    });
    if captured {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        note_stdout_error(&e);
    }
}

/// Records a failed write to stdout (see [`emit`]).
pub fn note_stdout_error(e: &std::io::Error) {
    if !STDOUT_FAILED.swap(true, Ordering::SeqCst) && e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("error[stdout]: could not write the answer: {e}");
    }
}

/// The exit code to use instead of `code` when the answer could not be
/// written: 7 (I/O). A reader that closed the pipe early (`probity ... |
/// head`) gets no message; any other failure was reported on stderr.
pub fn stdout_exit(code: ExitCode) -> ExitCode {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.flush() {
        note_stdout_error(&e);
    }
    if STDOUT_FAILED.load(Ordering::SeqCst) {
        ExitCode::from(ErrorKind::Io.exit_code())
    } else {
        code
    }
}

impl Output {
    /// Prints a successful answer: the typed answer as one JSON document
    /// (object keys sorted, as every answer has always been), or the human
    /// text.
    pub fn answer<T: Serialize + ?Sized>(&self, value: &T, human: impl FnOnce() -> String) {
        if !self.json {
            emit(&human());
            return;
        }
        match serde_json::to_value(value) {
            Ok(v) => emit(&format!("{}\n", pretty(&v))),
            // Only a map with non-string keys fails here: a defect, and the
            // answer was not delivered (exit 7).
            Err(e) => {
                STDOUT_FAILED.store(true, Ordering::SeqCst);
                eprintln!("error[internal_answer_error]: the answer could not be serialized: {e}");
            }
        }
    }

    /// [`Output::answer`] of an answer that carries a next step: on the
    /// MCP surface the JSON document also has `next_tool`, the step as
    /// core renders it for MCP (`next`; null when the answer has none),
    /// and, when there is a step, its sentences say it as MCP does
    /// ([`mcp_sentences`], D-R109); every other field as the command
    /// line's `--json` has it.
    pub fn answer_next<T: Serialize + ?Sized>(
        &self,
        value: &T,
        next: impl FnOnce() -> Option<NextTool>,
        human: impl FnOnce() -> String,
    ) {
        if !self.json || self.surface == Surface::Cli {
            return self.answer(value, human);
        }
        let mut v = value_of(value);
        let next = next().map(|n| n.for_checks(self.checks));
        if let Value::Object(map) = &mut v {
            if let Some(step) = &next {
                mcp_sentences(map, step);
            }
            map.insert("next_tool".into(), value_of(&next));
        }
        self.answer(&v, human)
    }

    /// Reports an error and returns its exit code. In JSON mode the error is a
    /// document on stdout (`{"error": {...}}`); otherwise text on stderr. On
    /// the MCP surface the error also has `next_tool`: the one its refusal
    /// names, or else the statement that no tool is named and its
    /// `next_action` is a person's.
    pub fn error(&self, err: &CliError) -> ExitCode {
        if self.json && self.surface == Surface::Mcp {
            let mut doc = serde_json::json!({ "error": err });
            let next = match err.next_tool.as_deref() {
                // A tool leads on: the error's next step says it as MCP
                // does (D-R109).
                Some(step) => {
                    let step = step.clone().for_checks(self.checks);
                    doc["error"]["next_action"] = step.message.clone().into();
                    step
                }
                // None is named: the step stays the error's own, which the
                // `next_tool` sentence says are the command line's words.
                None => probity_core::review::unnamed(err.next_action.as_str()),
            };
            doc["error"]["next_tool"] = value_of(&next);
            emit(&format!("{}\n", pretty(&doc)));
        } else if self.json {
            let doc = serde_json::json!({ "error": err });
            emit(&format!("{}\n", pretty(&doc)));
        } else {
            eprintln!("{err}");
        }
        ExitCode::from(err.kind.exit_code())
    }
}

/// An answer's sentences on the MCP surface (D-R109): its `message`, and a
/// `--next-transition` status's `next_transition.message`, say the step as
/// `next_tool` does (the tool to call, or that no MCP tool does it and the
/// command a person runs), never the command line's `probity ...`. A gate
/// decision's `message` keeps its verdict first: `<decision>
/// (<reason_code>): <step>`. The command line's answers keep their words.
fn mcp_sentences(map: &mut serde_json::Map<String, Value>, step: &NextTool) {
    if let Some(Value::Object(nt)) = map.get_mut("next_transition")
        && nt.get("message").is_some_and(Value::is_string)
    {
        nt.insert("message".into(), step.message.clone().into());
    }
    if !map.get("message").is_some_and(Value::is_string) {
        return;
    }
    let verdict = match (map.get("decision"), map.get("reason_code")) {
        (Some(Value::String(d)), Some(Value::String(r))) => format!("{d} ({r}): "),
        _ => String::new(),
    };
    map.insert(
        "message".into(),
        format!("{verdict}{}", step.message).into(),
    );
}

/// A typed answer as a JSON value, for a document that nests answers (the
/// demo's steps). Only a map with non-string keys fails to convert, a
/// defect; the value then says so in the error shape every answer uses.
pub fn value_of(value: &(impl Serialize + ?Sized)) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| {
        serde_json::json!({"error": {"kind": "io", "code": "internal_answer_error", "message": e.to_string()}})
    })
}

/// One delivery of a gate's decision, as every answer names it: `<refs> ->
/// <tip>: <n> commit(s), <reason>`.
pub fn delivery_summary(r: &probity_core::review::DeliveryReport) -> String {
    format!(
        "{} -> {}: {} commit(s), {}",
        r.refs.join(", "),
        r.tip,
        r.commits,
        wire_name(r.reason_code)
    )
}

/// The JSON spelling of a unit enum value (a reason code, an
/// applicability), for human text: the same word `--json` prints.
pub fn wire_name(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// Pretty JSON text of a value.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [ErrorKind; 6] = [
        ErrorKind::Usage,
        ErrorKind::RejectedInput,
        ErrorKind::Conflict,
        ErrorKind::Repository,
        ErrorKind::Integrity,
        ErrorKind::Io,
    ];

    /// A next step that came out blank at run time (a lookup, a `format!`
    /// of nothing) is the kind's own: no error reaches its reader without
    /// one, whichever path made it.
    #[test]
    fn a_blank_next_step_becomes_the_kinds_own_and_a_given_one_stays() {
        for kind in KINDS {
            for blank in ["", " ", "\n\t "] {
                let e = CliError::new(kind, "code", "message", blank);
                assert_eq!(e.next_action.as_str(), kind.fallback_step());
                assert!(!kind.fallback_step().trim().is_empty(), "{kind:?}");
                let json = serde_json::to_value(e).unwrap();
                assert_eq!(json["next_action"], kind.fallback_step());
            }
            let e = CliError::new(kind, "code", "message", "run `x`");
            assert_eq!(e.next_action.as_str(), "run `x`");
            assert_eq!(
                NextStep::new(kind, "").and("").as_str(),
                kind.fallback_step()
            );
        }
    }
}
