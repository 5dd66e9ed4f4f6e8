//! The verdict check: the last `VERDICT:` line of a review text outside
//! fenced code blocks, and its word.

use serde::{Deserialize, Serialize};

/// A verdict line's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// `VERDICT: PASS`.
    Pass,
    /// `VERDICT: FAIL`.
    Fail,
    /// Another uppercase word after `VERDICT:` (e.g. `N/A`).
    Other(String),
}

/// The verdict check: the last line that starts with `VERDICT:` (anchored
/// at line start) is the verdict line, and only it is parsed; an earlier
/// one never stands in for a last one that cannot be parsed (that is no
/// verdict: the length retry or the no-verdict path).
///
/// The word after `VERDICT:` is uppercase (`PASS`, `FAIL`, or another such
/// as `N/A`), optionally wrapped in Markdown emphasis or code (`**FAIL**`,
/// `` `PASS` ``), and followed by the end of the line or a character that is
/// not a letter or digit (`VERDICT: FAIL: see a.rs:3`). A lowercase or mixed
/// case word (`fail`, `Pass`) is not parsed.
///
/// Lines inside a fenced code block (opened by a line of at least three
/// `` ` `` or `~`, indented at most three spaces, closed by a line of at
/// least as many of the same character and nothing else; an unclosed fence
/// runs to the end, as in CommonMark) are not verdict lines: a model quoting
/// a file's `VERDICT: PASS` in a block after its own verdict does not
/// replace it.
pub(crate) fn find_verdict(text: &str) -> Option<Verdict> {
    let mut fence: Option<(char, usize)> = None;
    let mut last = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        let run = |c: char| body.len() - body.trim_start_matches(c).len();
        match fence {
            Some((c, n)) => {
                if indent <= 3 && run(c) >= n && body[run(c)..].trim().is_empty() {
                    fence = None;
                }
            }
            None => {
                let opener = ['`', '~'].into_iter().find(|c| indent <= 3 && run(*c) >= 3);
                if let Some(c) = opener {
                    fence = Some((c, run(c)));
                } else if line.starts_with("VERDICT:") {
                    last = Some(line);
                }
            }
        }
    }
    parse_verdict_word(&last?["VERDICT:".len()..])
}

fn parse_verdict_word(rest: &str) -> Option<Verdict> {
    let is_mark = |c: char| matches!(c, '*' | '_' | '`');
    let rest = rest.trim_start();
    let opened = rest.len() - rest.trim_start_matches(is_mark).len();
    let (marks, body) = rest.split_at(opened);
    let word_len = body
        .find(|c: char| !(c.is_ascii_uppercase() || c == '/' || c == '-' || c == '_'))
        .unwrap_or(body.len());
    // A closing `_` belongs to the emphasis, not the word (`__PASS__`).
    let word = body[..word_len].trim_end_matches('_');
    let after = &body[word.len()..];
    if word.is_empty() || !word.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    // Emphasis closes as it opened; then the word must end.
    let closing: String = marks.chars().rev().collect();
    let after = after.strip_prefix(closing.as_str())?;
    if after.starts_with(|c: char| c.is_alphanumeric() || is_mark(c)) {
        return None;
    }
    Some(match word {
        "PASS" => Verdict::Pass,
        "FAIL" => Verdict::Fail,
        w => Verdict::Other(w.to_owned()),
    })
}
