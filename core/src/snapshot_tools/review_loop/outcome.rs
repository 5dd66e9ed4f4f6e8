//! What a loop ends with: the finished review, the footer lines its author
//! reads, or why there is no review.

use crate::digest::Sha256Digest;

use super::{Conclusion, UsageTotals, Verdict};

/// A finished review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// The model's final text.
    pub text: String,
    /// The verdict or the role document the final text carried.
    pub conclusion: Conclusion,
    /// The footer line, when the reviewer read beyond the declared files.
    pub footer: Option<String>,
    /// Digest of the whole transcript (canonical JSON).
    pub transcript_digest: Sha256Digest,
    /// How many times the model was asked, tool rounds and retries included.
    pub model_calls: u32,
    /// The answer was cut by the length limit once and asked again.
    pub length_retried: bool,
    /// A document answer was refused once and answered again.
    pub repaired: bool,
    /// What the model calls used, as the provider reported it.
    pub usage: UsageTotals,
}

impl Review {
    /// The verdict, for a [`Finish::Verdict`](super::Finish::Verdict) review.
    pub fn verdict(&self) -> Option<&Verdict> {
        match &self.conclusion {
            Conclusion::Verdict(v) => Some(v),
            Conclusion::Document(_) => None,
        }
    }

    /// The role document, for a
    /// [`Finish::Document`](super::Finish::Document) review.
    pub fn document(&self) -> Option<&[u8]> {
        match &self.conclusion {
            Conclusion::Document(d) => Some(d),
            Conclusion::Verdict(_) => None,
        }
    }

    /// The text the author reads: the review, then the footer lines (what
    /// was read beyond the declared files; what the model calls used, when
    /// reported). A footer never adds a line: a control character in it
    /// (names are already quoted) is shown escaped.
    pub fn rendered(&self) -> String {
        let mut s = self.text.trim_end().to_owned();
        for f in footer_lines(self.footer.as_deref(), &self.usage) {
            s.push_str("\n\n");
            s.push_str(&f);
        }
        s.push('\n');
        s
    }
}

/// The footer lines a review shows its author, in order: what was read
/// beyond the declared files (`footer`, when any), then what the model
/// calls used (when reported). Each is exactly one line: a control
/// character in it (names are already quoted) is shown escaped.
pub fn footer_lines(footer: Option<&str>, usage: &UsageTotals) -> Vec<String> {
    footer
        .map(str::to_owned)
        .into_iter()
        .chain(usage.footer())
        .map(|f| crate::snapshot_tools::path::one_line(&f).into_owned())
        .collect()
}

/// Why the loop ended without a review.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopError {
    /// A [`Finish::Verdict`](super::Finish::Verdict) answer has no parsable
    /// `VERDICT:` line, and the length retry was spent or did not apply.
    #[error("the review has no `VERDICT:` line")]
    NoVerdict {
        /// The final answer's text.
        text: String,
    },
    /// A [`Finish::Document`](super::Finish::Document) answer was refused by
    /// its check again after the repair turn.
    #[error("the answer is not a valid `{role}` document after one repair turn: {why}")]
    InvalidDocument {
        /// The document's schema name (`reviewer`, `refuter`, `validator`).
        role: &'static str,
        /// The check's reason for the second refusal.
        why: String,
        /// The refused answer's text.
        text: String,
    },
    /// The model still made tool calls at the model-call ceiling (the
    /// budget's `max_calls` plus three, plus one more for a document's
    /// repair turn); carries the model calls made.
    #[error("the model kept calling tools after {0} model calls; no review")]
    TooManyRounds(u32),
    /// The transcript could not be made canonical JSON; carries the cause.
    #[error("the transcript could not be digested: {0}")]
    Digest(String),
    /// The driver fed an answer nothing asked for: a fetch result with no
    /// [`Step::Fetch`](super::Step::Fetch) pending, a model answer with no
    /// [`Step::Ask`](super::Step::Ask) pending, or a step after the end
    /// without a result.
    #[error("the loop was driven out of order: {0}")]
    OutOfOrder(&'static str),
}
