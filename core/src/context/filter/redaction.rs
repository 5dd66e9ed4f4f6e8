//! Redaction: every floor secret's span, merged into masks.

use std::borrow::Cow;

use super::*;

pub(super) const MASK_PREFIX: &str = "[REDACTED:";

/// Whether `s[start..end]` (a detector's capture) is exactly one whole
/// well-formed mask `[REDACTED:<code>]` of this filter, or, when it ends the
/// text, a prefix of one (a mask the byte bound cut). Anything else, such as
/// `[REDACTED:x]hunter2`, is a value to mask.
pub(super) fn is_own_mask(e: &Engine, s: &str, start: usize, end: usize) -> bool {
    let Some(cap) = s.get(start..end) else {
        return false;
    };
    let whole = |code: &str| {
        cap.strip_prefix(MASK_PREFIX)
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|c| c == code)
    };
    let cut = |code: &str| {
        end == s.len() && {
            let full = format!("{MASK_PREFIX}{code}]");
            full.len() > cap.len() && full.starts_with(cap)
        }
    };
    e.secrets
        .iter()
        .map(|d| d.code)
        .chain(["pii.iban", "secret.registered_credential"])
        .any(|code| whole(code) || cut(code))
}

/// Whether a whole match (a group-0 detector's, Luhn aside) is a secret.
pub(super) fn whole_match_kept(validate: Validate, m: &str) -> bool {
    match validate {
        Validate::Ssn => ssn_valid(m),
        Validate::HighEntropy40 => high_entropy_40(m),
        Validate::Token => token_entropy_ok(m),
        Validate::Luhn
        | Validate::None
        | Validate::NotMask
        | Validate::NamedValue
        | Validate::UrlPassword
        | Validate::CurlUser
        | Validate::VendorValue
        | Validate::Netrc => true,
    }
}

/// Whether the capture `m` of the match `c` (in `s`) is not a secret.
pub(super) fn capture_refused(
    e: &Engine,
    validate: Validate,
    s: &str,
    c: &regex::Captures,
    m: regex::Match,
) -> bool {
    match validate {
        Validate::NotMask => is_own_mask(e, s, m.start(), m.end()),
        Validate::NamedValue => {
            is_own_mask(e, s, m.start(), m.end()) || {
                let whole = c.get(0).map_or("", |w| &s[w.start()..m.start()]);
                let quoted = whole.ends_with(['"', '\'']);
                named_value_kept(whole, m.as_str(), quoted)
            }
        }
        Validate::UrlPassword => {
            is_own_mask(e, s, m.start(), m.end()) || url_port_not_password(m.as_str())
        }
        Validate::CurlUser => is_own_mask(e, s, m.start(), m.end()) || curl_user_kept(m.as_str()),
        Validate::VendorValue => {
            is_own_mask(e, s, m.start(), m.end()) || vendor_value_kept(m.as_str())
        }
        Validate::Netrc => {
            is_own_mask(e, s, m.start(), m.end())
                || m.as_str().ends_with(['.', ',', ';', ':', '!', '?'])
        }
        Validate::Token => !token_entropy_ok(m.as_str()),
        Validate::Ssn => !ssn_valid(m.as_str()),
        Validate::HighEntropy40 => !high_entropy_40(m.as_str()),
        Validate::Luhn | Validate::None => false,
    }
}

pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) priority: usize,
    pub(super) code: &'static str,
}

pub(super) fn secret_spans(e: &Engine, creds: &CredentialRegistry, s: &str) -> Vec<Span> {
    secret_spans_with(e, creds, s, &triggered(e, s))
}

/// The scans of the keywordless detectors, each run once per text and only
/// when a detector needs it.
struct LazyScans<'a> {
    s: &'a str,
    digits: Option<DigitScan>,
    tokens: Option<Ranges>,
}

impl LazyScans<'_> {
    fn digits(&mut self) -> &DigitScan {
        let s = self.s;
        self.digits.get_or_insert_with(|| digit_scan(s))
    }

    /// The maximal runs of `class` of at least `min` bytes, from
    /// `token_runs` (`class` is `base64` with 40 or `base64url` with 27).
    fn runs(&mut self, e: &Engine, class: &ByteClass, min: usize) -> Ranges {
        let s = self.s;
        let tokens = self.tokens.get_or_insert_with(|| token_runs(s, &e.classes));
        runs_within(s, tokens, class, min)
    }
}

/// The whole matches of a group-0 detector, exactly those of
/// `d.re.find_iter(s)`.
fn whole_matches(
    e: &Engine,
    t: &Triggered,
    p: usize,
    d: &SecretDetector,
    s: &str,
    scans: &mut LazyScans,
) -> Ranges {
    match d.search {
        Search::Base64Runs => scans.runs(e, &e.classes.base64, 40),
        Search::SsnLines => line_matches(&d.re, s, &scans.digits().ssn),
        Search::DottedCardLines => line_matches(&d.re, s, &scans.digits().dotted),
        Search::CardLines => line_matches(&d.re, s, &scans.digits().card),
        Search::SsnDotLines => line_matches(&d.re, s, &scans.digits().ssn_dot),
        Search::SlashedCardLines => line_matches(&d.re, s, &scans.digits().slashed),
        Search::DotTokenLines => {
            let runs = scans.runs(e, &e.classes.base64url, 27);
            line_matches(&d.re, s, &dot_token_runs(s, &runs))
        }
        Search::KeywordLines => keyword_line_captures(&d.re, s, &keyword_candidates(e, t, p, d, s))
            .iter()
            .filter_map(|c| c.get(0).map(|m| (m.start(), m.end())))
            .collect(),
        Search::Regex => d.re.find_iter(s).map(|m| (m.start(), m.end())).collect(),
    }
}

