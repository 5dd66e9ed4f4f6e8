//! Directives in a document (v6, D-R143): reStructuredText's
//! `.. name::` and MyST's fenced `{name}`. Sphinx, MyST and Jupyter run
//! the content of many of them when the docs are built or doctested
//! (`testcleanup`, `ipython`, `plot`, `jupyter-execute`, `ifconfig`, any
//! extension's); a document naming one that the policy does not list as
//! inert is not passive (`doc_code_block`), whatever its body's
//! indentation.
//!
//! Read liberally, so that a spelling docutils or MyST accept is never
//! missed (one they refuse may be read as a directive: a document rated
//! higher, never lower):
//! - rst: `..` not preceded by `.` (an ellipsis is no markup start), then
//!   horizontal whitespace (a space, a tab, `\v`, `\f`, any Unicode space
//!   but a line break), an optional substitution `|text|` and whitespace,
//!   then a name of non-whitespace characters ending at the first `::`,
//!   or followed by whitespace and `::` (docutils allows one space). The
//!   markup may sit anywhere on a line: in a list item, a table cell, a
//!   block quote or an inert directive's body;
//! - MyST: a run of three or more of the same fence character (`` ` ``,
//!   `~` or `:`), optional horizontal whitespace, then `{`: the name runs
//!   to the `}` on that line (none: the rest of the line with the `{`,
//!   never inert).
//!
//! A name is inert when it equals one of the policy's list ASCII
//! case-insensitively (docutils lowercases names; a non-ASCII name is
//! never inert).

/// Whether `text` holds a directive whose name is not one of `inert`.
/// One pass over the text's characters.
pub(super) fn runs_a_directive(text: &str, inert: &[String]) -> bool {
    let is_inert = |name: &str| inert.iter().any(|i| i.eq_ignore_ascii_case(name));
    directive_names(text).any(|name| !is_inert(name))
}

/// Every directive name in `text`, as read above, in order.
pub(super) fn directive_names(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let at = i;
            i += 1;
            let found = match bytes[at] {
                b'.' if bytes.get(at + 1) == Some(&b'.') && (at == 0 || bytes[at - 1] != b'.') => {
                    rst_directive(text, at + 2)
                }
                c @ (b'`' | b'~' | b':') if at == 0 || bytes[at - 1] != c => {
                    let run = bytes[at..].iter().take_while(|b| **b == c).count();
                    if run >= 3 {
                        i = at + run;
                        myst_directive(text, at + run)
                    } else {
                        None
                    }
                }
                _ => None,
            };
            if let Some(name) = found {
                return Some(name);
            }
        }
        None
    })
}

/// Whether `c` separates words on a line: whitespace, but not a line
/// break (a directive's name is on its markup's line).
fn horizontal_space(c: char) -> bool {
    c.is_whitespace() && !line_break(c)
}

