//! How a review's final answer is checked: a verdict line, or exactly one
//! role document with its check, its one repair turn and what it concluded.

use super::Verdict;

/// A role document's check: the answer's bytes → the document's bytes, or
/// why it is not one (quoted back to the model in the repair turn).
#[derive(Clone)]
pub struct DocumentCheck(std::sync::Arc<CheckFn>);

/// The function behind a [`DocumentCheck`].
type CheckFn = dyn Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync;

impl DocumentCheck {
    /// Wraps `f`: the answer's document text → the document's bytes, or the
    /// reason it is refused.
    pub fn new(f: impl Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    /// Runs the check.
    pub fn check(&self, answer: &[u8]) -> Result<Vec<u8>, String> {
        (self.0)(answer)
    }
}

impl std::fmt::Debug for DocumentCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DocumentCheck")
    }
}

/// How a review's final answer is checked.
#[derive(Debug, Clone)]
pub enum Finish {
    /// A review text with a `VERDICT:` line
    /// (`find_verdict`) and its one length retry
    /// (S5.1).
    Verdict,
    /// Exactly one JSON document of a role (a lens result, the refuter
    /// batch, the targeted validator's result): `check` parses the answer
    /// ([`document_text`] of it) strictly and returns the document's bytes,
    /// or why it is not one. A refused answer gets one repair turn quoting
    /// the reason; a second refusal ends the loop
    /// ([`LoopError::InvalidDocument`](super::LoopError::InvalidDocument)).
    Document {
        /// The schema it is checked against (`reviewer`, `refuter`,
        /// `validator`: what `probity schema` prints).
        role: &'static str,
        /// The strict check of the answer's [`document_text`].
        check: DocumentCheck,
    },
}

/// What a finished review concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conclusion {
    /// The verdict line's value ([`Finish::Verdict`]).
    Verdict(Verdict),
    /// The role document's bytes, as its check returned them
    /// ([`Finish::Document`]).
    Document(Vec<u8>),
}

/// The document in a final answer: the whole answer trimmed, or, when the
/// whole answer is one fenced code block (```` ```json ... ``` ````), its
/// contents. Prose around a document is not stripped: the check refuses it,
/// and the repair turn asks for the document alone.
pub fn document_text(answer: &str) -> &str {
    let t = answer.trim();
    if let Some(rest) = t.strip_prefix("```")
        && let Some(body) = rest.strip_suffix("```")
        && let Some((_lang, inner)) = body.split_once('\n')
        && !inner.contains("```")
    {
        return inner.trim();
    }
    t
}

/// What the driver says when a document answer was refused: the reason,
/// quoted (at most [`MAX_REPAIR_QUOTE`] bytes of it).
pub(crate) fn document_repair_prompt(role: &str, why: &str) -> String {
    let mut end = why.len().min(MAX_REPAIR_QUOTE);
    while !why.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "Your answer is not a valid `{role}` document: {}. Answer again with exactly one JSON document that matches the schema, and nothing else: no prose, no code fence.",
        &why[..end]
    )
}

/// The most bytes of a refusal quoted back to the model.
pub const MAX_REPAIR_QUOTE: usize = 2000;