/// The captures of a detector with a capture group, exactly those of
/// `d.re.captures_iter(s)`.
fn group_captures<'s>(
    e: &Engine,
    t: &Triggered,
    p: usize,
    d: &SecretDetector,
    s: &'s str,
) -> Vec<regex::Captures<'s>> {
    match d.search {
        Search::KeywordLines => keyword_line_captures(&d.re, s, &keyword_candidates(e, t, p, d, s)),
        _ => d.re.captures_iter(s).collect(),
    }
}

/// The keyword starts of detector `p` that may lie in one of its matches
/// (`keyword_may_match`): every match still holds one on its first line.
pub(super) fn keyword_candidates(
    e: &Engine,
    t: &Triggered,
    p: usize,
    d: &SecretDetector,
    s: &str,
) -> Vec<usize> {
    keyword_starts_that_may_match(d.follow, s, &t.secret_keyword_hits(e, p))
}

pub(super) fn secret_spans_with(
    e: &Engine,
    creds: &CredentialRegistry,
    s: &str,
    t: &Triggered,
) -> Vec<Span> {
    let mut scans = LazyScans {
        s,
        digits: None,
        tokens: None,
    };
    let mut spans = Vec::new();
    for (p, d) in e.secrets.iter().enumerate() {
        if !t.secrets[p] {
            continue;
        }
        if d.group == 0 {
            for (start, end) in whole_matches(e, t, p, d, s, &mut scans) {
                let m = &s[start..end];
                if matches!(d.validate, Validate::Luhn) {
                    for (a, b) in card_windows(m) {
                        spans.push(Span {
                            start: start + a,
                            end: start + b,
                            priority: p,
                            code: d.code,
                        });
                    }
                    continue;
                }
                if whole_match_kept(d.validate, m) {
                    spans.push(Span {
                        start,
                        end,
                        priority: p,
                        code: d.code,
                    });
                }
            }
        } else {
            for c in group_captures(e, t, p, d, s) {
                let Some(m) = (d.group..c.len()).find_map(|g| c.get(g)) else {
                    continue;
                };
                if m.is_empty() || capture_refused(e, d.validate, s, &c, m) {
                    continue;
                }
                spans.push(Span {
                    start: m.start(),
                    end: m.end(),
                    priority: p,
                    code: d.code,
                });
            }
        }
    }
    let iban_priority = e.secrets.len();
    for &(start, _) in &scans.digits().iban {
        if let Some(end) = iban_at(s, start) {
            spans.push(Span {
                start,
                end,
                priority: iban_priority,
                code: "pii.iban",
            });
        }
    }
    if let Some(ac) = &creds.automaton {
        for m in ac.find_iter(s) {
            spans.push(Span {
                start: m.start(),
                end: m.end(),
                priority: 0,
                code: "secret.registered_credential",
            });
        }
    }
    // Registered credentials first on ties: they are exact.
    spans.sort_by(|a, b| {
        (
            a.start,
            std::cmp::Reverse(a.end),
            a.code != "secret.registered_credential",
            a.priority,
        )
            .cmp(&(
                b.start,
                std::cmp::Reverse(b.end),
                b.code != "secret.registered_credential",
                b.priority,
            ))
    });
    spans
}

/// Redacts every floor secret; overlapping matches merge into one mask named
/// by the first match, so no part of any matched secret survives. Returns
/// the text (borrowed when nothing was redacted) and the replacements made.
pub(super) fn redact<'a>(
    e: &Engine,
    creds: &CredentialRegistry,
    s: &'a str,
    t: &Triggered,
    f: &mut Findings,
) -> (Cow<'a, str>, Vec<Edit>) {
    let spans = secret_spans_with(e, creds, s, t);
    if spans.is_empty() {
        return (Cow::Borrowed(s), Vec::new());
    }
    let mut merged: Vec<(usize, usize, &'static str)> = Vec::new();
    for sp in spans {
        match merged.last_mut() {
            Some(last) if sp.start < last.1 => last.1 = last.1.max(sp.end),
            _ => merged.push((sp.start, sp.end, sp.code)),
        }
    }
    // The exact length of the output (and room for the line feed
    // `filter_text` may add): growing a copy of a log mid-way would copy it
    // again.
    let len = merged.iter().fold(s.len(), |n, &(start, end, code)| {
        n - (end - start) + MASK_PREFIX.len() + code.len() + 1
    });
    let mut out = String::with_capacity(len + 1);
    let mut edits = Vec::with_capacity(merged.len());
    let mut pos = 0;
    for (start, end, code) in merged {
        out.push_str(&s[pos..start]);
        let at = out.len();
        out.push_str(MASK_PREFIX);
        out.push_str(code);
        out.push(']');
        edits.push(Edit {
            source: (start, end),
            output: (at, out.len()),
        });
        f.add(code, 1);
        pos = end;
    }
    out.push_str(&s[pos..]);
    (Cow::Owned(out), edits)
}