/// The characters Python's `str.splitlines` (which docutils reads lines
/// with) breaks a line at.
fn line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text[from..]` with its leading horizontal whitespace removed, and
/// whether there was any.
fn skip_space(text: &str, from: usize) -> (usize, bool) {
    let rest = &text[from..];
    let trimmed = rest.trim_start_matches(horizontal_space);
    (
        from + rest.len() - trimmed.len(),
        trimmed.len() < rest.len(),
    )
}

/// The name of the rst directive whose markup `..` ends at `from`, if
/// one follows.
fn rst_directive(text: &str, from: usize) -> Option<&str> {
    let (mut at, spaced) = skip_space(text, from);
    if !spaced {
        return None;
    }
    // A substitution definition: `.. |name| image:: a.png`.
    if text[at..].starts_with('|') {
        let rest = &text[at + 1..];
        let end = rest.find(|c: char| c == '|' || line_break(c))?;
        if !rest[end..].starts_with('|') {
            return None;
        }
        at = skip_space(text, at + 1 + end + 1).0;
    }
    let rest = &text[at..];
    let token_end = rest
        .find(|c: char| c.is_whitespace() || line_break(c))
        .unwrap_or(rest.len());
    let token = &rest[..token_end];
    if let Some(colons) = token.find("::") {
        let name = &token[..colons];
        return (!name.is_empty()).then_some(name);
    }
    let (after, _) = skip_space(text, at + token_end);
    (!token.is_empty() && text[after..].starts_with("::")).then_some(token)
}

/// The name of the MyST directive whose fence ends at `from`, if a `{`
/// follows.
fn myst_directive(text: &str, from: usize) -> Option<&str> {
    let (at, _) = skip_space(text, from);
    let rest = text[at..].strip_prefix('{')?;
    let line_end = rest.find(line_break).unwrap_or(rest.len());
    let line = &rest[..line_end];
    // An unclosed brace: the rest of the line with the brace, which no
    // inert name matches.
    Some(match line.find('}') {
        Some(end) => &line[..end],
        None => &text[at..at + 1 + line_end],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&str> {
        directive_names(text).collect()
    }

    #[test]
    fn rst_directives_are_read_wherever_docutils_reads_them() {
        assert_eq!(names(".. testcleanup::\n\n   x()\n"), ["testcleanup"]);
        assert_eq!(names("T\n=\n\n.. ipython:: python\n"), ["ipython"]);
        assert_eq!(names(".. plot:: a/b.py\n"), ["plot"]);
        assert_eq!(names("   .. jupyter-execute::\n"), ["jupyter-execute"]);
        assert_eq!(names("..\ttestcode ::\n"), ["testcode"]);
        assert_eq!(names("..   py:function:: f()\n"), ["py:function"]);
        assert_eq!(names(".. |x| image:: a.png\n"), ["image"]);
        assert_eq!(names(".. |a b| testcode::\n"), ["testcode"]);
        assert_eq!(names("- .. testcode::\n"), ["testcode"]);
        assert_eq!(names("| .. testcode:: |\n"), ["testcode"]);
        assert_eq!(names("|.. testcode::|\n"), ["testcode"]);
        assert_eq!(
            names(".. note::\n\n   .. testcode::\n"),
            ["note", "testcode"]
        );
        // Docutils' other line breaks and spaces.
        assert_eq!(names("x\u{2028}.. doctest::"), ["doctest"]);
        assert_eq!(names("x\u{85}..\u{a0}doctest::"), ["doctest"]);
        assert_eq!(names("..\x0btestcode::"), ["testcode"]);
        assert_eq!(names(".. a::b"), ["a"]);
        assert_eq!(names(".. Test\u{200b}Cleanup::"), ["Test\u{200b}Cleanup"]);
        // Not a directive: a comment, a target, a footnote, an ellipsis,
        // no space after the markup, the name on the next line, an empty
        // name, an unclosed substitution.
        for text in [
            ".. a comment\n",
            ".. _target: https://x.invalid/a::b\n",
            ".. [1] a footnote\n",
            "Wait... example::\n\n   shown\n",
            "..note::\n",
            "..\n   note::\n",
            ".. ::\n",
            ".. |x\n| image:: a.png\n",
            "Example::\n\n   shown\n",
        ] {
            assert_eq!(names(text), Vec::<&str>::new(), "{text:?}");
        }
    }

    #[test]
    fn myst_fenced_directives_are_read() {
        assert_eq!(names(":::{testcode}\nx\n:::\n"), ["testcode"]);
        assert_eq!(names("::::{jupyter-execute}\n"), ["jupyter-execute"]);
        assert_eq!(names("  ::: {note}\n"), ["note"]);
        assert_eq!(names("```{ipython}\nIn [1]: x\n```\n"), ["ipython"]);
        assert_eq!(names("~~~~ {code-cell} python\n"), ["code-cell"]);
        assert_eq!(names("> :::{testcode}\n"), ["testcode"]);
        assert_eq!(names(":::{open\n"), ["{open"]);
        assert_eq!(names(":::{}\n"), [""]);
        for text in [
            "::{note}\n",
            "```python\n```\n",
            ":::\n{note}\n",
            "Example::\n",
        ] {
            assert_eq!(names(text), Vec::<&str>::new(), "{text:?}");
        }
    }

    #[test]
    fn only_listed_names_are_inert() {
        let inert: Vec<String> = ["note", "image"].iter().map(|s| s.to_string()).collect();
        assert!(!runs_a_directive(
            ".. NOTE::\n\n   x\n\n.. image:: a.png\n",
            &inert
        ));
        assert!(!runs_a_directive(":::{Note}\nx\n:::\n", &inert));
        assert!(runs_a_directive(".. note::\n.. testcleanup::\n", &inert));
        assert!(runs_a_directive(":::{}\n", &inert));
        assert!(runs_a_directive(":::{note\n", &inert));
        // A Kelvin sign lowercases to `k` for Python, never to an
        // inert ASCII name here.
        assert!(runs_a_directive(".. \u{212a}ote::\n", &inert));
        assert!(runs_a_directive(".. note::\n", &[]));
        assert!(!runs_a_directive("Plain prose.\n", &[]));
    }
}
